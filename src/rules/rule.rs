//! What every rule is written against: the [`Rule`] trait, the [`FileContext`] it
//! reads, the [`Reporter`] it reports through. The registry (`mod.rs`) and every
//! rule import this file; it imports no rule.

use std::ops::Range;
use std::path::Path;

use super::options::{Level, Require, RuleSettings};
use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::rule_id::RuleId;
use crate::source::{Problem, SourceFile};
use crate::template::lex::Action;
use crate::yaml::model::{CommentStyle, FileModel};

/// One rule: what `declare_rule!` declares ([`Described`]) and what the rule's file
/// writes by hand (this trait).
pub trait Rule: Sync + Described {
    /// Whether this file needs the full model (a parse tree) for this rule. Rules that
    /// only read comments and lines never do; the others say when they need it, so a
    /// file with no comment and no required key is never parsed.
    fn needs_model(&self, _context: &FileContext) -> bool {
        false
    }
    /// Reports the rule's findings on one file.
    fn check(&self, context: &FileContext, reporter: &mut Reporter);

    /// Whether the rule reads the file's chart as a whole ([`FileContext::chart`]):
    /// the chart is then analysed, and its fingerprint joins the file's cache key.
    fn needs_chart(&self) -> bool {
        false
    }
}

/// How a rule follows a yamllint rule, declared once in the rule's own file: the
/// yamllint reader applies it, and `# yamllint disable` comments of that rule
/// apply to it. The yamllint rule disabled, or ignoring a file, turns the rule off
/// there.
#[derive(Debug)]
pub struct YamllintMapping {
    /// The yamllint rule (`comments`).
    pub rule: &'static str,
    /// The options of that rule the tether rule follows.
    pub options: &'static [YamllintOption],
}

/// One option of a yamllint rule, as a tether rule follows it.
#[derive(Debug)]
pub struct YamllintOption {
    /// yamllint's name for it (`min-spaces-from-content`).
    pub key: &'static str,
    /// yamllint's default, which holds where no file of the configuration sets it.
    pub default: YamllintValue,
    /// What its value does to the tether rule.
    pub sets: YamllintSets,
}

/// A value of a yamllint option tether follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamllintValue {
    Bool(bool),
    Int(i64),
}

/// What a yamllint option's value does to the tether rule that follows it.
#[derive(Debug, Clone, Copy)]
pub enum YamllintSets {
    /// Sets the rule's option of this name to the same value (a negative number
    /// to 0).
    Option(&'static str),
    /// Turns the rule off when the value is this one.
    OffWhen(YamllintValue),
}

/// What a rule's `declare_rule!` says of it, in the rule's own file: name, default
/// level, documentation, whether it fixes, and its options' type.
pub trait Described {
    /// The kebab-case name users write in `tether.toml` and suppressions.
    fn name(&self) -> &'static str;
    /// Its level when `tether.toml` does not set one.
    fn default_level(&self) -> Level;
    /// Its documentation: the doc comment of the `declare_rule!`, as written.
    fn documentation(&self) -> &'static str;
    /// Whether `tether check --fix` fixes its findings.
    fn fixable(&self) -> Fixable;
    /// How it follows a yamllint rule (that rule's settings and `# yamllint
    /// disable` comments apply to it), if it does.
    fn yamllint(&self) -> Option<&'static YamllintMapping>;
    /// The yamllint rule it follows, if one.
    fn yamllint_rule(&self) -> Option<&'static str> {
        self.yamllint().map(|mapping| mapping.rule)
    }
    /// Checks an options table of `[rules.NAME]` (without `level`) against the
    /// rule's options type; the message says what is wrong.
    fn check_options(&self, table: &toml::Table) -> Result<(), String>;
    /// The options at their defaults, as a table.
    fn default_options(&self) -> toml::Table;
    /// The JSON schema of the options (an object schema).
    fn options_schema(&self) -> serde_json::Value;
    /// Reads a merged options table into the rule's options type, once per
    /// configuration (`RuleSettings::typed` hands them out); a table that does not fit
    /// (refused when the configuration was read) gives the defaults.
    fn read_options(&self, table: &toml::Table) -> super::options::TypedOptions;
}

/// Whether a rule's findings can be fixed without judgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fixable {
    /// `--fix` never changes what it reports.
    No,
    /// `--fix` rewrites what it reports; the fix changes only whitespace.
    Always,
}

/// The options of a rule that takes none: a table with anything in it is refused.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

