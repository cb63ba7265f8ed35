//! Which `tether.toml` checks each file: the nearest one at or above the file's
//! folder, as ruff resolves `pyproject.toml`, so the order of paths on the command
//! line never changes a result; or one configuration for every file (`--config`).
//!
//! The yamllint configuration of each folder is resolved here too (see `yamllint`):
//! a folder's configuration is its `tether.toml`'s with the yamllint file nearest to
//! it, so a `.yamllint` below a `tether.toml` applies to the files under it.
//!
//! Resolution is in batches, without locks: the walk hands every folder it listed
//! to [`Resolver::resolve`], which probes them and their parents, reads each
//! `tether.toml`, yamllint file and repository's pins once, in parallel, and
//! memoises the answer per folder; looking up a file's configuration afterwards
//! ([`Resolver::resolved`]) only reads that memo.
//!
//! The nearest configuration is the whole truth for the files below it, unless it
//! says `extend = "../tether.toml"` (as ruff's `extend`): then the one it names
//! applies first (`Config::load` merges them). A nested one that does not extend
//! the one above it, and so drops its `[[require]]` or `[[idem]]` entries, is said
//! on its first run.

use crate::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::pins::PinIndex;
use crate::error::ConfigurationError;
use crate::linter::project::{Project, Resolved};
use crate::settings::config::{Config, FILE_NAME};
use crate::settings::yamllint::Yamllint;

/// A folder's yamllint configuration, once looked up.
type FoundYamllint = Result<Option<Arc<Yamllint>>, ConfigurationError>;

/// A folder's configuration, once looked up, or why it cannot be used.
type Found = Result<Resolved, ConfigurationError>;

/// Chooses the configuration of each file.
#[derive(Debug)]
pub struct Resolver {
    /// `--config`: one configuration for every file (or why it cannot be used).
    explicit: Option<Found>,
    /// Where no `tether.toml` is found: the defaults, paths relative to the working
    /// directory.
    fallback: Arc<Config>,
    /// `--select`, applied to every configuration found.
    select: Vec<String>,
    /// `--ignore`, applied to every configuration found.
    ignore: Vec<String>,
    /// Per folder: the configuration that applies there, once resolved.
    found: HashMap<PathBuf, Found>,
    /// Per folder: the yamllint configuration that applies there, once resolved.
    yamllint: HashMap<PathBuf, FoundYamllint>,
    /// Per repository top: its pins, read and indexed once.
    pins: HashMap<PathBuf, Arc<PinIndex>>,
    /// The fallback with its pins, made when first needed.
    fallback_pinned: Option<Resolved>,
    /// The folder the run covers, where the fallback's pins are read from.
    input_root: Option<PathBuf>,
    /// The charts of the run, shared by every configuration.
    charts: Arc<crate::analysis::charts::Charts>,
}

impl Resolver {
    /// Lets go of what was resolved per folder, once a walk has given every file
    /// its configuration: a run then holds the configurations, not an entry for
    /// every folder of the tree. A folder asked about again is resolved again.
    pub fn forget_folders(&mut self) {
        self.found = HashMap::default();
        self.yamllint = HashMap::default();
    }

    /// One configuration for every file.
    pub fn one(config: Config) -> Resolver {
        let mut resolver = Resolver::discover(config.clone(), Vec::new(), Vec::new(), None);
        let top = resolver.top_of(&config);
        let resolved = resolver.attach(config, top);
        let explicit = if resolved.config.yamllint_named {
            Ok(resolved)
        } else {
            let root = resolved.config.root.clone();
            resolver.resolve_yamllint(std::slice::from_ref(&root));
            resolver.yamllint_of(&root).map(|yamllint| Resolved {
                config: Arc::new(resolved.config.with_yamllint(yamllint)),
                project: resolved.project,
            })
        };
        resolver.explicit = Some(explicit);
        resolver
    }

    /// The nearest `tether.toml` of each file, `fallback` where there is none, and
    /// `select` (`--select`) and `ignore` (`--ignore`) applied to each. `covered` is
    /// the folder the run covers (its inputs' common folder, [`crate::linter::walk::covered`]), where
    /// the pins of files outside any repository and any `tether.toml` are read from.
    pub fn discover(
        fallback: Config,
        select: Vec<String>,
        ignore: Vec<String>,
        covered: Option<PathBuf>,
    ) -> Resolver {
        Resolver {
            explicit: None,
            fallback: Arc::new(fallback),
            select,
            ignore,
            found: HashMap::default(),
            yamllint: HashMap::default(),
            pins: HashMap::default(),
            fallback_pinned: None,
            input_root: covered,
            charts: Arc::default(),
        }
    }

    /// The folder of the configuration used where no `tether.toml` is found.
    pub fn fallback_root(&self) -> &Path {
        &self.fallback.root
    }

