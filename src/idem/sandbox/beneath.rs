//! Writes below a folder through descriptors, never following a link: what tether
//! writes into a sandbox after a command ran there.

use std::ffi::{CStr, CString};
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rayon::prelude::*;
use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;

use super::super::command::stopping;
use super::listing::{Contents, Entry};
use super::registry::{Copying, interrupted};

/// Writes `contents` into the sandbox at `root`. Every write goes through folder
/// descriptors opened one component at a time without following links, and every
/// file is created new (`O_CREAT | O_EXCL | O_NOFOLLOW`): a process the command left
/// behind that swaps a file or a folder of the sandbox for a link to the user's tree
/// makes the write fail or land in the sandbox, never in the user's tree.
pub(crate) fn write_contents(root: &Path, contents: &Contents) -> std::io::Result<()> {
    let _copying = Copying::start();
    contents.par_iter().try_for_each(|(relative, entry)| {
        if stopping() {
            return Err(interrupted());
        }
        match entry {
            Entry::File { bytes, executable } => {
                let mode = if *executable { 0o755 } else { 0o644 };
                write_new(root, relative, bytes.as_slice(), mode)?;
            }
            Entry::Link(target) => symlink_new(root, relative, target)?,
            // What tether writes (mutants) is always text it holds.
            Entry::Large { .. } | Entry::Unreadable(_) => {}
        }
        Ok(())
    })
}

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
            static TRASHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
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
fn walk(root: &Path, relative: &Path, create: bool) -> std::io::Result<Option<(OwnedFd, CString)>> {
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
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;

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
