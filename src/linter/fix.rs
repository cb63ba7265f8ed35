//! `tether check --fix` and `--diff`, built as ruff builds fixes: rules attach a
//! [`Fix`] (edits, applied together) to their findings; the fixer applies the safe
//! fixes that do not overlap, checks the file again, and repeats until nothing is
//! left to fix or [`MAX_ROUNDS`] rounds have run (a rule whose fixes keep coming then
//! "does not converge", and the file is left as it was).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diagnostic::{Applicability, Diagnostic, Edit};
use crate::linter::check::ConfigSource;
use crate::linter::file::Mode;
use crate::linter::file::check_bytes_uncapped as check_bytes;
use crate::rules::RuleId;
use crate::settings::config::Config;
use crate::settings::project::Project;

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
    /// Fixes not applied because they would have changed what the file means; their
    /// findings stay for a person.
    pub held: Vec<HeldFix>,
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
const CHANGES_DATA: &str = "it would change the file's data (a comment would become content, or content a comment); fix it by hand";

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
    let mut fixes: Vec<(RuleId, &[Edit])> = diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let fix = diagnostic.fix.as_ref()?;
            (fix.applicability == Applicability::Safe && !fix.edits.is_empty())
                .then_some((diagnostic.rule, fix.edits.as_slice()))
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

/// One file's fixes: the new text, the fixes applied per rule, and the fixes held
/// (as 0-based line and rule).
pub struct FixedText {
    pub text: String,
    pub fixes: BTreeMap<String, usize>,
    pub held: Vec<(usize, RuleId)>,
}

/// Fixes one file's text until nothing is left to fix, or says why it was left alone.
///
/// Two guards keep a fix honest. The comment map: a `comment-indentation` fix that
/// would change which key a comment documents is held (that finding needs a person).
/// The data: after every round the file, read as YAML by a second parser with its
/// comments left out (see [`crate::yaml::data`]), must mean what it meant before;
/// a round that would change it is applied a fix at a time, and a fix that changes
/// the data is held and said.
// The entry point of the fuzz targets (`helm_tether::internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn fix_text(config: &Config, relative: &Path, text: &str) -> Result<FixedText, String> {
    fix_text_in(config, &Project::unattached(config), relative, text)
}

/// [`fix_text`] for a file of a run, with the run's state of its repository.
pub(crate) fn fix_text_in(
    config: &Config,
    project: &Project,
    relative: &Path,
    text: &str,
) -> Result<FixedText, String> {
    let mut current = text.to_string();
    let mut total: BTreeMap<String, usize> = BTreeMap::new();
    let map = comment_map_signature(relative, text);
    let data = crate::yaml::data::data_of(relative, text);
    // Findings whose fix is held, by line and rule. (Fixes never add or remove a
    // line, so a line number holds across rounds.)
    let mut held_moves: Vec<usize> = Vec::new();
    let mut held_data: Vec<(usize, RuleId)> = Vec::new();
    // The same, to look up per finding in constant time.
    let mut held_set: std::collections::HashSet<(usize, RuleId)> = std::collections::HashSet::new();
    for _ in 0..MAX_ROUNDS {
        let (_, mut diagnostics) = check_bytes(
            config,
            project,
            relative,
            current.as_bytes().to_vec(),
            Mode::Lazy,
        );
        let lines = Lines::of(&current);
        diagnostics.retain(|diagnostic| {
            let line = lines.line_of(diagnostic.range.start);
            let moves_held =
                diagnostic.rule == RuleId::CommentIndentation && held_moves.contains(&line);
            let data_held = held_set.contains(&(line, diagnostic.rule));
            !moves_held && !data_held
        });
        let (mut next, mut applied) = apply(&current, &diagnostics);
        if applied.is_empty() {
            return Ok(FixedText {
                text: current,
                fixes: total,
                held: held_data,
            });
        }
        if crate::yaml::data::data_of(relative, &next) != data {
            let (accepted, held) = keep_data(relative, &current, diagnostics, &data);
            held_set.extend(held.iter().cloned());
            held_data.extend(held);
            diagnostics = accepted;
            (next, applied) = apply(&current, &diagnostics);
            if applied.is_empty() {
                return Ok(FixedText {
                    text: current,
                    fixes: total,
                    held: held_data,
                });
            }
        }
        if comment_map_signature(relative, &next) != map {
            let accepted = keep_comment_map(relative, &current, diagnostics, &map, |refused| {
                held_moves.push(lines.line_of(refused.range.start));
            });
            (next, applied) = apply(&current, &accepted);
            if applied.is_empty() {
                return Ok(FixedText {
                    text: current,
                    fixes: total,
                    held: held_data,
                });
            }
            if comment_map_signature(relative, &next) != map {
                return Err("a fix would change which key a comment documents; the file was left as it was (please report it)".into());
            }
            if crate::yaml::data::data_of(relative, &next) != data {
                return Err("fixes would change the file's data; the file was left as it was (please report it)".into());
            }
        }
        for (rule, count) in applied {
            *total.entry(rule).or_default() += count;
        }
        current = next;
    }
    Err(not_converged(config, project, relative, &current))
}

