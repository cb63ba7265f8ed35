//! What `tether idem` found: [`IdemReport`] and its parts, how its commands were
//! confined and sandboxed, the bounds of a report and the formats it is rendered in
//! (rendered by `report/idem.rs`). Portable: plain data.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

/// What a run's commands ran in, and why not an overlay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "mode", content = "reason")]
#[non_exhaustive]
pub enum Sandboxing {
    /// Overlays of the user's tree.
    Overlay,
    /// Copies: asked for (`None`), or why an overlay could not be had.
    Copies(Option<String>),
}

impl Sandboxing {
    /// One line for reports.
    pub fn describe(&self) -> String {
        match self {
            Sandboxing::Overlay => "sandboxes: overlays of your tree".into(),
            Sandboxing::Copies(None) => "sandboxes: copies of your tree (--sandbox copy)".into(),
            Sandboxing::Copies(Some(reason)) => {
                format!("sandboxes: copies of your tree, since no overlay could be had: {reason}")
            }
        }
    }
}

/// How the commands of a run were confined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "mode", content = "reason")]
#[non_exhaustive]
pub enum Containment {
    /// Landlock: writes outside the sandbox are refused by the kernel; where it has
    /// Landlock's scopes (ABI 6, Linux 6.12), so are signals to processes outside and
    /// connections to abstract unix sockets made outside (`scoped`).
    Landlock {
        /// Whether signals and abstract unix sockets are scoped too.
        scoped: bool,
    },
    /// No kernel confinement is available (the reason); changes to the user's tree
    /// are detected and reported, not prevented.
    DetectionOnly(String),
    /// `--no-contain`: the commands ran unconfined, by request; changes to the user's
    /// tree are still detected.
    Off,
}

impl Containment {
    /// One line for reports.
    pub fn describe(&self) -> String {
        match self {
            Containment::Landlock { scoped: true } => {
                "contained: Landlock lets the command write only inside its sandbox, and signal or reach over abstract unix sockets only the processes it started; TCP and unix sockets with a path are not contained".into()
            }
            Containment::Landlock { scoped: false } => {
                "partly contained: Landlock lets the command write only inside its sandbox, but this kernel has no Landlock scopes (ABI 6, Linux 6.12): the command can signal your processes and reach any unix socket or TCP listener".into()
            }
            Containment::DetectionOnly(reason) => format!(
                "not contained ({reason}): changes to your tree are detected, not prevented"
            ),
            Containment::Off => {
                "not contained (--no-contain): changes to your tree are detected, not prevented"
                    .into()
            }
        }
    }
}

/// What a run found, per target.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct IdemReport {
    /// The self-heal checks were discovered blocks, not configured ones.
    #[serde(skip)]
    pub discovered: bool,
    /// One per `[[idem]]` entry that could be checked.
    pub targets: Vec<TargetReport>,
    /// Why some targets could not be checked at all (exit 2); the other targets
    /// still ran.
    pub errors: Vec<String>,
    /// How the commands were confined.
    pub containment: Containment,
    /// What the commands ran in.
    pub sandbox: Sandboxing,
    /// Targets not run (`--target`, `--changed-since`), and why.
    pub skipped: Vec<Skipped>,
    /// Files of the user's tree that changed while tether ran (it never writes there:
    /// a change means the command escaped its sandbox, or someone else wrote).
    pub user_tree_changes: Vec<String>,
    /// Folders of the user's tree that could not be listed: a change inside them
    /// would not be among [`user_tree_changes`](Self::user_tree_changes).
    pub unwatched: Vec<String>,
    /// The folder the targets' folders are shown relative to
    /// ([`IdemOptions::display_root`](super::IdemOptions::display_root), else the
    /// working directory).
    #[serde(skip)]
    pub display_root: PathBuf,
}

/// A target that did not run.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Skipped {
    /// Its folder, as shown.
    pub dir: String,
    /// Its command.
    pub run: String,
    /// Why it did not run.
    pub reason: String,
}

