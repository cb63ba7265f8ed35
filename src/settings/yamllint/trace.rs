//! [`Trace`]: where each setting of a file came from, for `--show-settings`.

use crate::rule_id::RuleId;

/// Where each setting of a file came from, for `tether check --show-settings`.
#[derive(Debug, Default, Clone)]
pub struct Trace {
    /// (rule, setting, value, origin), the last one of a (rule, setting) winning.
    pub entries: Vec<(RuleId, String, String, String)>,
}

impl Trace {
    /// Records that `rule`'s `setting` is `value` because of `origin`.
    pub fn set(&mut self, rule: RuleId, setting: &str, value: &str, origin: &str) {
        self.entries
            .retain(|(r, s, ..)| !(*r == rule && s == setting));
        self.entries.push((
            rule,
            setting.to_string(),
            value.to_string(),
            origin.to_string(),
        ));
    }

    /// The origin of `rule`'s `setting`, if anything set it.
    pub fn origin(&self, rule: RuleId, setting: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(r, s, ..)| *r == rule && s == setting)
            .map(|(.., origin)| origin.as_str())
    }
}
