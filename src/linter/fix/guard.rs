//! What a fix must keep, and the fixes of a round that keep it: the file's data
//! (and, for a template, the data of what Helm renders from it), and its comment
//! map.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::apply::apply;
use crate::diagnostic::Diagnostic;
use crate::rules::RuleId;
use crate::yaml::data::{Data, data_of};

/// What a file means, which a fix must keep: its data as `check` reads it (a
/// template masked) and, for a template, the data of the text Helm renders from it
/// with its trim markers applied (`template::render`), where a `#` that `-}}` glues
/// to a value is content, not a comment.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Meaning {
    data: Data,
    rendered: Option<Data>,
}

impl Meaning {
    pub(super) fn of(relative: &Path, text: &str) -> Meaning {
        super::work::worked(text.len());
        let rendered = crate::yaml::pipeline::is_template_path(relative).then(|| {
            let (actions, _) = crate::template::lex::lex(text);
            let rendered = crate::template::render::trimmed(text, &actions);
            data_of(Path::new("rendered.yaml"), &rendered)
        });
        Meaning {
            data: data_of(relative, text),
            rendered,
        }
    }
}

/// The fixes of `diagnostics` that keep the comment map `map`: every fix but those
/// that move comments, then those one by one, each only if the map still holds
/// with it; `refused` hears of each one left out. Past [`MAX_TRIALS`] moving
/// fixes, or once `cancelled` is set, the rest are refused untried.
pub(super) fn keep_comment_map(
    relative: &Path,
    current: &str,
    diagnostics: Vec<Diagnostic>,
    map: &[String],
    (unsafe_fixes, cancelled): (bool, &AtomicBool),
    mut refused: impl FnMut(&Diagnostic),
) -> Vec<Diagnostic> {
    let (moves, mut accepted): (Vec<Diagnostic>, Vec<Diagnostic>) =
        diagnostics.into_iter().partition(moves_comments);
    let tried = if moves.len() > MAX_TRIALS {
        0
    } else {
        moves.len()
    };
    for (at, candidate) in moves.into_iter().enumerate() {
        if at >= tried || cancelled.load(Ordering::Relaxed) {
            refused(&candidate);
            continue;
        }
        accepted.push(candidate);
        let (trial, _) = apply(current, &accepted, unsafe_fixes);
        if comment_map_signature(relative, &trial) != map {
            if let Some(candidate) = accepted.pop() {
                refused(&candidate);
            }
        }
    }
    accepted
}

/// Whether the fix of `diagnostic` moves comments, as its rule says.
pub(super) fn moves_comments(diagnostic: &Diagnostic) -> bool {
    diagnostic
        .fix
        .as_ref()
        .is_some_and(|fix| fix.moves_comments)
}

/// Where a text's lines start, to turn offsets into lines in logarithmic time.
pub(super) struct Lines(Vec<usize>);

impl Lines {
    pub(super) fn of(text: &str) -> Lines {
        Lines(memchr::memchr_iter(b'\n', text.as_bytes()).collect())
    }

    /// 0-based line of `offset`.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.0.partition_point(|&newline| newline < offset)
    }
}

/// Fixes tried one at a time, at most, when a round would change a file's data.
const MAX_TRIALS: usize = 256;

/// Adds the fixes of `diagnostics` one at a time, keeping each with which `text`
/// still has its `meaning`: the findings kept, and the (0-based line, rule) of those
/// held. Once `cancelled` is set the rest are held untried.
pub(super) fn keep_data(
    relative: &Path,
    text: &str,
    diagnostics: Vec<Diagnostic>,
    meaning: &Meaning,
    unsafe_fixes: bool,
    cancelled: &AtomicBool,
) -> (Vec<Diagnostic>, Vec<(usize, RuleId)>) {
    let mut accepted: Vec<Diagnostic> = Vec::new();
    let mut held = Vec::new();
    let lines = Lines::of(text);
    let line_of = |offset: usize| lines.line_of(offset);
    let candidates: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|diagnostic| diagnostic.fix_applies(unsafe_fixes))
        .collect();
    // Each trial reads the whole file again: past this many, the round's fixes are
    // all held rather than tried one by one (time stays linear in the file).
    if candidates.len() > MAX_TRIALS {
        let held = candidates
            .iter()
            .map(|candidate| (line_of(candidate.range.start), candidate.rule))
            .collect();
        return (Vec::new(), held);
    }
    for candidate in candidates {
        let line = line_of(candidate.range.start);
        let rule = candidate.rule;
        if cancelled.load(Ordering::Relaxed) {
            held.push((line, rule));
            continue;
        }
        accepted.push(candidate);
        let (trial, _) = apply(text, &accepted, unsafe_fixes);
        if Meaning::of(relative, &trial) != *meaning {
            accepted.pop();
            held.push((line, rule));
        }
    }
    (accepted, held)
}

