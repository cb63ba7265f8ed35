//! A yamllint configuration's `extends` chain, read and merged as yamllint's
//! `config.py` merges it, as far as the comment rules go.

use std::path::{Path, PathBuf};

use super::inside::{outside, within};
use crate::analysis::small_yaml::{Node, Scalar, Value, load};
use crate::error::ConfigError;

/// `extends` chains deeper than this are refused (and so are loops).
const MAX_EXTENDS: usize = 8;

/// yamllint's `default` configuration, as far as the comment rules go.
fn builtin_default() -> Vec<(String, RuleValue)> {
    vec![
        ("comments".into(), RuleValue::Table(Vec::new(), None)),
        (
            "comments-indentation".into(),
            RuleValue::Table(Vec::new(), None),
        ),
    ]
}

/// A rule's entry in one file: `disable`, or a table of options (`enable` is an
/// empty one) with its `ignore`.
#[derive(Debug, Clone)]
pub(super) enum RuleValue {
    Disabled,
    Table(Vec<(String, Scalar, usize)>, Option<(Vec<String>, usize)>),
}

/// What the chain says, before defaults.
pub(super) struct Chain {
    pub(super) rules: Vec<(String, RuleValue, String)>,
    pub(super) ignore: Option<(Vec<String>, String)>,
    pub(super) fingerprint: u64,
}

/// Reads one file of an `extends` chain and what it extends, merged as yamllint's
/// `YamlLintConfig.extend` merges them.
pub(super) fn read_chain(
    path: &Path,
    depth: usize,
    seen: &mut Vec<PathBuf>,
    top: &Path,
) -> Result<Chain, ConfigError> {
    let (document, hash) = load(path)?;
    let shown = path.display().to_string();
    let invalid = |node: &Node, message: String| ConfigError::Invalid {
        path: shown.clone(),
        line: node.line.max(1),
        column: 1,
        message,
    };
    if !matches!(document.value, Value::Map(_)) {
        return Err(invalid(
            &document,
            "a yamllint configuration is a mapping (`extends:`, `rules:`); this file is not one"
                .into(),
        ));
    }
    seen.push(path.to_path_buf());
    let mut chain = match document.get("extends") {
        None => Chain {
            rules: Vec::new(),
            ignore: None,
            fingerprint: 0,
        },
        Some(extends) => {
            let Some(name) = extends.as_str() else {
                return Err(invalid(
                    extends,
                    "`extends` names a configuration: `default`, `relaxed` or a file".into(),
                ));
            };
            match name {
                "default" | "relaxed" => builtin_chain(name),
                file => {
                    let base = extended_file(path, file, top)
                        .map_err(|message| invalid(extends, message))?;
                    if depth >= MAX_EXTENDS || seen.contains(&base) {
                        return Err(invalid(
                            extends,
                            format!(
                                "`extends: {file}` loops or goes deeper than {MAX_EXTENDS} files"
                            ),
                        ));
                    }
                    read_chain(&base, depth + 1, seen, top)?
                }
            }
        }
    };
    chain.fingerprint = crate::cache_key::CacheKey::new("yamllint")
        .part("extended", chain.fingerprint)
        .part("file", hash)
        .finish();
    if let Some(rules) = document.get("rules") {
        let Value::Map(entries) = &rules.value else {
            return Err(invalid(rules, "`rules` is a mapping of rule names".into()));
        };
        merge_rules(&mut chain, entries, &shown)?;
    }
    if let Some(ignore) = document.get("ignore") {
        chain.ignore = Some((
            patterns(ignore, &shown)?,
            format!("{shown}:{}", ignore.line),
        ));
    }
    Ok(chain)
}

/// yamllint's `default` or `relaxed` configuration, as far as the comment rules go.
fn builtin_chain(name: &str) -> Chain {
    let mut rules: Vec<(String, RuleValue, String)> = builtin_default()
        .into_iter()
        .map(|(rule, value)| {
            (
                rule,
                value,
                "yamllint's `default` configuration".to_string(),
            )
        })
        .collect();
    if name == "relaxed" {
        for (_, value, origin) in &mut rules {
            *value = RuleValue::Disabled;
            *origin = "yamllint's `relaxed` configuration".into();
        }
    }
    Chain {
        rules,
        ignore: None,
        fingerprint: xxhash_rust::xxh3::xxh3_64(name.as_bytes()),
    }
}

