//! Which recovered documents `recovered-template` leaves alone because tether cannot
//! judge them: Helm may well render valid YAML from them, and the masked text says
//! nothing either way.
//!
//! Four shapes are undecidable:
//! - lines that continue the block an output action prints (see
//!   [`continuation_lines`]);
//! - lines a right trim marker joins to the scalar of the line above (see
//!   [`glued_lines`]);
//! - a flow-empty `[]` or `{}` printed under a condition after a block collection's
//!   items (see [`conditional_flow_empty`]);
//! - the body of a `define` that is text of another format (see [`is_text_body`]).
//!
//! For the first three, the lines are blanked in the masked document and the document
//! is read again: it is undecidable only when that reading succeeds, so the lines
//! are shown to be the cause of the error, not merely present beside it.

use std::ops::Range;

use crate::rules::rule::FileContext;
use crate::template::lex::{Action, ActionKind, Keyword};
use crate::yaml::model::Document;

/// Whether a recovered `document` is one tether cannot judge, so that reporting it
/// would be a guess.
pub fn is_undecidable(context: &FileContext, document: &Document, masked: &str) -> bool {
    let lines = document.lines.clone();
    let view = Lines::new(context, lines.clone());
    if document.define.is_some() && is_text_body(&view) {
        return true;
    }
    let mut blanked: Vec<usize> = continuation_lines(&view);
    blanked.extend(glued_lines(&view));
    blanked.extend(conditional_flow_empty(&view));
    if blanked.is_empty() || crate::yaml::events::first_error(masked).is_none() {
        return false;
    }
    let mut text = masked.as_bytes().to_vec();
    let start = context.source.line_start(lines.start);
    for line in blanked {
        let range = context.source.line_range(line);
        for byte in &mut text[range.start - start..range.end - start] {
            *byte = b' ';
        }
    }
    let text = String::from_utf8_lossy(&text);
    crate::yaml::events::first_error(&text).is_none()
}

/// The lines of one document with what the rule needs of each: the source and masked
/// text, and the actions that start on it.
struct Lines<'a> {
    context: &'a FileContext<'a>,
    range: Range<usize>,
    /// The actions that start on each line of `range`, in order.
    actions: Vec<Vec<&'a Action>>,
}

impl<'a> Lines<'a> {
    fn new(context: &'a FileContext<'a>, range: Range<usize>) -> Self {
        let mut actions = vec![Vec::new(); range.len()];
        let first = context.source.line_start(range.start);
        let start = context.actions.partition_point(|a| a.span.start < first);
        for action in &context.actions[start..] {
            let line = context.source.line_of(action.span.start);
            if line >= range.end {
                break;
            }
            actions[line - range.start].push(action);
        }
        Lines {
            context,
            range,
            actions,
        }
    }

    fn actions(&self, line: usize) -> &[&'a Action] {
        &self.actions[line - self.range.start]
    }

    fn is_directive(&self, line: usize) -> bool {
        self.context
            .directive_lines
            .get(line)
            .copied()
            .unwrap_or(false)
    }

    fn masked(&self, line: usize) -> &'a str {
        let range = self.context.source.line_range(line);
        self.context.masked.get(range).unwrap_or("")
    }

    /// The line's text outside its actions, trimmed.
    fn outside_actions(&self, line: usize) -> String {
        let range = self.context.source.line_range(line);
        let text = &self.context.source.text;
        let mut out = String::new();
        let mut at = range.start;
        for action in self.actions(line) {
            out.push_str(&text[at..action.span.start.clamp(at, range.end)]);
            at = action.span.end.max(at);
        }
        if at < range.end {
            out.push_str(&text[at..range.end]);
        }
        out.trim().to_string()
    }
}

/// Column of a line's first non-space byte, or `None` for a blank line.
fn indent_of(text: &str) -> Option<usize> {
    let trimmed = text.trim_start_matches(' ');
    (!trimmed.trim().is_empty()).then(|| text.len() - trimmed.len())
}

/// Lines that continue the block an output action prints on a line of its own.
///
/// `{{- toYaml .x | nindent 10 }}` prints text tether does not know at column 10;
/// the content lines right after it that are indented deeper than that column join
/// the last item of that text (`labelSelector:` under the list item the action's
/// output ends with). Whether Helm's output is valid depends on that unknown text,
/// so those lines cannot be judged. An action prints a block when its pipeline ends
/// in `nindent N` or `indent N` (at column N) or in `toYaml`, `include` or
/// `template` (at the action's own column).
fn continuation_lines(view: &Lines) -> Vec<usize> {
    let mut lines = Vec::new();
    for line in view.range.clone() {
        if !view.is_directive(line) {
            continue;
        }
        let text = &view.context.source.text;
        let Some(column) = view
            .actions(line)
            .iter()
            .rev()
            .find(|action| action.kind == ActionKind::Output)
            .and_then(|action| {
                print_column(
                    text,
                    view.context.source.column_of(action.span.start),
                    action,
                )
            })
        else {
            continue;
        };
        for next in line + 1..view.range.end {
            let Some(indent) = indent_of(view.masked(next)) else {
                continue;
            };
            if indent <= column {
                break;
            }
            lines.push(next);
        }
    }
    lines
}

