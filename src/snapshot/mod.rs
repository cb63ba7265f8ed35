//! `tether snapshot`: pins which comment documents which key in every template and
//! values file a configuration covers, one `.snap` file per source file.
//!
//! A snapshot holds what a comment map means, not where things sit: for each
//! document, the keys that have comments (path, placement, text), the detached
//! comments (text, and the key they were cut off from) and the free ones (text). It
//! holds no line numbers and no uncommented key, so inserting lines or keys above a
//! key changes nothing, while a comment that moves to another key, changes its text,
//! loses its key or becomes detached is a changed line of the snapshot.
//!
//! ```no_run
//! # fn main() -> Result<(), helm_tether::Error> {
//! let config = helm_tether::Config::discover("charts/kubevirt")?;
//! let report = helm_tether::snapshot::check(&config, &Default::default())?;
//! if !report.passed() {
//!     eprint!("{}", report.render(&helm_tether::Format::Human { color: false }));
//! }
//! # Ok(())
//! # }
//! ```

mod pending;
mod selection;
mod store;

pub(crate) use pending::{accept, pending, reject};
pub use selection::SnapshotOptions;

use selection::{Selection, snapshot_path, source_of};

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use similar::{DiffTag, TextDiff};

use crate::error::Error;
use crate::paths::relative_to;
use crate::report::human::escape_controls;
use crate::report::{Format, github};
use crate::settings::config::Config;
use crate::source::{MAX_FILE_BYTES, read_regular};
use crate::yaml::model::{Comment, FileModel};
use crate::yaml::pipeline::model_bytes_with;

/// What [`check`] or [`update`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnapshotReport {
    /// Source files covered.
    pub files: usize,
    /// Snapshots that differ from their file, files without one, snapshots without a
    /// file; after [`update`], what it had to write or remove, each saying whether
    /// it did ([`SnapshotChange::applied`]).
    pub changes: Vec<SnapshotChange>,
    /// Files that could not be read, snapshots that could not be read or written.
    pub failures: Vec<String>,
    /// Whether the report comes from [`update`].
    pub updated: bool,
    /// The configuration's folder: the paths of [`SnapshotReport::changes`] are
    /// relative to it.
    pub root: PathBuf,
}

/// One snapshot that is not as its source file says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnapshotChange {
    /// The source file, relative to the configuration's folder.
    pub source: PathBuf,
    /// The snapshot file, relative to the configuration's folder.
    pub snapshot: PathBuf,
    /// How it differs.
    pub kind: ChangeKind,
    /// A unified diff from the snapshot to what the file says now.
    pub diff: String,
    /// Where each changed entry is in the source file (1-based line) and what
    /// changed, for annotations.
    pub entries: Vec<(usize, String)>,
    /// The pending snapshot [`check`] wrote for it, relative to the
    /// configuration's folder.
    pub pending: Option<PathBuf>,
    /// Whether [`update`] wrote the snapshot (removed it, for an orphan). False in
    /// a check, and for every change when a failure stopped the writes: the
    /// snapshot on disk is as it was.
    pub applied: bool,
}

/// How a snapshot differs from its source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// The file's comment map is not the snapshot's.
    Changed,
    /// A covered file has no snapshot.
    Missing,
    /// A snapshot names a file that does not exist or is not covered.
    Orphan,
}

impl SnapshotReport {
    /// Whether every covered file has its snapshot, equal to it, and nothing failed.
    pub fn passed(&self) -> bool {
        (self.updated || self.changes.is_empty()) && self.failures.is_empty()
    }

    /// The report as `tether snapshot --format …` prints it: [`Format::Human`] and
    /// [`Format::Concise`] are the same text (a sentence and a diff per change,
    /// without colour), and [`Format::Sarif`] prints the JSON (a snapshot change is a
    /// diff, not a finding at a line).
    pub fn render(&self, format: &Format) -> String {
        match format {
            Format::Human { .. } | Format::Concise { .. } => self.human(),
            Format::Json | Format::Sarif { .. } => self.json(),
            Format::Github { root } => self.github(root, &self.root),
        }
    }

