//! Copies of the user's repository for commands to run in, and fingerprints of trees.
//!
//! Nothing here ever writes to the user's tree: it is only read (listed, hashed,
//! copied from). Every copy lives in a temporary folder registered in [`ACTIVE`], so
//! an interrupt can remove it (see [`interrupt`]); dropping a [`Sandbox`] removes it
//! too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

/// What `tether idem` copies: the git top level (tracked files and untracked files
/// git does not ignore), or a folder (its files, `.gitignore` rules applied).
#[derive(Debug, Clone)]
pub struct Source {
    pub root: PathBuf,
    /// Paths relative to `root`, sorted.
    pub files: Vec<PathBuf>,
}

impl Source {
    /// The repository around `folder`: its git top level when there is one.
    pub fn around(folder: &Path) -> std::io::Result<Source> {
        if let Some(root) = git_top_level(folder) {
            if let Some(files) = git_files(&root) {
                return Ok(Source { root, files });
            }
        }
        let root = folder.canonicalize()?;
        let files = walk_files(&root, true);
        Ok(Source { root, files })
    }
}

fn git_top_level(folder: &Path) -> Option<PathBuf> {
    let output = crate::linter::walk::git(folder)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
}

fn git_files(root: &Path) -> Option<Vec<PathBuf>> {
    let (names, _) = crate::linter::walk::git_ls_files(root)?;
    let mut files: Vec<PathBuf> = names
        .into_iter()
        // A file deleted from the work tree but still in the index is not there.
        .filter(|name| root.join(name).symlink_metadata().is_ok())
        .collect();
    files.sort();
    files.dedup();
    Some(files)
}

/// Files under `root`, relative to it, sorted; with `gitignore`, `.gitignore` rules
/// apply (also outside a repository). `.git` is never listed.
pub fn walk_files(root: &Path, gitignore: bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .standard_filters(gitignore)
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
        .flatten()
        .filter(|entry| entry.file_type().is_some_and(|kind| !kind.is_dir()))
        .filter_map(|entry| entry.path().strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    files.sort();
    files
}

/// The content of a tree: relative path → file bytes (a symlink's target for links).
pub type Contents = BTreeMap<PathBuf, Entry>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    File {
        bytes: Arc<Vec<u8>>,
        executable: bool,
    },
    Link(PathBuf),
    /// A file too large to hold ([`LARGE`] bytes and more): its size and hash only,
    /// read in chunks, so a command that writes a huge file costs time, not memory.
    Large {
        size: u64,
        hash: u64,
        executable: bool,
    },
    /// A file a command left behind that cannot be read back (its permissions, or
    /// not a regular file), and why: never part of what a copy is made from.
    Unreadable(String),
}

/// A file this large or larger is compared by hash, never held in memory.
pub const LARGE: u64 = 1024 * 1024;

/// One file of a tree: a symlink as a link, a regular file with its bytes (or its
/// hash when [`LARGE`]); `None`
/// for a FIFO, socket or device, which is never opened.
pub(super) fn read_entry(root: &Path, relative: &Path) -> std::io::Result<Option<Entry>> {
    let path = root.join(relative);
    let metadata = path
        .symlink_metadata()
        .map_err(|error| named(relative, error))?;
    let kind = metadata.file_type();
    Ok(if kind.is_symlink() {
        Some(Entry::Link(
            std::fs::read_link(&path).map_err(|error| named(relative, error))?,
        ))
    } else if kind.is_file() {
        use std::os::unix::fs::PermissionsExt;
        let executable = metadata.permissions().mode() & 0o111 != 0;
        if metadata.len() >= LARGE {
            let (size, hash) =
                crate::source::hash_regular(&path).map_err(|error| named(relative, error))?;
            return Ok(Some(Entry::Large {
                size,
                hash,
                executable,
            }));
        }
        // A file that grew since the stat is cut at the limit: it then differs.
        let bytes = crate::source::read_regular(&path, LARGE as usize)
            .map_err(|error| named(relative, error))?;
        Some(Entry::File {
            bytes: Arc::new(bytes),
            executable,
        })
    } else {
        None
    })
}

/// The first symlink of `contents` that points outside the tree: an absolute
/// target, or one that climbs above the root.
pub fn escaping_link(manifest: &Manifest) -> Option<(PathBuf, PathBuf)> {
    manifest.entries.iter().find_map(|(path, listed)| {
        let Listed::Link(target) = listed else {
            return None;
        };
        let mut depth = path.components().count().saturating_sub(1) as isize;
        let escapes = target.is_absolute()
            || target.components().any(|component| {
                match component {
                    std::path::Component::ParentDir => depth -= 1,
                    std::path::Component::Normal(_) => depth += 1,
                    _ => {}
                }
                depth < 0
            });
        escapes.then(|| (path.clone(), target.clone()))
    })
}

/// An I/O error that names the file it is about.
fn named(relative: &Path, error: std::io::Error) -> std::io::Error {
    std::io::Error::new(error.kind(), format!("{}: {error}", relative.display()))
}

