//! `tether check --fix` and `--diff`, built as ruff builds fixes: rules attach a
//! [`Fix`] (edits, applied together) to their findings; the fixer applies the safe
//! fixes that do not overlap, checks the file again, and repeats until nothing is
//! left to fix or [`MAX_ROUNDS`] rounds have run (a rule whose fixes keep coming then
//! "does not converge", and the file is left as it was).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::check::{check_bytes, ConfigSource, Mode};
use crate::config::Config;
use crate::diagnostic::{Applicability, Diagnostic, Edit};

/// Rounds of fixing one file before tether gives up on it.
pub const MAX_ROUNDS: usize = 50;

/// What `--fix` did, or would do, to the files of a run.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct FixReport {
    /// The files a fix changes, sorted by path.
    pub files: Vec<FixedFile>,
    /// Files that could not be fixed (unreadable, not UTF-8, not converging, not
    /// written), with why.
    pub failures: Vec<String>,
    /// Files looked at.
    pub checked: usize,
}

/// One file's fixes.
#[derive(Debug)]
#[non_exhaustive]
pub struct FixedFile {
    /// As the run shows it.
    pub path: PathBuf,
    /// The text before.
    pub before: String,
    /// The text after every fix.
    pub after: String,
    /// Fixes applied, per rule.
    pub fixes: BTreeMap<String, usize>,
}

impl FixReport {
    /// How many fixes were applied in all.
    pub fn count(&self) -> usize {
        self.files.iter().flat_map(|file| file.fixes.values()).sum()
    }

    /// Unified diffs of every changed file, as `--diff` prints them.
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for file in &self.files {
            let shown = file.path.display().to_string();
            out.push_str(
                &similar::TextDiff::from_lines(&file.before, &file.after)
                    .unified_diff()
                    .context_radius(2)
                    .header(&format!("a/{shown}"), &format!("b/{shown}"))
                    .to_string(),
            );
        }
        out
    }
}

