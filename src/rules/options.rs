//! The options rules read, and the compiled `[[require]]` entries of
//! `required-comment`: `config.rs` assembles them from `tether.toml`, the rules read
//! them through their `FileContext`. Imports no rule and not the configuration.

use globset::GlobSet;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::diagnostic::Severity;
use crate::key_pattern::KeyPattern;
use crate::yaml::model::Placement;

/// A compiled `[[require]]` entry.
#[derive(Debug, Clone)]
pub struct Require {
    pub files: GlobSet,
    pub key: KeyPattern,
    pub kind: Option<String>,
    pub placement: PlacementSetting,
    pub matches: Vec<Regex>,
    pub message: Option<String>,
    /// 1-based line of the entry's `key` in `tether.toml`, for messages.
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

/// The options a rule reads, with their defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleOptions {
    /// `inline-comment-spacing`: spaces required between content and `#`.
    pub min_spaces: usize,
    /// `comment-starting-space`: accept `#!` at the start of the file's first line.
    pub ignore_shebangs: bool,
}

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            min_spaces: 2,
            ignore_shebangs: true,
        }
    }
}

/// The level of every rule for one file, after `[rules]` and `[[overrides]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSettings {
    /// Every rule's name and level, in the order of `RULES`.
    pub levels: Vec<(&'static str, Level)>,
    pub options: RuleOptions,
}

impl RuleSettings {
    /// The level of the rule named `name`; `off` for a name no rule has.
    pub fn level(&self, name: &str) -> Level {
        self.levels
            .iter()
            .find(|(rule, _)| *rule == name)
            .map_or(Level::Off, |(_, level)| *level)
    }
}

/// How a rule's findings count. `off` disables the rule.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Default,
)]
#[serde(rename_all = "lowercase")]
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
