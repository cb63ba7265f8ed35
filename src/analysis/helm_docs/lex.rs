//! One content line's tokens, read far enough for the comment split: flow
//! collections, quoted scalars, the last token's kind.

use super::lines::{FileLines, LastToken, SimKey};
use crate::yaml::scan::closing_quote;

/// What the scanner carries from line to line.
#[derive(Default)]
pub(super) struct LexState {
    flow_depth: usize,
    quote: Option<u8>,
    expect_node: bool,
}

/// The facts of one content line.
pub(super) struct ContentLine {
    pub(super) line: usize,
    /// Byte column of its first character that is not a space or tab.
    pub(super) first_column: usize,
    /// The line starts outside flow collections and quoted scalars, so its first
    /// token may end blocks.
    pub(super) starts_in_block: bool,
    pub(super) last: LastToken,
    /// A comment follows the content on this line.
    pub(super) trailing_comment: bool,
    /// The line is `---` or `...`.
    pub(super) document_marker: Option<&'static str>,
    /// The line's first character closes a flow collection.
    pub(super) closes_flow: bool,
    /// The line is a `- ` item with only an anchor or a tag after the dash: its
    /// collection starts on the next line.
    pub(super) item_with_properties_only: bool,
}

/// Reads one content line's tokens far enough to know where flow collections and
/// quoted scalars start and end, which of `keys` sit inside a flow collection, and
/// what the last token is.
pub(super) fn lex_line(
    file: &FileLines,
    line: usize,
    state: &mut LexState,
    keys: &[SimKey],
    in_flow: &mut [bool],
) -> ContentLine {
    let text = file.text(line);
    let bytes = text.as_bytes();
    let offset = file.source.line_text(line).len() - text.len();
    let indentation = bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let first_column = indentation + offset;
    let trailing_comment = file.comment_start[line].is_some();
    let starts_in_block = state.flow_depth == 0 && state.quote.is_none();
    let mut content = ContentLine {
        line,
        first_column,
        starts_in_block,
        last: LastToken::Other,
        trailing_comment,
        document_marker: None,
        closes_flow: state.flow_depth > 0 && matches!(bytes.get(indentation), Some(b']' | b'}')),
        item_with_properties_only: false,
    };
    if file.block_scalar[line] {
        content.starts_in_block = false;
        content.last = LastToken::Scalar;
        return content;
    }
    if starts_in_block {
        for marker in ["---", "..."] {
            if text.starts_with(marker)
                && bytes
                    .get(3)
                    .is_none_or(|&b| b == b' ' || b == b'\t' || b == b'\r')
            {
                content.document_marker = Some(marker);
                return content;
            }
        }
        state.expect_node = true;
    }
    let mut key_index = 0;
    let mut position = 0;
    if let Some(quote) = state.quote {
        match closing_quote(bytes, 0, quote) {
            Some(after) => {
                state.quote = None;
                position = after;
                state.expect_node = false;
            }
            None => return content,
        }
    }
    // Whether the tokens so far are a `-` followed only by anchors and tags.
    let mut shape = Shape::Empty;
    while position < bytes.len() {
        let byte = bytes[position];
        if byte == b' ' || byte == b'\t' {
            position += 1;
            continue;
        }
        if byte == b'#' && (position == 0 || matches!(bytes[position - 1], b' ' | b'\t')) {
            break;
        }
        while key_index < keys.len() && keys[key_index].column < position + offset {
            key_index += 1;
        }
        if key_index < keys.len() && keys[key_index].column == position + offset {
            in_flow[key_index] = state.flow_depth > 0;
            key_index += 1;
        }
        let (token, after) = lex_token(bytes, position, state, &mut content.last);
        position = after;
        shape = match (shape, token) {
            (Shape::Empty, Token::Dash) => Shape::Dash,
            (Shape::Dash | Shape::DashProperties, Token::Property) => Shape::DashProperties,
            _ => Shape::Other,
        };
    }
    content.item_with_properties_only = shape == Shape::DashProperties;
    content
}

