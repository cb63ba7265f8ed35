//! Overlay sandboxes (Linux): the command sees the user's repository through an
//! overlayfs mount made in its own user and mount namespaces, and whatever it writes
//! lands in an upper folder tether owns; the user's tree is the read-only lower layer.
//!
//! Making one creates a few folders, whatever the size of the repository. What a
//! command changed is the upper folder's content (a whiteout for a deletion, an
//! opaque folder for one emptied and made again), so finding it costs what the
//! command wrote. Going back to the committed files empties the upper folder.
//!
//! The namespace maps only tether's own user and group, so a repository with a file
//! or folder owned by anyone else gets copies instead (the kernel could not copy it
//! up), as do kernels without unprivileged user namespaces or overlayfs, and
//! repository paths the mount options cannot spell. A command sees the tree as it is
//! in the checkout, ignored files and `.git` included (on a fresh CI checkout there
//! are no ignored files); what it writes under `.git` or to ignored paths is not
//! judged, as in a copy. Renaming a folder that came from the checkout fails with
//! `EXDEV`, as in a Docker container's overlay filesystem; `mv` and most tools then
//! copy, and `--sandbox copy` is there for a command that does not.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::sandbox::{self, Entry, Listed, TreeManifest};
use super::sys::{self, InChild, Mount};

/// The extended attribute overlayfs marks an opaque folder with, in the user
/// namespace (`userxattr`).
const OPAQUE: &std::ffi::CStr = c"user.overlay.opaque";

/// A sandbox whose files are the user's tree seen through an overlay.
#[derive(Debug)]
pub struct Overlay {
    folder: tempfile::TempDir,
    /// What the command may write under Landlock: the mount point's grandparent (so a
    /// command writing to `..` stays inside), its `HOME` and `TMPDIR`. The layers are
    /// outside it.
    writable: PathBuf,
    merged: PathBuf,
    upper: PathBuf,
    work: PathBuf,
    lower: PathBuf,
}

/// Whether overlays can hold this repository, and why not: the first file or folder
/// another user or group owns, a root the mount options cannot spell, or a kernel
/// that refuses (tried once, with `sh -c :`).
pub fn usable(manifest: &TreeManifest) -> Result<(), String> {
    if let Some(path) = foreign_owner(manifest) {
        return Err(format!(
            "{} belongs to another user or group than tether's, which an overlay cannot map",
            path.display()
        ));
    }
    let overlay = Overlay::new(manifest).map_err(|error| error.to_string())?;
    let mount = overlay
        .mount(Path::new(""))
        .map_err(|error| error.to_string())?;
    let mut command = std::process::Command::new("sh");
    command
        .args(["-c", ":"])
        .current_dir(overlay.folder.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    sys::before_exec(&mut command, InChild::Overlay(mount));
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("a command in an overlay ended with {status}")),
        Err(error) => Err(format!(
            "this kernel does not let tether mount an overlay: {error}"
        )),
    }
}

/// The first listed file, or folder holding one, whose owner or group is not this
/// process's.
fn foreign_owner(manifest: &TreeManifest) -> Option<PathBuf> {
    let (uid, gid) = (
        crate::sys::effective_uid(),
        rustix::process::getegid().as_raw(),
    );
    let mut folders: BTreeSet<&Path> = BTreeSet::new();
    for path in manifest.entries.keys() {
        folders.extend(path.ancestors().skip(1));
    }
    let files = manifest.entries.keys().map(PathBuf::as_path);
    folders.into_iter().chain(files).find_map(|relative| {
        let metadata = manifest.root.join(relative).symlink_metadata().ok()?;
        (metadata.uid() != uid || metadata.gid() != gid).then(|| manifest.root.join(relative))
    })
}

impl Overlay {
    /// The folders of a new overlay over the manifest's root; nothing is mounted
    /// until a command runs.
    pub fn new(manifest: &TreeManifest) -> std::io::Result<Overlay> {
        // An interrupt waits until the folder is registered, so it finds it.
        let making = sandbox::Copying::start();
        let folder = sandbox::new_folder(&making)?;
        let writable = folder.path().join(sandbox::ESCAPE);
        let merged = writable.join("guard/repo");
        let layers = folder.path().join("layers");
        let overlay = Overlay {
            upper: layers.join("upper"),
            work: layers.join("work"),
            merged,
            writable,
            lower: manifest.root.clone(),
            folder,
        };
        std::fs::create_dir_all(&overlay.merged)?;
        std::fs::create_dir_all(&overlay.upper)?;
        std::fs::create_dir_all(&overlay.work)?;
        Ok(overlay)
    }

