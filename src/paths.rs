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

/// Whether a folder named `templates` holds the file at `path`, at any depth.
pub fn in_templates_folder(path: &Path) -> bool {
    path.parent()
        .is_some_and(|parent| parent.components().any(|c| c.as_os_str() == "templates"))
}

/// What a file is to Helm, by its path: the one classification that the check, the
/// rules, the template stage and the snapshots read, made once per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Rendered by Helm: under a `templates/` folder, or a `*.tpl` file.
    Template,
    /// Named `values.yaml` (a chart's values when a `Chart.yaml` is beside it, which
    /// the name alone does not tell).
    Values,
    /// Another values file (`values-prod.yaml`, `values.yml`): an override file.
    OtherValues,
    /// Any other file: plain YAML, where `{{` is text (unless its lines say it is
    /// rendered with `tpl`, which only its text can tell).
    Plain,
}

impl FileKind {
    /// The kind of the file at `path` (relative or absolute: only the file's name,
    /// its extension and its folders inside the path count).
    pub fn of(path: &Path) -> FileKind {
        if in_templates_folder(path) || path.extension().is_some_and(|extension| extension == "tpl")
        {
            return FileKind::Template;
        }
        match path.file_name().and_then(|name| name.to_str()) {
            Some("values.yaml") => FileKind::Values,
            Some(name) if is_values_file_name(name) => FileKind::OtherValues,
            _ => FileKind::Plain,
        }
    }

    /// Whether it is named like a values file (`values.yaml`, `values-prod.yaml`,
    /// `values.yml`) outside `templates/`.
    pub fn is_values(self) -> bool {
        matches!(self, FileKind::Values | FileKind::OtherValues)
    }
}

/// Whether a file name is a values file's (`values.yaml`, `values-prod.yaml`,
/// `values.yml`).
fn is_values_file_name(name: &str) -> bool {
    name.starts_with("values") && (name.ends_with(".yaml") || name.ends_with(".yml"))
}

#[cfg(test)]
mod tests {
    use super::FileKind;
    use std::path::Path;

    #[test]
    fn file_kinds() {
        for (path, kind) in [
            ("values.yaml", FileKind::Values),
            ("chart/values.yaml", FileKind::Values),
            ("chart/values.yml", FileKind::OtherValues),
            ("chart/values-prod.yaml", FileKind::OtherValues),
            ("chart/values.dev.yml", FileKind::OtherValues),
            // Under `templates/`, a values file's name is a template's.
            ("chart/templates/values.yaml", FileKind::Template),
            ("chart/templates/sub/deploy.yaml", FileKind::Template),
            ("chart/files/helpers.tpl", FileKind::Template),
            ("chart/Chart.yaml", FileKind::Plain),
            ("chart/myvalues.yaml", FileKind::Plain),
            ("chart/values.json", FileKind::Plain),
            ("chart/values", FileKind::Plain),
            // A folder named `templates` only counts above the file.
            ("chart/templates", FileKind::Plain),
        ] {
            assert_eq!(FileKind::of(Path::new(path)), kind, "{path}");
        }
    }
}
