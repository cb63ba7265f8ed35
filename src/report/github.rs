//! GitHub Actions workflow commands (`::error file=…,line=…::message`), which the
//! runner turns into annotations on the pull request.

use crate::check::CheckReport;
use crate::diagnostic::Severity;
use crate::report::json::region;

pub fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        let (line, column, end_line, end_column) = region(report, diagnostic);
        let command = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let message = diagnostic.message_with_help();
        out.push_str(&format!(
            "::{command} file={},line={line},col={column},endLine={end_line},endColumn={end_column},title={}::{}\n",
            property(&diagnostic.path.to_string_lossy().replace('\\', "/")),
            property(&format!("tether {}", diagnostic.rule)),
            data(&message),
        ));
    }
    out
}

/// Escapes a message as the runner expects.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: also `:` and `,`.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}
