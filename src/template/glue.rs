//! Text a trim marker glues to what Helm renders before it. `-}}` trims every
//! whitespace byte after the action, newlines included, so a `#` there follows the
//! last byte rendered before it: a value the action prints, or, after an action that
//! prints nothing, the text before that action (after its own `{{-` trim). Unless
//! that byte is whitespace or the start of the file, the `#` is no comment: it and
//! the rest of its line are part of the value before it (`image: nginx#pinned`).

use std::ops::Range;

use super::lex::{Action, ActionKind, is_space, space_after, space_before};

/// The `#` texts of `text` that a right trim glues to the rendered text before it,
/// each to the end of its line. `actions` are the file's, in order.
pub fn glued_comments(text: &str, actions: &[Action]) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        if !action.trim_right || !action.terminated {
            continue;
        }
        let at = action.span.end + space_after(bytes, action.span.end);
        if bytes.get(at) != Some(&b'#') || !renders_before(bytes, actions, index) {
            continue;
        }
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
        // A `\r` of a CRLF line ends the line, not the text.
        let end = if end > at && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        found.push(at..end);
    }
    found
}

/// Whether something other than whitespace is rendered right before the end of
/// the action at `index`: the value it prints, or the text before it.
fn renders_before(bytes: &[u8], actions: &[Action], mut index: usize) -> bool {
    loop {
        let action = &actions[index];
        if action.kind == ActionKind::Output {
            return true;
        }
        let mut before = action.span.start;
        if action.trim_left {
            before -= space_before(bytes, before);
        }
        if before == 0 {
            return false;
        }
        // Right after the previous action: what that one renders before its end.
        match index.checked_sub(1) {
            Some(previous) if actions[previous].span.end == before => index = previous,
            _ => return !is_space(bytes[before - 1]),
        }
    }
}

/// The stretches of `text` a trim marker reaches, as inclusive byte ranges, sorted
/// and apart: for `{{-`, from the start of the line where the whitespace it trims
/// begins through the marker; for `-}}`, from the marker through the end of the
/// line where the whitespace it trims ends. A change there may change what Helm
/// renders (what is glued, what is trimmed), which only rendering can tell.
pub fn trim_reach(text: &str, actions: &[Action]) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let line_start =
        |at: usize| memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |newline| newline + 1);
    let line_end = |at: usize| memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
    let mut reach = Vec::new();
    for action in actions.iter().filter(|action| action.terminated) {
        let (start, end) = (action.span.start, action.span.end);
        if action.trim_left {
            reach.push(line_start(start - space_before(bytes, start))..start);
        }
        if action.trim_right {
            reach.push(end..line_end(end + space_after(bytes, end)));
        }
    }
    reach.sort_by_key(|range| range.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(reach.len());
    for range in reach {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Whether `range` touches one of `reach` (as [`trim_reach`] returns them).
pub fn within_reach(reach: &[Range<usize>], range: &Range<usize>) -> bool {
    let after = reach.partition_point(|stretch| stretch.start <= range.end);
    after > 0 && reach[after - 1].end >= range.start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glued(text: &str) -> Vec<&str> {
        let (actions, _) = super::super::lex::lex(text);
        glued_comments(text, &actions)
            .into_iter()
            .map(|range| &text[range])
            .collect()
    }

    #[test]
    fn a_right_trim_glues_a_comment_to_the_value_before_it() {
        // The end of a block: the `#` follows `nginx` once rendered.
        let text = "image: nginx\n{{- if .Values.x }}\nx: 1\n{{- end -}}\n#the title\ntitle: a\n";
        assert_eq!(glued(text), ["#the title"]);
        // After a printed value.
        assert_eq!(glued("image: {{ .Values.image -}} #pinned\n"), ["#pinned"]);
        // Through two actions that print nothing.
        assert_eq!(
            glued("a: b\n{{- end -}}{{- end -}}\r\n#c\r\nd: e\n"),
            ["#c"]
        );
    }

    #[test]
    fn a_comment_after_whitespace_stays_one() {
        // The trim of the action ends at a newline it keeps.
        assert!(glued("a: b\n{{ end -}}\n# c\n").is_empty());
        // At the start of the file.
        assert!(glued("{{- if .Values.x -}}\n# c\nd: e\n").is_empty());
        // No trim after the action.
        assert!(glued("a: b\n{{- end }}\n# c\n").is_empty());
        // Not a comment at all.
        assert!(glued("a: {{ .Values.a -}}\nb: c\n").is_empty());
    }

    #[test]
    fn a_trim_reaches_the_lines_whose_whitespace_it_removes() {
        let text =
            "a: b\n# above\n{{- if .Values.x }}\n# inside\nc: d\n{{ end -}}\n\n#after\ne: f\n";
        let (actions, _) = super::super::lex::lex(text);
        let reach = trim_reach(text, &actions);
        let reached = |needle: &str| {
            let at = text.find(needle).unwrap();
            within_reach(&reach, &(at..at + needle.len()))
        };
        assert!(reached("# above"));
        assert!(reached("#after"));
        assert!(!reached("# inside"));
        assert!(!reached("a: b"));
        assert!(!reached("e: f"));
    }
}
