//! `tether.toml`: found by walking up from a folder (or given with `--config`),
//! parsed strictly, and compiled into globs, regexes and per-file rule settings.
//!
//! Every mistake is a [`ConfigError`] naming `tether.toml`, the line and column, and
//! what to write instead; an unknown key, a bad glob, an invalid regex, a wrong type.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::globs::Globs;

use crate::analysis::pins::Pin;
use crate::cache_key::CacheKey;
use crate::error::ConfigError;
use crate::rules::{self, Level, Require, RuleId, RuleSettings};
use crate::settings::compile::{ErrorContext, compile_globs};
use crate::settings::config_file::DEFAULT_SNAPSHOT_DIR;
pub use crate::settings::config_file::{FILE_NAME, RuleSetting};
pub use crate::settings::idem::IdemTarget;
use crate::settings::idem::compile_idem;
use crate::settings::schema::json_schema;
use crate::settings::starter::{starter, starter_in};
use crate::settings::tables::*;
use crate::settings::yamllint::{Trace, Yamllint};
use crate::yaml::directives::Directives;

/// A compiled `tether.toml`: which files to check, the rules' levels and options,
/// `[[require]]`, `[[idem]]` and `[snapshot]`.
///
/// ```
/// let config = helm_tether::Config::from_toml(r#"
/// exclude = ["**/crds/**"]
///
/// [rules]
/// required-comment = "error"
///
/// [[require]]
/// files = ["templates/kubevirt.yaml"]
/// key = "spec.configuration.evictionStrategy"
/// message = "say why live migration is the default"
/// "#).unwrap();
/// assert!(config.file().is_none());
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    /// The folder paths are relative to: the configuration's, or the working
    /// directory without one.
    pub(crate) root: PathBuf,
    /// The configuration file, if one was found.
    pub(crate) file: Option<PathBuf>,
    /// The file it `extend`s, if any.
    extends: Option<PathBuf>,
    /// Hash of the configuration's text: with the yamllint configuration, the
    /// selected rules and the pins, what `Config::fingerprint` keys the cache by.
    text_hash: u64,
    include: Globs,
    exclude: Globs,
    /// Whether the files chart tools leave out are left out (`default-exclude`).
    default_exclude: Option<bool>,
    /// Every rule's default level and options.
    settings: RuleSettings,
    /// The settings of every file no `[[overrides]]` entry and no yamllint `ignore`
    /// singles out, built and read once (reset by whatever changes a layer).
    common: std::sync::OnceLock<Arc<RuleSettings>>,
    /// `[rules]`, with where each is written.
    rules: Vec<CompiledSetting>,
    overrides: Vec<(Globs, Vec<CompiledSetting>)>,
    /// The yamllint configuration the comment rules follow, where `tether.toml`
    /// does not set them.
    pub(crate) yamllint: Option<Arc<Yamllint>>,
    /// Whether `yamllint-config` named it (else it is the one found for the folder).
    pub(crate) yamllint_named: bool,
    /// `--select`: the only rules that run.
    selected: Option<Vec<RuleId>>,
    /// The rules `--ignore` turned off, by index in `RULES`.
    ignored: Vec<RuleId>,
    /// The `[[pin]]` entries, read.
    pub(crate) configured_pins: Vec<Pin>,
    /// `chart-paths`, absolute: folders of the repository its search leaves out
    /// (git ignores them), where chart dependencies are looked for beyond
    /// `charts/` and the repository.
    pub(crate) chart_paths: Vec<PathBuf>,
    pub(crate) require: Vec<Require>,
    pub(crate) idem: Vec<IdemTarget>,
    /// `idem-packages`: the folders whose own configuration's `[[idem]]` entries
    /// `tether idem` runs from this one.
    idem_packages: Globs,
    /// Comments addressed to tools, which document no key.
    pub(crate) directives: Directives,
    /// `[snapshot] dir`, absolute.
    pub(crate) snapshot_dir: PathBuf,
}

