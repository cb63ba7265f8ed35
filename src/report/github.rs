//! GitHub Actions workflow commands (`::error file=…,line=…::message`), which the
//! runner turns into annotations on the pull request.

use crate::diagnostic::Severity;
use crate::linter::check::CheckReport;
use crate::report::json::region;

/// GitHub shows this many annotations of each level for one step.
pub const SHOWN_PER_LEVEL: usize = 10;

/// One workflow command per finding, with paths relative to `base` (the repository's
/// top level, or `GITHUB_WORKSPACE`), then one line that counts them.
pub fn render(report: &CheckReport, base: &std::path::Path) -> String {
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        let (line, column, end_line, end_column) = region(report, diagnostic);
        let command = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // GitHub rejects columns on a range of several lines.
        let columns = if line == end_line {
            format!(",col={column},endColumn={end_column}")
        } else {
            String::new()
        };
        let message = diagnostic.message_with_help();
        out.push_str(&format!(
            "::{command} file={},line={line},endLine={end_line}{columns},title={}::{}\n",
            property(&report.path_from(diagnostic, base)),
            property(&format!("tether {}", diagnostic.rule)),
            data(&message),
        ));
    }
    // What kept tether from checking (a broken tether.toml, a path that does not
    // exist): an error annotation too, on the file and line when it names them.
    for failure in report.failures_beyond_findings() {
        match crate::report::failure::failure_location(failure, base) {
            Some((path, line, column, message)) => out.push_str(&format!(
                "::error file={},line={line},col={column},title=tether::{}\n",
                property(&path),
                data(&message)
            )),
            None => out.push_str(&format!("::error title=tether::{}\n", data(failure))),
        }
    }
    let (errors, warnings) = (
        report.count(Severity::Error),
        report.count(Severity::Warning),
    );
    let mut closing = crate::report::human::summary(report);
    if errors > SHOWN_PER_LEVEL || warnings > SHOWN_PER_LEVEL {
        closing.push_str(&format!(
            "; GitHub shows {SHOWN_PER_LEVEL} annotations of each level per step: every finding is in the job summary and the SARIF file, or run `tether check` locally"
        ));
    }
    out.push_str(&closing);
    out.push('\n');
    out
}

/// Escapes a message as the runner expects.
pub fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: also `:` and `,`.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}
