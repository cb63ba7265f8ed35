//! Which fixes `--fix` applies on its own and which wait for `--unsafe-fixes`, as
//! ruff splits them. A rule makes its fixes safe (they change only the whitespace of
//! the comment its finding names); here, where the file is known, a fix whose
//! effect tether cannot prove is marked unsafe: any fix of a file a chart may embed
//! with `.Files.Get` (its bytes end up in a ConfigMap and its checksum), and a fix
//! on a line a trim marker reaches (what it glues or trims is decided there).

use crate::diagnostic::{Applicability, Diagnostic};
use crate::template::glue::{trim_reach, within_reach};
use crate::template::lex::Action;

/// Marks the fixes of `diagnostics` that are unsafe in a file of `text` and
/// `actions`; `embeddable` when a chart may embed the file.
pub(super) fn settle(
    diagnostics: &mut [Diagnostic],
    text: &str,
    actions: &[Action],
    embeddable: bool,
) {
    let mut fixes = diagnostics
        .iter_mut()
        .filter_map(|diagnostic| diagnostic.fix.as_mut())
        .peekable();
    if fixes.peek().is_none() {
        return;
    }
    let reach = if embeddable || actions.is_empty() {
        Vec::new()
    } else {
        trim_reach(text, actions)
    };
    for fix in fixes {
        if embeddable
            || fix
                .edits
                .iter()
                .any(|edit| within_reach(&reach, &edit.range))
        {
            fix.applicability = Applicability::Unsafe;
        }
    }
}