impl Config {
    /// The configuration when there is no file: defaults, paths relative to `root`.
    pub fn default_for(root: PathBuf) -> Config {
        Config {
            snapshot_dir: root.join(DEFAULT_SNAPSHOT_DIR),
            root,
            file: None,
            extends: None,
            text_hash: 0,
            include: Globs::new(default_include()),
            exclude: Globs::default(),
            default_exclude: None,
            settings: rules::default_settings(),
            common: std::sync::OnceLock::new(),
            rules: Vec::new(),
            overrides: Vec::new(),
            yamllint: None,
            yamllint_named: false,
            selected: None,
            ignored: Vec::new(),
            configured_pins: Vec::new(),
            chart_paths: Vec::new(),
            require: Vec::new(),
            idem: Vec::new(),
            idem_packages: Globs::default(),
            directives: Directives::default(),
        }
    }

    /// The configuration for `path` (a file or a folder): the nearest `tether.toml`
    /// in its folder or above, or the defaults with paths relative to that folder when
    /// there is none.
    ///
    /// ```
    /// let config = helm_tether::Config::discover("examples/kubevirt/templates/kubevirt-cr.yaml").unwrap();
    /// assert!(config.file().unwrap().ends_with("examples/kubevirt/tether.toml"));
    /// ```
    pub fn discover(path: impl AsRef<Path>) -> Result<Config, crate::error::Error> {
        let path = path.as_ref();
        let start = if path.is_file() {
            path.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            path.to_path_buf()
        };
        let start = crate::paths::absolute(&start);
        match Config::find(&start) {
            Some(found) => Ok(Config::load(&found)?),
            None => Ok(Config::default_for(start)),
        }
    }

    /// A configuration from the text of a `tether.toml`, with paths relative to the
    /// working directory. An error names the line and column.
    ///
    /// ```
    /// let error = helm_tether::Config::from_toml("[rules]\nrequired-coment = \"error\"\n").unwrap_err();
    /// assert!(error.to_string().contains("did you mean `required-comment`"), "{error}");
    /// ```
    pub fn from_toml(text: &str) -> Result<Config, crate::error::Error> {
        let root = crate::paths::absolute(Path::new("."));
        Config::from_toml_in(text, root)
    }

    /// [`Config::from_toml`] with paths relative to `root`, as if the file were there.
    pub fn from_toml_in(
        text: &str,
        root: impl Into<PathBuf>,
    ) -> Result<Config, crate::error::Error> {
        let root = root.into();
        let mut config = Config::parse(text, &root.join(FILE_NAME), root)?;
        config.file = None;
        Ok(config)
    }

    /// The folder the configuration's paths and globs are relative to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The `tether.toml` this came from; `None` for defaults and [`Config::from_toml`].
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The `tether.toml` this one `extend`s (directly), if any.
    pub fn extends(&self) -> Option<&Path> {
        self.extends.as_deref()
    }

    /// The `[[idem]]` entries.
    pub fn idem_targets(&self) -> &[IdemTarget] {
        &self.idem
    }

