//! Renderers: turn models and findings into text for people and machines.

pub(crate) mod failure;
pub mod github;
pub mod human;
pub mod idem;
pub mod json;
pub mod map;
pub mod sarif;
pub(crate) mod settings;

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::linter::check::CheckReport;
use crate::paths::absolute;

/// How a report prints: [`CheckReport::render`], [`SnapshotReport::render`] and
/// [`IdemReport::render`] take the same formats, as `--format` does on the command
/// line. A report with no form of its own for a format prints the nearest one, and
/// its `render` says which.
///
/// Machine formats name files relative to a `root`: the command line passes
/// `GITHUB_WORKSPACE` in GitHub Actions, else the git top level, so annotations and
/// SARIF name the same file wherever tether ran from.
///
/// [`SnapshotReport::render`]: crate::snapshot::SnapshotReport::render
/// [`IdemReport::render`]: crate::idem::IdemReport::render
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// rustc-style snippets; `color` adds ANSI colours.
    Human {
        /// Colour the output.
        color: bool,
    },
    /// One line a finding (`path:line:column: level[rule]: message`) and the
    /// summary; `color` colours the levels.
    Concise {
        /// Colour the output.
        color: bool,
    },
    /// The stable JSON documented in the book (`check.md`, `snapshot.md`, `idem.md`).
    Json,
    /// GitHub Actions workflow commands (annotations), paths relative to `root`.
    Github {
        /// The folder annotation paths are relative to.
        root: PathBuf,
    },
    /// SARIF 2.1.0 for code scanning, paths relative to `root`.
    Sarif {
        /// The folder artifact paths are relative to.
        root: PathBuf,
    },
}

impl CheckReport {
    /// The report as `tether check --format …` prints it on standard output.
    ///
    /// ```
    /// let config = helm_tether::Config::discover("examples/kubevirt").unwrap();
    /// let report = helm_tether::check_paths(&config, &["examples/kubevirt"], &Default::default()).unwrap();
    /// let json = report.render(&helm_tether::Format::Json);
    /// assert!(json.starts_with('{'));
    /// ```
    pub fn render(&self, format: &Format) -> String {
        let mut out = Vec::new();
        // Writing into memory cannot fail, and every format writes UTF-8.
        let _ = self.write(format, &mut out);
        String::from_utf8(out)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
    }

    /// [`CheckReport::render`] written to `out` as it is made: the JSON format
    /// writes one finding at a time, never the whole text in memory.
    pub fn write(&self, format: &Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        // A message names the configuration that asks for something
        // (`…/tether.toml:8 requires it`) by its absolute path; each format shows it
        // as it shows files: from the working directory for people, from its
        // root for machines.
        let configurations = |show: &dyn Fn(&Path) -> String| {
            let mut report = self.clone();
            for diagnostic in &mut report.diagnostics {
                for file in &self.configurations {
                    if diagnostic.message.contains(file.as_str()) {
                        let shown = show(Path::new(file));
                        diagnostic.message = diagnostic.message.replace(file.as_str(), &shown);
                    }
                }
            }
            report
        };
        // Most reports name no configuration: rendered as they are, not copied.
        let named = self.diagnostics.iter().any(|diagnostic| {
            let message = &diagnostic.message;
            self.configurations
                .iter()
                .any(|file| message.contains(file.as_str()))
        });
        if !named {
            return self.write_as(format, out);
        }
        let from = |root: &Path| {
            let root = root.to_path_buf();
            move |file: &Path| crate::paths::slashed(&crate::paths::relative_path(file, &root))
        };
        let shown = match format {
            Format::Human { .. } | Format::Concise { .. } => {
                let paths = human::ShownPaths::new(self);
                configurations(&|file| paths.of_absolute(file))
            }
            Format::Json => configurations(&from(&self.root)),
            Format::Github { root } | Format::Sarif { root } => configurations(&from(root)),
        };
        shown.write_as(format, out)
    }

    fn write_as(&self, format: &Format, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let text = match format {
            Format::Json => return json::write(self, out),
            Format::Human { color } => human::render(self, *color),
            Format::Concise { color } => human::render_concise(self, *color),
            Format::Github { root } => github::render(self, root),
            Format::Sarif { root } => sarif::render(self, root),
        };
        out.write_all(text.as_bytes())
    }

    /// The 1-based line and column where a finding starts, and where it ends.
    pub fn region(&self, diagnostic: &Diagnostic) -> (usize, usize, usize, usize) {
        json::region(self, diagnostic)
    }

    /// The notes and failures, one `note: …` or `error: …` line each, control
    /// characters escaped: what `tether check` prints on standard error.
    pub fn render_messages(&self) -> String {
        let mut out = String::new();
        let shown = human::ShownPaths::new(self);
        for note in &self.notes {
            out.push_str(&format!("note: {}\n", human::escape_controls(note)));
        }
        for partial in self.partial_charts.iter().chain(&self.read_whole) {
            for reason in &partial.reasons {
                let chart = shown.of(&partial.chart);
                let note = format!("chart {chart}: {reason}");
                out.push_str(&format!("note: {}\n", human::escape_controls(&note)));
            }
        }
        for failure in &self.failures {
            out.push_str(&format!("error: {}\n", human::escape_controls(failure)));
        }
        out
    }
}

/// The folder machine-read paths are relative to: `GITHUB_WORKSPACE` in GitHub
/// Actions, else the git top level of `dir`, else `dir`; so annotations and SARIF
/// name the same file wherever tether ran from.
pub fn machine_root(dir: &Path) -> PathBuf {
    if let Some(workspace) = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty()) {
        return absolute(Path::new(&workspace));
    }
    crate::git::git(dir)
        .args(["rev-parse", "--show-toplevel"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
        .filter(|top| !top.as_os_str().is_empty())
        .map(|top| absolute(&top))
        .unwrap_or_else(|| absolute(dir))
}