/// What the fingerprint keeps of one entry: enough to see any write, without opening
/// it (a FIFO or a device is never read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// The file type bits and permissions (`st_mode`).
    mode: u32,
    size: u64,
    /// Modification time in nanoseconds; not kept for folders, whose times change
    /// when an entry inside does (and that entry is seen itself).
    modified: i128,
    /// Change time: any write or mode change moves it, and no command can set it.
    changed: i128,
    inode: u64,
    /// Owner and group, as `chown` sets them.
    owner: (u32, u32),
    /// Names of the entry: a file that became a hard link to one outside has two.
    links: u64,
    /// A hash of the extended attributes' names and values (0: none, or unreadable).
    xattrs: u64,
}

impl Stamp {
    fn of(path: &Path, metadata: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        let is_dir = metadata.file_type().is_dir();
        Stamp {
            owner: (metadata.uid(), metadata.gid()),
            links: if is_dir { 0 } else { metadata.nlink() },
            xattrs: xattrs_hash(path),
            mode: metadata.mode(),
            size: if is_dir { 0 } else { metadata.size() },
            modified: if is_dir {
                0
            } else {
                i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec())
            },
            changed: if is_dir {
                0
            } else {
                i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec())
            },
            inode: metadata.ino(),
        }
    }
}

/// A fingerprint of a tree: relative path → stamp, for every entry under the root,
/// `.git` and ignored files included.
pub type Fingerprint = std::collections::HashMap<PathBuf, Stamp>;

/// Fingerprints everything under `root`, never following a symlink and never
/// opening a file: a command that writes anywhere in the repository, `.git` and
/// ignored files included, changes a stamp.
pub fn fingerprint(root: &Path) -> Fingerprint {
    let mut stamps = Fingerprint::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // `fstatat` on the folder's handle, never following a link: no walk of
            // the whole path per entry.
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            let is_dir = metadata.file_type().is_dir();
            if let Ok(relative) = path.strip_prefix(root) {
                stamps.insert(relative.to_path_buf(), Stamp::of(&path, &metadata));
            }
            if is_dir {
                folders.push(path);
            }
        }
    }
    stamps
}

/// A hash of the extended attributes of the entry at `path` (never following a link):
/// their names and values; 0 when it has none or they cannot be read. One
/// `llistxattr` call for an entry without attributes.
fn xattrs_hash(path: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return 0;
    };
    // Buffers sized by asking first (Linux bounds a list and a value at 64 KiB), so a
    // long list or value is never cut: a change past a fixed buffer would go unseen.
    let size = match rustix::fs::llistxattr_query(&name) {
        Ok(size) if size > 0 => size,
        _ => return 0,
    };
    let mut names = vec![0u8; size.min(1 << 16)];
    // Grown since it was asked, or unreadable: which differs from none.
    let Ok(length) = rustix::fs::llistxattr(&name, &mut names[..]) else {
        return u64::MAX;
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for attribute in names[..length].split(|&byte| byte == 0) {
        if attribute.is_empty() {
            continue;
        }
        hasher.update(attribute);
        hasher.update(&[0]);
        let Ok(attribute) = std::ffi::CString::new(attribute) else {
            continue;
        };
        let wanted = rustix::fs::lgetxattr_query(&name, &attribute).unwrap_or(0);
        // Never an empty buffer: rustix then reports 0 bytes read where the value
        // grew since it was asked, which must be said (as the error below is).
        let mut value = vec![0u8; wanted.clamp(1, 1 << 16)];
        match rustix::fs::lgetxattr(&name, &attribute, &mut value[..]) {
            Ok(read) => hasher.update(&value[..read]),
            // Unreadable, or grown since asked: said in the hash (as the -1 that
            // lgetxattr returns).
            Err(_) => hasher.update(&(-1isize).to_le_bytes()),
        }
        hasher.update(&[0xff]);
    }
    hasher.digest().max(1)
}

/// The paths whose fingerprints differ: changed, created or deleted.
pub fn fingerprint_changes(before: &Fingerprint, after: &Fingerprint) -> Vec<PathBuf> {
    let mut changed: Vec<PathBuf> = before
        .iter()
        .filter(|(path, stamp)| after.get(*path) != Some(stamp))
        .map(|(path, _)| path.clone())
        .chain(
            after
                .keys()
                .filter(|path| !before.contains_key(*path))
                .cloned(),
        )
        .collect();
    changed.sort();
    changed
}

/// [`fingerprint_changes`], without the listed files whose stamp changed but whose
/// bytes still hash as the manifest says (a `touch`, a rewrite with the same bytes).
pub fn tree_changes(
    manifest: &Manifest,
    before: &Fingerprint,
    after: &Fingerprint,
) -> Vec<PathBuf> {
    fingerprint_changes(before, after)
        .into_iter()
        .filter(|path| {
            let Some(Listed::File { hash, .. }) = manifest.entries.get(path) else {
                return true;
            };
            // Same bytes count as unchanged only if nothing git or a later write
            // would see changed too: type and mode, owner, attributes, and no second
            // name (a hard link to a file outside).
            let same_kind = match (before.get(path), after.get(path)) {
                (Some(before), Some(after)) => {
                    before.mode == after.mode
                        && before.owner == after.owner
                        && before.xattrs == after.xattrs
                        && after.links <= before.links.max(1)
                }
                _ => false,
            };
            let still = same_kind
                && after.get(path).is_some_and(|stamp| !stamp.is_dir())
                && crate::source::read_regular(&manifest.root.join(path), usize::MAX - 1)
                    .is_ok_and(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes) == *hash);
            !still
        })
        .collect()
}

