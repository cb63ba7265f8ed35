//! [`Yamllint`]: a configuration read, its `extends` chain resolved, with yamllint's
//! defaults for the comment rules and its compiled `ignore` patterns.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::chain::{RuleValue, read_chain};
use super::inside::within;
use crate::analysis::small_yaml::Scalar;
use crate::error::ConfigError;
use crate::rules::rule::YamllintValue;

/// A yamllint configuration, its `extends` chain resolved, as far as tether's rules
/// are concerned.
#[derive(Debug)]
pub struct Yamllint {
    /// The file, absolute.
    pub path: PathBuf,
    /// How it was found, for `--show-settings`.
    pub found: String,
    /// Hash of the text of every file of the chain, for the findings cache.
    pub fingerprint: u64,
    /// Each yamllint rule a tether rule follows ([`followed`]), as the chain sets it.
    pub(super) rules: Vec<(&'static str, RuleConf)>,
    /// The top-level `ignore`: yamllint lints no file it matches.
    pub(super) ignore: Option<Ignore>,
}

/// One yamllint rule's state after `extends`.
#[derive(Debug, Clone)]
pub(super) struct RuleConf {
    /// `None`: disabled, or listed by no file of the chain.
    pub(super) options: Option<Vec<(String, Scalar, String)>>,
    /// Where it was enabled or disabled.
    pub(super) origin: String,
    pub(super) ignore: Option<Ignore>,
}

/// Compiled `ignore` patterns, matched against paths relative to `base`.
#[derive(Debug, Clone)]
pub(super) struct Ignore {
    matcher: Gitignore,
    base: PathBuf,
    pub(super) origin: String,
}

impl Ignore {
    pub(super) fn matches(&self, file: &Path) -> bool {
        file.strip_prefix(&self.base).is_ok_and(|relative| {
            self.matcher
                .matched_path_or_any_parents(relative, false)
                .is_ignore()
        })
    }
}

/// The yamllint rules tether's rules follow, each once, in the registry's order,
/// as each rule's `declare_rule!` declares it.
pub(super) fn followed() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for registered in crate::rules::RULES {
        if let Some(mapping) = registered.rule.yamllint() {
            if !names.contains(&mapping.rule) {
                names.push(mapping.rule);
            }
        }
    }
    names
}

/// The options of the yamllint rule `name` that tether's rules follow, with
/// yamllint's defaults, as the rules declare them.
fn defaults_of(name: &str) -> Vec<(&'static str, Scalar)> {
    let mut defaults: Vec<(&'static str, Scalar)> = Vec::new();
    for registered in crate::rules::RULES {
        let Some(mapping) = registered.rule.yamllint().filter(|m| m.rule == name) else {
            continue;
        };
        for option in mapping.options {
            if !defaults.iter().any(|(key, _)| *key == option.key) {
                defaults.push((option.key, scalar_of(option.default)));
            }
        }
    }
    defaults
}

/// A yamllint value as the chain reads values.
pub(super) fn scalar_of(value: YamllintValue) -> Scalar {
    match value {
        YamllintValue::Bool(value) => Scalar::Bool(value),
        YamllintValue::Int(value) => Scalar::Int(value),
    }
}

impl Yamllint {
    /// Reads `path` and the files it extends. `ignore` patterns match paths relative
    /// to `base`: the folder yamllint runs in for this file to apply, which is the
    /// file's own folder for a `.yamllint` (yamllint finds it from its working
    /// directory) and the repository's top for the file chart-testing passes.
    pub fn read(
        path: &Path,
        base: &Path,
        found: impl Into<String>,
    ) -> Result<Yamllint, ConfigError> {
        let base = crate::paths::absolute(base);
        // Only files of the repository are read: a committed `.yamllint` (or a link
        // named so) must not open `/proc/self/environ` or tell whether a key exists.
        let top = crate::paths::repository_top(&base).unwrap_or_else(|| base.clone());
        if !within(&top, path) {
            return Err(ConfigError::Invalid {
                path: path.display().to_string(),
                line: 1,
                column: 1,
                message: format!(
                    "this file leads outside {} (through a link); tether reads yamllint and chart-testing configurations only inside the repository it checks",
                    top.display()
                ),
            });
        }
        let path = crate::paths::absolute(path);
        let chain = read_chain(&path, 0, &mut Vec::new(), &top)?;
        let compile = |patterns: &[String], origin: String| -> Option<Ignore> {
            let mut builder = GitignoreBuilder::new(&base);
            for pattern in patterns {
                // A pattern gitignore cannot read matches nothing, as in yamllint.
                let _ = builder.add_line(None, pattern);
            }
            builder.build().ok().map(|matcher| Ignore {
                matcher,
                base: base.clone(),
                origin,
            })
        };
        let rule = |name: &str| -> RuleConf {
            match chain.rules.iter().rev().find(|(rule, ..)| rule == name) {
                None => RuleConf {
                    options: None,
                    origin: format!(
                        "{} lists no `{name}` rule and extends no configuration that does, so yamllint does not run it",
                        path.display()
                    ),
                    ignore: None,
                },
                Some((_, RuleValue::Disabled, origin)) => RuleConf {
                    options: None,
                    origin: format!("`{name}: disable` in {origin}"),
                    ignore: None,
                },
                Some((_, RuleValue::Table(options, ignore), origin)) => {
                    let file = origin.rsplit_once(':').map_or(origin.as_str(), |(f, _)| f);
                    let mut set: Vec<(String, Scalar, String)> = options
                        .iter()
                        .map(|(key, value, line)| {
                            (
                                key.clone(),
                                value.clone(),
                                format!("`{name}.{key}` in {file}:{line}"),
                            )
                        })
                        .collect();
                    for (key, value) in defaults_of(name) {
                        if !set.iter().any(|(k, ..)| k == key) {
                            set.push((
                                key.into(),
                                value,
                                format!("yamllint's default for `{name}.{key}`"),
                            ));
                        }
                    }
                    RuleConf {
                        options: Some(set),
                        origin: format!("`{name}` in {origin}"),
                        ignore: ignore.as_ref().and_then(|(patterns, line)| {
                            compile(patterns, format!("`{name}.ignore` in {file}:{line}"))
                        }),
                    }
                }
            }
        };
        let rules = followed()
            .into_iter()
            .map(|name| (name, rule(name)))
            .collect();
        let ignore = chain
            .ignore
            .as_ref()
            .and_then(|(patterns, origin)| compile(patterns, format!("`ignore` in {origin}")));
        Ok(Yamllint {
            path,
            found: found.into(),
            fingerprint: chain.fingerprint,
            rules,
            ignore,
        })
    }

    /// Whether an `ignore` of this configuration (the top-level one, or one of
    /// the comment rules') matches the file at `absolute`.
    pub fn ignores(&self, absolute: &Path) -> bool {
        std::iter::once(&self.ignore)
            .chain(self.rules.iter().map(|(_, conf)| &conf.ignore))
            .flatten()
            .any(|ignore| ignore.matches(absolute))
    }
}
