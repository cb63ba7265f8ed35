//! Compiling the tables of a `tether.toml` one by one: its `[[require]]` entries
//! (globs, key patterns, bounded regexes), `[rules]` and `[[overrides]]`, `[[pin]]`,
//! `[snapshot]`, `chart-paths` and the yamllint configuration it names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::globs::Globs;
use toml::Spanned;

use crate::analysis::pins::Pin;
use crate::error::ConfigError;
use crate::key_pattern::KeyPattern;
use crate::rules::{self, Level, Require, RuleId};
use crate::settings::compile::{
    ErrorContext, compile_globs, inside, outside_message, stays_inside,
};
use crate::settings::config_file::{ConfigFile, FILE_NAME, PinEntry, RequireEntry, RuleSetting};
use crate::settings::yamllint::Yamllint;

/// What one `matches` regex may take once compiled, and again for its lazy DFA: a
/// hostile `tether.toml` cannot make tether allocate gigabytes for its regexes.
pub const REGEX_SIZE_LIMIT: usize = 256 * 1024;

/// How many `matches` regexes a configuration may hold in all, so their memory stays
/// under 2 × 256 KiB × 512 = 256 MiB whatever the file holds.
pub const MAX_REGEXES: usize = 512;

pub(super) const DEFAULT_INCLUDE: [&str; 3] = ["**/*.yaml", "**/*.yml", "**/*.tpl"];

/// What `default-exclude` leaves out by name: helm-unittest suites and
/// chart-testing's value overrides.
pub(super) const DEFAULT_EXCLUDE: [&str; 4] = [
    "**/tests/*_test.yaml",
    "**/tests/*_test.yml",
    "**/ci/*-values.yaml",
    "**/ci/*-values.yml",
];

/// The configuration's text read as TOML, with the help a reader needs where the
/// parser's message alone does not say what to write.
pub(super) fn read_file(text: &str, errors: &ErrorContext) -> Result<ConfigFile, ConfigError> {
    if let Some(offset) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        .map(|(offset, _)| offset)
    {
        let code = text[offset..].chars().next().map_or(0, |c| c as u32);
        return Err(errors.at(
            offset..offset,
            format!("control character U+{code:04X} is not allowed in TOML, not even in a comment; remove it"),
        ));
    }
    toml::from_str(text).map_err(|error| {
        let span = error.span().unwrap_or(0..0);
        let mut message = error.message().trim_end_matches('\n').to_string();
        if message.contains("expected a sequence") {
            message.push_str("; write a list, such as [\"charts/**\"]");
        }
        if message.contains("duplicate key") {
            message.push_str(
                "; set a rule once: either `NAME = \"warn\"` under [rules], or a table [rules.NAME] with `level = \"warn\"` and the rule's options",
            );
        }
        errors.at(span, message)
    })
}

/// `yamllint-config`: the file it names, inside the repository, read.
pub(super) fn compile_yamllint(
    named: &Spanned<String>,
    root: &Path,
    errors: &ErrorContext,
) -> Result<Arc<Yamllint>, ConfigError> {
    let target = root.join(named.get_ref());
    if named.get_ref().is_empty() || !target.is_file() {
        return Err(errors.at(
            named.span(),
            format!(
                "`yamllint-config` names {:?}, which is not a file; write its path relative to this file's folder, such as \".github/configs/lintconf.yaml\"",
                named.get_ref()
            ),
        ));
    }
    let top = crate::paths::repository_top(root).unwrap_or_else(|| root.to_path_buf());
    if !inside(&target, &top) {
        return Err(errors.at(
            named.span(),
            outside_message("yamllint-config", named.get_ref(), &top),
        ));
    }
    Ok(Arc::new(Yamllint::read(
        &target,
        &top,
        format!(
            "`yamllint-config` in {}:{}",
            errors.path.display(),
            errors.line_of(&named.span())
        ),
    )?))
}

/// The `[[require]]` entries, with a bound on their regular expressions in all.
pub(super) fn compile_requires(
    entries: &[RequireEntry],
    errors: &ErrorContext,
) -> Result<Vec<Require>, ConfigError> {
    if let Some(pattern) = entries
        .iter()
        .flat_map(|entry| entry.matches.iter())
        .nth(MAX_REGEXES)
    {
        return Err(errors.at(
            pattern.span(),
            format!(
                "more than {MAX_REGEXES} `matches` regexes in all; no configuration needs that many, so tether refuses it"
            ),
        ));
    }
    entries
        .iter()
        .map(|entry| compile_require(entry, errors))
        .collect()
}

