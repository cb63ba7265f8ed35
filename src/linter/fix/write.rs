//! How `--fix` writes a file: never through a link, never outside the repository,
//! never over an edit saved since tether read it.

use std::path::Path;

/// Writes a fixed file as ruff and careful editors do. Refused: a file reached
/// through a link that leaves the repository (`top`), a read-only file, and a file
/// whose bytes changed since they were read (`before`). A file with several hard
/// links, another owner or extended attributes is written in place, so every name,
/// the owner and the attributes keep it; any other is replaced by rename beside
/// itself (never half written), with its permissions.
///
/// What is guaranteed about an edit saved while tether writes: the bytes are
/// compared with `before` when the file is opened and again right before the
/// rename, after the new text is written and synced, so any edit saved before that
/// last comparison, in place or by rename, is kept and the fix refused. An edit
/// written into the file in place after it, before the rename, is found after the
/// rename (tether still holds the old file) and put back, and the fix is refused. A
/// save by rename in that last window, between one system call and the next, can
/// still be lost: no file system offers a rename that checks what it replaces.
pub(super) fn write_fixed(
    path: &Path,
    top: &Path,
    before: &str,
    after: &str,
) -> Result<(), String> {
    let canonical = path
        .canonicalize()
        .map_err(|error| format!("cannot resolve the path: {error}"))?;
    let top = crate::paths::absolute(top);
    if !canonical.starts_with(&top) {
        return Err(format!(
            "reached through a link that leaves {}; tether --fix writes only inside the repository",
            top.display()
        ));
    }
    write_checked(path, before, after)
}

/// The inputs named inside a repository that a link in their path leads out of it:
/// each as the place it leads to (links resolved) and that repository's top. A file
/// below such a place is not written, whatever configuration covers it (one above the
/// repository would otherwise bound the writes with its own folder).
pub(super) fn leaving_links(
    inputs: &[std::path::PathBuf],
) -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    inputs
        .iter()
        .filter_map(|input| {
            let named = std::path::absolute(input).ok()?;
            let top = named
                .ancestors()
                .skip(1)
                .find(|folder| crate::paths::is_repository_top(folder))?
                .canonicalize()
                .ok()?;
            let target = input.canonicalize().ok()?;
            (!target.starts_with(&top)).then_some((target, top))
        })
        .collect()
}

#[cfg(unix)]
fn write_checked(path: &Path, before: &str, after: &str) -> Result<(), String> {
    use std::io::{Read, Seek, Write};
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let failed = |error: std::io::Error| format!("not written: {error}");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(failed)?;
    let metadata = file.metadata().map_err(failed)?;
    if !metadata.file_type().is_file() {
        return Err("not a regular file; tether writes only regular files".into());
    }
    if metadata.mode() & 0o222 == 0 {
        return Err("read-only; not written (make it writable to fix it)".into());
    }
    let mut now = Vec::new();
    (&mut file)
        .take(before.len() as u64 + 1)
        .read_to_end(&mut now)
        .map_err(failed)?;
    if now != before.as_bytes() {
        return Err("changed since tether read it; not written (run --fix again)".into());
    }
    let ours = metadata.uid() == crate::sys::effective_uid();
    if metadata.nlink() > 1 || !ours || crate::sys::has_xattrs(&file) {
        file.seek(std::io::SeekFrom::Start(0)).map_err(failed)?;
        file.set_len(0).map_err(failed)?;
        file.write_all(after.as_bytes()).map_err(failed)?;
        return file.sync_all().map_err(failed);
    }
    replace_checked(path, &mut file, before, after)
}

/// Replaces `path`, whose open file is `old`, with `after` by rename, when `old`
/// still holds `before` and is still the file at `path` right before the rename;
/// puts back an edit written into `old` in place between that comparison and the
/// rename.
#[cfg(unix)]
fn replace_checked(
    path: &Path,
    old: &mut std::fs::File,
    before: &str,
    after: &str,
) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let failed = |error: std::io::Error| format!("not written: {error}");
    let changed = || Err("changed since tether read it; not written (run --fix again)".into());
    let temporary = write_temporary(path, after).map_err(failed)?;
    #[cfg(test)]
    hooks::run(hooks::Point::BeforeLastComparison);
    let same_file = std::fs::symlink_metadata(path)
        .and_then(|at_path| Ok((at_path, old.metadata()?)))
        .is_ok_and(|(at_path, open)| at_path.ino() == open.ino() && at_path.dev() == open.dev());
    if !same_file || read_all(old).map_err(failed)? != before.as_bytes() {
        return changed();
    }
    #[cfg(test)]
    hooks::run(hooks::Point::BeforeRename);
    temporary
        .persist(path)
        .map_err(|error| failed(error.error))?;
    let now = read_all(old).map_err(failed)?;
    if now != before.as_bytes() {
        // Written in place between the comparison and the rename: put it back.
        let edited = String::from_utf8_lossy(&now);
        write_beside(path, &edited).map_err(failed)?;
        return Err(
            "changed while tether wrote it; the edit was put back and not fixed (run --fix again)"
                .into(),
        );
    }
    Ok(())
}

