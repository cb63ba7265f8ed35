//! `tether idem`: proves, in sandbox copies and never in the user's tree, that a
//! regeneration command is a no-op on the committed files, a fixpoint, restores
//! every configured block byte for byte, and keeps comments on their keys.
//!
//! The user's tree is only read: listed, fingerprinted before and after, copied from.

mod blocks;
mod command;
mod contain;
mod ignored;
mod moves;
#[cfg(target_os = "linux")]
mod overlay;
mod sandbox;
mod sys;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::settings::config::Config;
pub use crate::settings::config::{parse_duration, IdemTarget};
pub use contain::Containment;
pub use moves::CommentMove;
pub use sandbox::{interrupt, SandboxCopy};

pub use command::stopping;
use sandbox::{Entry, Manifest, Sandbox, Source};

/// A callback that hears which check runs.
type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// How [`run`] runs.
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
    progress: Option<ProgressFn>,
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

/// Why tether could not check at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdemError {
    /// No `[[idem]]` entry and no one-off target.
    #[error("nothing to check: no [[idem]] entry in tether.toml and no --run; add an [[idem]] entry or pass --run and --files")]
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
    #[error("`{run}` failed in {dir} on the committed files (exit {status}), so nothing can be checked; fix the command first\n{stderr}")]
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
    /// A configured self-heal block is in none of the files.
    #[error("self-heal block `{opening}` is in none of the files {globs:?} in {dir}: write its opening line exactly as in the file")]
    BlockNotFound {
        /// The block's opening line.
        opening: String,
        /// The globs.
        globs: Vec<String>,
        /// Where.
        dir: String,
    },
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

/// How [`IdemReport::render`] prints a report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IdemFormat {
    /// For people.
    Text,
    /// The JSON documented in docs/src/idem.md.
    Json,
    /// GitHub Actions workflow commands: one annotation per failed check.
    Github {
        /// The folder the targets' folders are shown relative to.
        cwd: PathBuf,
        /// The folder annotation paths are relative to (see
        /// [`machine_root`](crate::machine_root)).
        root: PathBuf,
    },
}

/// Runs the `[[idem]]` entries of `config`, each check in a sandbox copy of its
/// repository: the user's tree is only read.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let config = helm_tether::Config::discover("examples/kubevirt")?;
/// let report = helm_tether::idem::run(&config, &helm_tether::idem::IdemOptions::default().jobs(2))?;
/// assert_eq!(report.failed(), 0, "{}", report.render(&helm_tether::idem::IdemFormat::Text));
/// # Ok(())
/// # }
/// ```
pub fn run(config: &Config, options: &IdemOptions) -> Result<IdemReport, IdemError> {
    run_targets(&config.idem, options)
}

/// The targets `--target` (`options.only`) and `--changed-since` keep, as [`run`]
/// would run them (what `tether idem --list` prints); a `--target` that names no
/// target is an error.
pub fn selected(
    targets: &[IdemTarget],
    options: &IdemOptions,
) -> Result<Vec<IdemTarget>, IdemError> {
    let display_root = options
        .display_root
        .clone()
        .unwrap_or_else(|| crate::paths::absolute(Path::new(".")));
    select(targets, options, &display_root).map(|(selected, _)| selected)
}

/// [`run`] for targets built by hand ([`IdemTarget::new`]).
pub fn run_targets(targets: &[IdemTarget], options: &IdemOptions) -> Result<IdemReport, IdemError> {
    // A descriptor tether was started with (`exec 7>>/outside.log; tether idem`)
    // must not reach the commands.
    command::keep_inherited_descriptors_from_commands();
    // What runs killed by SIGKILL left in the temporary folder.
    sandbox::remove_stale_sandboxes();
    let display_root = options
        .display_root
        .clone()
        .unwrap_or_else(|| crate::paths::absolute(Path::new(".")));
    let progress = options.progress.clone();
    let progress = move |step: Progress| {
        if let Some(progress) = &progress {
            progress(step);
        }
    };
    let (selected, skipped) = select(targets, options, &display_root)?;
    let containment = if !options.contain {
        Containment::Off
    } else {
        match contain::available() {
            Ok(scoped) => Containment::Landlock { scoped },
            Err(reason) => Containment::DetectionOnly(reason),
        }
    };
    if selected.is_empty() && !skipped.is_empty() {
        return Ok(IdemReport {
            discovered: options.discover,
            targets: Vec::new(),
            errors: Vec::new(),
            containment,
            sandbox: Sandboxing::Copies(None),
            skipped,
            user_tree_changes: Vec::new(),
        });
    }
    let mut report = run_checks(
        &selected,
        &display_root,
        Settings {
            jobs: options.jobs.max(1),
            discover: options.discover,
            confine: matches!(containment, Containment::Landlock { .. }),
            sandbox: options.sandbox,
        },
        containment,
        &progress,
    )?;
    report.skipped = skipped;
    Ok(report)
}