/// A file's comment map with its whitespace and columns left out: what a fix must
/// keep (which comment documents which key, in what words).
pub(super) fn comment_map_signature(relative: &Path, text: &str) -> Vec<String> {
    super::work::worked(text.len());
    crate::yaml::model::FileModel::from_bytes(relative, text.as_bytes().to_vec())
        .to_string()
        .lines()
        .map(|line| {
            let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            // `LINE:COLUMN key …`: the column moves with the whitespace.
            let rest = squeezed.trim_start_matches(|c: char| c.is_ascii_digit());
            match rest.strip_prefix(':') {
                Some(column) if rest.len() < squeezed.len() => column
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .to_string(),
                _ => squeezed,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Edit, Fix, Severity};

    fn finding(rule: &str, text: &str, at: &str, content: &str) -> Diagnostic {
        let start = text.find(at).expect("the fixture holds the text");
        Diagnostic {
            rule: RuleId::from_name(rule).expect("a rule's name"),
            severity: Severity::Warning,
            path: "values.yaml".into(),
            range: start..start + at.len(),
            message: String::new(),
            help: None,
            labels: Vec::new(),
            fix: Some(Fix::safe(vec![Edit::replace(
                start..start + at.len(),
                content,
            )])),
        }
    }

    /// Past [`MAX_TRIALS`] fixes that move comments a round's are refused untried (each
    /// trial reads the whole file again), even those that would keep the map.
    #[test]
    fn too_many_indentation_fixes_are_refused_untried() {
        let relative = Path::new("values.yaml");
        for count in [MAX_TRIALS, MAX_TRIALS + 1] {
            let text: String = (0..count).map(|n| format!("k{n}: 1\n#c{n}\n")).collect();
            let keeping: Vec<Diagnostic> = (0..count)
                .map(|n| {
                    let comment = format!("#c{n}\n");
                    let mut found = finding("comment-indentation", &text, &comment, &comment);
                    found.path = relative.into();
                    found.fix = found.fix.map(Fix::moving_comments);
                    found
                })
                .collect();
            let map = comment_map_signature(relative, &text);
            let mut refused = 0;
            let kept = keep_comment_map(
                relative,
                &text,
                keeping,
                &map,
                (false, &AtomicBool::new(false)),
                |_| refused += 1,
            );
            let tried = count <= MAX_TRIALS;
            assert_eq!(
                (kept.len(), refused),
                if tried { (count, 0) } else { (0, count) }
            );
        }
    }

    #[test]
    fn a_fix_that_changes_data_is_held_and_the_others_kept() {
        let text = "notes: |\n  title\n#Heading\nb: 1 #one\n";
        let meaning = Meaning::of(Path::new("values.yaml"), text);
        // Indenting the comment makes it the scalar's text; spacing the other keeps data.
        let into_scalar = finding("comment-indentation", text, "#Heading", "  #Heading");
        let spacing = finding("inline-comment-spacing", text, " #one", "  # one");
        let (kept, held) = keep_data(
            Path::new("values.yaml"),
            text,
            vec![into_scalar, spacing],
            &meaning,
            false,
            &AtomicBool::new(false),
        );
        assert_eq!(held, vec![(2, RuleId::CommentIndentation)]);
        assert_eq!(
            apply(text, &kept, false).0,
            "notes: |\n  title\n#Heading\nb: 1  # one\n"
        );
    }
}
