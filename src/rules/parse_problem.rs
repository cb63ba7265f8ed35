//! `parse-problem`: input tether could not read as written.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports what kept tether from reading a file exactly as written: bytes that are
    /// not UTF-8, NUL bytes, a template action `{{` or comment `{{/*` that is never
    /// closed, a file too large to model. The file is still checked as far as it can be:
    /// invalid bytes are read as `?`, an unclosed action ends at the end of its line.
    ///
    /// YAML that does not parse even after masking is not reported here: that is
    /// `recovered-template` (off by default), and `tether map` shows which lines were
    /// recovered from indentation.
    ///
    /// ## Why it matters
    /// Helm fails on an unclosed action, and a check that silently skipped what it could
    /// not read would pass files it never looked at.
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   name: {{ .Release.Name
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// metadata:
    ///   name: {{ .Release.Name }}
    /// ```
    pub struct ParseProblem {
        name: "parse-problem",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for ParseProblem {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        for problem in context.problems {
            let line = problem
                .line
                .min(context.source.line_count().saturating_sub(1));
            let range = match problem.offset {
                Some(offset) => offset..(offset + 2).min(context.source.line_range(line).end),
                None => context.source.line_range(line),
            };
            reporter.report(range, problem.message.clone());
        }
    }
}
