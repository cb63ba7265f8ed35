//! The logic of `cargo xtask lint-charts`, on tether's public library surface only.
//!
//! The repository shape is Cozystack's: charts in `packages/{apps,system,extra}/*`,
//! shared make and shell code in `hack/`, and a `Makefile` per package whose `update`
//! target regenerates the chart. Each chart is checked with its nearest
//! `tether.toml`; a package whose own `tether.toml` has `[[idem]]` entries gets
//! `tether idem`, unless its `update` target reaches for the network.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The folders charts live in, below the repository's root.
pub const PACKAGE_GROUPS: [&str; 3] = ["packages/apps", "packages/system", "packages/extra"];

/// Commands in an `update` recipe that need the network: such a target cannot be run
/// in CI's sandbox copies, so its package is skipped, with the reason shown.
pub const NETWORK_COMMANDS: [&str; 10] = [
    "curl ",
    "wget ",
    "helm pull",
    "helm repo",
    "helm dependency update",
    "helm dep up",
    "git clone",
    "git fetch",
    "docker ",
    "skopeo ",
];

/// What to lint.
#[derive(Debug, Clone)]
pub struct Options {
    /// The repository's root folder.
    pub root: PathBuf,
    /// Only these packages (folder names); all when empty.
    pub packages: Vec<String>,
    /// Run `tether idem` for the packages that have `[[idem]]` entries.
    pub idem: bool,
    /// Parallel idem checks; tether's default when `None`.
    pub jobs: Option<usize>,
}

impl Options {
    /// Every package of the repository at `root`, idem included.
    pub fn new(root: PathBuf) -> Self {
        Options {
            root,
            packages: Vec::new(),
            idem: true,
            jobs: None,
        }
    }
}

/// What happened to one package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageResult {
    /// `packages/system/kubevirt`.
    pub path: String,
    /// Files checked.
    pub files: usize,
    /// Error-level findings.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// The findings and failures, rendered as `tether check` prints them.
    pub details: String,
    /// `tether idem`: passed, failed, or why it did not run.
    pub idem: Idem,
    /// `tether snapshot --check`, for packages with a snapshot folder: how many
    /// snapshots differ, and the report.
    pub snapshots: Option<(usize, String)>,
}

/// The `tether idem` outcome of one package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Idem {
    /// No `[[idem]]` entry in the package's `tether.toml`.
    NotConfigured,
    /// Not run, and why.
    Skipped(String),
    /// Every check passed; how many.
    Passed(usize),
    /// Some checks failed, or tether could not run them: the report.
    Failed(String),
}

/// Every package's result.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// In path order.
    pub packages: Vec<PackageResult>,
}

impl Summary {
    /// Whether any package has an error finding, a failure, or a failed idem check.
    pub fn failed(&self) -> bool {
        self.packages.iter().any(|p| {
            p.errors > 0
                || matches!(p.idem, Idem::Failed(_))
                || p.snapshots.as_ref().is_some_and(|(differ, _)| *differ > 0)
        })
    }

    /// The details of failing packages, then a table of all.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for package in &self.packages {
            if package.errors > 0 {
                let _ = writeln!(out, "== {}\n{}", package.path, package.details);
            }
            if let Idem::Failed(report) = &package.idem {
                let _ = writeln!(out, "== {}: tether idem\n{report}", package.path);
            }
            if let Some((differ, report)) = &package.snapshots {
                if *differ > 0 {
                    let _ = writeln!(out, "== {}: tether snapshot\n{report}", package.path);
                }
            }
        }
        out.push_str(
            "| package | files | errors | warnings | idem | snapshots |\n|---|---:|---:|---:|---|---|\n",
        );
        for package in &self.packages {
            let idem = match &package.idem {
                Idem::NotConfigured => "-".to_string(),
                Idem::Skipped(reason) => format!("skipped: {reason}"),
                Idem::Passed(checks) => format!("passed ({checks} checks)"),
                Idem::Failed(_) => "FAILED".to_string(),
            };
            let snapshots = match &package.snapshots {
                None => "-".to_string(),
                Some((0, _)) => "ok".to_string(),
                Some((differ, _)) => format!("{differ} differ"),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {idem} | {snapshots} |",
                package.path, package.files, package.errors, package.warnings
            );
        }
        let _ = writeln!(
            out,
            "{}",
            if self.failed() {
                "lint-charts: FAILED"
            } else {
                "lint-charts: ok"
            }
        );
        out
    }
}

