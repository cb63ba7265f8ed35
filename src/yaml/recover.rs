//! Recovers keys and comments from indentation where tree-sitter could not parse.
//!
//! A template that is not valid YAML even after masking still has the shape of YAML:
//! block mappings and sequences laid out by indentation. This scanner reads that
//! shape line by line (keys, `- ` items, block scalars, comments) so the document is
//! still modelled, with the same path notation as the tree walk.

use super::scan::{closing_quote, scan_comments};
use super::syntax::{MAX_DEPTH, ParsedDocument, RawKey, push_key, scalar_text};

/// One open collection: the column its entries start at and the path they live under.
struct Frame {
    column: usize,
    is_sequence: bool,
    base: String,
    items: usize,
    /// Path of the last entry, the parent of anything nested below it.
    last_entry: Option<String>,
}

/// Fills `document.keys`, `document.comments` and `document.kind` from the masked lines.
pub fn recover(
    original: &str,
    masked: &str,
    line_starts: &[usize],
    content_start: usize,
    document: &mut ParsedDocument,
) {
    document.comments = scan_comments(
        original,
        masked,
        line_starts,
        document.lines.clone(),
        content_start,
    );
    let mut scan = Indentation::default();
    for line in document.lines.clone() {
        let start = line_starts[line];
        let limit = line_starts.get(line + 1).map_or(masked.len(), |&next| next);
        let mut text = &masked[start..limit];
        text = text.strip_suffix('\n').unwrap_or(text);
        text = text.strip_suffix('\r').unwrap_or(text);
        let content = text.trim_start_matches([' ', '\u{feff}']);
        let indent = text.len() - content.len();
        if content.trim().is_empty() {
            continue;
        }
        if let Some(parent) = scan.block_scalar_parent {
            if indent > parent {
                continue;
            }
            scan.block_scalar_parent = None;
        }
        if content.starts_with('#') {
            continue;
        }
        if scan.flow_depth > 0 {
            scan.flow_depth = update_flow_depth(scan.flow_depth, content);
            continue;
        }
        if content.starts_with("---") || content.starts_with("...") {
            scan.stack.clear();
            continue;
        }
        let at = LineAt {
            original,
            number: line,
            start,
            text,
        };
        scan.entries(&at, indent, content, document);
    }
}

/// One line of the document, as the scan reads it.
struct LineAt<'a> {
    /// The file's text, where a key's name and value are read: the masked line
    /// only says where they are.
    original: &'a str,
    number: usize,
    /// The byte offset where the line starts.
    start: usize,
    /// The masked line, without its line break.
    text: &'a str,
}

/// What the scan carries from line to line.
#[derive(Default)]
struct Indentation {
    /// The open collections, outermost first.
    stack: Vec<Frame>,
    /// Inside a block scalar: lines indented deeper than this column are its content.
    block_scalar_parent: Option<usize>,
    /// Inside a flow collection that spans lines: how many brackets are open.
    flow_depth: usize,
}

impl Indentation {
    /// Reads the entries of a line of content, `rest` from `column` on: each `- `
    /// is an item (and what follows it an entry of a collection at its column), then
    /// a `key: value` pair ends the line, as does anything else.
    fn entries(
        &mut self,
        line: &LineAt,
        mut column: usize,
        mut rest: &str,
        document: &mut ParsedDocument,
    ) {
        loop {
            let is_item = rest == "-" || rest.starts_with("- ");
            if !self.enter(column, is_item) {
                document.too_deep_at.get_or_insert(line.number);
                break;
            }
            let Some(frame) = self.stack.last_mut() else {
                break;
            };
            if is_item {
                let path = format!("{}[{}]", frame.base, frame.items);
                frame.items += 1;
                frame.last_entry = Some(path.clone());
                document
                    .keys
                    .push(key(path, line.start, line.number, column));
                let after = rest[1..].trim_start_matches(' ');
                if after.is_empty() || after.starts_with('#') {
                    break;
                }
                column += rest.len() - after.len();
                rest = after;
                continue;
            }
            let Some((name, value)) = split_key(rest) else {
                break;
            };
            let mut recovered = pair(line, column, name, value, frame, document);
            self.open_value(&mut recovered, value, column);
            document.keys.push(recovered);
            break;
        }
    }

