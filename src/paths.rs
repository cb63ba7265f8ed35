//! Path helpers every layer uses. A leaf module.

use std::path::{Path, PathBuf};

/// `path` relative to `root`, or as it is when it is not under `root`.
pub fn relative_to(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

/// An absolute, normalised path (symlinks resolved when the path exists).
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