    /// Where the command's `HOME` and `TMPDIR` go, and all it may write under
    /// Landlock.
    pub fn writable(&self) -> &Path {
        &self.writable
    }

    /// The command's folder as the command sees it.
    pub fn dir(&self, relative_dir: &Path) -> PathBuf {
        self.merged.join(relative_dir)
    }

    /// What the child needs to enter the overlay and `relative_dir` in it, which is
    /// made (empty) in the upper layer when an earlier run deleted it.
    pub fn mount(&self, relative_dir: &Path) -> std::io::Result<Mount> {
        self.make_dir(relative_dir)?;
        let spell = |path: &Path| -> std::io::Result<String> {
            match path.to_str() {
                Some(text) if !text.contains([',', ':', '\\', '\n']) => Ok(text.to_string()),
                _ => Err(std::io::Error::other(format!(
                    "{} cannot be given to overlayfs (a comma, colon, backslash, newline or non-UTF-8 byte in it); run with --sandbox copy",
                    path.display()
                ))),
            }
        };
        let options = format!(
            "lowerdir={},upperdir={},workdir={},userxattr",
            spell(&self.lower)?,
            spell(&self.upper)?,
            spell(&self.work)?
        );
        let c_string = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| std::io::Error::other("a NUL in a sandbox path"))
        };
        let (uid, gid) = (
            crate::sys::effective_uid(),
            rustix::process::getegid().as_raw(),
        );
        Ok(Mount {
            merged: c_string(self.merged.as_os_str().as_bytes())?,
            options: c_string(options.as_bytes())?,
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
            dir: c_string(self.dir(relative_dir).as_os_str().as_bytes())?,
        })
    }

    /// Back to the committed files: new, empty layers. Costs what the last command
    /// wrote.
    pub fn reset(&self) -> std::io::Result<()> {
        for layer in [&self.upper, &self.work] {
            sandbox::make_writable(layer);
            match std::fs::remove_dir_all(layer) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
                _ => {}
            }
            std::fs::create_dir(layer)?;
        }
        Ok(())
    }

    /// Writes files (a mutant's) into the upper layer, over what the tree has.
    pub fn write(&self, files: &BTreeMap<PathBuf, Entry>) -> std::io::Result<()> {
        sandbox::write_contents(&self.upper, files)
    }

    /// Every path that differs from the lower layer since the last reset: what the
    /// upper layer holds, and the listed files a whiteout or an opaque folder hides.
    pub fn changed(&self, manifest: &TreeManifest) -> BTreeSet<PathBuf> {
        let mut changed = BTreeSet::new();
        let walked = crate::folders::walk_unsorted(&self.upper, |entry| {
            let Ok(relative) = entry
                .path()
                .strip_prefix(&self.upper)
                .map(Path::to_path_buf)
            else {
                return crate::folders::Step::Over;
            };
            if entry.is_dir() {
                if manifest.entries.contains_key(&relative) {
                    changed.insert(relative.clone());
                }
                if is_opaque(&entry.path()) {
                    changed.extend(listed_under(manifest, &relative));
                }
            } else {
                // A whiteout, or a file where the tree had a folder, hides what the
                // folder held.
                changed.extend(listed_under(manifest, &relative));
                changed.insert(relative);
            }
            crate::folders::Step::Into
        });
        // A folder of the upper layer a command left unlistable may hold any change
        // to what the tree lists there.
        for unread in walked.unread {
            if let Ok(relative) = unread.path.strip_prefix(&self.upper) {
                changed.extend(listed_under(manifest, relative));
                if !relative.as_os_str().is_empty() {
                    changed.insert(relative.to_path_buf());
                }
            }
        }
        changed
    }

    /// The entry each path has in the command's view (absent ones left out).
    pub fn entries(
        &self,
        manifest: &TreeManifest,
        paths: &BTreeSet<PathBuf>,
    ) -> BTreeMap<PathBuf, Entry> {
        use rayon::prelude::*;
        paths
            .par_iter()
            .filter_map(|path| {
                let entry = match self.upper_entry(path) {
                    Upper::Here(metadata) if metadata.is_dir() || is_whiteout_kind(&metadata) => {
                        None
                    }
                    Upper::Here(_) => Some(match sandbox::read_entry(&self.upper, path) {
                        Ok(Some(entry)) => entry,
                        Ok(None) => Entry::Unreadable("not a regular file".into()),
                        Err(error) => Entry::Unreadable(error.to_string()),
                    }),
                    Upper::Hidden => None,
                    Upper::Absent => manifest.pristine(path),
                };
                entry.map(|entry| (path.clone(), entry))
            })
            .collect()
    }

    /// Of `paths` (new in the view), those `.gitignore` and `.ignore` files, the
    /// repository's `info/exclude` and the global excludes file do not exclude, as
    /// in the view; nothing under a `.git`.
    pub fn not_ignored(&self, paths: &BTreeSet<PathBuf>) -> BTreeSet<PathBuf> {
        super::ignored::not_ignored(paths, &mut |folder| self.ignore_files(folder), &self.lower)
    }

    fn ignore_files(&self, folder: &Path) -> Vec<ignore::gitignore::Gitignore> {
        super::ignored::NAMES
            .iter()
            .filter_map(|name| {
                let relative = folder.join(name);
                let file = match self.upper_entry(&relative) {
                    Upper::Here(metadata) if metadata.is_file() => self.upper.join(&relative),
                    Upper::Here(_) | Upper::Hidden => return None,
                    Upper::Absent => self.lower.join(&relative),
                };
                let text = crate::source::read_regular(&file, 1024 * 1024).ok()?;
                super::ignored::parse(&text)
            })
            .collect()
    }

    /// What the upper layer has at `relative`, each folder on the way checked before
    /// it is entered, so nothing is followed through a link the command made.
    fn upper_entry(&self, relative: &Path) -> Upper {
        let mut path = self.upper.clone();
        let mut opaque = false;
        let mut components = relative.components().peekable();
        while let Some(component) = components.next() {
            path.push(component);
            let metadata = match path.symlink_metadata() {
                Ok(metadata) => metadata,
                // Not in the upper layer: the lower one shows, unless a folder above
                // is opaque.
                Err(_) if opaque => return Upper::Hidden,
                Err(_) => return Upper::Absent,
            };
            if components.peek().is_none() {
                return Upper::Here(metadata);
            }
            if !metadata.is_dir() {
                return Upper::Hidden;
            }
            opaque |= is_opaque(&path);
        }
        Upper::Absent
    }

    /// Makes `relative_dir` a folder in the view when a run deleted it: an empty,
    /// opaque folder in the upper layer.
    fn make_dir(&self, relative_dir: &Path) -> std::io::Result<()> {
        let mut prefix = PathBuf::new();
        for component in relative_dir.components() {
            prefix.push(component);
            let path = self.upper.join(&prefix);
            let in_view = match self.upper_entry(&prefix) {
                Upper::Here(metadata) => metadata.is_dir(),
                Upper::Hidden => false,
                Upper::Absent => self
                    .lower
                    .join(&prefix)
                    .symlink_metadata()
                    .is_ok_and(|m| m.is_dir()),
            };
            if in_view {
                continue;
            }
            if path.symlink_metadata().is_ok() {
                std::fs::remove_file(&path)?;
            }
            std::fs::create_dir_all(&path)?;
            let name = CString::new(path.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::other("a NUL in a sandbox path"))?;
            rustix::fs::lsetxattr(&name, OPAQUE, b"y", rustix::fs::XattrFlags::empty())?;
        }
        Ok(())
    }
}

