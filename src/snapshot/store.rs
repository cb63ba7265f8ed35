//! The snapshot folder on disk: read only real files, write by renaming a new file
//! into place, never through a symlink, and touch only files tether wrote.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, SnapshotError, SnapshotStep};
use crate::paths::relative_to;
use crate::settings::config::Config;
use crate::source::{MAX_FILE_BYTES, read_regular};

/// The extension of snapshot files: `templates/cm.yaml` is `templates/cm.yaml.snap`.
pub const EXTENSION: &str = "snap";

/// The extension a pending snapshot adds: `cm.yaml.snap.new`, as insta names them.
pub(super) const PENDING: &str = "new";

/// The snapshot files found under the snapshot folder.
#[derive(Default)]
pub(super) struct Stored {
    /// Relative snapshot path → its text.
    pub(super) snapshots: BTreeMap<PathBuf, String>,
    /// Relative snapshot path (without `.new`) → the pending snapshot's text.
    pub(super) pending: BTreeMap<PathBuf, String>,
}

/// The pending file of a snapshot: `x.yaml.snap` → `x.yaml.snap.new`.
pub(super) fn pending_path(snapshot: &Path) -> PathBuf {
    let mut name = snapshot.as_os_str().to_os_string();
    name.push(".");
    name.push(PENDING);
    PathBuf::from(name)
}

/// The `.snap` files under `folder`, never through a symlink.
pub(super) fn read_snapshots(
    config: &Config,
    folder: &Path,
    stored: &mut Stored,
    failures: &mut Vec<String>,
) -> Result<(), Error> {
    let walked = crate::folders::walk_unsorted(folder, |entry| {
        let path = entry.path();
        let relative = relative_to(&path, &config.root);
        if entry.is_dir() {
            return crate::folders::Step::Into;
        }
        if entry.is_symlink() {
            // Never followed: a link could make the diff print any file it points at.
            failures.push(format!(
                "{} is a symlink in the snapshot folder; remove it (tether reads and writes only real files there)",
                relative.display()
            ));
        } else if let Some(pending) = is_snapshot_name(&path) {
            match read_regular(&path, MAX_FILE_BYTES) {
                // Another tool's `.snap` file (insta's, Jest's) is none of tether's
                // business: never compared, rewritten or removed.
                Ok(bytes) if !is_ours(&bytes) => {}
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    match pending {
                        false => stored.snapshots.insert(relative, text),
                        true => stored.pending.insert(relative.with_extension(""), text),
                    };
                }
                Err(error) => failures.push(format!(
                    "cannot read the snapshot {}: {error}; remove it or make it a regular file",
                    relative.display()
                )),
            }
        }
        crate::folders::Step::Into
    });
    // A snapshot folder not made yet holds no snapshot; any other folder or entry
    // that cannot be read stops the comparison.
    let unread = walked.unread.into_iter().find(|unread| {
        !(unread.path == folder && unread.error.kind() == std::io::ErrorKind::NotFound)
    });
    match unread {
        None => Ok(()),
        Some(unread) => Err(SnapshotError::Io {
            doing: if unread.folder {
                SnapshotStep::ReadFolder
            } else {
                SnapshotStep::Inspect
            },
            path: relative_to(&unread.path, &config.root),
            source: unread.error,
        }
        .into()),
    }
}

/// The first words of every snapshot tether writes: the mark that a `.snap` file is
/// tether's to compare, rewrite and remove.
pub(super) const MARK: &[u8] = b"# tether snapshot of ";

/// Whether a `.snap` file's bytes are a snapshot tether wrote.
pub(super) fn is_ours(bytes: &[u8]) -> bool {
    bytes.starts_with(MARK)
}

/// Whether a file name is a snapshot's (`Some(false)`: `x.snap`) or a pending
/// one's (`Some(true)`: `x.snap.new`).
fn is_snapshot_name(path: &Path) -> Option<bool> {
    match path.extension()?.to_str()? {
        EXTENSION => Some(false),
        PENDING
            if Path::new(path.file_stem()?)
                .extension()
                .is_some_and(|e| e == EXTENSION) =>
        {
            Some(true)
        }
        _ => None,
    }
}

