//! Which `tether.toml` checks each file: the nearest one at or above the file's
//! folder, as ruff resolves `pyproject.toml`, so the order of paths on the command
//! line never changes a result; or one configuration for every file (`--config`).
//!
//! The yamllint configuration of each folder is resolved here too (see `yamllint`):
//! a folder's configuration is its `tether.toml`'s with the yamllint file nearest to
//! it, so a `.yamllint` below a `tether.toml` applies to the files under it.
//!
//! The nearest configuration is the whole truth for the files below it, unless it
//! says `extend = "../tether.toml"` (as ruff's `extend`): then the one it names
//! applies first (`Config::load` merges them). A nested one that does not extend
//! the one above it, and so drops its `[[require]]` or `[[idem]]` entries, is said
//! on its first run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::analysis::pins::PinIndex;
use crate::settings::config::{Config, FILE_NAME};
use crate::settings::project::{Project, Resolved};
use crate::settings::yamllint::Yamllint;

/// A folder's yamllint configuration, once looked up.
type FoundYamllint = Result<Option<Arc<Yamllint>>, String>;

/// Chooses the configuration of each file.
#[derive(Debug)]
pub struct Resolver {
    /// `--config`: one configuration for every file (or why it cannot be used).
    explicit: Option<Result<Resolved, String>>,
    /// Where no `tether.toml` is found: the defaults, paths relative to the working
    /// directory.
    fallback: Arc<Config>,
    /// `--select`, applied to every configuration found.
    select: Vec<String>,
    /// `--ignore`, applied to every configuration found.
    ignore: Vec<String>,
    /// Per folder: the configuration that applies there, once looked up.
    found: Mutex<HashMap<PathBuf, Result<Resolved, String>>>,
    /// Per folder: the yamllint configuration that applies there, once looked up.
    yamllint: Mutex<HashMap<PathBuf, FoundYamllint>>,
    /// Per repository top: its pins, read and indexed once.
    pins: Mutex<HashMap<PathBuf, Arc<PinIndex>>>,
    /// The fallback with its pins, made when first needed.
    fallback_pinned: OnceLock<Resolved>,
    /// The folder the run covers, set by the walk before any file is looked up.
    input_root: OnceLock<PathBuf>,
    /// The charts of the run, shared by every configuration.
    charts: Arc<crate::analysis::charts::Charts>,
}

impl Resolver {
    /// One configuration for every file.
    pub fn one(config: Config) -> Resolver {
        let mut resolver = Resolver {
            explicit: None,
            fallback: Arc::new(config.clone()),
            select: Vec::new(),
            ignore: Vec::new(),
            found: Mutex::new(HashMap::new()),
            yamllint: Mutex::new(HashMap::new()),
            pins: Mutex::new(HashMap::new()),
            fallback_pinned: OnceLock::new(),
            input_root: OnceLock::new(),
            charts: Arc::default(),
        };
        let resolved = resolver.with_pins(config);
        let explicit = if resolved.config.yamllint_named {
            Ok(resolved)
        } else {
            resolver
                .yamllint_of_folder(&resolved.config.root)
                .map(|yamllint| Resolved {
                    config: Arc::new(resolved.config.with_yamllint(yamllint)),
                    project: resolved.project,
                })
        };
        resolver.explicit = Some(explicit);
        resolver
    }

    /// The nearest `tether.toml` of each file, `fallback` where there is none, and
    /// `select` (`--select`) and `ignore` (`--ignore`) applied to each.
    pub fn discover(fallback: Config, select: Vec<String>, ignore: Vec<String>) -> Resolver {
        Resolver {
            explicit: None,
            fallback: Arc::new(fallback),
            select,
            ignore,
            found: Mutex::new(HashMap::new()),
            yamllint: Mutex::new(HashMap::new()),
            pins: Mutex::new(HashMap::new()),
            fallback_pinned: OnceLock::new(),
            input_root: OnceLock::new(),
            charts: Arc::default(),
        }
    }

