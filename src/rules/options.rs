//! The levels and option tables rules read, and the compiled `[[require]]` entries of
//! `required-comment`: `config.rs` assembles them from `tether.toml`, the rules read
//! them through their `FileContext`. Imports no rule and not the configuration.

use crate::globs::Globs;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::diagnostic::Severity;
use crate::key_pattern::KeyPattern;
use crate::rule_id::{PerRule, RuleId};
use crate::yaml::model::Placement;

/// A compiled `[[require]]` entry.
#[derive(Debug, Clone)]
pub struct Require {
    pub files: Globs,
    pub key: KeyPattern,
    pub kind: Option<String>,
    pub placement: PlacementSetting,
    pub matches: Vec<Regex>,
    pub message: Option<String>,
    /// The file the entry is written in, absolute: a finding names it so, and the
    /// run shows it from the folder its paths are shown from
    /// (`CheckReport::show_configurations`).
    pub file: String,
    /// 1-based line of the entry's `key` in that file, for messages.
    pub line: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlacementSetting {
    Trailing,
    Leading,
    #[default]
    Any,
}

impl PlacementSetting {
    pub fn accepts(self, placement: Placement) -> bool {
        match self {
            PlacementSetting::Any => true,
            PlacementSetting::Trailing => placement == Placement::Trailing,
            PlacementSetting::Leading => placement == Placement::Leading,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PlacementSetting::Trailing => "trailing",
            PlacementSetting::Leading => "leading",
            PlacementSetting::Any => "any",
        }
    }
}

/// A rule's options, read into its options type; [`RuleSettings::typed`] hands them
/// to the rule.
pub type TypedOptions = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// A rule's options, read from its merged `[rules.NAME]` tables; anything that does
/// not fit (checked when the configuration was read) gives the defaults.
pub fn options_from<T: serde::de::DeserializeOwned + Default>(table: &toml::Table) -> T {
    if table.is_empty() {
        return T::default();
    }
    T::deserialize(toml::Value::Table(table.clone())).unwrap_or_default()
}

/// The level and options of every rule for one file, after every layer of the
/// configuration.
#[derive(Clone)]
pub struct RuleSettings {
    /// Every rule's level.
    pub levels: PerRule<Level>,
    /// Every rule's options, as merged tables (a later layer's keys win).
    pub options: PerRule<toml::Table>,
    /// The tables read into each rule's options type by [`RuleSettings::sealed`]:
    /// a configuration reads them once for all the files its layers treat alike.
    /// `None` until sealed, and again once an option changes.
    typed: Option<PerRule<TypedOptions>>,
}

impl std::fmt::Debug for RuleSettings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RuleSettings")
            .field("levels", &self.levels)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl PartialEq for RuleSettings {
    fn eq(&self, other: &RuleSettings) -> bool {
        self.levels == other.levels && self.options == other.options
    }
}

impl RuleSettings {
    /// Settings of these levels and option tables, not yet read ([`RuleSettings::sealed`]).
    pub fn new(levels: PerRule<Level>, options: PerRule<toml::Table>) -> RuleSettings {
        RuleSettings {
            levels,
            options,
            typed: None,
        }
    }

    /// These settings with every rule's options read by `read` (the registry's
    /// `RuleSettings::sealed` passes each rule's reader), once.
    pub(crate) fn sealed_by(
        mut self,
        read: impl Fn(RuleId, &toml::Table) -> TypedOptions,
    ) -> RuleSettings {
        self.typed = Some(self.options.map(read));
        self
    }

    /// The options of `rule`, read into its options type `T`: as sealed, or read now
    /// from the table when these settings were changed after sealing.
    pub fn typed<T>(&self, rule: RuleId) -> std::borrow::Cow<'_, T>
    where
        T: serde::de::DeserializeOwned + Default + Clone + Send + Sync + 'static,
    {
        match self
            .typed
            .as_ref()
            .and_then(|typed| typed[rule].downcast_ref::<T>())
        {
            Some(options) => std::borrow::Cow::Borrowed(options),
            None => std::borrow::Cow::Owned(options_from(self.options(rule))),
        }
    }

    /// The level of `rule`.
    pub fn level(&self, rule: RuleId) -> Level {
        self.levels[rule]
    }

    /// Sets the level of `rule`.
    pub fn set_level(&mut self, rule: RuleId, level: Level) {
        self.levels[rule] = level;
    }

    /// The options table of `rule`.
    pub fn options(&self, rule: RuleId) -> &toml::Table {
        &self.options[rule]
    }

    /// Sets one option of `rule` (its read options are read again on the next
    /// [`RuleSettings::typed`], unless sealed again).
    pub fn set_option(&mut self, rule: RuleId, key: &str, value: toml::Value) {
        self.options[rule].insert(key.to_string(), value);
        self.typed = None;
    }
}

/// How a rule's findings count. `off` disables the rule.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Default,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// Findings are errors: `tether check` exits 1.
    Error,
    /// Findings are warnings.
    #[default]
    Warn,
    /// The rule does not run.
    Off,
}

impl Level {
    /// `error`, `warn` or `off`, as `tether.toml` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Off => "off",
        }
    }

    /// The severity of the findings at this level; `None` for `off`.
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Error => Some(Severity::Error),
            Level::Warn => Some(Severity::Warning),
            Level::Off => None,
        }
    }
}