/// The targets `--target` and `--changed-since` keep, and the others with why.
fn select(
    targets: &[IdemTarget],
    options: &IdemOptions,
    display_root: &Path,
) -> Result<(Vec<IdemTarget>, Vec<Skipped>), IdemError> {
    let only: Vec<PathBuf> = options
        .only
        .iter()
        .map(|folder| crate::paths::absolute(folder))
        .collect();
    let changed = match (&options.changed_since, targets.first()) {
        (Some(revision), Some(first)) => Some((
            revision,
            crate::linter::changes::Changes::paths_since(&first.dir, revision)
                .map_err(IdemError::Changes)?,
        )),
        _ => None,
    };
    let (mut selected, mut skipped) = (Vec::new(), Vec::new());
    for target in targets {
        let dir = crate::paths::absolute(&target.dir);
        let skip = |reason: String| Skipped {
            dir: display(display_root, &target.dir),
            run: target.run.clone(),
            reason,
        };
        if !only.is_empty() && !only.contains(&dir) {
            skipped.push(skip("not a folder named by --target".into()));
            continue;
        }
        if let Some((revision, paths)) = &changed {
            if !affected(&dir, paths) {
                skipped.push(skip(format!(
                    "nothing in its folder, its Makefile's includes or a tether.toml changed since {revision}"
                )));
                continue;
            }
        }
        selected.push(target.clone());
    }
    // A `--target` that names no target is a mistake to say, not an empty run.
    for (folder, named) in only.iter().zip(&options.only) {
        let matched = targets
            .iter()
            .any(|target| crate::paths::absolute(&target.dir) == *folder);
        if !matched {
            let mut folders: Vec<String> = targets
                .iter()
                .map(|target| display(display_root, &target.dir))
                .collect();
            folders.dedup();
            let shown = match folders.len() {
                0 => "none".to_string(),
                1..=5 => folders.join(", "),
                n => format!(
                    "{}, … ({n} in all; `tether idem --list` lists them)",
                    folders[..5].join(", ")
                ),
            };
            return Err(IdemError::NoSuchTarget(format!(
                "--target {} names no target; the targets' folders are: {shown}",
                named.display()
            )));
        }
    }
    Ok((selected, skipped))
}

/// Whether a change can affect the target in `dir`: a path under it, a file its
/// Makefile includes, any `tether.toml`; when its includes cannot be read for sure,
/// yes.
fn affected(dir: &Path, paths: &[PathBuf]) -> bool {
    let Some(makefiles) = crate::settings::idem_targets::makefiles(dir).or_else(|| {
        (!dir.join("Makefile").exists() && !dir.join("makefile").exists()).then(Vec::new)
    }) else {
        return true;
    };
    paths.iter().any(|path| {
        let path = path.canonicalize().unwrap_or_else(|_| path.clone());
        path.starts_with(dir)
            || makefiles.contains(&path)
            || path.file_name().is_some_and(|name| name == "tether.toml")
    })
}

/// The options the checks read.
#[derive(Debug, Clone, Copy)]
struct Settings {
    jobs: usize,
    discover: bool,
    confine: bool,
    sandbox: SandboxKind,
}

/// Runs every target's checks. `display_root` is what the targets' folders are shown
/// relative to.
///
/// Targets are grouped by repository: each repository is listed, hashed into a
/// [`Manifest`] (no bytes kept) and fingerprinted once per run, and copied once per
/// worker; the workers take the checks of all its targets from one queue, and
/// between checks a copy gets back only the files the last command changed.
fn run_checks(
    targets: &[IdemTarget],
    display_root: &Path,
    options: Settings,
    containment: Containment,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<IdemReport, IdemError> {
    if targets.is_empty() {
        return Err(IdemError::NoTargets);
    }
    let mut report = IdemReport {
        discovered: options.discover,
        targets: Vec::new(),
        errors: Vec::new(),
        containment,
        sandbox: Sandboxing::Copies(None),
        skipped: Vec::new(),
        user_tree_changes: Vec::new(),
    };
    // Processes a command detaches come back to tether, which kills them.
    contain::become_subreaper();
    command::STOPPING.store(false, std::sync::atomic::Ordering::SeqCst);
    let mut outcomes: Vec<Option<Result<TargetReport, String>>> = vec![None; targets.len()];
    let mut repos: Vec<Repo> = Vec::new();
    for (index, target) in targets.iter().enumerate() {
        let sandbox_error = |root: &Path, error: std::io::Error| {
            IdemError::Sandbox {
                root: root.display().to_string(),
                message: error.to_string(),
            }
            .to_string()
        };
        let source = match Source::around(&target.dir) {
            Ok(source) => source,
            Err(error) => {
                outcomes[index] = Some(Err(sandbox_error(&target.dir, error)));
                continue;
            }
        };
        if let Some(repo) = repos
            .iter_mut()
            .find(|repo| repo.manifest.root == source.root)
        {
            repo.targets.push(index);
            continue;
        }
        let before = sandbox::fingerprint(&source.root);
        match Manifest::read(&source) {
            Ok(manifest) => match Layout::choose(&manifest, options.sandbox) {
                Ok((layout, sandboxing)) => {
                    report.sandbox = sandboxing;
                    repos.push(Repo {
                        manifest,
                        before,
                        targets: vec![index],
                        layout,
                    })
                }
                Err(reason) => {
                    outcomes[index] = Some(Err(sandbox_error(
                        &source.root,
                        std::io::Error::other(reason),
                    )))
                }
            },
            Err(error) => outcomes[index] = Some(Err(sandbox_error(&source.root, error))),
        }
    }
    for repo in &repos {
        for (index, outcome) in run_repository(repo, targets, display_root, options, progress) {
            outcomes[index] = Some(outcome);
        }
        let after = sandbox::fingerprint(&repo.manifest.root);
        report.user_tree_changes.extend(
            sandbox::tree_changes(&repo.manifest, &repo.before, &after)
                .into_iter()
                .map(|path| repo.manifest.root.join(path).display().to_string()),
        );
    }
    // A target that cannot be checked does not hide what its command did.
    for outcome in outcomes.into_iter().flatten() {
        match outcome {
            Ok(target) => report.targets.push(target),
            Err(error) => report.errors.push(error),
        }
    }
    report.errors.extend(sandbox::left_behind());
    Ok(report)
}

/// One repository of a run: what it held when the run started, and its targets.
struct Repo {
    manifest: Manifest,
    /// The user's tree before any command ran.
    before: sandbox::Fingerprint,
    /// Indices into the run's targets.
    targets: Vec<usize>,
    /// What its workspaces are.
    layout: Layout,
}

/// What a repository's workspaces are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Copies,
    #[cfg(target_os = "linux")]
    Overlays,
}

