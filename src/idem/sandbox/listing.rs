//! What a sandbox is made from: the files of the user's repository (git's listing,
//! or a folder's walk), and one file of a tree read as an [`Entry`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What `tether idem` copies: the git top level (tracked files and untracked files
/// git does not ignore), or a folder (its files, `.gitignore` rules applied).
#[derive(Debug, Clone)]
pub struct Source {
    pub root: PathBuf,
    /// Paths relative to `root`, sorted.
    pub files: Vec<PathBuf>,
}

impl Source {
    /// The folder [`Source::around`] lists for `folder`, without listing it: its git
    /// top level when there is one, the folder itself otherwise. The targets of one
    /// repository share one listing.
    pub fn root_of(folder: &Path) -> std::io::Result<PathBuf> {
        match git_top_level(folder) {
            Some(root) => Ok(root),
            None => folder.canonicalize(),
        }
    }

    /// The repository git listed as `listed`.
    pub(crate) fn from_listed(listed: &crate::git::Listed) -> Source {
        Source {
            root: listed.root.clone(),
            files: existing(&listed.root, listed.names.clone()),
        }
    }

    /// The repository around `folder`: its git top level when there is one.
    pub fn around(folder: &Path) -> std::io::Result<Source> {
        if let Some(root) = git_top_level(folder) {
            if let Some(files) = git_files(&root) {
                return Ok(Source { root, files });
            }
        }
        let root = folder.canonicalize()?;
        let files = walk_files(&root, true)?;
        Ok(Source { root, files })
    }
}

fn git_top_level(folder: &Path) -> Option<PathBuf> {
    crate::git::top_level(folder)
}

fn git_files(root: &Path) -> Option<Vec<PathBuf>> {
    let (names, _) = crate::git::git_ls_files(root)?;
    Some(existing(root, names))
}

/// The names of a listing of `root` that are there (a file deleted from the work
/// tree but still in the index is not), sorted, each once.
fn existing(root: &Path, names: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = names
        .into_iter()
        // A file deleted from the work tree but still in the index is not there.
        .filter(|name| root.join(name).symlink_metadata().is_ok())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Files under `root`, relative to it, sorted; with `gitignore`, `.gitignore` rules
/// apply (also outside a repository). `.git` is never listed. A folder or entry
/// that cannot be read is an error naming it: a sandbox without it would not be
/// the tree.
pub fn walk_files(root: &Path, gitignore: bool) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in ignore::WalkBuilder::new(root)
        .standard_filters(gitignore)
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
    {
        let entry = entry.map_err(|error| {
            let kind = error.io_error().map_or(std::io::ErrorKind::Other, std::io::Error::kind);
            std::io::Error::new(
                kind,
                format!("{error}: tether copies every file of the tree; make it readable, or ignore it in .gitignore"),
            )
        })?;
        if entry.file_type().is_some_and(|kind| !kind.is_dir()) {
            if let Ok(relative) = entry.path().strip_prefix(root) {
                files.push(relative.to_path_buf());
            }
        }
    }
    files.sort();
    Ok(files)
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
pub(crate) fn read_entry(root: &Path, relative: &Path) -> std::io::Result<Option<Entry>> {
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

/// An I/O error that names the file it is about.
pub(super) fn named(relative: &Path, error: std::io::Error) -> std::io::Error {
    std::io::Error::new(error.kind(), format!("{}: {error}", relative.display()))
}