/// Declares a rule in its own file: its type, with the doc comment as its
/// documentation (captured here, not read back from the source), its name, default
/// level, whether it fixes, and its options' type. The file then implements [`Rule`]
/// (`check`, and `needs_model` when it reads the model).
///
/// ```text
/// declare_rule! {
///     /// ## What it does
///     /// …
///     pub struct CommentStartingSpace {
///         name: "comment-starting-space",
///         level: Warn,
///         fix: Always,
///         options: Options,
///     }
/// }
/// ```
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub struct $rule:ident {
            name: $name:literal,
            level: $level:ident,
            fix: $fix:ident,
            $(yamllint: $yamllint:expr,)?
            options: $options:ty $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub struct $rule;

        impl $crate::rules::rule::Described for $rule {
            fn name(&self) -> &'static str {
                $name
            }
            fn default_level(&self) -> $crate::rules::options::Level {
                $crate::rules::options::Level::$level
            }
            fn documentation(&self) -> &'static str {
                concat!($($doc, "\n"),*)
            }
            fn fixable(&self) -> $crate::rules::rule::Fixable {
                $crate::rules::rule::Fixable::$fix
            }
            fn yamllint(&self) -> Option<&'static $crate::rules::rule::YamllintMapping> {
                None $(.or(Some($yamllint)))?
            }
            fn check_options(&self, table: &toml::Table) -> Result<(), String> {
                <$options as serde::Deserialize>::deserialize(toml::Value::Table(table.clone()))
                    .map(|_| ())
                    .map_err(|error| error.message().trim_end().to_string())
            }
            fn default_options(&self) -> toml::Table {
                toml::Table::try_from(<$options>::default()).unwrap_or_default()
            }
            fn options_schema(&self) -> serde_json::Value {
                serde_json::to_value(schemars::schema_for!($options)).unwrap_or_default()
            }
            fn read_options(&self, table: &toml::Table) -> $crate::rules::options::TypedOptions {
                std::sync::Arc::new($crate::rules::options::options_from::<$options>(table))
            }
        }
    };
}
pub(crate) use declare_rule;

/// A comment as the style rules see it: one `#` comment, or one template comment.
#[derive(Debug, Clone)]
pub struct CommentInfo {
    /// `#` or `{{/* */}}`.
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

/// A file named like a values file (`values.yaml`, `values-prod.yaml`), as the
/// documentation generators see it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ValuesFile {
    /// A `Chart.yaml` is beside it: a chart's values, not an override file of an
    /// end-to-end test or an environment.
    pub in_chart: bool,
    /// helm-docs reads it: the `values.yaml` of a chart that no `.helmdocsignore` of
    /// the repository names.
    pub helm_docs_reads: bool,
}

/// What the rules know about one file.
pub struct FileContext<'a> {
    /// Relative to the configuration's folder: what globs match and output shows.
    pub path: &'a Path,
    /// The file's text and line index.
    pub source: &'a SourceFile,
    /// Read as a Helm template.
    pub is_template: bool,
    /// The masked text (the file's text for plain YAML).
    pub masked: &'a str,
    /// Per line: only template actions on it (see `template::mask`).
    pub directive_lines: &'a [bool],
    /// The template actions, in file order.
    pub actions: &'a [Action],
    /// Every comment, in file order.
    pub comments: &'a [CommentInfo],
    /// The full model, when a rule asked for it.
    pub model: Option<&'a FileModel>,
    /// Per line: the content of a block scalar, which is text.
    pub block_scalar_lines: &'a [bool],
    /// Problems found while reading and lexing the file.
    pub problems: &'a [Problem],
    /// The `[[require]]` entries of the file's configuration.
    pub requires: &'a [Require],
    /// The rule levels and options for this file.
    pub settings: &'a RuleSettings,
    /// The version pins of the file's repository (`stale-version-reference`).
    pub pins: Option<&'a crate::analysis::pins::PinIndex>,
    /// The chart the file is a template or the `values.yaml` of, analysed, when a
    /// rule that needs it is on (`undefined-value`, `unused-value`).
    pub chart: Option<(
        &'a crate::analysis::charts::Chart,
        crate::analysis::charts::Role,
    )>,
    /// What the documentation generators make of the file, when it is named like a
    /// values file.
    pub values_file: Option<ValuesFile>,
    /// What the template reads of the values, found on first use.
    pub(crate) value_reads: std::cell::OnceCell<std::sync::Arc<crate::template::reads::Reads>>,
}