    /// The JSON documented in the book's `snapshot.md`.
    fn json(&self) -> String {
        let kind = |kind: ChangeKind| match kind {
            ChangeKind::Changed => "changed",
            ChangeKind::Missing => "missing",
            ChangeKind::Orphan => "orphan",
        };
        let changes: Vec<serde_json::Value> = self
            .changes
            .iter()
            .map(|change| {
                serde_json::json!({
                    "kind": kind(change.kind),
                    "source": crate::paths::slashed(&change.source),
                    "snapshot": crate::paths::slashed(&change.snapshot),
                    "pending": change.pending.as_deref().map(crate::paths::slashed),
                    "entries": change.entries.iter().map(|(line, message)| {
                        serde_json::json!({ "line": line, "message": message })
                    }).collect::<Vec<_>>(),
                    "diff": change.diff,
                    "applied": change.applied,
                })
            })
            .collect();
        let report = serde_json::json!({
            "passed": self.passed(),
            "updated": self.updated,
            "files": self.files,
            "changes": changes,
            "failures": self.failures,
        });
        serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
    }

    fn human(&self) -> String {
        let mut out = String::new();
        for change in &self.changes {
            let (source, snapshot) = (change.source.display(), change.snapshot.display());
            let next = match &change.pending {
                Some(pending) => format!(
                    "the new one is pending in {}: review it with `tether snapshot --review` (or `--accept`, `--reject`)",
                    pending.display()
                ),
                None => "if the change is meant, run `tether snapshot --update`".to_string(),
            };
            let _ = match (self.updated, change.kind) {
                (true, _) => writeln!(out, "{}", change.update_line()),
                (false, ChangeKind::Changed) => writeln!(
                    out,
                    "{source}: its comment map differs from {snapshot}; {next}"
                ),
                (false, ChangeKind::Missing) if change.pending.is_some() => {
                    writeln!(out, "{source}: no snapshot ({snapshot}); {next}")
                }
                (false, ChangeKind::Missing) => writeln!(
                    out,
                    "{source}: no snapshot ({snapshot}); run `tether snapshot --update` to write it"
                ),
                (false, ChangeKind::Orphan) => writeln!(
                    out,
                    "{snapshot}: a snapshot of {source}, which is not a covered file; run `tether snapshot --update` to remove it"
                ),
            };
            if !self.updated && change.kind == ChangeKind::Changed {
                out.push_str(&escape_controls(&change.diff));
            }
        }
        let plural = |count: usize, one: &str, many: &str| {
            format!("{count} {}", if count == 1 { one } else { many })
        };
        let files = plural(self.files, "file", "files");
        if self.updated {
            let applied = self.changes.iter().filter(|change| change.applied).count();
            let updated = plural(applied, "snapshot", "snapshots");
            let _ = write!(out, "{files}, {updated} updated");
            // Said in the summary too: what was not written is as it was on disk.
            let left = self.changes.len() - applied;
            if left > 0 {
                let _ = write!(
                    out,
                    "; {left} left as {} because of {}",
                    if left == 1 { "it was" } else { "they were" },
                    plural(self.failures.len(), "error", "errors")
                );
            }
            out.push('\n');
            return out;
        }
        // Each kind counted apart, in agreement with its number: a missing snapshot
        // is missing, not different.
        let count = |kind: ChangeKind| {
            self.changes
                .iter()
                .filter(|change| change.kind == kind)
                .count()
        };
        let mut summary = format!(
            "{files}, {}",
            plural(
                count(ChangeKind::Changed),
                "snapshot differs",
                "snapshots differ"
            )
        );
        let missing = count(ChangeKind::Missing);
        if missing > 0 {
            let _ = write!(summary, ", {missing} missing");
        }
        let orphans = count(ChangeKind::Orphan);
        if orphans > 0 {
            let _ = write!(
                summary,
                ", {} without a file",
                plural(orphans, "snapshot", "snapshots")
            );
        }
        let _ = writeln!(out, "{summary}");
        out
    }

