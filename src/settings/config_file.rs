//! `tether.toml` as written: the serde model a file is parsed into, strictly (an
//! unknown key is an error), before [`super::config::Config`] compiles it.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::rules::{Level, PlacementSetting};
use crate::settings::idem::IdemEntry;

/// The name tether looks for.
pub const FILE_NAME: &str = "tether.toml";

/// Where `tether snapshot` keeps snapshots without `[snapshot] dir`.
pub const DEFAULT_SNAPSHOT_DIR: &str = "snapshots";

/// A `tether.toml` larger than this is refused.
pub const MAX_CONFIG_BYTES: usize = 1024 * 1024;

/// Configuration of tether (`tether check`, `tether idem`). Paths and globs are
/// relative to this file's folder. Reference: docs/src/configuration.md.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "tether.toml")]
pub struct ConfigFile {
    /// Another `tether.toml` this one builds on, relative to this file's folder
    /// (`"../tether.toml"`), as ruff's `extend`: its settings apply, with its paths
    /// and globs relative to its own folder, and this file's come after. Lists of
    /// entries (`[[require]]`, `[[idem]]`, `[[overrides]]`, `[[pin]]`, `exclude`,
    /// `directives`, `chart-paths`, `idem-packages`) add to the other's; `include`, `[rules]` levels
    /// and `yamllint-config` replace what the other sets.
    #[schemars(with = "Option<String>")]
    pub extend: Option<Spanned<String>>,
    /// Globs of the files to check, relative to this file's folder. Default:
    /// `**/*.yaml`, `**/*.yml`, `**/*.tpl`. Files ignored by git are skipped.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub include: Option<Vec<Spanned<String>>>,
    /// Globs of files not to check, relative to this file's folder.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub exclude: Vec<Spanned<String>>,
    /// Leave out what chart tools leave out (default `true`): the charts vendored
    /// under a chart's `charts/` folder (another project's files), helm-unittest
    /// suites (`tests/*_test.yaml`) and chart-testing's value overrides
    /// (`ci/*-values.yaml`), which chart-testing never lints. `false` checks them.
    pub default_exclude: Option<bool>,
    /// More comment prefixes that address a tool rather than document a key, added to
    /// the defaults (`yamllint disable`, `tether:`, `prettier-ignore`, `@schema`,
    /// `renovate:`, … listed in docs/src/configuration.md): such comments are never anchored to a
    /// key, detached or counted as documentation.
    #[serde(default)]
    pub directives: Vec<String>,
    /// Rule levels: `"error"`, `"warn"` or `"off"`, or a table with `level` and the
    /// rule's options (`[rules.inline-comment-spacing] min-spaces = 2`).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RuleSetting>")]
    pub rules: BTreeMap<Spanned<String>, RuleSetting>,
    /// Comments that must be on given keys.
    #[serde(default)]
    pub require: Vec<RequireEntry>,
    /// Rule levels for some files only, applied in order after `[rules]`.
    #[serde(default)]
    pub overrides: Vec<OverrideEntry>,
    /// Regeneration commands `tether idem` proves honest.
    #[serde(default)]
    #[schemars(with = "Vec<IdemEntry>")]
    pub idem: Vec<Spanned<IdemEntry>>,
    /// Globs of the folders below this file's folder (`["packages/*/*"]`) whose own
    /// `tether.toml` may give `tether idem` commands to run, as npm's `workspaces`
    /// or Cargo's `members` name a workspace's packages. `tether idem` runs only the
    /// `[[idem]]` entries of the configuration it loads and of the packages this
    /// names; never those of a chart vendored under a chart's `charts/` folder or of
    /// `node_modules`.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub idem_packages: Vec<Spanned<String>>,
    /// Where `tether snapshot` keeps its comment-map snapshots.
    #[serde(default)]
    pub snapshot: SnapshotEntry,
    /// The yamllint configuration the comment rules follow where this file sets
    /// nothing for them (`".github/configs/lintconf.yaml"`), relative to this file's
    /// folder. Default: the nearest `.yamllint`, `.yamllint.yaml` or `.yamllint.yml`
    /// at or above each file, else chart-testing's `lint-conf` (docs/src/configuration.md: "Next to
    /// yamllint and chart-testing").
    #[schemars(with = "Option<String>")]
    pub yamllint_config: Option<Spanned<String>>,
    /// Versions `stale-version-reference` holds comments to, besides the
    /// repository's vendored charts and `Chart.yaml` dependencies.
    #[serde(default)]
    pub pin: Vec<PinEntry>,
    /// Folders of the repository holding charts that its charts depend on but
    /// that its search leaves out, such as a folder git ignores that CI fills
    /// (`["vendor/library-charts/charts"]`), relative to this file's folder: a
    /// dependency found neither under a chart's `charts/` nor elsewhere in the
    /// repository is looked for here, by name and version, so the values its
    /// templates read are known to `unused-value` and `undefined-value`. A folder
    /// outside the repository is refused: tether reads nothing outside it.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub chart_paths: Vec<Spanned<String>>,
}

