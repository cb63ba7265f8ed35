//! `tether idem`: its targets (`--run`, or the `[[idem]]` entries found below),
//! `--list`, the progress spinner, Ctrl-C, and the report in each format.

#[cfg(unix)]
use std::io::IsTerminal;
#[cfg(unix)]
use std::path::Path;
use std::path::PathBuf;

use clap::ValueEnum;

// Running commands needs Unix; elsewhere only the arguments are parsed, and
// `cli::run` says idem needs Unix.
#[cfg(unix)]
use super::common::{
    absolute, exit, left_to_the_interrupt_handler, load_config, print_out, print_text,
    write_new_file,
};

/// The arguments of `tether idem`.
#[derive(Debug, clap::Args)]
pub struct IdemArgs {
    /// The folder to run in (with --run), or to find tether.toml from. Default: the
    /// working directory.
    pub dir: Option<PathBuf>,
    /// The configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A one-off command instead of the [[idem]] entries (run with `sh -c` in DIR).
    #[arg(long)]
    pub run: Option<String>,
    /// Globs (relative to DIR) of the files the command regenerates (with --run).
    #[arg(long = "files", value_name = "GLOB")]
    pub files: Vec<String>,
    /// The opening line of a block the command must restore (with --run; repeatable).
    #[arg(long = "self-heal", value_name = "LINE")]
    pub self_heal: Vec<String>,
    /// How long one run may take (with --run).
    #[arg(long, default_value = "300s")]
    pub timeout: String,
    /// Try every whole-line top-level block of the files, and print which heal.
    #[arg(long)]
    pub discover: bool,
    /// Checks run in parallel, each in its own copy. Default: the number of cores.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Only the targets in this folder (repeatable).
    #[arg(long = "target", value_name = "DIR")]
    pub only: Vec<PathBuf>,
    /// Only the targets whose folder, Makefile includes or a tether.toml changed since
    /// REV's merge base with HEAD (untracked files included).
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// Print the resolved targets (`[[idem]] dirs` expanded) and exit.
    #[arg(long)]
    pub list: bool,
    /// Run the commands without Landlock, for a command that must write outside its
    /// sandbox; changes to your tree are still detected, and the report says so.
    #[arg(long)]
    pub no_contain: bool,
    /// What the commands run in: an overlay of your tree where this machine allows one
    /// (`auto`), always an `overlay`, or a `copy` of the tree per worker.
    #[arg(long, value_enum, default_value_t = SandboxArg::Auto)]
    pub sandbox: SandboxArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = IdemOutput::Human)]
    pub format: IdemOutput,
    /// Also write the JSON report to FILE (the Action prints annotations with
    /// `--format github` and builds its summary from this, running the commands once).
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    Auto,
    Overlay,
    Copy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdemOutput {
    /// A sentence and a unified diff per failed check (also spelled `text`).
    #[value(alias = "text")]
    Human,
    /// The stable JSON documented in docs/src/idem.md.
    Json,
    /// GitHub Actions workflow commands: one annotation per failed check.
    Github,
}

#[cfg(unix)]
pub(super) fn idem(args: IdemArgs) -> Result<u8, String> {
    use crate::report::Format;
    // Ctrl-C, SIGTERM, SIGHUP: stop, kill the commands, remove every sandbox copy.
    let _ = ctrlc::set_handler(|| {
        let left = crate::idem::interrupt();
        if left.is_empty() {
            eprintln!("\ninterrupted: sandbox copies removed");
        }
        for message in left {
            eprintln!("\ninterrupted: {message}");
        }
        std::process::exit(130);
    });
    let dir = absolute(args.dir.as_deref().unwrap_or(Path::new(".")));
    let Targets {
        targets,
        broken,
        not_run,
        listed,
    } = idem_targets(&args, &dir)?;
    for reason in &not_run {
        eprintln!("note: {}", crate::report::human::escape_controls(reason));
    }
    if targets.is_empty() && !broken.is_empty() {
        return Err(broken.join("\n"));
    }
    if targets.is_empty() {
        return idem_nothing_to_prove(&args, &not_run);
    }
    let cwd = absolute(Path::new("."));
    let mut options = idem_options(&args, &cwd);
    options.listed = listed;
    if args.list {
        return idem_list(&targets, &options, &cwd, &broken);
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    });
    if let Some(bar) = bar.clone() {
        options = options.on_progress(move |step| {
            bar.set_message(format!(
                "[{}/{}] `{}`: {}",
                step.done + 1,
                step.total,
                step.run,
                step.check
            ));
        });
    }
    let result = crate::idem::run(&targets, &options);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(code) = left_to_the_interrupt_handler() {
        return Ok(code);
    }
    let report = result.map_err(|error| error.to_string())?;
    // JSON escapes control characters itself; the other formats reach a log or a
    // terminal.
    if let Some(file) = &args.report_json {
        write_new_file(file, report.render(&Format::Json).as_bytes())
            .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    }
    let printed = match args.format {
        IdemOutput::Human => print_text(&report.render(&Format::Human { color: false })),
        IdemOutput::Json => print_out(&report.render(&Format::Json)),
        IdemOutput::Github => print_text(&report.render(&Format::Github {
            root: crate::report::machine_root(&cwd),
        })),
    };
    if !printed {
        return Ok(exit::TROUBLE);
    }
    for error in report.errors.iter().chain(&broken) {
        eprintln!("error: {}", crate::report::human::escape_controls(error));
    }
    Ok(
        if !report.user_tree_changes.is_empty() || !report.errors.is_empty() || !broken.is_empty() {
            exit::TROUBLE
        } else if report.failed() > 0 {
            exit::FINDINGS
        } else {
            exit::OK
        },
    )
}

