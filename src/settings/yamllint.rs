//! The yamllint configuration a repository already has, read so that tether's three
//! comment rules agree with it: `comments` → `comment-starting-space` and
//! `inline-comment-spacing`, `comments-indentation` → `comment-indentation`.
//!
//! Which file: the one `tether.toml` names (`yamllint-config`), else the nearest
//! `.yamllint`, `.yamllint.yaml` or `.yamllint.yml` at or above the file's folder (up
//! to the repository's top), else chart-testing's: the `lint-conf` of a `ct.yaml`,
//! `ct.yml` or `.ct.yaml`, or the `lintconf.yaml` beside it or at the repository's
//! top. chart-testing's other places (`~/.ct`, `/etc/ct`) belong to a machine, not to
//! the repository, and are not read.
//!
//! What is read follows yamllint's own `config.py`: `extends` (`default`, `relaxed`
//! or a file), a rule set to `enable`, `disable` or a table merged onto the one it
//! extends, options it does not set taken from yamllint's defaults, a rule that no
//! file of the chain lists does not run, `ignore` patterns (gitignore syntax) at the
//! top and per rule. Rule levels are not mapped: tether keeps its own. Anything else
//! in the file is not tether's concern and is skipped.
//!
//! Also here: yamllint's suppression comments (`# yamllint disable-line rule:comments`
//! and the others), applied to the same three rules.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::analysis::small_yaml::{Node, Scalar, Value, load};
use crate::error::ConfigError;
use crate::rules::{Level, RuleId, RuleSettings};

/// yamllint's configuration files, nearest first within one folder.
pub const FILE_NAMES: [&str; 3] = [".yamllint", ".yamllint.yaml", ".yamllint.yml"];
/// chart-testing's configuration files.
const CT_FILE_NAMES: [&str; 3] = ["ct.yaml", "ct.yml", ".ct.yaml"];
/// `extends` chains deeper than this are refused (and so are loops).
const MAX_EXTENDS: usize = 8;

/// Where chart-testing setups keep a yamllint configuration that they pass on the
/// command line (`ct lint --lint-conf`), so neither tool nor tether finds it alone:
/// `tether init` names the first that exists with `yamllint-config`.
pub const CI_PLACES: [&str; 4] = [
    ".github/configs/lintconf.yaml",
    ".github/lintconf.yaml",
    ".github/linters/lintconf.yaml",
    ".github/ct/lintconf.yaml",
];

/// The tether rules fed by yamllint's `comments` rule.
pub const COMMENTS_RULES: [RuleId; 2] =
    [RuleId::CommentStartingSpace, RuleId::InlineCommentSpacing];
/// The tether rule fed by yamllint's `comments-indentation` rule.
pub const INDENTATION_RULE: RuleId = RuleId::CommentIndentation;

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
    comments: RuleConf,
    indentation: RuleConf,
    /// The top-level `ignore`: yamllint lints no file it matches.
    ignore: Option<Ignore>,
}

/// One yamllint rule's state after `extends`.
#[derive(Debug, Clone)]
struct RuleConf {
    /// `None`: disabled, or listed by no file of the chain.
    options: Option<Vec<(String, Scalar, String)>>,
    /// Where it was enabled or disabled.
    origin: String,
    ignore: Option<Ignore>,
}

/// Compiled `ignore` patterns, matched against paths relative to `base`.
#[derive(Debug, Clone)]
struct Ignore {
    matcher: Gitignore,
    base: PathBuf,
    origin: String,
}

impl Ignore {
    fn matches(&self, file: &Path) -> bool {
        file.strip_prefix(&self.base).is_ok_and(|relative| {
            self.matcher
                .matched_path_or_any_parents(relative, false)
                .is_ignore()
        })
    }
}

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
enum RuleValue {
    Disabled,
    Table(Vec<(String, Scalar, usize)>, Option<(Vec<String>, usize)>),
}

/// What the chain says, before defaults.
struct Chain {
    rules: Vec<(String, RuleValue, String)>,
    ignore: Option<(Vec<String>, String)>,
    fingerprint: u64,
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

