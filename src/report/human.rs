//! Human output of `tether check`: rustc-style snippets (annotate-snippets), sorted,
//! colour only when asked (the CLI asks on a terminal), and a summary line.

use annotate_snippets::{Level, Message, Renderer, Snippet};

use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Severity};
use crate::excerpt::Excerpt;
use crate::linter::check::CheckReport;

/// Renders every finding, then the summary. A line with several findings is one
/// snippet, each finding a label on it, as rustc shows them.
pub fn render(report: &CheckReport, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let shown = ShownPaths::new(report);
    let mut out = String::new();
    let mut rest = report.diagnostics.as_slice();
    while let Some(first) = rest.first() {
        let path = escape_controls(&shown.of(&first.path));
        let source = report
            .sources
            .get(&first.path)
            .filter(|source| !source.is_empty());
        // The findings of one line: the diagnostics are sorted by path and position,
        // so they are next to each other. What a line costs in output is bounded by
        // its findings (at most 100 a rule), never its text repeated.
        let on_line = match source {
            Some(source) => {
                let line = source.line_of(first.range.start);
                rest.iter()
                    .take_while(|next| {
                        next.path == first.path && source.line_of(next.range.start) == line
                    })
                    .count()
            }
            None => 1,
        };
        let (group, after) = rest.split_at(on_line);
        rest = after;
        let rendered = match source {
            Some(source) => renderer
                .render(Window::new(group, source).message(group, &path))
                .to_string(),
            None => {
                let level = level(first.severity);
                let title = escape_controls(&first.message);
                let mut message = level.title(&title).id(first.rule.name());
                let help = first.help.as_deref().map(escape_controls);
                if let Some(help) = &help {
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

/// One line a finding, `path:line:column: level[rule]: message`, as rustc's short
/// format and ruff's concise one: what editors' error formats and grep read. The
/// summary follows, as in the full format.
pub fn render_concise(report: &CheckReport, color: bool) -> String {
    let shown = ShownPaths::new(report);
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        let path = escape_controls(&shown.of(&diagnostic.path));
        let location = match report.sources.get(&diagnostic.path) {
            Some(source) => format!(
                "{path}:{}:{}",
                source.line_of(diagnostic.range.start) + 1,
                source.column_of(diagnostic.range.start) + 1
            ),
            None => path,
        };
        let level = match (diagnostic.severity, color) {
            (Severity::Error, false) => "error".to_string(),
            (Severity::Warning, false) => "warning".to_string(),
            (Severity::Error, true) => "\x1b[1;31merror\x1b[0m".to_string(),
            (Severity::Warning, true) => "\x1b[1;33mwarning\x1b[0m".to_string(),
        };
        out.push_str(&format!(
            "{location}: {level}[{}]: {}\n",
            diagnostic.rule.name(),
            escape_controls(&diagnostic.message)
        ));
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// Paths as a person reads them: relative to the working directory, as ruff, rustc
/// and ESLint print them, so a location is clickable in a terminal and names one
/// file whatever configuration found it. A file beside the working directory is
/// reached with `..` (`../app/values.yaml`); one that shares no folder with it but
/// the file system's root is shown absolute (`/tmp/chart/values.yaml`).
pub(crate) struct ShownPaths<'a> {
    root: &'a Path,
    cwd: Option<PathBuf>,
}

impl<'a> ShownPaths<'a> {
    pub(crate) fn new(report: &'a CheckReport) -> ShownPaths<'a> {
        ShownPaths {
            root: &report.root,
            cwd: std::env::current_dir()
                .ok()
                .map(|cwd| crate::paths::absolute(&cwd)),
        }
    }

    /// `path`, relative to the report's root, as shown.
    pub(crate) fn of(&self, path: &Path) -> String {
        self.of_absolute(&self.root.join(path))
    }

    /// An absolute path (a relative one is taken from the report's root), as shown.
    pub(crate) fn of_absolute(&self, full: &Path) -> String {
        let full = self.root.join(full);
        match &self.cwd {
            Some(cwd) if full.is_absolute() && shares_a_folder(&full, cwd) => {
                let relative = crate::paths::relative_path(&full, cwd);
                if relative.as_os_str().is_empty() {
                    ".".to_string()
                } else {
                    crate::paths::slashed(&relative)
                }
            }
            Some(_) if full.is_absolute() => crate::paths::slashed(&full),
            _ => crate::paths::slashed(&full),
        }
    }
}

/// Whether two absolute paths have a folder in common below the file system's root.
fn shares_a_folder(a: &Path, b: &Path) -> bool {
    let common = a
        .components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .filter(|(x, _)| matches!(x, std::path::Component::Normal(_)))
        .count();
    common > 0
}

/// `3 errors and 1 warning in 12 files`, or `no findings in 12 files`.
pub fn summary(report: &CheckReport) -> String {
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let mut files = plural(report.files, "file");
    let excluded: usize = report.excluded.values().sum();
    if excluded > 0 {
        // One setting is named after "by"; several each with their count.
        let by = match report.excluded.keys().collect::<Vec<_>>()[..] {
            [setting] => format!(" by {setting}"),
            _ => {
                let each: Vec<String> = (report.excluded.iter())
                    .map(|(setting, count)| format!("{count} by {setting}"))
                    .collect();
                format!(": {}", each.join(", "))
            }
        };
        files.push_str(&format!(
            " ({} excluded{by})",
            plural(excluded, "named file")
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
    // As ruff closes: how many of the findings `--fix` would mend, and how many
    // more `--unsafe-fixes` would.
    let fixable = |unsafe_fixes: bool| {
        report
            .diagnostics
            .iter()
            .filter_map(|diagnostic| diagnostic.fix.as_ref())
            .filter(|fix| fix.applies(unsafe_fixes))
            .count()
    };
    let (safe, all) = (fixable(false), fixable(true));
    let found = match (safe, all - safe) {
        (0, 0) => found,
        (safe, 0) => format!("{found}, {safe} fixable with --fix"),
        (0, more) => format!("{found}, {more} fixable with --fix --unsafe-fixes"),
        (safe, more) => {
            format!("{found}, {safe} fixable with --fix ({more} more with --unsafe-fixes)")
        }
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

/// The snippet of one line's findings, owned: the lines from the first to the last
/// annotated one, control characters escaped, and the annotations' ranges in that
/// text.
struct Window {
    text: String,
    first_line: usize,
    /// Each finding's range and its label (none for the first: the title says it).
    primary: Vec<(std::ops::Range<usize>, Option<String>)>,
    labels: Vec<(std::ops::Range<usize>, String)>,
    /// The first finding's message, then each other finding's `[rule]` help.
    title: String,
    helps: Vec<String>,
}

impl Window {
    fn new(group: &[Diagnostic], source: &Excerpt) -> Window {
        let primary: Vec<_> = group
            .iter()
            .map(|diagnostic| visible(source, diagnostic.range.clone()))
            .collect();
        let labels: Vec<_> = group
            .iter()
            .flat_map(|diagnostic| &diagnostic.labels)
            .map(|label| (visible(source, label.range.clone()), label.message.as_str()))
            .collect();
        let ranges = || primary.iter().chain(labels.iter().map(|(range, _)| range));
        let first_line = ranges()
            .map(|range| source.line_of(range.start))
            .min()
            .unwrap_or(0);
        let last_line = ranges()
            .map(|range| source.line_of(range.end))
            .max()
            .unwrap_or(0);
        let window_start = source.line_start(first_line);
        let window_end = source
            .line_range(last_line)
            .end
            .max(ranges().map(|range| range.end).max().unwrap_or(0));
        let raw = source.text(window_start..window_end);
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
        let shift = |range: &std::ops::Range<usize>| {
            let start = range.start.clamp(window_start, window_end) - window_start;
            let end = range.end.clamp(window_start, window_end) - window_start;
            landing[start]..landing[end]
        };
        let first = &group[0];
        Window {
            primary: primary
                .iter()
                .zip(group)
                .enumerate()
                .map(|(index, (range, diagnostic))| {
                    let label = (index > 0).then(|| {
                        format!(
                            "{}[{}]: {}",
                            severity_name(diagnostic.severity),
                            diagnostic.rule.name(),
                            escape_controls(&diagnostic.message)
                        )
                    });
                    (shift(range), label)
                })
                .collect(),
            labels: labels
                .iter()
                .map(|(range, label)| (shift(range), escape_controls(label)))
                .collect(),
            text,
            first_line,
            title: escape_controls(&first.message),
            helps: group
                .iter()
                .enumerate()
                .filter_map(|(index, diagnostic)| {
                    let help = escape_controls(diagnostic.help.as_deref()?);
                    Some(match index {
                        0 => help,
                        _ => format!("[{}] {help}", diagnostic.rule.name()),
                    })
                })
                .collect(),
        }
    }

    fn message<'a>(&'a self, group: &'a [Diagnostic], path: &'a str) -> Message<'a> {
        let first = &group[0];
        let mut snippet = Snippet::source(&self.text)
            .line_start(self.first_line + 1)
            .origin(path)
            .fold(true);
        for ((range, label), diagnostic) in self.primary.iter().zip(group) {
            let span = level(diagnostic.severity).span(range.clone());
            snippet = snippet.annotation(match label {
                Some(label) => span.label(label),
                None => span,
            });
        }
        for (range, label) in &self.labels {
            snippet = snippet.annotation(Level::Info.span(range.clone()).label(label));
        }
        let mut message = level(first.severity)
            .title(&self.title)
            .id(first.rule.name())
            .snippet(snippet);
        for help in &self.helps {
            message = message.footer(Level::Help.title(help));
        }
        message
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A range that shows: an empty range widens to the character it points at, and a
/// range never ends past the end of its last line.
fn visible(source: &Excerpt, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let start = range.start.min(source.len());
    let mut end = range.end.clamp(start, source.len());
    if end == start {
        if let Some(c) = source.char_at(start).filter(|&c| c != '\n' && c != '\r') {
            end = start + c.len_utf8();
        }
    }
    start..end
}
