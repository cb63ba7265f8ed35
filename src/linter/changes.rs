//! What changed since a revision, as git says: the files added, modified, renamed or
//! copied between the revision's merge base and the working tree (untracked files git
//! does not ignore included), and the lines of each that changed. `check
//! --changed-since REV` checks only those files; `--changed-lines` keeps only the
//! findings on changed lines, to adopt tether in a large repository gradually.

use crate::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::ChangesError;
use crate::git::git;

/// The changed files (absolute paths) and, per file, its changed lines (0-based,
/// half-open ranges); `None` when the whole file is new.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    files: HashMap<PathBuf, Option<Vec<Range<usize>>>>,
}

impl Changes {
    /// What changed in the repository holding `folder` since `revision`'s merge base
    /// with `HEAD`.
    pub fn since(folder: &Path, revision: &str) -> Result<Changes, ChangesError> {
        if revision.starts_with('-') {
            return Err(ChangesError::OptionLike {
                revision: revision.into(),
            });
        }
        let top = run(folder, &["rev-parse", "--show-toplevel"])?;
        let top = PathBuf::from(top.trim());
        let base = merge_base(folder, revision)?;
        let mut changes = Changes::default();
        let names = run(
            &top,
            &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--name-only",
                "-z",
                "-M",
                "--diff-filter=AMRCT",
                &base,
            ],
        )?;
        let untracked = run(&top, &["ls-files", "-z", "--others", "--exclude-standard"])?;
        for name in untracked.split('\0').filter(|name| !name.is_empty()) {
            changes.files.insert(top.join(name), None);
        }
        for name in names.split('\0').filter(|name| !name.is_empty()) {
            changes
                .files
                .entry(top.join(name))
                .or_insert(Some(Vec::new()));
        }
        // The new side of every hunk, for the files that existed at the base.
        // What the repository's attributes and the user's configuration could change
        // about the output is fixed here: no external diff or text conversion is run
        // (`diff.external`, a `textconv` driver), every file is text (`*.yaml
        // -diff` in a committed `.gitattributes` would hide its lines), and the
        // prefixes are `a/` and `b/` whatever `diff.noprefix` says.
        let diff = run(
            &top,
            &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--text",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                "-U0",
                "--no-color",
                "-M",
                &base,
            ],
        )?;
        let mut current: Option<PathBuf> = None;
        for line in diff.lines() {
            if let Some(name) = line.strip_prefix("+++ b/") {
                current = Some(top.join(name));
            } else if line.starts_with("+++ ") {
                current = None;
            } else if let (Some(file), Some(hunk)) = (&current, line.strip_prefix("@@ ")) {
                if let (Some(range), Some(Some(lines))) =
                    (new_side(hunk), changes.files.get_mut(file))
                {
                    lines.push(range);
                }
            }
        }
        Ok(changes)
    }

    /// Every path (absolute) added, modified, deleted, renamed (both names) or copied
    /// since `revision`'s merge base with `HEAD`, untracked files included: what
    /// `tether idem --changed-since` decides which targets run from.
    #[cfg_attr(not(unix), allow(dead_code))] // Only `idem`, which is Unix-only, asks.
    pub fn paths_since(folder: &Path, revision: &str) -> Result<Vec<PathBuf>, ChangesError> {
        if revision.starts_with('-') {
            return Err(ChangesError::OptionLike {
                revision: revision.into(),
            });
        }
        let top = PathBuf::from(run(folder, &["rev-parse", "--show-toplevel"])?.trim());
        let base = merge_base(folder, revision)?;
        let names = run(
            &top,
            &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--name-only",
                "-z",
                "--no-renames",
                &base,
            ],
        )?;
        let untracked = run(&top, &["ls-files", "-z", "--others", "--exclude-standard"])?;
        Ok(names
            .split('\0')
            .chain(untracked.split('\0'))
            .filter(|name| !name.is_empty())
            .map(|name| top.join(name))
            .collect())
    }

    /// Whether the file changed.
    pub fn contains(&self, absolute: &Path) -> bool {
        self.files.contains_key(absolute)
    }

    /// Whether any of the 0-based lines `lines` of the file changed.
    pub fn touches(&self, absolute: &Path, lines: Range<usize>) -> bool {
        match self.files.get(absolute) {
            None => false,
            Some(None) => true,
            Some(Some(hunks)) => hunks
                .iter()
                .any(|hunk| hunk.start < lines.end.max(lines.start + 1) && lines.start < hunk.end),
        }
    }
}

/// The merge base of `revision` and `HEAD`; in a shallow clone that lacks it, an
/// error that says to fetch more history.
fn merge_base(folder: &Path, revision: &str) -> Result<String, ChangesError> {
    match run(folder, &["merge-base", revision, "HEAD"]) {
        Ok(base) => Ok(base.trim().to_string()),
        Err(error) => {
            let shallow = run(folder, &["rev-parse", "--is-shallow-repository"])
                .is_ok_and(|answer| answer.trim() == "true");
            let revision = revision.to_string();
            Err(if shallow {
                ChangesError::Shallow { revision }
            } else {
                ChangesError::NoMergeBase {
                    revision,
                    source: Box::new(error),
                }
            })
        }
    }
}

/// The new side of a hunk header `-a,b +c,d @@`: lines `c-1 .. c-1+d` (0-based); a
/// deletion (`d = 0`) marks the line it happened before.
fn new_side(hunk: &str) -> Option<Range<usize>> {
    let plus = hunk.split_whitespace().find(|part| part.starts_with('+'))?;
    let mut numbers = plus[1..].split(',');
    let start: usize = numbers.next()?.parse().ok()?;
    let count: usize = numbers.next().map_or(Some(1), |count| count.parse().ok())?;
    let first = start.saturating_sub(1);
    Some(if count == 0 {
        first..first + 1
    } else {
        first..first + count
    })
}

fn run(folder: &Path, args: &[&str]) -> Result<String, ChangesError> {
    let output = git(folder)
        .args(args)
        .output()
        .map_err(|error| ChangesError::NoGit {
            message: error.to_string(),
        })?;
    if !output.status.success() {
        return Err(ChangesError::Git {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_headers() {
        assert_eq!(new_side("-3,2 +3,4 @@"), Some(2..6));
        assert_eq!(new_side("-3 +3 @@ key:"), Some(2..3));
        assert_eq!(new_side("-7,2 +6,0 @@"), Some(5..6));
    }
}
