//! Finds the `#` comments of masked YAML line by line, without a parse tree.
//!
//! A `#` starts a comment when it is at the start of a line or follows whitespace,
//! outside quoted scalars and block scalars, which this scanner tracks across lines.
//! On valid YAML it finds exactly the comments tree-sitter finds (a corpus test holds
//! it to that); it is what `tether check` reads where no rule needs a tree, and what
//! recovery reads where tree-sitter failed.

use std::ops::Range;

use super::syntax::RawComment;
use crate::lines::{block_scalar_header, count_spaces};

/// What the scanner carries from one line to the next.
enum State {
    Normal,
    /// Inside a block scalar whose content must be indented past `parent`; `indent`
    /// is the content's indentation once its first line is seen.
    BlockScalar {
        parent: usize,
        indent: Option<usize>,
    },
    /// Inside a quoted scalar that spans lines.
    Quoted(u8),
    /// After a line that ended inside a plain scalar of a block node at column
    /// `node` (`usize::MAX` at the top of a document, where any line continues):
    /// a more indented line continues that scalar, where a quote is text.
    Plain {
        node: usize,
    },
}

/// The comments on `lines` of the file. `masked` is the masked text (or the file's
/// text for plain YAML); `original` decides whether a comment is alone on its line
/// (`{{- end }}  # c` is not).
pub fn scan_comments(
    original: &str,
    masked: &str,
    line_starts: &[usize],
    lines: Range<usize>,
    content_start: usize,
) -> Vec<RawComment> {
    scan(original, masked, line_starts, lines, content_start).comments
}

/// What a scan of some lines found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub comments: Vec<RawComment>,
    /// The lines (of the file) that are the content of a block scalar.
    pub block_scalar_lines: Vec<usize>,
}

/// Scans `lines` for comments and block scalar content; see [`scan_comments`].
pub fn scan(
    original: &str,
    masked: &str,
    line_starts: &[usize],
    lines: Range<usize>,
    content_start: usize,
) -> Scan {
    let mut comments = Vec::new();
    let mut block_scalar_lines = Vec::new();
    let mut state = State::Normal;
    // Flow collections (`[`, `{`) still open from the lines above.
    let mut depth = 0usize;
    let bytes = masked.as_bytes();
    for line in lines {
        let mut start = line_starts[line];
        if line == 0 {
            start = start.max(content_start);
        }
        let limit = line_starts.get(line + 1).map_or(bytes.len(), |&next| next);
        // A line's break, if any, is its last byte: the line index starts a line
        // after every `\n` (and after a lone `\r`).
        let mut end = if limit > start && bytes[limit - 1] == b'\n' {
            limit - 1
        } else {
            limit
        };
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let text = &bytes[start..end];
        let indent = count_spaces(text);
        let Some(from) = state.resume(text, indent, line, &mut block_scalar_lines) else {
            continue;
        };
        let continued = match state {
            State::Plain { node } => Some(node),
            _ => None,
        };
        let scanned = scan_line(text, indent, from, continued.is_some(), &mut depth);
        let (comment_at, open_quote) = (scanned.comment, scanned.open_quote);
        if let Some(quote) = open_quote {
            state = State::Quoted(quote);
            continue;
        }
        // A scalar that continues keeps the node of the line it started on.
        state = match (comment_at, scanned.plain_node) {
            (None, Some(node)) => State::Plain {
                node: continued.unwrap_or(node),
            },
            _ => State::Normal,
        };
        let code_end = comment_at.unwrap_or(text.len());
        if let Some(column) = comment_at {
            let line_start = line_starts[line];
            comments.push(RawComment {
                span: start + column..end,
                line,
                column: start + column - line_start,
                own_line: is_own_line(&original[line_start..start + column]),
            });
        }
        if let Some(header) = scanned
            .header_indicator
            .then(|| block_scalar_header(&text[..code_end]))
            .flatten()
        {
            state = State::BlockScalar {
                parent: header.parent,
                indent: header.indent,
            };
        }
    }
    Scan {
        comments,
        block_scalar_lines,
    }
}

