//! Globs of one or more configuration files: each set is matched against a path
//! relative to the folder of the file that wrote it, so a `tether.toml` that
//! `extend`s another keeps the other's globs meaning what they say there.

use std::path::{Component, Path, PathBuf};

use globset::GlobSet;

/// Glob sets, each with the path from the folder it was written for to the folder
/// the matched paths are relative to.
#[derive(Debug, Clone, Default)]
pub struct Globs {
    parts: Vec<(PathBuf, GlobSet)>,
}

impl Globs {
    /// Globs written for the folder paths are relative to.
    pub fn new(set: GlobSet) -> Globs {
        Globs {
            parts: vec![(PathBuf::new(), set)],
        }
    }

    /// Whether any glob matches `relative`.
    pub fn is_match(&self, relative: &Path) -> bool {
        self.parts.iter().any(|(prefix, set)| {
            if prefix.as_os_str().is_empty() {
                set.is_match(relative)
            } else {
                set.is_match(normalized(&prefix.join(relative)))
            }
        })
    }

    /// These globs, for paths relative to a folder that is `offset` from the
    /// folder they were written for (`charts/app` for a chart's configuration
    /// extending the repository's).
    pub fn rebased(self, offset: &Path) -> Globs {
        Globs {
            parts: self
                .parts
                .into_iter()
                .map(|(prefix, set)| (normalized(&prefix.join(offset)), set))
                .collect(),
        }
    }

    /// Adds `other`'s globs.
    pub fn extend(&mut self, other: Globs) {
        self.parts.extend(other.parts);
    }
}

/// `a/../b` as `b`: lexically, as globs see paths (a `..` with nothing left to
/// undo stays).
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(glob: &str) -> GlobSet {
        let mut builder = globset::GlobSetBuilder::new();
        builder.add(
            globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .unwrap(),
        );
        builder.build().unwrap()
    }

    #[test]
    fn rebased_globs_match_from_the_new_folder() {
        // The repository's `charts/*/templates/*.yaml`, from `charts/app`.
        let globs = Globs::new(set("charts/*/templates/*.yaml")).rebased(Path::new("charts/app"));
        assert!(globs.is_match(Path::new("templates/a.yaml")));
        assert!(!globs.is_match(Path::new("values.yaml")));
        // Written in a sibling folder, `shared/`, for `../app`.
        let globs = Globs::new(set("../app/*.yaml")).rebased(Path::new("../x/../app"));
        assert!(globs.is_match(Path::new("x.yaml")));
        assert_eq!(
            normalized(Path::new("../a/./b/../c")),
            PathBuf::from("../a/c")
        );
    }
}