/// The whole of an open file, from its start.
#[cfg(unix)]
fn read_all(file: &mut std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek};
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.take(crate::source::MAX_FILE_BYTES as u64 * 2)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(not(unix))]
fn write_checked(path: &Path, before: &str, after: &str) -> Result<(), String> {
    let now = std::fs::read(path).map_err(|error| format!("not written: {error}"))?;
    if now != before.as_bytes() {
        return Err("changed since tether read it; not written (run --fix again)".into());
    }
    write_beside(path, after).map_err(|error| format!("not written: {error}"))
}

/// Replaces the regular file at `path` with `text`: written to a new file in the same
/// folder, with the old one's permissions, then renamed over it. A link, or anything
/// but a regular file, is refused.
fn write_beside(path: &Path, text: &str) -> std::io::Result<()> {
    let metadata = std::fs::symlink_metadata(path)?;
    if !metadata.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a link?); tether writes only regular files",
        ));
    }
    write_temporary(path, text)?
        .persist(path)
        .map_err(|error| error.error)?;
    Ok(())
}

/// `text` in a new file beside `path`, with the permissions of the file at `path`,
/// synced: what a rename puts in its place.
fn write_temporary(path: &Path, text: &str) -> std::io::Result<tempfile::NamedTempFile> {
    use std::io::Write;
    let metadata = std::fs::symlink_metadata(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::Builder::new()
        .prefix(".tether-fix-")
        .tempfile_in(folder)?;
    temporary.write_all(text.as_bytes())?;
    temporary
        .as_file()
        .set_permissions(metadata.permissions())?;
    temporary.as_file().sync_all()?;
    Ok(temporary)
}

/// Points in a write where a test runs code of its own: what another process
/// could do at that moment.
#[cfg(all(test, unix))]
mod hooks {
    use std::cell::RefCell;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Point {
        BeforeLastComparison,
        BeforeRename,
    }

    type Hook = Box<dyn FnMut(Point)>;

    thread_local! {
        static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    }

    pub fn set(hook: Option<Hook>) {
        HOOK.with(|slot| *slot.borrow_mut() = hook);
    }

    pub fn run(point: Point) {
        HOOK.with(|slot| {
            if let Some(hook) = slot.borrow_mut().as_mut() {
                hook(point);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_changed_since_it_was_read_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values.yaml");
        // Read as `a: 1 #x`; a line appended while the fix ran.
        std::fs::write(&path, "a: 1 #x\nb: 2\n").unwrap();
        let refused = write_checked(&path, "a: 1 #x\n", "a: 1  # x\n").unwrap_err();
        assert!(
            refused.contains("changed since tether read it"),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1 #x\nb: 2\n");
    }

    #[test]
    #[cfg(unix)]
    fn an_edit_saved_while_the_fix_is_written_is_kept() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values.yaml");
        let append = |path: std::path::PathBuf| {
            move || {
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                file.write_all(b"b: 2\n").unwrap();
            }
        };
        // Saved after the fixed text is written, before the last comparison: the
        // fix is refused and the edit kept (the watcher of the issue). Saved in place
        // between the last comparison and the rename: put back.
        let cases = [
            (
                hooks::Point::BeforeLastComparison,
                "changed since tether read it",
            ),
            (hooks::Point::BeforeRename, "the edit was put back"),
        ];
        for (at, said) in cases {
            std::fs::write(&path, "a: 1 #x\n").unwrap();
            let edit = append(path.clone());
            hooks::set(Some(Box::new(move |point| {
                if point == at {
                    edit();
                }
            })));
            let refused = write_checked(&path, "a: 1 #x\n", "a: 1  # x\n").unwrap_err();
            hooks::set(None);
            assert!(refused.contains(said), "{refused}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1 #x\nb: 2\n");
        }
        // No temporary file is left beside it.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
