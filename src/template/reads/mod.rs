//! What a template reads from `.Values`, followed through the scopes of
//! `text/template`: `with` and `range` move the dot, variables hold values, and
//! `index`, `dig`, `hasKey`, `get` and `set` spell keys as strings.
//!
//! Followed: `.Values.a.b` and `$.Values.a.b` (also inside `define`, taken to be
//! called with the chart's root); inside `with .Values.a`, `.b` is `a.b` and `.` is
//! `a`; `$v := .Values.a` then `$v.b`; `index .Values "a" "b"`, `dig "a" "b" x
//! .Values`, `hasKey .Values.a "b"`, `get .Values.a "b"`, `set .Values.a "b" x`; a
//! merge of values (`with (merge .Values.a .Values.global.a)`) reads each. A value
//! passed whole (`toYaml .Values.a`, `range .Values.a`) is read whole. What a call
//! hands a named template (`include "x" (dict "values" .Values "context" $)`) is
//! recorded as the call's [`Arg`], and what a define reads of what it is handed
//! (`.values.env`, `.context`) as [`Reads::handed`]: the chart analysis joins the
//! two. Not followed, and never guessed at: the dot inside `range`, variables bound
//! to anything else, keys computed at render time. `.Values` itself used whole
//! (`toYaml .Values`) or indexed by a computed key is an [`Opaque`] use.

mod commands;
mod scopes;
mod syntax;

use std::ops::Range;

pub use super::arg::{Arg, Use};
use super::lex::{Action, Keyword};

/// One read of `.Values`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// Keys from the top of `values.yaml`.
    pub path: Vec<String>,
    /// Where the read is spelled in the file.
    pub span: Range<usize>,
    pub use_: Use,
    /// Printed as it is, through functions that print nothing of their own for a
    /// missing value (`quote`, `toYaml`, `nindent`, …): no `default`, `required`,
    /// test or helper on the way. `undefined-value` checks only these.
    pub plain: bool,
    /// The values the enclosing `if`, `with` and `range` test: a read runs only where
    /// they are set. Shared by the reads of one block (one allocation, not one per
    /// read).
    pub guards: std::sync::Arc<[Vec<String>]>,
    /// The `define` the read is in (an index into [`Reads::defines`]); `None` at the
    /// top of the file.
    pub define: Option<u32>,
}

/// Everything a template reads.
#[derive(Debug, Clone, Default)]
pub struct Reads {
    pub reads: Vec<Read>,
    /// Each `define` (or the top of the file) that uses `.Values` in a way that
    /// cannot be followed, once per define and kind, with the first offset.
    pub opaque_uses: Vec<Opaque>,
    /// Values the template writes (`set .Values.a "b" x`): `a.b`.
    pub set: Vec<Vec<String>>,
    /// Files of the chart the template reads by name (`.Files.Get "files/x.conf"`),
    /// which may be rendered with `tpl`.
    pub files: Vec<String>,
    /// Those of [`Reads::files`] that may be rendered as templates: read in an
    /// action that calls `tpl`, or bound to a variable in a file that calls it.
    /// Read as data, a file reads no values.
    pub rendered: Vec<String>,
    /// Reads of what a define was handed (its dot or `$`) other than through
    /// `.Values`: `path` is from the define's argument (`.values.env` is
    /// `values.env`), resolved at each call of the define with what the call hands
    /// it ([`Include::argument`]).
    pub handed: Vec<Read>,
    /// The names of the file's `define`s and `block`s, in order.
    pub defines: Vec<String>,
    /// Every `include`, `template` and `block` of a named template.
    pub includes: Vec<Include>,
    /// The defines (or the top of the file) that replace the root context's values
    /// (`set . "Values" …`, as library charts merge their defaults in).
    pub sets_values: Vec<Option<u32>>,
}

/// A use of `.Values` that cannot be followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opaque {
    pub offset: usize,
    pub define: Option<u32>,
    pub kind: Opacity,
}

/// Why a use of `.Values` cannot be followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opacity {
    /// `.Values` itself handed to a function or a helper: it may read anything.
    Whole,
    /// A key computed at render time (`index .Values $key`): charts spell the
    /// paths such helpers read as string literals at the call (`"auth.password"`).
    Computed,
}

/// A call of a named template: `include "name" ARG`, `template "name" ARG`,
/// `block "name" ARG`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    pub name: String,
    /// Where the name is spelled (its string literal, quotes included).
    pub span: Range<usize>,
    /// How it is called.
    pub call: Call,
    /// The define the call is in; `None` at the top of the file.
    pub define: Option<u32>,
    /// Whether the argument carries the root context (`.` or `$` where the dot is
    /// the root, or a `dict`/`list` holding it): the define then reads the caller's
    /// values as its body spells them.
    pub root: bool,
    /// The string literals of the argument (`"auth.password"`), which helpers read
    /// as values paths.
    pub literals: Vec<String>,
    /// What the argument holds of values, followed through `dict` and the copies of
    /// values (`deepCopy`, `merge`).
    pub argument: Arg,
}

/// How a named template is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `include "name" ARG`, a function whose result is text.
    Include,
    /// `template "name" ARG`, an action.
    Template,
    /// `block "name" ARG`, which defines the template it calls.
    Block,
}

impl Call {
    /// The word the call is spelled with.
    pub fn keyword(self) -> &'static str {
        match self {
            Call::Include => "include",
            Call::Template => "template",
            Call::Block => "block",
        }
    }
}

