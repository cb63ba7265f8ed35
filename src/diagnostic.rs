//! A finding is plain data: rule, severity, file, byte range, message, help, labels.
//! Lines and columns come from the file's line index when a report renders it.

use std::ops::Range;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A secondary place in the same file that explains the finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub range: Range<usize>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The rule's kebab-case name.
    pub rule: String,
    pub severity: Severity,
    /// Relative to the configuration's folder (or the working directory).
    pub path: PathBuf,
    /// Byte range in the file; empty ranges point between two bytes.
    pub range: Range<usize>,
    pub message: String,
    pub help: Option<String>,
    pub labels: Vec<Label>,
}

impl Diagnostic {
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
            &self.rule,
            &self.message,
        )
    }
}
