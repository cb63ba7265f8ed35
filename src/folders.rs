//! One way to read a folder tree, for every walk outside the run's file walk
//! (`linter/walk.rs`, which `ignore` drives): links never followed, each folder's
//! entries in name order, and every folder or entry that could not be read handed
//! back with why, for the caller to report or to make its result partial. A leaf
//! module.

use std::ffi::OsString;
use std::fs::{DirEntry, FileType, Metadata};
use std::path::{Path, PathBuf};

/// A folder that could not be listed, or an entry whose kind could not be read.
#[derive(Debug)]
pub struct Unread {
    pub path: PathBuf,
    /// A folder that could not be listed (else an entry not read).
    pub folder: bool,
    /// What the system said.
    pub error: std::io::Error,
}

impl Unread {
    /// What failed, in words: `cannot be listed (Permission denied …)`.
    pub fn why(&self) -> String {
        let what = if self.folder { "listed" } else { "read" };
        format!("cannot be {what} ({})", self.error)
    }
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why())
    }
}

/// One entry met by a walk.
#[derive(Debug)]
pub struct FolderEntry {
    entry: DirEntry,
    kind: FileType,
    depth: usize,
}

impl FolderEntry {
    /// The entry's path: the walk's root joined with the names below it.
    pub fn path(&self) -> PathBuf {
        self.entry.path()
    }

    pub fn name(&self) -> OsString {
        self.entry.file_name()
    }

    /// A name starting with `.`.
    pub fn is_hidden(&self) -> bool {
        self.entry.file_name().as_encoded_bytes().first() == Some(&b'.')
    }

    pub fn is_dir(&self) -> bool {
        self.kind.is_dir()
    }

    pub fn is_file(&self) -> bool {
        self.kind.is_file()
    }

    pub fn is_symlink(&self) -> bool {
        self.kind.is_symlink()
    }

    /// 1 for an entry of the root, 2 for one of its folders' entries, ….
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Its metadata, not following a link (`fstatat` on the listed folder).
    #[cfg_attr(not(unix), allow(dead_code))] // Only idem's fingerprint, Unix-only, asks.
    pub fn metadata(&self) -> std::io::Result<Metadata> {
        self.entry.metadata()
    }
}

/// What a walk does after an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on; a folder is listed in its turn.
    Into,
    /// Go on, without listing this folder.
    Over,
    /// End the walk here.
    Stop,
}

/// What a walk could not read, and whether it was stopped before the end.
#[derive(Debug, Default)]
#[must_use = "a walk's unread folders are reported, or make its result partial"]
pub struct TreeWalk {
    pub unread: Vec<Unread>,
    pub stopped: bool,
}

/// Walks the folder `root`: each folder's entries in name order, a folder's
/// entries before those of the folders in it, links never followed. The root
/// itself is not visited; a root that cannot be listed is the first [`Unread`].
pub fn walk(root: &Path, visit: impl FnMut(&FolderEntry) -> Step) -> TreeWalk {
    walk_in(root, true, visit)
}

/// [`walk`] in the order the system lists entries: for a walk that keeps no order
/// (a fingerprint of a whole tree), without sorting every folder.
pub fn walk_unsorted(root: &Path, visit: impl FnMut(&FolderEntry) -> Step) -> TreeWalk {
    walk_in(root, false, visit)
}

fn walk_in(root: &Path, sorted: bool, mut visit: impl FnMut(&FolderEntry) -> Step) -> TreeWalk {
    let mut walked = TreeWalk::default();
    let mut pending = vec![(root.to_path_buf(), 1)];
    while let Some((folder, depth)) = pending.pop() {
        let listed = match list(&folder, &mut walked.unread) {
            Some(listed) => listed,
            None => continue,
        };
        let mut entries = Vec::with_capacity(listed.len());
        for entry in listed {
            match entry.file_type() {
                Ok(kind) => entries.push(FolderEntry { entry, kind, depth }),
                Err(error) => walked.unread.push(Unread {
                    path: entry.path(),
                    folder: false,
                    error,
                }),
            }
        }
        if sorted {
            entries.sort_by_key(|entry| entry.entry.file_name());
        }
        let mut below = Vec::new();
        for entry in entries {
            match visit(&entry) {
                Step::Into if entry.is_dir() => below.push((entry.path(), depth + 1)),
                Step::Into | Step::Over => {}
                Step::Stop => {
                    walked.stopped = true;
                    return walked;
                }
            }
        }
        pending.extend(below.into_iter().rev());
    }
    walked
}

/// The entries of one folder, or `None` with why it could not be listed in
/// `unread`. An entry the listing failed on is said too; the others are kept.
fn list(folder: &Path, unread: &mut Vec<Unread>) -> Option<Vec<DirEntry>> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) => {
            unread.push(Unread {
                path: folder.to_path_buf(),
                folder: true,
                error,
            });
            return None;
        }
    };
    let mut listed = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => listed.push(entry),
            Err(error) => unread.push(Unread {
                path: folder.to_path_buf(),
                folder: true,
                error,
            }),
        }
    }
    Some(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in ["b/two", "a/one", "a/x/three", "top", ".hidden/four"] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        dir
    }

    fn names(root: &Path, step: impl Fn(&FolderEntry) -> Step) -> Vec<String> {
        let mut seen = Vec::new();
        let walked = walk(root, |entry| {
            seen.push(format!(
                "{}{}",
                crate::paths::slashed(entry.path().strip_prefix(root).unwrap()),
                if entry.is_dir() { "/" } else { "" }
            ));
            step(entry)
        });
        assert!(walked.unread.is_empty(), "{:?}", walked.unread);
        seen
    }

    /// A folder's entries by name, then each of its folders' in turn, hidden
    /// entries included; a folder stepped over is not listed, a stop ends the walk.
    #[test]
    fn entries_come_in_name_order_folder_by_folder() {
        let dir = tree();
        assert_eq!(
            names(dir.path(), |_| Step::Into),
            [
                ".hidden/",
                "a/",
                "b/",
                "top",
                ".hidden/four",
                "a/one",
                "a/x/",
                "a/x/three",
                "b/two"
            ]
        );
        assert_eq!(
            names(dir.path(), |entry| {
                if entry.is_hidden() || entry.depth() > 1 {
                    Step::Over
                } else {
                    Step::Into
                }
            }),
            [".hidden/", "a/", "b/", "top", "a/one", "a/x/", "b/two"]
        );
        let mut count = 0;
        let walked = walk(dir.path(), |_| {
            count += 1;
            if count == 2 { Step::Stop } else { Step::Into }
        });
        assert!(walked.stopped);
        assert_eq!(count, 2);
    }

    /// A link to a folder is an entry, never listed; a root that is not there is
    /// said, as is a folder that cannot be listed (when the tests do not run as
    /// root, who can list anything).
    #[cfg(unix)]
    #[test]
    fn links_are_not_followed_and_unreadable_folders_are_said() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tree();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link")).unwrap();
        assert!(
            !names(dir.path(), |_| Step::Into)
                .iter()
                .any(|name| name.starts_with("link/"))
        );

        let missing = walk(&dir.path().join("missing"), |_| Step::Into);
        assert_eq!(missing.unread.len(), 1);
        assert!(missing.unread[0].why().starts_with("cannot be listed ("));

        let closed = dir.path().join("a/x");
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable = std::fs::read_dir(&closed).is_ok();
        let walked = walk(dir.path(), |_| Step::Into);
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o755)).unwrap();
        if !readable {
            assert_eq!(walked.unread.len(), 1, "{:?}", walked.unread);
            assert_eq!(walked.unread[0].path, closed);
        }
    }
}
