//! The command line: arguments, dispatch, and the only place that prints.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use crate::check::{CheckOptions, Mode};
use crate::config::{Config, ConfigError};
use crate::diagnostic::Severity;
use crate::report;
use crate::resolve::Resolver;
use crate::rules::{self, RULES};
use crate::walk;

/// Keeps the comments of Helm chart templates tied to the keys they explain.
#[derive(Debug, Parser)]
#[command(name = "tether", version, about)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint comments and docs in templates and values.yaml: required comments on keys,
    /// detached comments, template-aware comment style, values documentation.
    Check {
        /// Chart folders or files to check. Default: the configuration's folder, or the
        /// working directory without one.
        paths: Vec<PathBuf>,
        /// The configuration file. Default: `tether.toml` in the first path's folder or
        /// the nearest folder above it (the working directory without paths).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
        format: CheckFormat,
        /// Do not read or write the cache in `.tether_cache/`.
        #[arg(long)]
        no_cache: bool,
        /// Parse every file, not only those a rule needs a tree for (slower; the
        /// findings are the same).
        #[arg(long)]
        full: bool,
        /// Run only this rule (repeatable); a rule that is off runs as `warn`.
        #[arg(long, value_name = "RULE")]
        select: Vec<String>,
        /// Which findings make the exit code 1: `error` (default), `warning` (any
        /// finding), or `never`. Exit 2 (bad configuration, unreadable input) stays.
        #[arg(long, value_enum, default_value_t = FailOn::Error)]
        fail_on: FailOn,
        /// Check only the files added, modified, renamed or copied since REV's merge
        /// base with HEAD, untracked files included (git does the listing).
        #[arg(long, value_name = "REV")]
        changed_since: Option<String>,
        /// With --changed-since: report only findings on changed lines.
        #[arg(long, requires = "changed_since")]
        changed_lines: bool,
    },
    /// Prove that a regeneration command (`make update`) is a no-op on the committed
    /// files, a fixpoint, restores every configured block byte for byte, and keeps
    /// comments on their keys; in sandbox copies, never in your tree.
    Idem(IdemArgs),
    /// List the rules, or print one rule's documentation.
    Rules {
        /// A rule's name.
        name: Option<String>,
    },
    /// Write a commented starter `tether.toml`.
    Init {
        /// The folder to write it in.
        #[arg(default_value = ".")]
        folder: PathBuf,
        /// Overwrite an existing `tether.toml`.
        #[arg(long)]
        force: bool,
    },
    /// Print the comment-anchored model of files: every key path and the comments
    /// that document it, which are detached, which are free-standing.
    Map {
        /// Output format.
        #[arg(long, value_enum, default_value_t = MapFormat::Text)]
        format: MapFormat,
        /// Files or chart folders to model (a folder's files are chosen as `check`
        /// chooses them). Files under a `templates/` folder and `*.tpl` files are read
        /// as Helm templates; everything else as plain YAML.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// rustc-style snippets.
    Human,
    /// The stable JSON documented in the README.
    Json,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// SARIF 2.1.0, for code scanning upload.
    Sarif,
}

/// Which findings fail a run (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Findings at error level.
    Error,
    /// Any finding.
    Warning,
    /// None: exit 0 unless tether could not do its job.
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MapFormat {
    Text,
    Json,
}

/// Exit codes shared by every command (DESIGN §7).
pub mod exit {
    /// Clean.
    pub const OK: u8 = 0;
    /// Findings at error level.
    pub const FINDINGS: u8 = 1;
    /// tether could not do its job: bad config, unreadable input.
    pub const TROUBLE: u8 = 2;
}

/// Runs a parsed command line and returns the process exit code.
pub fn run(args: Args) -> ExitCode {
    let code = match args.command {
        Command::Map { format, files } => map(format, &files),
        Command::Check {
            paths,
            config,
            format,
            no_cache,
            full,
            select,
            fail_on,
            changed_since,
            changed_lines,
        } => check(
            &paths,
            config.as_deref(),
            format,
            CheckFlags {
                no_cache,
                full,
                fail_on,
                changed_since,
                changed_lines,
            },
            &select,
        ),
        Command::Rules { name } => rules(name.as_deref()),
        Command::Idem(args) => idem(args),
        Command::Init { folder, force } => init(&folder, force),
    };
    ExitCode::from(code)
}

/// Loads `--config`, or discovers `tether.toml` from the first path (or the working
/// directory).
fn load_config(paths: &[PathBuf], explicit: Option<&Path>) -> Result<Config, ConfigError> {
    if let Some(path) = explicit {
        return Config::load(path);
    }
    let start = match paths.first() {
        Some(path) if path.is_file() => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        Some(path) => path.clone(),
        None => PathBuf::from("."),
    };
    match Config::discover(&crate::paths::absolute(&start)) {
        Some(found) => Config::load(&found),
        None => Ok(Config::default_for(crate::paths::absolute(Path::new(".")))),
    }
}

