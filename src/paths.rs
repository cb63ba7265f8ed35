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

/// `path` relative to the folder `from` (both absolute), with `..` where it is not
/// below it.
pub fn relative_path(path: &Path, from: &Path) -> PathBuf {
    let path: Vec<_> = path.components().collect();
    let from: Vec<_> = from.components().collect();
    let common = path.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for part in &path[common..] {
        relative.push(part);
    }
    relative
}

/// Whether `folder` is the top of a git work tree (it holds a `.git` of any kind).
pub fn is_repository_top(folder: &Path) -> bool {
    std::fs::symlink_metadata(folder.join(".git")).is_ok()
}

/// The top of the git work tree holding `folder`: the nearest folder with a `.git`.
pub fn repository_top(folder: &Path) -> Option<PathBuf> {
    folder
        .ancestors()
        .find(|ancestor| is_repository_top(ancestor))
        .map(Path::to_path_buf)
}

/// A path as output, caches and archives write it: `/` between components on every
/// platform. On Unix a `\` is part of a name (`a\b.yaml` is one file, not `a/b.yaml`),
/// so it is kept there.
pub fn slashed(path: &Path) -> String {
    let text = path.to_string_lossy();
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.into_owned()
    }
}

/// Whether a file name is a values file's (`values.yaml`, `values-prod.yaml`,
/// `values.yml`): the one test of it, for the check, the rules and the snapshots.
pub(crate) fn is_values_file_name(name: &str) -> bool {
    name.starts_with("values") && (name.ends_with(".yaml") || name.ends_with(".yml"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn values_file_names() {
        for name in [
            "values.yaml",
            "values.yml",
            "values-prod.yaml",
            "values.dev.yml",
        ] {
            assert!(super::is_values_file_name(name), "{name}");
        }
        for name in ["Chart.yaml", "myvalues.yaml", "values.json", "values"] {
            assert!(!super::is_values_file_name(name), "{name}");
        }
    }
}
