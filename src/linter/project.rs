//! What a run learns of the repository a configuration checks: its pins and the
//! charts of the run. State of one run, kept apart from the settings (`settings/config.rs`),
//! which are data read from files and never change during a run.

use crate::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::gitignore::Gitignore;

use crate::analysis::charts::{Charts, Scope};
use crate::analysis::pins::PinIndex;
use crate::settings::config::Config;

/// The run's state for the files of one configuration.
#[derive(Debug, Default)]
pub struct Project {
    /// Every pin of the repository with the configuration's `[[pin]]` entries
    /// (`stale-version-reference`); `None` when no repository was read.
    pub(crate) pins: Option<Arc<PinIndex>>,
    /// The charts of the run, analysed once each (`undefined-value`,
    /// `unused-value`), shared by every configuration of the run.
    pub(crate) charts: Arc<Charts>,
    /// Where chart dependencies are looked for beyond a chart's `charts/`: the
    /// repository, and the configuration's `chart-paths`.
    pub(crate) chart_scope: Scope,
    /// Each ignore file asked for (a folder's `.helmdocsignore`, a chart's
    /// `.helmignore`) by path, read once per run (`None`: there is none, or tether
    /// cannot read it).
    pub(crate) ignore_files: Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>,
}

impl Project {
    /// The state of a file checked on its own, outside any run: no pins, no chart
    /// read yet, dependencies looked for in `chart-paths` only.
    pub(crate) fn unattached(config: &Config) -> Project {
        Project {
            pins: None,
            charts: Arc::default(),
            chart_scope: Scope {
                top: None,
                chart_paths: config.chart_paths.clone(),
            },
            ignore_files: Mutex::default(),
        }
    }

    /// The state of `config`'s files in the repository at `top`, whose pins are
    /// `repository`; the repository's index is shared by every configuration
    /// without `[[pin]]` entries.
    pub(crate) fn of(
        config: &Config,
        top: PathBuf,
        repository: &Arc<PinIndex>,
        charts: &Arc<Charts>,
    ) -> Project {
        let pins = if config.configured_pins.is_empty() {
            repository.clone()
        } else {
            let mut pins = repository.pins.clone();
            pins.extend(config.configured_pins.iter().cloned());
            Arc::new(PinIndex::new(pins, repository.problems.clone()))
        };
        Project {
            pins: Some(pins),
            charts: charts.clone(),
            chart_scope: Scope {
                top: Some(top),
                chart_paths: config.chart_paths.clone(),
            },
            ignore_files: Mutex::default(),
        }
    }

    /// The ignore file at `path`, read by `read` the first time the run asks:
    /// every values file of a repository looks for a `.helmdocsignore` in the
    /// folders above it, every file a chart may embed reads the chart's
    /// `.helmignore`.
    pub(crate) fn ignore_file(
        &self,
        path: &Path,
        read: impl FnOnce() -> Option<Gitignore>,
    ) -> Option<Arc<Gitignore>> {
        let mut read_already = self
            .ignore_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        read_already
            .entry(path.to_path_buf())
            .or_insert_with(|| read().map(Arc::new))
            .clone()
    }

    /// The cache key of `config`'s findings in this run.
    pub(crate) fn cache_fingerprint(&self, config: &Config) -> u64 {
        config.fingerprint(self.pins.as_ref().map(|pins| pins.fingerprint))
    }
}

/// A file's configuration as the resolver found it: the settings, and the run's
/// state for their files.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub config: Arc<Config>,
    pub project: Arc<Project>,
}