    /// The configuration of the file at `absolute`, resolved on the spot: for a
    /// file named alone. A walk resolves its folders in one batch instead.
    pub fn config_for(&mut self, absolute: &Path) -> Found {
        let folder = absolute.parent().unwrap_or(absolute).to_path_buf();
        self.resolve(std::slice::from_ref(&folder));
        self.resolved(absolute)
    }

    /// The configuration of the file at `absolute`, whose folder [`Resolver::resolve`]
    /// has seen: a read of the memo, no lock, no file opened.
    pub fn resolved(&self, absolute: &Path) -> Found {
        if let Some(config) = &self.explicit {
            return config.clone();
        }
        let folder = absolute.parent().unwrap_or(absolute);
        self.found.get(folder).cloned().unwrap_or_else(|| {
            Err(ConfigurationError::Unresolved {
                folder: folder.to_path_buf(),
            })
        })
    }

    /// Every configuration resolved so far, once per folder (so one may come many
    /// times), or why it cannot be used.
    #[cfg_attr(not(unix), allow(dead_code))] // for `tether idem`, a Unix command
    pub fn found(&self) -> impl Iterator<Item = &Found> {
        self.found.values()
    }

    /// Resolves every folder of `folders`, and each parent of theirs up to the
    /// nearest that decides: each folder is probed once (a few `stat`s), then the
    /// `tether.toml` files found and the pins of their repositories are read in
    /// parallel, and each folder takes its own configuration or its parent's, top
    /// down.
    pub fn resolve(&mut self, folders: &[PathBuf]) {
        if self.explicit.is_some() {
            return;
        }
        self.resolve_yamllint(folders);
        let chain = climb(folders, &self.found, |folder| {
            std::fs::symlink_metadata(folder.join(FILE_NAME))
                .ok()
                .map(|_| ())
        });
        if chain.is_empty() {
            return;
        }
        let mut read: HashMap<PathBuf, Result<Config, ConfigurationError>> = chain
            .par_iter()
            .filter(|(_, has)| has.is_some())
            .map(|(folder, _)| (folder.clone(), self.read_config(folder)))
            .collect();
        let reaches_the_fallback = chain
            .iter()
            .any(|(folder, has)| has.is_none() && folder.parent().is_none());
        self.read_pins(read.values(), reaches_the_fallback);
        for (folder, _) in &chain {
            let found = self.settle(folder, read.remove(folder));
            self.found.insert(folder.clone(), found);
        }
    }

    /// `folder`'s own `tether.toml`, with `--select` and `--ignore`.
    fn read_config(&self, folder: &Path) -> Result<Config, ConfigurationError> {
        Config::load(&folder.join(FILE_NAME))
            .map_err(ConfigurationError::from)
            .and_then(|mut config| {
                if !self.select.is_empty() {
                    config.select_rules(&self.select)?;
                }
                config.ignore_rules(&self.ignore)?;
                Ok(config)
            })
    }