    fn github(&self, root: &Path, config_root: &Path) -> String {
        let path = |relative: &Path| {
            let absolute = config_root.join(relative);
            github::property(&crate::paths::slashed(
                absolute.strip_prefix(root).unwrap_or(&absolute),
            ))
        };
        let mut out = String::new();
        for change in &self.changes {
            if self.updated {
                // What `--update` did or did not do, never a finding to fix.
                let _ = writeln!(
                    out,
                    "::notice file={},title=tether snapshot::{}",
                    path(&change.snapshot),
                    github::data(&change.update_line())
                );
                continue;
            }
            match change.kind {
                ChangeKind::Changed => {
                    for (line, message) in &change.entries {
                        let _ = writeln!(
                            out,
                            "::error file={},line={line},title=tether snapshot::{}",
                            path(&change.source),
                            github::data(message)
                        );
                    }
                }
                ChangeKind::Missing => {
                    let _ = writeln!(
                        out,
                        "::error file={},title=tether snapshot::{}",
                        path(&change.source),
                        github::data("no snapshot of this file; run `tether snapshot --update`")
                    );
                }
                ChangeKind::Orphan => {
                    let _ = writeln!(
                        out,
                        "::error file={},title=tether snapshot::{}",
                        path(&change.snapshot),
                        github::data(
                            "a snapshot of a file that is not covered; run `tether snapshot --update`"
                        )
                    );
                }
            }
        }
        for failure in &self.failures {
            let _ = writeln!(
                out,
                "::error title=tether snapshot::{}",
                github::data(failure)
            );
        }
        out
    }
}

impl SnapshotChange {
    /// What [`update`] did with this snapshot, as its line of the report says it:
    /// `wrote …`, `removed …`, or `not written: …` when a failure stopped it.
    fn update_line(&self) -> String {
        let snapshot = self.snapshot.display();
        match (self.applied, self.kind) {
            (true, ChangeKind::Orphan) => format!("removed {snapshot}"),
            (true, _) => format!("wrote {snapshot}"),
            (false, ChangeKind::Orphan) => format!("not removed: {snapshot}"),
            (false, _) => format!("not written: {snapshot}"),
        }
    }
}

/// One line of a snapshot and the source line it stands for.
struct Line {
    text: String,
    source_line: Option<usize>,
}

/// The snapshot text of one file's comment map, as `tether snapshot` writes it:
/// the source path, then per document the commented keys, detached and free
/// comments, without line numbers.
///
/// ```
/// let map = helm_tether::comment_map("examples/kubevirt/templates/kubevirt-cr.yaml").unwrap();
/// let text = helm_tether::snapshot::text(&map);
/// assert!(text.contains("  spec.configuration.evictionStrategy\n    trailing\n      | applies only"));
/// ```
pub fn text(model: &FileModel) -> String {
    lines(model)
        .into_iter()
        .map(|line| line.text + "\n")
        .collect()
}