impl FileContext<'_> {
    /// What the file reads of the values (`.Values.a.b`, followed through `with`,
    /// variables and helpers), found once and shared by the rules that need it.
    pub fn value_reads(&self) -> &crate::template::reads::Reads {
        self.value_reads.get_or_init(|| {
            std::sync::Arc::new(crate::template::reads::reads(
                &self.source.text,
                self.actions,
            ))
        })
    }

    /// The text of line `line` (0-based), without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        self.source.line_text(line)
    }

    /// Whether the file is a chart's `values.yaml` (or `values-*.yaml`).
    pub fn is_values_file(&self) -> bool {
        // The check names the file (`check::values_file`), once.
        !self.is_template && self.values_file.is_some()
    }
}

/// Whether a finding counts, or which suppression covers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not suppressed.
    Counts,
    /// Covered by a yamllint directive (`None`) or by the suppression entry of this
    /// index ([`crate::linter::suppress::Suppressions::covering`]).
    Suppressed(Option<usize>),
}

impl Verdict {
    /// Whether the finding stays, recording in `used` the suppression entry that
    /// covered it.
    pub(crate) fn keep(self, used: &mut Vec<usize>) -> bool {
        match self {
            Verdict::Counts => true,
            Verdict::Suppressed(entry) => {
                used.extend(entry);
                false
            }
        }
    }
}

/// The verdict on a finding: a lookup, with no state of its own.
pub(crate) type Counts<'a> = dyn Fn(&Diagnostic) -> Verdict + 'a;

/// Collects one rule's findings on one file.
pub struct Reporter<'a> {
    rule: RuleId,
    severity: Severity,
    path: &'a Path,
    diagnostics: Vec<Diagnostic>,
    /// Keep at most this many findings (the first by position), and which findings
    /// count at all (not suppressed): memory stays bounded however many findings a
    /// hostile file holds.
    bound: Option<(usize, &'a Counts<'a>)>,
    /// Findings that counted and were dropped past the bound.
    dropped: usize,
    /// The suppression entries that covered a finding dropped while compacting.
    used: Vec<usize>,
}

impl<'a> Reporter<'a> {
    /// A reporter for the rule `rule` on the file `path`.
    pub fn new(rule: RuleId, severity: Severity, path: &'a Path) -> Self {
        Reporter {
            rule,
            severity,
            path,
            diagnostics: Vec::new(),
            bound: None,
            dropped: 0,
            used: Vec::new(),
        }
    }

    /// A reporter that keeps only the first `keep` findings by position among those
    /// `counts` accepts, counting the others: the memory of a file's findings is
    /// bounded, and the first `keep` are the ones an unbounded reporter would give
    /// after filtering and sorting.
    pub(crate) fn bounded(
        rule: RuleId,
        severity: Severity,
        path: &'a Path,
        keep: usize,
        counts: &'a Counts<'a>,
    ) -> Self {
        Reporter {
            bound: Some((keep.max(1), counts)),
            ..Reporter::new(rule, severity, path)
        }
    }

    /// Past twice the bound: drops what does not count, then all but the first
    /// `keep`. Amortized, each finding is filtered and sorted a constant number of times.
    fn compact(&mut self) {
        let Some((keep, counts)) = self.bound else {
            return;
        };
        if self.diagnostics.len() < keep * 2 {
            return;
        }
        let used = &mut self.used;
        self.diagnostics
            .retain(|diagnostic| counts(diagnostic).keep(used));
        if self.diagnostics.len() > keep {
            self.diagnostics
                .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            self.dropped += self.diagnostics.len() - keep;
            self.diagnostics.truncate(keep);
        }
    }

    /// Reports a finding at `range`; returns it to add help and labels.
    pub fn report(&mut self, range: Range<usize>, message: impl Into<String>) -> &mut Diagnostic {
        self.compact();
        self.diagnostics.push(Diagnostic {
            rule: self.rule,
            severity: self.severity,
            path: self.path.to_path_buf(),
            range,
            message: message.into(),
            help: None,
            labels: Vec::new(),
            fix: None,
        });
        #[allow(clippy::expect_used)] // Pushed on the line above: never empty.
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// The findings reported.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    /// The findings kept, how many that counted were dropped past the bound, and
    /// the suppression entries used by findings dropped on the way.
    pub(crate) fn into_bounded(self) -> (Vec<Diagnostic>, usize, Vec<usize>) {
        (self.diagnostics, self.dropped, self.used)
    }
}

impl Diagnostic {
    pub(crate) fn with_help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn with_fix(&mut self, fix: crate::diagnostic::Fix) -> &mut Self {
        self.fix = Some(fix);
        self
    }

    pub(crate) fn with_label(
        &mut self,
        range: Range<usize>,
        message: impl Into<String>,
    ) -> &mut Self {
        self.labels.push(Label {
            range,
            message: message.into(),
        });
        self
    }
}
