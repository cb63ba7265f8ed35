//! Turns a Helm template into YAML of exactly the same byte length.
//!
//! Every newline is kept, and every byte outside an action is kept except the
//! whitespace of lines that hold only actions, so an offset in the masked text is the
//! same offset in the file:
//! - a line that holds only actions and whitespace (a directive line) becomes spaces;
//!   inside a block scalar it becomes scalar text at the scalar's indentation
//!   instead, because YAML rejects a leading blank line longer than that indentation;
//! - an action that is a value's whole text and emits a block becomes spaces, so the
//!   key stays a key with a nested value: `toYaml`, `indent` or `nindent` last in its
//!   pipeline, or any action followed by lines indented deeper (`- {{ toYaml . }}`
//!   then `  labelSelector:` continues the item's mapping);
//! - any other action inside a content line becomes a placeholder plain scalar of the
//!   same length, so `name: {{ .Release.Name }}-cm` stays one scalar.
//!
//! A directive line may end in a YAML comment (`{{- end }}  # tls`); only its actions
//! are masked.

use std::ops::Range;

use super::lex::{Action, ActionKind, Keyword};
use crate::lines::{block_scalar_header, structure_column};

/// The byte every placeholder is made of: a plain-scalar character that no YAML
/// indicator uses.
pub const PLACEHOLDER: u8 = b'_';

/// The masked text and, per line, what the template made of it.
#[derive(Debug, Clone)]
pub struct Masked {
    pub text: String,
    /// Per line: the line holds at least one action and nothing else but whitespace
    /// and, possibly, a trailing `#` comment.
    pub directive_lines: Vec<bool>,
}

/// What the first pass learned about one line.
#[derive(Debug, Clone, Default)]
struct LineFacts {
    range: Range<usize>,
    has_action: bool,
    /// Non-whitespace outside actions, not counting a comment after an action.
    has_content: bool,
    /// Column of the first non-whitespace byte (actions included).
    indent: usize,
    /// An action on the line opens a `define` or `block`: whatever came before it (a
    /// block scalar at the end of the previous define) has ended.
    opens_define: bool,
    /// An action on the line prints at its own column (an output action without a
    /// `{{-` that would pull its text onto the line above).
    prints: bool,
}

impl LineFacts {
    fn is_directive(&self) -> bool {
        self.has_action && !self.has_content
    }
}

/// Masks `text`, whose actions are `actions` (as returned by the lexer, in order).
pub fn mask(text: &str, actions: &[Action]) -> Masked {
    let bytes = text.as_bytes();
    // Without actions the text is its own masking: no per-line facts are needed.
    if actions.is_empty() {
        return Masked {
            text: text.to_string(),
            directive_lines: vec![false; memchr::memchr_iter(b'\n', bytes).count() + 1],
        };
    }
    let lines = line_facts(bytes, actions);
    let block_scalar_indent = block_scalar_indents(bytes, &lines);
    let next_content_indent = next_content_indents(bytes, &lines);
    let value_columns = whole_value_columns(bytes, actions, &lines);

    let mut out = bytes.to_vec();
    for (line, facts) in lines.iter().enumerate() {
        if !facts.is_directive() {
            continue;
        }
        match block_scalar_indent[line] {
            Some(indent) => fill_as_scalar_text(&mut out, facts.range.clone(), indent),
            // A directive line without a comment tail is blanked whole, tabs and all.
            None if !has_comment_tail(bytes, facts, actions) => {
                blank(&mut out[facts.range.clone()])
            }
            None => {}
        }
    }

    let mut line = 0;
    for (index, action) in actions.iter().enumerate() {
        while lines[line].range.end < action.span.start {
            line += 1;
        }
        let facts = &lines[line];
        if facts.is_directive() {
            if block_scalar_indent[line].is_none() {
                blank(&mut out[action.span.clone()]);
            }
            continue;
        }
        if let Some(structure_column) = value_columns[index] {
            let block_follows = next_content_indent[line].is_some_and(|n| n > structure_column);
            if block_follows || emits_block(text, action) {
                blank(&mut out[action.span.clone()]);
                continue;
            }
        }
        // A comment or an assignment prints nothing: no placeholder for it, so that
        // `key: "value" {{- /* note */}}` stays one quoted scalar.
        if matches!(action.kind, ActionKind::Comment | ActionKind::Assignment) {
            blank(&mut out[action.span.clone()]);
            continue;
        }
        // `key: | {{ .x | nindent 4 }}`: the block is the scalar's text, on the lines
        // below the header.
        if emits_block(text, action) && after_block_scalar_header(bytes, facts, action) {
            blank(&mut out[action.span.clone()]);
            continue;
        }
        let first_line_end = bytes[action.span.clone()]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(action.span.end, |n| action.span.start + n);
        for byte in &mut out[action.span.start..first_line_end] {
            if *byte != b'\r' {
                *byte = PLACEHOLDER;
            }
        }
        blank(&mut out[first_line_end..action.span.end]);
    }
    // A `#` a right trim glues to the value before it is part of that value, not a
    // comment: no comment rule reads it (`glued-comment` reports it).
    for range in super::glue::glued_comments(text, actions) {
        blank(&mut out[range]);
    }
    let text = String::from_utf8(out).unwrap_or_else(|error| {
        // Only whole actions (which start and end on ASCII delimiters) and ASCII
        // whitespace were replaced, so the text is still UTF-8; never panic if that
        // ever changes.
        String::from_utf8_lossy(error.as_bytes()).into_owned()
    });
    Masked {
        text,
        directive_lines: lines.iter().map(LineFacts::is_directive).collect(),
    }
}