    /// Reads, in parallel, the pins of every repository the `read` configurations
    /// (and the fallback, when a folder has no configuration above it) belong to.
    fn read_pins<'a>(
        &mut self,
        read: impl Iterator<Item = &'a Result<Config, ConfigurationError>>,
        reaches_the_fallback: bool,
    ) {
        let mut tops: Vec<PathBuf> = read
            .filter_map(|config| config.as_ref().ok())
            .map(|config| self.top_of(config))
            .collect();
        if reaches_the_fallback && self.fallback_pinned.is_none() {
            tops.push(self.top_of(&self.fallback));
        }
        tops.sort();
        tops.dedup();
        tops.retain(|top| !self.pins.contains_key(top));
        let read: Vec<(PathBuf, Arc<PinIndex>)> = tops
            .into_par_iter()
            .map(|top| {
                let index = Arc::new(self.pins_of(&top));
                (top, index)
            })
            .collect();
        self.pins.extend(read);
    }

    /// The pins of the repository whose top is `top`, from the run's listing of its
    /// `Chart.yaml` files (which the chart graph looks dependencies up in too).
    fn pins_of(&self, top: &Path) -> PinIndex {
        let listing = self.charts.chart_yamls(top);
        PinIndex::new(listing.pins.clone(), listing.pin_problems.clone())
    }

    /// The configuration of `folder`: its own (`own`), else its parent's, else the
    /// fallback's; with the folder's yamllint configuration where `tether.toml` names
    /// none.
    fn settle(&mut self, folder: &Path, own: Option<Result<Config, ConfigurationError>>) -> Found {
        let resolved = match own {
            Some(Ok(config)) => {
                let top = self.top_of(&config);
                Ok(self.attach(config, top))
            }
            Some(Err(error)) => Err(error),
            None => match folder.parent() {
                Some(parent) => self.found.get(parent).cloned().unwrap_or_else(|| {
                    Err(ConfigurationError::BeforeItsParent {
                        folder: folder.to_path_buf(),
                    })
                }),
                None => Ok(self.fallback_with_pins()),
            },
        };
        resolved.and_then(|resolved| {
            if resolved.config.yamllint_named {
                return Ok(resolved);
            }
            let yamllint = self.yamllint_of(folder)?;
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
        })
    }

    /// The top of the repository of `config`'s `tether.toml`, or (for the defaults)
    /// of the folder the run covers, never the working directory's as such; outside
    /// a repository, that folder itself.
    fn top_of(&self, config: &Config) -> PathBuf {
        let base = match (&config.file, &self.input_root) {
            (None, Some(input_root)) => input_root.clone(),
            _ => config.root.clone(),
        };
        crate::paths::repository_top(&base).unwrap_or(base)
    }

    /// `config` with the run's state of its repository `top`: its pins, read once per
    /// repository, and the run's charts.
    fn attach(&mut self, config: Config, top: PathBuf) -> Resolved {
        let pins = match self.pins.get(&top) {
            Some(pins) => pins.clone(),
            None => {
                let pins = Arc::new(self.pins_of(&top));
                self.pins.insert(top.clone(), pins.clone());
                pins
            }
        };
        Resolved {
            project: Arc::new(Project::of(&config, top, &pins, &self.charts)),
            config: Arc::new(config),
        }
    }

    /// The fallback configuration, with its pins (attached once).
    fn fallback_with_pins(&mut self) -> Resolved {
        if let Some(resolved) = &self.fallback_pinned {
            return resolved.clone();
        }
        let fallback = (*self.fallback).clone();
        let top = self.top_of(&fallback);
        let resolved = self.attach(fallback, top);
        self.fallback_pinned = Some(resolved.clone());
        resolved
    }

    /// Resolves the yamllint configuration of `folders` and their parents up to the
    /// nearest that decides (its own `.yamllint*`, or a repository's top).
    fn resolve_yamllint(&mut self, folders: &[PathBuf]) {
        let chain = climb(folders, &self.yamllint, |folder| {
            crate::settings::yamllint::decided_in(folder).map(|found| {
                found
                    .map(|yamllint| yamllint.map(Arc::new))
                    .map_err(ConfigurationError::from)
            })
        });
        for (folder, decided) in chain {
            let found = decided.unwrap_or_else(|| self.parent_yamllint(&folder));
            self.yamllint.insert(folder, found);
        }
    }

    /// The yamllint configuration of the files in `folder` (resolved): the nearest
    /// `.yamllint*` at or above it, else chart-testing's at the repository's top.
    fn yamllint_of(&self, folder: &Path) -> FoundYamllint {
        self.yamllint.get(folder).cloned().unwrap_or(Ok(None))
    }

    /// What `folder`'s parent decided (resolved before it), or none at the root.
    fn parent_yamllint(&self, folder: &Path) -> FoundYamllint {
        match folder.parent() {
            Some(parent) => self.yamllint_of(parent),
            None => Ok(None),
        }
    }
}

/// The folders of `folders` that `seen` lacks, each with what `decides` says of it,
/// and their parents up to the first that `seen` has or that decides; parents before
/// children (fewer components first), each once. `decides` runs on all cores, on
/// every folder the climb may reach: one `stat` after another was the walk's serial
/// tail on a large tree.
fn climb<T: Send, U: Sync>(
    folders: &[PathBuf],
    seen: &HashMap<PathBuf, U>,
    decides: impl Fn(&Path) -> Option<T> + Sync,
) -> Vec<(PathBuf, Option<T>)> {
    // Every folder the climb may reach, probed in parallel (a few `stat`s each):
    // a probe above the first folder that decides is wasted, and cheap.
    let mut reachable: crate::collections::HashSet<&Path> = crate::collections::HashSet::default();
    for folder in folders {
        for ancestor in folder.ancestors() {
            if seen.contains_key(ancestor) || !reachable.insert(ancestor) {
                break;
            }
        }
    }
    let mut probed: HashMap<&Path, Option<T>> = reachable
        .into_par_iter()
        .map(|folder| (folder, decides(folder)))
        .collect();
    let mut chain: HashMap<&Path, Option<T>> = HashMap::default();
    for folder in folders {
        for ancestor in folder.ancestors() {
            if seen.contains_key(ancestor) || chain.contains_key(ancestor) {
                break;
            }
            let decided = probed.remove(ancestor).flatten();
            let stop = decided.is_some();
            chain.insert(ancestor, decided);
            if stop {
                break;
            }
        }
    }
    let mut chain: Vec<(PathBuf, Option<T>)> = chain
        .into_iter()
        .map(|(folder, decided)| (folder.to_path_buf(), decided))
        .collect();
    chain.sort_by_cached_key(|(folder, _)| (folder.components().count(), folder.clone()));
    chain
}
