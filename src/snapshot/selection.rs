//! Which files a snapshot run covers, and where each one's snapshot is kept.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::paths::relative_to;
use crate::settings::config::Config;

use super::store::EXTENSION;

/// Which files a snapshot run covers, and whether a check leaves pending files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnapshotOptions {
    /// Only the files at or below these paths (relative ones from the working
    /// directory); none: every covered file.
    pub only: Vec<PathBuf>,
    /// [`check`](super::check) writes the new snapshot of a changed file as a
    /// pending `.snap.new` beside its snapshot, for `tether snapshot --review`
    /// (`--accept`, `--reject`), as insta does outside CI.
    pub pending: bool,
}

impl SnapshotOptions {
    /// Only the files at or below `paths`.
    pub fn only(mut self, paths: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        self.only = paths.into_iter().map(Into::into).collect();
        self
    }

    /// Whether a check writes pending snapshots.
    pub fn pending(mut self, pending: bool) -> Self {
        self.pending = pending;
        self
    }
}

/// The selection of a run, as paths relative to the configuration's folder.
pub(super) struct Selection {
    pub(super) only: Vec<PathBuf>,
}

impl Selection {
    /// Resolves `options.only` against the configuration's folder: a path that does
    /// not exist, or is outside the folder, is an error naming it.
    pub(super) fn new(config: &Config, options: &SnapshotOptions) -> Result<Selection, Error> {
        let mut only = Vec::new();
        for path in &options.only {
            let absolute = crate::paths::absolute(path);
            if std::fs::symlink_metadata(&absolute).is_err() {
                return Err(crate::error::SnapshotError::Missing { path: path.clone() }.into());
            }
            let Ok(relative) = absolute.strip_prefix(&config.root) else {
                return Err(crate::error::SnapshotError::NotCovered {
                    path: path.clone(),
                    root: config.root.clone(),
                }
                .into());
            };
            only.push(relative.to_path_buf());
        }
        Ok(Selection { only })
    }

    /// Whether a source file (relative) is selected.
    pub(super) fn covers(&self, source: &Path) -> bool {
        self.only.is_empty() || self.only.iter().any(|path| source.starts_with(path))
    }

    /// Whether a snapshot (relative) is of a selected file.
    pub(super) fn covers_snapshot(&self, config: &Config, snapshot: &Path) -> bool {
        self.covers(&source_of(config, snapshot))
    }
}

/// The source file a snapshot (relative to the configuration's folder) is of.
pub(super) fn source_of(config: &Config, snapshot: &Path) -> PathBuf {
    let folder = relative_to(&config.snapshot_dir, &config.root);
    snapshot
        .strip_prefix(&folder)
        .unwrap_or(snapshot)
        .with_extension("")
}

/// Where the snapshot of `source` (relative to the configuration's folder) is kept.
pub(super) fn snapshot_path(config: &Config, source: &Path) -> PathBuf {
    let mut name = source.as_os_str().to_os_string();
    name.push(".");
    name.push(EXTENSION);
    relative_to(&config.snapshot_dir, &config.root).join(name)
}
