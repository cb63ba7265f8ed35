//! Pending snapshots, as insta keeps them: a check outside CI writes the snapshot a
//! changed file would get beside the old one (`cm.yaml.snap.new`); a person accepts
//! (it replaces the snapshot) or rejects (it is removed) each.

use std::path::PathBuf;

use similar::TextDiff;

use super::selection::{Selection, SnapshotOptions, source_of};
use super::store::{self, pending_path};
use crate::error::Error;
use crate::settings::config::Config;

/// A pending snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pending {
    /// The source file, relative to the configuration's folder.
    pub source: PathBuf,
    /// The snapshot it would replace (or create), relative to the configuration's
    /// folder.
    pub snapshot: PathBuf,
    /// The pending file, relative to the configuration's folder.
    pub file: PathBuf,
    /// A unified diff from the snapshot (empty when there is none) to the pending
    /// one.
    pub diff: String,
}

/// The pending snapshots of the selected files, in path order.
pub fn pending(config: &Config, options: &SnapshotOptions) -> Result<Vec<Pending>, Error> {
    let selection = Selection::new(config, options)?;
    let mut stored = store::Stored::default();
    let mut failures = Vec::new();
    store::refuse_symlinks(config, &config.snapshot_dir)?;
    store::read_snapshots(config, &config.snapshot_dir, &mut stored, &mut failures)?;
    if let Some(failure) = failures.into_iter().next() {
        return Err(crate::error::SnapshotError::Refused(failure).into());
    }
    Ok(stored
        .pending
        .iter()
        .filter(|(snapshot, _)| selection.covers(&source_of(config, snapshot)))
        .map(|(snapshot, new)| {
            let old = stored.snapshots.get(snapshot).map_or("", String::as_str);
            let diff = TextDiff::from_lines(old, new)
                .unified_diff()
                .context_radius(2)
                .header(
                    &snapshot.display().to_string(),
                    &pending_path(snapshot).display().to_string(),
                )
                .to_string();
            Pending {
                source: source_of(config, snapshot),
                snapshot: snapshot.clone(),
                file: pending_path(snapshot),
                diff,
            }
        })
        .collect())
}

/// Makes a pending snapshot the snapshot: renamed over it (a symlink there is
/// replaced, never written through).
pub fn accept(config: &Config, pending: &Pending) -> Result<(), Error> {
    let from = config.root.join(&pending.file);
    let to = config.root.join(&pending.snapshot);
    store::check_ours(config, &from)?;
    if std::fs::symlink_metadata(&to).is_ok() {
        store::check_ours(config, &to)?;
    }
    std::fs::rename(&from, &to).map_err(|error| {
        crate::error::SnapshotError::Move {
            from: pending.file.clone(),
            to: pending.snapshot.clone(),
            source: error,
        }
        .into()
    })
}

/// Removes a pending snapshot.
pub fn reject(config: &Config, pending: &Pending) -> Result<(), Error> {
    let file = config.root.join(&pending.file);
    store::check_ours(config, &file)?;
    store::remove_snapshot(config, &file)
}
