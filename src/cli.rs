//! The command line: arguments, dispatch, and the only place that prints. It uses
//! the library's public surface only, as any other program would.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use helm_tether::snapshot::{self, SnapshotFormat};
use helm_tether::{
    ChangedSince, CheckOptions, CheckReport, Config, ConfigError, ConfigSource, Format, Severity,
    check_with,
};

/// Keeps the comments of Helm chart templates tied to the keys they explain.
#[derive(Debug, Parser)]
#[command(name = "tether", version = env!("TETHER_VERSION"), about)]
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
        /// One configuration file for every file checked. Default: each file's nearest
        /// `tether.toml` (in its folder or above); files with none get the defaults.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output format (also spelled `--output-format`, as ruff spells it).
        #[arg(long, alias = "output-format", value_enum, default_value_t = CheckFormat::Human)]
        format: CheckFormat,
        /// Colour the human and concise output: `auto` (default) colours on a
        /// terminal unless `NO_COLOR` is set, or off one when `FORCE_COLOR` or
        /// `CLICOLOR_FORCE` is.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Do not read or write the cache in `.tether_cache/`.
        #[arg(long)]
        no_cache: bool,
        /// Parse every file, not only those a rule needs a tree for (slower; the
        /// findings are the same).
        #[arg(long)]
        full: bool,
        /// Run only these rules (repeatable, or comma-separated); a rule that is off
        /// runs as `warn`.
        #[arg(long, value_name = "RULE", value_delimiter = ',')]
        select: Vec<String>,
        /// Turn these rules off (repeatable, or comma-separated), after `--select`.
        #[arg(long, value_name = "RULE", value_delimiter = ',')]
        ignore: Vec<String>,
        /// Print how many findings each rule has instead of the findings (as a table,
        /// or with `--format json` as a JSON array).
        #[arg(long)]
        statistics: bool,
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
        /// Print the effective rule settings of FILE and where each came from
        /// (defaults, yamllint or chart-testing configuration, `tether.toml`), then
        /// exit without checking.
        #[arg(long, value_name = "FILE")]
        show_settings: Option<PathBuf>,
        /// Fix what needs no judgement (comment-starting-space, inline-comment-spacing,
        /// comment-indentation) in place, then report what is left. Only whitespace
        /// in the fixed comments' lines changes; line endings stay.
        #[arg(long)]
        fix: bool,
        /// Print what --fix would change, as a unified diff, without writing (with
        /// --fix too: nothing is written); exit 1 when it would change anything.
        #[arg(long)]
        diff: bool,
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
        /// In a chart folder, add tether's files (`tether.toml`, `.tether_cache/`,
        /// `snapshots/`) to its `.helmignore` without asking, so `helm package`
        /// leaves them out.
        #[arg(long)]
        helmignore: bool,
    },
    /// Pin which comment documents which key: compare every template and values
    /// file with its snapshot (`--check`, the default), or write the snapshots
    /// (`--update`).
    Snapshot(SnapshotArgs),
    /// Serve the Language Server Protocol on stdin and stdout, for editors: the
    /// findings of `check` as you type, its fixes as code actions, hover and
    /// navigation over `.Values` and named templates.
    Server,
    /// Print a shell completion script: `tether completions bash > /etc/bash_completion.d/tether`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff) on standard output: `tether man > tether.1`, or one
    /// subcommand's with its options: `tether man check > tether-check.1`.
    Man {
        /// The subcommand whose page to print (each `tether-NAME(1)` that
        /// `tether man` lists).
        subcommand: Option<String>,
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
    /// One line a finding: `path:line:column: level[rule]: message`.
    Concise,
    /// The stable JSON documented in docs/src/check.md.
    Json,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// SARIF 2.1.0, for code scanning upload.
    Sarif,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` says no; off one, when `FORCE_COLOR` or
    /// `CLICOLOR_FORCE` says yes.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour standard output, by the conventions of no-color.org and
    /// force-color.org: `NO_COLOR` wins over `FORCE_COLOR` and `CLICOLOR_FORCE`
    /// (each counts when set and not empty; `CLICOLOR_FORCE=0` does not), and a flag
    /// wins over all of them.
    fn colors(self, terminal: bool, var: impl Fn(&str) -> Option<String>) -> bool {
        let set = |name: &str| var(name).is_some_and(|value| !value.is_empty());
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if set("NO_COLOR") => false,
            ColorChoice::Auto
                if set("FORCE_COLOR")
                    || var("CLICOLOR_FORCE")
                        .is_some_and(|value| !value.is_empty() && value != "0") =>
            {
                true
            }
            ColorChoice::Auto => terminal,
        }
    }
}

/// Which findings fail a run (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Findings at error level.
    Error,
    /// Any finding (also spelled `warn`, as levels are in tether.toml).
    #[value(alias = "warn")]
    Warning,
    /// None: exit 0 unless tether could not do its job.
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MapFormat {
    Text,
    Json,
}

/// The arguments of `tether snapshot`.
#[derive(Debug, clap::Args)]
pub struct SnapshotArgs {
    /// Only the files at or below these paths. Default: every file the
    /// configuration covers. The configuration is the nearest `tether.toml` of the
    /// first path (or of the working directory).
    pub paths: Vec<PathBuf>,
    /// The configuration file. Default: the nearest `tether.toml` of the first path.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Write the snapshot of every file whose snapshot is missing or differs,
    /// remove snapshots of files that are gone, and drop pending snapshots.
    #[arg(long, group = "mode")]
    pub update: bool,
    /// Fail when a snapshot differs, is missing, or names no file (the default).
    /// Outside CI (`CI` unset), each changed snapshot is also written as a pending
    /// `.snap.new` beside the old one, as insta does.
    #[arg(long, group = "mode")]
    pub check: bool,
    /// Walk through the pending snapshots: show each diff and ask to accept,
    /// reject or skip it (answers are read from standard input).
    #[arg(long, group = "mode")]
    pub review: bool,
    /// Accept every pending snapshot.
    #[arg(long, group = "mode")]
    pub accept: bool,
    /// Reject (remove) every pending snapshot.
    #[arg(long, group = "mode")]
    pub reject: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SnapshotOutput::Human)]
    pub format: SnapshotOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SnapshotOutput {
    /// A sentence and a unified diff per snapshot.
    Human,
    /// GitHub Actions workflow commands: an annotation per changed entry.
    Github,
}

/// Exit codes shared by every command (DESIGN §7).
pub mod exit {
    /// Clean.
    pub const OK: u8 = 0;
    /// Findings at error level; for `tether server`, an `exit` without `shutdown`
    /// before it (as the Language Server Protocol has it).
    pub const FINDINGS: u8 = 1;
    /// tether could not do its job: bad config, unreadable input.
    pub const TROUBLE: u8 = 2;
}

/// Runs a parsed command line and returns the process exit code.
pub fn run(args: Args) -> ExitCode {
    let code = match args.command {
        Command::Map { format, files } => map(format, &files),
        Command::Check {
            config,
            select,
            ignore,
            show_settings: Some(file),
            ..
        } => or_trouble(
            settings(&file, config.as_deref(), &RuleChoice { select, ignore })
                .map_err(|error| error.to_string()),
        ),
        Command::Check {
            paths,
            config,
            format,
            color,
            no_cache,
            full,
            select,
            ignore,
            statistics,
            fail_on,
            changed_since,
            changed_lines,
            show_settings: None,
            fix,
            diff,
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
                fix,
                diff,
                statistics,
                color: color.colors(std::io::stdout().is_terminal(), |name| {
                    std::env::var(name).ok()
                }),
            },
            &RuleChoice { select, ignore },
        ),
        Command::Rules { name } => or_trouble(rules(name.as_deref())),
        #[cfg(unix)]
        Command::Idem(args) => or_trouble(idem(args)),
        #[cfg(not(unix))]
        Command::Idem(_) => {
            eprintln!("error: {}", helm_tether::idem::IdemError::NeedsUnix);
            exit::TROUBLE
        }
        Command::Init {
            folder,
            force,
            helmignore,
        } => or_trouble(init(&folder, force, helmignore)),
        Command::Snapshot(args) => or_trouble(snapshot(args)),
        Command::Server => or_trouble(
            helm_tether::serve()
                .map(|clean| if clean { exit::OK } else { exit::FINDINGS })
                .map_err(|error| format!("the language server stopped: {error}")),
        ),
        Command::Completions { shell } => {
            let mut command = Args::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "tether", &mut script);
            // Printed as every output is: a closed pipe (`| head`) is an exit, not a
            // panic.
            if print_out(&String::from_utf8_lossy(&script)) {
                exit::OK
            } else {
                exit::TROUBLE
            }
        }
        Command::Man { subcommand } => or_trouble(man(subcommand.as_deref())),
    };
    ExitCode::from(code)
}

/// `tether man [SUBCOMMAND]`: the page of tether, or of `tether-SUBCOMMAND`, which
/// the first lists; so every page it names exists.
fn man(subcommand: Option<&str>) -> Result<u8, String> {
    let mut command = Args::command();
    // Building names each subcommand `tether-NAME`, the name of its page.
    command.build();
    let page = match subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => sub.clone().version(env!("TETHER_VERSION")),
            None => {
                let names: Vec<&str> = command
                    .get_subcommands()
                    .map(|sub| sub.get_name())
                    .collect();
                return Err(format!(
                    "no man page for `{name}`; the pages are tether and tether-NAME for NAME in: {}",
                    names.join(", ")
                ));
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|error| format!("cannot render the man page: {error}"))?;
    Ok(if print_out(&String::from_utf8_lossy(&roff)) {
        exit::OK
    } else {
        exit::TROUBLE
    })
}

/// A command's exit code, or exit 2 with its error printed.
fn or_trouble(result: Result<u8, String>) -> u8 {
    result.unwrap_or_else(|message| {
        say_error(&message);
        exit::TROUBLE
    })
}

/// An absolute, normalised path (symlinks resolved when the path exists).
fn absolute(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Loads `--config`, or discovers `tether.toml` from the first path (or the working
/// directory); without one, the defaults for the working directory.
fn load_config(paths: &[PathBuf], explicit: Option<&Path>) -> Result<Config, ConfigError> {
    if let Some(path) = explicit {
        return Config::load(path);
    }
    let start = match paths.first() {
        Some(path) if path.is_file() => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        Some(path) => path.clone(),
        None => PathBuf::from("."),
    };
    match Config::find(&absolute(&start)) {
        Some(found) => Config::load(&found),
        None => Ok(Config::default_for(absolute(Path::new(".")))),
    }
}

/// `tether check --show-settings FILE`.
fn settings(
    file: &Path,
    explicit: Option<&Path>,
    rules: &RuleChoice,
) -> Result<u8, helm_tether::Error> {
    let configs = match explicit {
        Some(path) => {
            let mut config = Config::load(path)?;
            rules.narrow(&mut config)?;
            ConfigSource::One(config)
        }
        None => ConfigSource::Nearest {
            fallback: Config::default_for(absolute(Path::new("."))),
            select: rules.select.clone(),
            ignore: rules.ignore.clone(),
        },
    };
    let text = helm_tether::show_settings(configs, file)?;
    // Paths below the working directory are shown relative to it.
    let shown = match std::env::current_dir() {
        Ok(current) => text.replace(&format!("{}/", current.display()), ""),
        Err(_) => text,
    };
    Ok(if print_text(&shown) {
        exit::OK
    } else {
        exit::TROUBLE
    })
}

/// Writes to standard output; false when it is closed.
fn print_out(text: &str) -> bool {
    std::io::stdout().lock().write_all(text.as_bytes()).is_ok()
}

/// Prints `error: …` to stderr, a file's escape sequences shown, not sent.
fn say_error(message: &dyn std::fmt::Display) {
    eprintln!(
        "error: {}",
        helm_tether::escape_controls(&message.to_string())
    );
}

/// Prints text for people (a comment map, settings, an idem report): a file's escape
/// sequences are shown as `\x1b`, never sent to the terminal, wherever it goes.
fn print_text(text: &str) -> bool {
    print_out(&helm_tether::escape_controls(text))
}

/// The switches of `tether check`.
struct CheckFlags {
    no_cache: bool,
    full: bool,
    fail_on: FailOn,
    changed_since: Option<String>,
    changed_lines: bool,
    fix: bool,
    diff: bool,
    statistics: bool,
    /// Colour the human and concise output.
    color: bool,
}

/// `--select` and `--ignore`.
struct RuleChoice {
    select: Vec<String>,
    ignore: Vec<String>,
}

impl RuleChoice {
    /// Narrows one configuration to the chosen rules.
    fn narrow(&self, config: &mut Config) -> Result<(), helm_tether::Error> {
        if !self.select.is_empty() {
            config.select(&self.select)?;
        }
        config.ignore(&self.ignore)
    }
}

fn check(
    paths: &[PathBuf],
    config: Option<&Path>,
    format: CheckFormat,
    flags: CheckFlags,
    rules: &RuleChoice,
) -> u8 {
    let trouble = |message: String| check_trouble(format, message);
    // With `--config`, one configuration for every file; else each file's nearest
    // `tether.toml`, found below the first that the working directory (or the first
    // path) sits in.
    let explicit = config;
    let mut config = match load_config(paths, explicit) {
        Ok(config) => config,
        Err(error) => return trouble(error.to_string()),
    };
    if let Err(error) = rules.narrow(&mut config) {
        return trouble(error.to_string());
    }
    if flags.statistics && matches!(format, CheckFormat::Github | CheckFormat::Sarif) {
        return trouble("--statistics prints a table or, with --format json, a JSON array; it does not go with --format github or sarif".into());
    }
    let inputs = if paths.is_empty() {
        vec![config.root().to_path_buf()]
    } else {
        paths.to_vec()
    };
    let mut options = CheckOptions::default()
        .full(flags.full)
        .cache(!flags.no_cache);
    if let Some(revision) = flags.changed_since.clone() {
        options = options.changed_since(
            ChangedSince::new(config.root(), revision).lines_only(flags.changed_lines),
        );
    }
    let configs = || {
        if explicit.is_some() {
            ConfigSource::One(config.clone())
        } else {
            ConfigSource::Nearest {
                fallback: Config::default_for(absolute(Path::new("."))),
                select: rules.select.clone(),
                ignore: rules.ignore.clone(),
            }
        }
    };
    if flags.fix || flags.diff {
        // `--fix --diff` shows what would be fixed, as ruff does: nothing is written.
        let write = flags.fix && !flags.diff;
        let report = match helm_tether::fix_paths(configs(), &inputs, write) {
            Ok(report) => report,
            Err(error) => return trouble(error.to_string()),
        };
        if let Some(code) = fixed(&report, flags.diff) {
            return code;
        }
    }
    let configs = configs();
    let report = match check_with(configs, &inputs, &options) {
        Ok(report) => report,
        Err(error) => return trouble(error.to_string()),
    };
    if !print_out(&check_output(&report, format, &flags)) {
        return exit::TROUBLE;
    }
    eprint!("{}", report.render_messages());
    let failing = match flags.fail_on {
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

/// A check that cannot start, said on standard error and, for machines, in the
/// usual output with its `errors` saying why: in GitHub's format an annotation, in
/// SARIF a tool execution notification, in JSON the `errors` list; never an empty
/// file.
fn check_trouble(format: CheckFormat, message: String) -> u8 {
    say_error(&message);
    let root = || helm_tether::machine_root(&absolute(Path::new(".")));
    let failed = CheckReport::failed(message);
    match format {
        CheckFormat::Json => {
            print_out(&failed.render(&Format::Json));
        }
        CheckFormat::Github => {
            print_out(&failed.render(&Format::Github { root: root() }));
        }
        CheckFormat::Sarif => {
            print_out(&failed.render(&Format::Sarif { root: root() }));
        }
        CheckFormat::Human | CheckFormat::Concise => {}
    }
    exit::TROUBLE
}

/// Says what `--fix` did, or with `--diff` shows what it would do (and then ends
/// the run: `Some` exit code); `None` when the check goes on after the fixes.
fn fixed(report: &helm_tether::FixReport, diff: bool) -> Option<u8> {
    for failure in &report.failures {
        eprintln!("error: {}", helm_tether::escape_controls(failure));
    }
    for held in &report.held {
        eprintln!("note: {}", helm_tether::escape_controls(&held.to_string()));
    }
    if diff {
        // A file's escape sequences never reach a terminal; piped, the diff stays
        // byte for byte what `git apply` needs.
        let text = report.diff();
        let text = if std::io::stdout().is_terminal() {
            helm_tether::escape_controls(&text)
        } else {
            text
        };
        if !print_out(&text) {
            return Some(exit::TROUBLE);
        }
        eprintln!(
            "tether: --fix would apply {} fixes in {} of {} files",
            report.count(),
            report.files.len(),
            report.checked
        );
        return Some(if !report.failures.is_empty() {
            exit::TROUBLE
        } else if report.files.is_empty() {
            exit::OK
        } else {
            exit::FINDINGS
        });
    }
    eprintln!(
        "tether: fixed {} findings in {} file{}",
        report.count(),
        report.files.len(),
        if report.files.len() == 1 { "" } else { "s" }
    );
    (!report.failures.is_empty()).then_some(exit::TROUBLE)
}

/// What `tether check` prints on standard output for `report`.
fn check_output(report: &CheckReport, format: CheckFormat, flags: &CheckFlags) -> String {
    // Nothing was checked because no input could be: the errors say it all.
    let nothing_checked = report.files == 0 && !report.failures.is_empty();
    match format {
        _ if flags.statistics && !nothing_checked => statistics(report, format),
        CheckFormat::Human | CheckFormat::Concise if nothing_checked => String::new(),
        CheckFormat::Human => report.render(&Format::Human { color: flags.color }),
        CheckFormat::Concise => report.render(&Format::Concise { color: flags.color }),
        CheckFormat::Json => report.render(&Format::Json),
        CheckFormat::Github => report.render(&Format::Github {
            root: helm_tether::machine_root(&report.root),
        }),
        CheckFormat::Sarif => report.render(&Format::Sarif {
            root: helm_tether::machine_root(&report.root),
        }),
    }
}

/// `--statistics`: findings per rule, most first, as a table or a JSON array.
fn statistics(report: &CheckReport, format: CheckFormat) -> String {
    let mut counts: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for diagnostic in &report.diagnostics {
        let entry = counts.entry(diagnostic.rule.name()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(diagnostic.fix.is_some());
    }
    let mut rows: Vec<(&str, usize, usize)> = counts
        .into_iter()
        .map(|(rule, (count, fixable))| (rule, count, fixable))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if format == CheckFormat::Json {
        let rows: Vec<serde_json::Value> = rows
            .iter()
            .map(|(rule, count, fixable)| {
                serde_json::json!({ "rule": rule, "count": count, "fixable": fixable })
            })
            .collect();
        return serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n";
    }
    let width = rows
        .iter()
        .map(|(_, count, _)| count.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for (rule, count, fixable) in rows {
        let fixable = if fixable > 0 {
            format!("  ({fixable} fixable with --fix)")
        } else {
            String::new()
        };
        out.push_str(&format!("{count:>width$}  {rule}{fixable}\n"));
    }
    out
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
    #[arg(long, value_enum, default_value_t = IdemOutput::Text)]
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
    Text,
    Json,
    /// GitHub Actions workflow commands: one annotation per failed check.
    Github,
}

/// After an interrupt, the handler removes the sandboxes and exits 130: what the
/// killed commands left is no verdict, and an "interrupted" error from the run is
/// not one either (exit 2 would race the handler's 130), so the main thread waits
/// for the handler. `None` when no interrupt came.
fn left_to_the_interrupt_handler() -> Option<u8> {
    if !interrupted() {
        return None;
    }
    std::thread::sleep(std::time::Duration::from_secs(60));
    Some(130)
}

/// Whether Ctrl-C stopped the run: the handler is removing the sandboxes and exits.
fn interrupted() -> bool {
    #[cfg(unix)]
    return helm_tether::idem::stopping();
    #[cfg(not(unix))]
    return false;
}

#[cfg(unix)]
fn idem(args: IdemArgs) -> Result<u8, String> {
    use helm_tether::idem::{IdemFormat, IdemOptions};
    // Ctrl-C, SIGTERM, SIGHUP: stop, kill the commands, remove every sandbox copy.
    let _ = ctrlc::set_handler(|| {
        let left = helm_tether::idem::interrupt();
        if left.is_empty() {
            eprintln!("\ninterrupted: sandbox copies removed");
        }
        for message in left {
            eprintln!("\ninterrupted: {message}");
        }
        std::process::exit(130);
    });
    let dir = absolute(args.dir.as_deref().unwrap_or(Path::new(".")));
    let (targets, broken) = idem_targets(&args, &dir)?;
    if targets.is_empty() && !broken.is_empty() {
        return Err(broken.join("\n"));
    }
    if targets.is_empty() {
        return idem_nothing_to_prove(&args);
    }
    let cwd = absolute(Path::new("."));
    let mut options = IdemOptions::default()
        .discover(args.discover)
        .contain(!args.no_contain)
        .sandbox(match args.sandbox {
            SandboxArg::Auto => helm_tether::idem::SandboxKind::Auto,
            SandboxArg::Overlay => helm_tether::idem::SandboxKind::Overlay,
            SandboxArg::Copy => helm_tether::idem::SandboxKind::Copy,
        })
        .display_root(cwd.clone());
    if let Some(jobs) = args.jobs {
        options = options.jobs(jobs);
    }
    for folder in args.only {
        options = options.only(folder);
    }
    if let Some(revision) = args.changed_since {
        options = options.changed_since(revision);
    }
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
    let result = helm_tether::idem::run_targets(&targets, &options);
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
        write_new_file(file, report.render(&IdemFormat::Json).as_bytes())
            .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    }
    let printed = match args.format {
        IdemOutput::Text => print_text(&report.render(&IdemFormat::Text)),
        IdemOutput::Json => print_out(&report.render(&IdemFormat::Json)),
        IdemOutput::Github => print_text(&report.render(&IdemFormat::Github {
            root: helm_tether::machine_root(&cwd),
            cwd,
        })),
    };
    if !printed {
        return Ok(exit::TROUBLE);
    }
    for error in report.errors.iter().chain(&broken) {
        eprintln!("error: {}", helm_tether::escape_controls(error));
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

/// The targets of `tether idem`: `--run`'s, or the `[[idem]]` entries of the
/// configuration and (without `--config`) of the configurations of the packages
/// below, as `tether check` finds them; with the errors of broken configurations,
/// which do not stop the others.
#[cfg(unix)]
fn idem_targets(
    args: &IdemArgs,
    dir: &Path,
) -> Result<(Vec<helm_tether::idem::IdemTarget>, Vec<String>), String> {
    use helm_tether::idem::IdemTarget;
    if let Some(run) = &args.run {
        let timeout = helm_tether::parse_duration(&args.timeout)
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
        return Ok((vec![target], Vec::new()));
    }
    let mut targets = load_config(&[dir.to_path_buf()], args.config.as_deref())
        .map_err(|error| error.to_string())?
        .idem_targets()
        .to_vec();
    let mut broken = Vec::new();
    if args.config.is_none() {
        // The configurations `tether check` finds below, through its resolver.
        let (configs, errors) = helm_tether::configurations_under(dir);
        broken = errors;
        for config in configs {
            for target in config.idem_targets() {
                let same = |known: &IdemTarget| {
                    known.dir() == target.dir()
                        && known.run() == target.run()
                        && known.files() == target.files()
                };
                if !targets.iter().any(same) {
                    targets.push(target.clone());
                }
            }
        }
    }
    Ok((targets, broken))
}

/// `tether idem` where no `[[idem]]` entry is: a note, and an empty report where
/// one is asked for.
#[cfg(unix)]
fn idem_nothing_to_prove(args: &IdemArgs) -> Result<u8, String> {
    let note = "no [[idem]] entry in any tether.toml here or in the folders below, so nothing to prove; add one to the tether.toml of a chart with a regeneration command (see docs/src/idem.md), or pass --run";
    eprintln!("note: {note}");
    let empty = format!(
        "{}\n",
        serde_json::json!({ "targets": [], "errors": [], "note": note })
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
    targets: &[helm_tether::idem::IdemTarget],
    options: &helm_tether::idem::IdemOptions,
    cwd: &Path,
    broken: &[String],
) -> Result<u8, String> {
    let listed =
        helm_tether::idem::selected(targets, options).map_err(|error| error.to_string())?;
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
        eprintln!("error: {}", helm_tether::escape_controls(error));
    }
    Ok(if broken.is_empty() {
        exit::OK
    } else {
        exit::TROUBLE
    })
}

fn rules(name: Option<&str>) -> Result<u8, String> {
    match name {
        None => {
            let rules = helm_tether::rules();
            let width = rules.iter().map(|rule| rule.name.len()).max().unwrap_or(0);
            for rule in rules {
                println!(
                    "{:width$}  {:5}  {}",
                    rule.name,
                    rule.default_level.as_str(),
                    rule.summary
                );
            }
            Ok(exit::OK)
        }
        Some(name) => {
            let rule =
                helm_tether::rule(name).ok_or_else(|| helm_tether::unknown_rule(name, ""))?;
            print!("{}", rule.page);
            Ok(exit::OK)
        }
    }
}

fn init(folder: &Path, force: bool, helmignore: bool) -> Result<u8, String> {
    let path = folder.join("tether.toml");
    // Never written through a link, dangling or not.
    match path.symlink_metadata() {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(format!(
                "{} is a symlink; tether writes only a regular tether.toml",
                path.display()
            ));
        }
        Ok(_) if !force => {
            return Err(format!(
                "{} already exists; pass --force to overwrite it",
                path.display()
            ));
        }
        _ => {}
    }
    let starter = Config::starter_toml_in(folder);
    std::fs::write(&path, &starter)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    println!(
        "wrote {}; run `tether check {}`",
        path.display(),
        folder.display()
    );
    if let Some(line) = starter.lines().find(|line| line.starts_with("extend = ")) {
        println!("it extends the configuration above it ({line})");
    }
    offer_helmignore(folder, helmignore)
}

/// What `helm package` would pack of tether's in a chart folder, as `.helmignore`
/// lines.
const HELMIGNORED: [&str; 3] = ["tether.toml", ".tether_cache/", "snapshots/"];

/// In a chart folder, adds tether's files to `.helmignore` (with `--helmignore`, or
/// when the person at the terminal says yes), or says which lines it lacks.
fn offer_helmignore(folder: &Path, add: bool) -> Result<u8, String> {
    if !folder.join("Chart.yaml").is_file() {
        return Ok(exit::OK);
    }
    let file = folder.join(".helmignore");
    if file.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        eprintln!(
            "note: {} is not a regular file; add {} to it yourself so `helm package` leaves them out",
            file.display(),
            HELMIGNORED.join(", ")
        );
        return Ok(exit::OK);
    }
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let listed: Vec<&str> = text.lines().map(str::trim).collect();
    let missing: Vec<&str> = HELMIGNORED
        .iter()
        .copied()
        .filter(|entry| {
            let bare = entry.trim_end_matches('/');
            !listed.iter().any(|line| *line == *entry || *line == bare)
        })
        .collect();
    if missing.is_empty() {
        return Ok(exit::OK);
    }
    let add = add
        || (std::io::stdin().is_terminal()
            && std::io::stderr().is_terminal()
            && {
                eprint!(
                    "{} is a chart folder: `helm package` would pack {}; add them to .helmignore? [y/N] ",
                    folder.display(),
                    missing.join(", ")
                );
                let mut answer = String::new();
                std::io::stdin().read_line(&mut answer).is_ok()
                    && matches!(answer.trim(), "y" | "Y" | "yes")
            });
    if !add {
        eprintln!(
            "note: {} is a chart folder and its .helmignore does not list {}: `helm package` would pack them; add those lines, or run `tether init --helmignore`",
            folder.display(),
            missing.join(", ")
        );
        return Ok(exit::OK);
    }
    let mut lines = String::new();
    if !text.is_empty() && !text.ends_with('\n') {
        lines.push('\n');
    }
    lines.push_str("# tether's files (tether init)\n");
    for entry in &missing {
        lines.push_str(entry);
        lines.push('\n');
    }
    // Appended to the regular file checked above, or written new where nothing is
    // (a link there, dangling or not, makes `create_new` fail).
    let mut options = std::fs::OpenOptions::new();
    if text.is_empty() && file.symlink_metadata().is_err() {
        options.write(true).create_new(true);
    } else {
        options.append(true);
    }
    options
        .open(&file)
        .and_then(|mut opened| opened.write_all(lines.as_bytes()))
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    println!("added {} to {}", missing.join(", "), file.display());
    Ok(exit::OK)
}

fn map(format: MapFormat, paths: &[PathBuf]) -> u8 {
    // Each file with its own nearest configuration, as `check` finds it.
    let configs = ConfigSource::Nearest {
        fallback: Config::default_for(absolute(Path::new("."))),
        select: Vec::new(),
        ignore: Vec::new(),
    };
    let found = match helm_tether::comment_maps(configs, paths) {
        Ok(found) => found,
        Err(error) => {
            say_error(&error);
            return exit::TROUBLE;
        }
    };
    let mut code = exit::OK;
    for message in found.errors {
        say_error(&message);
        code = exit::TROUBLE;
    }
    let mut models = Vec::new();
    for (_, result) in found.maps {
        match result {
            Ok(model) => models.push(model),
            Err(error) => {
                say_error(&error);
                code = exit::TROUBLE;
            }
        }
    }
    let printed = match format {
        MapFormat::Text => print_text(
            &models
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        MapFormat::Json => print_out(&(helm_tether::map_json(&models) + "\n")),
    };
    if !printed {
        return exit::TROUBLE;
    }
    code
}

fn snapshot(args: SnapshotArgs) -> Result<u8, String> {
    let start = match args.paths.first() {
        Some(path) if !path.is_dir() => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        Some(path) => path.clone(),
        None => PathBuf::from("."),
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    // Without a tether.toml, the folder itself is the root the snapshots go below.
    let loaded = match &args.config {
        Some(path) => Config::load(path).map_err(helm_tether::Error::from),
        None => Config::discover(&start),
    };
    let config = loaded.map_err(|error| error.to_string())?;
    let options = snapshot::SnapshotOptions::default()
        .only(args.paths.iter().cloned())
        // CI never leaves pending files; a person's run does, for `--review`.
        .pending(!is_ci());
    if args.review || args.accept || args.reject {
        return review(&config, &options, &args);
    }
    let result = if args.update {
        snapshot::update_with(&config, &options)
    } else {
        snapshot::check_with(&config, &options)
    };
    if let Some(code) = left_to_the_interrupt_handler() {
        return Ok(code);
    }
    let report = result.map_err(|error| error.to_string())?;
    let output = match args.format {
        SnapshotOutput::Human => report.render(&SnapshotFormat::Human),
        SnapshotOutput::Github => report.render(&SnapshotFormat::Github {
            root: helm_tether::machine_root(config.root()),
            config_root: config.root().to_path_buf(),
        }),
    };
    if !print_out(&output) {
        return Ok(exit::TROUBLE);
    }
    for failure in &report.failures {
        say_error(&failure);
    }
    Ok(if !report.failures.is_empty() {
        exit::TROUBLE
    } else if !report.passed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

/// Whether this run is in CI, by the variable CI services set (`CI=true`); `CI=0`
/// or `CI=false` says it is not.
fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}

/// `tether snapshot --review`, `--accept`, `--reject`: the pending snapshots.
fn review(
    config: &Config,
    options: &snapshot::SnapshotOptions,
    args: &SnapshotArgs,
) -> Result<u8, String> {
    let pending = snapshot::pending(config, options).map_err(|error| error.to_string())?;
    if pending.is_empty() {
        println!("no pending snapshots");
        return Ok(exit::OK);
    }
    let stdin = std::io::stdin();
    let mut answers = stdin.lock();
    let (mut accepted, mut rejected, mut skipped) = (0usize, 0usize, 0usize);
    for (index, one) in pending.iter().enumerate() {
        let decision = if args.accept {
            'a'
        } else if args.reject {
            'r'
        } else {
            print!(
                "{}: pending snapshot {} of {} ({})\n{}",
                one.source.display(),
                index + 1,
                pending.len(),
                one.file.display(),
                helm_tether::escape_controls(&one.diff)
            );
            ask(&mut answers)
        };
        let done = match decision {
            'a' => snapshot::accept(config, one).map(|()| {
                accepted += 1;
                format!("accepted {}", one.snapshot.display())
            }),
            'r' => snapshot::reject(config, one).map(|()| {
                rejected += 1;
                format!("rejected {}", one.file.display())
            }),
            _ => {
                skipped += 1;
                Ok(format!("skipped {}", one.file.display()))
            }
        };
        match done {
            Ok(line) => println!("{line}"),
            Err(error) => {
                say_error(&error);
                return Ok(exit::TROUBLE);
            }
        }
    }
    println!("{accepted} accepted, {rejected} rejected, {skipped} skipped");
    Ok(exit::OK)
}

/// Asks `accept, reject or skip?` until an answer comes; the end of input skips.
fn ask(answers: &mut impl std::io::BufRead) -> char {
    loop {
        eprint!("accept (a), reject (r) or skip (s)? ");
        let mut line = String::new();
        match answers.read_line(&mut line) {
            Ok(0) | Err(_) => {
                eprintln!();
                return 's';
            }
            Ok(_) => {}
        }
        match line.trim() {
            "a" | "accept" => return 'a',
            "r" | "reject" => return 'r',
            "s" | "skip" | "" => return 's',
            _ => eprintln!("answer a, r or s"),
        }
    }
}

/// Writes `bytes` to `path`, replacing a regular file there but never following a
/// link (a report file named by the caller).
#[cfg(unix)]
fn write_new_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // Only a regular file is replaced: never a link, and never a FIFO or device,
    // whose open would block or write elsewhere.
    if let Ok(metadata) = path.symlink_metadata() {
        if metadata.file_type().is_symlink() {
            return Err(std::io::Error::other(
                "it is a symlink; tether does not write through one",
            ));
        }
        if !metadata.is_file() {
            return Err(std::io::Error::other(
                "it is not a regular file; tether writes only regular files",
            ));
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)
}