fn lines(model: &FileModel) -> Vec<Line> {
    let mut out = Vec::new();
    let mut push = |text: String, source_line: Option<usize>| out.push(Line { text, source_line });
    push(
        format!(
            "# tether snapshot of {}",
            escape_controls(&crate::paths::slashed(&model.path))
        ),
        None,
    );
    push(
        "# `tether snapshot --update` writes this file; `tether snapshot` fails when the file's comments say otherwise.".into(),
        None,
    );
    for document in &model.documents {
        let mut header = format!("document {}", document.index);
        if let Some(kind) = &document.kind {
            let _ = write!(header, " {}", escape_controls(kind));
        }
        if let Some(define) = &document.define {
            let _ = write!(header, " define {define:?}");
        }
        if document.recovered {
            header.push_str(" (recovered from indentation)");
        }
        if let Some(branch) = document.branch {
            let _ = write!(header, " ({})", branch.describe());
        }
        push(header, Some(document.lines.start + 1));
        for key in &document.keys {
            if key.comments.is_empty() {
                continue;
            }
            push(
                format!("  {}", escape_controls(&key.path)),
                Some(key.line + 1),
            );
            for attached in &key.comments {
                let comment = &attached.comment;
                push(
                    format!("    {}", attached.placement.as_str()),
                    Some(comment.line + 1),
                );
                push_text(&mut push, "      ", comment);
            }
        }
        for detached in &document.detached {
            let comment = &detached.comment;
            push(
                format!(
                    "  detached, separated from {}",
                    escape_controls(&detached.separated_from)
                ),
                Some(comment.line + 1),
            );
            push_text(&mut push, "    ", comment);
        }
        for comment in &document.free {
            push("  free".to_string(), Some(comment.line + 1));
            push_text(&mut push, "    ", comment);
        }
    }
    out
}

/// A comment's text, a `| ` line per line of it, control characters escaped.
fn push_text(push: &mut impl FnMut(String, Option<usize>), indent: &str, comment: &Comment) {
    for (index, line) in comment.text.split('\n').enumerate() {
        let text = if line.is_empty() {
            format!("{indent}|")
        } else {
            format!("{indent}| {}", escape_controls(line))
        };
        push(text, Some(comment.line + index + 1));
    }
}

/// The snapshot of each selected file, computed, and the snapshots on disk.
struct State {
    /// Relative source path → its snapshot lines.
    expected: BTreeMap<PathBuf, Vec<Line>>,
    /// The selected snapshots and pending snapshots on disk.
    stored: store::Stored,
    failures: Vec<String>,
}

/// Whether a covered file gets a snapshot: templates (as `tether map` reads them)
/// and values files.
fn is_snapshotted(model: &FileModel) -> bool {
    model.is_template || crate::paths::FileKind::of(&model.path).is_values()
}

fn state(config: &Config, selection: &Selection) -> Result<State, Error> {
    let covered = crate::linter::walk::covered_files(config, std::slice::from_ref(&config.root));
    let mut failures = covered.errors;
    let sources: Vec<PathBuf> = covered
        .files
        .into_iter()
        // A folder of its own holds only snapshots; a snapshot folder that is the
        // configuration's own folder (`dir = "."`) holds the chart too.
        .filter(|file| {
            config.snapshot_dir == config.root || !file.starts_with(&config.snapshot_dir)
        })
        .filter(|file| selection.covers(&relative_to(file, &config.root)))
        .collect();
    type Modelled = Result<Option<(PathBuf, Vec<Line>)>, String>;
    let modelled: Vec<Modelled> = sources
        .par_iter()
        .map(|absolute| {
            let relative = relative_to(absolute, &config.root);
            let bytes = read_regular(absolute, MAX_FILE_BYTES)
                .map_err(|error| Error::reading(&relative, error).to_string())?;
            let model = model_bytes_with(&relative, bytes, &config.directives);
            Ok(is_snapshotted(&model).then(|| (relative, lines(&model))))
        })
        .collect();
    let mut expected = BTreeMap::new();
    for result in modelled {
        match result {
            Ok(Some((relative, lines))) => {
                expected.insert(relative, lines);
            }
            Ok(None) => {}
            Err(message) => failures.push(message),
        }
    }
    let mut stored = store::Stored::default();
    store::refuse_symlinks(config, &config.snapshot_dir)?;
    store::read_snapshots(config, &config.snapshot_dir, &mut stored, &mut failures)?;
    stored
        .snapshots
        .retain(|snapshot, _| selection.covers_snapshot(config, snapshot));
    stored
        .pending
        .retain(|snapshot, _| selection.covers_snapshot(config, snapshot));
    // A file named on its own that gets no snapshot is a mistake to say, not an
    // empty run.
    for path in &selection.only {
        let named_file = std::fs::symlink_metadata(config.root.join(path))
            .is_ok_and(|metadata| !metadata.is_dir());
        let known = expected.contains_key(path)
            || stored
                .snapshots
                .keys()
                .any(|snapshot| source_of(config, snapshot) == *path);
        if named_file && !known {
            failures.push(format!(
                "{} gets no snapshot: tether snapshots the templates and values files its configuration covers; name one of those, or a folder",
                path.display()
            ));
        }
    }
    Ok(State {
        expected,
        stored,
        failures,
    })
}

