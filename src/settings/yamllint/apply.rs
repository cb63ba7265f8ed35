//! A [`Yamllint`] applied to tether's comment rules for one file: levels and
//! options set, each with where it came from.

use std::path::Path;

use super::configuration::{Ignore, Yamllint};
use super::trace::Trace;
use crate::analysis::small_yaml::Scalar;
use crate::rules::{Level, RuleId, RuleSettings};

/// The tether rules fed by yamllint's `comments` rule.
pub const COMMENTS_RULES: [RuleId; 2] =
    [RuleId::CommentStartingSpace, RuleId::InlineCommentSpacing];
/// The tether rule fed by yamllint's `comments-indentation` rule.
pub const INDENTATION_RULE: RuleId = RuleId::CommentIndentation;

impl Yamllint {
    /// Sets the levels and options of tether's comment rules for the file at
    /// `absolute` (`None`: a file no `ignore` matches), recording where each came
    /// from in `trace`.
    pub fn apply(
        &self,
        absolute: Option<&Path>,
        settings: &mut RuleSettings,
        trace: &mut Option<&mut Trace>,
    ) {
        let matches = |ignore: &Ignore| absolute.is_some_and(|absolute| ignore.matches(absolute));
        if let Some(ignore) = self.ignore.as_ref().filter(|ignore| matches(ignore)) {
            for rule in COMMENTS_RULES.into_iter().chain([INDENTATION_RULE]) {
                off(
                    settings,
                    trace,
                    rule,
                    &format!("yamllint ignores this file ({})", ignore.origin),
                );
            }
            return;
        }
        match (&self.comments.options, &self.comments.ignore) {
            (None, _) => {
                for rule in COMMENTS_RULES {
                    off(settings, trace, rule, &self.comments.origin);
                }
            }
            (Some(_), Some(ignore)) if matches(ignore) => {
                for rule in COMMENTS_RULES {
                    off(
                        settings,
                        trace,
                        rule,
                        &format!(
                            "yamllint's `comments` ignores this file ({})",
                            ignore.origin
                        ),
                    );
                }
            }
            (Some(options), _) => apply_comments_options(options, settings, trace),
        }
        match (&self.indentation.options, &self.indentation.ignore) {
            (None, _) => off(settings, trace, INDENTATION_RULE, &self.indentation.origin),
            (Some(_), Some(ignore)) if matches(ignore) => off(
                settings,
                trace,
                INDENTATION_RULE,
                &format!(
                    "yamllint's `comments-indentation` ignores this file ({})",
                    ignore.origin
                ),
            ),
            (Some(_), _) => {}
        }
    }
}

/// Turns `rule` off, saying why in `trace`.
fn off(settings: &mut RuleSettings, trace: &mut Option<&mut Trace>, rule: RuleId, why: &str) {
    settings.set_level(rule, Level::Off);
    if let Some(trace) = trace.as_deref_mut() {
        trace.set(rule, "level", "off", why);
    }
}

/// Sets `option` of `rule` to `value`, saying where it came from in `trace`.
fn set(
    settings: &mut RuleSettings,
    trace: &mut Option<&mut Trace>,
    (rule, option): (RuleId, &str),
    value: toml::Value,
    origin: &str,
) {
    if let Some(trace) = trace.as_deref_mut() {
        trace.set(rule, option, &value.to_string(), origin);
    }
    settings.set_option(rule, option, value);
}

/// yamllint's `comments` options, as tether's comment rules take them.
fn apply_comments_options(
    options: &[(String, Scalar, String)],
    settings: &mut RuleSettings,
    trace: &mut Option<&mut Trace>,
) {
    for (key, value, origin) in options {
        match (key.as_str(), value) {
            ("require-starting-space", Scalar::Bool(false)) => {
                off(settings, trace, COMMENTS_RULES[0], origin);
            }
            ("ignore-shebangs", Scalar::Bool(value)) => set(
                settings,
                trace,
                (COMMENTS_RULES[0], "ignore-shebangs"),
                toml::Value::Boolean(*value),
                origin,
            ),
            ("min-spaces-from-content", Scalar::Int(value)) => set(
                settings,
                trace,
                (COMMENTS_RULES[1], "min-spaces"),
                toml::Value::Integer((*value).max(0)),
                origin,
            ),
            _ => {}
        }
    }
}