/// The options of a run, from the arguments.
#[cfg(unix)]
fn idem_options(args: &IdemArgs, cwd: &Path) -> crate::idem::IdemOptions {
    let mut options = crate::idem::IdemOptions::default()
        .discover(args.discover)
        .contain(!args.no_contain)
        .sandbox(match args.sandbox {
            SandboxArg::Auto => crate::idem::SandboxKind::Auto,
            SandboxArg::Overlay => crate::idem::SandboxKind::Overlay,
            SandboxArg::Copy => crate::idem::SandboxKind::Copy,
        })
        .display_root(cwd.to_path_buf());
    if let Some(jobs) = args.jobs {
        options = options.jobs(jobs);
    }
    for folder in &args.only {
        options = options.only(folder.clone());
    }
    if let Some(revision) = &args.changed_since {
        options = options.changed_since(revision.clone());
    }
    options
}

/// What `tether idem` runs: the targets, the errors of broken configurations
/// (which do not stop the others), and why nested entries found below do not run.
#[cfg(unix)]
#[derive(Default)]
struct Targets {
    targets: Vec<crate::idem::IdemTarget>,
    broken: Vec<String>,
    not_run: Vec<String>,
    /// The repository as listed to find the targets, for their sandboxes.
    listed: Option<std::sync::Arc<crate::git::Listed>>,
}

/// The targets of `tether idem`: `--run`'s, or the `[[idem]]` entries of DIR's
/// configuration (`--config`, or its nearest `tether.toml`) and of the
/// configurations below that it names in `idem-packages`.
#[cfg(unix)]
fn idem_targets(args: &IdemArgs, dir: &Path) -> Result<Targets, String> {
    use crate::idem::IdemTarget;
    if let Some(run) = &args.run {
        let timeout = crate::idem::parse_duration(&args.timeout)
            .map_err(|message| format!("--timeout: {message}"))?;
        let files = if args.files.is_empty() {
            vec!["**/*".to_string()]
        } else {
            args.files.clone()
        };
        let target = IdemTarget::new(
            run.clone(),
            dir.to_path_buf(),
            files,
            args.self_heal.clone(),
            timeout,
        )?;
        return Ok(Targets {
            targets: vec![target],
            ..Targets::default()
        });
    }
    let config = load_config(&[dir.to_path_buf()], args.config.as_deref())
        .map_err(|error| error.to_string())?;
    let mut found = Targets {
        targets: config.idem_targets().to_vec(),
        ..Targets::default()
    };
    // The configurations `tether check` finds below, through its resolver.
    // The repository is listed once: here, to find the configurations below, and
    // its sandboxes are made from the same listing.
    let listed = crate::git::Listed::around(dir).map(std::sync::Arc::new);
    let (configs, broken) = crate::linter::check::configurations_under(dir, listed.as_deref());
    found.broken = broken;
    found.listed = listed;
    let mut refused: std::collections::BTreeMap<NotRun, Vec<PathBuf>> = Default::default();
    for nested in configs {
        if nested.file == config.file {
            continue;
        }
        let same = |known: &IdemTarget, target: &IdemTarget| {
            known.dir() == target.dir()
                && known.run() == target.run()
                && known.files() == target.files()
        };
        let new: Vec<IdemTarget> = nested
            .idem_targets()
            .iter()
            .filter(|target| !found.targets.iter().any(|known| same(known, target)))
            .cloned()
            .collect();
        if new.is_empty() {
            continue;
        }
        match not_run(&config, &nested.root) {
            None => found.targets.extend(new),
            Some(reason) => refused.entry(reason).or_default().push(nested.root.clone()),
        }
    }
    let cwd = absolute(Path::new("."));
    for (reason, folders) in refused {
        found
            .not_run
            .push(refusal(&config, dir, &cwd, reason, &folders));
    }
    Ok(found)
}

/// Why the `[[idem]]` entries of a configuration found below do not run.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum NotRun {
    /// Its folder lies outside the loaded configuration's.
    Outside,
    /// It lies in `node_modules`.
    NodeModules,
    /// It lies in a chart vendored under a chart's `charts/` folder.
    Vendored,
    /// The loaded configuration's `idem-packages` does not name its folder.
    Unnamed,
}

