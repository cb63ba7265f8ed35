//! The folders the server answers for, and where a document a message names
//! really is. Every path is resolved as the kernel would open it (percent-decoded
//! by the caller, then `..` and every link followed): a file inside the workspace
//! reached through a link that leaves it is outside. The server reads no file
//! outside, nor answers for one.

use std::path::{Component, Path, PathBuf};

/// The workspace: the folders the client named at `initialize` (its workspace
/// folders, else its root), each resolved; with none named, the repository of the
/// first document opened (its nearest folder above holding a `.git`), or that
/// document's folder when it is in no repository.
#[derive(Debug, Clone, Default)]
pub(crate) struct Workspace {
    folders: Vec<PathBuf>,
}

impl Workspace {
    /// The workspace of the folders at `paths` (absolute), each resolved.
    pub fn new(paths: impl IntoIterator<Item = PathBuf>) -> Workspace {
        Workspace {
            folders: paths
                .into_iter()
                .filter_map(|path| resolve(&path))
                .collect(),
        }
    }

    /// The workspace of a client that named no folder, from the first document it
    /// opens (absolute).
    pub fn of_document(path: &Path) -> Workspace {
        let Some(folder) = resolve(path).and_then(|path| path.parent().map(Path::to_path_buf))
        else {
            return Workspace::default();
        };
        let top = crate::paths::repository_top(&folder).unwrap_or(folder);
        Workspace { folders: vec![top] }
    }

    /// Whether no folder is known yet.
    pub fn is_empty(&self) -> bool {
        self.folders.is_empty()
    }

    /// The first folder: the defaults' root where no `tether.toml` is found.
    pub fn first(&self) -> Option<&Path> {
        self.folders.first().map(PathBuf::as_path)
    }

    /// Where the file at `path` (absolute) is, resolved, if that is inside the
    /// workspace.
    pub fn inside(&self, path: &Path) -> Option<PathBuf> {
        let resolved = resolve(path)?;
        self.folder_of(&resolved).is_some().then_some(resolved)
    }

    /// The folder of the workspace holding `resolved` (a resolved path).
    pub fn folder_of(&self, resolved: &Path) -> Option<&Path> {
        self.folders
            .iter()
            .find(|folder| resolved.starts_with(folder))
            .map(PathBuf::as_path)
    }
}

/// `path` (absolute) with `..` and every link resolved: canonical where it exists;
/// for a file not yet on disk, its nearest folder that exists made canonical and
/// the rest put back, when the rest is plain names (past a missing folder the
/// kernel resolves no `..`, and neither does this).
pub(crate) fn resolve(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    if let Ok(canonical) = path.canonicalize() {
        return Some(canonical);
    }
    let mut rest = Vec::new();
    for ancestor in path.ancestors() {
        if std::fs::symlink_metadata(ancestor).is_ok() {
            // An ancestor that is there but does not resolve (a dangling link, a
            // loop) leaves nowhere to be.
            let mut resolved = ancestor.canonicalize().ok()?;
            for name in rest.iter().rev() {
                resolved.push(name);
            }
            return Some(resolved);
        }
        match ancestor.components().next_back() {
            Some(Component::Normal(name)) => rest.push(name.to_os_string()),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_as_the_kernel_opens_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let inside = root.join("inside");
        std::fs::create_dir_all(inside.join("chart")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("outside/secret.yaml"), "a: 1\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("outside"), inside.join("linked")).unwrap();
        let workspace = Workspace::new([inside.clone()]);
        let chart = inside.join("chart");
        // A file not yet saved is inside; `..` past a missing folder is nowhere.
        assert_eq!(
            workspace.inside(&chart.join("new/values.yaml")),
            Some(chart.join("new/values.yaml"))
        );
        assert_eq!(workspace.inside(&chart.join("new/../../../outside")), None);
        assert_eq!(
            workspace.inside(&inside.join("../outside/secret.yaml")),
            None
        );
        assert_eq!(
            workspace.inside(&inside.join("chart/../chart")),
            Some(chart.clone())
        );
        #[cfg(unix)]
        {
            assert_eq!(workspace.inside(&inside.join("linked/secret.yaml")), None);
            assert_eq!(workspace.inside(&inside.join("linked/unsaved.yaml")), None);
        }
    }
}