/// One pass over the bytes: the range of every line, which hold actions, which hold
/// other text. Text between actions is taken a line at a time (`memchr`), not a byte
/// at a time.
fn line_facts(bytes: &[u8], actions: &[Action]) -> Vec<LineFacts> {
    let is_blank = |byte: u8| matches!(byte, b' ' | b'\t' | b'\r');
    // Sized once: a vector grown by doubling holds up to twice its lines.
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
    let mut current = LineFacts {
        indent: usize::MAX,
        ..LineFacts::default()
    };
    let mut line_start = 0;
    let mut next_action = 0;
    let mut position = 0;
    'bytes: while position < bytes.len() {
        if let Some(action) = actions.get(next_action) {
            if action.span.start == position {
                current.has_action = true;
                current.indent = current.indent.min(position - line_start);
                current.opens_define |= matches!(
                    action.kind,
                    ActionKind::Control(Keyword::Define | Keyword::Block)
                );
                current.prints |= prints_at_own_column(bytes, action);
                for offset in memchr::memchr_iter(b'\n', &bytes[action.span.clone()]) {
                    current.range = line_start..action.span.start + offset;
                    lines.push(std::mem::take(&mut current));
                    line_start = action.span.start + offset + 1;
                    current.has_action = true;
                    current.indent = usize::MAX;
                }
                position = action.span.end;
                next_action += 1;
                continue;
            }
        }
        // Text up to the next action, a line at a time.
        let text_end = actions
            .get(next_action)
            .filter(|action| action.span.start > position)
            .map_or(bytes.len(), |action| action.span.start);
        let newline = memchr::memchr(b'\n', &bytes[position..text_end]).map(|n| position + n);
        let part_end = newline.unwrap_or(text_end);
        let mut at = position;
        while let Some(offset) = bytes[at..part_end].iter().position(|&b| !is_blank(b)) {
            let found = at + offset;
            if bytes[found] == b'#'
                && current.has_action
                && found > 0
                && bytes[found - 1].is_ascii_whitespace()
            {
                // A comment after an action: the rest of the line, actions in it too.
                let line_end =
                    memchr::memchr(b'\n', &bytes[found..]).map_or(bytes.len(), |n| found + n);
                while actions
                    .get(next_action)
                    .is_some_and(|action| action.span.start < line_end)
                {
                    next_action += 1;
                }
                position = line_end;
                continue 'bytes;
            }
            current.has_content = true;
            current.indent = current.indent.min(found - line_start);
            if !current.has_action {
                break;
            }
            // After an action, a later `#` may still start a comment.
            at = found + 1;
        }
        match newline {
            Some(newline) => {
                current.range = line_start..newline;
                lines.push(std::mem::take(&mut current));
                current.indent = usize::MAX;
                line_start = newline + 1;
                position = newline + 1;
            }
            None => position = text_end,
        }
    }
    current.range = line_start..bytes.len();
    lines.push(current);
    lines
}

