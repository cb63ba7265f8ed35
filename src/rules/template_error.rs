//! `template-error`: what Helm's template parser refuses, found as you type.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::analysis::charts::Role;

declare_rule! {
    /// ## What it does
    /// Reports, in a chart's templates, what Helm's template parser refuses
    /// before it reads a single value: a function that neither Go's templates,
    /// Sprig 3.3.0 nor Helm defines (with the function most like it), a
    /// `$variable` that no declaration in scope names (a define sees none of
    /// the file's), an `{{end}}` or `{{else}}` with no block to belong to, a
    /// second `{{else}}`, a block never closed, a `{{define}}` inside a block,
    /// a `{{break}}` or `{{continue}}` outside a `range`. Also a call of a
    /// function whose argument count is fixed with another count (the piped
    /// value counted), which fails when the line renders.
    ///
    /// The function list is Helm's as of 3.21 and 4.2 (`toYamlPretty` and
    /// `fromToml` since 3.17, `mustToYaml` since 4.0 are known); a `tpl` string
    /// is not parsed.
    ///
    /// ## Why it matters
    /// Helm refuses the whole chart when one template does not parse
    /// (`parse error at (app/templates/x.yaml:3): function "toYml" not
    /// defined`), and `helm lint` says so only where someone runs it: the editor
    /// says it as the line is typed.
    ///
    /// ## Example
    /// ```yaml
    /// data:
    ///   config: {{ toYml .Values.config | nindent 4 }}
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// data:
    ///   config: {{ toYaml .Values.config | nindent 4 }}
    /// ```
    pub struct TemplateError {
        name: "template-error",
        level: Error,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for TemplateError {
    fn needs_chart(&self) -> bool {
        true
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        // Only the templates Helm parses: a `templates/` folder outside a chart
        // may hold another tool's `{{ }}`.
        let Some((_, Role::Template)) = context.chart else {
            return;
        };
        for refusal in crate::template::parse::refusals(&context.source.text, context.actions) {
            reporter
                .report(refusal.span, refusal.message)
                .with_help(refusal.help);
        }
    }
}