/// The switches of `tether check`.
struct CheckFlags {
    no_cache: bool,
    full: bool,
    fail_on: FailOn,
    changed_since: Option<String>,
    changed_lines: bool,
}

fn check(
    paths: &[PathBuf],
    config: Option<&Path>,
    format: CheckFormat,
    flags: CheckFlags,
    select: &[String],
) -> u8 {
    let CheckFlags {
        no_cache,
        full,
        fail_on,
        changed_since,
        changed_lines,
    } = flags;
    // Machines read every outcome: a run that cannot start still prints the usual
    // object, its `errors` saying why.
    let trouble = |message: String| {
        eprintln!("error: {message}");
        if format == CheckFormat::Json {
            let report = crate::check::CheckReport {
                failures: vec![message],
                ..crate::check::CheckReport::default()
            };
            print!("{}", report::json::render(&report));
        }
        exit::TROUBLE
    };
    // With `--config`, one configuration for every file; else each file's nearest
    // `tether.toml`, found below the first that the working directory (or the first
    // path) sits in.
    let explicit = config;
    let mut config = match load_config(paths, explicit) {
        Ok(config) => config,
        Err(error) => return trouble(error.to_string()),
    };
    if !select.is_empty() {
        if let Err(error) = config.select(select) {
            return trouble(error);
        }
    }
    let inputs = if paths.is_empty() {
        vec![config.root.clone()]
    } else {
        paths.to_vec()
    };
    let config_root = config.root.clone();
    let resolver = if explicit.is_some() {
        Resolver::one(config)
    } else {
        Resolver::discover(
            Config::default_for(crate::paths::absolute(Path::new("."))),
            select.to_vec(),
        )
    };
    let options = CheckOptions {
        mode: if full { Mode::Full } else { Mode::Lazy },
        cache: !no_cache,
    };
    let changes = match &changed_since {
        Some(revision) => match crate::changes::Changes::since(&config_root, revision) {
            Ok(changes) => Some(changes),
            Err(error) => return trouble(error),
        },
        None => None,
    };
    let changed = changes.as_ref().map(|changes| crate::check::Changed {
        changes,
        lines_only: changed_lines,
    });
    let report = crate::check::check_resolved(&resolver, &inputs, options, changed);
    // Nothing was checked because no input could be: the errors say it all.
    let nothing_checked = report.files == 0 && !report.failures.is_empty();
    let output = match format {
        CheckFormat::Human | CheckFormat::Github if nothing_checked => String::new(),
        CheckFormat::Human => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            report::human::render(&report, color)
        }
        CheckFormat::Json => report::json::render(&report),
        CheckFormat::Github => report::github::render(&report, &machine_root(&report.root)),
        CheckFormat::Sarif => report::sarif::render(&report, &machine_root(&report.root)),
    };
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(output.as_bytes()).is_err() {
        return exit::TROUBLE;
    }
    for note in &report.notes {
        eprintln!("note: {}", report::human::escape_controls(note));
    }
    for failure in &report.failures {
        eprintln!("error: {failure}");
    }
    let failing = match fail_on {
        FailOn::Error => report.count(Severity::Error),
        FailOn::Warning => report.diagnostics.len(),
        FailOn::Never => 0,
    };
    if !report.failures.is_empty() {
        exit::TROUBLE
    } else if failing > 0 {
        exit::FINDINGS
    } else {
        exit::OK
    }
}