/// `[snapshot] dir`: a folder inside the configuration's, absolute.
pub(super) fn compile_snapshot_dir(
    dir: &Spanned<String>,
    root: &Path,
    errors: &ErrorContext,
) -> Result<PathBuf, ConfigError> {
    let relative = Path::new(dir.get_ref());
    if dir.get_ref().is_empty() || !stays_inside(relative) {
        return Err(errors.at(
            dir.span(),
            format!("snapshot `dir` {:?} is not a folder inside this file's folder; write a relative path without `..`, such as \"snapshots\"", dir.get_ref()),
        ));
    }
    Ok(root.join(relative))
}

/// The `[[pin]]` entries, each read from its file inside the repository.
pub(super) fn compile_pins(
    entries: &[PinEntry],
    root: &Path,
    errors: &ErrorContext,
) -> Result<Vec<Pin>, ConfigError> {
    let mut pins = Vec::new();
    for entry in entries {
        let regex = regex::RegexBuilder::new(entry.regex.get_ref())
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|error| errors.at(entry.regex.span(), format!("invalid `regex`: {error}")))?;
        let relative = Path::new(entry.file.get_ref());
        let top = crate::paths::repository_top(root).unwrap_or_else(|| root.to_path_buf());
        if !inside(&root.join(relative), &top) {
            return Err(errors.at(
                entry.file.span(),
                outside_message("[[pin]] file", entry.file.get_ref(), &top),
            ));
        }
        let pin = crate::analysis::pins::configured_pin(
            entry.name.get_ref(),
            &root.join(relative),
            relative,
            &regex,
        )
        .map_err(|message| {
            errors.at(
                entry.file.span(),
                format!("pin `{}`: {message}", entry.name.get_ref()),
            )
        })?;
        pins.push(pin);
    }
    Ok(pins)
}

/// `chart-paths`: folders inside the repository that exist, links resolved. A pull
/// request's `tether.toml` may name any folder (`/`): one outside the repository is
/// refused before anything out there is looked at, with one message whether or not
/// it exists, so the run never walks or reads it.
pub(super) fn compile_chart_paths(
    entries: &[Spanned<String>],
    root: &Path,
    errors: &ErrorContext,
) -> Result<Vec<PathBuf>, ConfigError> {
    let mut chart_paths = Vec::new();
    let top = crate::paths::repository_top(root).unwrap_or_else(|| root.to_path_buf());
    for entry in entries {
        let folder = match crate::paths::confine(&root.join(entry.get_ref()), &top) {
            crate::paths::Confined::Inside(folder) if folder.is_dir() => folder,
            crate::paths::Confined::Outside => {
                return Err(errors.at(
                    entry.span(),
                    format!(
                        "`chart-paths` entry {:?} is outside the repository ({}); tether reads only the repository it checks: check the charts out inside it (a git submodule, or a folder your CI fills) and name that folder",
                        entry.get_ref(),
                        top.display()
                    ),
                ));
            }
            _ => {
                return Err(errors.at(
                    entry.span(),
                    format!(
                        "`chart-paths` entry {:?} is not a folder (from {}); check out the charts it names there, or remove the entry",
                        entry.get_ref(),
                        root.display()
                    ),
                ));
            }
        };
        chart_paths.push(folder);
    }
    Ok(chart_paths)
}

pub(super) fn default_include() -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for pattern in DEFAULT_INCLUDE {
        if let Ok(glob) = GlobBuilder::new(pattern).literal_separator(true).build() {
            builder.add(glob);
        }
    }
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

/// A rule setting of `tether.toml`: the rule, the setting, and where it is written
/// (for `--show-settings`).
pub(crate) type CompiledSetting = (RuleId, RuleSetting, String);