/// Files copied into sandboxes as reflinks (shared extents) rather than bytes, for
/// benchmarks to say which path ran.
pub static REFLINKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Temporary folders in use, for [`interrupt`].
pub static ACTIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The lock of each folder in use: held while this process lives, so a later run
/// tells a folder a killed run left (its lock free) from one in use.
static LOCKS: Mutex<Vec<(PathBuf, std::fs::File)>> = Mutex::new(Vec::new());

/// The file in a sandbox folder whose `flock` says a run still uses it.
const LOCK: &str = ".tether-lock";

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
/// a lock file no process holds, and are older than a minute. Folders without a lock
/// file are left alone, as are any that are not folders. Returns what was removed.
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
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
            .open(folder.join(LOCK))
        else {
            continue;
        };
        let free =
            rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok();
        if free && file.metadata().is_ok_and(|lock| lock.is_file()) {
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
pub(super) struct Copying;

impl Copying {
    /// Counts a sandbox being made until dropped: an interrupt waits for it.
    pub(super) fn start() -> Copying {
        COPYING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Copying
    }
}

impl Drop for Copying {
    fn drop(&mut self) {
        COPYING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

use super::command::stopping;

fn interrupted() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted")
}

/// A private copy of the repository in a temporary folder.
#[derive(Debug)]
pub struct Sandbox {
    /// The temporary folder; the copy is `root`, a few levels below it, so that a
    /// command writing to `..` still writes inside the temporary folder.
    folder: tempfile::TempDir,
    pub root: PathBuf,
}

impl Sandbox {
    /// Fails when the command replaced the copy's folder, or one above it, with a
    /// symlink or a file: tether then neither reads nor writes through it, since a
    /// link to the user's tree would make a restore write there.
    fn intact(&self) -> std::io::Result<()> {
        let mut current = self.folder.path().to_path_buf();
        let below = self
            .root
            .strip_prefix(self.folder.path())
            .unwrap_or(Path::new(""));
        for component in std::iter::once(None).chain(below.components().map(Some)) {
            if let Some(component) = component {
                current.push(component);
            }
            let metadata = match current.symlink_metadata() {
                Ok(metadata) => metadata,
                // Deleted (the command may remove its own copy): nothing to follow.
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(error) => return Err(error),
            };
            if !metadata.is_dir() {
                return Err(std::io::Error::other(format!(
                    "the command replaced the sandbox folder {} with a symlink or a file; tether does not read or write through it",
                    current.display()
                )));
            }
        }
        Ok(())
    }

    /// The temporary folder the copy is in: the command's `HOME` and `TMPDIR` are
    /// made in it, and under Landlock it is the only place the command may write.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        unregister_and_remove(self.folder.path());
    }
}

/// Registers a sandbox's temporary folder, for [`interrupt`] to remove.
pub(super) fn register(folder: &Path) {
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
pub(super) fn unregister_and_remove(folder: &Path) {
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
pub(super) fn make_writable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let _ = std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755));
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    folders.push(entry.path());
                }
            }
        }
    }
}

fn walkdir_all(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let mut index = 0;
    while index < out.len() {
        if let Ok(entries) = std::fs::read_dir(&out[index]) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    out.push(entry.path());
                }
            }
        }
        index += 1;
    }
    out
}