/// The folder machine-read paths are relative to: `GITHUB_WORKSPACE` in GitHub
/// Actions, else the git top level of the configuration's folder, else that folder;
/// so annotations and SARIF name the same file wherever tether ran from.
fn machine_root(config_root: &Path) -> PathBuf {
    if let Some(workspace) = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty()) {
        return crate::paths::absolute(Path::new(&workspace));
    }
    walk::git(config_root)
        .args(["rev-parse", "--show-toplevel"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
        .filter(|top| !top.as_os_str().is_empty())
        .map(|top| crate::paths::absolute(&top))
        .unwrap_or_else(|| config_root.to_path_buf())
}

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
    /// Output format.
    #[arg(long, value_enum, default_value_t = IdemFormat::Text)]
    pub format: IdemFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdemFormat {
    Text,
    Json,
    /// GitHub Actions workflow commands: one annotation per failed check.
    Github,
}

fn idem(args: IdemArgs) -> u8 {
    // Ctrl-C: kill the commands' process groups and remove every sandbox copy.
    let _ = ctrlc::set_handler(|| {
        crate::idem::interrupt();
        eprintln!("\ninterrupted: sandbox copies removed");
        std::process::exit(130);
    });
    let dir = crate::paths::absolute(args.dir.as_deref().unwrap_or(Path::new(".")));
    let (targets, display_root) = if let Some(run) = args.run {
        let timeout = match crate::config::parse_duration(&args.timeout) {
            Ok(timeout) => timeout,
            Err(message) => {
                eprintln!("error: --timeout: {message}");
                return exit::TROUBLE;
            }
        };
        let files = if args.files.is_empty() {
            vec!["**/*".to_string()]
        } else {
            args.files
        };
        match crate::config::IdemTarget::new(run, dir.clone(), files, args.self_heal, timeout) {
            Ok(target) => (vec![target], crate::paths::absolute(Path::new("."))),
            Err(message) => {
                eprintln!("error: {message}");
                return exit::TROUBLE;
            }
        }
    } else {
        let paths = vec![dir.clone()];
        match load_config(&paths, args.config.as_deref()) {
            Ok(config) => (config.idem.clone(), crate::paths::absolute(Path::new("."))),
            Err(error) => {
                eprintln!("error: {error}");
                return exit::TROUBLE;
            }
        }
    };
    let options = crate::idem::IdemOptions {
        jobs: args.jobs.unwrap_or_else(rayon::current_num_threads),
        discover: args.discover,
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    });
    let progress = |step: crate::idem::Progress| {
        if let Some(bar) = &bar {
            bar.set_message(format!(
                "[{}/{}] `{}`: {}",
                step.done + 1,
                step.total,
                step.run,
                step.check
            ));
        }
    };
    let result = crate::idem::run(&targets, &display_root, options, &progress);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = match result {
        Ok(report) => report,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::TROUBLE;
        }
    };
    let output = match args.format {
        IdemFormat::Text => report::idem::human(&report),
        IdemFormat::Json => report::idem::json(&report),
        IdemFormat::Github => {
            let cwd = crate::paths::absolute(Path::new("."));
            report::idem::github(&report, &cwd, &machine_root(&cwd))
        }
    };
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(output.as_bytes()).is_err() {
        return exit::TROUBLE;
    }
    if !report.user_tree_changes.is_empty() {
        exit::TROUBLE
    } else if report.failed() > 0 && !args.discover {
        exit::FINDINGS
    } else {
        exit::OK
    }
}

fn rules(name: Option<&str>) -> u8 {
    match name {
        None => {
            let width = RULES.iter().map(|r| r.rule.name().len()).max().unwrap_or(0);
            for registered in RULES {
                println!(
                    "{:width$}  {:5}  {}",
                    registered.rule.name(),
                    registered.rule.default_level().as_str(),
                    registered.summary()
                );
            }
            exit::OK
        }
        Some(name) => match rules::find(name) {
            Some(registered) => {
                print!("{}", rules::rule_page(registered));
                exit::OK
            }
            None => {
                eprintln!("error: unknown rule `{name}`; `tether rules` lists every rule");
                exit::TROUBLE
            }
        },
    }
}

fn init(folder: &Path, force: bool) -> u8 {
    let path = folder.join(crate::config::FILE_NAME);
    if path.exists() && !force {
        eprintln!(
            "error: {} already exists; pass --force to overwrite it",
            path.display()
        );
        return exit::TROUBLE;
    }
    match std::fs::write(&path, crate::config::starter()) {
        Ok(()) => {
            println!(
                "wrote {}; run `tether check {}`",
                path.display(),
                folder.display()
            );
            exit::OK
        }
        Err(error) => {
            eprintln!("error: cannot write {}: {error}", path.display());
            exit::TROUBLE
        }
    }
}

fn map(format: MapFormat, paths: &[PathBuf]) -> u8 {
    let config = match load_config(paths, None) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::TROUBLE;
        }
    };
    // A file named is shown as written; a folder's files by their path below it.
    let mut files = Vec::new();
    let mut code = exit::OK;
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let walked = walk::files(
            &crate::resolve::Resolver::one(config.clone()),
            std::slice::from_ref(path),
        );
        for (folder, message) in walked.unreadable {
            eprintln!("error: cannot read folder {}: {message}", folder.display());
            code = exit::TROUBLE;
        }
        for message in walked.bad_inputs {
            eprintln!("error: {message}");
            code = exit::TROUBLE;
        }
        let base = crate::paths::absolute(path);
        files.extend(
            walked
                .files
                .into_iter()
                .map(|file| path.join(crate::paths::relative_to(&file.absolute, &base))),
        );
    }
    let results: Vec<_> = files
        .par_iter()
        .map(|path| {
            crate::source::read_regular(path, crate::source::MAX_FILE_BYTES).map(|bytes| {
                crate::yaml::pipeline::model_bytes_with(path, bytes, &config.directives)
            })
        })
        .collect();
    let mut models = Vec::new();
    for (path, result) in files.iter().zip(results) {
        match result {
            Ok(model) => models.push(model),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                eprintln!(
                    "error: {}: no such file or folder; pass a file or a chart folder",
                    path.display()
                );
                code = exit::TROUBLE;
            }
            Err(error) => {
                eprintln!("error: cannot read {}: {error}", path.display());
                code = exit::TROUBLE;
            }
        }
    }
    let output = match format {
        MapFormat::Text => models
            .iter()
            .map(report::map::text)
            .collect::<Vec<_>>()
            .join("\n"),
        MapFormat::Json => report::map::json(&models) + "\n",
    };
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(output.as_bytes()).is_err() {
        return exit::TROUBLE;
    }
    code
}