/// Reads the token that starts at `position` (no space, no comment) and moves
/// `state` past it; `last` becomes its kind. Returns the token and the position
/// after it.
fn lex_token(
    bytes: &[u8],
    mut position: usize,
    state: &mut LexState,
    last: &mut LastToken,
) -> (Token, usize) {
    let byte = bytes[position];
    let next = bytes.get(position + 1).copied();
    let next_is_space = next.is_none_or(|b| b == b' ' || b == b'\t');
    let in_flow_collection = state.flow_depth > 0;
    let token = match byte {
        b'"' | b'\'' if state.expect_node => {
            *last = LastToken::Other;
            state.expect_node = false;
            match closing_quote(bytes, position + 1, byte) {
                Some(after) => position = after,
                None => {
                    state.quote = Some(byte);
                    position = bytes.len();
                }
            }
            Token::Other
        }
        b'[' | b'{' if state.expect_node || in_flow_collection => {
            state.flow_depth += 1;
            state.expect_node = true;
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b']' | b'}' if in_flow_collection => {
            state.flow_depth -= 1;
            state.expect_node = false;
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b',' if in_flow_collection => {
            state.expect_node = true;
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b'-' if next_is_space && state.expect_node => {
            *last = LastToken::Other;
            position += 1;
            Token::Dash
        }
        b'?' if next_is_space && state.expect_node => {
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b':' if next_is_space || (in_flow_collection && is_flow_indicator(next)) => {
            state.expect_node = true;
            *last = if in_flow_collection {
                LastToken::Other
            } else {
                LastToken::Value
            };
            position += 1;
            Token::Other
        }
        b'&' | b'!' | b'*' if state.expect_node => {
            while position < bytes.len()
                && !matches!(bytes[position], b' ' | b'\t')
                && !(in_flow_collection && is_flow_indicator(Some(bytes[position])))
            {
                position += 1;
            }
            *last = LastToken::Other;
            if byte == b'*' {
                state.expect_node = false;
                Token::Other
            } else {
                Token::Property
            }
        }
        b'|' | b'>' if state.expect_node && !in_flow_collection => {
            // A block scalar header: its content is on the next lines.
            *last = LastToken::Scalar;
            position = bytes.len();
            Token::Other
        }
        _ => {
            // A plain scalar: up to `: `, ` #`, or a flow indicator in a flow.
            *last = LastToken::Scalar;
            state.expect_node = false;
            position = plain_scalar_end(bytes, position, in_flow_collection);
            Token::Other
        }
    };
    (token, position)
}

/// Where the plain scalar that starts at `position` ends: at `: `, ` #`, or in a
/// flow collection at a flow indicator, after its first character.
fn plain_scalar_end(bytes: &[u8], mut position: usize, in_flow_collection: bool) -> usize {
    position += 1;
    while position < bytes.len() {
        let byte = bytes[position];
        let next = bytes.get(position + 1).copied();
        let ends_at_colon = byte == b':'
            && (next.is_none_or(|b| b == b' ' || b == b'\t')
                || (in_flow_collection && is_flow_indicator(next)));
        let ends_at_comment = matches!(byte, b' ' | b'\t') && next == Some(b'#');
        if ends_at_colon || ends_at_comment || (in_flow_collection && is_flow_indicator(Some(byte)))
        {
            break;
        }
        position += 1;
    }
    position
}

/// A flow indicator: `,`, `[`, `]`, `{`, `}`.
fn is_flow_indicator(byte: Option<u8>) -> bool {
    matches!(byte, Some(b',' | b'[' | b']' | b'{' | b'}'))
}

/// A token, as far as [`lex_token`] tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Dash,
    /// An anchor or a tag.
    Property,
    Other,
}

/// The tokens of a line so far: nothing, a `-`, a `-` and properties, or else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Empty,
    Dash,
    DashProperties,
    Other,
}