/// Whether a directive line ends in a `#` comment, which masking keeps.
fn has_comment_tail(bytes: &[u8], facts: &LineFacts, actions: &[Action]) -> bool {
    let mut position = facts.range.start;
    // Skip actions and whitespace; anything left is the comment.
    let mut index = actions.partition_point(|action| action.span.end <= facts.range.start);
    while position < facts.range.end {
        if let Some(action) = actions.get(index) {
            if action.span.start == position {
                position = action.span.end;
                index += 1;
                continue;
            }
        }
        if !bytes[position].is_ascii_whitespace() {
            return true;
        }
        position += 1;
    }
    false
}

/// For every line inside a block scalar (`key: |`), the scalar's content indentation.
fn block_scalar_indents(bytes: &[u8], lines: &[LineFacts]) -> Vec<Option<usize>> {
    let mut indents = vec![None; lines.len()];
    let mut line = 0;
    while line < lines.len() {
        let facts = &lines[line];
        let Some(header) = facts
            .has_content
            .then(|| block_scalar_header(&bytes[facts.range.clone()]))
            .flatten()
        else {
            line += 1;
            continue;
        };
        let parent = header.parent;
        // The scalar runs until a content line indented no deeper than its parent, or
        // the start of the next `define`.
        let mut end = line + 1;
        while end < lines.len() {
            let next = &lines[end];
            if (next.has_content && next.indent <= parent) || next.opens_define {
                break;
            }
            end += 1;
        }
        // An action's output stands where the action starts, so the first line that
        // prints (text or an output action) sets the scalar's indentation; a line of
        // control actions prints nothing and sets it only when nothing else does.
        let content_indent = lines[line + 1..end]
            .iter()
            .find(|next| next.has_content || (next.prints && next.indent > parent))
            .or_else(|| lines[line + 1..end].iter().find(|next| next.has_action))
            .map(|next| next.indent)
            .filter(|&indent| indent > parent);
        let content_indent = header.indent.or(content_indent);
        if let Some(indent) = content_indent {
            for slot in &mut indents[line + 1..end] {
                *slot = Some(indent);
            }
        }
        line = end;
    }
    indents
}

/// Per line, the indentation of the next line below it with YAML content (comments
/// and directive lines do not count).
fn next_content_indents(bytes: &[u8], lines: &[LineFacts]) -> Vec<Option<usize>> {
    let mut result = vec![None; lines.len()];
    let mut next = None;
    for (line, facts) in lines.iter().enumerate().rev() {
        result[line] = next;
        if facts.has_content && bytes.get(facts.range.start + facts.indent) != Some(&b'#') {
            next = Some(facts.indent);
        }
    }
    result
}

/// Scalar text at `indent` for a directive line inside a block scalar: spaces before
/// that column, placeholder bytes from it on.
fn fill_as_scalar_text(out: &mut [u8], range: Range<usize>, indent: usize) {
    for (column, byte) in out[range].iter_mut().enumerate() {
        if *byte == b'\r' {
            continue;
        }
        *byte = if column < indent { b' ' } else { PLACEHOLDER };
    }
}

/// Spaces for every byte but line breaks.
fn blank(bytes: &mut [u8]) {
    for byte in bytes {
        if *byte != b'\n' && *byte != b'\r' {
            *byte = b' ';
        }
    }
}