/// Stops a run from a signal handler: no copy or command starts any more, running
/// commands are killed with what they started, copies in flight are waited for (up
/// to ten seconds), then every sandbox folder is removed. Returns what could not be
/// removed, one sentence each, for the caller to print before it exits.
pub fn interrupt() -> Vec<String> {
    super::command::STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
    super::command::kill_all();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while COPYING.load(std::sync::atomic::Ordering::SeqCst) > 0
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    super::command::kill_all();
    // Each sandbox's owner removes it when it sees the stop (its `Drop`): wait for
    // them, so that no owner writes into a folder (restores a file, makes a
    // command's HOME) after the sweep below removed it, which would leave it behind.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while ACTIVE.lock().is_ok_and(|active| !active.is_empty())
        && std::time::Instant::now() < deadline
    {
        super::command::kill_all();
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

/// Writes `contents` into the sandbox at `root`. Every write goes through folder
/// descriptors opened one component at a time without following links, and every
/// file is created new (`O_CREAT | O_EXCL | O_NOFOLLOW`): a process the command left
/// behind that swaps a file or a folder of the sandbox for a link to the user's tree
/// makes the write fail or land in the sandbox, never in the user's tree.
pub(super) fn write_contents(root: &Path, contents: &Contents) -> std::io::Result<()> {
    let _copying = Copying::start();
    contents.par_iter().try_for_each(|(relative, entry)| {
        if stopping() {
            return Err(interrupted());
        }
        match entry {
            Entry::File { bytes, executable } => {
                let mode = if *executable { 0o755 } else { 0o644 };
                beneath::write_new(root, relative, bytes.as_slice(), mode)?;
            }
            Entry::Link(target) => beneath::symlink_new(root, relative, target)?,
            // What tether writes (mutants) is always text it holds.
            Entry::Large { .. } | Entry::Unreadable(_) => {}
        }
        Ok(())
    })
}

/// Writes below a folder through descriptors, never following a link.
mod beneath {
    use std::ffi::{CStr, CString};
    use std::io::Write;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Component, Path};

    use rustix::fs::{AtFlags, CWD, Mode, OFlags};
    use rustix::io::Errno;

    /// Attempts at replacing what a racing process puts where a file goes.
    const ATTEMPTS: usize = 8;

    fn name(part: &std::ffi::OsStr) -> std::io::Result<CString> {
        CString::new(part.as_bytes())
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL in a path"))
    }

    /// Opens `name` under `folder` as a folder, never through a link.
    fn open_folder(folder: impl AsFd, name: &CStr) -> rustix::io::Result<OwnedFd> {
        rustix::fs::openat(
            folder,
            name,
            OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY,
            Mode::empty(),
        )
    }

    /// Removes `name` under `folder` whatever it is: a file or a link itself; a
    /// folder is moved, by descriptors, into the sandbox's own trash beside `root`
    /// (outside the copy the command sees), which goes with the sandbox. No path is
    /// followed, so a folder swapped for a link meanwhile cannot send a removal
    /// into the user's tree.
    fn remove(folder: &OwnedFd, root: &Path, name: &CStr) -> std::io::Result<()> {
        match rustix::fs::unlinkat(folder, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(Errno::ISDIR | Errno::PERM) => {
                static TRASHED: std::sync::atomic::AtomicUsize =
                    std::sync::atomic::AtomicUsize::new(0);
                let trash_path = root.parent().unwrap_or(root).join(".tether-trash");
                match std::fs::create_dir(&trash_path) {
                    Ok(()) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(error) => return Err(error),
                }
                let trash = open_folder(CWD, &self::name(trash_path.as_os_str())?)?;
                let unique = format!(
                    "{}",
                    TRASHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                );
                let unique = self::name(std::ffi::OsStr::new(&unique))?;
                Ok(rustix::fs::renameat(folder, name, &trash, &unique)?)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Makes `name` under `folder` with `make`, after removing what is there, again
    /// while something races in between (`EEXIST`).
    fn replacing<T>(
        folder: &OwnedFd,
        root: &Path,
        name: &CStr,
        make: impl Fn() -> rustix::io::Result<T>,
    ) -> std::io::Result<T> {
        let mut last_error = None;
        for _ in 0..ATTEMPTS {
            remove(folder, root, name)?;
            match make() {
                Ok(made) => return Ok(made),
                // Something raced in after the removal: remove it again.
                Err(Errno::EXIST) => last_error = Some(Errno::EXIST.into()),
                Err(error) => return Err(error.into()),
            }
        }
        Err(last_error.unwrap_or_else(|| std::io::Error::other("the file kept being replaced")))
    }

    /// The folder that holds `relative` below `root`, made where missing, and the
    /// last component's name. A link or a file where a folder belongs is removed
    /// (the link itself), never followed.
    fn parent_of(root: &Path, relative: &Path) -> std::io::Result<(OwnedFd, CString)> {
        walk(root, relative, true)?.ok_or_else(|| std::io::Error::other("no folder"))
    }

    /// The folder that holds `relative` below `root` and the last component's name.
    /// With `create`, folders are made where missing and a link or a file where a
    /// folder belongs is removed; without, `None` when a folder of the path is
    /// missing or not a real folder (nothing of the copy is there to touch).
    fn walk(
        root: &Path,
        relative: &Path,
        create: bool,
    ) -> std::io::Result<Option<(OwnedFd, CString)>> {
        let invalid = || {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a plain relative path",
            )
        };
        let mut folder = open_folder(CWD, &name(root.as_os_str())?)?;
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(part) => parts.push(part),
                Component::CurDir => {}
                _ => return Err(invalid()),
            }
        }
        let last = parts.pop().ok_or_else(invalid)?;
        for part in parts {
            let part_name = name(part)?;
            let mut opened = open_folder(&folder, &part_name);
            if !create {
                match opened {
                    Ok(next) => {
                        folder = next;
                        continue;
                    }
                    Err(_) => return Ok(None),
                }
            }
            for _ in 0..ATTEMPTS {
                match &opened {
                    Ok(_) => break,
                    Err(Errno::NOENT) => {}
                    // A link (ELOOP) or a file (ENOTDIR) where a folder belongs.
                    Err(_) => remove(&folder, root, &part_name)?,
                }
                match rustix::fs::mkdirat(&folder, &part_name, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(error) => return Err(error.into()),
                }
                opened = open_folder(&folder, &part_name);
            }
            folder = opened?;
        }
        Ok(Some((folder, name(last)?)))
    }

    /// Creates `relative` below `root` as a new file holding `bytes`, with `mode`.
    pub fn write_new(root: &Path, relative: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
        let mut file = create_new(root, relative, mode)?;
        file.write_all(bytes)?;
        // The umask may have taken bits off.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
    }

    /// Removes whatever is at `relative` below `root` (a folder into the trash), if
    /// the folders above it are real folders of the copy.
    pub fn remove_entry(root: &Path, relative: &Path) -> std::io::Result<()> {
        match walk(root, relative, false)? {
            Some((folder, file_name)) => remove(&folder, root, &file_name),
            None => Ok(()),
        }
    }

    /// Creates `relative` below `root` as a new, empty file with `mode`, replacing
    /// what is there.
    pub fn create_new(root: &Path, relative: &Path, mode: u32) -> std::io::Result<std::fs::File> {
        let (folder, file_name) = parent_of(root, relative)?;
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = replacing(&folder, root, &file_name, || {
            rustix::fs::openat(&folder, &file_name, flags, Mode::from_raw_mode(mode as _))
        })?;
        Ok(std::fs::File::from(file))
    }

    /// Creates `relative` below `root` as a new link to `target`.
    pub fn symlink_new(root: &Path, relative: &Path, target: &Path) -> std::io::Result<()> {
        let (folder, file_name) = parent_of(root, relative)?;
        let target = name(target.as_os_str())?;
        replacing(&folder, root, &file_name, || {
            rustix::fs::symlinkat(&target, &folder, &file_name)
        })
    }
}

/// A copy of the repository around a folder (its git-tracked and untracked files,
/// ignored ones left out; the folder itself without git) in a new temporary folder,
/// removed when the copy is dropped: what each check of `tether idem` runs in. The
/// three steps are timed, for benchmarks (`cargo xtask bench`, through the
/// `internals` feature).
#[cfg(feature = "internals")]
#[derive(Debug)]
#[non_exhaustive]
pub struct SandboxCopy {
    sandbox: Sandbox,
    /// Files copied.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
    /// Time to list the files.
    pub list: std::time::Duration,
    /// Time to read them.
    pub read: std::time::Duration,
    /// Time to write the copy.
    pub write: std::time::Duration,
    /// Files that were reflinked (shared with the original until written) rather
    /// than copied byte for byte.
    pub reflinked: usize,
}

#[cfg(feature = "internals")]
impl SandboxCopy {
    /// Copies the repository around `folder`; the user's tree is only read.
    pub fn of(folder: &Path) -> std::io::Result<SandboxCopy> {
        let start = std::time::Instant::now();
        let source = Source::around(folder)?;
        let list = start.elapsed();
        let start = std::time::Instant::now();
        let manifest = Manifest::read(&source)?;
        let read = start.elapsed();
        let start = std::time::Instant::now();
        let reflinked = REFLINKED.load(std::sync::atomic::Ordering::Relaxed);
        let sandbox = Sandbox::from_manifest(&manifest)?;
        Ok(SandboxCopy {
            reflinked: REFLINKED.load(std::sync::atomic::Ordering::Relaxed) - reflinked,
            sandbox,
            files: manifest.entries.len(),
            bytes: manifest.bytes(),
            list,
            read,
            write: start.elapsed(),
        })
    }

    /// The copy's folder.
    pub fn path(&self) -> &Path {
        &self.sandbox.root
    }
}

/// What the run saw of the user's repository when it started: for each listed file
/// its kind, size, mode and content hash, not its bytes. Bytes are read back from
/// the user's tree when a copy needs them, and checked against the hash.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub root: PathBuf,
    pub entries: BTreeMap<PathBuf, Listed>,
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    File {
        size: u64,
        executable: bool,
        hash: u64,
    },
    Link(PathBuf),
}