impl Layout {
    /// Overlays where asked for or, with `auto`, where they work; else copies. Fails
    /// only when `--sandbox overlay` cannot be had.
    fn choose(manifest: &Manifest, kind: SandboxKind) -> Result<(Layout, Sandboxing), String> {
        if kind == SandboxKind::Copy {
            return Ok((Layout::Copies, Sandboxing::Copies(None)));
        }
        #[cfg(target_os = "linux")]
        let usable = overlay::usable(manifest);
        #[cfg(not(target_os = "linux"))]
        let usable: Result<(), String> = {
            let _ = manifest;
            Err("overlays are a Linux feature".to_string())
        };
        match (usable, kind) {
            #[cfg(target_os = "linux")]
            (Ok(()), _) => Ok((Layout::Overlays, Sandboxing::Overlay)),
            (Err(reason), SandboxKind::Overlay) => Err(format!("--sandbox overlay: {reason}")),
            (Err(reason), _) => Ok((Layout::Copies, Sandboxing::Copies(Some(reason)))),
            #[cfg(not(target_os = "linux"))]
            (Ok(()), _) => Ok((Layout::Copies, Sandboxing::Copies(None))),
        }
    }
}

/// A mutant to self-heal: its name and the files that differ from the committed ones.
struct Mutant {
    name: String,
    files: BTreeMap<PathBuf, Entry>,
}

/// Where a worker's checks run: a copy of the tree with the paths that differ from
/// the manifest and the stamps of its files as tether last left them, or an overlay
/// over the tree.
enum Workspace {
    Copied {
        sandbox: Sandbox,
        dirty: BTreeSet<PathBuf>,
        stamps: sandbox::Fingerprint,
    },
    #[cfg(target_os = "linux")]
    Overlay(overlay::Overlay),
}

impl Workspace {
    fn new(manifest: &Manifest, layout: Layout) -> std::io::Result<Workspace> {
        match layout {
            Layout::Copies => {
                let sandbox = Sandbox::from_manifest(manifest)?;
                let stamps = sandbox.stamps();
                Ok(Workspace::Copied {
                    sandbox,
                    dirty: BTreeSet::new(),
                    stamps,
                })
            }
            #[cfg(target_os = "linux")]
            Layout::Overlays => Ok(Workspace::Overlay(overlay::Overlay::new(manifest)?)),
        }
    }

    /// Back to the manifest: only the paths changed since it last was.
    fn pristine(&mut self, manifest: &Manifest) -> std::io::Result<()> {
        match self {
            Workspace::Copied {
                sandbox,
                dirty,
                stamps,
            } => {
                if !dirty.is_empty() {
                    sandbox.restore_paths(manifest, dirty)?;
                    sandbox::restamp(stamps, &sandbox.root, dirty);
                    dirty.clear();
                }
                Ok(())
            }
            #[cfg(target_os = "linux")]
            Workspace::Overlay(overlay) => overlay.reset(),
        }
    }

    /// Writes a mutant's files.
    fn write(&mut self, files: &BTreeMap<PathBuf, Entry>) -> std::io::Result<()> {
        match self {
            Workspace::Copied {
                sandbox,
                dirty,
                stamps,
            } => {
                dirty.extend(files.keys().cloned());
                sandbox.write(files)?;
                let paths: BTreeSet<PathBuf> = files.keys().cloned().collect();
                sandbox::restamp(stamps, &sandbox.root, &paths);
                Ok(())
            }
            #[cfg(target_os = "linux")]
            Workspace::Overlay(overlay) => overlay.write(files),
        }
    }

