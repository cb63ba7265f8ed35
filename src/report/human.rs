//! Human output of `tether check`: rustc-style snippets (annotate-snippets), sorted,
//! colour only when asked (the CLI asks on a terminal), and a summary line.

use annotate_snippets::{Level, Message, Renderer, Snippet};

use std::collections::HashSet;

use crate::diagnostic::{Diagnostic, Severity};
use crate::linter::check::CheckReport;
use crate::source::SourceFile;

/// Renders every finding, then the summary.
pub fn render(report: &CheckReport, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    // One snippet per line: a line with many findings shows its text once, so what a
    // line costs in output is bounded by its length, not by its findings.
    let mut shown: HashSet<(&std::path::Path, usize)> = HashSet::new();
    for diagnostic in &report.diagnostics {
        let path = escape_controls(&crate::paths::slashed(&diagnostic.path));
        let source = report
            .sources
            .get(&diagnostic.path)
            .filter(|source| !source.text.is_empty());
        let first_time = source.is_some_and(|source| {
            shown.insert((&diagnostic.path, source.line_of(diagnostic.range.start)))
        });
        let rendered = match source {
            Some(source) if first_time => renderer
                .render(Window::new(diagnostic, source).message(diagnostic, &path))
                .to_string(),
            _ => {
                let level = level(diagnostic.severity);
                let title = escape_controls(&diagnostic.message);
                let mut message = level.title(&title).id(diagnostic.rule.name());
                let help = diagnostic.help.as_deref().map(escape_controls);
                if let Some(help) = &help {
                    message = message.footer(Level::Help.title(help));
                }
                let location = match source {
                    Some(source) => {
                        let line = source.line_of(diagnostic.range.start);
                        let column = source.column_of(diagnostic.range.start);
                        format!("{path}:{}:{}", line + 1, column + 1)
                    }
                    None => path.clone(),
                };
                format!("{}\n  --> {location}", renderer.render(message))
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
    let mut files = plural(report.files, "file");
    if report.excluded > 0 {
        files.push_str(&format!(
            " ({} excluded by tether.toml)",
            plural(report.excluded, "named file")
        ));
    }
    let failures = report.failures_beyond_findings().len();
    if failures > 0 && report.files == 0 {
        return format!(
            "tether: nothing checked: {} (see above)",
            plural(failures, "error")
        );
    }
    let found = match (errors, warnings) {
        (0, 0) => format!("tether: no findings in {files}"),
        (0, w) => format!("tether: {} in {files}", plural(w, "warning")),
        (e, 0) => format!("tether: {} in {files}", plural(e, "error")),
        (e, w) => format!(
            "tether: {} and {} in {files}",
            plural(e, "error"),
            plural(w, "warning")
        ),
    };
    if failures > 0 {
        format!(
            "{found}; {} kept tether from checking everything",
            plural(failures, "error")
        )
    } else {
        found
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

/// Control characters of a file (an escape sequence that clears the screen or sets
/// the terminal's title) shown as `\x1b`, never sent to the terminal.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_control(c) {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn is_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t' && c != '\r'
}

/// The snippet of one finding, owned: the lines from the first to the last annotated
/// one, control characters escaped, and the annotations' ranges in that text.
struct Window {
    text: String,
    first_line: usize,
    primary: std::ops::Range<usize>,
    labels: Vec<(std::ops::Range<usize>, String)>,
    title: String,
    help: Option<String>,
}

impl Window {
    fn new(diagnostic: &Diagnostic, source: &SourceFile) -> Window {
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
        let raw = &source.text[window_start..window_end];
        // Where each byte of the window lands in the escaped text.
        let mut text = String::with_capacity(raw.len());
        let mut landing = Vec::with_capacity(raw.len() + 1);
        for c in raw.chars() {
            for _ in 0..c.len_utf8() {
                landing.push(text.len());
            }
            if is_control(c) {
                text.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                text.push(c);
            }
        }
        landing.push(text.len());
        let shift = |range: std::ops::Range<usize>| {
            let start = range.start.clamp(window_start, window_end) - window_start;
            let end = range.end.clamp(window_start, window_end) - window_start;
            landing[start]..landing[end]
        };
        Window {
            primary: shift(primary),
            labels: labels
                .into_iter()
                .map(|(range, label)| (shift(range), escape_controls(label)))
                .collect(),
            text,
            first_line,
            title: escape_controls(&diagnostic.message),
            help: diagnostic.help.as_deref().map(escape_controls),
        }
    }

    fn message<'a>(&'a self, diagnostic: &'a Diagnostic, path: &'a str) -> Message<'a> {
        let level = level(diagnostic.severity);
        let mut snippet = Snippet::source(&self.text)
            .line_start(self.first_line + 1)
            .origin(path)
            .fold(true)
            .annotation(level.span(self.primary.clone()));
        for (range, label) in &self.labels {
            snippet = snippet.annotation(Level::Info.span(range.clone()).label(label));
        }
        let mut message = level
            .title(&self.title)
            .id(diagnostic.rule.name())
            .snippet(snippet);
        if let Some(help) = &self.help {
            message = message.footer(Level::Help.title(help));
        }
        message
    }
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