/// Compares the comment maps of the files `options` selects (every covered file by
/// default) with their snapshots; with `options.pending`, writes each snapshot that
/// differs as a pending `.snap.new` (and removes the pending file of a snapshot that
/// is current again). A file with no snapshot gets no pending one: in a repository
/// that keeps no snapshots, a check writes nothing, and [`update`] writes the
/// missing ones.
///
/// ```
/// use helm_tether::snapshot::{self, SnapshotOptions};
/// let config = helm_tether::Config::discover("examples/kubevirt").unwrap();
/// let report = snapshot::check(&config, &SnapshotOptions::default()).unwrap();
/// assert!(report.passed(), "{}", report.render(&helm_tether::Format::Human { color: false }));
/// ```
pub fn check(config: &Config, options: &SnapshotOptions) -> Result<SnapshotReport, Error> {
    let selection = Selection::new(config, options)?;
    let state = state(config, &selection)?;
    let mut report = compare(config, &state, false);
    if !options.pending {
        return Ok(report);
    }
    let mut current: BTreeSet<&Path> = state.stored.pending.keys().map(PathBuf::as_path).collect();
    for change in &mut report.changes {
        if change.kind != ChangeKind::Changed {
            continue;
        }
        let Some(lines) = state.expected.get(&change.source) else {
            continue;
        };
        let text = joined(lines);
        let pending = store::pending_path(&change.snapshot);
        current.remove(change.snapshot.as_path());
        if state.stored.pending.get(&change.snapshot) != Some(&text) {
            store::write_snapshot(config, &config.root.join(&pending), &text)?;
        }
        change.pending = Some(pending);
    }
    // What is left was pending for a snapshot that needs nothing now.
    for snapshot in current {
        store::remove_snapshot(config, &config.root.join(store::pending_path(snapshot)))?;
    }
    Ok(report)
}

/// Writes the snapshot of every selected file (every covered file by default)
/// whose snapshot is missing or differs, and removes the snapshots of files that are
/// not covered; pending snapshots of the selected files are removed, as the
/// snapshots they proposed are now written or not needed. Files already equal are
/// not touched, so a second run writes nothing. Never writes through a symlink or
/// outside the snapshot folder.
///
/// Each change of the report says whether it was applied. A file or snapshot that
/// could not be read stops every write (an unreadable file would look gone, and its
/// snapshot would be removed); a snapshot that cannot be written is a failure of its
/// own, the others are still written, and its pending snapshot is kept.
pub fn update(config: &Config, options: &SnapshotOptions) -> Result<SnapshotReport, Error> {
    let selection = Selection::new(config, options)?;
    let state = state(config, &selection)?;
    let mut report = compare(config, &state, true);
    if !report.failures.is_empty() {
        return Ok(report);
    }
    let mut not_written = BTreeSet::new();
    for change in &mut report.changes {
        let target = config.root.join(&change.snapshot);
        let done = match change.kind {
            ChangeKind::Orphan => store::remove_snapshot(config, &target),
            // A change to write was made from an expected text; a failure, not a
            // silent skip, if that ever does not hold.
            ChangeKind::Changed | ChangeKind::Missing => match state.expected.get(&change.source) {
                Some(lines) => store::write_snapshot(config, &target, &joined(lines)),
                None => Err(crate::error::SnapshotError::NothingToWrite {
                    path: change.snapshot.clone(),
                }
                .into()),
            },
        };
        match done {
            Ok(()) => change.applied = true,
            Err(error) => {
                report.failures.push(error.to_string());
                not_written.insert(change.snapshot.clone());
            }
        }
    }
    for snapshot in state.stored.pending.keys() {
        if not_written.contains(snapshot) {
            continue;
        }
        let pending = config.root.join(store::pending_path(snapshot));
        if let Err(error) = store::remove_snapshot(config, &pending) {
            report.failures.push(error.to_string());
        }
    }
    Ok(report)
}