/// Lines a right trim marker joins to the line above: a line of content whose last
/// action ends it with `-}}` (`args: {{ .Values.a -}}`) has the next line's text
/// rendered onto it (`,{{ .Values.b }}` makes `args: A,B`). Masked, that text
/// stands on a line of its own, where YAML may not take it; rendered, it is part of
/// the scalar above.
fn glued_lines(view: &Lines) -> Vec<usize> {
    let text = &view.context.source.text;
    let mut lines = Vec::new();
    for line in view.range.clone() {
        if view.is_directive(line) || line + 1 >= view.range.end {
            continue;
        }
        let Some(last) = view.actions(line).last() else {
            continue;
        };
        let range = view.context.source.line_range(line);
        let rest_blank =
            last.span.end <= range.end && text[last.span.end..range.end].trim().is_empty();
        // Inside a quoted scalar, the next line continues the quotes as YAML does.
        let before = &text[range.start..last.span.start.max(range.start)];
        let quoted = before.matches('"').count() % 2 == 1 || before.matches('\'').count() % 2 == 1;
        if last.trim_right && rest_blank && !quoted {
            lines.push(line + 1);
        }
    }
    lines
}

/// The column at which `action` (standing at `column`) prints a block, or `None`
/// when it prints no block.
fn print_column(text: &str, column: usize, action: &Action) -> Option<usize> {
    match action.last_function(text) {
        "nindent" | "indent" => {
            let command = text[action.last_command.clone()].trim();
            let argument = command.split_whitespace().nth(1)?;
            Some(argument.parse().unwrap_or(column))
        }
        "toYaml" | "toYamlPretty" | "include" | "template" => Some(column),
        _ => None,
    }
}

/// Lines whose only text is a flow-empty `[]` or `{}` printed under a condition.
///
/// `extraArgs:` followed by `- …` items inside `if`s, then
/// `{{- if not (…) }} []{{ end }}`, renders either the items or ` []` after the key,
/// never both; masked, all of them stand together and read as a sequence with a
/// stray scalar. Which branch renders depends on values, so the empty collection is
/// an alternative to the items, not a line after them. A line is such when its text
/// outside actions is `[]` or `{}` and it opens a condition (`if`, `with`, `else`)
/// or stands right after a line of actions that ends in one.
fn conditional_flow_empty(view: &Lines) -> Vec<usize> {
    let conditional = |action: &&Action| {
        matches!(
            action.kind,
            ActionKind::Control(Keyword::If | Keyword::With | Keyword::Else)
        )
    };
    let mut lines = Vec::new();
    let mut previous_condition = false;
    for line in view.range.clone() {
        let actions = view.actions(line);
        if view.is_directive(line) {
            previous_condition = actions.last().is_some_and(conditional);
            continue;
        }
        let outside = view.outside_actions(line);
        if outside.is_empty() {
            continue;
        }
        let opens = actions.first().is_some_and(conditional);
        if matches!(outside.as_str(), "[]" | "{}") && (opens || previous_condition) {
            lines.push(line);
        }
        previous_condition = false;
    }
    lines
}

/// Whether a `define` body is text of another format (an INI section, a
/// `user=…` line, a message), not a YAML document.
///
/// A define's text is whatever `include` prints, and charts print configuration
/// files and messages with it as often as YAML. Its content lines (not blank, not
/// only actions, not inside a block scalar, not comments) are counted as YAML-shaped
/// (`key:`, `key: value`, `- item`) or not; a body whose lines are mostly not
/// YAML-shaped is no YAML document, and its errors are not YAML errors. A YAML body
/// with one broken line among many is still reported.
fn is_text_body(view: &Lines) -> bool {
    let (mut shaped, mut other) = (0usize, 0usize);
    for line in view.range.clone() {
        let in_scalar = view.context.block_scalar_lines.get(line).copied();
        if view.is_directive(line) || in_scalar.unwrap_or(false) {
            continue;
        }
        let text = view.masked(line).trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if is_yaml_shaped(text) {
            shaped += 1;
        } else {
            other += 1;
        }
    }
    other > shaped
}

/// Whether a trimmed masked line reads as a YAML block line: an item (`- x`, `-`) or
/// a key (`key:`, `key: value`) whose key holds no `=`, `[` or `{`.
fn is_yaml_shaped(text: &str) -> bool {
    if text == "-" || text.starts_with("- ") {
        return true;
    }
    let key = match text.find(": ") {
        Some(colon) => &text[..colon],
        None => match text.strip_suffix(':') {
            Some(key) => key,
            None => return false,
        },
    };
    !key.is_empty() && !key.contains(['=', '[', '{'])
}
