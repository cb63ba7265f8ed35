//! Fuzz target: `check`'s lazy mode (a parse tree only where a rule asks for one)
//! and full mode (every tree) give the same findings on any file, template or
//! values file (ARCHITECTURE.md, invariants).

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use helm_tether::internals::{check_bytes, Mode};
use helm_tether::Config;
use helm_tether::Diagnostic;

fuzz_target!(|data: &[u8]| {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    let config = CONFIG.get_or_init(|| Config::default_for(PathBuf::from("/tmp")));
    for path in ["templates/x.yaml", "values.yaml"] {
        let path = Path::new(path);
        let (_, lazy) = check_bytes(config, path, data.to_vec(), Mode::Lazy);
        let (_, full) = check_bytes(config, path, data.to_vec(), Mode::Full);
        assert_eq!(
            findings(&lazy),
            findings(&full),
            "lazy and full modes disagree on {}",
            path.display()
        );
    }
});

/// What the two modes must agree on: rule, byte range and message of each finding.
fn findings(diagnostics: &[Diagnostic]) -> Vec<(&str, std::ops::Range<usize>, &str)> {
    diagnostics
        .iter()
        .map(|diagnostic| {
            (
                diagnostic.rule.name(),
                diagnostic.range.clone(),
                diagnostic.message.as_str(),
            )
        })
        .collect()
}
