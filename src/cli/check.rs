//! `tether check`: its formats and switches, `--show-settings`, `--fix` and
//! `--diff`, `--statistics`, and the exit code by `--fail-on`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::diagnostic::Severity;
use crate::error::Error;
use crate::linter::check::{ChangedSince, CheckOptions, CheckReport, ConfigSource, check_paths};
use crate::linter::fix::{FixOptions, FixReport, fix_paths};
use crate::report::Format;
use crate::settings::config::Config;

use super::common::{absolute, exit, load_config, print_out, print_text, say_error};

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
    pub(super) fn colors(self, terminal: bool, var: impl Fn(&str) -> Option<String>) -> bool {
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

/// `tether check --show-settings FILE`.
pub(super) fn settings(
    file: &Path,
    explicit: Option<&Path>,
    rules: &RuleChoice,
) -> Result<u8, Error> {
    let configs = config_source(explicit, rules)?;
    let text = crate::report::settings::show_settings(configs, file)?;
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

/// `tether check --show-files [PATHS]`: the files a check of `paths` would check,
/// one a line, sorted, as the check names them (below the working directory,
/// relative to it); what could not be listed goes to standard error, with exit 2.
pub(super) fn show_files(
    paths: &[PathBuf],
    explicit: Option<&Path>,
    rules: &RuleChoice,
) -> Result<u8, Error> {
    let inputs = inputs_of(paths);
    let mut resolver =
        config_source(explicit, rules)?.resolver(crate::linter::walk::covered(&inputs))?;
    let walked = crate::linter::walk::files(&mut resolver, &inputs);
    let current = std::env::current_dir().ok();
    let mut out = String::new();
    for file in &walked.files {
        let shown = current
            .as_deref()
            .and_then(|current| file.absolute.strip_prefix(current).ok())
            .unwrap_or(&file.absolute);
        out.push_str(&crate::paths::slashed(shown));
        out.push('\n');
    }
    if !print_text(&out) {
        return Ok(exit::TROUBLE);
    }
    // File names come from the repository: their control characters are shown,
    // not sent to the terminal.
    let escape = crate::report::human::escape_controls;
    for bad in &walked.bad_inputs {
        eprintln!("error: {}", escape(bad));
    }
    for (folder, why) in &walked.unreadable {
        eprintln!(
            "error: {}",
            escape(&format!(
                "{}: cannot be listed ({why}); the files above leave out what it holds",
                walked.root.join(folder).display()
            ))
        );
    }
    Ok(
        if walked.bad_inputs.is_empty() && walked.unreadable.is_empty() {
            exit::OK
        } else {
            exit::TROUBLE
        },
    )
}

/// Each file's configuration: the one `--config` names, else the nearest
/// `tether.toml`; `--select` and `--ignore` applied.
fn config_source(explicit: Option<&Path>, rules: &RuleChoice) -> Result<ConfigSource, Error> {
    Ok(match explicit {
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
    })
}

/// The switches of `tether check`.
pub(super) struct CheckFlags {
    pub(super) no_cache: bool,
    pub(super) full: bool,
    pub(super) fail_on: FailOn,
    pub(super) changed_since: Option<String>,
    pub(super) changed_lines: bool,
    pub(super) fix: bool,
    pub(super) diff: bool,
    pub(super) unsafe_fixes: bool,
    pub(super) statistics: bool,
    /// Colour the human and concise output.
    pub(super) color: bool,
}

/// `--select` and `--ignore`.
pub(super) struct RuleChoice {
    pub(super) select: Vec<String>,
    pub(super) ignore: Vec<String>,
}

impl RuleChoice {
    /// Narrows one configuration to the chosen rules.
    fn narrow(&self, config: &mut Config) -> Result<(), Error> {
        if !self.select.is_empty() {
            config.select(&self.select)?;
        }
        config.ignore(&self.ignore)
    }
}

pub(super) fn check(
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
    if flags.unsafe_fixes && !(flags.fix || flags.diff) {
        return trouble(
            "--unsafe-fixes goes with --fix or --diff: it says which fixes they apply".into(),
        );
    }
    if flags.statistics && matches!(format, CheckFormat::Github | CheckFormat::Sarif) {
        return trouble("--statistics prints a table or, with --format json, a JSON array; it does not go with --format github or sarif".into());
    }
    let inputs = inputs_of(paths);
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
        let options = FixOptions::default()
            .write(write)
            .unsafe_fixes(flags.unsafe_fixes);
        let report = match fix_paths(configs(), &inputs, options) {
            Ok(report) => report,
            Err(error) => return trouble(error.to_string()),
        };
        if let Some(code) = fixed(&report, flags.diff) {
            return code;
        }
    }
    let configs = configs();
    let report = match check_paths(configs, &inputs, &options) {
        Ok(report) => report,
        Err(error) => return trouble(error.to_string()),
    };
    let streamed = format == CheckFormat::Json && !flags.statistics;
    let printed = if streamed {
        // Written as it is made: the whole text of a large report is never held.
        report
            .write(&Format::Json, &mut std::io::stdout().lock())
            .is_ok()
    } else {
        print_out(&check_output(&report, format, &flags))
    };
    if !printed {
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

/// What a check of `paths` walks: the working directory when none is named (as
/// ruff and yamllint have it: in a chart folder under a repository's
/// `tether.toml`, that chart, not the repository), each named `tether.toml` as its
/// folder.
fn inputs_of(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.iter().map(|path| configured_folder(path)).collect()
    }
}

/// A `tether.toml` named as a path stands for the files it configures: its folder.
/// So a pre-commit hook that passes the staged files checks a chart again when only
/// its configuration changed (a new `[[require]]` is held to the files at once).
fn configured_folder(path: &Path) -> PathBuf {
    if path.file_name().is_some_and(|name| name == "tether.toml") && path.is_file() {
        return match path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder.to_path_buf(),
            _ => PathBuf::from("."),
        };
    }
    path.to_path_buf()
}

/// A check that cannot start, said on standard error and, for machines, in the
/// usual output with its `errors` saying why: in GitHub's format an annotation, in
/// SARIF a tool execution notification, in JSON the `errors` list; never an empty
/// file.
fn check_trouble(format: CheckFormat, message: String) -> u8 {
    say_error(&message);
    let root = || crate::report::machine_root(&absolute(Path::new(".")));
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
fn fixed(report: &FixReport, diff: bool) -> Option<u8> {
    for failure in &report.failures {
        eprintln!("error: {}", crate::report::human::escape_controls(failure));
    }
    for held in &report.held {
        eprintln!(
            "note: {}",
            crate::report::human::escape_controls(&held.to_string())
        );
    }
    if diff {
        // A file's escape sequences never reach a terminal; piped, the diff stays
        // byte for byte what `git apply` needs.
        let text = report.diff();
        let text = if std::io::stdout().is_terminal() {
            crate::report::human::escape_controls(&text)
        } else {
            text
        };
        if !print_out(&text) {
            return Some(exit::TROUBLE);
        }
        eprintln!(
            "tether: --fix would apply {} fixes in {} of {} files{}",
            report.count(),
            report.files.len(),
            report.checked,
            unsafe_left(report)
        );
        return Some(if !report.failures.is_empty() {
            exit::TROUBLE
        } else if report.files.is_empty() {
            exit::OK
        } else {
            exit::FINDINGS
        });
    }
    let plural = |count: usize, noun: &str| match count {
        1 => format!("1 {noun}"),
        count => format!("{count} {noun}s"),
    };
    eprintln!(
        "tether: fixed {} in {}{}",
        plural(report.count(), "finding"),
        plural(report.files.len(), "file"),
        unsafe_left(report)
    );
    (!report.failures.is_empty()).then_some(exit::TROUBLE)
}

/// The end of the summary of a fix: the unsafe fixes it left, as ruff counts its
/// hidden fixes.
fn unsafe_left(report: &FixReport) -> String {
    match report.unsafe_left {
        0 => String::new(),
        1 => "; 1 unsafe fix left (--unsafe-fixes applies it)".into(),
        count => format!("; {count} unsafe fixes left (--unsafe-fixes applies them)"),
    }
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
            root: crate::report::machine_root(&report.root),
        }),
        CheckFormat::Sarif => report.render(&Format::Sarif {
            root: crate::report::machine_root(&report.root),
        }),
    }
}

/// `--statistics`: findings per rule, most first, as a table or a JSON array.
fn statistics(report: &CheckReport, format: CheckFormat) -> String {
    let mut counts: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for diagnostic in &report.diagnostics {
        let entry = counts.entry(diagnostic.rule.name()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(diagnostic.fix_applies(false));
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
    let (total, total_fixable) = rows.iter().fold((0, 0), |(count, fixable), row| {
        (count + row.1, fixable + row.2)
    });
    let width = width.max(total.to_string().len());
    let mut out = String::new();
    for (rule, count, fixable) in rows {
        let fixable = if fixable > 0 {
            format!("  ({fixable} fixable with --fix)")
        } else {
            String::new()
        };
        out.push_str(&format!("{count:>width$}  {rule}{fixable}\n"));
    }
    let fixable = if total_fixable > 0 {
        format!("  ({total_fixable} fixable with --fix)")
    } else {
        String::new()
    };
    out.push_str(&format!("{total:>width$}  in all{fixable}\n"));
    out
}