impl State {
    /// Where the scan of a line (`text`, indented by `indent`) starts, given what the
    /// lines above left open, which the line may close. `None` when there is nothing
    /// to scan on it: a blank line inside a block scalar or after a plain scalar
    /// that may continue, a line of a block scalar's content (added to
    /// `block_scalar_lines`), or a line inside a quoted scalar that does not close it.
    fn resume(
        &mut self,
        text: &[u8],
        indent: usize,
        line: usize,
        block_scalar_lines: &mut Vec<usize>,
    ) -> Option<usize> {
        let is_blank = || text[indent..].iter().all(u8::is_ascii_whitespace);
        let mut from = 0;
        match *self {
            State::BlockScalar {
                parent,
                indent: content,
            } => {
                if is_blank() {
                    return None;
                }
                match content {
                    None if indent > parent => {
                        *self = State::BlockScalar {
                            parent,
                            indent: Some(indent),
                        };
                        block_scalar_lines.push(line);
                        return None;
                    }
                    Some(content) if indent >= content => {
                        block_scalar_lines.push(line);
                        return None;
                    }
                    _ => *self = State::Normal,
                }
            }
            State::Quoted(quote) => match closing_quote(text, 0, quote) {
                Some(after) => {
                    *self = State::Normal;
                    from = after;
                }
                None => return None,
            },
            State::Plain { .. } if is_blank() => return None,
            State::Plain { node } if node == usize::MAX || indent > node => {}
            State::Plain { .. } | State::Normal => *self = State::Normal,
        }
        Some(from)
    }
}

/// Whether a comment is alone on its line: `before` (the file's text from the line's
/// start to the `#`) is only whitespace, after a byte-order mark.
fn is_own_line(before: &str) -> bool {
    before
        .trim_start_matches('\u{feff}')
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
}

/// What one line holds for the scanner.
struct Line {
    /// The column of its comment.
    comment: Option<usize>,
    /// The quote still open at its end.
    open_quote: Option<u8>,
    /// When it ends inside a plain scalar in block context: the column of the block
    /// node holding it (the `-` of an item, the key of a pair), which a continuation
    /// line must be indented past.
    plain_node: Option<usize>,
    /// Whether a `|` or `>` was seen outside quotes, before any comment: only then
    /// may the line end with a block scalar header.
    header_indicator: bool,
}

impl Line {
    /// A line with no comment that leaves nothing open for the next.
    const NOTHING_OPEN: Line = Line {
        comment: None,
        open_quote: None,
        plain_node: None,
        header_indicator: false,
    };
}

/// Scans one line from `from`; `indent` is how many spaces it starts with;
/// `continues` says it may continue a plain scalar from the line above, where a
/// leading quote is text. A plain scalar alone on its line (no `key: `, no `- `)
/// is the value of a node above it, indented less than this line: a line below as
/// indented as this one continues it.
fn scan_line(text: &[u8], indent: usize, from: usize, continues: bool, depth: &mut usize) -> Line {
    // Quotes open a scalar only where a value starts: at the start of the line, after
    // `- `, `: `, `? `, or a flow indicator (on a line in or opening one).
    let mut flow = *depth > 0;
    let mut value_start = !continues || flow;
    // The block node the current value belongs to, the start of the current plain
    // token, whether a plain scalar is open, and whether a flow collection was seen.
    let mut node = indent;
    // Leading spaces change nothing below: start after them.
    let mut position = from.max(node);
    let mut token: Option<usize> = None;
    let mut indicated = false;
    let mut plain = continues;
    let mut header_indicator = false;
    while position < text.len() {
        let byte = text[position];
        match byte {
            b'#' if position == 0 || matches!(text[position - 1], b' ' | b'\t') => {
                return Line {
                    comment: Some(position),
                    header_indicator,
                    ..Line::NOTHING_OPEN
                };
            }
            b'"' | b'\'' if value_start => match closing_quote(text, position + 1, byte) {
                Some(after) => {
                    position = after;
                    value_start = false;
                    plain = false;
                    continue;
                }
                None => {
                    return Line {
                        open_quote: Some(byte),
                        ..Line::NOTHING_OPEN
                    };
                }
            },
            b' ' | b'\t' => {}
            b'[' | b'{' if value_start || *depth > 0 => {
                *depth += 1;
                flow = true;
                value_start = true;
            }
            b']' | b'}' if *depth > 0 => {
                *depth -= 1;
                value_start = false;
            }
            // A comma separates entries only inside a flow collection; in a plain
            // scalar it is text.
            b',' if *depth > 0 => value_start = true,
            b'-' | b':' | b'?' => {
                // `- ` and `? ` are indicators only where a value starts; `: `
                // anywhere outside a quote.
                let indicator = (byte == b':' || value_start)
                    && text
                        .get(position + 1)
                        .is_none_or(|&next| next == b' ' || next == b'\t');
                if indicator {
                    indicated = true;
                    if byte == b':' {
                        node = token.unwrap_or(node);
                    } else {
                        node = position;
                    }
                    token = None;
                    plain = false;
                } else if value_start {
                    token.get_or_insert(position);
                    plain = true;
                }
                value_start = indicator;
            }
            _ => {
                header_indicator |= matches!(byte, b'|' | b'>');
                if value_start {
                    token.get_or_insert(position);
                    plain = true;
                }
                value_start = false;
                position = run_end(text, position + 1);
                continue;
            }
        }
        position += 1;
    }
    // A plain scalar at the top of a document (no `- ` or key before it, at column
    // 0) continues on any line below, however little indented. Document markers and
    // directives are no scalar.
    let scalar = plain && !flow && (continues || !is_marker_or_directive(text));
    let root = !continues && node == 0 && !indicated && token == Some(0);
    let node = node - usize::from(!indicated && !continues && node > 0);
    Line {
        plain_node: scalar.then_some(if root { usize::MAX } else { node }),
        header_indicator,
        ..Line::NOTHING_OPEN
    }
}