pub(super) fn compile_rules(
    rules: &BTreeMap<Spanned<String>, RuleSetting>,
    table: &str,
    errors: &ErrorContext,
) -> Result<Vec<CompiledSetting>, ConfigError> {
    let mut compiled = Vec::new();
    for (name, setting) in rules {
        let Some(id) = RuleId::from_name(name.get_ref()) else {
            return Err(errors.at(
                name.span(),
                rules::unknown_rule(name.get_ref(), "").to_string(),
            ));
        };
        let level = match setting {
            RuleSetting::Level(level) | RuleSetting::Table(Some(level), _) => Some(*level),
            RuleSetting::Table(None, _) => None,
        };
        if level == Some(Level::Off) && id.always_on() {
            return Err(errors.at(
                name.span(),
                format!(
                    "rule `{}` cannot be off: a run that hid it would pass what it never read or showed; `exclude` the files in tether.toml instead",
                    name.get_ref()
                ),
            ));
        }
        if let RuleSetting::Table(_, options) = setting {
            let rule = id.registered().rule;
            if let Some(option) = options
                .keys()
                .next()
                .filter(|_| rule.default_options().is_empty())
            {
                return Err(errors.at(
                    name.span(),
                    format!(
                        "rule `{}` takes no option `{option}`; write only `level` in its table",
                        rule.name()
                    ),
                ));
            }
            rule.check_options(options).map_err(|message| {
                errors.at(
                    name.span(),
                    format!(
                        "rule `{}`: {message}; `tether rules {}` lists its options",
                        rule.name(),
                        rule.name()
                    ),
                )
            })?;
        }
        let origin = format!(
            "{} in {}:{}",
            table,
            errors.path.display(),
            errors.line_of(&name.span())
        );
        compiled.push((id, setting.clone(), origin));
    }
    Ok(compiled)
}

pub(super) fn compile_require(
    entry: &RequireEntry,
    errors: &ErrorContext,
) -> Result<Require, ConfigError> {
    if entry.files.is_empty() {
        return Err(errors.at(
            entry.key.span(),
            "`[[require]]` needs `files`: the globs of the files it covers, e.g. files = [\"templates/*.yaml\"]".into(),
        ));
    }
    let files = compile_globs(&entry.files, "require.files", errors)?;
    let key = KeyPattern::parse(entry.key.get_ref()).map_err(|message| {
        errors.at(
            entry.key.span(),
            format!(
                "invalid key pattern {:?}: {message}; write a path such as \"spec.template.spec.containers[*].name\"",
                entry.key.get_ref()
            ),
        )
    })?;
    let mut matches = Vec::new();
    for pattern in &entry.matches {
        let regex = regex::RegexBuilder::new(pattern.get_ref())
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|error| {
            if let regex::Error::CompiledTooBig(limit) = error {
                return errors.at(
                    pattern.span(),
                    format!(
                        "regex {:?} in `matches` is too large once compiled (over {} KiB); write a shorter pattern",
                        pattern.get_ref(),
                        limit / 1024
                    ),
                );
            }
            let reason = error
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .trim_start_matches("error: ")
                .to_string();
            errors.at(
                pattern.span(),
                format!(
                    "invalid regex {:?} in `matches`: {reason}; write a Rust regular expression (https://docs.rs/regex/latest/regex/#syntax), escaping `\\\\` in TOML strings or using '…' literal strings",
                    pattern.get_ref()
                ),
            )
        })?;
        matches.push(regex);
    }
    Ok(Require {
        files: Globs::new(files),
        key,
        kind: entry.kind.clone(),
        placement: entry.placement,
        matches,
        message: entry.message.clone(),
        file: FILE_NAME.to_string(),
        line: errors.line_of(&entry.key.span()),
    })
}

/// Whether `relative` (a file below `root`) belongs to a chart vendored under
/// another chart's `charts/` folder (`<chart>/charts/<dependency>/…`, a `charts`
/// folder beside a `Chart.yaml`): another project's files.
#[cfg_attr(not(unix), allow(dead_code))] // Only `idem`, which is Unix-only, asks.
pub(crate) fn in_vendored_chart(root: &Path, relative: &Path) -> bool {
    in_vendored_chart_probing(root, relative, &mut holds_chart_yaml)
}

/// Whether `folder` holds an entry named `Chart.yaml` (any kind, a link not
/// followed): what makes a `charts/` beside it a chart's, for `default-exclude`.
pub(crate) fn holds_chart_yaml(folder: &Path) -> bool {
    std::fs::symlink_metadata(folder.join("Chart.yaml")).is_ok()
}

/// [`in_vendored_chart`], asking `is_chart` whether a folder holds a `Chart.yaml`
/// (a walk over many files asks a memo, not the disk, for each).
pub(crate) fn in_vendored_chart_probing(
    root: &Path,
    relative: &Path,
    is_chart: &mut dyn FnMut(&Path) -> bool,
) -> bool {
    let mut folder = root.to_path_buf();
    let mut components = relative.components().peekable();
    while let Some(component) = components.next() {
        if components.peek().is_none() {
            break;
        }
        if component.as_os_str() == "charts" && components.peek().is_some() && is_chart(&folder) {
            return true;
        }
        folder.push(component);
    }
    false
}
