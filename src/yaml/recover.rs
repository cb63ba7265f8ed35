//! Recovers keys and comments from indentation where tree-sitter could not parse.
//!
//! A template that is not valid YAML even after masking still has the shape of YAML:
//! block mappings and sequences laid out by indentation. This scanner reads that
//! shape line by line (keys, `- ` items, block scalars, comments) so the document is
//! still modelled, with the same path notation as the tree walk.

use super::scan::scan_comments;
use super::syntax::{push_key, scalar_text, ParsedDocument, RawKey, MAX_DEPTH};

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
    let mut stack: Vec<Frame> = Vec::new();
    // Inside a block scalar: lines indented deeper than this column are its content.
    let mut block_scalar_parent: Option<usize> = None;
    // Inside a flow collection that spans lines: how many brackets are open.
    let mut flow_depth = 0usize;
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
        if let Some(parent) = block_scalar_parent {
            if indent > parent {
                continue;
            }
            block_scalar_parent = None;
        }
        if content.starts_with('#') {
            continue;
        }
        if flow_depth > 0 {
            flow_depth = update_flow_depth(flow_depth, content);
            continue;
        }
        if content.starts_with("---") || content.starts_with("...") {
            stack.clear();
            continue;
        }
        let mut column = indent;
        let mut rest = content;
        loop {
            while stack.last().is_some_and(|frame| frame.column > column) {
                stack.pop();
            }
            let is_item = rest == "-" || rest.starts_with("- ");
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
                    document.too_deep_at.get_or_insert(line);
                    break;
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
            let Some(frame) = stack.last_mut() else {
                break;
            };
            if is_item {
                let path = format!("{}[{}]", frame.base, frame.items);
                frame.items += 1;
                frame.last_entry = Some(path.clone());
                document.keys.push(key(path, start, line, column));
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
            let mut recovered = key(path, start, line, column);
            let value = value.trim_start();
            if value.is_empty() || value.starts_with('#') {
                recovered.value_end_line = line + 1;
            } else if value.starts_with('|') || value.starts_with('>') {
                recovered.value_end_line = line + 1;
                block_scalar_parent = Some(column);
            } else if value.starts_with('[') || value.starts_with('{') {
                flow_depth = update_flow_depth(0, value);
            }
            document.keys.push(recovered);
            break;
        }
    }
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

fn skip_quoted(bytes: &[u8], open: usize) -> usize {
    let quote = bytes[open];
    let mut position = open + 1;
    while position < bytes.len() {
        if quote == b'"' && bytes[position] == b'\\' {
            position += 2;
            continue;
        }
        if bytes[position] == quote {
            if quote == b'\'' && bytes.get(position + 1) == Some(&b'\'') {
                position += 2;
                continue;
            }
            return position + 1;
        }
        position += 1;
    }
    bytes.len()
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
