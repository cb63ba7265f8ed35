//! `glued-comment`: a `#` that a trim marker joins to the value rendered before it,
//! so Helm renders it as part of that value, not as a comment.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::template::glue::glued_comments;

declare_rule! {
    /// ## What it does
    /// Reports a `#` that a right trim marker (`-}}`) joins to the value Helm renders
    /// before it, which makes the line part of that value, not a comment. `-}}`
    /// removes every space and newline after the action, so the `#` follows the
    /// value the action prints (`{{ .Values.image -}} #pinned`), or, after an action
    /// that prints nothing (`{{- end -}}`), the text before that action; YAML reads
    /// a `#` right after a value as part of the value.
    ///
    /// tether reads such a line as text, not as a comment: no comment rule reports
    /// it, and no fix touches it.
    ///
    /// ## Why it matters
    /// The comment's words end up in the deployed value (`image: nginx#the title
    /// below`), usually breaking it, and a comment fix (`# the title`) would change
    /// the value again. The author almost never means it: they meant the trim to
    /// remove the blank line, not the newline before the comment.
    ///
    /// ## Example
    /// ```yaml
    /// image: nginx
    /// {{- if .Values.ui.enabled }}
    /// ui: true
    /// {{- end -}}
    /// #the title below is shown in the UI
    /// title: Console
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// image: nginx
    /// {{- if .Values.ui.enabled }}
    /// ui: true
    /// {{- end }}
    /// # the title below is shown in the UI
    /// title: Console
    /// ```
    pub struct GluedComment {
        name: "glued-comment",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for GluedComment {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        if !context.is_template {
            return;
        }
        for range in glued_comments(&context.source.text, context.actions) {
            reporter
                .report(
                    range,
                    "a trim marker (`-}}`) joins this `#` to the value before it: Helm renders it as part of that value, not as a comment",
                )
                .with_help(
                    "drop the `-` of the `-}}` before it, or put a space or a newline that no trim removes before the `#`",
                );
        }
    }
}