/// The file `extends: FILE` in the configuration at `path` names: beside it, else
/// at the repository's top; only places inside the repository (`top`) are looked
/// at, so the answer is the same whether or not a file outside exists.
fn extended_file(path: &Path, file: &str, top: &Path) -> Result<PathBuf, String> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let candidates = [
        Some(folder.join(file)),
        crate::paths::repository_top(folder).map(|top| top.join(file)),
    ];
    let candidates =
        candidates.map(|candidate| candidate.filter(|candidate| within(top, candidate)));
    if candidates.iter().all(Option::is_none) {
        return Err(outside(&format!("extends: {file}"), top));
    }
    let Some(base) = candidates
        .into_iter()
        .flatten()
        .find(|candidate| candidate.is_file())
    else {
        return Err(format!(
            "`extends: {file}` names no file (looked beside this file and at the repository's top)"
        ));
    };
    Ok(crate::paths::absolute(&base))
}

/// Merges the comment rules of one file's `rules:` over those it extends, as
/// yamllint merges them: a table's options over the extended table's, anything else
/// replacing it.
fn merge_rules(
    chain: &mut Chain,
    entries: &[(Node, Node)],
    shown: &str,
) -> Result<(), ConfigError> {
    for (key, value) in entries {
        let Some(name) = key.as_str() else { continue };
        if name != "comments" && name != "comments-indentation" {
            continue;
        }
        let origin = format!("{shown}:{}", key.line);
        let parsed = rule_value(name, value, shown)?;
        match (
            chain.rules.iter_mut().find(|(rule, ..)| rule == name),
            parsed,
        ) {
            (
                Some((_, RuleValue::Table(base, base_ignore), base_origin)),
                RuleValue::Table(mine, ignore),
            ) => {
                for (option, scalar, line) in mine {
                    base.retain(|(key, ..)| *key != option);
                    base.push((option, scalar, line));
                }
                if ignore.is_some() {
                    *base_ignore = ignore;
                }
                *base_origin = origin;
            }
            (Some(entry), parsed) => *entry = (name.to_string(), parsed, origin),
            (None, parsed) => chain.rules.push((name.to_string(), parsed, origin)),
        }
    }
    Ok(())
}

/// `enable`, `disable` or a table; the options tether reads checked for their type.
fn rule_value(name: &str, value: &Node, shown: &str) -> Result<RuleValue, ConfigError> {
    let invalid = |node: &Node, message: String| ConfigError::Invalid {
        path: shown.to_string(),
        line: node.line.max(1),
        column: 1,
        message,
    };
    match &value.value {
        Value::Scalar(Scalar::Str(word)) if word == "enable" => {
            Ok(RuleValue::Table(Vec::new(), None))
        }
        Value::Scalar(Scalar::Str(word)) if word == "disable" => Ok(RuleValue::Disabled),
        Value::Map(entries) => {
            let mut options = Vec::new();
            let mut ignore = None;
            for (key, option) in entries {
                let Some(key_name) = key.as_str() else {
                    continue;
                };
                let expected = match (name, key_name) {
                    ("comments", "require-starting-space" | "ignore-shebangs") => "true or false",
                    ("comments", "min-spaces-from-content") => "a whole number",
                    (_, "ignore") => {
                        ignore = Some((patterns(option, shown)?, option.line));
                        continue;
                    }
                    _ => continue,
                };
                let scalar = match &option.value {
                    Value::Scalar(scalar @ Scalar::Bool(_)) if expected == "true or false" => {
                        scalar.clone()
                    }
                    Value::Scalar(scalar @ Scalar::Int(_)) if expected == "a whole number" => {
                        scalar.clone()
                    }
                    _ => {
                        return Err(invalid(
                            option,
                            format!("`{name}.{key_name}` must be {expected}, as yamllint requires"),
                        ));
                    }
                };
                options.push((key_name.to_string(), scalar, key.line));
            }
            Ok(RuleValue::Table(options, ignore))
        }
        _ => Err(invalid(
            value,
            format!(
                "rule `{name}` must be `enable`, `disable` or a mapping of its options, as yamllint requires"
            ),
        )),
    }
}

/// `ignore`: a block of patterns, one per line, or a list of them.
fn patterns(node: &Node, shown: &str) -> Result<Vec<String>, ConfigError> {
    let lines = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
    match &node.value {
        Value::Scalar(Scalar::Str(text)) => Ok(lines(text)),
        Value::Seq(items) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| ConfigError::Invalid {
                        path: shown.to_string(),
                        line: item.line.max(1),
                        column: 1,
                        message: "`ignore` holds file patterns (strings)".into(),
                    })
            })
            .collect(),
        _ => Err(ConfigError::Invalid {
            path: shown.to_string(),
            line: node.line.max(1),
            column: 1,
            message: "`ignore` holds file patterns: a block of lines or a list".into(),
        }),
    }
}
