//! Fuzz target: parsing arbitrary `tether.toml` text never panics; an error is a
//! value whose message (line and column from the TOML span) renders.

#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use helm_tether::Config;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Config::from_toml_in(&text, PathBuf::from("/tmp")) {
        Ok(config) => {
            // What every checked file asks of a configuration.
            for path in [
                "templates/x.yaml",
                "values.yaml",
                "charts/a/templates/_x.tpl",
            ] {
                let _ = config.includes(Path::new(path));
                let _ = helm_tether::internals::settings_for(&config, Path::new(path));
            }
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
});