    /// Sets the levels and options of tether's comment rules for the file at
    /// `absolute` (`None`: a file no `ignore` matches), recording where each came
    /// from in `trace`.
    pub fn apply(
        &self,
        absolute: Option<&Path>,
        settings: &mut RuleSettings,
        trace: &mut Option<&mut Trace>,
    ) {
        let matches = |ignore: &Ignore| absolute.is_some_and(|absolute| ignore.matches(absolute));
        if let Some(ignore) = self.ignore.as_ref().filter(|ignore| matches(ignore)) {
            for rule in COMMENTS_RULES.into_iter().chain([INDENTATION_RULE]) {
                off(
                    settings,
                    trace,
                    rule,
                    &format!("yamllint ignores this file ({})", ignore.origin),
                );
            }
            return;
        }
        match (&self.comments.options, &self.comments.ignore) {
            (None, _) => {
                for rule in COMMENTS_RULES {
                    off(settings, trace, rule, &self.comments.origin);
                }
            }
            (Some(_), Some(ignore)) if matches(ignore) => {
                for rule in COMMENTS_RULES {
                    off(
                        settings,
                        trace,
                        rule,
                        &format!(
                            "yamllint's `comments` ignores this file ({})",
                            ignore.origin
                        ),
                    );
                }
            }
            (Some(options), _) => apply_comments_options(options, settings, trace),
        }
        match (&self.indentation.options, &self.indentation.ignore) {
            (None, _) => off(settings, trace, INDENTATION_RULE, &self.indentation.origin),
            (Some(_), Some(ignore)) if matches(ignore) => off(
                settings,
                trace,
                INDENTATION_RULE,
                &format!(
                    "yamllint's `comments-indentation` ignores this file ({})",
                    ignore.origin
                ),
            ),
            (Some(_), _) => {}
        }
    }
}

/// Turns `rule` off, saying why in `trace`.
fn off(settings: &mut RuleSettings, trace: &mut Option<&mut Trace>, rule: RuleId, why: &str) {
    settings.set_level(rule, Level::Off);
    if let Some(trace) = trace.as_deref_mut() {
        trace.set(rule.name(), "level", "off", why);
    }
}

/// yamllint's `comments` options, as tether's comment rules take them.
fn apply_comments_options(
    options: &[(String, Scalar, String)],
    settings: &mut RuleSettings,
    trace: &mut Option<&mut Trace>,
) {
    for (key, value, origin) in options {
        match (key.as_str(), value) {
            ("require-starting-space", Scalar::Bool(false)) => {
                off(settings, trace, COMMENTS_RULES[0], origin);
            }
            ("ignore-shebangs", Scalar::Bool(value)) => {
                settings.set_option(
                    COMMENTS_RULES[0],
                    "ignore-shebangs",
                    toml::Value::Boolean(*value),
                );
                if let Some(trace) = trace.as_deref_mut() {
                    trace.set(
                        COMMENTS_RULES[0].name(),
                        "ignore-shebangs",
                        &value.to_string(),
                        origin,
                    );
                }
            }
            ("min-spaces-from-content", Scalar::Int(value)) => {
                let value = (*value).max(0) as usize;
                settings.set_option(
                    COMMENTS_RULES[1],
                    "min-spaces",
                    toml::Value::Integer(value as i64),
                );
                if let Some(trace) = trace.as_deref_mut() {
                    trace.set(
                        COMMENTS_RULES[1].name(),
                        "min-spaces",
                        &value.to_string(),
                        origin,
                    );
                }
            }
            _ => {}
        }
    }
}

/// Whether `path` (relative paths from the working directory) stays inside `top`:
/// by its components, whether or not it exists, and where it exists through links
/// too.
fn within(top: &Path, path: &Path) -> bool {
    let top = crate::paths::absolute(top);
    let joined = std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf());
    let mut lexical = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            std::path::Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    // `top` is canonical; the lexical path may hold a link above the repository
    // (`/tmp` → `/private/tmp`): compare it canonicalised as far as it exists.
    let lexical_inside =
        lexical.starts_with(&top) || crate::paths::absolute(&lexical).starts_with(&top);
    lexical_inside && (!path.exists() || crate::paths::absolute(path).starts_with(&top))
}

fn outside(what: &str, top: &Path) -> String {
    format!(
        "`{what}` is outside {}; tether reads yamllint and chart-testing configurations only inside the repository it checks",
        top.display()
    )
}

/// Reads one file of an `extends` chain and what it extends, merged as yamllint's
/// `YamlLintConfig.extend` merges them.
fn read_chain(
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

/// The yamllint configuration file in `folder` itself, if any.
pub fn in_folder(folder: &Path) -> Option<PathBuf> {
    FILE_NAMES
        .iter()
        .map(|name| folder.join(name))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_ok())
}