/// Refuses a snapshot folder reached through a symlink: tether reads and writes
/// snapshots only inside the configuration's folder.
pub(super) fn refuse_symlinks(config: &Config, folder: &Path) -> Result<(), Error> {
    let relative = folder.strip_prefix(&config.root).unwrap_or(folder);
    let mut current = config.root.clone();
    for component in relative.components() {
        current.push(component);
        if std::fs::symlink_metadata(&current).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(SnapshotError::Link {
                path: relative_to(&current, &config.root),
                root: config.root.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// Creates the folders from the configuration's folder down to `folder`, refusing
/// any that is a symlink or not a folder.
fn ensure_folder(config: &Config, folder: &Path) -> Result<(), Error> {
    let relative = folder
        .strip_prefix(&config.root)
        .map_err(|_| SnapshotError::Outside {
            path: folder.to_path_buf(),
            root: config.root.clone(),
        })?;
    let mut current = config.root.clone();
    for component in relative.components() {
        let Component::Normal(name) = component else {
            return Err(SnapshotError::NotPlain {
                path: folder.to_path_buf(),
                root: config.root.clone(),
            }
            .into());
        };
        current.push(name);
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => {
                return Err(SnapshotError::NotAFolder {
                    path: relative_to(&current, &config.root),
                }
                .into());
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&current).map_err(|error| SnapshotError::Io {
                    doing: SnapshotStep::Create,
                    path: current.clone(),
                    source: error,
                })?;
            }
            Err(error) => {
                return Err(SnapshotError::Io {
                    doing: SnapshotStep::Inspect,
                    path: current,
                    source: error,
                }
                .into());
            }
        }
    }
    Ok(())
}

/// Writes a snapshot by renaming a new file over it: a symlink at `target` is
/// replaced, never written through.
pub(super) fn write_snapshot(config: &Config, target: &Path, text: &str) -> Result<(), Error> {
    let folder = target.parent().unwrap_or(&config.root);
    ensure_folder(config, folder)?;
    // A file of that name that tether did not write is another tool's: kept.
    if let Ok(bytes) = read_regular(target, MARK.len()) {
        if !is_ours(&bytes) {
            return Err(SnapshotError::NotOursToWrite {
                path: relative_to(target, &config.root),
            }
            .into());
        }
    }
    let failed = |error: std::io::Error| SnapshotError::Io {
        doing: SnapshotStep::Write,
        path: relative_to(target, &config.root),
        source: error,
    };
    let mut file = new_file_in(folder).map_err(failed)?;
    file.write_all(text.as_bytes()).map_err(failed)?;
    file.persist(target).map_err(|e| failed(e.error))?;
    Ok(())
}

/// A new, exclusively created file in `folder` with the mode any new file gets:
/// 0666 less the umask (0644 under the usual 022), as `touch` or an editor creates
/// one, for a new snapshot and a replaced one alike. tempfile's own 0600 would give
/// every snapshot a mode no other file of the repository has.
fn new_file_in(folder: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // The kernel applies the process's umask to the mode `open` is given.
        tempfile::Builder::new()
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(folder)
    }
    #[cfg(not(unix))]
    {
        tempfile::Builder::new().tempfile_in(folder)
    }
}

/// Removes a snapshot of a file that is gone: a regular `.snap` file inside the
/// snapshot folder, nothing else.
pub(super) fn remove_snapshot(config: &Config, target: &Path) -> Result<(), Error> {
    if written_by_tether(config, target) {
        std::fs::remove_file(target).map_err(|error| SnapshotError::Io {
            doing: SnapshotStep::Remove,
            path: target.to_path_buf(),
            source: error,
        })?;
        remove_empty_folders(config, target);
    }
    Ok(())
}

/// Removes the folders above a removed snapshot that it leaves empty, up to and
/// including the snapshot folder, as `git` does after removing a file: a rejected
/// or orphaned snapshot leaves no empty tree behind. `remove_dir` removes only an
/// empty real folder (never a link), so nothing but emptiness is ever removed.
fn remove_empty_folders(config: &Config, removed: &Path) {
    let mut folder = removed.parent();
    while let Some(current) = folder {
        if !current.starts_with(&config.snapshot_dir) || current == config.root {
            break;
        }
        if std::fs::remove_dir(current).is_err() {
            break;
        }
        folder = current.parent();
    }
}

/// Refuses a file that is not a regular snapshot file tether wrote inside the
/// snapshot folder: accepting or rejecting never touches anything else.
pub(super) fn check_ours(config: &Config, target: &Path) -> Result<(), Error> {
    if written_by_tether(config, target) {
        Ok(())
    } else {
        Err(SnapshotError::NotOursToRemove {
            path: relative_to(target, &config.root),
        }
        .into())
    }
}

/// Whether `target` is a regular snapshot (or pending snapshot) file inside the
/// snapshot folder that starts with tether's mark: the only files tether replaces
/// or removes there.
fn written_by_tether(config: &Config, target: &Path) -> bool {
    target.starts_with(&config.snapshot_dir)
        && is_snapshot_name(target).is_some()
        && std::fs::symlink_metadata(target).is_ok_and(|m| m.is_file())
        && read_regular(target, MARK.len()).is_ok_and(|bytes| is_ours(&bytes))
}