impl Manifest {
    /// Reads every listed file once, in parallel, to hash it (submodules and nested
    /// repositories expanded to their files; FIFOs, sockets and devices left out and
    /// never opened). Memory holds one file per thread at a time.
    pub fn read(source: &Source) -> std::io::Result<Manifest> {
        let listed = expand_folders(&source.root, &source.files);
        let read: Vec<Option<(PathBuf, Listed)>> = listed
            .par_iter()
            .map(|relative| {
                let path = source.root.join(relative);
                let metadata = path.symlink_metadata().map_err(|e| named(relative, e))?;
                let kind = metadata.file_type();
                let listed = if kind.is_symlink() {
                    Listed::Link(std::fs::read_link(&path).map_err(|e| named(relative, e))?)
                } else if kind.is_file() {
                    use std::os::unix::fs::PermissionsExt;
                    // Hashed in chunks: a huge file costs time, not memory.
                    let (size, hash) =
                        crate::source::hash_regular(&path).map_err(|e| named(relative, e))?;
                    Listed::File {
                        size,
                        executable: metadata.permissions().mode() & 0o111 != 0,
                        hash,
                    }
                } else {
                    return Ok(None);
                };
                Ok(Some((relative.clone(), listed)))
            })
            .collect::<std::io::Result<_>>()?;
        Ok(Manifest {
            root: source.root.clone(),
            entries: read.into_iter().flatten().collect(),
        })
    }

