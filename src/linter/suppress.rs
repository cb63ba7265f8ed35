//! Suppressions, as a pass after the rules: the `tether: ignore[…]` comments of a
//! file, which finding each covers, and the `unused-suppression` findings of those
//! that covered none. Nothing here is shared or mutated behind a reference: the
//! engine asks [`Suppressions::covering`] (a lookup) and keeps what was used itself.

use std::ops::Range;
use std::path::Path;

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{CommentInfo, Level, RuleId, RuleSettings};
use crate::source::SourceFile;
use crate::yaml::model::CommentStyle;

const MARKER: &str = "tether: ignore[";

/// A searcher for [`MARKER`], built once: every comment of every file is searched.
fn marker_finder() -> &'static memchr::memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    FINDER.get_or_init(|| memchr::memmem::Finder::new(MARKER))
}

/// One rule named in a suppression comment.
#[derive(Debug)]
struct Entry {
    /// 0-based line of the comment; it covers this line and the next.
    line: usize,
    /// The name as written.
    name: String,
    /// The rule of that name, looked up once.
    rule: Option<RuleId>,
    /// Where the name is written.
    range: Range<usize>,
}

/// The suppression comments of one file, sorted by line.
#[derive(Debug, Default)]
pub struct Suppressions {
    entries: Vec<Entry>,
}

impl Suppressions {
    /// The suppressions among `comments` (`#` and template comments) of `source`.
    pub fn read(source: &SourceFile, comments: &[CommentInfo]) -> Suppressions {
        let mut entries = Vec::new();
        for comment in comments {
            let text = &source.text[comment.span.clone()];
            let Some(at) = marker_finder().find(text.as_bytes()) else {
                continue;
            };
            let before = text[..at].trim_start_matches(['#', '{', '-', '/', '*', ' ']);
            if !before.trim().is_empty() {
                continue;
            }
            let list_start = at + MARKER.len();
            let Some(close) = text[list_start..].find(']') else {
                continue;
            };
            let line = match comment.style {
                CommentStyle::Template => source.line_of(comment.span.end.saturating_sub(1)),
                CommentStyle::Yaml => comment.line,
            };
            let mut offset = list_start;
            for name in text[list_start..list_start + close].split(',') {
                let trimmed = name.trim();
                let start = comment.span.start + offset + (name.len() - name.trim_start().len());
                if !trimmed.is_empty() {
                    entries.push(Entry {
                        line,
                        rule: RuleId::from_name(trimmed),
                        name: trimmed.to_string(),
                        range: start..start + trimmed.len(),
                    });
                }
                offset += name.len() + 1;
            }
        }
        // Sorted by line (stable: a comment's names keep their order), so a
        // finding's suppressions are found by binary search.
        entries.sort_by_key(|entry| entry.line);
        Suppressions { entries }
    }

    /// How many rule names the suppressions hold: the length of the `used` flags
    /// [`Suppressions::unused`] reads.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The entry that covers a finding of `rule` on 0-based `line`: a suppression
    /// naming the rule on that line or the line above. Costs the log of their number.
    pub fn covering(&self, line: usize, rule: RuleId) -> Option<usize> {
        let first = self.entries.partition_point(|entry| entry.line + 1 < line);
        self.entries[first..]
            .iter()
            .take_while(|entry| entry.line <= line)
            .position(|entry| entry.rule == Some(rule))
            .map(|found| first + found)
    }

    /// The `unused-suppression` findings: every entry whose flag in `used` is not
    /// set, with why it suppressed nothing (no rule has the name, the rule is off for
    /// the file, or it found nothing there).
    pub fn unused(
        &self,
        used: &[bool],
        settings: &RuleSettings,
        severity: Severity,
        path: &Path,
    ) -> Vec<Diagnostic> {
        self.entries
            .iter()
            .zip(used)
            .filter(|(_, used)| !**used)
            .map(|(entry, _)| {
                let message = match entry.rule.map(|id| settings.level(id)) {
                    None => format!(
                        "unknown rule `{}` in a suppression; `tether rules` lists every rule",
                        entry.name
                    ),
                    Some(Level::Off) => format!(
                        "`{}` is off for this file: the suppression does nothing",
                        entry.name
                    ),
                    Some(_) => format!(
                        "no `{}` finding on this line or the next to suppress",
                        entry.name
                    ),
                };
                Diagnostic {
                    rule: RuleId::UnusedSuppression,
                    severity,
                    path: path.to_path_buf(),
                    range: entry.range.clone(),
                    message,
                    help: Some("remove the suppression, or the rule name from it".into()),
                    labels: Vec::new(),
                    fix: None,
                }
            })
            .collect()
    }
}
