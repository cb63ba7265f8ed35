//! Which `tether.toml` checks each file: the nearest one at or above the file's
//! folder, as ruff resolves `pyproject.toml`, so the order of paths on the command
//! line never changes a result; or one configuration for every file (`--config`).
//!
//! Each configuration stands alone: tether does not merge a `tether.toml` with the
//! ones above it (no `extend`, no `root = true`); the nearest one is the whole truth
//! for the files below it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::config::{Config, FILE_NAME};

/// Chooses the configuration of each file.
#[derive(Debug)]
pub struct Resolver {
    /// `--config`: one configuration for every file.
    explicit: Option<Arc<Config>>,
    /// Where no `tether.toml` is found: the defaults, paths relative to the working
    /// directory.
    fallback: Arc<Config>,
    /// `--select`, applied to every configuration found.
    select: Vec<String>,
    /// Per folder: the configuration that applies there, once looked up.
    found: Mutex<HashMap<PathBuf, Result<Arc<Config>, String>>>,
}

impl Resolver {
    /// One configuration for every file.
    pub fn one(config: Config) -> Resolver {
        let config = Arc::new(config);
        Resolver {
            explicit: Some(config.clone()),
            fallback: config,
            select: Vec::new(),
            found: Mutex::new(HashMap::new()),
        }
    }

    /// The nearest `tether.toml` of each file, `fallback` where there is none, and
    /// `select` (`--select`) applied to each.
    pub fn discover(fallback: Config, select: Vec<String>) -> Resolver {
        Resolver {
            explicit: None,
            fallback: Arc::new(fallback),
            select,
            found: Mutex::new(HashMap::new()),
        }
    }

    /// The folder of the configuration used where no `tether.toml` is found.
    pub fn fallback_root(&self) -> &Path {
        &self.fallback.root
    }

    /// The configuration of the file at `absolute`, or the error of the
    /// `tether.toml` that should have configured it.
    pub fn config_for(&self, absolute: &Path) -> Result<Arc<Config>, String> {
        if let Some(config) = &self.explicit {
            return Ok(config.clone());
        }
        let folder = absolute.parent().unwrap_or(absolute);
        self.config_of_folder(folder)
    }

    fn config_of_folder(&self, folder: &Path) -> Result<Arc<Config>, String> {
        if let Some(known) = self.lock().get(folder) {
            return known.clone();
        }
        let candidate = folder.join(FILE_NAME);
        let resolved = if std::fs::symlink_metadata(&candidate).is_ok() {
            Config::load(&candidate)
                .map_err(|error| error.to_string())
                .and_then(|mut config| {
                    if !self.select.is_empty() {
                        config.select_rules(&self.select)?;
                    }
                    Ok(Arc::new(config))
                })
        } else {
            match folder.parent() {
                Some(parent) => self.config_of_folder(parent),
                None => Ok(self.fallback.clone()),
            }
        };
        self.lock().insert(folder.to_path_buf(), resolved.clone());
        resolved
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Result<Arc<Config>, String>>> {
        self.found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