    /// A file as it was when the run started, read back from the user's tree; a file
    /// that changed since is [`Entry::Unreadable`] with the reason.
    pub fn pristine(&self, relative: &Path) -> Option<Entry> {
        Some(match self.entries.get(relative)? {
            Listed::Link(target) => Entry::Link(target.clone()),
            Listed::File {
                size,
                executable,
                hash,
            } if *size >= LARGE => Entry::Large {
                size: *size,
                hash: *hash,
                executable: *executable,
            },
            Listed::File {
                executable, hash, ..
            } => match crate::source::read_regular(&self.root.join(relative), usize::MAX - 1) {
                Ok(bytes) if xxhash_rust::xxh3::xxh3_64(&bytes) == *hash => Entry::File {
                    bytes: Arc::new(bytes),
                    executable: *executable,
                },
                Ok(_) => Entry::Unreadable(format!(
                    "{} changed in your tree during the run",
                    relative.display()
                )),
                Err(error) => Entry::Unreadable(error.to_string()),
            },
        })
    }

    /// Bytes of all files, for benchmarks.
    #[cfg(feature = "internals")]
    pub fn bytes(&self) -> u64 {
        self.entries
            .values()
            .map(|listed| match listed {
                Listed::File { size, .. } => *size,
                Listed::Link(_) => 0,
            })
            .sum()
    }
}

/// The listing with folders (submodules, nested repositories) replaced by the files
/// under them, their `.git` left out.
fn expand_folders(root: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let mut listed = Vec::with_capacity(files.len());
    for relative in files {
        let path = root.join(relative);
        if path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            listed.extend(
                walk_files(&path, false)
                    .into_iter()
                    .map(|inside| relative.join(inside)),
            );
        } else {
            listed.push(relative.clone());
        }
    }
    listed
}

/// Copies one file of the manifest from the user's tree into a copy: a reflink where
/// the filesystem has them, else a copy; a link as a link.
fn copy_in(
    manifest: &Manifest,
    root: &Path,
    relative: &Path,
    listed: &Listed,
) -> std::io::Result<()> {
    // After a command ran, a process it left may still swap files and folders of
    // the copy: every step goes through descriptors and refuses links.
    match listed {
        Listed::Link(target) => beneath::symlink_new(root, relative, target),
        Listed::File { executable, .. } => {
            let mode = if *executable { 0o755 } else { 0o644 };
            let copy = beneath::create_new(root, relative, mode)?;
            copy_into(&manifest.root.join(relative), copy, mode)
        }
    }
}

/// Creates `path` (which must not exist) as the manifest's `relative`.
fn write_listed(
    manifest: &Manifest,
    path: &Path,
    relative: &Path,
    listed: &Listed,
) -> std::io::Result<()> {
    match listed {
        Listed::Link(target) => std::os::unix::fs::symlink(target, path),
        Listed::File { executable, .. } => copy_file(
            &manifest.root.join(relative),
            path,
            if *executable { 0o755 } else { 0o644 },
        ),
    }
}

/// Whether reflinks work from the user's tree into the sandboxes: not known until a
/// file tries, then tried no more where they failed. ext4 has none, and a failed
/// attempt there costs a second file creation, the dearest step of a copy.
static REFLINKS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(REFLINKS_UNKNOWN);
const REFLINKS_UNKNOWN: u8 = 0;
const REFLINKS_WORK: u8 = 1;
const REFLINKS_FAIL: u8 = 2;

/// Creates `to` (which must not exist) with the regular file `from`'s bytes and
/// `mode`: a reflink where the filesystem has them, else a kernel-side copy. One
/// file creation either way; `from` must be a regular file when opened.
fn copy_file(from: &Path, to: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let copy = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(to)?;
    copy_into(from, copy, mode)
}