/// What `folder` decides about the yamllint configuration of the files in and below
/// it: its own `.yamllint*`, or at the repository's top chart-testing's (or none);
/// `None` when it decides nothing and its parent is to be asked.
pub fn decided_in(folder: &Path) -> Option<Result<Option<Yamllint>, ConfigError>> {
    if let Some(file) = in_folder(folder) {
        return Some(
            Yamllint::read(&file, folder, "the nearest yamllint configuration file").map(Some),
        );
    }
    if crate::paths::is_repository_top(folder) {
        return Some(chart_testing(folder));
    }
    None
}

/// The yamllint configuration of the files in `folder`, as `tether check` finds it
/// when `tether.toml` names none.
pub fn discover(folder: &Path) -> Result<Option<Yamllint>, ConfigError> {
    folder.ancestors().find_map(decided_in).unwrap_or(Ok(None))
}

/// chart-testing's yamllint configuration for a repository whose top is `top`: the
/// `lint-conf` of its `ct.yaml` (`ct.yml`, `.ct.yaml`), else `lintconf.yaml` there,
/// as `ct lint` run at the top finds them.
pub fn chart_testing(top: &Path) -> Result<Option<Yamllint>, ConfigError> {
    for name in CT_FILE_NAMES {
        let ct = top.join(name);
        if std::fs::symlink_metadata(&ct).is_err() {
            continue;
        }
        let (document, _) = load(&ct)?;
        if let Some(lint_conf) = document.get("lint-conf") {
            let Some(file) = lint_conf.as_str() else {
                return Err(ConfigError::Invalid {
                    path: ct.display().to_string(),
                    line: lint_conf.line.max(1),
                    column: 1,
                    message: "`lint-conf` is the path of a yamllint configuration".into(),
                });
            };
            if !within(top, &top.join(file)) {
                return Err(ConfigError::Invalid {
                    path: ct.display().to_string(),
                    line: lint_conf.line.max(1),
                    column: 1,
                    message: outside(&format!("lint-conf: {file}"), top),
                });
            }
            return Yamllint::read(
                &top.join(file),
                top,
                format!("`lint-conf` of {}", ct.display()),
            )
            .map(Some);
        }
        break;
    }
    let default = top.join("lintconf.yaml");
    if std::fs::symlink_metadata(&default).is_ok() {
        return Yamllint::read(&default, top, "chart-testing's default `lintconf.yaml`").map(Some);
    }
    Ok(None)
}

/// Where each setting of a file came from, for `tether check --show-settings`.
#[derive(Debug, Default, Clone)]
pub struct Trace {
    /// (rule, setting, value, origin), the last one of a (rule, setting) winning.
    pub entries: Vec<(String, String, String, String)>,
}

impl Trace {
    /// Records that `rule`'s `setting` is `value` because of `origin`.
    pub fn set(&mut self, rule: &str, setting: &str, value: &str, origin: &str) {
        self.entries
            .retain(|(r, s, ..)| !(r == rule && s == setting));
        self.entries.push((
            rule.to_string(),
            setting.to_string(),
            value.to_string(),
            origin.to_string(),
        ));
    }

    /// The origin of `rule`'s `setting`, if anything set it.
    pub fn origin(&self, rule: &str, setting: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(r, s, ..)| r == rule && s == setting)
            .map(|(.., origin)| origin.as_str())
    }
}

/// yamllint's suppression comments in one file, for the rules they name.
#[derive(Debug, Default)]
pub struct Directives {
    /// `# yamllint disable-file` on the first line.
    whole_file: bool,
    /// Per 0-based line: the yamllint rules disabled there (`None`: every rule).
    lines: Vec<(usize, Option<Vec<String>>)>,
    /// Block disables: from line (inclusive) to line (exclusive), rules.
    blocks: Vec<(usize, usize, Option<Vec<String>>)>,
}

/// The yamllint rule a tether rule follows, as the rule declares it.
pub fn yamllint_rule(tether_rule: RuleId) -> Option<&'static str> {
    tether_rule.registered().rule.yamllint_rule()
}

