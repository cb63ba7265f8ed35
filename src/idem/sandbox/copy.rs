//! A copy of the user's repository in a temporary folder for commands to run in: made
//! from the manifest (reflinks where the filesystem has them), restored, written,
//! stamped and read back, never through a link the command planted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::super::command::stopping;
use super::beneath::{self, write_contents};
use super::fingerprint::{Fingerprint, fingerprint};
#[cfg(feature = "internals")]
use super::listing::Source;
use super::listing::{Entry, read_entry};
use super::manifest::{Listed, TreeManifest};
use super::registry::{Copying, ESCAPE, interrupted, new_folder, unregister_and_remove};

/// Files copied into sandboxes as reflinks (shared extents) rather than bytes, for
/// benchmarks to say which path ran.
pub static REFLINKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

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
        let manifest = TreeManifest::read(&source)?;
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

/// Copies one file of the manifest from the user's tree into a copy: a reflink where
/// the filesystem has them, else a copy; a link as a link.
fn copy_in(
    manifest: &TreeManifest,
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
    manifest: &TreeManifest,
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
    pub fn from_manifest(manifest: &TreeManifest) -> std::io::Result<Sandbox> {
        let copying = Copying::start();
        let folder = new_folder(&copying)?;
        let root = folder.path().join(ESCAPE).join("guard/repo");
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
        manifest: &TreeManifest,
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
            super::super::ignored::NAMES
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
                    super::super::ignored::parse(&text)
                })
                .collect()
        };
        super::super::ignored::not_ignored(paths, &mut ignore_files, repository)
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
fn remove_unlisted_folders(root: &Path, manifest: &TreeManifest) {
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

/// `path` and every folder under it, links not followed. A folder that cannot be
/// listed keeps what is inside it: nothing there is removed.
fn walkdir_all(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let _kept = crate::folders::walk_unsorted(path, |entry| {
        if entry.is_dir() {
            out.push(entry.path());
        }
        crate::folders::Step::Into
    });
    out
}