/// Fills the new file `copy` with the regular file `from`'s bytes (a reflink where
/// the filesystem has them) and gives it `mode`.
fn copy_into(from: &Path, mut copy: std::fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::Ordering;
    let (mut source, _) = crate::source::open_regular(from)?;
    let mut reflinked = false;
    if REFLINKS.load(Ordering::Relaxed) != REFLINKS_FAIL {
        reflinked = reflink_copy::reflink_file(&source, &copy).is_ok();
        // Once they have worked, a failure is this file's (another filesystem).
        let _ = REFLINKS.compare_exchange(
            REFLINKS_UNKNOWN,
            if reflinked {
                REFLINKS_WORK
            } else {
                REFLINKS_FAIL
            },
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }
    if reflinked {
        REFLINKED.fetch_add(1, Ordering::Relaxed);
    } else {
        std::io::copy(&mut source, &mut copy)?;
    }
    // The umask may have taken bits off.
    copy.set_permissions(std::fs::Permissions::from_mode(mode))
}

impl Sandbox {
    /// A copy of the manifest's files, taken from the user's tree (reflinks where
    /// the filesystem has them), in parallel.
    pub fn from_manifest(manifest: &Manifest) -> std::io::Result<Sandbox> {
        let _copying = Copying::start();
        if stopping() {
            return Err(interrupted());
        }
        let folder = tempfile::Builder::new().prefix("tether-idem-").tempdir()?;
        register(folder.path());
        let root = folder.path().join("escape/guard/repo");
        std::fs::create_dir_all(&root)?;
        let sandbox = Sandbox { folder, root };
        // The folders first, each once: the copy is new, so nothing in it can be a
        // planted link, and the files then go straight in.
        let folders: BTreeSet<&Path> = manifest
            .entries
            .keys()
            .filter_map(|path| path.parent())
            .filter(|parent| !parent.as_os_str().is_empty())
            .collect();
        for folder in folders {
            std::fs::create_dir_all(sandbox.root.join(folder))?;
        }
        manifest
            .entries
            .par_iter()
            .try_for_each(|(relative, listed)| {
                if stopping() {
                    return Err(interrupted());
                }
                write_listed(manifest, &sandbox.root.join(relative), relative, listed)
            })?;
        Ok(sandbox)
    }

    /// Brings `paths` of the copy back to the manifest: listed ones copied again
    /// from the user's tree, others removed, then the folders the command created
    /// that hold nothing listed. Never through a link the command planted.
    pub fn restore_paths(
        &self,
        manifest: &Manifest,
        paths: &BTreeSet<PathBuf>,
    ) -> std::io::Result<()> {
        self.intact()?;
        std::fs::create_dir_all(&self.root)?;
        let mut removed = false;
        for relative in paths {
            match manifest.entries.get(relative) {
                Some(listed) => copy_in(manifest, &self.root, relative, listed)?,
                None => {
                    // Only what is under real folders of the copy, by descriptors.
                    beneath::remove_entry(&self.root, relative)?;
                    removed = true;
                }
            }
        }
        if removed {
            remove_unlisted_folders(&self.root, manifest);
        }
        Ok(())
    }

    /// Writes files into the copy (a mutant's files).
    pub fn write(&self, files: &BTreeMap<PathBuf, Entry>) -> std::io::Result<()> {
        self.intact()?;
        write_contents(&self.root, files)
    }

    /// Stamps of every entry of the copy, to see what a command changed.
    pub fn stamps(&self) -> Fingerprint {
        if self.intact().is_err() {
            return Fingerprint::new();
        }
        fingerprint(&self.root)
    }

    /// The current entry of each path (absent ones left out); a file that cannot be
    /// read back is [`Entry::Unreadable`]. Nothing is read through a planted link.
    pub fn entries(&self, paths: &BTreeSet<PathBuf>) -> BTreeMap<PathBuf, Entry> {
        if let Err(error) = self.intact() {
            return paths
                .iter()
                .map(|path| (path.clone(), Entry::Unreadable(error.to_string())))
                .collect();
        }
        paths
            .par_iter()
            .filter(|path| {
                real_parents_exist(&self.root, path)
                    && self
                        .root
                        .join(path)
                        .symlink_metadata()
                        .is_ok_and(|m| !m.is_dir())
            })
            .map(|path| {
                let entry = match read_entry(&self.root, path) {
                    Ok(Some(entry)) => entry,
                    Ok(None) => Entry::Unreadable("not a regular file".into()),
                    Err(error) => Entry::Unreadable(error.to_string()),
                };
                (path.clone(), entry)
            })
            .collect()
    }

    /// Of `paths` (new in the copy), those `.gitignore` rules do not exclude.
    /// Of `paths` (new in the copy), those git would not ignore: the copy's ignore
    /// files, and `repository`'s `info/exclude` (the user's tree, where `.git` is),
    /// as an overlay reads them.
    pub fn not_ignored(&self, paths: &BTreeSet<PathBuf>, repository: &Path) -> BTreeSet<PathBuf> {
        if paths.is_empty() || self.intact().is_err() {
            return BTreeSet::new();
        }
        let mut ignore_files = |folder: &Path| -> Vec<ignore::gitignore::Gitignore> {
            super::ignored::NAMES
                .iter()
                .filter_map(|name| {
                    let file = self.root.join(folder).join(name);
                    // Never through a link the command made.
                    if !real_parents_exist(&self.root, &folder.join(name))
                        || !file
                            .symlink_metadata()
                            .is_ok_and(|metadata| metadata.is_file())
                    {
                        return None;
                    }
                    let text = crate::source::read_regular(&file, 1024 * 1024).ok()?;
                    super::ignored::parse(&text)
                })
                .collect()
        };
        super::ignored::not_ignored(paths, &mut ignore_files, repository)
            .into_iter()
            .filter(|path| {
                self.root
                    .join(path)
                    .symlink_metadata()
                    .is_ok_and(|metadata| !metadata.is_dir())
            })
            .collect()
    }
}

/// Whether every folder from `root` to `relative`'s parent is a real folder.
fn real_parents_exist(root: &Path, relative: &Path) -> bool {
    let mut current = root.to_path_buf();
    let Some(parent) = relative.parent() else {
        return true;
    };
    parent.components().all(|component| {
        current.push(component);
        current.symlink_metadata().is_ok_and(|m| m.is_dir())
    })
}

/// Removes folders under `root` that hold nothing of the manifest.
fn remove_unlisted_folders(root: &Path, manifest: &Manifest) {
    let keep: BTreeSet<PathBuf> = manifest
        .entries
        .keys()
        .flat_map(|path| {
            path.ancestors()
                .skip(1)
                .map(Path::to_path_buf)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut folders = walkdir_all(root);
    folders.reverse();
    for folder in folders {
        let Ok(relative) = folder.strip_prefix(root) else {
            continue;
        };
        if !relative.as_os_str().is_empty() && !keep.contains(relative) {
            let _ = std::fs::remove_dir(&folder);
        }
    }
}

/// The paths whose stamps differ between two fingerprints, files only (a folder's
/// own stamp is its mode).
pub fn changed_paths(before: &Fingerprint, after: &Fingerprint) -> BTreeSet<PathBuf> {
    fingerprint_changes(before, after)
        .into_iter()
        // A folder appearing or going is seen through its files; a file that became
        // a folder, or the reverse, is a change of the path.
        .filter(|path| {
            let folder_or_none = |stamp: Option<&Stamp>| stamp.is_none_or(Stamp::is_dir);
            !(folder_or_none(before.get(path)) && folder_or_none(after.get(path)))
        })
        .collect()
}

/// Updates `stamps` for `paths` of the tree at `root` (after tether itself wrote
/// them), so the next comparison sees only what a command changes.
pub fn restamp(stamps: &mut Fingerprint, root: &Path, paths: &BTreeSet<PathBuf>) {
    for path in paths {
        let full = root.join(path);
        match full.symlink_metadata() {
            Ok(metadata) => {
                stamps.insert(path.clone(), Stamp::of(&full, &metadata));
            }
            Err(_) => {
                stamps.remove(path);
            }
        }
    }
}

impl Stamp {
    fn is_dir(&self) -> bool {
        // S_IFMT and S_IFDIR, the same on every Unix.
        self.mode & 0o170000 == 0o040000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change in an extended attribute's value past its first 4 KiB is seen: the
    /// buffers are sized by asking, not fixed.
    #[test]
    fn a_long_attribute_value_is_hashed_whole() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("a.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        let set = |value: &[u8]| {
            rustix::fs::lsetxattr(
                &file,
                c"user.tether",
                value,
                rustix::fs::XattrFlags::empty(),
            )
        };
        let mut value = vec![b'a'; 6000];
        if set(&value).is_err() {
            // The filesystem has no user attributes of this size: nothing to see.
            return;
        }
        let before = xattrs_hash(&file);
        value[5000] = b'b';
        assert!(set(&value).is_ok());
        assert_ne!(xattrs_hash(&file), before);
        assert_ne!(before, 0);
    }

    /// A process left behind by the command keeps swapping the sandbox's
    /// `templates/a.yaml` for a link to the user's file while tether writes mutants
    /// there. The user's files never change, however the race falls.
    /// A link or a file where a folder of the path belongs is replaced, not followed.
    #[test]
    fn a_folder_swapped_for_a_link_is_replaced_not_followed() {
        let user = tempfile::tempdir().unwrap();
        let sandbox = tempfile::tempdir().unwrap();
        let root = sandbox.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        std::os::unix::fs::symlink(user.path(), root.join("templates")).unwrap();
        let mutant: Contents = [(
            PathBuf::from("templates/a.yaml"),
            Entry::File {
                bytes: Arc::new(b"a mutant\n".to_vec()),
                executable: false,
            },
        )]
        .into_iter()
        .collect();
        write_contents(&root, &mutant).unwrap();
        assert_eq!(std::fs::read_dir(user.path()).unwrap().count(), 0);
        assert!(root.join("templates").symlink_metadata().unwrap().is_dir());
        assert_eq!(
            std::fs::read_to_string(root.join("templates/a.yaml")).unwrap(),
            "a mutant\n"
        );
    }

    #[test]
    fn a_racing_link_never_sends_a_write_into_the_users_tree() {
        let user = tempfile::tempdir().unwrap();
        std::fs::create_dir(user.path().join("templates")).unwrap();
        let real = user.path().join("templates/a.yaml");
        std::fs::write(&real, "the user's template\n").unwrap();
        let sandbox = tempfile::tempdir().unwrap();
        let root = sandbox.path().join("repo");
        std::fs::create_dir_all(root.join("templates")).unwrap();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let racer = {
            let (root, real, user, stop) = (
                root.clone(),
                real.clone(),
                user.path().to_path_buf(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                let _ = user;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::fs::remove_file(root.join("templates/a.yaml"));
                    let _ = std::os::unix::fs::symlink(&real, root.join("templates/a.yaml"));
                }
            })
        };
        let mutant: Contents = [(
            PathBuf::from("templates/a.yaml"),
            Entry::File {
                bytes: Arc::new(b"a mutant: a block removed\n".to_vec()),
                executable: false,
            },
        )]
        .into_iter()
        .collect();
        for _ in 0..3000 {
            let _ = write_contents(&root, &mutant);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        racer.join().unwrap();
        assert_eq!(
            std::fs::read_to_string(&real).unwrap(),
            "the user's template\n"
        );
        assert_eq!(
            std::fs::read_dir(user.path().join("templates"))
                .unwrap()
                .count(),
            1,
            "a file appeared in the user's folder"
        );
    }
}