/// For every action that is a value's whole text (after `key:` or `- `, with nothing
/// but other actions and whitespace around it on its line: `key: {{- if .x }}{{ toYaml
/// .x | nindent 2 }}{{- end }}`), the column a block it emits must be indented past.
///
/// One pass each way over the actions, so a line of a hundred thousand actions costs
/// its length, not its length squared.
fn whole_value_columns(
    bytes: &[u8],
    actions: &[Action],
    lines: &[LineFacts],
) -> Vec<Option<usize>> {
    let only_blanks = |range: Range<usize>| bytes[range].iter().all(|&b| b == b' ' || b == b'\t');
    // Right to left: nothing but whitespace and actions from the action to its line's end.
    let mut tail_clean = vec![false; actions.len()];
    for index in (0..actions.len()).rev() {
        let end = actions[index].span.end;
        let gap_end = actions
            .get(index + 1)
            .map_or(bytes.len(), |next| next.span.start);
        let newline = memchr::memchr(b'\n', &bytes[end..gap_end.max(end)]).map(|n| end + n);
        tail_clean[index] = match newline {
            Some(newline) => bytes[end..newline]
                .iter()
                .all(|&b| b == b' ' || b == b'\t' || b == b'\r'),
            None if index + 1 < actions.len() => {
                only_blanks(end..gap_end.max(end)) && tail_clean[index + 1]
            }
            None => bytes[end..].iter().all(|&b| b.is_ascii_whitespace()),
        };
    }
    // Left to right: where the run of actions holding each action starts.
    let mut columns = vec![None; actions.len()];
    let mut run_start = 0;
    let mut line = 0;
    for (index, action) in actions.iter().enumerate() {
        while line + 1 < lines.len() && lines[line].range.end < action.span.start {
            line += 1;
        }
        let line_start = lines[line].range.start;
        let joins_previous = index > 0 && {
            let previous = &actions[index - 1];
            previous.span.end >= line_start && only_blanks(previous.span.end..action.span.start)
        };
        if !joins_previous {
            run_start = action.span.start;
        }
        if !tail_clean[index] || run_start < line_start {
            continue;
        }
        let Ok(before) = std::str::from_utf8(&bytes[line_start..run_start]) else {
            continue;
        };
        let trimmed = before.trim_end();
        if trimmed.is_empty() || trimmed.ends_with(':') || trimmed.ends_with('-') {
            columns[index] = Some(structure_column(before));
        }
    }
    columns
}

/// An action whose pipeline ends in a function that prints a block.
/// Whether the action follows a block scalar header on its line (`key: |`, `- >-`),
/// with only spaces between.
fn after_block_scalar_header(bytes: &[u8], facts: &LineFacts, action: &Action) -> bool {
    let before = &bytes[facts.range.start..action.span.start];
    let code = before.trim_ascii_end();
    let header_start = code
        .iter()
        .rposition(|&b| b == b' ' || b == b'\t')
        .map_or(0, |at| at + 1);
    let header = &code[header_start..];
    header.first().is_some_and(|&b| b == b'|' || b == b'>')
        && header[1..]
            .iter()
            .all(|&b| b == b'-' || b == b'+' || b.is_ascii_digit())
        && matches!(
            code[..header_start].trim_ascii_end().last(),
            Some(b':' | b'-')
        )
}

/// Whether an action's output starts at the action's own column: it prints, no `{{-`
/// pulls it onto the line above, and no `indent`/`nindent` moves it.
fn prints_at_own_column(bytes: &[u8], action: &Action) -> bool {
    let last = &bytes[action.last_command.clone()];
    let last = &last[last.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    action.kind == ActionKind::Output
        && !action.trim_left
        && !(last.starts_with(b"indent") || last.starts_with(b"nindent"))
}

fn emits_block(text: &str, action: &Action) -> bool {
    matches!(
        action.last_function(text),
        "nindent" | "indent" | "toYaml" | "toYamlPretty"
    )
}

/// Whether a line of template actions alone (`{{- if … }}`, `{{- include … | nindent
/// 2 }}`) stands outside every block scalar: plain YAML never has one, so a file
/// outside `templates/` that does is a template rendered with `tpl` (a chart's
/// `files/`).
/// Template text inside a block scalar (`script: |` holding `{{- if }}` lines) is what
/// values files pass to `tpl`, and leaves the file plain YAML.
pub fn has_template_line_outside_block_scalars(text: &str, actions: &[Action]) -> bool {
    let bytes = text.as_bytes();
    let lines = line_facts(bytes, actions);
    let in_block_scalar = block_scalar_indents(bytes, &lines);
    let mut line = 0;
    for action in actions {
        while line + 1 < lines.len() && lines[line].range.end < action.span.start {
            line += 1;
        }
        if lines[line].is_directive() && in_block_scalar[line].is_none() {
            return true;
        }
    }
    false
}

/// Which branch of every `if`/`with`/`range` … `else` … `end` chain a branch mask
/// keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Branch {
    /// The first branch (`if`'s own), every `else` branch dropped.
    First,
    /// The last branch (the final `else`'s), every branch before it dropped.
    Last,
}

impl Branch {
    /// How `tether map` describes a document modelled on this branch.
    pub fn describe(self) -> &'static str {
        match self {
            Branch::First => "the first branch of each if/else modelled",
            Branch::Last => "the last branch of each if/else modelled",
        }
    }
}

