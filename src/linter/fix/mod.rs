//! `tether check --fix` and `--diff`, built as ruff builds fixes: rules attach a
//! [`Fix`] (edits, applied together) to their findings; the fixer applies the safe
//! fixes (and the unsafe ones with `--unsafe-fixes`) that do not overlap, checks the
//! file again, and repeats until nothing is left to fix or [`MAX_ROUNDS`] rounds
//! have run (a rule whose fixes keep coming then "does not converge", and the file
//! is left as it was). `apply` makes one round, `guard` says which fixes keep what
//! the file means, `write` writes the file.

mod apply;
mod diff;
mod guard;
mod work;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::diagnostic::Diagnostic;
use crate::linter::check::ConfigSource;
use crate::linter::file::check_fixable;
use crate::linter::project::Project;
use crate::rules::RuleId;
use crate::settings::config::Config;
pub use apply::apply;
use guard::{Lines, Meaning, comment_map_signature, keep_comment_map, keep_data};
#[cfg(feature = "internals")]
pub use work::fix_work;
use work::worked;

/// Rounds of fixing one file before tether gives up on it.
pub const MAX_ROUNDS: usize = 50;

/// The error of a fixing stopped because its caller no longer wants it (the
/// editor cancelled the request).
pub(crate) const CANCELLED: &str = "cancelled";

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
    /// Fixes not applied because they would have changed what the file means; their
    /// findings stay for a person.
    pub held: Vec<HeldFix>,
    /// Unsafe fixes left in the files, which only `--unsafe-fixes` applies.
    pub unsafe_left: usize,
}

/// How `fix_paths` runs.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct FixOptions {
    /// Write the fixed files (`--fix`); else only say what would change (`--diff`).
    pub write: bool,
    /// Apply the unsafe fixes too (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
}

impl FixOptions {
    /// Writes the fixed files when `write`.
    pub fn write(mut self, write: bool) -> FixOptions {
        self.write = write;
        self
    }

    /// Applies the unsafe fixes too when `unsafe_fixes`.
    pub fn unsafe_fixes(mut self, unsafe_fixes: bool) -> FixOptions {
        self.unsafe_fixes = unsafe_fixes;
        self
    }
}

/// A fix that `--fix` refused to apply.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HeldFix {
    /// As the run shows it.
    pub path: PathBuf,
    /// 1-based line of the finding.
    pub line: usize,
    /// The rule whose fix it is.
    pub rule: RuleId,
    /// Why it was held.
    pub reason: String,
}

impl std::fmt::Display for HeldFix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: the {} fix was not applied: {}",
            self.path.display(),
            self.line,
            self.rule,
            self.reason
        )
    }
}

/// Why a fix is held when it would change the file's data.
const CHANGES_DATA: &str = "it would change the file's data or what Helm renders from it (a comment would become content, or content a comment); fix it by hand";

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
            out.push_str(&diff::unified(
                &file.before,
                &file.after,
                &format!("a/{shown}"),
                &format!("b/{shown}"),
                2,
            ));
        }
        out
    }
}

/// One file's fixes: the new text, the fixes applied per rule, the fixes held (as
/// 0-based line and rule), and how many unsafe fixes are left unapplied.
pub struct FixedText {
    pub text: String,
    pub fixes: BTreeMap<String, usize>,
    pub held: Vec<(usize, RuleId)>,
    pub unsafe_left: usize,
}

/// Fixes one file's text until nothing is left to fix, or says why it was left
/// alone; with `unsafe_fixes`, the unsafe fixes too.
///
/// Two guards keep a fix honest. The comment map: a `comment-indentation` fix that
/// would change which key a comment documents is held (that finding needs a person).
/// What the file means: after every round the file, read as YAML by a second parser
/// with its comments left out (see [`crate::yaml::data`]), and a template's text as
/// Helm renders it with its trim markers, must mean what they meant before; a round
/// that would change either is applied a fix at a time, and a fix that changes one
/// is held and said.
// The entry point of the fuzz targets (`helm_tether::internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn fix_text(
    config: &Config,
    relative: &Path,
    text: &str,
    unsafe_fixes: bool,
) -> Result<FixedText, String> {
    fix_text_in(
        config,
        &Project::unattached(config),
        relative,
        text,
        unsafe_fixes,
        &AtomicBool::new(false),
    )
}

