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

/// Whether `path` is written plainly: absolute, without a `.` or `..` component, a
/// doubled `/` or a `/` at the end, as a walk joins names onto a canonical folder.
/// The order of such paths is [`cmp_plain`]'s. Never on Windows, where `\` also
/// separates.
pub fn is_plain(path: &Path) -> bool {
    if !cfg!(unix) {
        return false;
    }
    let bytes = path.as_os_str().as_encoded_bytes();
    let Some(rest) = bytes.strip_prefix(b"/") else {
        return false;
    };
    rest.is_empty()
        || rest
            .split(|&byte| byte == b'/')
            .all(|part| !matches!(part, b"" | b"." | b".."))
}

/// Two [plain](is_plain) paths in the order of [`Path::cmp`] (component by
/// component), compared as bytes with `/` before every other byte: no component
/// parsing, which made sorting a run's files a serial step of the walk.
pub fn cmp_plain(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (a, b) = (
        a.as_os_str().as_encoded_bytes(),
        b.as_os_str().as_encoded_bytes(),
    );
    let rank = |byte: u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(at) => rank(a[at]).cmp(&rank(b[at])),
        None => a.len().cmp(&b.len()),
    }
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

/// Where a path leads once its links are followed, as far as the folder it must
/// stay in lets tether look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confined {
    /// The path, links resolved, inside the folder; it may not exist.
    Inside(PathBuf),
    /// It leaves the folder: by an absolute path, by `..`, or through a link.
    Outside,
    /// More than [`MAX_LINKS`] links were followed (a loop).
    Loop,
}

/// Links followed at most while resolving one path, as Linux follows at most 40.
pub const MAX_LINKS: usize = 40;

/// Where `path` (absolute, or relative to the working directory) leads when it must
/// stay in the folder `top`: resolved one component at a time from `top`, each link
/// read and followed, `..` taken after the link before it. Nothing outside `top` is
/// ever looked at (no `stat`, no `readlink`): the answer is [`Confined::Outside`] as
/// soon as the path leaves, so it is the same whether or not anything exists out
/// there. A path that names `top` other than through `top` as given or canonical
/// (a link above it) counts as outside.
pub fn confine(path: &Path, top: &Path) -> Confined {
    let given = in_working_folder(top);
    let top = absolute(&given);
    let path = in_working_folder(path);
    let Some(rest) = below(&path, &top, &given) else {
        return Confined::Outside;
    };
    let mut pending: std::collections::VecDeque<std::ffi::OsString> = rest.into();
    let mut current = top.clone();
    let mut links = 0;
    while let Some(name) = pending.pop_front() {
        if name == "." || name.is_empty() {
            continue;
        }
        if name == ".." {
            if current == top {
                return Confined::Outside;
            }
            current.pop();
            continue;
        }
        let next = current.join(&name);
        let is_link = std::fs::symlink_metadata(&next)
            .is_ok_and(|metadata| metadata.file_type().is_symlink());
        if !is_link {
            current = next;
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Confined::Loop;
        }
        let Ok(target) = std::fs::read_link(&next) else {
            return Confined::Outside;
        };
        let target_parts = if target.is_absolute() {
            current = top.clone();
            match below(&target, &top, &given) {
                Some(parts) => parts,
                None => return Confined::Outside,
            }
        } else {
            components(&target)
        };
        for part in target_parts.into_iter().rev() {
            pending.push_front(part);
        }
    }
    Confined::Inside(current)
}

