//! The tokens of an action's body and the pipelines parsed from them, bounded in
//! nesting.

use std::ops::Range;

use super::MAX_LITERALS;

/// One token of an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub(super) kind: Kind,
    span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    Open,
    /// `)`, with the fields that follow it (`(…).a.b`).
    Close(Vec<String>),
    Pipe,
    Declare,
    Assign,
    Str(String),
    Ident(String),
    /// `.a.b` (no variable), `$.a`, `$v.a`; `variable` is `""` for `$`.
    Chain {
        variable: Option<String>,
        fields: Vec<String>,
    },
    Other,
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The tokens of an action's body; `base` is the body's offset in the file.
pub(super) fn tokenize(body: &str, base: usize) -> Vec<Token> {
    let bytes = body.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let byte = bytes[at];
        let kind = match byte {
            b' ' | b'\t' | b'\n' | b'\r' => {
                at += 1;
                continue;
            }
            b'(' => {
                at += 1;
                Kind::Open
            }
            b')' => {
                at += 1;
                // `(…).field`: a field of the group's value.
                let mut fields = Vec::new();
                at = fields_from(body, at, &mut fields);
                Kind::Close(fields)
            }
            b'|' => {
                at += 1;
                Kind::Pipe
            }
            b':' if bytes.get(at + 1) == Some(&b'=') => {
                at += 2;
                Kind::Declare
            }
            b'=' => {
                at += 1;
                Kind::Assign
            }
            b'"' => {
                let (value, end) = interpreted_string(body, at);
                at = end;
                Kind::Str(value)
            }
            b'`' => {
                let (value, end) = raw_string(body, at);
                at = end;
                Kind::Str(value)
            }
            b'\'' => {
                at = after_character(bytes, at);
                Kind::Other
            }
            b'.' => {
                let mut fields = Vec::new();
                at = fields_from(body, at, &mut fields);
                if fields.is_empty() {
                    at += 1;
                }
                Kind::Chain {
                    variable: None,
                    fields,
                }
            }
            b'$' => {
                let end = word_end(bytes, at + 1);
                let name = body[at + 1..end].to_string();
                let mut fields = Vec::new();
                at = fields_from(body, end, &mut fields);
                Kind::Chain {
                    variable: Some(name),
                    fields,
                }
            }
            byte if byte.is_ascii_alphabetic() || byte == b'_' => {
                let end = word_end(bytes, at);
                let name = body[at..end].to_string();
                let mut ignored = Vec::new();
                at = fields_from(body, end, &mut ignored);
                if ignored.is_empty() {
                    Kind::Ident(name)
                } else {
                    Kind::Other
                }
            }
            _ => {
                // Numbers, operators of other dialects, stray bytes: one character.
                at += body[at..].chars().next().map_or(1, char::len_utf8);
                while at < bytes.len() && (is_word(bytes[at]) || bytes[at] == b'.') {
                    at += 1;
                }
                Kind::Other
            }
        };
        tokens.push(Token {
            kind,
            span: base + start..base + at,
        });
    }
    tokens
}

/// Where the word that starts at `from` ends (`from` when none does).
fn word_end(bytes: &[u8], from: usize) -> usize {
    let mut end = from;
    while end < bytes.len() && is_word(bytes[end]) {
        end += 1;
    }
    end
}

/// Reads the fields `.a.b` that start at `from` into `fields`; returns where they
/// end.
fn fields_from(body: &str, mut from: usize, fields: &mut Vec<String>) -> usize {
    let bytes = body.as_bytes();
    while from + 1 < bytes.len() && bytes[from] == b'.' && is_word(bytes[from + 1]) {
        let end = word_end(bytes, from + 1);
        fields.push(body[from + 1..end].to_string());
        from = end;
    }
    from
}

/// The value of the `"…"` string that opens at `at` (each escaped character taken
/// as it is, without its backslash), and the position after it; an unclosed one
/// runs to the end of the body.
fn interpreted_string(body: &str, mut at: usize) -> (String, usize) {
    let bytes = body.as_bytes();
    let mut value = String::new();
    at += 1;
    while at < bytes.len() && bytes[at] != b'"' {
        if bytes[at] == b'\\' && at + 1 < bytes.len() {
            at += 1;
        }
        let length = body[at..].chars().next().map_or(1, char::len_utf8);
        value.push_str(&body[at..at + length]);
        at += length;
    }
    (value, (at + 1).min(bytes.len()))
}

/// The value of the `` `…` `` string that opens at `at`, and the position after it.
fn raw_string(body: &str, at: usize) -> (String, usize) {
    let end = body[at + 1..].find('`').map_or(body.len(), |e| at + 1 + e);
    let value = body[at + 1..end].to_string();
    (value, (end + 1).min(body.len()))
}

/// The position after the `'…'` character constant that opens at `at`.
fn after_character(bytes: &[u8], mut at: usize) -> usize {
    at += 1;
    while at < bytes.len() && bytes[at] != b'\'' {
        at += if bytes[at] == b'\\' { 2 } else { 1 };
    }
    (at + 1).min(bytes.len())
}

/// One operand of a command.
#[derive(Debug, Clone)]
pub(super) enum Item {
    Chain {
        variable: Option<String>,
        fields: Vec<String>,
        span: Range<usize>,
    },
    /// A string literal: its value, and where it is spelled (quotes included).
    Str(String, Range<usize>),
    Ident(String),
    /// A parenthesized pipeline, and the fields taken of its value.
    Group {
        commands: Vec<Vec<Item>>,
        fields: Vec<String>,
    },
    Other,
}

/// Commands of a pipeline, parentheses nested (at most 64 deep; deeper is one
/// opaque operand).
pub(super) fn parse(tokens: &[Token]) -> Vec<Vec<Item>> {
    let mut at = 0;
    parse_pipeline(tokens, &mut at, 0).0
}

/// The commands up to the closing parenthesis, and the fields taken after it.
fn parse_pipeline(tokens: &[Token], at: &mut usize, depth: usize) -> (Vec<Vec<Item>>, Vec<String>) {
    let mut commands = vec![Vec::new()];
    let mut after = Vec::new();
    while *at < tokens.len() {
        let token = &tokens[*at];
        *at += 1;
        let item = match &token.kind {
            Kind::Close(fields) => {
                after.clone_from(fields);
                break;
            }
            Kind::Pipe => {
                commands.push(Vec::new());
                continue;
            }
            Kind::Open if depth < 64 => {
                let (commands, fields) = parse_pipeline(tokens, at, depth + 1);
                Item::Group { commands, fields }
            }
            Kind::Chain { variable, fields } => Item::Chain {
                variable: variable.clone(),
                fields: fields.clone(),
                span: token.span.clone(),
            },
            Kind::Str(value) => Item::Str(value.clone(), token.span.clone()),
            Kind::Ident(name) => Item::Ident(name.clone()),
            _ => Item::Other,
        };
        if let Some(command) = commands.last_mut() {
            command.push(item);
        }
    }
    commands.retain(|command| !command.is_empty());
    (commands, after)
}

/// The string literals of an argument, groups included, bounded.
pub(super) fn collect_literals(item: &Item, literals: &mut Vec<String>, depth: usize) {
    match item {
        Item::Str(value, _) if literals.len() < MAX_LITERALS => literals.push(value.clone()),
        Item::Group { commands, .. } if depth < 8 => {
            for item in commands.iter().flatten() {
                collect_literals(item, literals, depth + 1);
            }
        }
        _ => {}
    }
}
