//! `detached-comment`: a comment cut off from the key below it by a template block's end.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::template::lex::{ActionKind, Keyword};
use crate::yaml::model::CommentStyle;

declare_rule! {
    /// ## What it does
    /// Finds `#` comments that sit at the end of a template block, directly above an
    /// `{{- end }}` or `{{- else }}`, with the key they were written for below it:
    /// the block's end cuts the comment off from that key, so it documents nothing, and
    /// it is rendered only when the block is.
    ///
    /// ## Why it matters
    /// This is how operational comments drift: a regeneration target splices a
    /// `{{- with }}` block in directly above a key, a later hand-merge moves the block's
    /// `{{- end }}` below the comment, and the comment now lives inside the block. A
    /// comment directly above a guard that opens a block (`# Resources…` /
    /// `{{- with .Values.resources }}` / `resources:`) is not detached: it documents the
    /// key inside the block.
    ///
    /// ## Example
    /// ```yaml
    ///     {{- with .Values.permittedHostDevices }}
    ///     permittedHostDevices:
    ///       {{- toYaml . | nindent 6 }}
    ///     # applies only to VMIs created after the switch
    ///     {{- end }}
    ///     evictionStrategy: LiveMigrateIfPossible
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    ///     {{- with .Values.permittedHostDevices }}
    ///     permittedHostDevices:
    ///       {{- toYaml . | nindent 6 }}
    ///     {{- end }}
    ///     evictionStrategy: LiveMigrateIfPossible  # applies only to VMIs created after the switch
    /// ```
    pub struct DetachedComment {
        name: "detached-comment",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for DetachedComment {
    /// Only a template with a `#` comment line followed, through template lines only,
    /// by an `end` or `else` can hold a detached comment; no other file needs a tree.
    fn needs_model(&self, context: &FileContext) -> bool {
        context.is_template
            && context
                .comments
                .iter()
                .filter(|comment| comment.style == CommentStyle::Yaml && comment.own_line)
                .any(|comment| closes_below(context, comment.line))
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(model) = context.model else {
            return;
        };
        for document in &model.documents {
            for detached in &document.detached {
                let spans = &detached.comment.spans;
                let range = spans[0].start..spans[spans.len() - 1].end;
                let closing = context.source.line_range(detached.closed_at);
                let closing_text = context.source.text[closing.clone()].trim().to_string();
                reporter
                    .report(
                        range,
                        format!(
                            "comment is cut off from `{}` by `{closing_text}` on line {}: it documents no key",
                            detached.separated_from,
                            detached.closed_at + 1
                        ),
                    )
                    .with_label(
                        closing.start + (closing.len() - context.source.text[closing.clone()].trim_start().len())..closing.end,
                        "this closes the block that holds the comment",
                    )
                    .with_help(format!(
                        "move the comment below line {}, directly above the key, or write it trailing on the key's line",
                        detached.closed_at + 1
                    ));
            }
        }
    }
}

/// Whether the lines below `line` are template lines up to one holding `end` or
/// `else`.
fn closes_below(context: &FileContext, line: usize) -> bool {
    let mut next = line + 1;
    while context.directive_lines.get(next).copied().unwrap_or(false) {
        let range = context.source.line_range(next);
        let first = context
            .actions
            .partition_point(|action| action.span.end <= range.start);
        let closes = context.actions[first..]
            .iter()
            .take_while(|action| action.span.start < range.end)
            .any(|action| {
                matches!(
                    action.kind,
                    ActionKind::Control(Keyword::End | Keyword::Else)
                )
            });
        if closes {
            return true;
        }
        next += 1;
    }
    false
}