/// `path` joined to the working folder when it is relative.
fn in_working_folder(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The components of `path` below `top` (canonical) or `given` (as written), by
/// their text, `..` kept; `None` when it is below neither.
fn below(path: &Path, top: &Path, given: &Path) -> Option<Vec<std::ffi::OsString>> {
    let rest = path
        .strip_prefix(top)
        .or_else(|_| path.strip_prefix(given))
        .ok()?;
    Some(components(rest))
}

/// The names of a relative path's components (`.` and `..` as names).
fn components(path: &Path) -> Vec<std::ffi::OsString> {
    path.components()
        .filter_map(|component| match component {
            std::path::Component::Normal(name) => Some(name.to_os_string()),
            std::path::Component::ParentDir => Some("..".into()),
            std::path::Component::CurDir => None,
            // An absolute target's root is handled by the caller.
            std::path::Component::RootDir | std::path::Component::Prefix(_) => None,
        })
        .collect()
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

/// A repository with files, folders, a FIFO and links of every kind, and the
/// folder beside it they lead to; the repository's folder as given, through a
/// link above it, and through a link inside it back to itself.
#[cfg(all(test, unix))]
pub(crate) fn confinement_fixture() -> (tempfile::TempDir, [std::path::PathBuf; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let top = base.join("repo");
    std::fs::create_dir_all(top.join("a/b")).unwrap();
    std::fs::create_dir_all(base.join("elsewhere")).unwrap();
    std::fs::write(top.join("a/b/x.yaml"), "x: 1\n").unwrap();
    std::fs::write(top.join("a/y.yaml"), "y: 2\n").unwrap();
    std::fs::write(base.join("elsewhere/secret.yaml"), "s: 3\n").unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, top.join("fifo"), rustix::fs::Mode::RUSR).unwrap();
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, top.join(at)).unwrap();
    link("a/b", "to-b");
    link("a/y.yaml", "to-y");
    link("../elsewhere", "out");
    link("../elsewhere/secret.yaml", "out-file");
    link("../missing", "out-missing");
    link("loop", "loop");
    link(top.join("a").to_str().unwrap(), "absolute-in");
    link("missing/../../elsewhere", "through-missing");
    link("../repo", "itself");
    // The repository as given, through a link above it (a home folder that
    // is a link), and through a link inside it back to itself: the walk
    // decides for the last two, which `confine` compares with the canonical
    // name.
    let linked = base.join("linked");
    std::os::unix::fs::symlink(&top, &linked).unwrap();
    let itself = top.join("itself");
    (dir, [top, linked, itself])
}

#[cfg(test)]
mod tests {
    use super::{Confined, FileKind, cmp_plain, confine, confinement_fixture, is_plain};
    use std::path::Path;

    #[test]
    fn plain_paths_are_absolute_without_dots_or_empty_components() {
        for plain in ["/", "/a", "/a/b.yaml", "/a/.hidden/b", "/a/..b/c"] {
            assert!(is_plain(Path::new(plain)), "{plain}");
        }
        for not in [
            "", "a/b", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..",
        ] {
            assert!(!is_plain(Path::new(not)), "{not}");
        }
    }

    proptest::proptest! {
        /// Byte order with `/` first is the order of components.
        #[test]
        fn plain_paths_compare_as_their_components_do(
            a in proptest::collection::vec("[ab.\\-_~é]{1,3}", 0..4),
            b in proptest::collection::vec("[ab.\\-_~é]{1,3}", 0..4),
        ) {
            let path = |parts: &[String]| format!("/{}", parts.join("/"));
            let (a, b) = (path(&a), path(&b));
            let (a, b) = (Path::new(&a), Path::new(&b));
            proptest::prop_assume!(is_plain(a) && is_plain(b));
            proptest::prop_assert_eq!(cmp_plain(a, b), a.cmp(b));
        }
    }

    /// Links inside the folder are followed; a path that leaves it, by `..`, an
    /// absolute name or a link, is outside whether or not its target exists.
    #[cfg(unix)]
    #[test]
    fn confine_follows_links_inside_and_stops_at_the_edge() {
        let (_dir, [top, ..]) = confinement_fixture();
        let inside = |path: &str| Confined::Inside(top.join(path));
        assert_eq!(
            confine(&top.join("to-b/x.yaml"), &top),
            inside("a/b/x.yaml")
        );
        assert_eq!(confine(&top.join("to-b/../c"), &top), inside("a/c"));
        assert_eq!(confine(&top.join("absolute-in/b"), &top), inside("a/b"));
        assert_eq!(confine(&top.join("not/there"), &top), inside("not/there"));
        for outside in [
            "out",
            "out/x",
            "out-missing/x",
            "a/../../elsewhere",
            "../repo/a",
        ] {
            assert_eq!(
                confine(&top.join(outside), &top),
                Confined::Outside,
                "{outside}"
            );
        }
        assert_eq!(confine(Path::new("/etc/passwd"), &top), Confined::Outside);
        assert_eq!(confine(&top.join("loop/x"), &top), Confined::Loop);
    }

    /// The folder confined to is resolved on each call: a repository moved away
    /// and a link put in its place is followed to where the link now leads.
    #[cfg(unix)]
    #[test]
    fn confine_sees_a_folder_replaced_by_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let top = base.join("repo");
        std::fs::create_dir_all(top.join("a")).unwrap();
        assert_eq!(
            confine(&top.join("a/x"), &top),
            Confined::Inside(top.join("a/x"))
        );
        std::fs::rename(&top, base.join("old")).unwrap();
        std::fs::create_dir_all(base.join("real/a")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), &top).unwrap();
        assert_eq!(
            confine(&top.join("a/x"), &top),
            Confined::Inside(base.join("real/a/x"))
        );
    }

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
