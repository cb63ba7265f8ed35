//! The library's error type: what keeps a call from doing its job at all. Findings
//! are never errors, and a file that cannot be read during a check is a failure in
//! its report, so one bad file never stops a run.

use std::path::PathBuf;

/// Why a call could not do its job.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `tether.toml` that cannot be read or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A file or folder that does not exist.
    #[error("{}: no such file or folder; pass a file or a chart folder", path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A file that exists but cannot be read (a special file, a symlink, too large,
    /// no permission).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The path as given.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A rule name `--select` or `--ignore` cannot take.
    #[error(transparent)]
    RuleName(#[from] RuleNameError),
    /// git could not list what changed (`--changed-since`).
    #[error(transparent)]
    Changes(#[from] ChangesError),
    /// A snapshot folder that cannot be read or written.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The configuration found for a file (its `tether.toml` or yamllint file) is
    /// broken.
    #[error(transparent)]
    Configuration(#[from] ConfigurationError),
    /// `tether idem` could not run at all.
    #[error(transparent)]
    Idem(#[from] IdemError),
}

impl Error {
    /// The error for a file that could not be read.
    pub(crate) fn reading(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::NotFound {
            Error::NotFound { path }
        } else {
            Error::Read { path, source }
        }
    }
}

/// A mistake in the configuration file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read {path}: {message}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The file can be read and is wrong at this place.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// 1-based.
        line: usize,
        /// 1-based, in characters.
        column: usize,
        /// What is wrong and what to do.
        message: String,
    },
}

/// Why `tether idem` could not check at all ([`Error::Idem`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdemError {
    /// This system is not Unix: the commands need `sh`, process groups and a
    /// sandbox (an overlay or a copy) that only Unix gives.
    #[error(
        "tether idem needs Unix: it runs each command with `sh -c` in a process group of its own, in an overlay or a copy of your tree; run it on Linux, or in WSL on Windows"
    )]
    NeedsUnix,
    /// No `[[idem]]` entry and no one-off target.
    #[error(
        "nothing to check: no [[idem]] entry in tether.toml and no --run; add an [[idem]] entry or pass --run and --files"
    )]
    NoTargets,
    /// The files could not be copied into a sandbox.
    #[error("cannot copy {root} into a sandbox: {message}")]
    Sandbox {
        /// The folder copied.
        root: String,
        /// Why.
        message: String,
    },
    /// The command needs a tool that is not installed.
    #[error("{0}")]
    MissingTool(String),
    /// A `--target` names no target's folder.
    #[error("{0}")]
    NoSuchTarget(String),
    /// The run was interrupted (Ctrl-C, SIGTERM, SIGHUP): nothing was judged.
    #[error("interrupted")]
    Interrupted,
    /// The command fails on the committed files.
    #[error(
        "`{run}` failed in {dir} on the committed files (exit {status}), so nothing can be checked; fix the command first\n{stderr}"
    )]
    CommandFailed {
        /// The command.
        run: String,
        /// Where it ran.
        dir: String,
        /// Its exit status.
        status: String,
        /// Its standard error.
        stderr: String,
    },
    /// No file matches the target's globs.
    #[error("no file in {dir} matches {globs:?}: set `files` to the files `{run}` regenerates")]
    NoFiles {
        /// Where.
        dir: String,
        /// The globs.
        globs: Vec<String>,
        /// The command.
        run: String,
    },
    /// git could not list what changed (`--changed-since`).
    #[error(transparent)]
    Changes(#[from] ChangesError),
}

/// Why the configuration of a file cannot be used: its `tether.toml` or yamllint
/// file is broken, or `--select`/`--ignore` names no rule it can take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigurationError {
    /// The `tether.toml` or yamllint file, or one it extends.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--select` or `--ignore`.
    #[error(transparent)]
    RuleName(#[from] RuleNameError),
    /// A folder was resolved before its parent (a bug).
    #[error("{}: resolved before its parent", folder.display())]
    BeforeItsParent {
        /// The folder.
        folder: PathBuf,
    },
    /// A file's folder was never resolved (a bug).
    #[error(
        "{}: the folder was never resolved (a bug in tether; please report it)",
        folder.display()
    )]
    Unresolved {
        /// The folder.
        folder: PathBuf,
    },
}

/// A rule name that `--select`, `--ignore` or `tether rules NAME` cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleNameError {
    /// No rule has this name.
    #[error(
        "unknown rule `{name}`{place}; {}`tether rules` lists every rule",
        nearest.map(|nearest| format!("did you mean `{nearest}`? ")).unwrap_or_default()
    )]
    Unknown {
        /// The name as given.
        name: String,
        /// Where it was given: `" in --select"`, `" in --ignore"`, or `""`.
        place: &'static str,
        /// The rule with the nearest name, if one is near.
        nearest: Option<&'static str>,
    },
    /// The rule cannot be turned off (`read-error`, `finding-limit`).
    #[error(
        "rule `{name}` cannot be ignored: a run that hid it would pass what it never read or showed"
    )]
    AlwaysOn {
        /// The rule.
        name: String,
    },
}