/// `# yamllint disable rule:a rule:b`: the rules (`None` when none is named), or
/// `None` when the text is not that directive. Spelled exactly as yamllint's regexes
/// want it, so a comment yamllint ignores is ignored here too.
fn directive(text: &str, word: &str) -> Option<Option<Vec<String>>> {
    let rest = text.strip_prefix("# yamllint ")?.strip_prefix(word)?;
    let rest = rest.trim_end();
    if rest.is_empty() {
        return Some(None);
    }
    let mut rules = Vec::new();
    for item in rest.strip_prefix(' ')?.split(' ') {
        let rule = item.strip_prefix("rule:")?;
        if rule.is_empty() || rule.chars().any(char::is_whitespace) {
            return None;
        }
        rules.push(rule.to_string());
    }
    Some(Some(rules))
}

impl Directives {
    /// Reads the directives from a file's `#` comments: (0-based line, text from `#`,
    /// alone on its line), in file order; `first_line` is the file's first line.
    pub fn read<'a>(
        first_line: &str,
        comments: impl Iterator<Item = (usize, &'a str, bool)>,
    ) -> Directives {
        let whole_file = first_line
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix("yamllint disable-file"))
            .is_some_and(|rest| rest.trim().is_empty());
        let mut directives = Directives {
            whole_file,
            ..Directives::default()
        };
        // Open blocks: rule → start line (`*` for every rule).
        let mut open: Vec<(Option<String>, usize)> = Vec::new();
        for (line, text, own_line) in comments {
            if let Some(rules) = directive(text, "disable-line") {
                directives
                    .lines
                    .push((if own_line { line + 1 } else { line }, rules));
            } else if let Some(rules) = directive(text, "disable") {
                match rules {
                    None => open.push((None, line)),
                    Some(rules) => open.extend(rules.into_iter().map(|rule| (Some(rule), line))),
                }
            } else if let Some(rules) = directive(text, "enable") {
                let closing: Vec<(Option<String>, usize)> = match &rules {
                    None => std::mem::take(&mut open),
                    Some(rules) => {
                        let (closing, staying) = open.into_iter().partition(|(rule, _)| {
                            rule.as_ref().is_some_and(|rule| rules.contains(rule))
                        });
                        open = staying;
                        closing
                    }
                };
                // An enable takes effect on its own line, as in yamllint.
                for (rule, start) in closing {
                    directives
                        .blocks
                        .push((start, line, rule.map(|rule| vec![rule])));
                }
            }
        }
        for (rule, start) in open {
            directives
                .blocks
                .push((start, usize::MAX, rule.map(|rule| vec![rule])));
        }
        directives
    }

    /// Whether a finding of `tether_rule` on 0-based `line` is suppressed.
    pub fn suppresses(&self, tether_rule: RuleId, line: usize) -> bool {
        let Some(rule) = yamllint_rule(tether_rule) else {
            return false;
        };
        let names = |rules: &Option<Vec<String>>| {
            rules
                .as_ref()
                .is_none_or(|rules| rules.iter().any(|r| r == rule))
        };
        self.whole_file
            || self
                .lines
                .iter()
                .any(|(at, rules)| *at == line && names(rules))
            || self
                .blocks
                .iter()
                .any(|(start, end, rules)| (*start..*end).contains(&line) && names(rules))
    }

    /// Whether the file has none.
    pub fn is_empty(&self) -> bool {
        !self.whole_file && self.lines.is_empty() && self.blocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_read_as_yamllint_reads_them() {
        let comments = [
            (0, "# yamllint disable rule:comments-indentation", true),
            (3, "# yamllint enable", true),
            (5, "# yamllint disable-line rule:comments", true),
            (7, "# yamllint disable-line rule:comments", false),
            (9, "# yamllint  disable-line", false),
        ];
        let directives = Directives::read("a: 1", comments.into_iter());
        assert!(directives.suppresses(RuleId::CommentIndentation, 0));
        assert!(directives.suppresses(RuleId::CommentIndentation, 2));
        assert!(!directives.suppresses(RuleId::CommentIndentation, 3));
        assert!(!directives.suppresses(RuleId::InlineCommentSpacing, 2));
        assert!(directives.suppresses(RuleId::InlineCommentSpacing, 6));
        assert!(!directives.suppresses(RuleId::InlineCommentSpacing, 5));
        assert!(directives.suppresses(RuleId::CommentStartingSpace, 7));
        assert!(!directives.suppresses(RuleId::CommentStartingSpace, 9));
        assert!(!directives.suppresses(RuleId::RequiredComment, 7));
        let whole = Directives::read("#yamllint disable-file", std::iter::empty());
        assert!(whole.suppresses(RuleId::CommentIndentation, 40));
    }
}
