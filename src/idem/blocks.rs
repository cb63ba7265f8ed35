//! Template blocks that a regeneration command must restore: found by their opening
//! line, spanning whole lines through their matching `{{- end }}`.

use std::ops::Range;

use crate::template::lex::{Action, ActionKind, Keyword, lex};

/// A block of whole lines in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The opening line, trimmed: how the configuration names the block.
    pub opening: String,
    /// Byte range from the start of the opening line through the end line's newline.
    pub bytes: Range<usize>,
}

/// Every block of `text` whose opening line, trimmed, is `opening` (trimmed).
pub fn find(text: &str, opening: &str) -> Vec<Block> {
    let (actions, _) = lex(text);
    let wanted = opening.trim();
    let mut blocks = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        if !opens(action) {
            continue;
        }
        let line = line_range(text, action.span.start);
        if text[line.clone()].trim() != wanted {
            continue;
        }
        if let Some(block) = block_from(text, &actions, index) {
            blocks.push(block);
        }
    }
    blocks
}

/// The blocks at the top level of `text` (inside no other block) whose opening and
/// closing lines hold nothing but their action: what `--discover` tries.
pub fn top_level(text: &str) -> Vec<Block> {
    let (actions, _) = lex(text);
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    for (index, action) in actions.iter().enumerate() {
        match action.kind {
            ActionKind::Control(Keyword::End) => depth = depth.saturating_sub(1),
            ActionKind::Control(keyword) if keyword.opens_block() => {
                if depth == 0 {
                    let line = line_range(text, action.span.start);
                    let alone = text[line.clone()].trim() == text[action.span.clone()].trim();
                    if alone {
                        if let Some(block) = block_from(text, &actions, index) {
                            let end_line = line_range(text, block.bytes.end.saturating_sub(1));
                            let closing = &text[end_line];
                            if closing.trim().starts_with("{{") && closing.trim().ends_with("}}") {
                                blocks.push(block);
                            }
                        }
                    }
                }
                depth += 1;
            }
            _ => {}
        }
    }
    blocks
}

/// `text` without the given blocks.
pub fn remove(text: &str, blocks: &[Block]) -> String {
    let mut ranges: Vec<Range<usize>> = blocks.iter().map(|block| block.bytes.clone()).collect();
    ranges.sort_by_key(|range| range.start);
    let mut out = String::with_capacity(text.len());
    let mut position = 0;
    for range in ranges {
        if range.start < position {
            continue;
        }
        out.push_str(&text[position..range.start]);
        position = range.end;
    }
    out.push_str(&text[position..]);
    out
}

fn opens(action: &Action) -> bool {
    matches!(action.kind, ActionKind::Control(keyword) if keyword.opens_block())
}

/// The block opened by `actions[index]`, through the end of the line of its `end`.
fn block_from(text: &str, actions: &[Action], index: usize) -> Option<Block> {
    let mut depth = 0usize;
    for action in &actions[index..] {
        match action.kind {
            ActionKind::Control(keyword) if keyword.opens_block() => depth += 1,
            ActionKind::Control(Keyword::End) => {
                depth -= 1;
                if depth == 0 {
                    let start = line_range(text, actions[index].span.start).start;
                    let end_line = line_range(text, action.span.end.saturating_sub(1));
                    let end = if end_line.end < text.len() {
                        end_line.end + 1
                    } else {
                        end_line.end
                    };
                    let opening = text[line_range(text, actions[index].span.start)]
                        .trim()
                        .to_string();
                    return Some(Block {
                        opening,
                        bytes: start..end,
                    });
                }
            }
            _ => {}
        }
    }
    None
}

/// The line holding `offset`, without its newline.
fn line_range(text: &str, offset: usize) -> Range<usize> {
    let start = text[..offset].rfind('\n').map_or(0, |n| n + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |n| offset + n);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "a:\n  {{- with .Values.x }}\n  x:\n    {{- if .y }}y{{ end }}\n  {{- end }}\nb: 1\n{{- range .z }}\n- {{ . }}\n{{- end }}\n";

    #[test]
    fn finds_and_removes_whole_line_blocks() {
        let blocks = find(TEXT, "{{- with .Values.x }}");
        assert_eq!(blocks.len(), 1);
        assert_eq!(
            remove(TEXT, &blocks),
            "a:\nb: 1\n{{- range .z }}\n- {{ . }}\n{{- end }}\n"
        );
        let top: Vec<_> = top_level(TEXT).into_iter().map(|b| b.opening).collect();
        assert_eq!(top, vec!["{{- with .Values.x }}", "{{- range .z }}"]);
    }
}