/// Applies the safe fixes of `diagnostics` that do not overlap an earlier one;
/// returns the new text and the fixes applied per rule.
pub fn apply(text: &str, diagnostics: &[Diagnostic]) -> (String, BTreeMap<String, usize>) {
    let mut fixes: Vec<(&str, &[Edit])> = diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let fix = diagnostic.fix.as_ref()?;
            (fix.applicability == Applicability::Safe && !fix.edits.is_empty())
                .then_some((diagnostic.rule.as_str(), fix.edits.as_slice()))
        })
        .collect();
    fixes.sort_by_key(|(_, edits)| (edits[0].range.start, edits[0].range.end));
    let mut chosen: Vec<&Edit> = Vec::new();
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    for (rule, edits) in fixes {
        let fits = edits.iter().all(|edit| {
            edit.range.start <= edit.range.end
                && edit.range.end <= text.len()
                && text.is_char_boundary(edit.range.start)
                && text.is_char_boundary(edit.range.end)
                // Closed intervals apart: touching edits wait for the next round.
                && chosen.iter().all(|other| {
                    edit.range.end < other.range.start || other.range.end < edit.range.start
                })
        });
        if fits {
            chosen.extend(edits.iter());
            *applied.entry(rule.to_string()).or_default() += 1;
        }
    }
    chosen.sort_by_key(|edit| (edit.range.start, edit.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in chosen {
        out.push_str(&text[at..edit.range.start]);
        out.push_str(&edit.content);
        at = edit.range.end;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// Fixes one file's text until nothing is left to fix: the new text and the fixes
/// per rule, or why it was left alone.
pub fn fix_text(
    config: &Config,
    relative: &Path,
    text: &str,
) -> Result<(String, BTreeMap<String, usize>), String> {
    let mut current = text.to_string();
    let mut total: BTreeMap<String, usize> = BTreeMap::new();
    let map = comment_map_signature(relative, text);
    // Lines whose `comment-indentation` fix would change which key a comment
    // documents: that finding needs a person, and stays. (Fixes never add or remove
    // a line, so a line number holds across rounds.)
    let mut held: Vec<usize> = Vec::new();
    let line_of = |text: &str, offset: usize| text[..offset.min(text.len())].matches('\n').count();
    for _ in 0..MAX_ROUNDS {
        let (_, mut diagnostics) =
            check_bytes(config, relative, current.as_bytes().to_vec(), Mode::Lazy);
        diagnostics.retain(|diagnostic| {
            diagnostic.rule != "comment-indentation"
                || !held.contains(&line_of(&current, diagnostic.range.start))
        });
        let (mut next, mut applied) = apply(&current, &diagnostics);
        if applied.is_empty() {
            return Ok((current, total));
        }
        if comment_map_signature(relative, &next) != map {
            // Keep the other fixes, then add the indentation fixes one by one, each
            // only if the map still holds with it.
            let (mut accepted, moves): (Vec<Diagnostic>, Vec<Diagnostic>) = diagnostics
                .into_iter()
                .partition(|diagnostic| diagnostic.rule != "comment-indentation");
            for candidate in moves {
                if candidate.fix.is_none() {
                    continue;
                }
                accepted.push(candidate);
                let (trial, _) = apply(&current, &accepted);
                if comment_map_signature(relative, &trial) != map {
                    if let Some(refused) = accepted.pop() {
                        held.push(line_of(&current, refused.range.start));
                    }
                }
            }
            (next, applied) = apply(&current, &accepted);
            if applied.is_empty() {
                return Ok((current, total));
            }
            if comment_map_signature(relative, &next) != map {
                return Err("a fix would change which key a comment documents; the file was left as it was (please report it)".into());
            }
        }
        for (rule, count) in applied {
            *total.entry(rule).or_default() += count;
        }
        current = next;
    }
    let (_, diagnostics) = check_bytes(config, relative, current.as_bytes().to_vec(), Mode::Lazy);
    let mut rules: Vec<&str> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.fix.is_some())
        .map(|diagnostic| diagnostic.rule.as_str())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    Err(format!(
        "fixes of {} did not converge after {MAX_ROUNDS} rounds; the file was left as it was (please report it)",
        rules.join(", ")
    ))
}

/// A file's comment map with its whitespace and columns left out: what a fix must
/// keep (which comment documents which key, in what words).
fn comment_map_signature(relative: &Path, text: &str) -> Vec<String> {
    crate::yaml::pipeline::model_bytes(relative, text.as_bytes().to_vec())
        .to_string()
        .lines()
        .map(|line| {
            let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            // `LINE:COLUMN key …`: the column moves with the whitespace.
            let rest = squeezed.trim_start_matches(|c: char| c.is_ascii_digit());
            match rest.strip_prefix(':') {
                Some(column) if rest.len() < squeezed.len() => column
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .to_string(),
                _ => squeezed,
            }
        })
        .collect()
}

/// Fixes the files under `paths` as `tether check` would check them; writes them when
/// `write` (`--fix`), else only says what would change (`--diff`). Files are written
/// by rename beside themselves, and never through a link.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("values.yaml"), "replicas: 2 #two\n").unwrap();
/// let config = tether::Config::from_toml_in("", dir.path()).unwrap();
/// let report = tether::fix_paths(tether::ConfigSource::One(config), &[dir.path()], false).unwrap();
/// assert_eq!(report.files[0].after, "replicas: 2  # two\n");
/// ```
pub fn fix_paths<P: AsRef<Path>>(
    configs: ConfigSource,
    paths: &[P],
    write: bool,
) -> Result<FixReport, crate::error::Error> {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let resolver = configs.resolver()?;
    let walked = crate::walk::files(&resolver, &inputs);
    // A file named through a link is checked where the link points; it is never
    // written.
    let linked: Vec<PathBuf> = inputs
        .iter()
        .filter(|input| {
            std::fs::symlink_metadata(input).is_ok_and(|metadata| metadata.file_type().is_symlink())
        })
        .map(|input| crate::paths::absolute(input))
        .collect();
    let mut report = FixReport {
        checked: walked.files.len(),
        failures: walked
            .bad_inputs
            .into_iter()
            .chain(
                walked
                    .unreadable
                    .into_iter()
                    .map(|(path, message)| format!("{}: {message}", path.display())),
            )
            .collect(),
        ..FixReport::default()
    };
    let outcomes: Vec<Result<Option<FixedFile>, String>> = walked
        .files
        .par_iter()
        .map(|file| {
            let named = |message: String| format!("{}: {message}", file.display.display());
            if write && linked.contains(&file.absolute) {
                return Err(named(
                    "named through a link; tether --fix writes only regular files".into(),
                ));
            }
            let bytes = crate::source::read_regular(&file.absolute, crate::source::MAX_FILE_BYTES)
                .map_err(|error| named(error.to_string()))?;
            if bytes.len() > crate::source::MAX_FILE_BYTES {
                return Ok(None);
            }
            // Only text tether can give back byte for byte.
            let Ok(text) = String::from_utf8(bytes) else {
                return Ok(None);
            };
            if text.contains('\0') {
                return Ok(None);
            }
            let (after, fixes) = fix_text(&file.config, &file.relative, &text).map_err(named)?;
            if after == text {
                return Ok(None);
            }
            if write {
                write_beside(&file.absolute, &after).map_err(|error| named(error.to_string()))?;
            }
            Ok(Some(FixedFile {
                path: file.display.clone(),
                before: text,
                after,
                fixes,
            }))
        })
        .collect();
    for outcome in outcomes {
        match outcome {
            Ok(Some(file)) => report.files.push(file),
            Ok(None) => {}
            Err(message) => report.failures.push(message),
        }
    }
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// Replaces the regular file at `path` with `text`: written to a new file in the same
/// folder, with the old one's permissions, then renamed over it. A link, or anything
/// but a regular file, is refused.
fn write_beside(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let metadata = std::fs::symlink_metadata(path)?;
    if !metadata.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a link?); tether writes only regular files",
        ));
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::Builder::new()
        .prefix(".tether-fix-")
        .tempfile_in(folder)?;
    temporary.write_all(text.as_bytes())?;
    temporary
        .as_file()
        .set_permissions(metadata.permissions())?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}