/// One round's text and the fixes it applied per rule.
type Round = (String, BTreeMap<String, usize>);

/// What one file's fixing keeps from round to round.
struct Fixing<'a> {
    relative: &'a Path,
    unsafe_fixes: bool,
    /// Set when the caller no longer wants the result: the guards' trials stop.
    cancelled: &'a AtomicBool,
    /// The text as read, and its comment map and meaning, made when a round first
    /// has a fix to apply (most files of a run have none).
    original: &'a str,
    map: std::cell::OnceCell<Vec<String>>,
    meaning: std::cell::OnceCell<Meaning>,
    /// Findings whose fix is held, by 0-based line (and rule): a fix that would
    /// move a comment to another key, and a fix that changes the
    /// meaning. (Fixes never add or remove a line, so a line holds across rounds.)
    held_moves: crate::collections::HashSet<usize>,
    held: std::collections::BTreeSet<(usize, RuleId)>,
}

impl Fixing<'_> {
    /// The comment map of the text as read.
    fn map(&self) -> &Vec<String> {
        map_as_read(&self.map, self.relative, self.original)
    }

    /// What the text as read means.
    fn meaning(&self) -> &Meaning {
        self.meaning
            .get_or_init(|| Meaning::of(self.relative, self.original))
    }

    /// The next text and the fixes applied to `current` in one round of
    /// `diagnostics`, the fixes held left out; `None` when no fix applies.
    fn round(
        &mut self,
        current: &str,
        mut diagnostics: Vec<Diagnostic>,
    ) -> Result<Option<Round>, String> {
        let (relative, unsafe_fixes) = (self.relative, self.unsafe_fixes);
        let lines = Lines::of(current);
        diagnostics.retain(|diagnostic| {
            let line = lines.line_of(diagnostic.range.start);
            let moves_held = guard::moves_comments(diagnostic) && self.held_moves.contains(&line);
            !moves_held && !self.held.contains(&(line, diagnostic.rule))
        });
        if !diagnostics
            .iter()
            .any(|diagnostic| diagnostic.fix_applies(unsafe_fixes))
        {
            return Ok(None);
        }
        let (mut next, mut applied) = apply(current, &diagnostics, unsafe_fixes);
        if applied.is_empty() {
            return Ok(None);
        }
        if Meaning::of(relative, &next) != *self.meaning() {
            let (accepted, held) = keep_data(
                relative,
                current,
                diagnostics,
                self.meaning(),
                unsafe_fixes,
                self.cancelled,
            );
            self.held.extend(held);
            diagnostics = accepted;
            (next, applied) = apply(current, &diagnostics, unsafe_fixes);
            if applied.is_empty() {
                return Ok(None);
            }
        }
        // Only a fix that moves a comment (as its rule says) can change which key
        // a comment documents: one that changes the spaces inside a line leaves
        // every comment on its line and column, and the data guard above holds a
        // `#` that was not a comment before.
        let moves = diagnostics.iter().any(|diagnostic| {
            diagnostic.fix_applies(unsafe_fixes) && guard::moves_comments(diagnostic)
        });
        if moves && comment_map_signature(relative, &next) != *self.map() {
            let map = map_as_read(&self.map, self.relative, self.original);
            let held_moves = &mut self.held_moves;
            let accepted = keep_comment_map(
                relative,
                current,
                diagnostics,
                map,
                (unsafe_fixes, self.cancelled),
                |refused| {
                    held_moves.insert(lines.line_of(refused.range.start));
                },
            );
            (next, applied) = apply(current, &accepted, unsafe_fixes);
            if applied.is_empty() {
                return Ok(None);
            }
            if comment_map_signature(relative, &next) != *map {
                return Err("a fix would change which key a comment documents; the file was left as it was (please report it)".into());
            }
            if Meaning::of(relative, &next) != *self.meaning() {
                return Err("fixes would change the file's data; the file was left as it was (please report it)".into());
            }
        }
        Ok(Some((next, applied)))
    }
}

