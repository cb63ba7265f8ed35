//! `required-comment`: the comments `[[require]]` entries demand on keys.

use super::options::{PlacementSetting, Require};
use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::yaml::model::{Attached, Document, Key};

declare_rule! {
    /// ## What it does
    /// Checks every `[[require]]` entry of `tether.toml` on the files it covers: the key
    /// exists, it carries a comment in the required placement (`trailing` on the key's
    /// own line, `leading` on the lines directly above it, or `any`), and the comment's
    /// text matches every `matches` regular expression. A key that is missing from a
    /// covered file is a finding too, so a required comment never passes silently because
    /// its key moved or was renamed.
    ///
    /// ## Why it matters
    /// Operational comments state preconditions that review insisted on. A regeneration
    /// target that splices blocks in above a key leaves a leading comment documenting the
    /// wrong key, which is why such comments are kept trailing; nothing else checks that
    /// they stay there and still say what they must.
    ///
    /// ## Example
    /// ```toml
    /// [[require]]
    /// files = ["templates/kubevirt-cr.yaml"]
    /// key = "spec.configuration.evictionStrategy"
    /// placement = "trailing"
    /// matches = ["created after", "MachineHealthCheck"]
    /// message = "state which VMIs the strategy applies to and what CAPK does"
    /// ```
    /// ```yaml
    ///     # applies only to VMIs created after the switch
    ///     evictionStrategy: LiveMigrateIfPossible
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    ///     evictionStrategy: LiveMigrateIfPossible  # applies only to VMIs created after
    ///                                              # the switch; CAPK marks a worker that
    ///                                              # cannot migrate failed and the
    ///                                              # MachineHealthCheck replaces it
    /// ```
    pub struct RequiredComment {
        name: "required-comment",
        level: Error,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for RequiredComment {
    fn needs_model(&self, context: &FileContext) -> bool {
        covering(context).next().is_some()
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(model) = context.model else {
            return;
        };
        for require in covering(context) {
            let documents: Vec<&Document> = model
                .documents
                .iter()
                .filter(|document| {
                    require
                        .kind
                        .as_ref()
                        .is_none_or(|kind| document.kind.as_ref() == Some(kind))
                })
                .collect();
            let keys: Vec<(&Document, &Key)> = documents
                .iter()
                .flat_map(|document| document.keys.iter().map(move |key| (*document, key)))
                .filter(|(_, key)| require.key.matches(&key.path))
                .collect();
            // With `kind`, a file without a document of that kind is not covered.
            if keys.is_empty() && (require.kind.is_none() || !documents.is_empty()) {
                missing_key(context, require, reporter);
            }
            for (document, key) in keys {
                check_key(context, require, document, key, reporter);
            }
        }
    }
}

/// The `[[require]]` entries whose `files` match this file.
fn covering<'a>(context: &'a FileContext) -> impl Iterator<Item = &'a Require> + 'a {
    context
        .requires
        .iter()
        .filter(|require| require.files.is_match(context.path))
}

fn why(require: &Require) -> String {
    match &require.message {
        Some(message) => format!("{}:{} requires it: {message}", require.file, require.line),
        None => format!("{}:{} requires it", require.file, require.line),
    }
}

fn missing_key(context: &FileContext, require: &Require, reporter: &mut Reporter) {
    let kind = require
        .kind
        .as_ref()
        .map(|kind| format!(" in a `kind: {kind}` document"))
        .unwrap_or_default();
    let first_line = context.source.line_range(0);
    reporter
        .report(
            first_line.start + context.source.bom_len..first_line.end,
            format!(
                "required key `{}` not found{kind}; {}",
                require.key.text,
                why(require)
            ),
        )
        .with_help(
            "the key may have been moved or renamed: restore it, or update `key` in tether.toml",
        );
}

/// Checks one key a `[[require]]` entry covers: it has a comment where the entry
/// accepts one, and the comment matches the entry's `matches`.
fn check_key(
    context: &FileContext,
    require: &Require,
    document: &Document,
    key: &Key,
    reporter: &mut Reporter,
) {
    let key_range = key_span(context, key);
    let accepted: Vec<_> = key
        .comments
        .iter()
        .filter(|attached| require.placement.accepts(attached.placement))
        .collect();
    if accepted.is_empty() {
        match key.comments.first() {
            Some(misplaced) => {
                misplaced_comment(context, require, key, misplaced, key_range, reporter);
            }
            None => missing_comment(require, document, key, key_range, reporter),
        }
        return;
    }
    let text: Vec<&str> = accepted
        .iter()
        .map(|attached| attached.comment.text.as_str())
        .collect();
    let text = text.join("\n");
    for regex in &require.matches {
        if !regex.is_match(&text) {
            let comment = &accepted[0].comment;
            let last = &accepted[accepted.len() - 1].comment;
            let range = comment.spans[0].start..last.spans[last.spans.len() - 1].end;
            reporter
                .report(
                    range,
                    format!(
                        "the comment on `{}` does not match `{}`; {}",
                        key.path,
                        regex.as_str(),
                        why(require)
                    ),
                )
                .with_label(key_range.clone(), "the key it documents")
                .with_help(
                    "say what tether.toml requires, or update `matches` if the requirement changed",
                );
        }
    }
}

/// Reports the first comment of a key (at `key_range`) that has comments, none of
/// them placed where `require` accepts one.
fn misplaced_comment(
    context: &FileContext,
    require: &Require,
    key: &Key,
    misplaced: &Attached,
    key_range: std::ops::Range<usize>,
    reporter: &mut Reporter,
) {
    let (now, must) = (misplaced.placement, require.placement);
    let comment = &misplaced.comment;
    let range = comment.spans[0].start..comment.spans[comment.spans.len() - 1].end;
    let help = match must {
        PlacementSetting::Trailing => format!(
            "move it to the end of line {}: `{}  # …`",
            key.line + 1,
            context.line_text(key.line).trim()
        ),
        _ => format!(
            "move it to the line directly above line {}, at column {}",
            key.line + 1,
            key.column + 1
        ),
    };
    let diagnostic = reporter
        .report(
            range,
            format!(
                "the comment on `{}` is {} (line {}) but must be {}; {}",
                key.path,
                now.as_str(),
                comment.line + 1,
                must.as_str(),
                why(require)
            ),
        )
        .with_help(help);
    if comment.line != key.line {
        diagnostic.with_label(key_range, "the key it documents");
    }
}

/// Reports a key (at `key_range`) with no comment, pointing at the comments of the
/// document that a template line cut off from it.
fn missing_comment(
    require: &Require,
    document: &Document,
    key: &Key,
    key_range: std::ops::Range<usize>,
    reporter: &mut Reporter,
) {
    let placement = match require.placement {
        PlacementSetting::Any => String::new(),
        other => format!("{} ", other.as_str()),
    };
    let diagnostic = reporter
        .report(
            key_range,
            format!("`{}` has no {placement}comment; {}", key.path, why(require)),
        )
        .with_help(match require.placement {
            PlacementSetting::Leading => {
                "write the comment on the lines directly above the key, at its column".to_string()
            }
            _ => "write the comment at the end of the key's line: `key: value  # …`".to_string(),
        });
    for detached in document
        .detached
        .iter()
        .filter(|detached| detached.separated_from == key.path)
    {
        let spans = &detached.comment.spans;
        diagnostic.with_label(
            spans[0].start..spans[spans.len() - 1].end,
            format!(
                "this comment was cut off from the key by the template line {}",
                detached.closed_at + 1
            ),
        );
    }
}

/// The key's name on its line (or the `-` of a sequence item).
pub fn key_span(context: &FileContext, key: &Key) -> std::ops::Range<usize> {
    let line_end = context.source.line_range(key.line).end;
    let text = &context.masked[key.offset..line_end];
    if text.starts_with('-') {
        return key.offset..key.offset + 1;
    }
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    for (index, &byte) in bytes.iter().enumerate() {
        if byte == b':'
            && bytes
                .get(index + 1)
                .is_none_or(|&next| next == b' ' || next == b'\t')
        {
            end = index;
            break;
        }
    }
    key.offset..key.offset + end
}
