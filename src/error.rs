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
