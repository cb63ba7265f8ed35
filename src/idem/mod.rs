//! `tether idem`: proves, in sandboxes and never in the user's tree, that a
//! regeneration command is a no-op on the committed files, a fixpoint, restores
//! every configured block byte for byte, and keeps comments on their keys.
//!
//! The user's tree is only read: listed, fingerprinted before and after, copied from.
//!
//! Why a run cannot start at all is [`IdemError`], in the crate's `error.rs` with
//! the library's other errors. The files, by job. Portable (what `tether idem
//! --list` needs, and the report on any system): `options.rs` (how a run runs),
//! `report.rs` (what it found, and the report's bounds), `select.rs` (`--target`,
//! `--changed-since`). Unix only: `repository.rs` (a run, repository by
//! repository), `check.rs` (a target's checks and judging them), `mutants.rs` and
//! `blocks.rs` (self-heal mutants), `diff.rs` and `moves.rs` (what changed: bytes,
//! comments), `pool.rs` (the workers), `workspace.rs` (what a check runs in: a copy
//! or an overlay, behind one trait), `sandbox/` (manifests, copies, fingerprints,
//! cleanup), `overlay.rs` (Linux), `ignored.rs`, `command.rs` (running a command),
//! `contain.rs` (Landlock, orphans) and `sys.rs` (the system calls that need
//! `unsafe`, the only module here allowed it).

mod options;
mod report;
mod select;

#[cfg(unix)]
mod blocks;
#[cfg(unix)]
mod check;
#[cfg(unix)]
mod command;
#[cfg(unix)]
mod contain;
#[cfg(unix)]
mod diff;
#[cfg(unix)]
mod ignored;
#[cfg(unix)]
mod moves;
#[cfg(unix)]
mod mutants;
#[cfg(target_os = "linux")]
mod overlay;
#[cfg(unix)]
mod pool;
#[cfg(unix)]
mod repository;
#[cfg(unix)]
mod sandbox;
#[cfg(unix)]
mod sys;
#[cfg(unix)]
mod workspace;

use crate::error::Error;
pub use crate::error::IdemError;
#[cfg(doc)]
use crate::settings::config::Config;
pub use crate::settings::config::IdemTarget;
#[cfg(unix)]
pub(crate) use crate::settings::idem::parse_duration;
pub use options::{IdemOptions, Progress, SandboxKind};
pub(crate) use report::format_duration;
pub use report::{
    CheckKind, CheckResult, CommentMove, Containment, IdemReport, Sandboxing, Skipped, TargetReport,
};
#[cfg(unix)]
pub(crate) use select::selected;

#[cfg(unix)]
pub(crate) use command::stopping;
#[cfg(all(unix, feature = "internals"))]
pub use sandbox::SandboxCopy;
#[cfg(unix)]
pub(crate) use sandbox::interrupt;

/// Runs `targets` (a configuration's `[[idem]]` entries, [`Config::idem_targets`], or
/// targets built with [`IdemTarget::new`]), each check in a sandbox of its
/// repository: the user's tree is only read. Only what keeps the run from starting
/// is an error ([`Error::Idem`]); a target that cannot be checked is one of
/// [`IdemReport::errors`] and the other targets still run.
///
/// ```no_run
/// # fn main() -> Result<(), helm_tether::Error> {
/// use helm_tether::idem::{self, IdemOptions};
/// let config = helm_tether::Config::discover("examples/kubevirt")?;
/// let report = idem::run(config.idem_targets(), &IdemOptions::default().jobs(2))?;
/// assert_eq!(report.failed(), 0, "{}", report.render(&helm_tether::Format::Json));
/// # Ok(())
/// # }
/// ```
#[cfg(unix)]
pub fn run(targets: &[IdemTarget], options: &IdemOptions) -> Result<IdemReport, Error> {
    run_unix(targets, options).map_err(Error::Idem)
}

#[cfg(unix)]
fn run_unix(targets: &[IdemTarget], options: &IdemOptions) -> Result<IdemReport, IdemError> {
    // A descriptor tether was started with (`exec 7>>/outside.log; tether idem`)
    // must not reach the commands.
    command::keep_inherited_descriptors_from_commands();
    // What runs killed by SIGKILL left in the temporary folder.
    sandbox::remove_stale_sandboxes();
    let display_root = select::display_root(options);
    let progress = options.progress.clone();
    let progress = move |step: Progress| {
        if let Some(progress) = &progress {
            progress(step);
        }
    };
    let (selected, skipped) = select::select(targets, options, &display_root)?;
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
            unwatched: Vec::new(),
            display_root,
        });
    }
    let mut report = repository::run_checks(
        &selected,
        &display_root,
        check::Settings {
            jobs: options.jobs.max(1),
            discover: options.discover,
            confine: matches!(containment, Containment::Landlock { .. }),
            sandbox: options.sandbox,
        },
        options.listed.as_deref(),
        containment,
        &progress,
    )?;
    report.skipped = skipped;
    Ok(report)
}

/// Runs `targets`: on a system that is not Unix, always [`IdemError::NeedsUnix`].
#[cfg(not(unix))]
pub fn run(targets: &[IdemTarget], options: &IdemOptions) -> Result<IdemReport, Error> {
    let _ = (targets, options);
    Err(Error::Idem(IdemError::NeedsUnix))
}