/// The fixes of `diagnostics` that keep the comment map `map`: every fix but the
/// indentation fixes, then those one by one, each only if the map still holds with
/// it; `refused` hears of each one left out.
fn keep_comment_map(
    relative: &Path,
    current: &str,
    diagnostics: Vec<Diagnostic>,
    map: &[String],
    mut refused: impl FnMut(&Diagnostic),
) -> Vec<Diagnostic> {
    let (mut accepted, moves): (Vec<Diagnostic>, Vec<Diagnostic>) = diagnostics
        .into_iter()
        .partition(|diagnostic| diagnostic.rule != RuleId::CommentIndentation);
    for candidate in moves {
        if candidate.fix.is_none() {
            continue;
        }
        accepted.push(candidate);
        let (trial, _) = apply(current, &accepted);
        if comment_map_signature(relative, &trial) != map {
            if let Some(candidate) = accepted.pop() {
                refused(&candidate);
            }
        }
    }
    accepted
}

/// The error of fixes that never settle: which rules still had fixes to apply.
fn not_converged(config: &Config, project: &Project, relative: &Path, current: &str) -> String {
    let (_, diagnostics) = check_bytes(
        config,
        project,
        relative,
        current.as_bytes().to_vec(),
        Mode::Lazy,
    );
    let mut rules: Vec<&str> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.fix.is_some())
        .map(|diagnostic| diagnostic.rule.name())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    format!(
        "fixes of {} did not converge after {MAX_ROUNDS} rounds; the file was left as it was (please report it)",
        rules.join(", ")
    )
}

/// Where a text's lines start, to turn offsets into lines in logarithmic time.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Lines {
        Lines(memchr::memchr_iter(b'\n', text.as_bytes()).collect())
    }

    /// 0-based line of `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.0.partition_point(|&newline| newline < offset)
    }
}

/// Fixes tried one at a time, at most, when a round would change a file's data.
const MAX_TRIALS: usize = 256;

/// Adds the fixes of `diagnostics` one at a time, keeping each with which `text`
/// still has `data`: the findings kept, and the (0-based line, rule) of those held.
fn keep_data(
    relative: &Path,
    text: &str,
    diagnostics: Vec<Diagnostic>,
    data: &crate::yaml::data::Data,
) -> (Vec<Diagnostic>, Vec<(usize, RuleId)>) {
    let mut accepted: Vec<Diagnostic> = Vec::new();
    let mut held = Vec::new();
    let lines = Lines::of(text);
    let line_of = |offset: usize| lines.line_of(offset);
    let candidates: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| d.fix.is_some())
        .collect();
    // Each trial reads the whole file again: past this many, the round's fixes are
    // all held rather than tried one by one (time stays linear in the file).
    if candidates.len() > MAX_TRIALS {
        let held = candidates
            .iter()
            .map(|candidate| (line_of(candidate.range.start), candidate.rule))
            .collect();
        return (Vec::new(), held);
    }
    for candidate in candidates {
        let line = line_of(candidate.range.start);
        let rule = candidate.rule;
        accepted.push(candidate);
        let (trial, _) = apply(text, &accepted);
        if crate::yaml::data::data_of(relative, &trial) != *data {
            accepted.pop();
            held.push((line, rule));
        }
    }
    (accepted, held)
}

