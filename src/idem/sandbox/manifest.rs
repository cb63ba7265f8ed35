//! What a run saw of the user's repository when it started (a [`TreeManifest`]: each
//! file's kind, size, mode and hash, not its bytes), and the files read back from it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::listing::{Entry, LARGE, Source, named, walk_files};

/// What the run saw of the user's repository when it started: for each listed file
/// its kind, size, mode and content hash, not its bytes. Bytes are read back from
/// the user's tree when a copy needs them, and checked against the hash.
#[derive(Debug, Clone, Default)]
pub struct TreeManifest {
    pub root: PathBuf,
    pub entries: BTreeMap<PathBuf, Listed>,
}

/// One file of a [`TreeManifest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    File {
        size: u64,
        executable: bool,
        hash: u64,
    },
    Link(PathBuf),
}

impl TreeManifest {
    /// Reads every listed file once, in parallel, to hash it (submodules and nested
    /// repositories expanded to their files; FIFOs, sockets and devices left out and
    /// never opened). Memory holds one file per thread at a time.
    pub fn read(source: &Source) -> std::io::Result<TreeManifest> {
        let listed = expand_folders(&source.root, &source.files)?;
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
        Ok(TreeManifest {
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
fn expand_folders(root: &Path, files: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut listed = Vec::with_capacity(files.len());
    for relative in files {
        let path = root.join(relative);
        if path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            listed.extend(
                walk_files(&path, false)?
                    .into_iter()
                    .map(|inside| relative.join(inside)),
            );
        } else {
            listed.push(relative.clone());
        }
    }
    Ok(listed)
}

/// The first symlink of `contents` that points outside the tree: an absolute
/// target, or one that climbs above the root.
pub fn escaping_link(manifest: &TreeManifest) -> Option<(PathBuf, PathBuf)> {
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
