//! `extend = "PATH"` of `tether.toml`: reading the configuration a file extends,
//! and the files that one extends in turn, refusing a cycle and a chain deeper than
//! any setup needs. Merging the two is [`Config`]'s own (`config.rs`).

use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::error::ConfigError;
use crate::settings::compile::ErrorContext;
use crate::settings::config::Config;
use crate::settings::config_file::{FILE_NAME, MAX_CONFIG_BYTES};

impl Config {
    /// [`Config::load`], `chain` holding the files that extend this one (to refuse
    /// a cycle).
    pub(super) fn load_extending(
        path: &Path,
        chain: &mut Vec<PathBuf>,
    ) -> Result<Config, ConfigError> {
        let bytes = crate::source::read_regular(path, MAX_CONFIG_BYTES).map_err(|error| {
            ConfigError::Unreadable {
                path: path.display().to_string(),
                message: error.to_string(),
            }
        })?;
        let invalid = |offset: usize, message: String| {
            let before = String::from_utf8_lossy(&bytes[..offset]);
            ErrorContext::new(&before, path).at(before.len()..before.len(), message)
        };
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(invalid(
                0,
                format!(
                    "{FILE_NAME} is larger than {} KiB, which no configuration needs; is this the right file?",
                    MAX_CONFIG_BYTES / 1024
                ),
            ));
        }
        let text = match String::from_utf8(bytes.clone()) {
            Ok(text) => text,
            Err(error) => {
                let offset = error.utf8_error().valid_up_to();
                return Err(invalid(
                    offset,
                    format!(
                        "not UTF-8 (byte 0x{:02x}); save {FILE_NAME} as UTF-8",
                        bytes[offset]
                    ),
                ));
            }
        };
        let folder = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Config::parse_extending(&text, path, crate::paths::absolute(folder), chain)
    }

    /// Loads the file `named` by `extend` in `path`, refusing a cycle and a chain
    /// deeper than any setup needs.
    pub(super) fn load_extended(
        named: &Spanned<String>,
        path: &Path,
        root: &Path,
        chain: &mut Vec<PathBuf>,
        errors: &ErrorContext,
    ) -> Result<Config, ConfigError> {
        const MAX_CHAIN: usize = 16;
        let target = root.join(named.get_ref());
        let Ok(canonical) = target.canonicalize() else {
            return Err(errors.at(
                named.span(),
                format!(
                    "`extend` names {:?}, which does not exist; write the path of another tether.toml relative to this file's folder, such as \"../tether.toml\"",
                    named.get_ref()
                ),
            ));
        };
        let own = crate::paths::absolute(path);
        if canonical == own || chain.contains(&canonical) {
            return Err(errors.at(
                named.span(),
                format!(
                    "`extend` makes a cycle: {:?} extends, directly or through others, this file; remove one `extend`",
                    named.get_ref()
                ),
            ));
        }
        if chain.len() >= MAX_CHAIN {
            return Err(errors.at(
                named.span(),
                format!("`extend` chains more than {MAX_CHAIN} files; no setup needs that many"),
            ));
        }
        chain.push(own);
        let parent = Config::load_extending(&canonical, chain);
        chain.pop();
        parent
    }
}