/// Why the `[[idem]]` entries of the configuration in `folder` do not run with
/// `config`'s: commands come only from the configuration a run loads and from the
/// packages its `idem-packages` names, as a workspace's root names its members;
/// never from another project's files (a chart vendored under a chart's `charts/`
/// folder, `node_modules`), whatever names them. `None`: they run.
#[cfg(unix)]
fn not_run(config: &crate::settings::config::Config, folder: &Path) -> Option<NotRun> {
    let Ok(relative) = folder.strip_prefix(&config.root) else {
        return Some(NotRun::Outside);
    };
    if relative
        .components()
        .any(|component| component.as_os_str() == "node_modules")
    {
        return Some(NotRun::NodeModules);
    }
    let file = relative.join(crate::settings::config_file::FILE_NAME);
    if crate::settings::tables::in_vendored_chart(&config.root, &file) {
        return Some(NotRun::Vendored);
    }
    (!config.idem_package(folder)).then_some(NotRun::Unnamed)
}

/// The note on the configurations in `folders` whose entries do not run, for
/// `reason`: each named where they are three or fewer, else the first three and
/// how many.
#[cfg(unix)]
fn refusal(
    config: &crate::settings::config::Config,
    dir: &Path,
    cwd: &Path,
    reason: NotRun,
    folders: &[PathBuf],
) -> String {
    let shown = |path: &Path| {
        let relative = crate::paths::relative_path(path, cwd);
        if relative.as_os_str().is_empty() {
            ".".to_string()
        } else {
            relative.display().to_string()
        }
    };
    let mut files: Vec<String> = folders
        .iter()
        .take(3)
        .map(|folder| shown(&folder.join(crate::settings::config_file::FILE_NAME)))
        .collect();
    if folders.len() > 3 {
        files.push(format!("… ({} in all)", folders.len()));
    }
    let globs: Vec<String> = folders
        .iter()
        .take(3)
        .filter_map(|folder| folder.strip_prefix(&config.root).ok())
        .map(|relative| format!("\"{}\"", crate::paths::slashed(relative)))
        .collect();
    let why = match reason {
        NotRun::Outside => format!(
            "they lie outside {}, the folder of the configuration this run loads",
            shown(&config.root)
        ),
        NotRun::NodeModules => {
            "they lie in node_modules, another project's files, whose commands tether never runs"
                .into()
        }
        NotRun::Vendored => "they lie in a chart vendored under another chart's charts/ folder, another project's files, whose commands tether never runs".into(),
        NotRun::Unnamed => match config.file() {
            Some(file) => format!(
                "{} does not name their folders in `idem-packages`; idem-packages = [{}] there runs them",
                shown(file),
                globs.join(", ")
            ),
            None => format!(
                "no tether.toml at or above {} names their folders; one there with idem-packages = [{}] runs them",
                shown(dir),
                globs.join(", ")
            ),
        },
    };
    format!(
        "the [[idem]] entries of {} are not run: {why}",
        files.join(", ")
    )
}

/// `tether idem` where no `[[idem]]` entry is: a note, and an empty report where
/// one is asked for.
#[cfg(unix)]
fn idem_nothing_to_prove(args: &IdemArgs, not_run: &[String]) -> Result<u8, String> {
    let note = if not_run.is_empty() {
        "no [[idem]] entry in any tether.toml here or in the folders below, so nothing to prove; add one to the tether.toml of a chart with a regeneration command (https://cozystack.github.io/tether/idem.html), or pass --run"
    } else {
        "no [[idem]] entry runs here, so nothing to prove: the entries found below are not run (see the notes above); the configuration this run loads names the packages whose commands it runs in `idem-packages` (https://cozystack.github.io/tether/idem.html)"
    };
    eprintln!("note: {note}");
    let empty = format!(
        "{}\n",
        serde_json::json!({ "targets": [], "errors": [], "note": note, "not_run": not_run })
    );
    if let Some(file) = &args.report_json {
        write_new_file(file, empty.as_bytes())
            .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    }
    if matches!(args.format, IdemOutput::Json) && !print_out(&empty) {
        return Ok(exit::TROUBLE);
    }
    Ok(exit::OK)
}

/// `tether idem --list`: what a run would run (`--target` and `--changed-since`
/// apply), one target a line.
#[cfg(unix)]
fn idem_list(
    targets: &[crate::idem::IdemTarget],
    options: &crate::idem::IdemOptions,
    cwd: &Path,
    broken: &[String],
) -> Result<u8, String> {
    let listed = crate::idem::selected(targets, options).map_err(|error| error.to_string())?;
    for target in &listed {
        let dir = target.dir().strip_prefix(cwd).unwrap_or(target.dir());
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        println!(
            "{}\t`{}`\tfiles {}\tself-heal {}",
            dir.display(),
            target.run(),
            target.files().join(" "),
            target.self_heal().len()
        );
    }
    for error in broken {
        eprintln!("error: {}", crate::report::human::escape_controls(error));
    }
    Ok(if broken.is_empty() {
        exit::OK
    } else {
        exit::TROUBLE
    })
}
