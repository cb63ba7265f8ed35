//! `inline-comment-spacing`: enough spaces between content and an inline comment.

use super::rule::{
    FileContext, Reporter, Rule, YamllintMapping, YamllintOption, YamllintSets, YamllintValue,
    declare_rule,
};
use crate::diagnostic::{Edit, Fix};
use crate::rule_id::RuleId;
use crate::yaml::model::CommentStyle;

/// `[rules.inline-comment-spacing]` options.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// Spaces required between content and an inline `#` (yamllint's
    /// `min-spaces-from-content`).
    pub min_spaces: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { min_spaces: 2 }
    }
}

declare_rule! {
    /// ## What it does
    /// Reports an inline `#` comment (one after content on its line) with fewer than
    /// `min-spaces` spaces (default 2) before it, as yamllint's `comments` rule does with
    /// `min-spaces-from-content`. Set the minimum with
    /// `[rules.inline-comment-spacing] min-spaces = 1`.
    ///
    /// Where `tether.toml` sets nothing for this rule, the repository's yamllint
    /// configuration decides (`yamllint-config`, the nearest `.yamllint`, or
    /// chart-testing's `lint-conf`; <https://cozystack.github.io/tether/configuration.html#next-to-yamllint-and-chart-testing>), and
    /// yamllint's `# yamllint disable…` comments for its rule apply.
    ///
    /// `tether check --fix` sets the spaces before the `#` to `min-spaces`.
///
/// Differences from yamllint, all deliberate:
    /// - a comment after a line of template actions only (`{{- end }}  # tls`) is not
    ///   checked: those lines are not YAML content, and the trim markers decide what the
    ///   rendered output looks like;
    /// - content that ends in a template action counts like any other
    ///   (`image: {{ .Values.image }} # x` is reported).
    ///
    /// ## Why it matters
    /// Two spaces make a trailing comment stand apart from the value it documents, and
    /// keep a `#` that belongs to the value (`color: #fff`) from looking like a comment.
    ///
    /// ## Example
    /// ```yaml
    /// evictionStrategy: LiveMigrate # applies only to VMIs created after the switch
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// evictionStrategy: LiveMigrate  # applies only to VMIs created after the switch
    /// ```
    pub struct InlineCommentSpacing {
        name: "inline-comment-spacing",
        level: Warn,
        fix: Always,
        yamllint: &YAMLLINT,
        options: Options,
    }
}

/// yamllint's `comments` rule: its `min-spaces-from-content` is this rule's
/// `min-spaces`.
static YAMLLINT: YamllintMapping = YamllintMapping {
    rule: "comments",
    options: &[YamllintOption {
        key: "min-spaces-from-content",
        default: YamllintValue::Int(2),
        sets: YamllintSets::Option("min-spaces"),
    }],
};

impl Rule for InlineCommentSpacing {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let minimum = context
            .settings
            .typed::<Options>(RuleId::InlineCommentSpacing)
            .min_spaces;
        for comment in context.comments {
            if comment.style != CommentStyle::Yaml
                || comment.own_line
                || context
                    .directive_lines
                    .get(comment.line)
                    .copied()
                    .unwrap_or(false)
            {
                continue;
            }
            let line_start = context.source.line_start(comment.line);
            let before = &context.source.text.as_bytes()[line_start..comment.span.start];
            let spaces = before
                .iter()
                .rev()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            if spaces >= minimum {
                continue;
            }
            let plural = if minimum == 1 { "" } else { "s" };
            // At the `#`, as yamllint reports it, so editors and annotations agree.
            reporter
                .report(
                    comment.span.start..comment.span.start + 1,
                    format!(
                        "{spaces} space{} before an inline comment; write at least {minimum} space{plural}",
                        if spaces == 1 { "" } else { "s" }
                    ),
                )
                .with_help(format!("put {minimum} space{plural} between the content and `#`"))
                .with_fix(Fix::safe(vec![Edit::replace(
                    comment.span.start - spaces..comment.span.start,
                    " ".repeat(minimum),
                )]));
        }
    }
}
