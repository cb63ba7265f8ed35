//! The rules: one file each, registered in [`RULES`], the single list that drives
//! checking, `tether rules`, the generated docs and the configuration schema.
//!
//! A rule reads a [`FileContext`] and reports through a [`Reporter`]; it does no I/O.
//! Its documentation is the doc comment of its type, read from its source file, with
//! the headings What it does / Why it matters / Example / Instead.

mod comment_indentation;
mod comment_starting_space;
mod detached_comment;
pub mod helm_docs;
mod inline_comment_spacing;
mod orphan_value_doc;
mod parse_problem;
mod required_comment;
mod undocumented_value;
pub mod unused_suppression;
pub mod values;

use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::source::{Problem, SourceFile};
use crate::template::lex::Action;
use crate::yaml::model::{CommentStyle, FileModel};

/// How a rule's findings count. `off` disables the rule.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    #[default]
    Warn,
    Off,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Off => "off",
        }
    }

    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Error => Some(Severity::Error),
            Level::Warn => Some(Severity::Warning),
            Level::Off => None,
        }
    }
}

/// One rule.
pub trait Rule: Sync {
    /// The kebab-case name users write in `tether.toml` and suppressions.
    fn name(&self) -> &'static str;
    fn default_level(&self) -> Level;
    /// The options the rule takes in `[rules.NAME]`, besides `level`.
    fn options(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether this file needs the full model (a parse tree) for this rule. Rules that
    /// only read comments and lines never do; the others say when they need it, so a
    /// file with no comment and no required key is never parsed.
    fn needs_model(&self, _context: &FileContext) -> bool {
        false
    }
    fn check(&self, context: &FileContext, reporter: &mut Reporter);
}

/// A rule and the source file whose doc comment documents it.
pub struct Registered {
    pub rule: &'static dyn Rule,
    source: &'static str,
    type_name: &'static str,
}

impl Registered {
    /// The rule's documentation: the doc comment of its type.
    pub fn documentation(&self) -> String {
        doc_comment_of(self.source, self.type_name)
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
                rule: &$module::$rule,
                source: include_str!(concat!(stringify!($module), ".rs")),
                type_name: stringify!($rule),
            },
        )*];
    };
}

register!(
    required_comment::RequiredComment,
    detached_comment::DetachedComment,
    comment_starting_space::CommentStartingSpace,
    inline_comment_spacing::InlineCommentSpacing,
    comment_indentation::CommentIndentation,
    undocumented_value::UndocumentedValue,
    orphan_value_doc::OrphanValueDoc,
    parse_problem::ParseProblem,
    // Last: it reads which suppressions the rules above used.
    unused_suppression::UnusedSuppression,
);

/// One rule's page: name, default level, documentation. `tether rules NAME` prints
/// it and `docs/rules.md` collects them.
pub fn rule_page(registered: &Registered) -> String {
    let documentation = registered.documentation().replace("\n## ", "\n### ");
    let documentation = documentation
        .strip_prefix("## ")
        .map(|rest| format!("### {rest}"))
        .unwrap_or(documentation);
    format!(
        "## {}\n\nDefault level: `{}`\n\n{}\n",
        registered.rule.name(),
        registered.rule.default_level().as_str(),
        documentation
    )
}

/// `docs/rules.md`, generated by `cargo xtask codegen`.
pub fn markdown_reference() -> String {
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

/// Looks a rule up by name.
pub fn find(name: &str) -> Option<&'static Registered> {
    RULES
        .iter()
        .find(|registered| registered.rule.name() == name)
}