/// A snapshot's text from its lines.
fn joined(lines: &[Line]) -> String {
    lines.iter().map(|line| line.text.clone() + "\n").collect()
}

fn compare(config: &Config, state: &State, updated: bool) -> SnapshotReport {
    let mut changes = Vec::new();
    let mut expected_snapshots = BTreeSet::new();
    for (source, lines) in &state.expected {
        let snapshot = snapshot_path(config, source);
        expected_snapshots.insert(snapshot.clone());
        let text = joined(lines);
        match state.stored.snapshots.get(&snapshot) {
            None => changes.push(SnapshotChange {
                source: source.clone(),
                snapshot,
                kind: ChangeKind::Missing,
                diff: String::new(),
                entries: Vec::new(),
                pending: None,
                applied: false,
            }),
            Some(stored) if *stored == text => {}
            Some(stored) => {
                let (diff, entries) = differences(&snapshot, source, stored, &text, lines);
                changes.push(SnapshotChange {
                    source: source.clone(),
                    snapshot,
                    kind: ChangeKind::Changed,
                    diff,
                    entries,
                    pending: None,
                    applied: false,
                });
            }
        }
    }
    for snapshot in state.stored.snapshots.keys() {
        if expected_snapshots.contains(snapshot) {
            continue;
        }
        changes.push(SnapshotChange {
            source: source_of(config, snapshot),
            snapshot: snapshot.clone(),
            kind: ChangeKind::Orphan,
            diff: String::new(),
            entries: Vec::new(),
            pending: None,
            applied: false,
        });
    }
    SnapshotReport {
        files: state.expected.len(),
        changes,
        failures: state.failures.clone(),
        updated,
        root: config.root.clone(),
    }
}

/// The unified diff from the stored snapshot to the expected one, and per changed
/// hunk the source line it is at and what changed.
fn differences(
    snapshot: &Path,
    source: &Path,
    stored: &str,
    expected: &str,
    lines: &[Line],
) -> (String, Vec<(usize, String)>) {
    let diff = TextDiff::from_lines(stored, expected);
    let unified = diff
        .unified_diff()
        .context_radius(2)
        .header(
            &snapshot.display().to_string(),
            &format!("{} now", source.display()),
        )
        .to_string();
    let old: Vec<&str> = stored.lines().collect();
    let mut entries = Vec::new();
    for op in diff.ops() {
        if op.tag() == DiffTag::Equal {
            continue;
        }
        let new_range = op.new_range();
        // The entry's place in the file: the first changed line that has one, else
        // the entry that now stands where the removed lines stood.
        let line = lines[new_range.clone()]
            .iter()
            .chain(lines.get(new_range.end..).into_iter().flatten())
            .chain(lines[..new_range.start].iter().rev())
            .find_map(|line| line.source_line)
            .unwrap_or(1);
        let mut message = String::from("the comment map changed:");
        for removed in &old[op.old_range()] {
            let _ = write!(message, "\n- {}", removed.trim());
        }
        for added in &lines[new_range] {
            let _ = write!(message, "\n+ {}", added.text.trim());
        }
        entries.push((line, message));
    }
    (unified, entries)
}