/// What the upper layer has at a path.
enum Upper {
    /// An entry (a whiteout is a character device).
    Here(std::fs::Metadata),
    /// Nothing, and a file or an opaque folder above hides the lower layer's.
    Hidden,
    /// Nothing: the lower layer shows.
    Absent,
}

impl Drop for Overlay {
    fn drop(&mut self) {
        sandbox::unregister_and_remove(self.folder.path());
    }
}

/// The listed files at or under `relative`.
fn listed_under<'a>(
    manifest: &'a TreeManifest,
    relative: &'a Path,
) -> impl Iterator<Item = PathBuf> + 'a {
    manifest
        .entries
        .range::<Path, _>((
            std::ops::Bound::Included(relative),
            std::ops::Bound::Unbounded,
        ))
        .map(|(path, _): (&PathBuf, &Listed)| path)
        .take_while(move |path| path.starts_with(relative))
        .cloned()
}

fn is_whiteout_kind(metadata: &std::fs::Metadata) -> bool {
    metadata.file_type().is_char_device() && metadata.rdev() == 0
}

fn is_opaque(path: &Path) -> bool {
    let Ok(name) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    let mut value = [0u8; 2];
    let read = rustix::fs::lgetxattr(&name, OPAQUE, &mut value[..]);
    matches!(read, Ok(1)) && value[0] == b'y'
}
