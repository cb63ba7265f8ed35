//! A run, repository by repository: targets grouped by the repository around their
//! folder, each repository listed, hashed and fingerprinted once, its targets'
//! checks run over one pool of workspaces, and its tree compared afterwards.

use std::path::Path;

use super::check::{Context, Settings};
use super::command;
use super::contain;
use super::mutants::Mutant;
use super::options::Progress;
use super::pool::parallel;
use super::report::{Containment, IdemReport, Sandboxing, TargetReport};
use super::sandbox::{self, Source, TreeManifest};
use super::workspace::{Layout, Workspace};
use crate::error::IdemError;
use crate::settings::config::IdemTarget;

/// What each target of a run came to: its report, or why it could not be checked.
type Outcome = Result<TargetReport, String>;

/// Runs every target's checks. `display_root` is what the targets' folders are shown
/// relative to.
///
/// Targets are grouped by repository: each repository is listed, hashed into a
/// [`TreeManifest`] (no bytes kept) and fingerprinted once per run, and copied once per
/// worker; the workers take the checks of all its targets from one queue, and
/// between checks a copy gets back only the files the last command changed.
pub(super) fn run_checks(
    targets: &[IdemTarget],
    display_root: &Path,
    options: Settings,
    listed: Option<&crate::git::Listed>,
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
        unwatched: Vec::new(),
        display_root: display_root.to_path_buf(),
    };
    // Processes a command detaches come back to tether, which kills them.
    contain::become_subreaper();
    command::STOPPING.store(false, std::sync::atomic::Ordering::SeqCst);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; targets.len()];
    let repos = repositories(targets, options, listed, &mut report.sandbox, &mut outcomes);
    for repo in &repos {
        for (index, outcome) in run_repository(repo, targets, display_root, options, progress) {
            outcomes[index] = Some(outcome);
        }
        // Nothing a command started is left to write once the tree is compared.
        if let Err(message) = contain::kill_orphans(&[]) {
            report.errors.push(message);
        }
        let after = sandbox::fingerprint(&repo.manifest.root);
        report.unwatched.extend(
            sandbox::unread(&repo.before)
                .into_iter()
                .map(|path| repo.manifest.root.join(path).display().to_string()),
        );
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
    manifest: TreeManifest,
    /// The user's tree before any command ran.
    before: sandbox::Fingerprint,
    /// Indices into the run's targets.
    targets: Vec<usize>,
    /// What its workspaces are.
    layout: Layout,
}

/// The repositories of `targets`, each read once, with its layout chosen (the last
/// one chosen is what `sandboxing` says); a target whose repository cannot be read
/// gets its error in `outcomes`.
fn repositories(
    targets: &[IdemTarget],
    options: Settings,
    listed: Option<&crate::git::Listed>,
    sandboxing: &mut Sandboxing,
    outcomes: &mut [Option<Outcome>],
) -> Vec<Repo> {
    let mut repos: Vec<Repo> = Vec::new();
    for (index, target) in targets.iter().enumerate() {
        let sandbox_error = |root: &Path, error: std::io::Error| {
            IdemError::Sandbox {
                root: root.display().to_string(),
                message: error.to_string(),
            }
            .to_string()
        };
        // A target of a repository already listed joins it: the repository is
        // listed once per run, whatever the number of its targets.
        let root = match Source::root_of(&target.dir) {
            Ok(root) => root,
            Err(error) => {
                outcomes[index] = Some(Err(sandbox_error(&target.dir, error)));
                continue;
            }
        };
        if let Some(repo) = repos.iter_mut().find(|repo| repo.manifest.root == root) {
            repo.targets.push(index);
            continue;
        }
        // The listing the command line made to find the targets, when it is of
        // this repository.
        let source = match listed.filter(|listed| listed.root == root) {
            Some(listed) => Ok(Source::from_listed(listed)),
            None => Source::around(&target.dir),
        };
        let source = match source {
            Ok(source) => source,
            Err(error) => {
                outcomes[index] = Some(Err(sandbox_error(&target.dir, error)));
                continue;
            }
        };
        let before = sandbox::fingerprint(&source.root);
        match TreeManifest::read(&source) {
            Ok(manifest) => match Layout::choose(&manifest, options.sandbox) {
                Ok((layout, chosen)) => {
                    *sandboxing = chosen;
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
    repos
}

/// The checks of every target of one repository, through one pool of workspaces.
fn run_repository(
    repo: &Repo,
    targets: &[IdemTarget],
    display_root: &Path,
    options: Settings,
    progress: &(dyn Fn(Progress) + Sync),
) -> Vec<(usize, Outcome)> {
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
    // The workspaces made for the no-op and fixpoint checks serve the self-heals.
    let mut free: Vec<Box<dyn Workspace>> = Vec::new();
    let make = || repo.layout.workspace(&repo.manifest);
    // No-op and fixpoint of every target first: a target whose command fails on the
    // committed files has nothing to self-heal.
    let bases = parallel(&prepared, options.jobs, &mut free, &make, &|workspace,
                                                                      (
        _,
        context,
    ): &(
        usize,
        Context,
    )| match workspace {
        Ok(workspace) => context.base(workspace.as_mut()),
        Err(error) => Err(context.sandbox_error(error)),
    });
    let mut reports: Vec<Option<TargetReport>> = Vec::new();
    let mut jobs: Vec<(usize, &Mutant)> = Vec::new();
    for ((index, context), base) in prepared.iter().zip(bases) {
        match base {
            Ok((mut checks, timed_out)) => {
                checks.extend(context.missing());
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
        &mut free,
        &make,
        &|workspace, (slot, mutant): &(usize, &Mutant)| {
            let context = &prepared[*slot].1;
            match workspace {
                Ok(workspace) => context.heal(workspace.as_mut(), mutant),
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
