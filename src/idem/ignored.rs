//! Which new files git would not ignore, the same way in an overlay and in a copy:
//! the `.gitignore` (and `.ignore`) files of the tree the command left, the user's
//! repository's `.git/info/exclude` and the global excludes file. One function, so
//! the two sandboxes cannot disagree on a file in a folder `info/exclude` names.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The ignore files a folder holds, parsed.
pub type IgnoreFiles<'a> = dyn FnMut(&Path) -> Vec<Gitignore> + 'a;

/// Of `paths` (new in the tree, relative to its top), those the folders' ignore
/// files (`ignore_files` reads the ones of a folder, as the tree has them now), the
/// repository's `info/exclude` (in `repository`, the user's tree) and the global
/// excludes file do not exclude; nothing under a `.git`.
pub fn not_ignored(
    paths: &BTreeSet<PathBuf>,
    ignore_files: &mut IgnoreFiles<'_>,
    repository: &Path,
) -> BTreeSet<PathBuf> {
    let mut matchers: HashMap<PathBuf, Vec<Gitignore>> = HashMap::new();
    let exclude = {
        let mut builder = GitignoreBuilder::new(repository);
        builder.add(repository.join(".git/info/exclude"));
        builder.build().ok()
    };
    let (global, _) = Gitignore::global();
    paths
        .iter()
        .filter(|path| {
            !path
                .components()
                .any(|component| component.as_os_str() == ".git")
        })
        .filter(|path| {
            for folder in path.ancestors().skip(1) {
                let inside = path.strip_prefix(folder).unwrap_or(path);
                let found = matchers
                    .entry(folder.to_path_buf())
                    .or_insert_with(|| ignore_files(folder));
                for matcher in found.iter() {
                    let matched = matcher.matched_path_or_any_parents(inside, false);
                    if matched.is_ignore() {
                        return false;
                    }
                    if matched.is_whitelist() {
                        return true;
                    }
                }
            }
            for matcher in exclude.iter().chain(std::iter::once(&global)) {
                let matched = matcher.matched_path_or_any_parents(path, false);
                if matched.is_ignore() {
                    return false;
                }
                if matched.is_whitelist() {
                    return true;
                }
            }
            true
        })
        .cloned()
        .collect()
}

/// An ignore file's rules, from its text (at most 1 MiB is read).
pub fn parse(text: &[u8]) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(Path::new(""));
    for line in String::from_utf8_lossy(text).lines() {
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
}

/// The names of the ignore files of a folder.
pub const NAMES: [&str; 2] = [".ignore", ".gitignore"];