    /// Runs the command in `relative_dir`; returns what it did and the paths that
    /// may differ from the manifest since the last [`Workspace::pristine`] (a copy:
    /// those the command changed; an overlay: all of them).
    fn run(
        &mut self,
        manifest: &Manifest,
        relative_dir: &Path,
        target: &IdemTarget,
        confine: bool,
    ) -> std::io::Result<(command::RunOutcome, BTreeSet<PathBuf>)> {
        match self {
            Workspace::Copied {
                sandbox,
                dirty,
                stamps,
            } => {
                // A previous run may have deleted its own folder.
                let dir = sandbox.root.join(relative_dir);
                std::fs::create_dir_all(&dir)?;
                let outcome = command::run(command::Spec {
                    run: &target.run,
                    dir: &dir,
                    env: &target.env,
                    timeout: target.timeout,
                    sandbox: sandbox.folder(),
                    confine,
                    enter: None,
                })?;
                let after = sandbox.stamps();
                let changed = sandbox::changed_paths(stamps, &after);
                *stamps = after;
                dirty.extend(changed.iter().cloned());
                Ok((outcome, changed))
            }
            #[cfg(target_os = "linux")]
            Workspace::Overlay(overlay) => {
                let mount = overlay.mount(relative_dir)?;
                let outcome = command::run(command::Spec {
                    run: &target.run,
                    dir: &overlay.dir(relative_dir),
                    env: &target.env,
                    timeout: target.timeout,
                    sandbox: overlay.writable(),
                    confine,
                    enter: Some(mount),
                })?;
                Ok((outcome, overlay.changed(manifest)))
            }
        }
    }

    /// The current entry of each path (absent ones left out).
    fn entries(&self, manifest: &Manifest, paths: &BTreeSet<PathBuf>) -> BTreeMap<PathBuf, Entry> {
        match self {
            Workspace::Copied { sandbox, .. } => {
                let _ = manifest;
                sandbox.entries(paths)
            }
            #[cfg(target_os = "linux")]
            Workspace::Overlay(overlay) => overlay.entries(manifest, paths),
        }
    }

    /// Of `paths` (new), those git's ignore rules do not exclude (`repository`: the
    /// user's tree, whose `.git/info/exclude` counts).
    fn not_ignored(&self, paths: &BTreeSet<PathBuf>, repository: &Path) -> BTreeSet<PathBuf> {
        if paths.is_empty() {
            return BTreeSet::new();
        }
        match self {
            Workspace::Copied { sandbox, .. } => sandbox.not_ignored(paths, repository),
            #[cfg(target_os = "linux")]
            Workspace::Overlay(overlay) => overlay.not_ignored(paths),
        }
    }
}

/// The checks of every target of one repository, through one pool of copies.
fn run_repository(
    repo: &Repo,
    targets: &[IdemTarget],
    display_root: &Path,
    options: Settings,
    progress: &(dyn Fn(Progress) + Sync),
) -> Vec<(usize, Result<TargetReport, String>)> {
    let mut outcomes = Vec::new();
    let mut prepared: Vec<(usize, Context)> = Vec::new();
    for &index in &repo.targets {
        match Context::prepare(
            &targets[index],
            &repo.manifest,
            display_root,
            options,
            progress,
        ) {
            Ok(context) => prepared.push((index, context)),
            Err(error) => outcomes.push((index, Err(error.to_string()))),
        }
    }
    let pool = Mutex::new(Vec::<Workspace>::new());
    // No-op and fixpoint of every target first: a target whose command fails on the
    // committed files has nothing to self-heal.
    let bases = parallel(
        &prepared,
        options.jobs,
        (&repo.manifest, repo.layout),
        &pool,
        |copy, (_, context)| match copy {
            Ok(copy) => context.base(copy),
            Err(error) => Err(context.sandbox_error(error)),
        },
    );
    let mut reports: Vec<Option<TargetReport>> = Vec::new();
    let mut jobs: Vec<(usize, &Mutant)> = Vec::new();
    for ((index, context), base) in prepared.iter().zip(bases) {
        match base {
            Ok((checks, timed_out)) => {
                if !timed_out {
                    jobs.extend(context.mutants.iter().map(|mutant| (reports.len(), mutant)));
                }
                reports.push(Some(TargetReport {
                    dir: context.dir_display.clone(),
                    run: context.target.run.clone(),
                    checks,
                }));
            }
            Err(error) => {
                outcomes.push((*index, Err(error.to_string())));
                reports.push(None);
            }
        }
    }
    let heals = parallel(
        &jobs,
        options.jobs,
        (&repo.manifest, repo.layout),
        &pool,
        |copy, (slot, mutant)| {
            let context = &prepared[*slot].1;
            match copy {
                Ok(copy) => context.heal(copy, mutant),
                Err(error) => context.broken(mutant, error),
            }
        },
    );
    for ((slot, _), result) in jobs.iter().zip(heals) {
        if let Some(report) = &mut reports[*slot] {
            report.checks.push(result);
        }
    }
    for ((index, _), report) in prepared.iter().zip(reports) {
        if let Some(report) = report {
            outcomes.push((*index, Ok(report)));
        }
    }
    outcomes
}

