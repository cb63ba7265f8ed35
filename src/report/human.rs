//! Human output of `tether check`: rustc-style snippets (annotate-snippets), sorted,
//! colour only when asked (the CLI asks on a terminal), and a summary line.

use annotate_snippets::{Level, Message, Renderer, Snippet};

use crate::check::CheckReport;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceFile;

/// Renders every finding, then the summary.
pub fn render(report: &CheckReport, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        let path = diagnostic.path.to_string_lossy().replace('\\', "/");
        let rendered = match report.sources.get(&diagnostic.path) {
            Some(source) if !source.text.is_empty() => renderer
                .render(message(diagnostic, source, &path))
                .to_string(),
            _ => {
                let level = level(diagnostic.severity);
                let mut message = level.title(&diagnostic.message).id(&diagnostic.rule);
                if let Some(help) = &diagnostic.help {
                    message = message.footer(Level::Help.title(help));
                }
                format!("{}\n  --> {path}", renderer.render(message))
            }
        };
        out.push_str(&rendered);
        out.push_str("\n\n");
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// `3 errors and 1 warning in 12 files`, or `no findings in 12 files`.
pub fn summary(report: &CheckReport) -> String {
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let files = plural(report.files, "file");
    match (errors, warnings) {
        (0, 0) => format!("tether: no findings in {files}"),
        (0, w) => format!("tether: {} in {files}", plural(w, "warning")),
        (e, 0) => format!("tether: {} in {files}", plural(e, "error")),
        (e, w) => format!(
            "tether: {} and {} in {files}",
            plural(e, "error"),
            plural(w, "warning")
        ),
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

fn level(severity: Severity) -> Level {
    match severity {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
    }
}

/// The snippet covers the lines from the first to the last annotated one.
fn message<'a>(diagnostic: &'a Diagnostic, source: &'a SourceFile, path: &'a str) -> Message<'a> {
    let level = level(diagnostic.severity);
    let primary = visible(source, diagnostic.range.clone());
    let labels: Vec<_> = diagnostic
        .labels
        .iter()
        .map(|label| (visible(source, label.range.clone()), label.message.as_str()))
        .collect();
    let first_line = labels
        .iter()
        .map(|(range, _)| source.line_of(range.start))
        .chain(std::iter::once(source.line_of(primary.start)))
        .min()
        .unwrap_or(0);
    let last_line = labels
        .iter()
        .map(|(range, _)| source.line_of(range.end))
        .chain(std::iter::once(source.line_of(primary.end)))
        .max()
        .unwrap_or(0);
    let window_start = source.line_start(first_line);
    let window_end = source.line_range(last_line).end.max(primary.end);
    let shift = |range: std::ops::Range<usize>| {
        range.start.clamp(window_start, window_end) - window_start
            ..range.end.clamp(window_start, window_end) - window_start
    };
    let mut snippet = Snippet::source(&source.text[window_start..window_end])
        .line_start(first_line + 1)
        .origin(path)
        .fold(true)
        .annotation(level.span(shift(primary)));
    for (range, label) in labels {
        snippet = snippet.annotation(Level::Info.span(shift(range)).label(label));
    }
    let mut message = level
        .title(&diagnostic.message)
        .id(&diagnostic.rule)
        .snippet(snippet);
    if let Some(help) = &diagnostic.help {
        message = message.footer(Level::Help.title(help));
    }
    message
}

/// A range that shows: an empty range widens to the character it points at, and a
/// range never ends past the end of its last line.
fn visible(source: &SourceFile, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let text = &source.text;
    let start = range.start.min(text.len());
    let mut end = range.end.clamp(start, text.len());
    if end == start {
        if let Some(c) = text[start..]
            .chars()
            .next()
            .filter(|&c| c != '\n' && c != '\r')
        {
            end = start + c.len_utf8();
        }
    }
    start..end
}