/// Functions that print a missing value as nothing (or `null`) and add nothing of
/// their own: a missing value through them is a missing value in the output.
const PASS_THROUGH: &[&str] = &[
    "quote",
    "squote",
    "toYaml",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "nindent",
    "indent",
    "trim",
    "upper",
    "lower",
    "b64enc",
    "toString",
    "int",
    "int64",
    "float64",
    "trunc",
    "trimSuffix",
    "trimPrefix",
    "index",
];

/// Functions whose result is a copy or merge of their arguments: `.Values` copied
/// into a variable is read where the variable is, not where it is copied (library
/// charts merge their defaults this way: `$user := deepCopy (omit .Values "common")`).
const COPIES: &[&str] = &[
    "deepCopy",
    "mustDeepCopy",
    "omit",
    "merge",
    "mustMerge",
    "mergeOverwrite",
    "mustMergeOverwrite",
];

/// Literals kept per call of a named template: more are not paths a helper reads.
const MAX_LITERALS: usize = 64;

/// Blocks nested deeper are not followed: reads inside them are taken as guarded.
const MAX_FRAMES: usize = 256;
/// A read under more tested values than this is taken as guarded, so that the
/// guards kept per read stay bounded.
const MAX_GUARDS: usize = 64;

/// Functions of a condition that only test their arguments.
const TESTS: &[&str] = &[
    "not", "and", "or", "empty", "eq", "ne", "lt", "le", "gt", "ge",
];

/// Reads of `.Values` in a file's actions.
pub fn reads(text: &str, actions: &[Action]) -> Reads {
    let mut scanner = Scanner {
        text,
        frames: vec![Frame {
            keyword: None,
            inside: Dot::Root,
            outside: Dot::Root,
            guards: Vec::new(),
            variables: 0,
        }],
        variables: Vec::new(),
        out: Reads::default(),
        overflow: 0,
        define: None,
        last_guards: std::sync::Arc::from(Vec::new()),
        action_tpl: false,
        text_tpl: crate::template::lex::contains(text, "tpl"),
    };
    for action in actions {
        scanner.action(action);
    }
    scanner.out
}

/// What the dot (or a variable) holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dot {
    /// The chart's root context: `.Values` is the values.
    Root,
    /// A value under `.Values`.
    Values(Vec<String>),
    /// A merge of values under `.Values` (`merge .Values.a .Values.global.a`): a
    /// key under it may come from any of them.
    Several(Vec<Vec<String>>),
    /// Inside a define, a path into what the define was handed: `[]` is its dot,
    /// which tether also takes for the root context (`.Values.x` in a define reads
    /// `x`), `.context` is `["context"]`.
    Handed(Vec<String>),
    /// Anything else.
    Unknown,
}

impl Dot {
    /// The root context, or a define's own dot, taken to be it.
    fn is_root(&self) -> bool {
        match self {
            Dot::Root => true,
            Dot::Handed(path) => path.is_empty(),
            _ => false,
        }
    }

    /// A value tether follows reads of.
    fn holds_values(&self) -> bool {
        matches!(self, Dot::Values(_) | Dot::Several(_) | Dot::Handed(_))
    }

    /// What a named template handed this value gets.
    fn arg(self) -> Arg {
        match self {
            Dot::Root => Arg::Root,
            Dot::Values(path) => Arg::Values(path),
            Dot::Several(paths) => Arg::Other(paths.into_iter().map(Arg::Values).collect()),
            Dot::Handed(path) => Arg::Param(path),
            Dot::Unknown => Arg::nothing(),
        }
    }
}

/// How many reads and handed reads were made, to change those made after.
#[derive(Debug, Clone, Copy)]
struct Mark {
    reads: usize,
    handed: usize,
}

#[derive(Debug)]
struct Frame {
    keyword: Option<Keyword>,
    /// The dot in the block; `outside` after its `else`.
    inside: Dot,
    outside: Dot,
    guards: Vec<Vec<String>>,
    /// How many variables were bound when the block opened.
    variables: usize,
}

struct Scanner<'a> {
    text: &'a str,
    frames: Vec<Frame>,
    variables: Vec<(String, Dot)>,
    out: Reads,
    /// Blocks opened beyond [`MAX_FRAMES`], still to be closed.
    overflow: usize,
    /// The define being read.
    define: Option<u32>,
    /// The guards of the last read kept, shared with the next read under the same.
    last_guards: std::sync::Arc<[Vec<String>]>,
    /// The action being read calls `tpl`.
    action_tpl: bool,
    /// The file calls `tpl` somewhere.
    text_tpl: bool,
}

/// Where a pipeline is evaluated.
#[derive(Debug, Clone, Copy)]
struct Place {
    /// The pipeline of an `if`, `with` or `range`.
    condition: bool,
    /// An output action whose every function passes a missing value through.
    plain: bool,
    /// The value is bound to a variable (or to the root's `Values`): a copy of
    /// `.Values` made there is read later, through the variable.
    bound: bool,
    /// The value is handed to a named template (`include`'s argument, or inside a
    /// `dict` or copy there): the call's [`Include::argument`] follows it.
    handed: bool,
}

impl Place {
    /// A pipeline that neither tests nor prints as it is: a binding, a `template`
    /// call, a `block`'s argument.
    const ARGUMENT: Place = Place {
        condition: false,
        plain: false,
        bound: false,
        handed: false,
    };

    /// The argument of a `template` or `block` call.
    const HANDED: Place = Place {
        handed: true,
        ..Place::ARGUMENT
    };
}

#[cfg(test)]
mod tests;
