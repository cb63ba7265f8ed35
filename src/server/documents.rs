//! The open documents: each one's text as the editor has it (the overlay every
//! analysis of the server reads instead of the file on disk), its version, and the
//! conversions between LSP positions (lines and UTF-16 columns) and byte offsets.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use lsp_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

/// One open document.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// As the client named it; diagnostics and edits are sent back under it.
    pub uri: Uri,
    /// The editor's version, `None` for a file read from disk.
    pub version: Option<i32>,
    pub text: Arc<str>,
}

/// The open documents by path, resolved (`workspace::resolve`).
pub(crate) type Documents = HashMap<PathBuf, Document>;

/// The longest path a system call takes (Linux's `PATH_MAX`): a longer one names no
/// file, and resolving it would cost time growing with the square of its length.
const MAX_PATH_BYTES: usize = 4096;

/// The absolute path a `file:` URI names, percent-decoded and nothing more: where
/// the file really is, and whether the server may read it, is the workspace's to
/// say (`workspace.rs`). `None` past [`MAX_PATH_BYTES`].
pub(crate) fn named_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    if text.len() > 3 * MAX_PATH_BYTES + "file://localhost".len() {
        return None;
    }
    let rest = text.strip_prefix("file://")?;
    // `file://host/path`: only the local host.
    let rest = match rest.find('/') {
        Some(0) => rest,
        Some(at) if &rest[..at] == "localhost" => &rest[at..],
        _ => return None,
    };
    let decoded = percent_decode(rest)?;
    // `file:///C:/x` names `C:/x` on Windows.
    let decoded = if cfg!(windows) {
        decoded.trim_start_matches('/').to_string()
    } else {
        decoded
    };
    if decoded.len() > MAX_PATH_BYTES {
        return None;
    }
    let path = PathBuf::from(decoded);
    path.is_absolute().then_some(path)
}

/// The `file:` URI of an absolute path.
pub(crate) fn uri_of(path: &Path) -> Option<Uri> {
    let mut text = String::from("file://");
    let slashed = crate::paths::slashed(path);
    if !slashed.starts_with('/') {
        text.push('/');
    }
    for byte in slashed.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~:".contains(&byte) {
            text.push(char::from(byte));
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    Uri::from_str(&text).ok()
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The line starts of a text, to convert between offsets and positions.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// The index of `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
        LineIndex { text, starts }
    }

    /// The position of a byte offset (clamped to the text, and back to a character
    /// boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let start = self.starts[line];
        let column: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }

    /// The range of a byte range.
    pub fn range(&self, range: &std::ops::Range<usize>) -> Range {
        Range::new(self.position(range.start), self.position(range.end))
    }

    /// The byte offset of a position; past the end of a line is its end, past the
    /// last line the text's end.
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |&next| next);
        let mut units = 0u32;
        for (at, character) in self.text[start..end].char_indices() {
            if units >= position.character || character == '\n' {
                return start + at;
            }
            units += u32::try_from(character.len_utf16()).unwrap_or(2);
        }
        end
    }

    /// The start of line `line` (0-based), or the text's end.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.text.len())
    }

    /// The 0-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }
}

/// `text` with the editor's changes applied in order (a change without a range
/// replaces the whole text).
pub(crate) fn apply_changes(text: &str, changes: Vec<TextDocumentContentChangeEvent>) -> String {
    let mut current = text.to_string();
    for change in changes {
        match change.range {
            None => current = change.text,
            Some(range) => {
                let index = LineIndex::new(&current);
                let start = index.offset(range.start);
                let end = index.offset(range.end).max(start);
                current.replace_range(start..end, &change.text);
            }
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_longer_than_the_system_takes_names_nothing() {
        let long = |bytes: usize| {
            let uri: Uri = format!("file:///{}", "a/".repeat(bytes / 2))
                .parse()
                .unwrap();
            named_path(&uri)
        };
        assert!(long(4000).is_some());
        assert!(long(1 << 20).is_none());
    }

    #[test]
    fn positions_count_utf16_units() {
        let text = "a: é𝄞x\nb: 1\n";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), Position::new(0, 6));
        assert_eq!(index.offset(Position::new(0, 6)), x);
        assert_eq!(index.offset(Position::new(0, 99)), text.find('\n').unwrap());
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
        assert_eq!(index.position(text.find('b').unwrap()), Position::new(1, 0));
    }

    #[test]
    fn changes_apply_in_order() {
        let change = |range: Option<Range>, text: &str| TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.into(),
        };
        let text = apply_changes(
            "a: 1\nb: 2\n",
            vec![
                change(
                    Some(Range::new(Position::new(1, 3), Position::new(1, 4))),
                    "3",
                ),
                change(
                    Some(Range::new(Position::new(0, 0), Position::new(0, 0))),
                    "# x\n",
                ),
            ],
        );
        assert_eq!(text, "# x\na: 1\nb: 3\n");
    }

    #[test]
    fn file_uris_round_trip() {
        let path = std::env::temp_dir().join("a b%c.yaml");
        let uri = uri_of(&path).unwrap();
        assert!(uri.as_str().contains("a%20b%25c.yaml"));
        assert_eq!(named_path(&uri).unwrap(), path);
    }
}
