//! The sandbox folders alive: registered and locked while in use, removed when
//! dropped or on an interrupt, and those a killed run left removed by the next one.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary folders in use, for [`interrupt`].
pub static ACTIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The lock of each folder in use: held while this process lives, so a later run
/// tells a folder a killed run left (its lock free) from one in use.
static LOCKS: Mutex<Vec<(PathBuf, std::fs::File)>> = Mutex::new(Vec::new());

/// The file in a sandbox folder whose `flock` says a run still uses it.
const LOCK: &str = ".tether-lock";

/// The folder every sandbox folder holds, where the command may write (the copy or
/// the overlay's view, `HOME`, `TMPDIR`).
pub(crate) const ESCAPE: &str = "escape";

/// A folder a killed run left is removed by the next run only when it is older than
/// this, so a folder another run has just made, and not yet locked, is never taken.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Locks a new sandbox folder for this process's lifetime (until it is removed).
fn lock_folder(folder: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(folder.join(LOCK))
    else {
        return;
    };
    if rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).is_ok() {
        if let Ok(mut locks) = LOCKS.lock() {
            locks.push((folder.to_path_buf(), file));
        }
    }
}

/// Removes the sandbox folders of runs that were killed (SIGKILL leaves no time to
/// clean): `tether-idem-*` folders of the temporary folder that this user owns, hold
/// a lock file no process holds (or, the lock file gone, tether's `escape` folder),
/// and are older than a minute. Other folders are left alone, as are any that are
/// not folders. Returns what was removed.
pub fn remove_stale_sandboxes() -> Vec<PathBuf> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let temporary = std::env::temp_dir();
    let Ok(entries) = std::fs::read_dir(&temporary) else {
        return Vec::new();
    };
    let me = crate::sys::effective_uid();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .starts_with("tether-idem-")
        {
            continue;
        }
        let folder = entry.path();
        let Ok(metadata) = folder.symlink_metadata() else {
            continue;
        };
        let old = metadata
            .modified()
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if !metadata.is_dir() || metadata.uid() != me || !old {
            continue;
        }
        let free = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
            .open(folder.join(LOCK))
        {
            Ok(file) => {
                rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive)
                    .is_ok()
                    && file.metadata().is_ok_and(|lock| lock.is_file())
            }
            // The lock file gone (a command without containment can remove it, or
            // recreate the folder after tether removed it): tether's all the same
            // when it holds the `escape` folder every sandbox has.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => folder
                .join(ESCAPE)
                .symlink_metadata()
                .is_ok_and(|escape| escape.is_dir()),
            Err(_) => false,
        };
        if free {
            remove_folder(&folder);
            if !folder.exists() {
                removed.push(folder);
            }
        }
    }
    removed
}

/// Copies being written, which [`interrupt`] waits for before it removes folders.
static COPYING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sandbox folders that could not be removed, with the reason, for the report.
static LEFT_BEHIND: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The sandbox folders that could not be removed since the last call.
pub fn left_behind() -> Vec<String> {
    LEFT_BEHIND
        .lock()
        .map(|mut left| left.drain(..).collect())
        .unwrap_or_default()
}

/// Counts a copy in flight while it lives.
pub(crate) struct Copying;

impl Copying {
    /// Counts a sandbox being made until dropped: an interrupt waits for it.
    pub(crate) fn start() -> Copying {
        COPYING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Copying
    }
}

