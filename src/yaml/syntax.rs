//! The syntax the YAML stages share: keys, comments and documents as found, before
//! comments are anchored (`parse.rs` and `recover.rs` produce them, `scan.rs` finds
//! comments, `anchor.rs` reads them). A leaf: it imports nothing of the crate.

use std::ops::Range;

/// Collections nested deeper than this are not modelled. tree-sitter-yaml keeps its
/// stack of block indentations in a 1 KiB state buffer and aborts the process past
/// about 250 levels, so deeper documents never reach it; and the paths of such keys
/// would be useless, and quadratic in size.
pub const MAX_DEPTH: usize = 200;

/// A key or sequence item found in the YAML, before comments are anchored to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawKey {
    /// helm-unittest style path: `spec.template.spec.containers[0].name`.
    pub path: String,
    /// Byte offset of the key (or of the item's `-`).
    pub offset: usize,
    /// 0-based line in the file.
    pub line: usize,
    /// 0-based byte column on its line.
    pub column: usize,
    /// Line on which the key's value ends.
    pub value_end_line: usize,
    /// Whether the key sits inside a flow collection (`{…}`, `[…]`).
    pub in_flow: bool,
}

/// A YAML `#` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawComment {
    /// Byte range of the comment, `#` included, without a trailing `\r`.
    pub span: Range<usize>,
    pub line: usize,
    pub column: usize,
    /// Nothing but whitespace before it on its line.
    pub own_line: bool,
}

/// One document of a file: its lines, keys and comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedDocument {
    /// Lines `lines.start..lines.end` of the file belong to this document.
    pub lines: Range<usize>,
    pub keys: Vec<RawKey>,
    pub comments: Vec<RawComment>,
    /// The value of a top-level `kind:` when it is a plain scalar.
    pub kind: Option<String>,
    /// The `define` whose body this document is.
    pub define: Option<String>,
    /// Set when the keys and comments come from indentation (`recover.rs`) instead of
    /// a tree, with the reason.
    pub recovered: Option<Recovery>,
    /// A line where nesting went past [`MAX_DEPTH`].
    pub too_deep_at: Option<usize>,
}

/// Why a document was recovered from indentation instead of parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// tree-sitter found ERROR or MISSING nodes on these lines.
    SyntaxError { lines: Range<usize> },
    /// Block collections nest deeper than [`MAX_DEPTH`] at this line.
    TooDeep { line: usize },
    /// The document has more lines than tree-sitter-yaml can count.
    TooLong,
}

/// Appends a key segment in helm-unittest dot notation, quoting it as `["a.b"]` when
/// it holds characters the notation uses.
pub fn push_key(path: &mut String, name: String) {
    let needs_quotes = name.is_empty()
        || name
            .chars()
            .any(|c| matches!(c, '.' | '[' | ']' | '"' | '\\') || c.is_whitespace());
    if needs_quotes {
        path.push_str("[\"");
        for c in name.chars() {
            if c == '"' || c == '\\' {
                path.push('\\');
            }
            path.push(c);
        }
        path.push_str("\"]");
    } else {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&name);
    }
}

/// Appends a sequence index in helm-unittest dot notation: `[3]`.
pub fn push_index(path: &mut String, index: usize) {
    use std::fmt::Write;
    let _ = write!(path, "[{index}]");
}

/// The value of a scalar as written: quotes and escapes of quoted scalars removed.
pub fn scalar_text(text: &str) -> String {
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => out.push('\\'),
                }
            } else {
                out.push(c);
            }
        }
        out
    } else if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        inner.replace("''", "'")
    } else {
        text.to_string()
    }
}
