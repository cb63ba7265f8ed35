//! The checks of one target, in a workspace: the no-op and the fixpoint on the
//! committed files, then one self-heal per mutant; and judging what a run left
//! against what must be, path by path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::command::{self, RunOutcome, stopping};
use super::diff::unified_diff;
use super::moves;
use super::mutants::{Mutant, mutants};
use super::options::{Progress, SandboxKind};
use super::report::{CheckKind, CheckResult, MAX_DIFFED_FILES, MAX_LISTED_FILES, format_duration};
use super::sandbox::{self, Entry, TreeManifest};
use super::select::display;
use super::workspace::Workspace;
use crate::error::IdemError;
use crate::settings::config::IdemTarget;

/// The options the checks read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    /// Workers, each with its own workspace (at least 1).
    pub(super) jobs: usize,
    /// `--discover`: every top-level block is a mutant.
    pub(super) discover: bool,
    /// Landlock confines each command.
    pub(super) confine: bool,
    /// What the commands run in.
    pub(super) sandbox: SandboxKind,
}

/// What every check of one target shares.
pub(super) struct Context<'a> {
    /// The target.
    pub(super) target: &'a IdemTarget,
    manifest: &'a TreeManifest,
    /// Its folder, relative to the repository's top.
    relative_dir: PathBuf,
    /// Its folder, as the report shows it.
    pub(super) dir_display: String,
    /// Its self-heal mutants.
    pub(super) mutants: Vec<Mutant>,
    /// The configured self-heal blocks that are in none of the committed files.
    pub(super) missing_blocks: Vec<String>,
    confine: bool,
    progress: &'a (dyn Fn(Progress) + Sync),
    done: AtomicUsize,
}

impl<'a> Context<'a> {
    /// Checks what can be checked before any command runs: the tools, the files, the
    /// blocks; and builds the mutants.
    pub(super) fn prepare(
        target: &'a IdemTarget,
        manifest: &'a TreeManifest,
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
        let (mutants, missing_blocks) = mutants(target, options.discover, manifest, &target_files);
        Ok(Context {
            target,
            manifest,
            relative_dir,
            dir_display,
            mutants,
            missing_blocks,
            confine: options.confine,
            progress,
            done: AtomicUsize::new(0),
        })
    }

    pub(super) fn sandbox_error(&self, error: &std::io::Error) -> IdemError {
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
            done: self.done.load(Ordering::SeqCst),
            total: 2 + self.mutants.len(),
        });
    }

    fn advance(&self) {
        self.done.fetch_add(1, Ordering::SeqCst);
    }

    /// Runs the command in the workspace.
    fn run_in(&self, copy: &mut dyn Workspace) -> std::io::Result<(RunOutcome, BTreeSet<PathBuf>)> {
        copy.run(self.manifest, &self.relative_dir, self.target, self.confine)
    }

    /// No-op, then fixpoint, in one copy; `true` with them when the first run timed out.
    pub(super) fn base(
        &self,
        copy: &mut dyn Workspace,
    ) -> Result<(Vec<CheckResult>, bool), IdemError> {
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
    pub(super) fn heal(&self, copy: &mut dyn Workspace, mutant: &Mutant) -> CheckResult {
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

    /// A failed self-heal check for each configured block that is in none of the
    /// committed files: nothing can be removed to see it come back, and a block the
    /// committed files lack is the hand-merge this check exists for.
    pub(super) fn missing(&self) -> impl Iterator<Item = CheckResult> + '_ {
        self.missing_blocks.iter().map(|opening| {
            unheard(opening.clone(), format!(
                "the block `{opening}` is in none of the committed files {:?}: a hand-merge dropped it (the no-op check shows whether `{}` brings it back), or its opening line in tether.toml differs from the file's",
                self.target.file_globs, self.target.run
            ))
        })
    }

    pub(super) fn broken(&self, mutant: &Mutant, error: &std::io::Error) -> CheckResult {
        unheard(
            mutant.name.clone(),
            format!("the sandbox copy failed: {error}"),
        )
    }

    /// Compares what the `paths` a run touched must be (`expected` where given, else
    /// as committed) with what they are; new files that `.gitignore` excludes do not
    /// count. Returns the check and what the paths are now (`None`: absent).
    fn judge(
        &self,
        kind: CheckKind,
        mutant: Option<String>,
        copy: &dyn Workspace,
        paths: &BTreeSet<PathBuf>,
        expected: &BTreeMap<PathBuf, Option<Entry>>,
        outcome: &RunOutcome,
    ) -> (CheckResult, BTreeMap<PathBuf, Option<Entry>>) {
        let (known, new): (BTreeSet<PathBuf>, BTreeSet<PathBuf>) =
            paths.iter().cloned().partition(|path| {
                self.manifest.entries.contains_key(path) || expected.contains_key(path)
            });
        let mut compared = known;
        if !new.is_empty() {
            compared.extend(copy.not_ignored(&new, &self.manifest.root));
        }
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

/// Whether a file has a comment map to compare: YAML and templates.
fn is_model_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension == "yaml" || extension == "yml" || extension == "tpl")
}

/// How long one file's diff may take; past it, `similar` gives a coarser diff.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// A failed self-heal check of `mutant` where the command never ran, and why.
fn unheard(mutant: String, message: String) -> CheckResult {
    CheckResult {
        kind: CheckKind::SelfHeal,
        mutant: Some(mutant),
        ok: false,
        changed: Vec::new(),
        diff: String::new(),
        comment_moves: Vec::new(),
        command_status: None,
        timed_out: false,
        stdout: String::new(),
        stderr: String::new(),
        duration_ms: 0,
        message: Some(message),
    }
}
