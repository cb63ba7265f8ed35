//! A [`Yamllint`] applied to the tether rules that follow a yamllint rule, as each
//! rule's `declare_rule!` declares it ([`YamllintMapping`]): levels and options
//! set, each with where it came from.

use std::path::Path;

use super::configuration::{Ignore, Yamllint, scalar_of};
use super::trace::Trace;
use crate::analysis::small_yaml::Scalar;
use crate::rules::rule::{YamllintMapping, YamllintOption, YamllintSets, YamllintValue};
use crate::rules::{Level, RULES, RuleId, RuleSettings};

impl Yamllint {
    /// Sets the levels and options of the rules that follow a yamllint rule, for
    /// the file at `absolute` (`None`: a file no `ignore` matches), recording where
    /// each came from in `trace`: yamllint's rules in turn, each option in the order
    /// its configuration sets them.
    pub fn apply(
        &self,
        absolute: Option<&Path>,
        settings: &mut RuleSettings,
        trace: &mut Option<&mut Trace>,
    ) {
        let matches = |ignore: &Ignore| absolute.is_some_and(|absolute| ignore.matches(absolute));
        if let Some(ignore) = self.ignore.as_ref().filter(|ignore| matches(ignore)) {
            let why = format!("yamllint ignores this file ({})", ignore.origin);
            for (rule, _) in followers(None) {
                off(settings, trace, rule, &why);
            }
            return;
        }
        for (name, conf) in &self.rules {
            match (&conf.options, &conf.ignore) {
                (None, _) => {
                    for (rule, _) in followers(Some(name)) {
                        off(settings, trace, rule, &conf.origin);
                    }
                }
                (Some(_), Some(ignore)) if matches(ignore) => {
                    let why = format!("yamllint's `{name}` ignores this file ({})", ignore.origin);
                    for (rule, _) in followers(Some(name)) {
                        off(settings, trace, rule, &why);
                    }
                }
                (Some(options), _) => {
                    for (key, value, origin) in options {
                        for (rule, mapping) in followers(Some(name)) {
                            let option = mapping.options.iter().find(|option| option.key == key);
                            if let Some(option) = option {
                                apply_option(rule, option, value, origin, settings, trace);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The rules that follow the yamllint rule `name` (any, for `None`), with how, in
/// the registry's order.
fn followers(name: Option<&str>) -> impl Iterator<Item = (RuleId, &'static YamllintMapping)> + '_ {
    RULES.iter().filter_map(move |registered| {
        let mapping = registered.rule.yamllint()?;
        name.is_none_or(|name| mapping.rule == name)
            .then_some((registered.id, mapping))
    })
}

/// Turns `rule` off, saying why in `trace`.
fn off(settings: &mut RuleSettings, trace: &mut Option<&mut Trace>, rule: RuleId, why: &str) {
    settings.set_level(rule, Level::Off);
    if let Some(trace) = trace.as_deref_mut() {
        trace.set(rule, "level", "off", why);
    }
}

/// The value of one of a yamllint rule's options (set at `origin`), as `rule`
/// follows it.
fn apply_option(
    rule: RuleId,
    option: &YamllintOption,
    value: &Scalar,
    origin: &str,
    settings: &mut RuleSettings,
    trace: &mut Option<&mut Trace>,
) {
    match option.sets {
        YamllintSets::OffWhen(off_value) if *value == scalar_of(off_value) => {
            off(settings, trace, rule, origin);
        }
        YamllintSets::OffWhen(_) => {}
        YamllintSets::Option(name) => {
            // A value of another type than yamllint's default is yamllint's
            // error, not an option.
            let value = match (value, option.default) {
                (Scalar::Bool(value), YamllintValue::Bool(_)) => toml::Value::Boolean(*value),
                (Scalar::Int(value), YamllintValue::Int(_)) => {
                    toml::Value::Integer((*value).max(0))
                }
                _ => return,
            };
            if let Some(trace) = trace.as_deref_mut() {
                trace.set(rule, name, &value.to_string(), origin);
            }
            settings.set_option(rule, name, value);
        }
    }
}
