//! Why `tether idem` could not check at all: [`IdemError`]. Portable.

/// Why tether could not check at all.
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
