//! `extend = "PATH"` of `tether.toml`: reading the configuration a file extends,
//! and the files that one extends in turn, refusing a cycle and a chain deeper than
//! any setup needs. Merging the two is [`Config`]'s own (`config.rs`).

use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::error::ConfigError;
use crate::paths::Confined;
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

    /// Loads the file `named` by `extend` in `path`, refusing a path that leaves the
    /// repository, a cycle and a chain deeper than any setup needs.
    ///
    /// A pull request's `tether.toml` may name any path, and an error quoting what
    /// the file holds would print it in a public CI log: a path outside the
    /// repository is refused before anything out there is looked at, with one
    /// message whether or not it exists.
    pub(super) fn load_extended(
        named: &Spanned<String>,
        path: &Path,
        root: &Path,
        chain: &mut Vec<PathBuf>,
        errors: &ErrorContext,
    ) -> Result<Config, ConfigError> {
        const MAX_CHAIN: usize = 16;
        let own = crate::paths::absolute(path);
        let top = reachable_top(chain.first().unwrap_or(&own));
        let target = root.join(named.get_ref());
        let resolved = match crate::paths::confine(&target, &top) {
            Confined::Inside(resolved) if resolved.exists() => resolved,
            Confined::Inside(_) => {
                return Err(errors.at(
                    named.span(),
                    format!(
                        "`extend` names {:?}, which does not exist; write the path of another tether.toml relative to this file's folder, such as \"../tether.toml\"",
                        named.get_ref()
                    ),
                ));
            }
            Confined::Outside => {
                return Err(errors.at(
                    named.span(),
                    format!(
                        "`extend` names {:?}, which is outside the repository ({}); tether extends only a tether.toml inside the repository it checks: copy the settings you need into one there",
                        named.get_ref(),
                        top.display()
                    ),
                ));
            }
            Confined::Loop => {
                return Err(errors.at(
                    named.span(),
                    format!(
                        "`extend` names {:?}, which is a loop of symbolic links; name the file itself",
                        named.get_ref()
                    ),
                ));
            }
        };
        if resolved == own || chain.contains(&resolved) {
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
        let parent = Config::load_extending(&resolved, chain);
        chain.pop();
        // An error of the extended file names its own line; where it is extended
        // from is said too, since the run was started from another file.
        let from = format!("{}:{}", path.display(), errors.line_of(&named.span()));
        parent.map_err(|error| extended_from(error, &from))
    }
}

/// The folder `extend` may reach from the configuration `file` that starts a chain:
/// its repository's top (the nearest folder above it with a `.git`), or, outside
/// git, the folder of the topmost `tether.toml` at or above it, as a monorepo's
/// nested configurations extend the one at its top.
fn reachable_top(file: &Path) -> PathBuf {
    let folder = file.parent().unwrap_or(file);
    crate::paths::repository_top(folder).unwrap_or_else(|| {
        folder
            .ancestors()
            .filter(|ancestor| std::fs::symlink_metadata(ancestor.join(FILE_NAME)).is_ok())
            .last()
            .unwrap_or(folder)
            .to_path_buf()
    })
}

/// `error`, of a file that `from` (`path:line`) extends, saying so.
fn extended_from(error: ConfigError, from: &str) -> ConfigError {
    let note = format!(" (the file `extend` names in {from})");
    match error {
        ConfigError::Invalid {
            path,
            line,
            column,
            message,
        } => ConfigError::Invalid {
            path,
            line,
            column,
            message: message + &note,
        },
        ConfigError::Unreadable { path, message } => ConfigError::Unreadable {
            path,
            message: message + &note,
        },
    }
}