/// Why git could not say what changed since a revision (`--changed-since`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChangesError {
    /// The revision would be read by git as an option.
    #[error("--changed-since {revision:?}: a revision cannot start with `-`")]
    OptionLike {
        /// The revision as given.
        revision: String,
    },
    /// git could not be started.
    #[error("cannot run git: {message}; --changed-since needs git")]
    NoGit {
        /// What the system said.
        message: String,
    },
    /// A git command failed.
    #[error("git {args} failed: {stderr}")]
    Git {
        /// Its arguments, joined by spaces.
        args: String,
        /// What it printed on standard error.
        stderr: String,
    },
    /// The revision and `HEAD` have no merge base git can find.
    #[error("--changed-since {revision}: {source}")]
    NoMergeBase {
        /// The revision as given.
        revision: String,
        /// Why.
        source: Box<ChangesError>,
    },
    /// A shallow clone lacks the history back to the merge base.
    #[error(
        "--changed-since {revision}: this clone is shallow and lacks the history back to where `{revision}` and HEAD meet; fetch more (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
    )]
    Shallow {
        /// The revision as given.
        revision: String,
    },
}

/// Why `tether snapshot` could not read or write its snapshot folder.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A file or folder the system refused to read, list, create, write or remove.
    #[error("{doing}{}: {source}", path.display())]
    Io {
        /// What tether was doing.
        doing: SnapshotStep,
        /// The file or folder, as shown.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A pending snapshot could not be moved over its snapshot.
    #[error("cannot move {} to {}: {source}", from.display(), to.display())]
    Move {
        /// The pending snapshot.
        from: PathBuf,
        /// The snapshot.
        to: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A folder on the way to the snapshot folder is a symlink.
    #[error(
        "{} is a symlink; tether reads and writes snapshots only in real folders inside {}",
        path.display(),
        root.display()
    )]
    Link {
        /// The link, relative to the configuration's folder.
        path: PathBuf,
        /// The configuration's folder.
        root: PathBuf,
    },
    /// The snapshot folder is outside the configuration's folder.
    #[error(
        "{} is outside {}; tether writes snapshots only inside the configuration's folder",
        path.display(),
        root.display()
    )]
    Outside {
        /// The snapshot folder.
        path: PathBuf,
        /// The configuration's folder.
        root: PathBuf,
    },
    /// The snapshot folder's path has `..` or a prefix in it.
    #[error("{} is not a plain path inside {}", path.display(), root.display())]
    NotPlain {
        /// The snapshot folder.
        path: PathBuf,
        /// The configuration's folder.
        root: PathBuf,
    },
    /// Something on the way to the snapshot folder is a file or a symlink.
    #[error(
        "{} is not a folder (a symlink or a file); tether writes snapshots only into real folders",
        path.display()
    )]
    NotAFolder {
        /// It, relative to the configuration's folder.
        path: PathBuf,
    },
    /// A file where a snapshot would be written is not one tether wrote.
    #[error(
        "{} exists and is not a tether snapshot (it does not start with `# tether snapshot of`); move it, or set another snapshot folder (`[snapshot] dir` in tether.toml)",
        path.display()
    )]
    NotOursToWrite {
        /// It, relative to the configuration's folder.
        path: PathBuf,
    },
    /// A file to remove is not a snapshot tether wrote.
    #[error(
        "{} is not a snapshot tether wrote (a regular file in the snapshot folder starting with `# tether snapshot of`); left as it is",
        path.display()
    )]
    NotOursToRemove {
        /// It, relative to the configuration's folder.
        path: PathBuf,
    },
    /// A file of the snapshot folder that tether refuses to read (a symlink, an
    /// unreadable snapshot), as said.
    #[error("{0}")]
    Refused(String),
    /// A path given to `tether snapshot` that does not exist.
    #[error("{} does not exist; name a chart folder or a file in it", path.display())]
    Missing {
        /// The path as given.
        path: PathBuf,
    },
    /// A path given to `tether snapshot` outside the configuration's folder.
    #[error(
        "{} is outside {}, the folder of the configuration in use; run tether snapshot there, or pass its --config",
        path.display(),
        root.display()
    )]
    NotCovered {
        /// The path as given.
        path: PathBuf,
        /// The configuration's folder.
        root: PathBuf,
    },
    /// An accepted change with nothing to write: a bug.
    #[error("{}: nothing to write (please report it)", path.display())]
    NothingToWrite {
        /// The snapshot.
        path: PathBuf,
    },
}

/// What `tether snapshot` was doing when the system refused ([`SnapshotError::Io`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotStep {
    /// Reading the snapshot folder, or a folder inside it.
    ReadFolder,
    /// Asking what an entry is.
    Inspect,
    /// Creating a folder.
    Create,
    /// Writing a snapshot.
    Write,
    /// Removing a snapshot.
    Remove,
}

impl std::fmt::Display for SnapshotStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SnapshotStep::ReadFolder => "cannot read the snapshot folder ",
            SnapshotStep::Inspect => "",
            SnapshotStep::Create => "cannot create ",
            SnapshotStep::Write => "cannot write ",
            SnapshotStep::Remove => "cannot remove ",
        })
    }
}