/// The checks of one target.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct TargetReport {
    /// The folder the command ran in, as configured.
    pub dir: String,
    /// The command.
    pub run: String,
    /// No-op, fixpoint, then one per self-heal block.
    pub checks: Vec<CheckResult>,
}

/// The kind of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CheckKind {
    /// The command leaves the committed files as they are.
    NoOp,
    /// A second run changes nothing the first wrote.
    Fixpoint,
    /// With a block removed, the command restores it byte for byte.
    SelfHeal,
}

impl CheckKind {
    /// `no-op`, `fixpoint` or `self-heal`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::NoOp => "no-op",
            CheckKind::Fixpoint => "fixpoint",
            CheckKind::SelfHeal => "self-heal",
        }
    }
}

/// One check's outcome.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct CheckResult {
    /// Which check.
    pub kind: CheckKind,
    /// For self-heal: the opening line of the removed block, or `all`.
    pub mutant: Option<String>,
    /// Whether the files are as they must be.
    pub ok: bool,
    /// Files (relative to the command's folder) that are not as they must be.
    pub changed: Vec<String>,
    /// Unified diff of what must be against what is.
    pub diff: String,
    /// Comments that document another key afterwards.
    pub comment_moves: Vec<CommentMove>,
    /// The command's exit code; `None` when it was killed.
    pub command_status: Option<i32>,
    /// The command ran out of time.
    pub timed_out: bool,
    /// Shown in the human report when the command failed; not in the JSON.
    #[serde(skip)]
    pub stdout: String,
    /// The command's standard error.
    pub stderr: String,
    /// How long the check took.
    pub duration_ms: u64,
    /// Why the check failed, in a sentence, when the diff does not say it all.
    pub message: Option<String>,
}

/// A comment that documents another key after the command ran, or none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CommentMove {
    /// The file, relative to the command's folder.
    pub file: String,
    /// The comment's text.
    pub text: String,
    /// The key path it documented before; `None` when it documented no key.
    pub from: Option<String>,
    /// The key path it documents after; `None` when it lost its key.
    pub to: Option<String>,
}

impl IdemReport {
    /// How many checks failed.
    pub fn failed(&self) -> usize {
        self.judged().filter(|check| !check.ok).count()
    }

    /// How many checks ran and were judged (with `--discover`, the blocks tried
    /// are an answer, not a check).
    pub fn checks(&self) -> usize {
        self.judged().count()
    }

    /// The checks that pass or fail the run: with `--discover`, every one but the
    /// blocks tried.
    fn judged(&self) -> impl Iterator<Item = &CheckResult> {
        self.targets
            .iter()
            .flat_map(|target| &target.checks)
            .filter(|check| !(self.discovered && check.kind == CheckKind::SelfHeal))
    }
}

/// A file larger than this is summarised (size, hash), not diffed.
#[cfg_attr(not(unix), allow(dead_code))] // the checks that use it run on Unix
pub(crate) const MAX_DIFF_INPUT: usize = 1024 * 1024;

/// A file's diff is cut after this many lines, with how many more there were.
#[cfg_attr(not(unix), allow(dead_code))] // the checks that use it run on Unix
pub(crate) const MAX_DIFF_LINES: usize = 400;

/// A check diffs at most this many changed files; the others are counted.
#[cfg_attr(not(unix), allow(dead_code))] // the checks that use it run on Unix
pub(crate) const MAX_DIFFED_FILES: usize = 50;

/// A check lists at most this many changed files; the others are counted (the last
/// entry of `changed` says how many).
#[cfg_attr(not(unix), allow(dead_code))] // the checks that use it run on Unix
pub(crate) const MAX_LISTED_FILES: usize = 1000;

/// `3s`, `1m30s`, `250ms`.
pub(crate) fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        return format!("{millis}ms");
    }
    let seconds = duration.as_secs();
    if seconds < 60 {
        return format!("{seconds}s");
    }
    format!("{}m{}s", seconds / 60, seconds % 60)
}
