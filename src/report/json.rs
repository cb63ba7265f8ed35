//! JSON output of `tether check`, the stable contract documented in docs/src/check.md:
//! 1-based lines and columns (columns in characters), sorted findings, a summary.

use std::io::Write as _;

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::excerpt::Excerpt;
use crate::linter::check::CheckReport;

#[derive(Serialize)]
struct Output<'a> {
    diagnostics: Diagnostics<'a>,
    summary: Summary,
    /// What kept tether from doing its whole job (exit 2): a bad configuration, an
    /// input that does not exist or cannot be read. Empty on exit 0 and 1.
    errors: Vec<String>,
    /// Charts whose values `unused-value` and `undefined-value` analysed in part
    /// (a dependency not on disk, `.Values` used whole): they report nothing they
    /// cannot know there.
    partial_charts: Vec<JsonPartialChart>,
}

#[derive(Serialize)]
struct JsonPartialChart {
    chart: String,
    reasons: Vec<String>,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    rule: &'a str,
    severity: &'static str,
    path: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    help: Option<&'a str>,
    /// Only on a finding `--fix` can mend: what it does, as ruff writes its fixes.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    /// `safe` (`--fix` applies it) or `unsafe` (only with `--unsafe-fixes`).
    applicability: crate::diagnostic::Applicability,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    content: &'a str,
}

#[derive(Serialize)]
struct Summary {
    files: usize,
    errors: usize,
    warnings: usize,
}

/// The findings of a report, each made as it is written.
struct Diagnostics<'a>(&'a CheckReport);

impl Serialize for Diagnostics<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        serializer.collect_seq(
            report
                .diagnostics
                .iter()
                .map(|diagnostic| json_diagnostic(report, diagnostic)),
        )
    }
}

fn json_diagnostic<'a>(report: &'a CheckReport, diagnostic: &'a Diagnostic) -> JsonDiagnostic<'a> {
    let (line, column, end_line, end_column) = region(report, diagnostic);
    JsonDiagnostic {
        rule: diagnostic.rule.name(),
        severity: diagnostic.severity.as_str(),
        path: crate::paths::slashed(&diagnostic.path),
        line,
        column,
        end_line,
        end_column,
        message: &diagnostic.message,
        help: diagnostic.help.as_deref(),
        fix: diagnostic.fix.as_ref().map(|fix| JsonFix {
            applicability: fix.applicability,
            edits: fix
                .edits
                .iter()
                .map(|edit| {
                    let source = report.sources.get(&diagnostic.path);
                    let (line, column) = position(source, edit.range.start);
                    let (end_line, end_column) = position(source, edit.range.end);
                    JsonEdit {
                        line,
                        column,
                        end_line,
                        end_column,
                        content: &edit.content,
                    }
                })
                .collect(),
        }),
    }
}

/// Writes the JSON report to `out`, one finding at a time (buffered), then a
/// newline: the bytes `serde_json::to_string_pretty` would make, never held whole.
pub fn write(report: &CheckReport, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let output = Output {
        diagnostics: Diagnostics(report),
        summary: Summary {
            files: report.files,
            errors: report.count(Severity::Error),
            warnings: report.count(Severity::Warning),
        },
        errors: report.failures.clone(),
        partial_charts: report
            .partial_charts
            .iter()
            .map(|partial| JsonPartialChart {
                chart: crate::paths::slashed(&partial.chart),
                reasons: partial.reasons.clone(),
            })
            .collect(),
    };
    let mut buffered = std::io::BufWriter::new(out);
    let mut serializer = serde_json::Serializer::pretty(&mut buffered);
    output
        .serialize(&mut serializer)
        .map_err(std::io::Error::other)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// Where a finding is: 1-based start line and column, end line and column (the
/// character after the range).
pub fn region(report: &CheckReport, diagnostic: &Diagnostic) -> (usize, usize, usize, usize) {
    let source = report.sources.get(&diagnostic.path);
    let (line, column) = position(source, diagnostic.range.start);
    let (end_line, end_column) = position(source, diagnostic.range.end);
    (line, column, end_line, end_column)
}

/// 1-based line and character column of a byte offset; 1:1 without a source.
pub fn position(source: Option<&Excerpt>, offset: usize) -> (usize, usize) {
    match source {
        Some(source) => {
            let offset = offset.min(source.len());
            (source.line_of(offset) + 1, source.column_of(offset) + 1)
        }
        None => (1, 1),
    }
}
