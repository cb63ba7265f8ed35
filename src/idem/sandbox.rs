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
    let output = crate::walk::git(folder)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
}

fn git_files(root: &Path) -> Option<Vec<PathBuf>> {
    let (names, _) = crate::walk::git_ls_files(root)?;
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
}

/// Reads the listed files of `root` (in parallel).
pub fn read_contents(root: &Path, files: &[PathBuf]) -> std::io::Result<Contents> {
    files
        .par_iter()
        .map(|relative| {
            let path = root.join(relative);
            let metadata = path.symlink_metadata()?;
            let entry = if metadata.file_type().is_symlink() {
                Entry::Link(std::fs::read_link(&path)?)
            } else {
                use std::os::unix::fs::PermissionsExt;
                Entry::File {
                    bytes: Arc::new(std::fs::read(&path)?),
                    executable: metadata.permissions().mode() & 0o111 != 0,
                }
            };
            Ok((relative.clone(), entry))
        })
        .collect()
}

/// A fingerprint of a tree: relative path → hash of its content.
pub type Fingerprint = BTreeMap<PathBuf, u64>;

/// Fingerprints every file under `root` that `.gitignore` rules do not exclude.
pub fn fingerprint(root: &Path) -> Fingerprint {
    walk_files(root, true)
        .into_par_iter()
        .filter_map(|relative| {
            let path = root.join(&relative);
            let metadata = path.symlink_metadata().ok()?;
            let hash = if metadata.file_type().is_symlink() {
                xxhash_rust::xxh3::xxh3_64(
                    std::fs::read_link(&path).ok()?.to_string_lossy().as_bytes(),
                )
            } else {
                xxhash_rust::xxh3::xxh3_64(&std::fs::read(&path).ok()?)
            };
            Some((relative, hash))
        })
        .collect()
}

/// The paths whose fingerprints differ: changed, created or deleted.
pub fn fingerprint_changes(before: &Fingerprint, after: &Fingerprint) -> Vec<PathBuf> {
    let paths: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    paths
        .into_iter()
        .filter(|path| before.get(*path) != after.get(*path))
        .cloned()
        .collect()
}

/// Temporary folders in use, for [`interrupt`].
pub static ACTIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A private copy of the repository in a temporary folder.
#[derive(Debug)]
pub struct Sandbox {
    /// The temporary folder; the copy is `root`, a few levels below it, so that a
    /// command writing to `..` still writes inside the temporary folder.
    folder: tempfile::TempDir,
    pub root: PathBuf,
}

impl Sandbox {
    /// Copies `contents` into a new temporary folder.
    pub fn create(contents: &Contents) -> std::io::Result<Sandbox> {
        let folder = tempfile::Builder::new().prefix("tether-idem-").tempdir()?;
        if let Ok(mut active) = ACTIVE.lock() {
            active.push(folder.path().to_path_buf());
        }
        let root = folder.path().join("escape/guard/repo");
        std::fs::create_dir_all(&root)?;
        let sandbox = Sandbox { folder, root };
        write_contents(&sandbox.root, contents)?;
        Ok(sandbox)
    }

    /// The temporary folder the copy is in: the command's `HOME` and `TMPDIR` are
    /// made in it, and under Landlock it is the only place the command may write.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    /// Brings the copy back to `contents`: rewrites what changed, recreates what was
    /// deleted, deletes what was created (ignored files included).
    pub fn restore(&self, contents: &Contents) -> std::io::Result<()> {
        let present = walk_files(&self.root, false);
        for relative in &present {
            if !contents.contains_key(relative) {
                let _ = std::fs::remove_file(self.root.join(relative));
            }
        }
        remove_empty_folders(&self.root, contents);
        let current = read_contents(&self.root, &present).unwrap_or_default();
        let stale: Contents = contents
            .iter()
            .filter(|(path, entry)| current.get(*path) != Some(entry))
            .map(|(path, entry)| (path.clone(), entry.clone()))
            .collect();
        write_contents(&self.root, &stale)
    }

    /// The copy's current contents: the files of `baseline` (present or not) and every
    /// new file `.gitignore` rules do not exclude.
    pub fn contents(&self, baseline: &Contents) -> Contents {
        let mut listed: BTreeSet<PathBuf> = baseline.keys().cloned().collect();
        listed.extend(walk_files(&self.root, true));
        let present: Vec<PathBuf> = listed
            .into_iter()
            .filter(|path| self.root.join(path).symlink_metadata().is_ok())
            .collect();
        read_contents(&self.root, &present).unwrap_or_default()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let path = self.folder.path().to_path_buf();
        if let Ok(mut active) = ACTIVE.lock() {
            active.retain(|active| active != &path);
        }
        // Commands may leave read-only folders behind; make them writable first.
        make_writable(&path);
    }
}

fn make_writable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walkdir_all(path) {
        if let Ok(metadata) = entry.symlink_metadata() {
            if metadata.is_dir() {
                let _ = std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o755));
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

/// Kills the process groups of running commands and removes every sandbox copy
/// still in use: call it from a Ctrl-C handler, then exit.
pub fn interrupt() {
    super::command::kill_all();
    let folders: Vec<PathBuf> = ACTIVE
        .lock()
        .map(|mut a| a.drain(..).collect())
        .unwrap_or_default();
    for folder in folders {
        make_writable(&folder);
        let _ = std::fs::remove_dir_all(&folder);
    }
}

fn write_contents(root: &Path, contents: &Contents) -> std::io::Result<()> {
    contents.par_iter().try_for_each(|(relative, entry)| {
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if path.symlink_metadata().is_ok() {
            std::fs::remove_file(&path)?;
        }
        match entry {
            Entry::File { bytes, executable } => {
                std::fs::write(&path, bytes.as_slice())?;
                if *executable {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
                }
            }
            Entry::Link(target) => std::os::unix::fs::symlink(target, &path)?,
        }
        Ok(())
    })
}

/// Removes folders the command created that hold nothing of `contents`.
fn remove_empty_folders(root: &Path, contents: &Contents) {
    let keep: BTreeSet<PathBuf> = contents
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

/// A copy of the repository around a folder (its git-tracked and untracked files,
/// ignored ones left out; the folder itself without git) in a new temporary folder,
/// removed when the copy is dropped: what each check of `tether idem` runs in. The
/// three steps are timed, for benchmarks.
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
}

impl SandboxCopy {
    /// Copies the repository around `folder`; the user's tree is only read.
    pub fn of(folder: &Path) -> std::io::Result<SandboxCopy> {
        let start = std::time::Instant::now();
        let source = Source::around(folder)?;
        let list = start.elapsed();
        let start = std::time::Instant::now();
        let contents = read_contents(&source.root, &source.files)?;
        let read = start.elapsed();
        let bytes = contents
            .values()
            .map(|entry| match entry {
                Entry::File { bytes, .. } => bytes.len() as u64,
                Entry::Link(_) => 0,
            })
            .sum();
        let start = std::time::Instant::now();
        let sandbox = Sandbox::create(&contents)?;
        Ok(SandboxCopy {
            sandbox,
            files: contents.len(),
            bytes,
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
