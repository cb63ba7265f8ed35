//! Go-template handling: find the `{{ … }}` actions, then mask them into YAML.

pub mod arg;
pub(crate) mod functions;
pub mod glue;
pub mod lex;
pub mod mask;
pub mod parse;
pub mod reads;
pub mod render;
pub mod scope;

use std::ops::Range;

use crate::source::{Problem, SourceFile};
use lex::{Action, ActionKind, Keyword};

/// Lexes and masks a template, adding an unclosed action's problem to `problems`;
/// `lexed` is its lexing when made already (of this very text).
pub fn lex_and_mask(
    source: &SourceFile,
    lexed: Option<lex::Lexed>,
    problems: &mut Vec<Problem>,
) -> (Vec<Action>, mask::Masked) {
    let (actions, errors) = lexed.unwrap_or_else(|| lex::lex(&source.text));
    // One problem of a kind per line: a line of a thousand unclosed `{{` is one
    // mistake to fix, and must not cost a thousand findings.
    let mut last: Option<(usize, String)> = None;
    for error in errors {
        let line = source.line_of(error.offset);
        if last
            .as_ref()
            .is_some_and(|(seen, message)| *seen == line && *message == error.message)
        {
            continue;
        }
        last = Some((line, error.message.clone()));
        problems.push(Problem::at(line, error.offset, error.message));
    }
    let masked = mask::mask(&source.text, &actions);
    (actions, masked)
}

/// A `{{ define "name" }}` … `{{ end }}` block at the top level of a file. Its body
/// is a YAML fragment of its own, indented for where it is included, so it is
/// modelled as a document of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Define {
    pub name: String,
    /// From the line of `define` through the line of its `end`.
    pub lines: Range<usize>,
}

/// The top-level `define` (and `block`) blocks of a file, in order.
pub fn defines(source: &SourceFile, actions: &[Action]) -> Vec<Define> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut open: Option<(String, usize)> = None;
    for action in actions {
        let ActionKind::Control(keyword) = action.kind else {
            continue;
        };
        match keyword {
            Keyword::Define | Keyword::Block => {
                if depth == 0 {
                    let name = template_name(action.body_text(&source.text));
                    open = Some((name, source.line_of(action.span.start)));
                }
                depth += 1;
            }
            Keyword::If | Keyword::With | Keyword::Range => depth += 1,
            Keyword::End => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some((name, start)) = open.take() {
                        let end = source.line_of(action.span.end.saturating_sub(1));
                        found.push(Define {
                            name,
                            lines: start..end + 1,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The quoted name in `define "app.labels"`.
fn template_name(body: &str) -> String {
    let Some(open) = body.find(['"', '`']) else {
        return String::new();
    };
    let quote = body.as_bytes()[open] as char;
    let rest = &body[open + 1..];
    rest.find(quote)
        .map_or(rest, |close| &rest[..close])
        .to_string()
}
