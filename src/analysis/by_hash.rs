//! A memo of what was made of each file's bytes, kept across runs by `tether
//! server` (a file whose bytes did not change is not lexed or parsed again). A
//! leaf: it imports nothing of tether's.

use crate::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// How many paths a [`ByHash`] keeps; past it, it starts again.
const MEMO_PATHS: usize = 20_000;

/// The newest value made of each path, with the hash of the bytes it was made of,
/// for at most [`MEMO_PATHS`] paths; and how many were taken rather than made,
/// which the tests count.
#[derive(Debug)]
pub(crate) struct ByHash<V> {
    kept: Mutex<HashMap<PathBuf, (u64, V)>>,
    /// How many values were taken rather than made.
    pub(crate) taken: std::sync::atomic::AtomicUsize,
}

impl<V> Default for ByHash<V> {
    fn default() -> Self {
        ByHash {
            kept: Mutex::new(HashMap::default()),
            taken: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

impl<V: Clone> ByHash<V> {
    /// The value kept for `path` made of bytes hashing to `hash`, or `make`'s,
    /// kept in its place (made without the lock held).
    pub(crate) fn get_or_make(&self, path: &Path, hash: u64, make: impl FnOnce() -> V) -> V {
        if let Some(kept) = self.get(path, hash) {
            return kept;
        }
        let made = make();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MEMO_PATHS && !kept.contains_key(path) {
            kept.clear();
        }
        kept.insert(path.to_path_buf(), (hash, made.clone()));
        made
    }

    /// The value kept for `path` made of bytes hashing to `hash`, if there is one
    /// (counted as taken).
    pub(crate) fn get(&self, path: &Path, hash: u64) -> Option<V> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(path)
            .filter(|(made_of, _)| *made_of == hash)
            .map(|(_, kept)| kept.clone());
        if kept.is_some() {
            self.taken
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        kept
    }
}

/// A file changed within this long before it was read may change again without
/// its stamp showing it (a file system that keeps times in whole seconds): its
/// stamp is not kept.
#[cfg_attr(not(unix), allow(dead_code))]
const RACY: std::time::Duration = std::time::Duration::from_secs(2);

/// What a file's metadata says of its bytes: the same file (device and inode), of
/// the same size, last written and changed at the same times. Bytes read under a
/// stamp are the bytes of any file with the same stamp (as git's index trusts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) struct ReadStamp {
    device: u64,
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl ReadStamp {
    /// The stamp of a file with `metadata`.
    #[cfg(unix)]
    fn of(metadata: &std::fs::Metadata) -> ReadStamp {
        use std::os::unix::fs::MetadataExt;
        ReadStamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// Whether the file was changed within `racy` of `now` (or in the future).
    #[cfg(unix)]
    fn racy(&self, now: std::time::SystemTime, racy: std::time::Duration) -> bool {
        let changed = std::time::UNIX_EPOCH
            + std::time::Duration::new(self.changed.0.max(0) as u64, self.changed.1 as u32);
        now.duration_since(changed).map_or(true, |age| age < racy)
    }
}

/// The hash of the bytes each file was read with, under the file's [`ReadStamp`] then,
/// for at most [`MEMO_PATHS`] paths: a file whose stamp is the same is not read
/// again. Kept only where metadata tells (Unix).
#[derive(Debug)]
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) struct ByStamp {
    kept: Mutex<HashMap<PathBuf, (ReadStamp, u64)>>,
    /// How recent a change makes a stamp untrustworthy: [`RACY`].
    racy: std::time::Duration,
    /// How many hashes were taken rather than the file read.
    pub(crate) taken: std::sync::atomic::AtomicUsize,
}

impl Default for ByStamp {
    fn default() -> Self {
        ByStamp {
            kept: Mutex::new(HashMap::default()),
            racy: RACY,
            taken: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

impl ByStamp {
    /// Keeps `hash` for the bytes of `path` read from a file with `metadata` (that
    /// of the open file read), unless the file changed too recently to tell.
    #[cfg_attr(not(unix), allow(unused_variables))]
    pub(crate) fn keep(&self, path: &Path, metadata: &std::fs::Metadata, hash: u64) {
        #[cfg(unix)]
        {
            let stamp = ReadStamp::of(metadata);
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if stamp.racy(std::time::SystemTime::now(), self.racy) {
                kept.remove(path);
                return;
            }
            if kept.len() >= MEMO_PATHS && !kept.contains_key(path) {
                kept.clear();
            }
            kept.insert(path.to_path_buf(), (stamp, hash));
        }
    }

    /// A memo that trusts the stamp of a file however recently it changed: for
    /// tests, whose files are all new.
    #[cfg(test)]
    pub(crate) fn trusting_new_files() -> ByStamp {
        ByStamp {
            racy: std::time::Duration::ZERO,
            ..ByStamp::default()
        }
    }

    /// The hash kept for `path` when the file there has the stamp it was read
    /// under; `None` when it changed, is gone, or was never kept.
    pub(crate) fn hash_of(&self, path: &Path) -> Option<u64> {
        #[cfg(unix)]
        {
            let (stamp, hash) = *self
                .kept
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(path)?;
            let now = std::fs::symlink_metadata(path).ok()?;
            let same = now.is_file() && ReadStamp::of(&now) == stamp;
            if same {
                self.taken
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            same.then_some(hash)
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}
