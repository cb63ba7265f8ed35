//! The rules: one file each, registered in [`RULES`], the single list that drives
//! checking, `tether rules`, the generated docs and the configuration schema.
//!
//! A rule reads a [`FileContext`] and reports through a [`Reporter`]; it does no I/O.
//! Its documentation is the doc comment of its type, read from its source file, with
//! the headings What it does / Why it matters / Example / Instead.

mod comment_indentation;
mod comment_starting_space;
mod detached_comment;
mod finding_limit;
mod glued_comment;
pub(crate) mod inline_comment_spacing;
mod orphan_value_doc;
mod parse_problem;
mod read_error;
mod recovered_template;
mod required_comment;
mod stale_version_reference;
mod template_error;
mod undefined_template;
mod undefined_value;
mod undocumented_value;
pub mod unused_suppression;
mod unused_value;
pub mod values;

pub mod options;
pub mod rule;

pub use crate::rule_id::{PerRule, RuleId};
use crate::rule_list::with_rules;

pub use options::{Level, PlacementSetting, Require, RuleSettings};
pub use rule::{CommentInfo, Described, FileContext, Reporter, Rule, ValuesFile};

/// A registered rule.
pub struct Registered {
    pub id: RuleId,
    pub rule: &'static dyn Rule,
}

impl Registered {
    /// The rule's documentation: the doc comment of its `declare_rule!`.
    pub fn documentation(&self) -> String {
        let documentation = self.rule.documentation();
        documentation
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string()
    }

    /// The first sentence of its documentation, on one line, for tables.
    pub fn summary(&self) -> String {
        let documentation = self.documentation();
        let what = documentation
            .split("## What it does")
            .nth(1)
            .unwrap_or(&documentation);
        let paragraph = what.trim().split("\n\n").next().unwrap_or("");
        let line = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        let end = [line.find(". "), line.find(": -")]
            .into_iter()
            .flatten()
            .min()
            .map_or(line.len(), |end| end + 1);
        let mut sentence = line[..end].trim_end_matches(':').to_string();
        if !sentence.ends_with('.') {
            sentence.push('.');
        }
        sentence.replace('|', "\\|")
    }
}

macro_rules! register {
    ($($module:ident :: $rule:ident),* $(,)?) => {
        /// Every rule, in the order `tether rules` lists them.
        pub static RULES: &[Registered] = &[$(
            Registered {
                id: RuleId::$rule,
                rule: &$module::$rule,
            },
        )*];
    };
}

with_rules!(register);

/// One rule's page: name, default level, documentation. `tether rules NAME` prints
/// it and `docs/src/rules.md` collects them.
pub fn rule_page(registered: &Registered) -> String {
    let documentation = registered.documentation().replace("\n## ", "\n### ");
    let documentation = documentation
        .strip_prefix("## ")
        .map(|rest| format!("### {rest}"))
        .unwrap_or(documentation);
    let rule = registered.rule;
    let mut options = String::new();
    let defaults = rule.default_options();
    if let Some(properties) = rule
        .options_schema()
        .get("properties")
        .and_then(|p| p.as_object())
    {
        for (name, schema) in properties {
            let description = schema
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let default = defaults
                .get(name)
                .map_or(String::new(), |value| format!(" (default `{value}`)"));
            options.push_str(&format!("- `{name}`{default}: {description}\n"));
        }
    }
    let options = if options.is_empty() {
        "Options: none.\n".to_string()
    } else {
        format!("Options, in `[rules.{}]`:\n\n{options}", rule.name())
    };
    format!(
        "## {}\n\nDefault level: `{}`\n\n{}\n\n{options}",
        rule.name(),
        rule.default_level().as_str(),
        documentation
    )
}

/// What `tether rules` says of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleInfo {
    /// The kebab-case name `tether.toml` and suppressions use.
    pub name: &'static str,
    /// Its level when `tether.toml` does not set one.
    pub default_level: Level,
    /// The first sentence of its documentation, on one line.
    pub summary: String,
    /// Its whole page in Markdown, as `tether rules NAME` prints it.
    pub page: String,
}

impl RuleInfo {
    fn of(registered: &Registered) -> RuleInfo {
        RuleInfo {
            name: registered.rule.name(),
            default_level: registered.rule.default_level(),
            summary: registered.summary(),
            page: rule_page(registered),
        }
    }

    /// Every rule, in the order `tether rules` lists them.
    ///
    /// ```
    /// use helm_tether::RuleInfo;
    /// let names: Vec<_> = RuleInfo::all().into_iter().map(|rule| rule.name).collect();
    /// assert!(names.contains(&"required-comment"));
    /// assert_eq!(RuleInfo::named("required-comment").unwrap().name, "required-comment");
    /// ```
    pub fn all() -> Vec<RuleInfo> {
        RULES.iter().map(RuleInfo::of).collect()
    }

    /// One rule by its name (`required-comment`), as `tether rules NAME` finds it.
    pub fn named(name: &str) -> Option<RuleInfo> {
        find(name).map(RuleInfo::of)
    }
}

/// The rules reference (`docs/src/rules.md`, which `cargo xtask codegen` writes and
/// a test holds to this): a table of every rule, then each page.
#[cfg(feature = "internals")]
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "<!-- generated by `cargo xtask codegen` from the rules' doc comments; do not edit -->\n\n# Rules\n\n",
    );
    out.push_str("| rule | default | what it does |\n|---|---|---|\n");
    for registered in RULES {
        out.push_str(&format!(
            "| [`{}`](#{}) | `{}` | {} |\n",
            registered.rule.name(),
            registered.rule.name(),
            registered.rule.default_level().as_str(),
            registered.summary()
        ));
    }
    out.push_str("\nLevels are set in `tether.toml` (`[rules] NAME = \"error\" | \"warn\" | \"off\"`), per path in `[[overrides]]`, and a finding is silenced on its line with `# tether: ignore[NAME] reason` on that line or the line above.\n\n");
    let pages: Vec<String> = RULES.iter().map(rule_page).collect();
    out.push_str(pages.join("\n").trim_end());
    out.push('\n');
    out
}

