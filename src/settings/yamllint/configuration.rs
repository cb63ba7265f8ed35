//! [`Yamllint`]: a configuration read, its `extends` chain resolved, with yamllint's
//! defaults for the comment rules and its compiled `ignore` patterns.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::chain::{RuleValue, read_chain};
use super::inside::within;
use crate::analysis::small_yaml::Scalar;
use crate::error::ConfigError;

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
    pub(super) comments: RuleConf,
    pub(super) indentation: RuleConf,
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

/// The options of yamllint's `comments` rule and their defaults.
const COMMENTS_DEFAULTS: [(&str, Scalar); 3] = [
    ("require-starting-space", Scalar::Bool(true)),
    ("ignore-shebangs", Scalar::Bool(true)),
    ("min-spaces-from-content", Scalar::Int(2)),
];

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
                    if name == "comments" {
                        for (key, value) in COMMENTS_DEFAULTS {
                            if !set.iter().any(|(k, ..)| k == key) {
                                set.push((
                                    key.into(),
                                    value,
                                    format!("yamllint's default for `comments.{key}`"),
                                ));
                            }
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
        let comments = rule("comments");
        let indentation = rule("comments-indentation");
        let ignore = chain
            .ignore
            .as_ref()
            .and_then(|(patterns, origin)| compile(patterns, format!("`ignore` in {origin}")));
        Ok(Yamllint {
            path,
            found: found.into(),
            fingerprint: chain.fingerprint,
            comments,
            indentation,
            ignore,
        })
    }

    /// Whether an `ignore` of this configuration (the top-level one, or one of
    /// the comment rules') matches the file at `absolute`.
    pub fn ignores(&self, absolute: &Path) -> bool {
        [
            &self.ignore,
            &self.comments.ignore,
            &self.indentation.ignore,
        ]
        .into_iter()
        .flatten()
        .any(|ignore| ignore.matches(absolute))
    }
}