/// Where the run of bytes from `from` that [`scan_line`] reads no further ends:
/// most of a line is the text of a key or a value.
fn run_end(text: &[u8], from: usize) -> usize {
    text[from..]
        .iter()
        .position(|&byte| SIGNIFICANT[usize::from(byte)])
        .map_or(text.len(), |at| from + at)
}

/// The bytes [`scan_line`] reads for more than ending a value's start: every other
/// byte after the first of a run is skipped over.
const SIGNIFICANT: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"#\"' \t[]{},-:?|>";
    let mut index = 0;
    while index < bytes.len() {
        table[bytes[index] as usize] = true;
        index += 1;
    }
    table
};

/// Whether a line is a document marker (`---`, `...`) or a directive (`%YAML`).
fn is_marker_or_directive(text: &[u8]) -> bool {
    [&b"---"[..], b"...", b"%"].iter().any(|m| {
        text.starts_with(m) && (m == b"%" || text.get(3).is_none_or(|&b| b == b' ' || b == b'\t'))
    })
}

/// The position just after the quote that closes a scalar opened before `from`.
pub(crate) fn closing_quote(text: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut position = from;
    while position < text.len() {
        // Straight to the next quote or escape: the text between is the scalar's.
        let next = if quote == b'"' {
            memchr::memchr2(quote, b'\\', &text[position..])
        } else {
            memchr::memchr(quote, &text[position..])
        };
        position += next?;
        match text[position] {
            b'\\' if quote == b'"' => position += 2,
            byte if byte == quote => {
                if quote == b'\'' && text.get(position + 1) == Some(&b'\'') {
                    position += 2;
                    continue;
                }
                return Some(position + 1);
            }
            _ => position += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(text: &str) -> Vec<(usize, usize, bool)> {
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(n, _)| n + 1))
            .filter(|&n| n < text.len())
            .collect();
        scan_comments(text, text, &line_starts, 0..line_starts.len(), 0)
            .into_iter()
            .map(|c| (c.line, c.column, c.own_line))
            .collect()
    }

    #[test]
    fn finds_comments_outside_scalars() {
        let text = "# a\nk: v # b\ns: \"x # no\" # c\nt: 'it''s # no'\nu: a#b\nblock: |  # d\n  # text\n  more\n# e\n";
        assert_eq!(
            columns(text),
            vec![
                (0, 0, true),
                (1, 5, false),
                (2, 12, false),
                (5, 10, false),
                (8, 0, true)
            ]
        );
    }

    #[test]
    fn block_scalar_headers_only_outside_quotes_and_comments() {
        // A document-level block scalar; `|` in quotes or in a comment opens none.
        let text = "--- |\n  # text\n# a\nb: '|' # b\n  # c\nd: x # |\n  # e\nf: >-\n  # text\n";
        assert_eq!(
            columns(text),
            vec![
                (2, 0, true),
                (3, 7, false),
                (4, 2, true),
                (5, 5, false),
                (6, 2, true)
            ]
        );
    }

    #[test]
    fn multi_line_quotes_and_plain_apostrophes() {
        let text = "a: \"x\n  # inside\n  y\" # after\nb: don't # c\n";
        assert_eq!(columns(text), vec![(2, 5, false), (3, 9, false)]);
    }
}
