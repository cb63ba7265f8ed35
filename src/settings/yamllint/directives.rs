//! yamllint's suppression comments (`# yamllint disable-line rule:comments` and the
//! others), applied to tether's rules that follow a yamllint rule.

use crate::rules::RuleId;

/// yamllint's suppression comments in one file, for the rules they name.
#[derive(Debug, Default)]
pub struct Directives {
    /// `# yamllint disable-file` on the first line.
    whole_file: bool,
    /// Per 0-based line: the yamllint rules disabled there (`None`: every rule).
    lines: Vec<(usize, Option<Vec<String>>)>,
    /// Block disables: from line (inclusive) to line (exclusive), rules.
    blocks: Vec<(usize, usize, Option<Vec<String>>)>,
}

/// The yamllint rule a tether rule follows, as the rule declares it.
pub fn yamllint_rule(tether_rule: RuleId) -> Option<&'static str> {
    tether_rule.registered().rule.yamllint_rule()
}

/// `# yamllint disable rule:a rule:b`: the rules (`None` when none is named), or
/// `None` when the text is not that directive. Spelled exactly as yamllint's regexes
/// want it, so a comment yamllint ignores is ignored here too.
fn directive(text: &str, word: &str) -> Option<Option<Vec<String>>> {
    let rest = text.strip_prefix("# yamllint ")?.strip_prefix(word)?;
    let rest = rest.trim_end();
    if rest.is_empty() {
        return Some(None);
    }
    let mut rules = Vec::new();
    for item in rest.strip_prefix(' ')?.split(' ') {
        let rule = item.strip_prefix("rule:")?;
        if rule.is_empty() || rule.chars().any(char::is_whitespace) {
            return None;
        }
        rules.push(rule.to_string());
    }
    Some(Some(rules))
}

impl Directives {
    /// Reads the directives from a file's `#` comments: (0-based line, text from `#`,
    /// alone on its line), in file order; `first_line` is the file's first line.
    pub fn read<'a>(
        first_line: &str,
        comments: impl Iterator<Item = (usize, &'a str, bool)>,
    ) -> Directives {
        let whole_file = first_line
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix("yamllint disable-file"))
            .is_some_and(|rest| rest.trim().is_empty());
        let mut directives = Directives {
            whole_file,
            ..Directives::default()
        };
        // Open blocks: rule → start line (`*` for every rule).
        let mut open: Vec<(Option<String>, usize)> = Vec::new();
        for (line, text, own_line) in comments {
            if let Some(rules) = directive(text, "disable-line") {
                directives
                    .lines
                    .push((if own_line { line + 1 } else { line }, rules));
            } else if let Some(rules) = directive(text, "disable") {
                match rules {
                    None => open.push((None, line)),
                    Some(rules) => open.extend(rules.into_iter().map(|rule| (Some(rule), line))),
                }
            } else if let Some(rules) = directive(text, "enable") {
                let closing: Vec<(Option<String>, usize)> = match &rules {
                    None => std::mem::take(&mut open),
                    Some(rules) => {
                        let (closing, staying) = open.into_iter().partition(|(rule, _)| {
                            rule.as_ref().is_some_and(|rule| rules.contains(rule))
                        });
                        open = staying;
                        closing
                    }
                };
                // An enable takes effect on its own line, as in yamllint.
                for (rule, start) in closing {
                    directives
                        .blocks
                        .push((start, line, rule.map(|rule| vec![rule])));
                }
            }
        }
        for (rule, start) in open {
            directives
                .blocks
                .push((start, usize::MAX, rule.map(|rule| vec![rule])));
        }
        directives
    }

    /// Whether a finding of `tether_rule` on 0-based `line` is suppressed.
    pub fn suppresses(&self, tether_rule: RuleId, line: usize) -> bool {
        let Some(rule) = yamllint_rule(tether_rule) else {
            return false;
        };
        let names = |rules: &Option<Vec<String>>| {
            rules
                .as_ref()
                .is_none_or(|rules| rules.iter().any(|r| r == rule))
        };
        self.whole_file
            || self
                .lines
                .iter()
                .any(|(at, rules)| *at == line && names(rules))
            || self
                .blocks
                .iter()
                .any(|(start, end, rules)| (*start..*end).contains(&line) && names(rules))
    }

    /// Whether the file has none.
    pub fn is_empty(&self) -> bool {
        !self.whole_file && self.lines.is_empty() && self.blocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_read_as_yamllint_reads_them() {
        let comments = [
            (0, "# yamllint disable rule:comments-indentation", true),
            (3, "# yamllint enable", true),
            (5, "# yamllint disable-line rule:comments", true),
            (7, "# yamllint disable-line rule:comments", false),
            (9, "# yamllint  disable-line", false),
        ];
        let directives = Directives::read("a: 1", comments.into_iter());
        assert!(directives.suppresses(RuleId::CommentIndentation, 0));
        assert!(directives.suppresses(RuleId::CommentIndentation, 2));
        assert!(!directives.suppresses(RuleId::CommentIndentation, 3));
        assert!(!directives.suppresses(RuleId::InlineCommentSpacing, 2));
        assert!(directives.suppresses(RuleId::InlineCommentSpacing, 6));
        assert!(!directives.suppresses(RuleId::InlineCommentSpacing, 5));
        assert!(directives.suppresses(RuleId::CommentStartingSpace, 7));
        assert!(!directives.suppresses(RuleId::CommentStartingSpace, 9));
        assert!(!directives.suppresses(RuleId::RequiredComment, 7));
        let whole = Directives::read("#yamllint disable-file", std::iter::empty());
        assert!(whole.suppresses(RuleId::CommentIndentation, 40));
    }
}