impl RuleId {
    /// The rule's kebab-case name, as users write it.
    pub fn name(self) -> &'static str {
        self.registered().rule.name()
    }

    /// The rule named `name`, if one is.
    pub fn from_name(name: &str) -> Option<RuleId> {
        find(name).map(|registered| registered.id)
    }

    /// Whether the engine makes the rule's findings and no setting may turn it off
    /// (`read-error`, `finding-limit`): `off` is refused and `--select` keeps it, so a
    /// run never hides what it could not read or show.
    pub fn always_on(self) -> bool {
        matches!(self, RuleId::ReadError | RuleId::FindingLimit)
    }

    /// The registry's entry of the rule.
    pub fn registered(self) -> &'static Registered {
        &RULES[self as usize]
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, name: &str) -> bool {
        self.name() == name
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, name: &&str) -> bool {
        self.name() == *name
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for RuleId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        RuleId::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("no rule is named `{name}`")))
    }
}

/// The rule a mistyped `name` most likely means: the one whose name holds it
/// (`detached` → `detached-comment`), else the nearest by edit distance, within 3.
pub(crate) fn closest_rule(name: &str) -> Option<&'static str> {
    let names = || RULES.iter().map(|registered| registered.rule.name());
    let name = name.trim().to_ascii_lowercase();
    if name.len() >= 3 {
        if let Some(holding) = names()
            .filter(|candidate| candidate.contains(name.as_str()))
            .min_by_key(|candidate| candidate.len())
        {
            return Some(holding);
        }
    }
    names()
        .map(|candidate| (strsim::levenshtein(&name, candidate), candidate))
        .filter(|(distance, _)| *distance <= 3)
        .min()
        .map(|(_, candidate)| candidate)
}

/// What to say of a rule name no rule has, written at `place` (`" in --select"`, or
/// `""`): the suggestion of [`closest_rule`] and where the rules are listed.
pub(crate) fn unknown_rule(name: &str, place: &'static str) -> crate::error::RuleNameError {
    crate::error::RuleNameError::Unknown {
        name: name.to_string(),
        place,
        nearest: closest_rule(name),
    }
}

/// Looks a rule up by name.
pub fn find(name: &str) -> Option<&'static Registered> {
    RULES
        .iter()
        .find(|registered| registered.rule.name() == name)
}

impl RuleSettings {
    /// These settings with every rule's options table read into its options type,
    /// once: what the rules of every file that shares them read.
    pub fn sealed(self) -> RuleSettings {
        self.sealed_by(|rule, table| rule.registered().rule.read_options(table))
    }
}

/// Every rule at its default level, with default options.
pub fn default_settings() -> RuleSettings {
    RuleSettings::new(
        PerRule::from_fn(|rule| rule.registered().rule.default_level()),
        PerRule::from_fn(|rule| rule.registered().rule.default_options()),
    )
}

#[cfg(test)]
mod tests {
    use super::{PerRule, RuleId, default_settings};

    /// A table of settings holds each rule's value at that rule: the registry's
    /// defaults land on the rule they belong to, and a change of one rule changes
    /// only it.
    #[test]
    fn per_rule_tables_are_indexed_by_the_rule() {
        let rules = PerRule::from_fn(|rule| rule);
        assert!(rules.iter().all(|(rule, value)| rule == *value));
        assert!(RuleId::ALL.iter().all(|rule| rule.registered().id == *rule));
        let mut settings = default_settings();
        for (rule, level) in settings.levels.iter() {
            assert_eq!(*level, rule.registered().rule.default_level(), "{rule}");
        }
        let before = settings.clone();
        settings.set_level(RuleId::UnusedValue, super::Level::Off);
        let changed: Vec<RuleId> = settings
            .levels
            .iter()
            .filter(|(rule, level)| before.levels[*rule] != **level)
            .map(|(rule, _)| rule)
            .collect();
        assert_eq!(changed, [RuleId::UnusedValue]);
    }

    /// A rule that follows a yamllint option into one of its own names an option
    /// it has, of the type of yamllint's default.
    #[test]
    fn yamllint_options_land_on_options_the_rule_has() {
        use super::rule::{YamllintSets, YamllintValue};
        let mut followed = 0;
        for registered in super::RULES {
            let Some(mapping) = registered.rule.yamllint() else {
                continue;
            };
            for option in mapping.options {
                let YamllintSets::Option(name) = option.sets else {
                    continue;
                };
                let defaults = registered.rule.default_options();
                let own = defaults.get(name);
                let fits = matches!(
                    (own, option.default),
                    (Some(toml::Value::Boolean(_)), YamllintValue::Bool(_))
                        | (Some(toml::Value::Integer(_)), YamllintValue::Int(_))
                );
                assert!(fits, "{}: {} → {name}", registered.rule.name(), option.key);
                followed += 1;
            }
        }
        assert!(followed >= 2);
    }

    #[test]
    fn a_mistyped_rule_name_gets_the_nearest_rule() {
        assert_eq!(super::closest_rule("detached"), Some("detached-comment"));
        assert_eq!(super::closest_rule("unused-valeu"), Some("unused-value"));
        assert_eq!(super::closest_rule("zzz"), None);
        assert_eq!(
            super::unknown_rule("detached", " in --select").to_string(),
            "unknown rule `detached` in --select; did you mean `detached-comment`? `tether rules` lists every rule"
        );
    }
}