/// The `///` lines directly above `pub struct NAME` in `source`, without the markers.
fn doc_comment_of(source: &str, type_name: &str) -> String {
    let needle = format!("pub struct {type_name}");
    let lines: Vec<&str> = source.lines().collect();
    let Some(position) = lines.iter().position(|line| line.starts_with(&needle)) else {
        return String::new();
    };
    let mut start = position;
    while start > 0 && (lines[start - 1].starts_with("///") || lines[start - 1].starts_with("#[")) {
        start -= 1;
    }
    lines[start..position]
        .iter()
        .filter_map(|line| line.strip_prefix("///"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// A comment as the style rules see it: one `#` comment, or one template comment.
#[derive(Debug, Clone)]
pub struct CommentInfo {
    pub style: CommentStyle,
    /// `#` through the end of the line (without `\r`), or the whole `{{/* */}}`.
    pub span: Range<usize>,
    /// 0-based.
    pub line: usize,
    /// 0-based, in bytes.
    pub column: usize,
    /// Nothing but whitespace before it on its line.
    pub own_line: bool,
}

/// What the rules know about one file.
pub struct FileContext<'a> {
    /// Relative to the configuration's folder: what globs match and output shows.
    pub path: &'a Path,
    pub source: &'a SourceFile,
    pub is_template: bool,
    /// The masked text (the file's text for plain YAML).
    pub masked: &'a str,
    /// Per line: only template actions on it (see `template::mask`).
    pub directive_lines: &'a [bool],
    pub actions: &'a [Action],
    /// Every comment, in file order.
    pub comments: &'a [CommentInfo],
    /// The full model, when a rule asked for it.
    pub model: Option<&'a FileModel>,
    /// Per line: the content of a block scalar, which is text.
    pub block_scalar_lines: &'a [bool],
    /// Problems found while reading and lexing the file.
    pub problems: &'a [Problem],
    pub config: &'a Config,
    /// The rule levels and options for this file.
    pub settings: &'a RuleSettings,
    /// The file's `tether: ignore[…]` comments.
    pub suppressions: &'a [unused_suppression::Suppression],
}

impl FileContext<'_> {
    /// The text of line `line` (0-based), without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        self.source.line_text(line)
    }

    /// Whether the file is a chart's `values.yaml` (or `values-*.yaml`).
    pub fn is_values_file(&self) -> bool {
        !self.is_template
            && self.path.file_name().is_some_and(|name| {
                let name = name.to_string_lossy();
                name == "values.yaml"
                    || name == "values.yml"
                    || (name.starts_with("values") && name.ends_with(".yaml"))
            })
    }
}

/// Collects one rule's findings on one file.
pub struct Reporter<'a> {
    rule: &'static str,
    severity: Severity,
    path: &'a Path,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Reporter<'a> {
    pub fn new(rule: &'static str, severity: Severity, path: &'a Path) -> Self {
        Reporter {
            rule,
            severity,
            path,
            diagnostics: Vec::new(),
        }
    }

    /// Reports a finding at `range`; returns it to add help and labels.
    pub fn report(&mut self, range: Range<usize>, message: impl Into<String>) -> &mut Diagnostic {
        self.diagnostics.push(Diagnostic {
            rule: self.rule.to_string(),
            severity: self.severity,
            path: self.path.to_path_buf(),
            range,
            message: message.into(),
            help: None,
            labels: Vec::new(),
        });
        #[allow(clippy::expect_used)] // Pushed on the line above: never empty.
        self.diagnostics.last_mut().expect("just pushed")
    }

    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

impl Diagnostic {
    pub fn with_help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(&mut self, range: Range<usize>, message: impl Into<String>) -> &mut Self {
        self.labels.push(Label {
            range,
            message: message.into(),
        });
        self
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
    pub levels: Vec<Level>,
    pub options: RuleOptions,
}

impl Default for RuleSettings {
    fn default() -> Self {
        RuleSettings {
            levels: RULES.iter().map(|r| r.rule.default_level()).collect(),
            options: RuleOptions::default(),
        }
    }
}

impl RuleSettings {
    pub fn level(&self, name: &str) -> Level {
        RULES
            .iter()
            .position(|registered| registered.rule.name() == name)
            .map_or(Level::Off, |index| self.levels[index])
    }
}
