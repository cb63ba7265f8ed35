//! A memo of what was made of each file's bytes, kept across runs by `tether
//! server` (a file whose bytes did not change is not lexed or parsed again). A
//! leaf: it imports nothing of tether's.

use std::collections::HashMap;
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
            kept: Mutex::new(HashMap::new()),
            taken: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

impl<V: Clone> ByHash<V> {
    /// The value kept for `path` made of bytes hashing to `hash`, or `make`'s,
    /// kept in its place (made without the lock held).
    pub(crate) fn get_or_make(&self, path: &Path, hash: u64, make: impl FnOnce() -> V) -> V {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(path)
            .filter(|(made_of, _)| *made_of == hash)
            .map(|(_, kept)| kept.clone());
        if let Some(kept) = kept {
            self.taken
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
}
