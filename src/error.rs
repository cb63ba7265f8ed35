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
    /// A rule name that no rule has (`--select`).
    #[error("{0}")]
    UnknownRule(String),
    /// git could not list what changed (`--changed-since`).
    #[error("{0}")]
    Changes(String),
    /// A snapshot folder that cannot be read or written.
    #[error("{0}")]
    Snapshot(String),
    /// The configuration found for a file (its `tether.toml` or yamllint file) is
    /// broken.
    #[error("{0}")]
    Configuration(String),
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
    #[error("{0}")]
    Changes(String),
}