    /// Whether `idem-packages` names `folder` (absolute), so that the `[[idem]]`
    /// entries of its own configuration run with this one's. Read where commands
    /// run, on Unix only.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) fn idem_package(&self, folder: &Path) -> bool {
        folder
            .strip_prefix(&self.root)
            .is_ok_and(|relative| self.idem_packages.is_match(relative))
    }

    /// The folder `tether snapshot` keeps its snapshots in: `[snapshot] dir`, by
    /// default `snapshots/` beside `tether.toml`.
    pub fn snapshot_dir(&self) -> &Path {
        &self.snapshot_dir
    }

    /// A commented starter `tether.toml`, as `tether init` writes it.
    pub fn starter_toml() -> String {
        starter()
    }

    /// The starter `tether.toml` for `folder`, as `tether init FOLDER` writes it: it
    /// also states which yamllint or chart-testing configuration the comment rules
    /// inherit there, and names one with `yamllint-config` when it sits where
    /// chart-testing setups keep it (`.github/configs/lintconf.yaml`).
    pub fn starter_toml_in(folder: impl AsRef<Path>) -> String {
        let folder = crate::paths::absolute(folder.as_ref());
        let above = folder.parent().and_then(Config::find);
        starter_in(&folder, above.as_deref())
    }

    /// The JSON schema of `tether.toml`, for editors.
    pub fn json_schema() -> String {
        json_schema()
    }

    /// Finds `tether.toml` in `start` or the nearest folder above it.
    pub fn find(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .map(|folder| folder.join(FILE_NAME))
            // Anything by that name counts: a folder or FIFO named tether.toml is an
            // error when it is read, never silently skipped.
            .find(|candidate| std::fs::symlink_metadata(candidate).is_ok())
    }

    /// Reads and compiles a configuration file, and the files it `extend`s.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::load_extending(path, &mut Vec::new())
    }

    /// Compiles configuration text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path, root: PathBuf) -> Result<Config, ConfigError> {
        Config::parse_extending(text, path, root, &mut Vec::new())
    }

    pub(super) fn parse_extending(
        text: &str,
        path: &Path,
        root: PathBuf,
        chain: &mut Vec<PathBuf>,
    ) -> Result<Config, ConfigError> {
        let errors = ErrorContext::new(text, path);
        let file = read_file(text, &errors)?;
        let include = Globs::new(match &file.include {
            Some(globs) => compile_globs(globs, "include", &errors)?,
            None => default_include(),
        });
        let exclude = Globs::new(compile_globs(&file.exclude, "exclude", &errors)?);
        let rules = compile_rules(&file.rules, "[rules]", &errors)?;
        let mut overrides = Vec::new();
        for entry in &file.overrides {
            let files = compile_globs(&entry.files, "overrides.files", &errors)?;
            overrides.push((
                Globs::new(files),
                compile_rules(&entry.rules, "[[overrides]]", &errors)?,
            ));
        }
        let yamllint = match &file.yamllint_config {
            Some(named) => Some(compile_yamllint(named, &root, &errors)?),
            None => None,
        };
        // Each entry names its file absolutely, so a finding can say where it is written
        // from wherever the user stands (the run shows it from there).
        let written_in = crate::paths::slashed(&crate::paths::absolute(path));
        let mut require = compile_requires(&file.require, &errors)?;
        for entry in &mut require {
            entry.file = written_in.clone();
        }
        let snapshot_dir = match &file.snapshot.dir {
            Some(dir) => compile_snapshot_dir(dir, &root, &errors)?,
            None => root.join(DEFAULT_SNAPSHOT_DIR),
        };
        let configured_pins = compile_pins(&file.pin, &root, &errors)?;
        let mut idem = Vec::new();
        for entry in &file.idem {
            if entry.get_ref().files.is_empty() {
                return Err(errors.at(
                    entry.span().start..entry.span().start,
                    "`[[idem]]` needs `files`: the globs of the files the command regenerates, relative to its `dir`, e.g. files = [\"templates/*.yaml\", \"values.yaml\"]; tether compares those, byte for byte, before and after the command".into(),
                ));
            }
            idem.extend(compile_idem(entry.get_ref(), &root, &errors)?);
        }
        let chart_paths = compile_chart_paths(&file.chart_paths, &root, &errors)?;
        let idem_packages = Globs::new(compile_globs(
            &file.idem_packages,
            "idem-packages",
            &errors,
        )?);
        let config = Config {
            root,
            file: Some(path.to_path_buf()),
            extends: None,
            text_hash: xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
            include,
            exclude,
            default_exclude: file.default_exclude,
            settings: rules::default_settings(),
            common: std::sync::OnceLock::new(),
            rules,
            overrides,
            yamllint_named: yamllint.is_some(),
            yamllint,
            selected: None,
            ignored: Vec::new(),
            configured_pins,
            chart_paths,
            require,
            idem,
            idem_packages,
            directives: Directives::with_extra(file.directives.clone()),
            snapshot_dir,
        };
        match &file.extend {
            None => Ok(config),
            Some(named) => {
                let parent = Config::load_extended(named, path, &config.root, chain, &errors)?;
                Ok(config.extending(parent, file.include.is_some()))
            }
        }
    }

    /// This configuration on top of `parent`, the one it extends: the parent's
    /// globs keep meaning what they say in its folder, its lists of entries come
    /// first, and what this file sets replaces what the parent sets.
    fn extending(mut self, parent: Config, own_include: bool) -> Config {
        self.common = std::sync::OnceLock::new();
        self.extends = parent.file.clone();
        let offset = crate::paths::relative_path(&self.root, &parent.root);
        if !own_include {
            self.include = parent.include.rebased(&offset);
        }
        self.default_exclude = self.default_exclude.or(parent.default_exclude);
        let mut exclude = parent.exclude.rebased(&offset);
        exclude.extend(std::mem::take(&mut self.exclude));
        self.exclude = exclude;
        self.rules = parent.rules.into_iter().chain(self.rules).collect();
        self.overrides = parent
            .overrides
            .into_iter()
            .map(|(files, rules)| (files.rebased(&offset), rules))
            .chain(self.overrides)
            .collect();
        if !self.yamllint_named && parent.yamllint_named {
            self.yamllint = parent.yamllint;
            self.yamllint_named = true;
        }
        self.configured_pins = parent
            .configured_pins
            .into_iter()
            .chain(self.configured_pins)
            .collect();
        self.chart_paths = parent
            .chart_paths
            .into_iter()
            .chain(self.chart_paths)
            .collect();
        self.require = parent
            .require
            .into_iter()
            .map(|mut require| {
                require.files = require.files.rebased(&offset);
                require
            })
            .chain(self.require)
            .collect();
        self.idem = parent.idem.into_iter().chain(self.idem).collect();
        let mut idem_packages = parent.idem_packages.rebased(&offset);
        idem_packages.extend(std::mem::take(&mut self.idem_packages));
        self.idem_packages = idem_packages;
        self.directives = parent.directives.extended(&self.directives);
        self.text_hash = crate::cache_key::CacheKey::new("extending")
            .part("own", self.text_hash)
            .part("extended", parent.text_hash)
            .finish();
        self
    }

    /// Runs only the rules `names` (as `--select`): each at its configured level, or
    /// `warn` where it is off; every other rule off, overrides included.
    pub fn select(&mut self, names: &[String]) -> Result<(), crate::error::Error> {
        self.select_rules(names)
            .map_err(crate::error::Error::RuleName)
    }

    /// Turns the rules `names` off (as `--ignore`), overrides included; `read-error`
    /// and `finding-limit` cannot be.
    pub fn ignore(&mut self, names: &[String]) -> Result<(), crate::error::Error> {
        self.ignore_rules(names)
            .map_err(crate::error::Error::RuleName)
    }

    pub(crate) fn ignore_rules(
        &mut self,
        names: &[String],
    ) -> Result<(), crate::error::RuleNameError> {
        for name in names {
            let id =
                RuleId::from_name(name).ok_or_else(|| rules::unknown_rule(name, " in --ignore"))?;
            if id.always_on() {
                return Err(crate::error::RuleNameError::AlwaysOn { name: name.clone() });
            }
            if !self.ignored.contains(&id) {
                self.ignored.push(id);
            }
        }
        self.ignored.sort_unstable();
        self.common = std::sync::OnceLock::new();
        Ok(())
    }

    pub(crate) fn select_rules(
        &mut self,
        names: &[String],
    ) -> Result<(), crate::error::RuleNameError> {
        let mut selected = Vec::new();
        for name in names {
            let rule =
                RuleId::from_name(name).ok_or_else(|| rules::unknown_rule(name, " in --select"))?;
            selected.push(rule);
        }
        for (_, rules) in &mut self.overrides {
            rules.retain(|(rule, ..)| selected.contains(rule));
        }
        self.selected = Some(selected);
        self.common = std::sync::OnceLock::new();
        Ok(())
    }

    /// What cached findings of this configuration depend on: its text, its
    /// yamllint configuration, the rules `--select` chose and `--ignore` left out,
    /// and the pins of its repository (`pins`: their fingerprint, if read).
    pub(crate) fn fingerprint(&self, pins: Option<u64>) -> u64 {
        let ignored = (!self.ignored.is_empty()).then(|| {
            let mut key = CacheKey::new("ignored");
            for &rule in &self.ignored {
                key.add("rule", rule as u64);
            }
            key.finish()
        });
        let selected = self.selected.as_ref().map(|selected| {
            let mut key = CacheKey::new("selected");
            for &rule in selected {
                key.add("rule", rule as u64);
            }
            key.finish()
        });
        CacheKey::new("configuration")
            .part("text", self.text_hash)
            .optional(
                "yamllint",
                self.yamllint.as_ref().map(|yamllint| yamllint.fingerprint),
            )
            .optional("selected", selected)
            .optional("ignored", ignored)
            .optional("pins", pins)
            .finish()
    }

    /// A note when this `tether.toml` replaces one above it that has `[[require]]`
    /// or `[[idem]]` entries, which then do not apply below it: a nested
    /// configuration stands alone unless it says `extend`.
    pub(crate) fn shadowing_note(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        if self.extends.is_some() {
            return None;
        }
        let above = Config::find(self.root.parent()?)?;
        let parent = Config::load(&above).ok()?;
        let mut dropped = Vec::new();
        for (count, what) in [
            (parent.require.len(), "[[require]]"),
            (parent.idem.len(), "[[idem]]"),
        ] {
            match count {
                0 => {}
                1 => dropped.push(format!("1 {what} entry")),
                _ => dropped.push(format!("{count} {what} entries")),
            }
        }
        if dropped.is_empty() {
            return None;
        }
        let cwd = crate::paths::absolute(Path::new("."));
        let shown = |path: &Path| {
            crate::paths::slashed(&crate::paths::relative_path(
                &crate::paths::absolute(path),
                &cwd,
            ))
        };
        Some(format!(
            "{} replaces {} for the files below it, so its {} do not apply there; to keep them, add `extend = {:?}` to {}",
            shown(file),
            shown(&above),
            dropped.join(" and "),
            crate::paths::slashed(&crate::paths::relative_path(&above, &self.root)),
            shown(file),
        ))
    }

    /// Whether a file (relative to [`Config::root`]) is to be checked.
    pub fn includes(&self, relative: &Path) -> bool {
        self.exclusion(relative).is_none()
    }

    /// The setting that leaves a file (relative to [`Config::root`]) out, as the
    /// summary names it; `None` when the file is checked.
    pub(crate) fn exclusion(&self, relative: &Path) -> Option<String> {
        self.exclusion_probing(relative, &mut super::tables::holds_chart_yaml)
    }

    /// [`Config::exclusion`], asking `is_chart` whether a folder holds a
    /// `Chart.yaml` (`default-exclude` leaves out what is vendored under a chart's
    /// `charts/`): a walk asks its memo, once per folder.
    pub(crate) fn exclusion_probing(
        &self,
        relative: &Path,
        is_chart: &mut dyn FnMut(&Path) -> bool,
    ) -> Option<String> {
        let written = |setting: &str| match &self.file {
            Some(file) => format!(
                "`{setting}` in {}",
                crate::paths::slashed(&crate::paths::relative_path(
                    file,
                    &std::env::current_dir().unwrap_or_default()
                ))
            ),
            None => format!("the default `{setting}`"),
        };
        if !self.include.is_match(relative) {
            Some(written("include"))
        } else if self.exclude.is_match(relative) {
            Some(written("exclude"))
        } else if self.default_exclude != Some(false)
            && self.left_out_by_default(relative, is_chart)
        {
            Some("`default-exclude`".into())
        } else {
            None
        }
    }

    /// Whether files chart tools leave out are left out (`default-exclude`, on unless
    /// set to `false`): also what tether knows only by its content, `helm template`
    /// output.
    pub(crate) fn leaves_out_generated(&self) -> bool {
        self.default_exclude != Some(false)
    }

    /// Whether chart tools leave a file out (`default-exclude`): it belongs to a
    /// chart vendored under another chart's `charts/` folder, or it is a
    /// helm-unittest suite or a chart-testing values override.
    fn left_out_by_default(
        &self,
        relative: &Path,
        is_chart: &mut dyn FnMut(&Path) -> bool,
    ) -> bool {
        static TOOLS: std::sync::OnceLock<GlobSet> = std::sync::OnceLock::new();
        let tools = TOOLS.get_or_init(|| {
            let mut builder = GlobSetBuilder::new();
            for pattern in DEFAULT_EXCLUDE {
                if let Ok(glob) = GlobBuilder::new(pattern).literal_separator(true).build() {
                    builder.add(glob);
                }
            }
            builder.build().unwrap_or_else(|_| GlobSet::empty())
        });
        tools.is_match(relative)
            || super::tables::in_vendored_chart_probing(&self.root, relative, is_chart)
    }

    /// Whether the rule `name` may run on some file of this configuration: on by
    /// default or named by `[rules]` or an override, and not left out by
    /// `--select`. Cheap, and never `false` where the rule runs.
    pub(crate) fn may_run(&self, rule: RuleId) -> bool {
        if self.ignored.contains(&rule) {
            return false;
        }
        if let Some(selected) = &self.selected {
            return selected.contains(&rule);
        }
        self.settings.levels[rule].severity().is_some()
            || self.rules.iter().any(|(set, ..)| *set == rule)
            || self
                .overrides
                .iter()
                .any(|(_, rules)| rules.iter().any(|(set, ..)| *set == rule))
    }

    /// The rule settings for one file (relative to [`Config::root`]): the defaults,
    /// then the yamllint configuration, `[rules]`, `[[overrides]]` and `--select`,
    /// each later one winning where it speaks.
    ///
    /// Files that no `[[overrides]]` entry and no yamllint `ignore` singles out share
    /// one value, built and read into each rule's options type once.
    pub(crate) fn settings_for(&self, relative: &Path) -> Arc<RuleSettings> {
        if self.singles_out(relative) {
            return Arc::new(self.layered(Some(relative), None).sealed());
        }
        self.common
            .get_or_init(|| Arc::new(self.layered(None, None).sealed()))
            .clone()
    }

    /// Whether a layer speaks of `relative` alone: an `[[overrides]]` entry matches
    /// it, or the yamllint configuration ignores it.
    fn singles_out(&self, relative: &Path) -> bool {
        self.overrides
            .iter()
            .any(|(files, _)| files.is_match(relative))
            || self
                .yamllint
                .as_ref()
                .is_some_and(|yamllint| yamllint.ignores(&self.root.join(relative)))
    }

    /// [`Config::settings_for`], recording in `trace` where each setting came from.
    pub(crate) fn settings_traced(
        &self,
        relative: &Path,
        trace: Option<&mut Trace>,
    ) -> RuleSettings {
        self.layered(Some(relative), trace)
    }

    /// The layers applied in order; `relative: None` for a file no layer singles out.
    fn layered(&self, relative: Option<&Path>, mut trace: Option<&mut Trace>) -> RuleSettings {
        let mut settings = self.settings.clone();
        if let Some(trace) = trace.as_deref_mut() {
            for (rule, level) in settings.levels.iter() {
                trace.set(rule, "level", level.as_str(), "the rule's default");
            }
            for (rule, options) in settings.options.iter() {
                for (key, value) in options {
                    trace.set(rule, key, &value.to_string(), "the rule's default");
                }
            }
        }
        if let Some(yamllint) = &self.yamllint {
            let absolute = relative.map(|relative| self.root.join(relative));
            yamllint.apply(absolute.as_deref(), &mut settings, &mut trace);
        }
        for (rule, setting, origin) in &self.rules {
            apply(&mut settings, *rule, setting, origin, &mut trace);
        }
        for (files, rules) in &self.overrides {
            if relative.is_some_and(|relative| files.is_match(relative)) {
                for (rule, setting, origin) in rules {
                    apply(&mut settings, *rule, setting, origin, &mut trace);
                }
            }
        }
        if let Some(selected) = &self.selected {
            for (rule, level) in settings.levels.iter_mut() {
                let new = if rule.always_on() {
                    continue;
                } else if !selected.contains(&rule) {
                    Level::Off
                } else if *level == Level::Off {
                    Level::Warn
                } else {
                    continue;
                };
                *level = new;
                if let Some(trace) = trace.as_deref_mut() {
                    trace.set(rule, "level", new.as_str(), "--select");
                }
            }
        }
        for &rule in &self.ignored {
            settings.levels[rule] = Level::Off;
            if let Some(trace) = trace.as_deref_mut() {
                trace.set(rule, "level", "off", "--ignore");
            }
        }
        settings
    }

    /// This configuration with `yamllint` as the yamllint configuration of its files
    /// (unless `tether.toml` names one, which always wins).
    pub(crate) fn with_yamllint(&self, yamllint: Option<Arc<Yamllint>>) -> Config {
        let mut config = self.clone();
        if !config.yamllint_named {
            config.yamllint = yamllint;
            config.common = std::sync::OnceLock::new();
        }
        config
    }
}

