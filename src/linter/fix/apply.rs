//! One round of fixing: the fixes that apply and do not overlap, in one pass.

use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostic, Edit};
use crate::rules::RuleId;

/// Applies the fixes of `diagnostics` that apply (the safe ones, and the unsafe ones
/// too when `unsafe_fixes`) and do not overlap one chosen before, in the order of
/// their first edit; returns the new text and the fixes applied per rule. Each edit
/// is compared only with its neighbour among the chosen, so a round of `n` fixes
/// takes `O(n log n)`, not `O(n²)`.
pub fn apply(
    text: &str,
    diagnostics: &[Diagnostic],
    unsafe_fixes: bool,
) -> (String, BTreeMap<String, usize>) {
    let mut fixes: Vec<(RuleId, &[Edit])> = diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let fix = diagnostic.fix.as_ref()?;
            fix.applies(unsafe_fixes)
                .then_some((diagnostic.rule, fix.edits.as_slice()))
        })
        .collect();
    // The work (`fix_work`): a key read per side of each comparison of the sort,
    // an overlap lookup per edit, and the text copied once.
    let mut work = 0;
    fixes.sort_by_key(|(_, edits)| {
        work += 1;
        (edits[0].range.start, edits[0].range.end)
    });
    // The chosen edits by where they start and end, apart from each other.
    let mut chosen: BTreeMap<(usize, usize), &Edit> = BTreeMap::new();
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    for (rule, edits) in fixes {
        work += edits.len();
        if edits
            .iter()
            .all(|edit| in_text(text, edit) && !overlaps(&chosen, edit))
        {
            for edit in edits {
                chosen.insert((edit.range.start, edit.range.end), edit);
            }
            *applied.entry(rule.to_string()).or_default() += 1;
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in chosen.values() {
        // Two edits of one fix that overlap (a rule's mistake) apply as the first.
        if edit.range.start < at {
            continue;
        }
        out.push_str(&text[at..edit.range.start]);
        out.push_str(&edit.content);
        at = edit.range.end;
    }
    out.push_str(&text[at..]);
    super::work::worked(work + text.len());
    (out, applied)
}

/// Whether `edit` replaces bytes of `text` between two characters.
fn in_text(text: &str, edit: &Edit) -> bool {
    edit.range.start <= edit.range.end
        && edit.range.end <= text.len()
        && text.is_char_boundary(edit.range.start)
        && text.is_char_boundary(edit.range.end)
}

/// Whether `edit` overlaps or touches one of `chosen` (closed intervals: touching
/// edits wait for the next round). The chosen are apart, so only the last one to
/// start at or before `edit` ends can.
fn overlaps(chosen: &BTreeMap<(usize, usize), &Edit>, edit: &Edit) -> bool {
    chosen
        .range(..=(edit.range.end, usize::MAX))
        .next_back()
        .is_some_and(|(&(_, end), _)| end >= edit.range.start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Fix, Severity};

    fn fixing(range: std::ops::Range<usize>, content: &str) -> Diagnostic {
        Diagnostic {
            rule: RuleId::CommentStartingSpace,
            severity: Severity::Warning,
            path: "values.yaml".into(),
            range: range.clone(),
            message: String::new(),
            help: None,
            labels: Vec::new(),
            fix: Some(Fix::safe(vec![Edit::replace(range, content)])),
        }
    }

    #[test]
    fn overlapping_and_touching_fixes_wait_for_the_next_round() {
        let text = "abcdefgh";
        // `1..3` is chosen first; `2..4` overlaps it, `3..3` touches it, `5..6` and
        // `0..0` are apart.
        let fixes = [
            fixing(2..4, "X"),
            fixing(1..3, "Y"),
            fixing(3..3, "Z"),
            fixing(5..6, "W"),
            fixing(0..0, "V"),
        ];
        let (out, applied) = apply(text, &fixes, false);
        assert_eq!(out, "VaYdeWgh");
        assert_eq!(applied.values().sum::<usize>(), 3);
    }

    #[test]
    fn unsafe_fixes_apply_only_when_asked() {
        let mut fix = fixing(0..1, "A");
        if let Some(fix) = &mut fix.fix {
            fix.applicability = crate::diagnostic::Applicability::Unsafe;
        }
        assert_eq!(apply("abc", std::slice::from_ref(&fix), false).0, "abc");
        assert_eq!(apply("abc", &[fix], true).0, "Abc");
    }
}