    /// The folder of the configuration used where no `tether.toml` is found.
    pub fn fallback_root(&self) -> &Path {
        &self.fallback.root
    }

    /// The configuration of the file at `absolute`, or the error of the
    /// `tether.toml` that should have configured it.
    pub fn config_for(&self, absolute: &Path) -> Result<Resolved, String> {
        if let Some(config) = &self.explicit {
            return config.clone();
        }
        let folder = absolute.parent().unwrap_or(absolute);
        self.config_of_folder(folder)
    }

    fn config_of_folder(&self, folder: &Path) -> Result<Resolved, String> {
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
                    config.ignore_rules(&self.ignore)?;
                    Ok(self.with_pins(config))
                })
        } else {
            match folder.parent() {
                Some(parent) => self.config_of_folder(parent),
                None => Ok(self.fallback_with_pins()),
            }
        };
        let resolved = resolved.and_then(|resolved| {
            if resolved.config.yamllint_named {
                return Ok(resolved);
            }
            let yamllint = self.yamllint_of_folder(folder)?;
            let same = match (&resolved.config.yamllint, &yamllint) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            Ok(if same {
                resolved
            } else {
                Resolved {
                    config: Arc::new(resolved.config.with_yamllint(yamllint)),
                    project: resolved.project,
                }
            })
        });
        self.lock().insert(folder.to_path_buf(), resolved.clone());
        resolved
    }

    /// `config` with the run's state of its repository: its pins, read once per
    /// repository, and the run's charts.
    fn with_pins(&self, config: Config) -> Resolved {
        // The top of the repository of the `tether.toml`, or (for the defaults) of
        // the folder the run covers, never the working directory's as such; outside a
        // repository, that folder itself.
        let base = match &config.file {
            Some(_) => config.root.clone(),
            None => self
                .input_root
                .get()
                .cloned()
                .unwrap_or_else(|| config.root.clone()),
        };
        let top = crate::paths::repository_top(&base).unwrap_or(base);
        // Under the lock: files of one repository resolved on several threads wait
        // for one walk rather than each making its own.
        let pins = self
            .lock_pins()
            .entry(top.clone())
            .or_insert_with_key(|top| {
                let (pins, problems) = crate::analysis::pins::repository_pins(top);
                Arc::new(PinIndex::new(pins, problems))
            })
            .clone();
        Resolved {
            project: Arc::new(Project::of(&config, top, &pins, &self.charts)),
            config: Arc::new(config),
        }
    }

    /// The folder the run covers (the inputs' common folder), where the pins of files
    /// outside any repository and any `tether.toml` are read from.
    pub fn set_input_root(&self, root: PathBuf) {
        let _ = self.input_root.set(root);
    }

    /// The fallback configuration, with its pins (attached once).
    fn fallback_with_pins(&self) -> Resolved {
        self.fallback_pinned
            .get_or_init(|| self.with_pins((*self.fallback).clone()))
            .clone()
    }

    fn lock_pins(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<PinIndex>>> {
        self.pins
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The yamllint configuration of the files in `folder`: the nearest `.yamllint*`
    /// at or above it, else chart-testing's at the repository's top.
    fn yamllint_of_folder(&self, folder: &Path) -> FoundYamllint {
        if let Some(known) = self.lock_yamllint().get(folder) {
            return known.clone();
        }
        let found = match crate::settings::yamllint::decided_in(folder) {
            Some(found) => found
                .map(|yamllint| yamllint.map(Arc::new))
                .map_err(|error| error.to_string()),
            None => match folder.parent() {
                Some(parent) => self.yamllint_of_folder(parent),
                None => Ok(None),
            },
        };
        self.lock_yamllint()
            .insert(folder.to_path_buf(), found.clone());
        found
    }

    fn lock_yamllint(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, FoundYamllint>> {
        self.yamllint
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Result<Resolved, String>>> {
        self.found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
