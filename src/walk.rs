//! Finds the files to check: gitignore-aware, in parallel, sorted.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

use crate::config::Config;

/// A file to check: where it is, and its path relative to the configuration's folder.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FileToCheck {
    pub relative: PathBuf,
    pub absolute: PathBuf,
}

/// The files under `inputs` that the configuration includes, sorted by relative
/// path. A file named on the command line is checked even if no `include` glob
/// matches it; a folder is walked with `.gitignore` rules (also outside a git
/// repository). Inputs that do not exist are returned as errors.
pub fn files(config: &Config, inputs: &[PathBuf]) -> (Vec<FileToCheck>, Vec<String>) {
    let found = Mutex::new(Vec::new());
    let mut errors = Vec::new();
    for input in inputs {
        let absolute = absolute(input);
        if absolute.is_file() {
            push(&found, config, absolute, true);
            continue;
        }
        if !absolute.is_dir() {
            errors.push(format!(
                "{}: no such file or folder; pass a chart folder or a file",
                input.display()
            ));
            continue;
        }
        WalkBuilder::new(&absolute)
            .require_git(false)
            .build_parallel()
            .run(|| {
                Box::new(|entry| {
                    if let Ok(entry) = entry {
                        if entry.file_type().is_some_and(|kind| kind.is_file()) {
                            push(&found, config, entry.into_path(), false);
                        }
                    }
                    WalkState::Continue
                })
            });
    }
    let mut files = found.into_inner().unwrap_or_default();
    files.sort();
    files.dedup();
    (files, errors)
}

fn push(found: &Mutex<Vec<FileToCheck>>, config: &Config, absolute: PathBuf, named: bool) {
    let relative = relative_to(&absolute, &config.root);
    if named || config.includes(&relative) {
        if let Ok(mut files) = found.lock() {
            files.push(FileToCheck { relative, absolute });
        }
    }
}

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