/// [`fix_text`] for a file of a run, with the run's state of its repository; ends
/// with [`CANCELLED`] between two rounds (or two of a guard's trials) once
/// `cancelled` is set.
/// The comment map of `original` (the text as read), made once in `cell`: a field
/// of its own, so a round can hold it while it records the moves it holds.
fn map_as_read<'c>(
    cell: &'c std::cell::OnceCell<Vec<String>>,
    relative: &Path,
    original: &str,
) -> &'c Vec<String> {
    cell.get_or_init(|| comment_map_signature(relative, original))
}

pub(crate) fn fix_text_in(
    config: &Config,
    project: &Project,
    relative: &Path,
    text: &str,
    unsafe_fixes: bool,
    cancelled: &AtomicBool,
) -> Result<FixedText, String> {
    let mut current = text.to_string();
    let mut total: BTreeMap<String, usize> = BTreeMap::new();
    let mut fixing = Fixing {
        relative,
        unsafe_fixes,
        cancelled,
        original: text,
        map: std::cell::OnceCell::new(),
        meaning: std::cell::OnceCell::new(),
        held_moves: Default::default(),
        held: Default::default(),
    };
    // One check more than rounds: the last says what never settled.
    let mut round = 0;
    loop {
        if cancelled.load(Ordering::Relaxed) {
            return Err(CANCELLED.into());
        }
        worked(current.len());
        let (_, diagnostics) =
            check_fixable(config, project, relative, current.as_bytes().to_vec());
        // Fixes that `--unsafe-fixes` would apply and this run does not.
        let unsafe_left = diagnostics
            .iter()
            .filter_map(|diagnostic| diagnostic.fix.as_ref())
            .filter(|fix| fix.applies(true) && !fix.applies(unsafe_fixes))
            .count();
        let stuck = (round == MAX_ROUNDS).then(|| not_converged(&diagnostics, unsafe_fixes));
        let Some((next, applied)) = fixing.round(&current, diagnostics)? else {
            return Ok(FixedText {
                text: current,
                fixes: total,
                held: fixing.held.into_iter().collect(),
                unsafe_left,
            });
        };
        if let Some(error) = stuck {
            return Err(error);
        }
        for (rule, count) in applied {
            *total.entry(rule).or_default() += count;
        }
        current = next;
        round += 1;
    }
}

/// The error of fixes that never settle: which rules, in the check after the last
/// round, still had fixes to apply.
fn not_converged(diagnostics: &[Diagnostic], unsafe_fixes: bool) -> String {
    let mut rules: Vec<&str> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.fix_applies(unsafe_fixes))
        .map(|diagnostic| diagnostic.rule.name())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    format!(
        "fixes of {} did not converge after {MAX_ROUNDS} rounds; the file was left as it was (please report it)",
        rules.join(", ")
    )
}

