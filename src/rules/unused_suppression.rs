//! `unused-suppression`: a `tether: ignore[…]` comment that suppresses nothing, and
//! the suppression mechanism itself.

use std::cell::Cell;

use super::options::Level;
use super::rule::{
    declare_rule, FileContext, NoOptions, Reporter, Rule, SuppressedRule, Suppression,
};
use crate::diagnostic::Diagnostic;
use crate::yaml::model::CommentStyle;

declare_rule! {
    /// ## What it does
    /// Reports a suppression comment that suppresses no finding: the rule it names
    /// reported nothing on the comment's line or the line below, the rule is off for the
    /// file, or no rule has that name.
    ///
    /// A finding is suppressed by a comment on its line or on the line above it:
    /// `# tether: ignore[rule-name] reason`, or in a template
    /// `{{/* tether: ignore[rule-name] reason */}}`. Several rules may be named,
    /// separated by commas. Suppressions do not apply to this rule.
    ///
    /// ## Why it matters
    /// A suppression outlives the finding it was written for; left behind, it hides the
    /// next real finding on that line.
    ///
    /// ## Example
    /// ```yaml
    /// # tether: ignore[detached-comment] moved below the block in #123
    /// replicas: 3
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// replicas: 3
    /// ```
    pub struct UnusedSuppression {
        name: "unused-suppression",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for UnusedSuppression {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        for suppression in context.suppressions {
            for entry in &suppression.rules {
                if entry.used.get() {
                    continue;
                }
                let known = context
                    .settings
                    .levels
                    .iter()
                    .find(|(name, _)| *name == entry.name);
                let message = match known {
                    None => format!(
                        "unknown rule `{}` in a suppression; `tether rules` lists every rule",
                        entry.name
                    ),
                    Some((_, Level::Off)) => format!(
                        "`{}` is off for this file: the suppression does nothing",
                        entry.name
                    ),
                    Some(_) => format!(
                        "no `{}` finding on this line or the next to suppress",
                        entry.name
                    ),
                };
                reporter
                    .report(entry.range.clone(), message)
                    .with_help("remove the suppression, or the rule name from it");
            }
        }
    }
}

const MARKER: &str = "tether: ignore[";

/// The suppression comments of a file.
pub fn suppressions(context: &FileContext) -> Vec<Suppression> {
    let mut found = Vec::new();
    for comment in context.comments {
        let text = &context.source.text[comment.span.clone()];
        let Some(at) = text.find(MARKER) else {
            continue;
        };
        let before = text[..at].trim_start_matches(['#', '{', '-', '/', '*', ' ']);
        if !before.trim().is_empty() {
            continue;
        }
        let list_start = at + MARKER.len();
        let Some(close) = text[list_start..].find(']') else {
            continue;
        };
        let mut rules = Vec::new();
        let mut offset = list_start;
        for name in text[list_start..list_start + close].split(',') {
            let trimmed = name.trim();
            let start = comment.span.start + offset + (name.len() - name.trim_start().len());
            if !trimmed.is_empty() {
                rules.push(SuppressedRule {
                    name: trimmed.to_string(),
                    range: start..start + trimmed.len(),
                    used: Cell::new(false),
                });
            }
            offset += name.len() + 1;
        }
        let line = match comment.style {
            CommentStyle::Template => context.source.line_of(comment.span.end.saturating_sub(1)),
            CommentStyle::Yaml => comment.line,
        };
        found.push(Suppression { line, rules });
    }
    // Sorted by line: a finding's suppressions are found by binary search.
    found.sort_by_key(|suppression| suppression.line);
    found
}

/// Whether a suppression on `line` or the line above covers `diagnostic`, marking it
/// used. `suppressions` are sorted by line ([`suppressions`]), so the lookup costs the
/// log of their number, not their number.
pub fn covers(suppressions: &[Suppression], line: usize, diagnostic: &Diagnostic) -> bool {
    let first = suppressions.partition_point(|suppression| suppression.line + 1 < line);
    let covering = suppressions[first..]
        .iter()
        .take_while(|suppression| suppression.line <= line)
        .flat_map(|suppression| suppression.rules.iter())
        .find(|entry| diagnostic.rule == entry.name.as_str());
    match covering {
        Some(entry) => {
            entry.used.set(true);
            true
        }
        None => false,
    }
}
