//! Fuzz target: the template lexer and the masker on arbitrary text.
//!
//! Masking must preserve every offset (ARCHITECTURE.md, invariants): the masked text
//! is as long as the file, every `\n` and `\r` stays where it was, and a byte outside
//! every action changes only on a line that holds only actions, into a space or a
//! placeholder. The branch masks keep length and line breaks too.
//!
//! On such a line inside a block scalar the masker fills a trailing `# …` with
//! placeholders as well (`- |` then ` {{ x }} # note`), which is why this does not
//! hold the changed byte to being whitespace as `tests/properties.rs` does.
//!
//! The `.Values` reads found in the actions (`undefined-value`, `unused-value`) must
//! each point at text of the file, and keep their guards bounded.

#![no_main]

use libfuzzer_sys::fuzz_target;
use helm_tether::internals::{lex, mask, mask_branch, value_reads, Action, Masked, PLACEHOLDER};
use helm_tether::Branch;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (actions, errors) = lex(&text);

    for read in value_reads(&text, &actions).reads {
        assert!(
            text.get(read.span.clone()).is_some(),
            "a read's span is not text of the file: {read:?}"
        );
        assert!(read.guards.len() <= 64, "unbounded guards: {}", read.guards.len());
    }

    let mut previous_end = 0;
    for action in &actions {
        assert!(
            action.span.start >= previous_end,
            "actions overlap: {action:?}"
        );
        assert!(
            text[action.span.clone()].starts_with("{{"),
            "an action does not start with {{{{: {action:?}"
        );
        assert!(
            action.body.start >= action.span.start && action.body.end <= action.span.end,
            "an action's body is outside its span: {action:?}"
        );
        previous_end = action.span.end;
    }
    assert_eq!(
        errors.len(),
        actions.iter().filter(|action| !action.terminated).count(),
        "one lex error per unterminated action"
    );

    let masked = mask(&text, &actions);
    assert_line_breaks_kept(&text, &masked, "mask");
    assert_outside_actions_kept(&text, &masked, &actions);

    for branch in [Branch::First, Branch::Last] {
        if let Some(masked) = mask_branch(&text, &actions, branch) {
            assert_line_breaks_kept(&text, &masked, branch.describe());
        }
    }
});

fn assert_line_breaks_kept(text: &str, masked: &Masked, what: &str) {
    let original = text.as_bytes();
    let output = masked.text.as_bytes();
    assert_eq!(output.len(), original.len(), "{what} changed the length");
    for (position, (&before, &after)) in original.iter().zip(output).enumerate() {
        assert_eq!(
            before == b'\n',
            after == b'\n',
            "{what} moved a newline at byte {position}"
        );
        assert_eq!(
            before == b'\r',
            after == b'\r',
            "{what} moved a carriage return at byte {position}"
        );
    }
}

/// Bytes outside actions change only on directive lines (see the module comment).
fn assert_outside_actions_kept(text: &str, masked: &Masked, actions: &[Action]) {
    let original = text.as_bytes();
    let output = masked.text.as_bytes();
    let mut inside = vec![false; original.len()];
    for action in actions {
        for slot in &mut inside[action.span.clone()] {
            *slot = true;
        }
    }
    let mut line = 0;
    for (position, (&before, &after)) in original.iter().zip(output).enumerate() {
        if !inside[position] && before != after {
            let masked_directive_line =
                masked.directive_lines[line] && (after == b' ' || after == PLACEHOLDER);
            assert!(
                masked_directive_line,
                "byte {position} changed outside an action: {:?} -> {:?}",
                before as char, after as char
            );
        }
        if before == b'\n' {
            line += 1;
        }
    }
}