fn apply(
    settings: &mut RuleSettings,
    rule: RuleId,
    setting: &RuleSetting,
    origin: &str,
    trace: &mut Option<&mut Trace>,
) {
    let mut record = |what: &str, value: String| {
        if let Some(trace) = trace.as_deref_mut() {
            trace.set(rule, what, &value, origin);
        }
    };
    match setting {
        RuleSetting::Level(level) => {
            settings.levels[rule] = *level;
            record("level", level.as_str().to_string());
        }
        RuleSetting::Table(level, options) => {
            if let Some(level) = level {
                settings.levels[rule] = *level;
                record("level", level.as_str().to_string());
            }
            for (key, value) in options {
                settings.options[rule].insert(key.clone(), value.clone());
                record(key, value.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files that no layer singles out share one settings value, read once; an
    /// override's file gets its own, with the override's options read.
    #[test]
    fn files_alike_share_settings_read_once() {
        let config = Config::from_toml(
            "[rules.inline-comment-spacing]\nmin-spaces = 3\n\
             [[overrides]]\nfiles = [\"special/*.yaml\"]\n\
             [overrides.rules.inline-comment-spacing]\nmin-spaces = 5\n",
        )
        .unwrap();
        let min_spaces = |settings: &RuleSettings| {
            settings
                .typed::<crate::rules::inline_comment_spacing::Options>(
                    RuleId::InlineCommentSpacing,
                )
                .min_spaces
        };
        let a = config.settings_for(Path::new("a/values.yaml"));
        let b = config.settings_for(Path::new("b/templates/x.yaml"));
        let special = config.settings_for(Path::new("special/values.yaml"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &special));
        assert!(matches!(
            a.typed::<crate::rules::inline_comment_spacing::Options>(RuleId::InlineCommentSpacing),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!((min_spaces(&a), min_spaces(&special)), (3, 5));
        // What `--select` changes is seen by the next file's settings.
        let mut selected = config.clone();
        selected
            .select_rules(&["comment-starting-space".to_string()])
            .unwrap();
        let narrowed = selected.settings_for(Path::new("a/values.yaml"));
        assert_eq!(narrowed.level(RuleId::InlineCommentSpacing), Level::Off);
        assert_eq!(a.level(RuleId::InlineCommentSpacing), Level::Warn);
    }
}
