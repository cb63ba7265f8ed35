//! The content-hash cache of `tether check`: findings per file, keyed by the file's
//! hash, the configuration's and tether's version, kept in `.tether_cache/` beside
//! `tether.toml`. An unchanged re-run reads and hashes the files and nothing more.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::diagnostic::Diagnostic;

/// The folder, relative to the configuration's.
pub const FOLDER: &str = ".tether_cache";

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    /// tether's version and the configuration's fingerprint the entries were made with.
    key: String,
    files: HashMap<PathBuf, Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    hash: u64,
    diagnostics: Vec<Diagnostic>,
}

/// The cache as loaded at the start of a run.
#[derive(Debug)]
pub struct Cache {
    stored: Stored,
}

impl Cache {
    /// Loads the cache for this configuration; an absent, unreadable or outdated
    /// cache is an empty one.
    pub fn load(config: &Config) -> Cache {
        let key = cache_key(config);
        let stored = std::fs::read(file(config))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Stored>(&bytes).ok())
            .filter(|stored| stored.key == key)
            .unwrap_or(Stored {
                key,
                files: HashMap::new(),
            });
        Cache { stored }
    }

    /// The cached findings of a file, if its content is unchanged.
    pub fn get(&self, relative: &Path, hash: u64) -> Option<Vec<Diagnostic>> {
        self.stored
            .files
            .get(relative)
            .filter(|entry| entry.hash == hash)
            .map(|entry| entry.diagnostics.clone())
    }

    /// Adds this run's fresh results and writes the cache; a cache that cannot be
    /// written is skipped (the next run is slower, not wrong).
    pub fn store(mut self, config: &Config, fresh: Vec<(PathBuf, u64, Vec<Diagnostic>)>) {
        if fresh.is_empty() {
            return;
        }
        for (path, hash, diagnostics) in fresh {
            self.stored.files.insert(path, Entry { hash, diagnostics });
        }
        let folder = config.root.join(FOLDER);
        if std::fs::create_dir_all(&folder).is_err() {
            return;
        }
        let _ = std::fs::write(folder.join(".gitignore"), "# created by tether\n*\n");
        let Ok(bytes) = serde_json::to_vec(&self.stored) else {
            return;
        };
        // Write to a temporary file and rename, so a concurrent run never reads half.
        let temporary = folder.join(format!("check.json.{}", std::process::id()));
        if std::fs::write(&temporary, bytes).is_ok() {
            let _ = std::fs::rename(&temporary, file(config));
        }
    }
}

fn file(config: &Config) -> PathBuf {
    config.root.join(FOLDER).join("check.json")
}

/// tether's version, the running build (a rebuilt binary may check differently
/// under the same version) and the configuration.
fn cache_key(config: &Config) -> String {
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|metadata| {
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            format!("{}.{modified}", metadata.len())
        })
        .unwrap_or_default();
    format!(
        "{}-{build}-{:016x}",
        env!("CARGO_PKG_VERSION"),
        config.fingerprint
    )
}