/// Fixes the files under `paths` as `tether check` would check them; writes them when
/// `options` say `write` (`--fix`), else only says what would change (`--diff`). Files are written
/// by rename beside themselves, and never through a link.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("values.yaml"), "replicas: 2 #two\n").unwrap();
/// let config = helm_tether::Config::from_toml_in("", dir.path()).unwrap();
/// let report = helm_tether::fix_paths(config, &[dir.path()], Default::default()).unwrap();
/// assert_eq!(report.files[0].after, "replicas: 2  # two\n");
/// ```
pub fn fix_paths<P: AsRef<Path>>(
    configs: impl Into<ConfigSource>,
    paths: &[P],
    options: FixOptions,
) -> Result<FixReport, crate::error::Error> {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let mut resolver = configs
        .into()
        .resolver(crate::linter::walk::covered(&inputs))?;
    let walked = crate::linter::walk::files(&mut resolver, &inputs);
    // A file named through a link is checked where the link points; it is never
    // written.
    let linked: Vec<PathBuf> = inputs
        .iter()
        .filter(|input| {
            std::fs::symlink_metadata(input).is_ok_and(|metadata| metadata.file_type().is_symlink())
        })
        .map(|input| crate::paths::absolute(input))
        .collect();
    let leaving = write::leaving_links(&inputs);
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
    let outcomes: Vec<FileOutcome> = walked
        .files
        .par_iter()
        .map(|file| fix_file(file, &linked, &leaving, options))
        .collect();
    for outcome in outcomes {
        match outcome {
            Ok((file, held, unsafe_left)) => {
                report.files.extend(file);
                report.held.extend(held);
                report.unsafe_left += unsafe_left;
            }
            Err(message) => report.failures.push(message),
        }
    }
    report
        .held
        .sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// What fixing one file came to: the file if a fix changes it, the fixes held, and
/// the unsafe fixes left; or why it could not be fixed.
type FileOutcome = Result<(Option<FixedFile>, Vec<HeldFix>, usize), String>;

/// Fixes one file of a run; writes it when `options` say so, unless it was named
/// through a link (one of `linked`) or lies where an input's link that leaves its
/// repository leads (below one of `leaving`).
fn fix_file(
    file: &crate::linter::walk::FileToCheck,
    linked: &[PathBuf],
    leaving: &[(PathBuf, PathBuf)],
    options: FixOptions,
) -> FileOutcome {
    let write = options.write;
    let named = |message: String| format!("{}: {message}", file.display().display());
    if write && linked.contains(&file.absolute) {
        return Err(named(
            "named through a link; tether --fix writes only regular files".into(),
        ));
    }
    if let Some((_, top)) = leaving
        .iter()
        .find(|(target, _)| write && file.absolute.starts_with(target))
    {
        return Err(named(format!(
            "reached through a link that leaves {}; tether --fix writes only inside the repository",
            top.display()
        )));
    }
    let bytes = crate::source::read_regular(&file.absolute, crate::source::MAX_FILE_BYTES)
        .map_err(|error| named(error.to_string()))?;
    if bytes.len() > crate::source::MAX_FILE_BYTES {
        return Ok((None, Vec::new(), 0));
    }
    // Only text tether can give back byte for byte.
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok((None, Vec::new(), 0));
    };
    if text.contains('\0') {
        return Ok((None, Vec::new(), 0));
    }
    let fixed = fix_text_in(
        &file.config,
        &file.project,
        file.relative(),
        &text,
        options.unsafe_fixes,
        &AtomicBool::new(false),
    )
    .map_err(named)?;
    let held: Vec<HeldFix> = fixed
        .held
        .into_iter()
        .map(|(line, rule)| HeldFix {
            path: file.display().to_path_buf(),
            line: line + 1,
            rule,
            reason: CHANGES_DATA.into(),
        })
        .collect();
    if fixed.text == text {
        return Ok((None, held, fixed.unsafe_left));
    }
    if write {
        let top = crate::paths::repository_top(&file.config.root)
            .unwrap_or_else(|| file.config.root.clone());
        write::write_fixed(&file.absolute, &top, &text, &fixed.text).map_err(named)?;
    }
    Ok((
        Some(FixedFile {
            path: file.display().to_path_buf(),
            before: text,
            after: fixed.text,
            fixes: fixed.fixes,
        }),
        held,
        fixed.unsafe_left,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fixes `text` as a chart's `values.yaml` with the defaults, cancelled or not.
    fn fixing(text: &str, cancelled: bool) -> Result<FixedText, String> {
        let config = Config::default_for(PathBuf::from("/nonexistent"));
        let project = Project::unattached(&config);
        let relative = Path::new("values.yaml");
        fix_text_in(
            &config,
            &project,
            relative,
            text,
            false,
            &AtomicBool::new(cancelled),
        )
    }

    /// A fixing whose caller cancelled it stops before its next round: the editor's
    /// fix-all of a huge file does not run to its end once the request is cancelled.
    #[test]
    fn a_cancelled_fixing_stops_before_its_next_round() {
        let text = "replicas: 2 #two\n";
        let fixed = fixing(text, false);
        assert_eq!(
            fixed.map(|fixed| fixed.text).as_deref(),
            Ok("replicas: 2  # two\n")
        );
        assert_eq!(fixing(text, true).err().as_deref(), Some(CANCELLED));
    }

    /// A file with nothing to fix is read once, by its check: its comment map and
    /// its data are read only when a round has a fix to apply (they were read for
    /// every file of a `--fix` run).
    #[test]
    fn a_file_with_nothing_to_fix_is_read_once() {
        let text = "# Replicas.\nreplicas: 2  # two\n";
        let before = work::fix_work();
        let fixed = fixing(text, false);
        assert_eq!(fixed.map(|fixed| fixed.fixes.len()), Ok(0));
        assert_eq!(work::fix_work() - before, text.len());
    }
}