/// A file's comment map with its whitespace and columns left out: what a fix must
/// keep (which comment documents which key, in what words).
fn comment_map_signature(relative: &Path, text: &str) -> Vec<String> {
    crate::yaml::model::FileModel::from_bytes(relative, text.as_bytes().to_vec())
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
/// let config = helm_tether::Config::from_toml_in("", dir.path()).unwrap();
/// let report = helm_tether::fix_paths(config, &[dir.path()], false).unwrap();
/// assert_eq!(report.files[0].after, "replicas: 2  # two\n");
/// ```
pub fn fix_paths<P: AsRef<Path>>(
    configs: impl Into<ConfigSource>,
    paths: &[P],
    write: bool,
) -> Result<FixReport, crate::error::Error> {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let mut resolver = configs.into().resolver()?;
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
    type Outcome = Result<(Option<FixedFile>, Vec<HeldFix>), String>;
    let outcomes: Vec<Outcome> = walked
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
                return Ok((None, Vec::new()));
            }
            // Only text tether can give back byte for byte.
            let Ok(text) = String::from_utf8(bytes) else {
                return Ok((None, Vec::new()));
            };
            if text.contains('\0') {
                return Ok((None, Vec::new()));
            }
            let fixed =
                fix_text_in(&file.config, &file.project, &file.relative, &text).map_err(named)?;
            let held: Vec<HeldFix> = fixed
                .held
                .into_iter()
                .map(|(line, rule)| HeldFix {
                    path: file.display.clone(),
                    line: line + 1,
                    rule,
                    reason: CHANGES_DATA.into(),
                })
                .collect();
            if fixed.text == text {
                return Ok((None, held));
            }
            if write {
                let top = crate::paths::repository_top(&file.config.root)
                    .unwrap_or_else(|| file.config.root.clone());
                write_fixed(&file.absolute, &top, &text, &fixed.text).map_err(named)?;
            }
            Ok((
                Some(FixedFile {
                    path: file.display.clone(),
                    before: text,
                    after: fixed.text,
                    fixes: fixed.fixes,
                }),
                held,
            ))
        })
        .collect();
    for outcome in outcomes {
        match outcome {
            Ok((file, held)) => {
                report.files.extend(file);
                report.held.extend(held);
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

/// Writes a fixed file as ruff and careful editors do. Refused: a file reached
/// through a link that leaves the repository (`top`), a read-only file, and a file
/// whose bytes changed since they were read (`before`). A file with several hard
/// links, another owner or extended attributes is written in place, so every name,
/// the owner and the attributes keep it; any other is replaced by rename beside
/// itself (never half written), with its permissions.
///
/// What is guaranteed about an edit saved while tether writes: the bytes are
/// compared with `before` when the file is opened and again right before the
/// rename, after the new text is written and synced, so any edit saved before that
/// last comparison, in place or by rename, is kept and the fix refused. An edit
/// written into the file in place after it, before the rename, is found after the
/// rename (tether still holds the old file) and put back, and the fix is refused. A
/// save by rename in that last window, between one system call and the next, can
/// still be lost: no file system offers a rename that checks what it replaces.
fn write_fixed(path: &Path, top: &Path, before: &str, after: &str) -> Result<(), String> {
    let canonical = path
        .canonicalize()
        .map_err(|error| format!("cannot resolve the path: {error}"))?;
    let top = crate::paths::absolute(top);
    if !canonical.starts_with(&top) {
        return Err(format!(
            "reached through a link that leaves {}; tether --fix writes only inside the repository",
            top.display()
        ));
    }
    write_checked(path, before, after)
}

#[cfg(unix)]
fn write_checked(path: &Path, before: &str, after: &str) -> Result<(), String> {
    use std::io::{Read, Seek, Write};
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let failed = |error: std::io::Error| format!("not written: {error}");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(failed)?;
    let metadata = file.metadata().map_err(failed)?;
    if !metadata.file_type().is_file() {
        return Err("not a regular file; tether writes only regular files".into());
    }
    if metadata.mode() & 0o222 == 0 {
        return Err("read-only; not written (make it writable to fix it)".into());
    }
    let mut now = Vec::new();
    (&mut file)
        .take(before.len() as u64 + 1)
        .read_to_end(&mut now)
        .map_err(failed)?;
    if now != before.as_bytes() {
        return Err("changed since tether read it; not written (run --fix again)".into());
    }
    let ours = metadata.uid() == crate::sys::effective_uid();
    if metadata.nlink() > 1 || !ours || crate::sys::has_xattrs(&file) {
        file.seek(std::io::SeekFrom::Start(0)).map_err(failed)?;
        file.set_len(0).map_err(failed)?;
        file.write_all(after.as_bytes()).map_err(failed)?;
        return file.sync_all().map_err(failed);
    }
    replace_checked(path, &mut file, before, after)
}

/// Replaces `path`, whose open file is `old`, with `after` by rename, when `old`
/// still holds `before` and is still the file at `path` right before the rename;
/// puts back an edit written into `old` in place between that comparison and the
/// rename.
#[cfg(unix)]
fn replace_checked(
    path: &Path,
    old: &mut std::fs::File,
    before: &str,
    after: &str,
) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let failed = |error: std::io::Error| format!("not written: {error}");
    let changed = || Err("changed since tether read it; not written (run --fix again)".into());
    let temporary = write_temporary(path, after).map_err(failed)?;
    #[cfg(test)]
    hooks::run(hooks::Point::BeforeLastComparison);
    let same_file = std::fs::symlink_metadata(path)
        .and_then(|at_path| Ok((at_path, old.metadata()?)))
        .is_ok_and(|(at_path, open)| at_path.ino() == open.ino() && at_path.dev() == open.dev());
    if !same_file || read_all(old).map_err(failed)? != before.as_bytes() {
        return changed();
    }
    #[cfg(test)]
    hooks::run(hooks::Point::BeforeRename);
    temporary
        .persist(path)
        .map_err(|error| failed(error.error))?;
    let now = read_all(old).map_err(failed)?;
    if now != before.as_bytes() {
        // Written in place between the comparison and the rename: put it back.
        let edited = String::from_utf8_lossy(&now);
        write_beside(path, &edited).map_err(failed)?;
        return Err(
            "changed while tether wrote it; the edit was put back and not fixed (run --fix again)"
                .into(),
        );
    }
    Ok(())
}

/// The whole of an open file, from its start.
#[cfg(unix)]
fn read_all(file: &mut std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek};
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.take(crate::source::MAX_FILE_BYTES as u64 * 2)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(not(unix))]
fn write_checked(path: &Path, before: &str, after: &str) -> Result<(), String> {
    let now = std::fs::read(path).map_err(|error| format!("not written: {error}"))?;
    if now != before.as_bytes() {
        return Err("changed since tether read it; not written (run --fix again)".into());
    }
    write_beside(path, after).map_err(|error| format!("not written: {error}"))
}

/// Replaces the regular file at `path` with `text`: written to a new file in the same
/// folder, with the old one's permissions, then renamed over it. A link, or anything
/// but a regular file, is refused.
fn write_beside(path: &Path, text: &str) -> std::io::Result<()> {
    let metadata = std::fs::symlink_metadata(path)?;
    if !metadata.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a link?); tether writes only regular files",
        ));
    }
    write_temporary(path, text)?
        .persist(path)
        .map_err(|error| error.error)?;
    Ok(())
}

