//! The comment-anchored model of a file: documents, their keys, and which comment
//! documents which key.
//!
//! Pure types: `pipeline.rs` builds them (lex, mask, parse, anchor), the rules and
//! reports read them.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::source::Problem;
use crate::template::mask::Branch;

use super::syntax::RawComment;

/// Everything tether knows about one file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FileModel {
    /// The path as given.
    pub path: PathBuf,
    /// Whether the file was read as a Helm template (masked) or as plain YAML.
    pub is_template: bool,
    /// Its YAML documents, in order.
    pub documents: Vec<Document>,
    /// What kept the file from being modelled exactly, by line.
    pub problems: Vec<Problem>,
}

/// One YAML document of a file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Document {
    /// 0-based position of the document in its file.
    pub index: usize,
    /// The top-level `kind:` when it is a plain scalar.
    pub kind: Option<String>,
    /// Set when the document is the body of a `{{ define "name" }}` block.
    pub define: Option<String>,
    /// The file's lines that belong to this document.
    pub lines: Range<usize>,
    /// Every key and sequence item, in file order.
    pub keys: Vec<Key>,
    /// Comments cut off from the key below them by the end of a template block.
    pub detached: Vec<Detached>,
    /// Comments that document no key: headers, footers, blank-line separated notes,
    /// and comments above an action that prints content.
    pub free: Vec<Comment>,
    /// Comments addressed to a tool (`# yamllint disable-line`, `# @schema`): they
    /// document nothing.
    pub directives: Vec<Comment>,
    /// Set when the document is not valid YAML after masking and its keys were
    /// recovered from indentation.
    pub recovered: bool,
    /// Set when the branches of an if/else have shapes no one YAML tree holds, and
    /// one branch of each was modelled instead.
    pub branch: Option<Branch>,
    /// Every `#` comment of the document, one per line, as the parser found it.
    pub yaml_comments: Vec<RawComment>,
}

/// A key of a mapping, or an item of a sequence.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Key {
    /// helm-unittest dot notation: `spec.configuration.evictionStrategy`,
    /// `…featureGates[0]`, `metadata.annotations["a.b/c"]`.
    pub path: String,
    /// 0-based line.
    pub line: usize,
    /// 0-based column, in characters.
    pub column: usize,
    /// Byte offset of the key (or of the item's `-`) in the file.
    pub offset: usize,
    /// The comments that document it.
    pub comments: Vec<Attached>,
}

/// A comment attached to a key, and how.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Attached {
    /// Where the comment sits.
    pub placement: Placement,
    /// The comment.
    pub comment: Comment,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
/// Where a comment sits relative to the key it documents.
#[non_exhaustive]
pub enum Placement {
    /// On the key's own line, after the key or its value.
    Trailing,
    /// The comment lines directly above the key, at its column.
    Leading,
}

impl Placement {
    /// `trailing` or `leading`.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Trailing => "trailing",
            Placement::Leading => "leading",
        }
    }
}

/// A comment separated from the key below it by a template block's end.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Detached {
    /// The comment.
    pub comment: Comment,
    /// Path of the key the comment sits above.
    pub separated_from: String,
    /// 0-based line of the `end` or `else` that cut the comment off from its key.
    pub closed_at: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// How a comment is written.
#[non_exhaustive]
pub enum CommentStyle {
    /// `# …`
    Yaml,
    /// `{{/* … */}}`
    Template,
}

/// A comment: one `{{/* */}}` action, or a run of `#` lines read as one text.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Comment {
    /// `#` or `{{/* */}}`.
    pub style: CommentStyle,
    /// 0-based first and last line.
    pub line: usize,
    /// 0-based last line.
    pub end_line: usize,
    /// 0-based column of the first line's marker, in characters.
    pub column: usize,
    /// The text without its markers: `#` and one space after it on every line, or
    /// `{{/*` and `*/}}`; the lines of a run joined with `\n`.
    pub text: String,
    /// Byte range of every piece: each `#` comment of a run, or the whole action.
    pub spans: Vec<Range<usize>>,
}

impl FileModel {
    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every key of every document, with its document.
    pub fn keys(&self) -> impl Iterator<Item = (&Document, &Key)> {
        self.documents
            .iter()
            .flat_map(|document| document.keys.iter().map(move |key| (document, key)))
    }
}