/// Runs `work` on every job with up to `jobs` workers, each holding a copy from the
/// pool; results in job order.
///
/// A worker without a copy makes one only when that pays: once a copy exists and a
/// job has run, a new copy is made when the work left, shared by one more worker,
/// outlasts making it. One target's few checks then run in one copy, a monorepo's
/// hundreds in one per core.
fn parallel<J: Sync, R: Send>(
    items: &[J],
    jobs: usize,
    (manifest, layout): (&Manifest, Layout),
    pool: &Mutex<Vec<Workspace>>,
    work: impl Fn(Result<&mut Workspace, &std::io::Error>, &J) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Popped from the end: reversed, so jobs start in order.
    let queue = Mutex::new(items.iter().enumerate().rev().collect::<Vec<_>>());
    let results = Mutex::new(Vec::with_capacity(items.len()));
    let workers = jobs.max(1).min(items.len().max(1));
    // What it costs to make a copy and to run a job, learnt as the run goes.
    let copy_cost = Mutex::new(None::<Duration>);
    let job_costs = Mutex::new((Duration::ZERO, 0u32));
    let holders = AtomicUsize::new(0);
    let remaining = || queue.lock().map_or(0, |q| q.len());
    let worth_a_copy = || -> Option<bool> {
        let copy = (*copy_cost.lock().ok()?)?;
        let (total, count) = *job_costs.lock().ok()?;
        if count == 0 {
            return None;
        }
        let average = total / count;
        let sharing = holders.load(Ordering::SeqCst) as u32 + 1;
        Some(average * remaining() as u32 / sharing > copy)
    };
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (queue, results, pool, work) = (&queue, &results, &pool, &work);
            let (copy_cost, job_costs, holders, worth_a_copy, remaining) =
                (&copy_cost, &job_costs, &holders, &worth_a_copy, &remaining);
            scope.spawn(move || {
                let mut own: Option<Workspace> = pool.lock().ok().and_then(|mut free| free.pop());
                if own.is_none() && worker > 0 {
                    // Wait to know whether another copy pays.
                    loop {
                        if remaining() == 0 {
                            return;
                        }
                        match worth_a_copy() {
                            Some(true) => break,
                            Some(false) => return,
                            None => std::thread::sleep(Duration::from_millis(5)),
                        }
                    }
                }
                if own.is_none() {
                    let start = Instant::now();
                    match Workspace::new(manifest, layout) {
                        Ok(copy) => {
                            if let Ok(mut cost) = copy_cost.lock() {
                                cost.get_or_insert(start.elapsed());
                            }
                            own = Some(copy);
                        }
                        Err(error) => {
                            // Every job this worker would have run says why.
                            while let Some((index, item)) =
                                queue.lock().ok().and_then(|mut q| q.pop())
                            {
                                let result = work(Err(&error), item);
                                if let Ok(mut results) = results.lock() {
                                    results.push((index, result));
                                }
                            }
                            return;
                        }
                    }
                }
                holders.fetch_add(1, Ordering::SeqCst);
                while let Some((index, item)) = queue.lock().ok().and_then(|mut q| q.pop()) {
                    let Some(copy) = own.as_mut() else { break };
                    let start = Instant::now();
                    let result = work(Ok(copy), item);
                    if let Ok(mut costs) = job_costs.lock() {
                        costs.0 += start.elapsed();
                        costs.1 += 1;
                    }
                    if let Ok(mut results) = results.lock() {
                        results.push((index, result));
                    }
                }
                if let (Some(copy), Ok(mut free)) = (own, pool.lock()) {
                    free.push(copy);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// What every check of one target shares.
struct Context<'a> {
    target: &'a IdemTarget,
    manifest: &'a Manifest,
    relative_dir: PathBuf,
    dir_display: String,
    mutants: Vec<Mutant>,
    confine: bool,
    progress: &'a (dyn Fn(Progress) + Sync),
    done: std::sync::atomic::AtomicUsize,
}

impl<'a> Context<'a> {
    /// Checks what can be checked before any command runs: the tools, the files, the
    /// blocks; and builds the mutants.
    fn prepare(
        target: &'a IdemTarget,
        manifest: &'a Manifest,
        display_root: &Path,
        options: Settings,
        progress: &'a (dyn Fn(Progress) + Sync),
    ) -> Result<Context<'a>, IdemError> {
        let dir_display = display(display_root, &target.dir);
        if let Some(message) = command::missing_tool(&target.run, &target.dir) {
            return Err(IdemError::MissingTool(message));
        }
        if !options.confine {
            // Unconfined, a command writes wherever a committed link points.
            if let Some((link, to)) = sandbox::escaping_link(manifest) {
                return Err(IdemError::Sandbox {
                    root: manifest.root.display().to_string(),
                    message: format!(
                        "{} is a symlink to {}, outside the repository, and without Landlock nothing keeps the command from writing there; remove the link, or run where Landlock is available",
                        link.display(),
                        to.display()
                    ),
                });
            }
        }
        let target_dir = target
            .dir
            .canonicalize()
            .unwrap_or_else(|_| target.dir.clone());
        let relative_dir = target_dir
            .strip_prefix(&manifest.root)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let target_files: Vec<PathBuf> = manifest
            .entries
            .keys()
            .filter(|path| {
                path.strip_prefix(&relative_dir)
                    .is_ok_and(|inside| target.files.is_match(inside))
            })
            .cloned()
            .collect();
        if target_files.is_empty() {
            return Err(IdemError::NoFiles {
                dir: dir_display.clone(),
                globs: target.file_globs.clone(),
                run: target.run.clone(),
            });
        }
        let mutants = mutants(target, options, manifest, &target_files, &dir_display)?;
        Ok(Context {
            target,
            manifest,
            relative_dir,
            dir_display,
            mutants,
            confine: options.confine,
            progress,
            done: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    fn sandbox_error(&self, error: &std::io::Error) -> IdemError {
        if error.kind() == std::io::ErrorKind::NotFound
            && error.to_string().contains(command::SPAWN)
        {
            return IdemError::MissingTool(format!(
                "{error}; tether runs `{}` with `sh -c`, and `sh` must be on PATH",
                self.target.run
            ));
        }
        IdemError::Sandbox {
            root: self.manifest.root.display().to_string(),
            message: error.to_string(),
        }
    }

    fn tick(&self, check: &str) {
        (self.progress)(Progress {
            run: self.target.run.clone(),
            check: check.to_string(),
            done: self.done.load(std::sync::atomic::Ordering::SeqCst),
            total: 2 + self.mutants.len(),
        });
    }

    fn advance(&self) {
        self.done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Runs the command in the workspace.
    fn run_in(
        &self,
        copy: &mut Workspace,
    ) -> std::io::Result<(command::RunOutcome, BTreeSet<PathBuf>)> {
        copy.run(self.manifest, &self.relative_dir, self.target, self.confine)
    }

    /// No-op, then fixpoint, in one copy; `true` with them when the first run timed out.
    fn base(&self, copy: &mut Workspace) -> Result<(Vec<CheckResult>, bool), IdemError> {
        copy.pristine(self.manifest)
            .map_err(|error| self.sandbox_error(&error))?;
        self.tick("no-op");
        let (outcome, changed) = self
            .run_in(copy)
            .map_err(|error| self.sandbox_error(&error))?;
        // A command an interrupt killed did not fail: the run is over.
        if stopping() {
            return Err(IdemError::Interrupted);
        }
        if !outcome.succeeded() && !outcome.timed_out {
            let mut stderr = outcome.stderr.trim_end().to_string();
            if outcome.status == Some(127) {
                if let Some(word) = command::not_found(&stderr) {
                    stderr.push_str(&format!(
                        "\nthe shell could not find `{word}`: install it, or fix the command"
                    ));
                }
            }
            return Err(IdemError::CommandFailed {
                run: self.target.run.clone(),
                dir: self.dir_display.clone(),
                status: outcome
                    .status
                    .map_or("killed by a signal".to_string(), |status| {
                        status.to_string()
                    }),
                stderr,
            });
        }
        self.advance();
        let (first, after_first) = self.judge(
            CheckKind::NoOp,
            None,
            copy,
            &changed,
            &BTreeMap::new(),
            &outcome,
        );
        if outcome.timed_out {
            return Ok((vec![first], true));
        }
        self.tick("fixpoint");
        let (second, changed) = self
            .run_in(copy)
            .map_err(|error| self.sandbox_error(&error))?;
        self.advance();
        let (fixpoint, _) = self.judge(
            CheckKind::Fixpoint,
            None,
            copy,
            &changed,
            &after_first,
            &second,
        );
        Ok((vec![first, fixpoint], false))
    }

    /// Puts the mutant in a pristine copy, runs the command, and expects the
    /// committed files back.
    fn heal(&self, copy: &mut Workspace, mutant: &Mutant) -> CheckResult {
        if let Err(error) = copy.pristine(self.manifest) {
            return self.broken(mutant, &error);
        }
        if let Err(error) = copy.write(&mutant.files) {
            return self.broken(mutant, &error);
        }
        self.tick(&format!("self-heal {}", mutant.name));
        let result = match self.run_in(copy) {
            Ok((outcome, mut changed)) => {
                changed.extend(mutant.files.keys().cloned());
                let (mut result, _) = self.judge(
                    CheckKind::SelfHeal,
                    Some(mutant.name.clone()),
                    copy,
                    &changed,
                    &BTreeMap::new(),
                    &outcome,
                );
                if !outcome.succeeded() && !outcome.timed_out {
                    result.ok = false;
                    result.message = Some(format!(
                        "`{}` exited with {} on the copy without this block",
                        self.target.run,
                        outcome
                            .status
                            .map_or("a signal".to_string(), |status| status.to_string())
                    ));
                }
                result
            }
            Err(error) => self.broken(mutant, &error),
        };
        self.advance();
        result
    }

    fn broken(&self, mutant: &Mutant, error: &std::io::Error) -> CheckResult {
        CheckResult {
            kind: CheckKind::SelfHeal,
            mutant: Some(mutant.name.clone()),
            ok: false,
            changed: Vec::new(),
            diff: String::new(),
            comment_moves: Vec::new(),
            command_status: None,
            timed_out: false,
            stdout: String::new(),
            stderr: String::new(),
            duration_ms: 0,
            message: Some(format!("the sandbox copy failed: {error}")),
        }
    }

    /// Compares what the `paths` a run touched must be (`expected` where given, else
    /// as committed) with what they are; new files that `.gitignore` excludes do not
    /// count. Returns the check and what the paths are now (`None`: absent).
    fn judge(
        &self,
        kind: CheckKind,
        mutant: Option<String>,
        copy: &Workspace,
        paths: &BTreeSet<PathBuf>,
        expected: &BTreeMap<PathBuf, Option<Entry>>,
        outcome: &command::RunOutcome,
    ) -> (CheckResult, BTreeMap<PathBuf, Option<Entry>>) {
        let (known, new): (BTreeSet<PathBuf>, BTreeSet<PathBuf>) =
            paths.iter().cloned().partition(|path| {
                self.manifest.entries.contains_key(path) || expected.contains_key(path)
            });
        let mut compared = known;
        compared.extend(copy.not_ignored(&new, &self.manifest.root));
        let mut present = copy.entries(self.manifest, &compared);
        let mut now = BTreeMap::new();
        let mut changed = Vec::new();
        let mut diff = String::new();
        let mut comment_moves = Vec::new();
        // The diffs of one check share the target's timeout, and at most
        // MAX_DIFFED_FILES are diffed and MAX_LISTED_FILES listed: a command that
        // rewrites 100,000 files makes a report of bounded size in bounded time.
        let deadline = Instant::now() + self.target.timeout;
        let mut not_diffed = 0usize;
        let mut not_listed = 0usize;
        for path in &compared {
            let after = present.remove(path);
            let before = match expected.get(path) {
                Some(entry) => entry.clone(),
                None => self.manifest.pristine(path),
            };
            if before != after {
                let shown = self.show(path);
                let left = deadline.saturating_duration_since(Instant::now());
                if changed.len() >= MAX_DIFFED_FILES || left.is_zero() {
                    not_diffed += 1;
                } else {
                    let budget = left.min(DIFF_DEADLINE);
                    diff.push_str(&unified_diff(
                        &shown,
                        before.as_ref(),
                        after.as_ref(),
                        budget,
                    ));
                    if let (
                        Some(Entry::File { bytes: old, .. }),
                        Some(Entry::File { bytes: new, .. }),
                    ) = (&before, &after)
                    {
                        if is_model_file(path) {
                            comment_moves.extend(moves::moves(path, &shown, old, new));
                        }
                    }
                }
                if changed.len() < MAX_LISTED_FILES {
                    changed.push(shown);
                } else {
                    not_listed += 1;
                }
            }
            now.insert(path.clone(), after);
        }
        if not_diffed > 0 {
            diff.push_str(&format!(
                "… {not_diffed} more changed files not diffed (at most {MAX_DIFFED_FILES} are, within --timeout {})\n",
                format_duration(self.target.timeout)
            ));
        }
        if not_listed > 0 {
            changed.push(format!("… {not_listed} more"));
        }
        let timed_out = outcome.timed_out;
        let ok = changed.is_empty() && !timed_out && outcome.succeeded();
        let message =
            timed_out.then(|| format!("timed out after {}", format_duration(self.target.timeout)));
        let result = CheckResult {
            kind,
            mutant,
            ok,
            changed,
            diff,
            comment_moves,
            command_status: outcome.status,
            timed_out,
            stdout: outcome.stdout.clone(),
            stderr: outcome.stderr.clone(),
            duration_ms: outcome.duration.as_millis() as u64,
            message,
        };
        (result, now)
    }

    /// A repository path as the report shows it: relative to the command's folder.
    fn show(&self, path: &Path) -> String {
        match path.strip_prefix(&self.relative_dir) {
            Ok(inside) => inside.display().to_string(),
            Err(_) => {
                let ups = self.relative_dir.components().count();
                format!("{}{}", "../".repeat(ups), path.display())
            }
        }
    }
}

/// The self-heal mutants: each configured block removed alone, then all of them
/// (or, with `--discover`, each top-level block of the target files).
fn mutants(
    target: &IdemTarget,
    options: Settings,
    manifest: &Manifest,
    target_files: &[PathBuf],
    dir_display: &str,
) -> Result<Vec<Mutant>, IdemError> {
    let pristine: BTreeMap<&PathBuf, (String, bool)> = target_files
        .iter()
        .filter_map(|path| match manifest.pristine(path) {
            Some(Entry::File { bytes, executable }) => String::from_utf8(bytes.to_vec())
                .ok()
                .map(|text| (path, (text, executable))),
            _ => None,
        })
        .collect();
    let mut found: Vec<(String, Vec<(PathBuf, blocks::Block)>)> = Vec::new();
    if options.discover {
        for (path, (text, _)) in &pristine {
            for block in blocks::top_level(text) {
                found.push((block.opening.clone(), vec![((*path).clone(), block)]));
            }
        }
    } else {
        for opening in &target.self_heal {
            let mut places = Vec::new();
            for (path, (text, _)) in &pristine {
                places.extend(
                    blocks::find(text, opening)
                        .into_iter()
                        .map(|block| ((*path).clone(), block)),
                );
            }
            if places.is_empty() {
                return Err(IdemError::BlockNotFound {
                    opening: opening.clone(),
                    globs: target.file_globs.clone(),
                    dir: dir_display.to_string(),
                });
            }
            found.push((opening.trim().to_string(), places));
        }
    }
    let mutate = |removals: &[&(PathBuf, blocks::Block)]| -> BTreeMap<PathBuf, Entry> {
        let mut files = BTreeMap::new();
        for (path, (text, executable)) in &pristine {
            let blocks: Vec<blocks::Block> = removals
                .iter()
                .filter(|(file, _)| file == *path)
                .map(|(_, block)| block.clone())
                .collect();
            if blocks.is_empty() {
                continue;
            }
            files.insert(
                (*path).clone(),
                Entry::File {
                    bytes: std::sync::Arc::new(blocks::remove(text, &blocks).into_bytes()),
                    executable: *executable,
                },
            );
        }
        files
    };
    let mut mutants: Vec<Mutant> = found
        .iter()
        .map(|(name, places)| Mutant {
            name: name.clone(),
            files: mutate(&places.iter().collect::<Vec<_>>()),
        })
        .collect();
    if !options.discover && found.len() > 1 {
        let all: Vec<&(PathBuf, blocks::Block)> =
            found.iter().flat_map(|(_, places)| places).collect();
        mutants.push(Mutant {
            name: "all".into(),
            files: mutate(&all),
        });
    }
    Ok(mutants)
}

fn is_model_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension == "yaml" || extension == "yml" || extension == "tpl")
}

/// A file larger than this is summarised (size, hash), not diffed.
pub const MAX_DIFF_INPUT: usize = 1024 * 1024;

/// A file's diff is cut after this many lines, with how many more there were.
pub const MAX_DIFF_LINES: usize = 400;

/// How long one file's diff may take; past it, `similar` gives a coarser diff.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// A check diffs at most this many changed files; the others are counted.
pub const MAX_DIFFED_FILES: usize = 50;

/// A check lists at most this many changed files; the others are counted (the last
/// entry of `changed` says how many).
pub const MAX_LISTED_FILES: usize = 1000;

/// `what must be` → `what is`, with `a/` and `b/` headers; `/dev/null` for a file
/// that must not exist or is missing. Bounded: a binary or large file is summarised,
/// the diff has a deadline, and it is cut after [`MAX_DIFF_LINES`] lines.
fn unified_diff(
    path: &str,
    before: Option<&Entry>,
    after: Option<&Entry>,
    budget: Duration,
) -> String {
    let old_header = if before.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".to_string()
    };
    let new_header = if after.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".to_string()
    };
    let text = |entry: Option<&Entry>| -> Option<String> {
        match entry {
            None => Some(String::new()),
            Some(Entry::File { bytes, .. }) if bytes.len() <= MAX_DIFF_INPUT => {
                String::from_utf8(bytes.to_vec()).ok()
            }
            Some(Entry::File { .. } | Entry::Large { .. }) => None,
            Some(Entry::Link(target)) => Some(format!("symlink to {}\n", target.display())),
            Some(Entry::Unreadable(why)) => Some(format!("(cannot be read back: {why})\n")),
        }
    };
    let (Some(old), Some(new)) = (text(before), text(after)) else {
        let summary = |entry: Option<&Entry>| match entry {
            None => "absent".to_string(),
            Some(Entry::File { bytes, .. }) => format!(
                "{} bytes, xxh3 {:016x}",
                bytes.len(),
                xxhash_rust::xxh3::xxh3_64(bytes)
            ),
            Some(Entry::Large { size, hash, .. }) => format!("{size} bytes, xxh3 {hash:016x}"),
            Some(Entry::Link(target)) => format!("symlink to {}", target.display()),
            Some(Entry::Unreadable(why)) => format!("unreadable: {why}"),
        };
        return format!(
            "--- {old_header}\n+++ {new_header}\n(binary or larger than {} KiB, not diffed: {} → {})\n",
            MAX_DIFF_INPUT / 1024,
            summary(before),
            summary(after)
        );
    };
    if old.is_empty() && new.is_empty() {
        let what = if before.is_none() {
            "new empty file"
        } else {
            "empty file deleted"
        };
        return format!("--- {old_header}\n+++ {new_header}\n({what})\n");
    }
    let diff = similar::TextDiff::configure()
        .timeout(budget)
        .diff_lines(&old, &new);
    let mut out = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_header, &new_header)
        .to_string();
    if out.is_empty() {
        // Same lines, other bytes: only the executable bit or a final newline.
        out = format!("--- {old_header}\n+++ {new_header}\n(file mode or symlink differs)\n");
    }
    let lines = out.lines().count();
    if lines > MAX_DIFF_LINES {
        let mut cut: String = out
            .lines()
            .take(MAX_DIFF_LINES)
            .flat_map(|line| [line, "\n"])
            .collect();
        cut.push_str(&format!("… {} more lines\n", lines - MAX_DIFF_LINES));
        out = cut;
    }
    out
}

fn display(root: &Path, path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match path.strip_prefix(&root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".into(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// `3s`, `1m30s`, `250ms`.
pub fn format_duration(duration: Duration) -> String {
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