/// `text` in a new file beside `path`, with the permissions of the file at `path`,
/// synced: what a rename puts in its place.
fn write_temporary(path: &Path, text: &str) -> std::io::Result<tempfile::NamedTempFile> {
    use std::io::Write;
    let metadata = std::fs::symlink_metadata(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::Builder::new()
        .prefix(".tether-fix-")
        .tempfile_in(folder)?;
    temporary.write_all(text.as_bytes())?;
    temporary
        .as_file()
        .set_permissions(metadata.permissions())?;
    temporary.as_file().sync_all()?;
    Ok(temporary)
}

/// Points in a write where a test runs code of its own: what another process
/// could do at that moment.
#[cfg(all(test, unix))]
mod hooks {
    use std::cell::RefCell;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Point {
        BeforeLastComparison,
        BeforeRename,
    }

    type Hook = Box<dyn FnMut(Point)>;

    thread_local! {
        static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    }

    pub fn set(hook: Option<Hook>) {
        HOOK.with(|slot| *slot.borrow_mut() = hook);
    }

    pub fn run(point: Point) {
        HOOK.with(|slot| {
            if let Some(hook) = slot.borrow_mut().as_mut() {
                hook(point);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Edit, Fix, Severity};

    fn finding(rule: &str, text: &str, at: &str, content: &str) -> Diagnostic {
        let start = text.find(at).expect("the fixture holds the text");
        Diagnostic {
            rule: RuleId::from_name(rule).expect("a rule's name"),
            severity: Severity::Warning,
            path: "values.yaml".into(),
            range: start..start + at.len(),
            message: String::new(),
            help: None,
            labels: Vec::new(),
            fix: Some(Fix::safe(vec![Edit::replace(
                start..start + at.len(),
                content,
            )])),
        }
    }

    #[test]
    fn a_file_that_changed_since_it_was_read_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values.yaml");
        // Read as `a: 1 #x`; a line appended while the fix ran.
        std::fs::write(&path, "a: 1 #x\nb: 2\n").unwrap();
        let refused = write_checked(&path, "a: 1 #x\n", "a: 1  # x\n").unwrap_err();
        assert!(
            refused.contains("changed since tether read it"),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1 #x\nb: 2\n");
    }

    #[test]
    #[cfg(unix)]
    fn an_edit_saved_while_the_fix_is_written_is_kept() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values.yaml");
        let append = |path: std::path::PathBuf| {
            move || {
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                file.write_all(b"b: 2\n").unwrap();
            }
        };
        // Saved after the fixed text is written, before the last comparison: the
        // fix is refused and the edit kept (the watcher of the issue). Saved in place
        // between the last comparison and the rename: put back.
        let cases = [
            (
                hooks::Point::BeforeLastComparison,
                "changed since tether read it",
            ),
            (hooks::Point::BeforeRename, "the edit was put back"),
        ];
        for (at, said) in cases {
            std::fs::write(&path, "a: 1 #x\n").unwrap();
            let edit = append(path.clone());
            hooks::set(Some(Box::new(move |point| {
                if point == at {
                    edit();
                }
            })));
            let refused = write_checked(&path, "a: 1 #x\n", "a: 1  # x\n").unwrap_err();
            hooks::set(None);
            assert!(refused.contains(said), "{refused}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1 #x\nb: 2\n");
        }
        // No temporary file is left beside it.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }

    #[test]
    fn a_fix_that_changes_data_is_held_and_the_others_kept() {
        let text = "notes: |\n  title\n#Heading\nb: 1 #one\n";
        let data = crate::yaml::data::data_of(Path::new("values.yaml"), text);
        // Indenting the comment makes it the scalar's text; spacing the other keeps data.
        let into_scalar = finding("comment-indentation", text, "#Heading", "  #Heading");
        let spacing = finding("inline-comment-spacing", text, " #one", "  # one");
        let (kept, held) = keep_data(
            Path::new("values.yaml"),
            text,
            vec![into_scalar, spacing],
            &data,
        );
        assert_eq!(held, vec![(2, RuleId::CommentIndentation)]);
        assert_eq!(
            apply(text, &kept).0,
            "notes: |\n  title\n#Heading\nb: 1  # one\n"
        );
    }
}