    /// Closes the collections an entry at `column` ends and opens the one it starts,
    /// if any. Returns `false`, opening nothing, when that would nest deeper than
    /// [`MAX_DEPTH`].
    fn enter(&mut self, column: usize, is_item: bool) -> bool {
        let stack = &mut self.stack;
        while stack.last().is_some_and(|frame| frame.column > column) {
            stack.pop();
        }
        if !is_item
            && stack
                .last()
                .is_some_and(|f| f.is_sequence && f.column == column)
        {
            stack.pop();
        }
        let needs_frame = match stack.last() {
            None => true,
            Some(frame) => frame.column < column || (is_item && !frame.is_sequence),
        };
        if needs_frame {
            if stack.len() >= MAX_DEPTH {
                return false;
            }
            let base = stack
                .last()
                .map(|frame| {
                    frame
                        .last_entry
                        .clone()
                        .unwrap_or_else(|| frame.base.clone())
                })
                .unwrap_or_default();
            stack.push(Frame {
                column,
                is_sequence: is_item,
                base,
                items: 0,
                last_entry: None,
            });
        }
        true
    }

    /// Notes what the value of the `key` at `column` opens below its line (`value`
    /// is what follows its colon): nothing on the line, or a block scalar, is a value
    /// on the lines below (a block scalar's are text); a flow collection may go on
    /// over lines.
    fn open_value(&mut self, key: &mut RawKey, value: &str, column: usize) {
        let value = value.trim_start();
        if value.is_empty() || value.starts_with('#') {
            key.value_end_line = key.line + 1;
        } else if value.starts_with('|') || value.starts_with('>') {
            key.value_end_line = key.line + 1;
            self.block_scalar_parent = Some(column);
        } else if value.starts_with('[') || value.starts_with('{') {
            self.flow_depth = update_flow_depth(0, value);
        }
    }
}

/// The key of a `name: value` pair at `column`, an entry of `frame`; the first
/// `kind` key of the document with a value that is no template sets its kind.
fn pair(
    line: &LineAt,
    column: usize,
    name: &str,
    value: &str,
    frame: &mut Frame,
    document: &mut ParsedDocument,
) -> RawKey {
    let (original, start, text) = (line.original, line.start, line.text);
    let mut path = frame.base.clone();
    let original_name = &original[start + column..start + column + name.len()];
    push_key(&mut path, scalar_text(original_name.trim()));
    frame.last_entry = Some(path.clone());
    if path == "kind" && document.kind.is_none() {
        let value_text = value.trim();
        let original_value =
            original[start + (text.len() - value.len())..start + text.len()].trim();
        if !value_text.is_empty() && !original_value.contains("{{") {
            document.kind = Some(value_text.to_string());
        }
    }
    key(path, start, line.number, column)
}

fn key(path: String, line_start: usize, line: usize, column: usize) -> RawKey {
    RawKey {
        path,
        offset: line_start + column,
        line,
        column,
        value_end_line: line,
        in_flow: false,
    }
}

/// Splits `key: value` at the colon that ends the key, honouring quoted keys.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut position = 0;
    if matches!(bytes.first(), Some(b'"') | Some(b'\'')) {
        position = skip_quoted(bytes, 0);
    }
    while position < bytes.len() {
        match bytes[position] {
            b':' if bytes
                .get(position + 1)
                .is_none_or(|&b| b == b' ' || b == b'\t') =>
            {
                return Some((&text[..position], &text[position + 1..]));
            }
            b'#' if position > 0 && bytes[position - 1] == b' ' => return None,
            _ => position += 1,
        }
    }
    None
}

/// The byte after the quoted scalar that opens at `open`, or the end of the line.
fn skip_quoted(bytes: &[u8], open: usize) -> usize {
    closing_quote(bytes, open + 1, bytes[open]).unwrap_or(bytes.len())
}

fn update_flow_depth(mut depth: usize, text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut position = 0;
    while position < bytes.len() {
        match bytes[position] {
            b'"' | b'\'' => {
                position = skip_quoted(bytes, position);
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'#' if position > 0 && bytes[position - 1] == b' ' => break,
            _ => {}
        }
        position += 1;
    }
    depth
}
