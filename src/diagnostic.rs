//! A finding is plain data: rule, severity, file, byte range, message, help, labels.
//! Lines and columns come from the file's line index when a report renders it.

use std::ops::Range;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::rule_id::RuleId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
/// How much a finding counts.
pub enum Severity {
    /// Fails `tether check` (exit 1).
    Error,
    /// Reported; fails only with `--fail-on warning`.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A secondary place in the same file that explains the finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Label {
    /// Byte range in the finding's file.
    pub range: Range<usize>,
    /// What is there.
    pub message: String,
}

/// One finding of one rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The rule, written and read by its kebab-case name.
    pub rule: RuleId,
    /// Error or warning, from the rule's level.
    pub severity: Severity,
    /// Relative to the configuration's folder (or the working directory).
    pub path: PathBuf,
    /// Byte range in the file; empty ranges point between two bytes.
    pub range: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub help: Option<String>,
    /// Other places in the file that explain it.
    pub labels: Vec<Label>,
    /// How `tether check --fix` would fix it, for the rules that fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// Edits that fix one finding, applied together or not at all (as ruff's `Fix`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fix {
    /// Non-overlapping, in file order.
    pub edits: Vec<Edit>,
    /// Whether `--fix` applies it.
    pub applicability: Applicability,
    /// Whether it moves a comment, and so may change which key the comment
    /// documents: the fixer keeps such a fix only where the file's comment map
    /// stays as it was. The rule says so ([`Fix::moving_comments`]); the fixer
    /// never asks which rule it is. Not in the JSON output.
    #[serde(skip)]
    pub moves_comments: bool,
}

/// Replace the bytes of `range` with `content`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Edit {
    /// Byte range in the file; empty to insert.
    pub range: Range<usize>,
    /// What replaces it.
    pub content: String,
}

/// When a fix is applied, as ruff's `Applicability` has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Applicability {
    /// tether cannot prove that it keeps what Helm renders and the file's data: a
    /// file a chart may embed with `.Files.Get` (its bytes are the data), or a line
    /// a trim marker reaches. Applied only with `--unsafe-fixes`.
    Unsafe,
    /// It changes only whitespace the finding names: `--fix` applies it.
    Safe,
}

impl Fix {
    /// A safe fix of these edits.
    pub fn safe(mut edits: Vec<Edit>) -> Fix {
        edits.sort_by_key(|edit| (edit.range.start, edit.range.end));
        Fix {
            edits,
            applicability: Applicability::Safe,
            moves_comments: false,
        }
    }

    /// The fix, said to move comments (see [`Fix::moves_comments`]).
    pub fn moving_comments(mut self) -> Fix {
        self.moves_comments = true;
        self
    }
}

impl Fix {
    /// Whether `--fix` applies it, with `--unsafe-fixes` when `unsafe_fixes`.
    pub fn applies(&self, unsafe_fixes: bool) -> bool {
        !self.edits.is_empty() && (unsafe_fixes || self.applicability == Applicability::Safe)
    }
}

impl Edit {
    /// Replaces `range` with `content`.
    pub fn replace(range: Range<usize>, content: impl Into<String>) -> Edit {
        Edit {
            range,
            content: content.into(),
        }
    }
}

impl Diagnostic {
    /// Whether it has a fix `--fix` applies, with `--unsafe-fixes` when
    /// `unsafe_fixes`.
    pub fn fix_applies(&self, unsafe_fixes: bool) -> bool {
        self.fix
            .as_ref()
            .is_some_and(|fix| fix.applies(unsafe_fixes))
    }

    /// The message, and the help on a line of its own, for one-field formats.
    pub fn message_with_help(&self) -> String {
        match &self.help {
            Some(help) => format!("{}\nhelp: {help}", self.message),
            None => self.message.clone(),
        }
    }

    /// The order output is sorted in, so it never depends on thread timing.
    pub fn sort_key(&self) -> (&PathBuf, usize, usize, &str, &str) {
        (
            &self.path,
            self.range.start,
            self.range.end,
            self.rule.name(),
            &self.message,
        )
    }
}
