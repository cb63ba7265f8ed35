//! A template rendered as far as its text goes, with `text/template`'s trim
//! semantics: `{{-` removes every whitespace byte (newlines included) before the
//! action, `-}}` every one after it. An action that prints stands for one fixed
//! word, and every other action (a control, an assignment, a comment) prints
//! nothing; every branch of every block is kept. What the fixer's guard compares
//! before and after a fix: a fix that changes only a comment's whitespace keeps it
//! as YAML reads it, one that glues a `#` to a printed value does not.

use super::lex::{Action, ActionKind, space_after, space_before};

/// What an action that prints renders as.
pub const PRINTED: &str = "printed";

/// `text` rendered with its `actions` (the file's, in order) as the module says.
pub fn trimmed(text: &str, actions: &[Action]) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut trim_next = false;
    for action in actions {
        let (mut start, mut end) = (at.min(action.span.start), action.span.start);
        if trim_next {
            start += space_after(&bytes[..end], start);
        }
        if action.trim_left {
            end -= space_before(&bytes[start..], end - start);
        }
        out.push_str(&text[start..end]);
        if action.kind == ActionKind::Output && action.terminated {
            out.push_str(PRINTED);
        }
        at = action.span.end;
        trim_next = action.trim_right && action.terminated;
    }
    let mut rest = at.min(text.len());
    if trim_next {
        rest += space_after(bytes, rest);
    }
    out.push_str(&text[rest..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str) -> String {
        let (actions, _) = super::super::lex::lex(text);
        trimmed(text, &actions)
    }

    #[test]
    fn trim_markers_remove_whitespace_and_newlines_on_their_side() {
        assert_eq!(
            render("image: {{ .Values.image -}} #pinned\n"),
            "image: printed#pinned\n"
        );
        assert_eq!(
            render("a: b\n{{- if .Values.x }}\nc: d\n{{- end -}}\n#title\n"),
            "a: b\nc: d#title\n"
        );
        assert_eq!(render("a:\n  {{- /* note */}}\n  b: 1\n"), "a:\n  b: 1\n");
    }

    #[test]
    fn actions_without_markers_keep_the_text_around_them() {
        assert_eq!(
            render("{{ $x := 1 }}\nkey: {{ .Values.k }} # why\n"),
            "\nkey: printed # why\n"
        );
    }
}
