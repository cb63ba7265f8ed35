//! `comment-starting-space`: `#` must be followed by a space.

use super::rule::{
    FileContext, Reporter, Rule, YamllintMapping, YamllintOption, YamllintSets, YamllintValue,
    declare_rule,
};
use crate::diagnostic::{Edit, Fix};
use crate::rule_id::RuleId;
use crate::yaml::directives::is_ytt_annotation;
use crate::yaml::model::CommentStyle;

/// `[rules.comment-starting-space]` options.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// Accept `#!` at the very start of the file (yamllint's `ignore-shebangs`).
    pub ignore_shebangs: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ignore_shebangs: true,
        }
    }
}

declare_rule! {
    /// ## What it does
    /// Reports a `#` comment whose text does not start with a space, as yamllint's
    /// `comments` rule does with `require-starting-space`: after the `#` and any further
    /// `#`s, the next character must be a space or the end of the line. `## doc`, `####`
    /// and an empty `#` pass; `#text` and `##text` do not.
    ///
    /// A shebang, `#!` at the very start of the file, passes unless
    /// `[rules.comment-starting-space] ignore-shebangs = false` (yamllint's
    /// `ignore-shebangs`).
    ///
    /// Where `tether.toml` sets nothing for this rule, the repository's yamllint
    /// configuration decides (`yamllint-config`, the nearest `.yamllint`, or
    /// chart-testing's `lint-conf`; <https://cozystack.github.io/tether/configuration.html#next-to-yamllint-and-chart-testing>), and
    /// yamllint's `# yamllint disable…` comments for its rule apply.
    ///
    /// `tether check --fix` puts the space in.
///
/// Differences from yamllint, all deliberate:
    /// - only real comments are checked: a `#` inside a template action, a quoted
    ///   string or a block scalar is text, and template comments `{{/* */}}` are not
    ///   `#` comments;
    /// - helm-docs' `#--` marker is accepted (`#-- description`), as helm-docs reads it;
    /// - Carvel ytt's annotations (`#@ load(…)`, `#@overlay/match …`) are code, not
    ///   comments, and in a file that has them ytt's `#!` comments pass too: `# @`
    ///   and `# !` would change what ytt does.
    ///
    /// ## Why it matters
    /// A space after `#` keeps comments readable and is what yamllint, helm-docs and
    /// most style guides expect.
    ///
    /// ## Example
    /// ```yaml
    /// #Number of replicas
    /// replicas: 3
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # Number of replicas
    /// replicas: 3
    /// ```
    pub struct CommentStartingSpace {
        name: "comment-starting-space",
        level: Warn,
        fix: Always,
        yamllint: &YAMLLINT,
        options: Options,
    }
}

/// yamllint's `comments` rule: `require-starting-space: false` turns this rule off,
/// and its `ignore-shebangs` is this rule's.
static YAMLLINT: YamllintMapping = YamllintMapping {
    rule: "comments",
    options: &[
        YamllintOption {
            key: "require-starting-space",
            default: YamllintValue::Bool(true),
            sets: YamllintSets::OffWhen(YamllintValue::Bool(false)),
        },
        YamllintOption {
            key: "ignore-shebangs",
            default: YamllintValue::Bool(true),
            sets: YamllintSets::Option("ignore-shebangs"),
        },
    ],
};

impl Rule for CommentStartingSpace {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let options = context
            .settings
            .typed::<Options>(RuleId::CommentStartingSpace);
        let shebang_at = context.source.bom_len;
        // In a ytt template (a file with `#@` annotations), `#!` is ytt's own
        // comment and a plain `# ` comment is an error: neither is rewritten.
        let ytt = context.comments.iter().any(|comment| {
            comment.style == CommentStyle::Yaml
                && is_ytt_annotation(&context.source.text[comment.span.clone()])
        });
        for comment in context.comments {
            if comment.style != CommentStyle::Yaml {
                continue;
            }
            let text = &context.source.text[comment.span.clone()];
            let hashes = text.bytes().take_while(|&b| b == b'#').count();
            let rest = &text[hashes..];
            let shebang = rest.starts_with('!')
                && comment.span.start == shebang_at
                && options.ignore_shebangs;
            let fine = rest.is_empty()
                || rest.starts_with(' ')
                || shebang
                || is_ytt_annotation(text)
                || (ytt && hashes == 1 && rest.starts_with('!'))
                || rest == "--"
                || rest.starts_with("-- ");
            if fine {
                continue;
            }
            let at = comment.span.start + hashes;
            // A character that looks like a space and is not one (a no-break space, a
            // tab): named, and replaced by a space.
            let blank = rest
                .chars()
                .next()
                .filter(|c| c.is_whitespace())
                .map(|c| (c, c.len_utf8()));
            match blank {
                Some((blank, len)) => {
                    let name = match blank {
                        '\t' => "a tab".to_string(),
                        '\u{a0}' => "a no-break space (U+00A0)".to_string(),
                        other => format!("U+{:04X}, a space that is not ASCII", other as u32),
                    };
                    reporter
                        .report(
                            at..at + len,
                            format!("{name} after `#` at the start of a comment, not a space"),
                        )
                        .with_help("write an ASCII space instead")
                        .with_fix(Fix::safe(vec![Edit::replace(at..at + len, " ")]));
                }
                None => {
                    reporter
                        .report(at..at, "missing space after `#` at the start of a comment")
                        .with_help(format!("put a space after `{}`", &text[..hashes]))
                        .with_fix(Fix::safe(vec![Edit::replace(at..at, " ")]));
                }
            }
        }
    }
}