impl Drop for Copying {
    fn drop(&mut self) {
        COPYING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

pub(super) fn interrupted() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted")
}

/// A new sandbox folder (`tether-idem-*`) in the temporary folder, registered; an
/// error names the temporary folder and what to do when it cannot be made there.
/// Once the run is stopping, none is made: the caller counts itself as making a
/// sandbox (`_making`) before it asks, so an interrupt either waits for this folder
/// and finds it registered, or is seen here first. A folder made after the
/// interrupt's sweep would outlive the run.
pub(crate) fn new_folder(_making: &Copying) -> std::io::Result<tempfile::TempDir> {
    if super::super::command::stopping() {
        return Err(interrupted());
    }
    let temporary = std::env::temp_dir();
    let folder = tempfile::Builder::new()
        .prefix("tether-idem-")
        .tempdir_in(&temporary)
        .map_err(|error| {
            std::io::Error::new(
                error.kind(),
                format!(
                    "cannot make a sandbox folder in the temporary folder {} ({error}); set TMPDIR to a folder that exists and that you can write",
                    temporary.display()
                ),
            )
        })?;
    register(folder.path());
    Ok(folder)
}

/// Registers a sandbox's temporary folder, for [`interrupt`] to remove.
pub(crate) fn register(folder: &Path) {
    // Known to an interrupt first, locked second: the lock takes system calls, and
    // an interrupt in between must still find the folder.
    if let Ok(mut active) = ACTIVE.lock() {
        active.push(folder.to_path_buf());
    }
    lock_folder(folder);
}

/// Removes a sandbox's temporary folder and forgets it: forgotten only once it is
/// gone, so an interrupt that waits for the owners never exits while one is still
/// removing its folder.
pub(crate) fn unregister_and_remove(folder: &Path) {
    remove_folder(folder);
    if let Ok(mut locks) = LOCKS.lock() {
        locks.retain(|(locked, _)| locked != folder);
    }
    if let Ok(mut active) = ACTIVE.lock() {
        active.retain(|active| active != folder);
    }
}

/// Removes a sandbox folder, its read-only folders made writable first; a folder
/// that cannot be removed is remembered for the report, never left silently.
fn remove_folder(path: &Path) {
    make_writable(path);
    match std::fs::remove_dir_all(path) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            if let Ok(mut left) = LEFT_BEHIND.lock() {
                left.push(format!(
                    "could not remove the sandbox copy {}: {error}; remove it by hand",
                    path.display()
                ));
            }
        }
    }
}

/// Makes every folder under `path` writable and listable, each before it is listed
/// (a command may leave `chmod 000` folders).
pub(crate) fn make_writable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let open = |folder: &Path| {
        let _ = std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755));
    };
    open(path);
    // A folder still unlistable is said by the removal that follows, which fails.
    let _said_by_removal = crate::folders::walk_unsorted(path, |entry| {
        if entry.is_dir() {
            open(&entry.path());
        }
        crate::folders::Step::Into
    });
}

/// Stops a run from a signal handler: no copy or command starts any more, running
/// commands are killed with what they started, copies in flight are waited for (up
/// to ten seconds), then every sandbox folder is removed. Returns what could not be
/// removed, one sentence each, for the caller to print before it exits.
pub fn interrupt() -> Vec<String> {
    super::super::command::STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
    super::super::command::kill_all();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while COPYING.load(std::sync::atomic::Ordering::SeqCst) > 0
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    super::super::command::kill_all();
    // Each sandbox's owner removes it when it sees the stop (its `Drop`): wait for
    // them, so that no owner writes into a folder (restores a file, makes a
    // command's HOME) after the sweep below removed it, which would leave it behind.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while ACTIVE.lock().is_ok_and(|active| !active.is_empty())
        && std::time::Instant::now() < deadline
    {
        super::super::command::kill_all();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let folders: Vec<PathBuf> = ACTIVE
        .lock()
        .map(|mut a| a.drain(..).collect())
        .unwrap_or_default();
    for folder in folders {
        remove_folder(&folder);
    }
    left_behind()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that is stopping makes no sandbox folder: one made after the
    /// interrupt's sweep would outlive the run (`signals_leave_no_sandbox_behind`
    /// saw one, once, under load).
    #[test]
    fn no_folder_is_made_once_the_run_stops() {
        let stopping = &crate::idem::command::STOPPING;
        stopping.store(true, std::sync::atomic::Ordering::SeqCst);
        let made = new_folder(&Copying::start());
        stopping.store(false, std::sync::atomic::Ordering::SeqCst);
        let error = made.expect_err("a sandbox folder was made while the run stopped");
        assert_eq!(error.kind(), std::io::ErrorKind::Interrupted);
    }
}