/// Masks `text` keeping one branch of every chain that has an `else`: where the
/// branches of a chain have different shapes (a mapping in one, `{}` in the other; a
/// key chosen by an action), the whole can be no YAML tree, but each branch can.
///
/// The dropped branches and the chain's own actions become spaces (an action followed
/// by content on its line becomes a placeholder, so `{{ if … }} stringData:` keeps its
/// key at the action's column); everything else is masked as [`mask`] does, so every
/// offset still holds. `None` when the text has no such chain.
pub fn mask_branch(text: &str, actions: &[Action], branch: Branch) -> Option<Masked> {
    let chains = else_chains(actions);
    if chains.is_empty() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    // Per action: kept (masked as usual), or silenced here.
    let mut silenced = vec![false; actions.len()];
    for chain in &chains {
        let (drop_start, drop_end) = match branch {
            Branch::First => (chain.elses[0], chain.end),
            Branch::Last => (chain.open, chain.elses[chain.elses.len() - 1]),
        };
        let range = actions[drop_start].span.end..actions[drop_end].span.start;
        blank(&mut bytes[range.clone()]);
        for (index, action) in actions.iter().enumerate() {
            if range.contains(&action.span.start) {
                silenced[index] = true;
            }
        }
        for index in std::iter::once(chain.open)
            .chain(chain.elses.iter().copied())
            .chain(std::iter::once(chain.end))
        {
            silenced[index] = true;
        }
    }
    for (index, action) in actions.iter().enumerate() {
        if !silenced[index] || bytes[action.span.start] != b'{' {
            continue;
        }
        let span = action.span.clone();
        let line_start = bytes[..span.start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let line_end = bytes[span.end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| span.end + n);
        let alone_before = bytes[line_start..span.start]
            .iter()
            .all(|b| b.is_ascii_whitespace());
        let content_after = bytes[span.end..line_end]
            .iter()
            .any(|b| !b.is_ascii_whitespace() && *b != b'{');
        if alone_before && content_after && !span_has_newline(&bytes[span.clone()]) {
            for byte in &mut bytes[span] {
                if *byte != b'\r' {
                    *byte = PLACEHOLDER;
                }
            }
        } else {
            blank(&mut bytes[span]);
        }
    }
    let kept: Vec<Action> = actions
        .iter()
        .zip(&silenced)
        .filter(|(_, silenced)| !**silenced)
        .map(|(action, _)| action.clone())
        .collect();
    let variant = String::from_utf8(bytes).ok()?;
    let mut masked = mask(&variant, &kept);
    // The silenced actions' lines are still template lines for anchoring.
    let original = line_facts(text.as_bytes(), actions);
    for (slot, facts) in masked.directive_lines.iter_mut().zip(&original) {
        *slot |= facts.is_directive();
    }
    Some(masked)
}

fn span_has_newline(bytes: &[u8]) -> bool {
    bytes.contains(&b'\n')
}

/// An `if`/`with`/`range` chain with at least one `else`: indexes of its actions.
struct Chain {
    open: usize,
    elses: Vec<usize>,
    end: usize,
}

fn else_chains(actions: &[Action]) -> Vec<Chain> {
    let mut chains = Vec::new();
    let mut stack: Vec<Chain> = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        let ActionKind::Control(keyword) = action.kind else {
            continue;
        };
        match keyword {
            Keyword::If | Keyword::With | Keyword::Range | Keyword::Define | Keyword::Block => {
                stack.push(Chain {
                    open: index,
                    elses: Vec::new(),
                    end: index,
                });
            }
            Keyword::Else => {
                if let Some(top) = stack.last_mut() {
                    top.elses.push(index);
                }
            }
            Keyword::End => {
                if let Some(mut chain) = stack.pop() {
                    chain.end = index;
                    // A chain of actions that never closed is no template logic to
                    // choose a branch of.
                    let closed = std::iter::once(chain.open)
                        .chain(chain.elses.iter().copied())
                        .chain(std::iter::once(chain.end))
                        .all(|index| actions[index].terminated);
                    if !chain.elses.is_empty() && closed {
                        chains.push(chain);
                    }
                }
            }
            _ => {}
        }
    }
    chains
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::lex::lex;

    /// An action that never closes, its trim marker followed by the line's end,
    /// ends with its line: the comment below it is the file's, and stays.
    #[test]
    fn an_unterminated_trimming_action_ends_with_its_line() {
        let text = "script: |\n {{-\n# a comment";
        let (actions, _) = lex(text);
        assert_eq!(actions[0].span, 11..14);
        let masked = mask(text, &actions);
        assert_eq!(masked.text, "script: |\n ___\n# a comment");
        assert_eq!(masked.directive_lines, [false, true, false]);
    }

    /// The first, byte-at-a-time form of [`line_facts`], which the line-at-a-time
    /// one must agree with.
    fn line_facts_byte_by_byte(bytes: &[u8], actions: &[Action]) -> Vec<LineFacts> {
        let mut lines = Vec::new();
        let mut current = LineFacts {
            indent: usize::MAX,
            ..LineFacts::default()
        };
        let mut line_start = 0;
        let mut next_action = 0;
        let mut position = 0;
        while position < bytes.len() {
            if let Some(action) = actions.get(next_action) {
                if action.span.start == position {
                    current.has_action = true;
                    current.indent = current.indent.min(position - line_start);
                    current.opens_define |= matches!(
                        action.kind,
                        ActionKind::Control(Keyword::Define | Keyword::Block)
                    );
                    for (offset, &byte) in bytes[action.span.clone()].iter().enumerate() {
                        if byte == b'\n' {
                            current.range = line_start..action.span.start + offset;
                            lines.push(std::mem::take(&mut current));
                            line_start = action.span.start + offset + 1;
                            current.has_action = true;
                            current.indent = usize::MAX;
                        }
                    }
                    position = action.span.end;
                    next_action += 1;
                    continue;
                }
            }
            match bytes[position] {
                b'\n' => {
                    current.range = line_start..position;
                    lines.push(std::mem::take(&mut current));
                    current.indent = usize::MAX;
                    line_start = position + 1;
                }
                b' ' | b'\t' | b'\r' => {}
                b'#' if current.has_action && bytes[position - 1].is_ascii_whitespace() => {
                    // A comment after an action: the rest of the line, actions in it too.
                    let line_end = bytes[position..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(bytes.len(), |n| position + n);
                    while actions
                        .get(next_action)
                        .is_some_and(|action| action.span.start < line_end)
                    {
                        next_action += 1;
                    }
                    position = line_end;
                    continue;
                }
                _ => {
                    current.has_content = true;
                    current.indent = current.indent.min(position - line_start);
                }
            }
            position += 1;
        }
        current.range = line_start..bytes.len();
        lines.push(current);
        lines
    }

    type Facts = Vec<(Range<usize>, bool, bool, usize, bool)>;

    fn facts_by(text: &str, by: fn(&[u8], &[Action]) -> Vec<LineFacts>) -> Facts {
        let (actions, _) = lex(text);
        by(text.as_bytes(), &actions)
            .into_iter()
            .map(|f| {
                (
                    f.range,
                    f.has_action,
                    f.has_content,
                    f.indent,
                    f.opens_define,
                )
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn line_facts_agree_with_the_byte_at_a_time_form(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    " ", "  ", "\t", "\r", "\r\n", "\n", "#", " #", "# c", "a", "key: v",
                    "- ", "{{ .x }}", "{{- if .y }}", "{{ end }}", "{{- define \"d\" }}",
                    "{{/* c */}}", "{{ \"\n\" }}", "{{- .z\n  }}", "{{", "}}", "\u{e9}",
                ]),
                0..40,
            )
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(
                facts_by(&text, line_facts),
                facts_by(&text, line_facts_byte_by_byte)
            );
        }
    }

    fn masked(text: &str) -> String {
        let (actions, _) = lex(text);
        mask(text, &actions).text
    }

    #[test]
    fn directive_lines_become_spaces() {
        assert_eq!(
            masked("a:\n  {{- if .x }}\n  b: 1\n\t{{- end }}\n"),
            "a:\n              \n  b: 1\n           \n"
        );
    }

    #[test]
    fn inline_actions_become_placeholders() {
        assert_eq!(
            masked("name: {{ .Release.Name }}-cm\n"),
            "name: ___________________-cm\n"
        );
    }

    #[test]
    fn block_emitters_become_spaces() {
        assert_eq!(
            masked("labels: {{- include \"l\" . | nindent 4 }}\n"),
            "labels:                                 \n"
        );
        assert_eq!(
            masked("x: {{ .y | indent 2 }}z\n"),
            "x: ___________________z\n"
        );
    }
}