/// The chart folders of the repository: `packages/{apps,system,extra}/*` with a
/// `Chart.yaml`, in path order.
pub fn packages(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for group in PACKAGE_GROUPS {
        let Ok(entries) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            if path.join("Chart.yaml").is_file() {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Checks every package, then runs idem where it can.
pub fn lint_charts(options: &Options) -> Result<Summary, helm_tether::Error> {
    let root = options
        .root
        .canonicalize()
        .map_err(|_| helm_tether::Error::NotFound {
            path: options.root.clone(),
        })?;
    let mut summary = Summary::default();
    let packages =
        packages(&root).map_err(|_| helm_tether::Error::NotFound { path: root.clone() })?;
    for package in packages {
        let name = package
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !options.packages.is_empty() && !options.packages.contains(&name) {
            continue;
        }
        summary
            .packages
            .push(lint_package(&root, &package, options)?);
    }
    Ok(summary)
}

fn lint_package(
    root: &Path,
    package: &Path,
    options: &Options,
) -> Result<PackageResult, helm_tether::Error> {
    let config = helm_tether::Config::discover(package)?;
    let report =
        helm_tether::check_paths(&config, &[package], &helm_tether::CheckOptions::default())?;
    let errors = report.count(helm_tether::Severity::Error) + report.failures.len();
    let details =
        report.render(&helm_tether::Format::Human { color: false }) + &report.render_messages();
    let own_config = config
        .file()
        .is_some_and(|file| file.parent() == Some(package));
    let idem = if !options.idem || !own_config || config.idem_targets().is_empty() {
        Idem::NotConfigured
    } else if let Some(command) = network_command(package) {
        Idem::Skipped(format!(
            "`make update` runs `{}`, which needs the network",
            command.trim()
        ))
    } else {
        run_idem(&config, options)
    };
    // Packages that pin their comment maps keep their snapshots beside tether.toml.
    let snapshots = if own_config && config.snapshot_dir().is_dir() {
        let report = helm_tether::snapshot::check(&config, &Default::default())?;
        let differ = report.changes.len() + report.failures.len();
        Some((
            differ,
            report.render(&helm_tether::Format::Human { color: false }),
        ))
    } else {
        None
    };
    Ok(PackageResult {
        path: package
            .strip_prefix(root)
            .unwrap_or(package)
            .to_string_lossy()
            .replace('\\', "/"),
        files: report.files,
        errors,
        warnings: report.count(helm_tether::Severity::Warning),
        details,
        idem,
        snapshots,
    })
}

#[cfg(unix)]
fn run_idem(config: &helm_tether::Config, options: &Options) -> Idem {
    let mut idem_options = helm_tether::idem::IdemOptions::default().display_root(config.root());
    if let Some(jobs) = options.jobs {
        idem_options = idem_options.jobs(jobs);
    }
    match helm_tether::idem::run(config.idem_targets(), &idem_options) {
        Ok(report) if report.failed() == 0 && report.user_tree_changes.is_empty() => {
            Idem::Passed(report.checks())
        }
        Ok(report) => Idem::Failed(report.render(&helm_tether::Format::Human { color: false })),
        Err(error) => Idem::Failed(error.to_string()),
    }
}

#[cfg(not(unix))]
fn run_idem(_: &helm_tether::Config, _: &Options) -> Idem {
    Idem::Skipped("tether idem needs a Unix system".into())
}

/// The first command of the package's `update` recipe that needs the network, read
/// from its Makefile and the files it includes from the repository.
pub fn network_command(package: &Path) -> Option<String> {
    let makefile = std::fs::read_to_string(package.join("Makefile")).ok()?;
    let mut texts = vec![makefile.clone()];
    for line in makefile.lines() {
        if let Some(included) = line.strip_prefix("include ") {
            if let Ok(text) = std::fs::read_to_string(package.join(included.trim())) {
                texts.push(text);
            }
        }
    }
    texts.iter().find_map(|text| {
        recipe(text, "update").into_iter().find(|line| {
            NETWORK_COMMANDS
                .iter()
                .any(|command| line.contains(command))
        })
    })
}

/// The recipe lines of `target` in a Makefile's text.
fn recipe(text: &str, target: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(command) = line.strip_prefix('\t') {
            if inside {
                lines.push(command.to_string());
            }
            continue;
        }
        if !line.trim().is_empty() && !line.starts_with('#') {
            inside = line
                .split(':')
                .next()
                .is_some_and(|targets| targets.split_whitespace().any(|t| t == target))
                && line.contains(':');
        }
    }
    lines
}