/// A `[[pin]]` entry: a component's version, read from a file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PinEntry {
    /// The component's name as comments write it (`"kubevirt"`; any case).
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// The file that pins it, relative to this file's folder
    /// (`"packages/system/kubevirt-operator/Makefile"`).
    #[schemars(with = "String")]
    pub file: Spanned<String>,
    /// A regex whose first group is the version in that file (`'RELEASE=v(\S+)'`).
    #[schemars(with = "String")]
    pub regex: Spanned<String>,
}

/// The `[snapshot]` table.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SnapshotEntry {
    /// The snapshot folder, relative to this file's folder and inside it. Default:
    /// `snapshots`.
    #[schemars(with = "Option<String>")]
    pub dir: Option<Spanned<String>>,
}

/// A rule's level, or a table of its level and options.
#[derive(Debug, Clone, PartialEq)]
pub enum RuleSetting {
    Level(Level),
    /// `level` (if set) and the rule's options, checked against the rule's options
    /// type when the configuration is compiled.
    Table(Option<Level>, toml::Table),
}

impl JsonSchema for RuleSetting {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RuleSetting".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // Each rule's own schema replaces this one in the generated file
        // (`rule_settings_schema`); this is what any rule accepts.
        let level = generator.subschema_for::<Level>();
        schemars::json_schema!({
            "anyOf": [level, {"type": "object", "properties": {"level": level}}]
        })
    }
}

impl<'de> Deserialize<'de> for RuleSetting {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SettingVisitor;
        impl<'de> Visitor<'de> for SettingVisitor {
            type Value = RuleSetting;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str(
                    "\"error\", \"warn\", \"off\", or a table with `level` and the rule's options",
                )
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<RuleSetting, E> {
                Level::deserialize(de::value::StrDeserializer::<E>::new(value))
                    .map(RuleSetting::Level)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RuleSetting, A::Error> {
                let mut level = None;
                let mut options = toml::Table::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "level" {
                        level = Some(map.next_value()?);
                    } else {
                        let value: toml::Value = map.next_value()?;
                        options.insert(key, value);
                    }
                }
                Ok(RuleSetting::Table(level, options))
            }
        }
        deserializer.deserialize_any(SettingVisitor)
    }
}

/// A `[[require]]` entry: files, key and what its comment must say.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RequireEntry {
    /// Globs of the files this entry covers, relative to this file's folder.
    #[schemars(with = "Vec<String>")]
    pub files: Vec<Spanned<String>>,
    /// Key path in helm-unittest notation; `*` matches one segment, `**` any number,
    /// `[*]` any sequence index: `spec.configuration.evictionStrategy`.
    #[schemars(with = "String")]
    pub key: Spanned<String>,
    /// Only documents whose `kind:` is this.
    pub kind: Option<String>,
    /// Where the comment must be: `trailing` (on the key's line), `leading` (the lines
    /// directly above) or `any` (default).
    #[serde(default)]
    pub placement: PlacementSetting,
    /// Regular expressions that must all match the comment's text.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub matches: Vec<Spanned<String>>,
    /// Why the comment is required: shown with every finding.
    pub message: Option<String>,
}

/// An `[[overrides]]` entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OverrideEntry {
    /// Globs of the files the override applies to.
    #[schemars(with = "Vec<String>")]
    pub files: Vec<Spanned<String>>,
    /// Rule levels for those files, as in `[rules]`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RuleSetting>")]
    pub rules: BTreeMap<Spanned<String>, RuleSetting>,
}
