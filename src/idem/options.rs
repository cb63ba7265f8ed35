//! How `tether idem` runs: [`IdemOptions`] (what the command line and a library
//! caller choose), [`SandboxKind`] and the [`Progress`] a caller hears. Portable: no
//! system call here.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

/// A callback that hears which check runs.
pub(super) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// How [`run`](super::run) runs.
#[derive(Clone)]
#[non_exhaustive]
pub struct IdemOptions {
    /// Checks run in parallel, each in its own copy. Default: the number of cores.
    pub jobs: usize,
    /// Try every whole-line top-level block of the target files as a self-heal
    /// mutant instead of the configured ones.
    pub discover: bool,
    /// What the targets' folders are shown relative to. Default: the working
    /// directory.
    pub display_root: Option<PathBuf>,
    /// Confine each command with Landlock where the kernel has it (the default);
    /// `false` is `--no-contain`, and the report says so.
    pub contain: bool,
    /// Only the targets in these folders (`--target`); all when empty.
    pub only: Vec<PathBuf>,
    /// Only the targets whose folder, Makefile includes or `tether.toml` changed
    /// since this revision's merge base (`--changed-since`).
    pub changed_since: Option<String>,
    /// What the commands run in (`--sandbox`). Default: [`SandboxKind::Auto`].
    pub sandbox: SandboxKind,
    pub(super) progress: Option<ProgressFn>,
    /// The repository as the command line listed it to find the targets: its
    /// sandboxes are made from that listing, not from a second one.
    #[cfg_attr(not(unix), allow(dead_code))] // `tether idem` runs on Unix only
    pub(crate) listed: Option<std::sync::Arc<crate::git::Listed>>,
}

/// What `tether idem` runs commands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SandboxKind {
    /// An overlay where this machine and repository allow one, else copies.
    #[default]
    Auto,
    /// An overlay of the user's tree (Linux, unprivileged user namespaces): nothing
    /// is copied, and what a command changed is what its upper layer holds. An error
    /// where it cannot be had.
    Overlay,
    /// A copy of the tree per worker (reflinks where the filesystem has them).
    Copy,
}

impl std::fmt::Debug for IdemOptions {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("IdemOptions")
            .field("jobs", &self.jobs)
            .field("discover", &self.discover)
            .field("display_root", &self.display_root)
            .field("contain", &self.contain)
            .field("only", &self.only)
            .field("changed_since", &self.changed_since)
            .field("sandbox", &self.sandbox)
            .finish_non_exhaustive()
    }
}

impl Default for IdemOptions {
    fn default() -> Self {
        IdemOptions {
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            discover: false,
            display_root: None,
            contain: true,
            only: Vec::new(),
            changed_since: None,
            sandbox: SandboxKind::Auto,
            progress: None,
            listed: None,
        }
    }
}

impl IdemOptions {
    /// Sets [`IdemOptions::jobs`] (at least 1).
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// Sets [`IdemOptions::discover`].
    pub fn discover(mut self, discover: bool) -> Self {
        self.discover = discover;
        self
    }

    /// Sets [`IdemOptions::display_root`].
    pub fn display_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.display_root = Some(root.into());
        self
    }

    /// Adds a folder to [`IdemOptions::only`].
    pub fn only(mut self, folder: impl Into<PathBuf>) -> Self {
        self.only.push(folder.into());
        self
    }

    /// Sets [`IdemOptions::changed_since`].
    pub fn changed_since(mut self, revision: impl Into<String>) -> Self {
        self.changed_since = Some(revision.into());
        self
    }

    /// Sets [`IdemOptions::sandbox`].
    pub fn sandbox(mut self, sandbox: SandboxKind) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// Sets [`IdemOptions::contain`].
    pub fn contain(mut self, contain: bool) -> Self {
        self.contain = contain;
        self
    }

    /// Calls `progress` before each check, from the thread that runs it.
    pub fn on_progress(mut self, progress: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }
}

/// What is running, for a progress line.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Progress {
    /// The command.
    pub run: String,
    /// The check (`no-op`, `fixpoint`, `self-heal …`).
    pub check: String,
    /// Checks of this target finished.
    pub done: usize,
    /// Checks of this target in all.
    pub total: usize,
}
