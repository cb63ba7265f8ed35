//! What a template reads from `.Values`, followed through the scopes of
//! `text/template`: `with` and `range` move the dot, variables hold values, and
//! `index`, `dig`, `hasKey`, `get` and `set` spell keys as strings.
//!
//! Followed: `.Values.a.b` and `$.Values.a.b` (also inside `define`, taken to be
//! called with the chart's root); inside `with .Values.a`, `.b` is `a.b` and `.` is
//! `a`; `$v := .Values.a` then `$v.b`; `index .Values "a" "b"`, `dig "a" "b" x
//! .Values`, `hasKey .Values.a "b"`, `get .Values.a "b"`, `set .Values.a "b" x`. A
//! value passed whole (`toYaml .Values.a`, `include "x" .Values.a`, `range
//! .Values.a`) is read whole. Not followed, and never guessed at: the dot inside
//! `range` and inside a `define` other than `.Values`, variables bound to anything
//! else, keys computed at render time. `.Values` itself passed whole, or indexed by a
//! computed key, makes the template [`Reads::opaque`]: what it reads cannot be known.

use std::ops::Range;

use super::lex::{Action, ActionKind, Keyword};

/// How a read uses the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Use {
    /// The value itself, its keys and everything under them: printed, passed to a
    /// function, ranged over.
    Whole,
    /// Only whether it is there: a condition, a `with` subject, a variable binding,
    /// `hasKey`. What is under it is read only where a later read says so.
    Touch,
}

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
    /// Where the template uses `.Values` whole or by a computed key (offset).
    pub opaque: Option<usize>,
    /// Each `define` (or the top of the file) that uses `.Values` in a way that
    /// cannot be followed, once per define and kind, with the first offset.
    pub opaque_uses: Vec<Opaque>,
    /// Values the template writes (`set .Values.a "b" x`): `a.b`.
    pub set: Vec<Vec<String>>,
    /// Files of the chart the template reads by name (`.Files.Get "files/x.conf"`),
    /// which may be rendered with `tpl`.
    pub files: Vec<String>,
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
    /// Anything else.
    Unknown,
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
}

impl Place {
    /// A pipeline that neither tests nor prints as it is: a binding, a `template`
    /// call, a `block`'s argument.
    const ARGUMENT: Place = Place {
        condition: false,
        plain: false,
        bound: false,
    };
}

impl Scanner<'_> {
    fn dot(&self) -> Dot {
        self.frames
            .last()
            .map_or(Dot::Root, |frame| frame.inside.clone())
    }

    fn guards(&self) -> Vec<Vec<String>> {
        self.frames
            .iter()
            .flat_map(|frame| frame.guards.iter().cloned())
            .collect()
    }

    fn action(&mut self, action: &Action) {
        let body = action.body_text(self.text);
        let base = action.body.start;
        match action.kind {
            ActionKind::Comment => {}
            ActionKind::Control(keyword) => self.control(keyword, body, base),
            ActionKind::Assignment => {
                let tokens = tokenize(body, base);
                self.binding(&tokens, Place::ARGUMENT, false);
            }
            ActionKind::Output => {
                let tokens = tokenize(body, base);
                let plain = tokens.iter().all(|token| match &token.kind {
                    Kind::Ident(name) => PASS_THROUGH.contains(&name.as_str()),
                    _ => true,
                });
                let items = parse(&tokens);
                self.pipeline(
                    &items,
                    Place {
                        condition: false,
                        plain,
                        bound: false,
                    },
                );
            }
        }
    }

    fn control(&mut self, keyword: Keyword, body: &str, base: usize) {
        if keyword.opens_block() && (self.overflow > 0 || self.frames.len() >= MAX_FRAMES) {
            self.overflow += 1;
            return;
        }
        let (rest, rest_base) = after_keyword(body, base);
        let tokens = tokenize(rest, rest_base);
        match keyword {
            Keyword::If | Keyword::With | Keyword::Range => self.open_block(keyword, &tokens),
            Keyword::Else => self.else_branch(rest, rest_base, &tokens),
            Keyword::End => self.end_block(),
            Keyword::Define | Keyword::Block => {
                let items = parse(&tokens);
                if keyword == Keyword::Block {
                    // `block "name" ARG` calls the template it defines.
                    self.pipeline(&items, Place::ARGUMENT);
                    if let Some(command) = items.first() {
                        self.include(command, Call::Block);
                    }
                }
                // Defines do not nest: one inside another is a template error.
                if let Some(Item::Str(name, _)) = items.first().and_then(|command| command.first())
                {
                    if self.define.is_none() && self.out.defines.len() < u32::MAX as usize {
                        self.define = Some(self.out.defines.len() as u32);
                        self.out.defines.push(name.clone());
                    }
                }
                self.frames.push(Frame {
                    keyword: Some(keyword),
                    inside: Dot::Root,
                    outside: Dot::Root,
                    guards: Vec::new(),
                    variables: self.variables.len(),
                });
            }
            Keyword::Template => {
                let items = parse(&tokens);
                self.pipeline(&items, Place::ARGUMENT);
                if let Some(command) = items.first() {
                    self.include(command, Call::Template);
                }
            }
            Keyword::Break | Keyword::Continue => {}
        }
    }

    /// `if`, `with` or `range` and its pipeline (`tokens`): records its reads and
    /// opens a block whose dot is the `with`'s subject, unknown in a `range`, and
    /// the dot outside in an `if`.
    fn open_block(&mut self, keyword: Keyword, tokens: &[Token]) {
        let variables = self.variables.len();
        let outside = self.dot();
        let place = Place {
            condition: keyword != Keyword::Range,
            plain: false,
            bound: false,
        };
        let before = self.out.reads.len();
        let (subject, guards) = self.binding(tokens, place, keyword == Keyword::Range);
        if keyword == Keyword::Range {
            // Ranging reads every element.
            for read in &mut self.out.reads[before..] {
                read.use_ = Use::Whole;
            }
        }
        let inside = match keyword {
            Keyword::With => subject,
            Keyword::Range => Dot::Unknown,
            _ => outside.clone(),
        };
        self.frames.push(Frame {
            keyword: Some(keyword),
            inside,
            outside,
            guards,
            variables,
        });
    }

    /// `else`, `else if …` or `else with …` (`rest` after `else`, at `rest_base`,
    /// and its tokens): another condition in the same block, and the dot the rest
    /// of the block has.
    fn else_branch(&mut self, rest: &str, rest_base: usize, tokens: &[Token]) {
        let place = Place {
            condition: true,
            plain: false,
            bound: false,
        };
        let (subject, guards) = if tokens.is_empty() {
            (None, Vec::new())
        } else {
            let (inner, inner_base) = after_keyword(rest, rest_base);
            let (dot, guards) = self.binding(&tokenize(inner, inner_base), place, false);
            (rest.trim_start().starts_with("with").then_some(dot), guards)
        };
        if let Some(frame) = self.frames.last_mut() {
            frame.inside = match subject {
                Some(dot) => dot,
                None if frame.keyword == Some(Keyword::With) => frame.outside.clone(),
                None => frame.inside.clone(),
            };
            frame.guards.extend(guards);
        }
    }

    /// `end`: closes the innermost block (one beyond [`MAX_FRAMES`] first), never
    /// the file's own frame, and forgets the variables bound inside it.
    fn end_block(&mut self) {
        if self.overflow > 0 {
            self.overflow -= 1;
        } else if self.frames.len() > 1 {
            if let Some(frame) = self.frames.pop() {
                self.variables.truncate(frame.variables);
                if matches!(frame.keyword, Some(Keyword::Define | Keyword::Block)) {
                    self.define = None;
                }
            }
        }
    }

    /// `$a, $b := pipeline` or a bare pipeline: records its reads, binds the
    /// variables, and returns what a lone value it evaluates to holds and the
    /// values it tests.
    ///
    /// In a `range`, the variables hold an element (and its index), never the
    /// collection.
    fn binding(&mut self, tokens: &[Token], place: Place, range: bool) -> (Dot, Vec<Vec<String>>) {
        let declare = tokens
            .iter()
            .position(|token| matches!(token.kind, Kind::Declare | Kind::Assign));
        let (names, pipeline) = match declare {
            Some(at) => (
                tokens[..at]
                    .iter()
                    .filter_map(|token| match &token.kind {
                        Kind::Chain {
                            variable: Some(name),
                            fields,
                        } if fields.is_empty() => Some(name.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>(),
                &tokens[at + 1..],
            ),
            None => (Vec::new(), tokens),
        };
        let items = parse(pipeline);
        let before = self.out.reads.len();
        let value = self.lone_value(&items);
        let bound = value.is_some();
        let place = if bound || place.condition {
            place
        } else {
            Place::ARGUMENT
        };
        self.pipeline(
            &items,
            Place {
                bound: !names.is_empty() && !range,
                ..place
            },
        );
        if bound {
            // A lone value bound or tested is touched, not read whole.
            for read in &mut self.out.reads[before..] {
                read.use_ = Use::Touch;
            }
        }
        let guards = self.out.reads[before..]
            .iter()
            .map(|read| read.path.clone())
            .collect();
        let dot = value.clone().unwrap_or(Dot::Unknown);
        // `range $v := …`, `range $i, $v := …`: neither is the collection.
        let single = names.len() == 1 && !range;
        for name in names {
            let held = if single { dot.clone() } else { Dot::Unknown };
            match declare.map(|at| &tokens[at].kind) {
                Some(Kind::Assign) => {
                    // `$v = …` inside a block may or may not run: a variable that
                    // held values keeps them unless it is given other values, so
                    // reads through it still count.
                    if let Some(variable) =
                        self.variables.iter_mut().rev().find(|(n, _)| *n == name)
                    {
                        if matches!(held, Dot::Values(_)) || !matches!(variable.1, Dot::Values(_)) {
                            variable.1 = held;
                        }
                    }
                }
                _ => self.variables.push((name, held)),
            }
        }
        (dot, guards)
    }

    /// What a pipeline of one command of one operand holds (`.Values.a`, `.`, `$v`).
    ///
    /// `(.Values.a).b` holds `a.b`; a copy or merge of values (`deepCopy
    /// .Values.a`, `omit .Values "x"`) holds the widest of them.
    fn lone_value(&self, items: &[Vec<Item>]) -> Option<Dot> {
        let [command] = items else { return None };
        match command.as_slice() {
            [item] => self.value_of(item),
            [Item::Ident(function), arguments @ ..] if COPIES.contains(&function.as_str()) => {
                arguments
                    .iter()
                    .filter_map(|item| match self.value_of(item) {
                        Some(Dot::Values(path)) => Some(path),
                        _ => None,
                    })
                    .min_by_key(Vec::len)
                    .map(Dot::Values)
            }
            _ => None,
        }
    }

    /// What one operand holds, if it is a value tether follows.
    fn value_of(&self, item: &Item) -> Option<Dot> {
        match item {
            Item::Chain {
                variable, fields, ..
            } => match self.resolve(variable.as_deref(), fields) {
                Some(path) => Some(Dot::Values(path)),
                None => {
                    let base = self.base(variable.as_deref());
                    (fields.is_empty()).then_some(base)
                }
            },
            Item::Group { commands, fields } => match self.lone_value(commands)? {
                Dot::Values(mut path) => {
                    path.extend(fields.iter().cloned());
                    Some(Dot::Values(path))
                }
                Dot::Root if fields.is_empty() => Some(Dot::Root),
                Dot::Root => {
                    let at = fields.iter().position(|field| field == "Values")?;
                    Some(Dot::Values(fields[at + 1..].to_vec()))
                }
                Dot::Unknown => None,
            },
            _ => None,
        }
    }

    fn base(&self, variable: Option<&str>) -> Dot {
        match variable {
            None => self.dot(),
            Some("") => Dot::Root,
            Some(name) => self
                .variables
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map_or(Dot::Unknown, |(_, dot)| dot.clone()),
        }
    }

    /// The values path a chain reads, if it reads one; `Some([])` is `.Values`
    /// itself.
    fn resolve(&self, variable: Option<&str>, fields: &[String]) -> Option<Vec<String>> {
        // `.context.Values.a`, `$root.Values.a`: a helper called with a dict that
        // carries the root context, as charts pass it.
        let carried = || {
            let at = fields.iter().position(|field| field == "Values")?;
            Some(fields[at + 1..].to_vec())
        };
        match self.base(variable) {
            Dot::Root | Dot::Unknown => carried(),
            Dot::Values(path) => {
                let mut path = path.clone();
                path.extend(fields.iter().cloned());
                Some(path)
            }
        }
    }

    fn pipeline(&mut self, commands: &[Vec<Item>], place: Place) {
        for command in commands {
            self.command(command, place);
        }
    }

    /// One command of a pipeline evaluated at `place` (a function and its
    /// arguments, or a lone operand): records what its arguments read.
    fn command(&mut self, items: &[Item], place: Place) {
        let function = match items.first() {
            Some(Item::Ident(name)) => Some(name.as_str()),
            _ => None,
        };
        let arguments = if function.is_some() {
            &items[1..]
        } else {
            items
        };
        let use_ = match function {
            None => {
                if place.condition {
                    Use::Touch
                } else {
                    Use::Whole
                }
            }
            Some(name) if place.condition && TESTS.contains(&name) => Use::Touch,
            Some("hasKey") => Use::Touch,
            Some(_) => Use::Whole,
        };
        if function == Some("include") {
            self.include(arguments, Call::Include);
        }
        let command = InCommand {
            function,
            arguments,
            place,
            use_,
        };
        if self.sets_values(&command) {
            return;
        }
        for (index, item) in arguments.iter().enumerate() {
            match item {
                Item::Group { commands, fields } => {
                    self.group_argument(&command, item, commands, fields);
                }
                Item::Chain {
                    variable,
                    fields,
                    span,
                } => self.chain_argument(&command, index, variable.as_deref(), fields, span),
                _ => {}
            }
        }
    }

    /// `set . "Values" …` (or `set $ "Values" …`): the root context's values
    /// replaced by a copy or merge of themselves, as library charts do. Records
    /// that, and the reads inside the new values (the copy itself is none); returns
    /// whether the command is one.
    fn sets_values(&mut self, command: &InCommand) -> bool {
        let arguments = command.arguments;
        let sets_values = command.function == Some("set")
            && matches!(arguments.get(1), Some(Item::Str(key, _)) if key == "Values")
            && arguments
                .first()
                .is_some_and(|item| self.value_of(item) == Some(Dot::Root));
        if !sets_values {
            return false;
        }
        if !self.out.sets_values.contains(&self.define) {
            self.out.sets_values.push(self.define);
        }
        let place = Place {
            bound: true,
            ..command.place
        };
        for item in &arguments[2..] {
            if let Item::Group { commands, .. } = item {
                self.pipeline(commands, place);
            }
        }
        true
    }

    /// A parenthesized pipeline (`item`: its `commands`, then `fields` taken of its
    /// value) passed to `command`: its reads, and the read of the fields.
    fn group_argument(
        &mut self,
        command: &InCommand,
        item: &Item,
        commands: &[Vec<Item>],
        fields: &[String],
    ) {
        let (function, place) = (command.function, command.place);
        let inner = Place {
            condition: place.condition && function.is_none_or(|name| TESTS.contains(&name)),
            plain: place.plain && fields.is_empty(),
            bound: place.bound && function.is_none_or(|f| COPIES.contains(&f)),
        };
        if fields.is_empty() {
            self.pipeline(commands, inner);
        } else {
            // `(.Values.a).b`: `a` is only dereferenced; `a.b` is what
            // the command uses. The idiom tolerates a missing `a`, so
            // the read is never plain.
            let before = self.out.reads.len();
            self.pipeline(commands, inner);
            let whole = self.value_of(item);
            for read in &mut self.out.reads[before..] {
                read.use_ = Use::Touch;
                read.plain = false;
            }
            if let Some(Dot::Values(path)) = whole {
                let span = self.out.reads[before..]
                    .first()
                    .map_or(0..0, |read| read.span.clone());
                self.push_read(path, span, command.use_, false);
            }
        }
    }

    /// A chain (`variable` and `fields`, spelled at `span`) passed to `command` as
    /// its argument number `index`: the read of the value it names, with the keys
    /// that `index`, `get`, `hasKey`, `set`, `unset`, `pluck` and `dig` spell as
    /// strings; `.Values` itself used whole or by a computed key makes the file
    /// opaque.
    fn chain_argument(
        &mut self,
        command: &InCommand,
        index: usize,
        variable: Option<&str>,
        fields: &[String],
        span: &Range<usize>,
    ) {
        let (function, arguments, place) = (command.function, command.arguments, command.place);
        if fields.len() == 2 && fields[0] == "Files" && fields[1] == "Get" {
            if let Some(Item::Str(name, _)) = arguments.get(index + 1) {
                self.out.files.push(name.clone());
            }
            return;
        }
        let Some(mut path) = self.resolve(variable, fields) else {
            return;
        };
        let mut use_ = command.use_;
        match function {
            // index X "a" "b", get X "a", hasKey X "a", set X "a" v
            Some("index" | "get" | "hasKey" | "set" | "unset") if index == 0 => {
                let (keys, all) = string_keys(&arguments[1..]);
                let take = match function {
                    Some("index") => keys.len(),
                    _ => keys.len().min(1),
                };
                let complete = all || take < keys.len() || function != Some("index");
                path.extend(keys.into_iter().take(take));
                if function == Some("set") || function == Some("unset") {
                    self.out.set.push(path.clone());
                    return;
                }
                if !complete && path.is_empty() {
                    self.opaque(span.start, Opacity::Computed);
                    return;
                }
                if function == Some("hasKey") {
                    use_ = Use::Touch;
                }
            }
            // dig "a" "b" default X
            // pluck "key" X Y: `X.key`, `Y.key`
            Some("pluck") if index >= 1 => {
                if let Some(Item::Str(key, _)) = arguments.first() {
                    path.push(key.clone());
                }
            }
            Some("dig") if index + 1 == arguments.len() && index >= 2 => {
                let (keys, all) = {
                    let mut keys = Vec::new();
                    let mut all = true;
                    for item in &arguments[..index - 1] {
                        match item {
                            Item::Str(key, _) => keys.push(key.clone()),
                            _ => all = false,
                        }
                    }
                    (keys, all)
                };
                if !all && path.is_empty() {
                    self.opaque(span.start, Opacity::Computed);
                    return;
                }
                if all {
                    path.extend(keys);
                }
            }
            _ => {}
        }
        if path.is_empty() {
            // A copy of `.Values` bound to a variable is read through
            // the variable.
            if place.bound && function.is_none_or(|f| COPIES.contains(&f)) {
                return;
            }
            // `.Values` whole: to a helper, `toYaml`, `tpl`…
            self.opaque(span.start, Opacity::Whole);
            return;
        }
        let plain =
            place.plain && self.overflow == 0 && function.is_none_or(|f| PASS_THROUGH.contains(&f));
        self.push_read(path, span.clone(), use_, plain);
    }

    fn push_read(&mut self, path: Vec<String>, span: Range<usize>, use_: Use, plain: bool) {
        let mut plain = plain;
        let count: usize = self.frames.iter().map(|frame| frame.guards.len()).sum();
        if count > MAX_GUARDS {
            plain = false;
        }
        let wanted = if plain { count } else { 0 };
        let same = self.last_guards.len() == wanted
            && (wanted == 0
                || self
                    .last_guards
                    .iter()
                    .eq(self.frames.iter().flat_map(|frame| frame.guards.iter())));
        if !same {
            self.last_guards = std::sync::Arc::from(if plain { self.guards() } else { Vec::new() });
        }
        let guards = self.last_guards.clone();
        self.out.reads.push(Read {
            path,
            span,
            use_,
            plain,
            guards,
            define: self.define,
        });
    }

    /// Records a call of a named template: `arguments` are the name and the
    /// argument (`include`'s, or the whole command of `template` and `block`).
    fn include(&mut self, arguments: &[Item], call: Call) {
        let Some(Item::Str(name, span)) = arguments.first() else {
            return;
        };
        let argument = arguments.get(1);
        let root = argument.is_some_and(|item| self.carries_root(item, 0));
        let mut literals = Vec::new();
        if let Some(item) = argument {
            collect_literals(item, &mut literals, 0);
        }
        self.out.includes.push(Include {
            name: name.clone(),
            span: span.clone(),
            call,
            define: self.define,
            root,
            literals,
        });
    }

    /// Whether an argument hands the root context on: `.` or `$` where that is
    /// the root, or a `dict`/`list`/`merge` holding it.
    fn carries_root(&self, item: &Item, depth: usize) -> bool {
        match item {
            Item::Chain {
                variable, fields, ..
            } => fields.is_empty() && self.base(variable.as_deref()) == Dot::Root,
            Item::Group { commands, fields } if fields.is_empty() && depth < 8 => commands
                .iter()
                .flatten()
                .any(|item| self.carries_root(item, depth + 1)),
            _ => false,
        }
    }

    fn opaque(&mut self, offset: usize, kind: Opacity) {
        self.out.opaque.get_or_insert(offset);
        let define = self.define;
        if !self
            .out
            .opaque_uses
            .iter()
            .any(|used| used.define == define && used.kind == kind)
        {
            self.out.opaque_uses.push(Opaque {
                offset,
                define,
                kind,
            });
        }
    }
}

/// The command an argument is passed to, as its reads depend on it.
struct InCommand<'a> {
    /// The function it calls, if it is a call.
    function: Option<&'a str>,
    arguments: &'a [Item],
    place: Place,
    /// How the command uses the values of its arguments.
    use_: Use,
}

/// The leading string literals of `items`, and whether every item is one.
fn string_keys(items: &[Item]) -> (Vec<String>, bool) {
    let mut keys = Vec::new();
    for item in items {
        match item {
            Item::Str(key, _) => keys.push(key.clone()),
            _ => return (keys, false),
        }
    }
    (keys, true)
}

/// What follows the keyword that starts `body` (`if`, `else`, `with`, …), and its
/// offset in the file; `base` is the body's.
fn after_keyword(body: &str, base: usize) -> (&str, usize) {
    let word = body.trim_start();
    let skipped = body.len() - word.len();
    let after = word
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(word.len());
    (&word[after..], base + skipped + after)
}

/// One token of an action.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    kind: Kind,
    span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Open,
    /// `)`, with the fields that follow it (`(…).a.b`).
    Close(Vec<String>),
    Pipe,
    Declare,
    Assign,
    Str(String),
    Ident(String),
    /// `.a.b` (no variable), `$.a`, `$v.a`; `variable` is `""` for `$`.
    Chain {
        variable: Option<String>,
        fields: Vec<String>,
    },
    Other,
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The tokens of an action's body; `base` is the body's offset in the file.
fn tokenize(body: &str, base: usize) -> Vec<Token> {
    let bytes = body.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let byte = bytes[at];
        let kind = match byte {
            b' ' | b'\t' | b'\n' | b'\r' => {
                at += 1;
                continue;
            }
            b'(' => {
                at += 1;
                Kind::Open
            }
            b')' => {
                at += 1;
                // `(…).field`: a field of the group's value.
                let mut fields = Vec::new();
                at = fields_from(body, at, &mut fields);
                Kind::Close(fields)
            }
            b'|' => {
                at += 1;
                Kind::Pipe
            }
            b':' if bytes.get(at + 1) == Some(&b'=') => {
                at += 2;
                Kind::Declare
            }
            b'=' => {
                at += 1;
                Kind::Assign
            }
            b'"' => {
                let (value, end) = interpreted_string(body, at);
                at = end;
                Kind::Str(value)
            }
            b'`' => {
                let (value, end) = raw_string(body, at);
                at = end;
                Kind::Str(value)
            }
            b'\'' => {
                at = after_character(bytes, at);
                Kind::Other
            }
            b'.' => {
                let mut fields = Vec::new();
                at = fields_from(body, at, &mut fields);
                if fields.is_empty() {
                    at += 1;
                }
                Kind::Chain {
                    variable: None,
                    fields,
                }
            }
            b'$' => {
                let end = word_end(bytes, at + 1);
                let name = body[at + 1..end].to_string();
                let mut fields = Vec::new();
                at = fields_from(body, end, &mut fields);
                Kind::Chain {
                    variable: Some(name),
                    fields,
                }
            }
            byte if byte.is_ascii_alphabetic() || byte == b'_' => {
                let end = word_end(bytes, at);
                let name = body[at..end].to_string();
                let mut ignored = Vec::new();
                at = fields_from(body, end, &mut ignored);
                if ignored.is_empty() {
                    Kind::Ident(name)
                } else {
                    Kind::Other
                }
            }
            _ => {
                // Numbers, operators of other dialects, stray bytes: one character.
                at += body[at..].chars().next().map_or(1, char::len_utf8);
                while at < bytes.len() && (is_word(bytes[at]) || bytes[at] == b'.') {
                    at += 1;
                }
                Kind::Other
            }
        };
        tokens.push(Token {
            kind,
            span: base + start..base + at,
        });
    }
    tokens
}

/// Where the word that starts at `from` ends (`from` when none does).
fn word_end(bytes: &[u8], from: usize) -> usize {
    let mut end = from;
    while end < bytes.len() && is_word(bytes[end]) {
        end += 1;
    }
    end
}

/// Reads the fields `.a.b` that start at `from` into `fields`; returns where they
/// end.
fn fields_from(body: &str, mut from: usize, fields: &mut Vec<String>) -> usize {
    let bytes = body.as_bytes();
    while from + 1 < bytes.len() && bytes[from] == b'.' && is_word(bytes[from + 1]) {
        let end = word_end(bytes, from + 1);
        fields.push(body[from + 1..end].to_string());
        from = end;
    }
    from
}

/// The value of the `"…"` string that opens at `at` (each escaped character taken
/// as it is, without its backslash), and the position after it; an unclosed one
/// runs to the end of the body.
fn interpreted_string(body: &str, mut at: usize) -> (String, usize) {
    let bytes = body.as_bytes();
    let mut value = String::new();
    at += 1;
    while at < bytes.len() && bytes[at] != b'"' {
        if bytes[at] == b'\\' && at + 1 < bytes.len() {
            at += 1;
        }
        let length = body[at..].chars().next().map_or(1, char::len_utf8);
        value.push_str(&body[at..at + length]);
        at += length;
    }
    (value, (at + 1).min(bytes.len()))
}

/// The value of the `` `…` `` string that opens at `at`, and the position after it.
fn raw_string(body: &str, at: usize) -> (String, usize) {
    let end = body[at + 1..].find('`').map_or(body.len(), |e| at + 1 + e);
    let value = body[at + 1..end].to_string();
    (value, (end + 1).min(body.len()))
}

/// The position after the `'…'` character constant that opens at `at`.
fn after_character(bytes: &[u8], mut at: usize) -> usize {
    at += 1;
    while at < bytes.len() && bytes[at] != b'\'' {
        at += if bytes[at] == b'\\' { 2 } else { 1 };
    }
    (at + 1).min(bytes.len())
}

/// One operand of a command.
#[derive(Debug, Clone)]
enum Item {
    Chain {
        variable: Option<String>,
        fields: Vec<String>,
        span: Range<usize>,
    },
    /// A string literal: its value, and where it is spelled (quotes included).
    Str(String, Range<usize>),
    Ident(String),
    /// A parenthesized pipeline, and the fields taken of its value.
    Group {
        commands: Vec<Vec<Item>>,
        fields: Vec<String>,
    },
    Other,
}

/// Commands of a pipeline, parentheses nested (at most 64 deep; deeper is one
/// opaque operand).
fn parse(tokens: &[Token]) -> Vec<Vec<Item>> {
    let mut at = 0;
    parse_pipeline(tokens, &mut at, 0).0
}

/// The commands up to the closing parenthesis, and the fields taken after it.
fn parse_pipeline(tokens: &[Token], at: &mut usize, depth: usize) -> (Vec<Vec<Item>>, Vec<String>) {
    let mut commands = vec![Vec::new()];
    let mut after = Vec::new();
    while *at < tokens.len() {
        let token = &tokens[*at];
        *at += 1;
        let item = match &token.kind {
            Kind::Close(fields) => {
                after.clone_from(fields);
                break;
            }
            Kind::Pipe => {
                commands.push(Vec::new());
                continue;
            }
            Kind::Open if depth < 64 => {
                let (commands, fields) = parse_pipeline(tokens, at, depth + 1);
                Item::Group { commands, fields }
            }
            Kind::Chain { variable, fields } => Item::Chain {
                variable: variable.clone(),
                fields: fields.clone(),
                span: token.span.clone(),
            },
            Kind::Str(value) => Item::Str(value.clone(), token.span.clone()),
            Kind::Ident(name) => Item::Ident(name.clone()),
            _ => Item::Other,
        };
        if let Some(command) = commands.last_mut() {
            command.push(item);
        }
    }
    commands.retain(|command| !command.is_empty());
    (commands, after)
}

/// The string literals of an argument, groups included, bounded.
fn collect_literals(item: &Item, literals: &mut Vec<String>, depth: usize) {
    match item {
        Item::Str(value, _) if literals.len() < MAX_LITERALS => literals.push(value.clone()),
        Item::Group { commands, .. } if depth < 8 => {
            for item in commands.iter().flatten() {
                collect_literals(item, literals, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, Use, bool)> {
        let (actions, _) = super::super::lex::lex(text);
        reads(text, &actions)
            .reads
            .into_iter()
            .map(|read| (read.path.join("."), read.use_, read.plain))
            .collect()
    }

    #[test]
    fn scopes_and_keys_are_followed() {
        let text = "{{ .Values.a.b }}\n{{- with .Values.devices }}{{ .x | quote }}{{ toYaml . }}{{ end }}\n{{ $v := .Values.img }}{{ $v.tag }}\n{{ index .Values \"c\" \"d\" }}{{ dig \"e\" \"f\" 1 .Values }}\n{{ if .Values.on }}{{ $.Values.g }}{{ end }}{{ range .Values.list }}{{ .name }}{{ end }}";
        assert_eq!(
            paths(text),
            vec![
                ("a.b".into(), Use::Whole, true),
                ("devices".into(), Use::Touch, false),
                ("devices.x".into(), Use::Whole, true),
                ("devices".into(), Use::Whole, true),
                ("img".into(), Use::Touch, false),
                ("img.tag".into(), Use::Whole, true),
                ("c.d".into(), Use::Whole, true),
                ("e.f".into(), Use::Whole, false),
                ("on".into(), Use::Touch, false),
                ("g".into(), Use::Whole, true),
                ("list".into(), Use::Whole, false),
            ]
        );
    }

    /// Nesting and guards are bounded: 5,000 nested `if`s each testing a value, then
    /// 5,000 printed reads, keep at most `MAX_GUARDS` guards per read.
    #[test]
    fn deep_nesting_keeps_guards_bounded() {
        let depth = 5_000;
        let mut text = String::new();
        for index in 0..depth {
            text.push_str(&format!("{{{{ if .Values.g{index} }}}}"));
        }
        for index in 0..depth {
            text.push_str(&format!("{{{{ .Values.r{index} }}}}"));
        }
        text.push_str(&"{{ end }}".repeat(depth));
        let (actions, _) = super::super::lex::lex(&text);
        let found = reads(&text, &actions);
        let kept: usize = found.reads.iter().map(|read| read.guards.len()).sum();
        assert!(kept <= MAX_GUARDS * found.reads.len());
        assert!(
            found
                .reads
                .iter()
                .filter(|read| read.path[0].starts_with('r'))
                .all(|read| !read.plain)
        );
    }

    /// The read forms of Helm charts, each followed as Helm evaluates it.
    #[test]
    fn read_forms_are_followed() {
        let text = concat!(
            "{{ if (.Values.gateway).enabled }}{{ end }}",
            "{{ range $port := .Values.ports }}{{ $port.containerPort }}{{ end }}",
            "{{ range $k, $v := .Values.env }}{{ $v.value }}{{ end }}",
            "{{ $x := .Values.a }}{{ if .Values.on }}{{ $x = .Values.b }}{{ end }}{{ $x.c }}",
            "{{ pluck \"key\" .Values.p .Values.q }}",
            "{{ $user := deepCopy (omit .Values \"common\") }}{{ $_ := set . \"Values\" (deepCopy $user) }}",
        );
        let (actions, _) = super::super::lex::lex(text);
        let found = reads(text, &actions);
        let paths: Vec<String> = found.reads.iter().map(|read| read.path.join(".")).collect();
        assert!(paths.contains(&"gateway.enabled".to_string()), "{paths:?}");
        assert!(
            !paths.iter().any(|path| path.starts_with("ports.")),
            "{paths:?}"
        );
        assert!(
            !paths.iter().any(|path| path.starts_with("env.")),
            "{paths:?}"
        );
        assert!(paths.contains(&"b.c".to_string()), "{paths:?}");
        assert!(paths.contains(&"p.key".to_string()) && paths.contains(&"q.key".to_string()));
        assert!(
            found.opaque.is_none(),
            "a copy of .Values bound and set back is no opaque use"
        );
        assert_eq!(found.sets_values, [None]);
    }

    /// Calls of named templates, with whether they hand on the root context.
    #[test]
    fn calls_say_whether_they_carry_the_root() {
        let text = concat!(
            "{{ define \"a\" }}{{ include \"b\" . }}{{ end }}",
            "{{ include \"c\" (dict \"context\" $ \"key\" \"auth.password\") }}",
            "{{ template \"d\" .Values.x }}",
            "{{ with .Values.y }}{{ include \"e\" . }}{{ end }}",
        );
        let (actions, _) = super::super::lex::lex(text);
        let found = reads(text, &actions);
        let calls: Vec<(&str, Option<u32>, bool)> = found
            .includes
            .iter()
            .map(|call| (call.name.as_str(), call.define, call.root))
            .collect();
        assert_eq!(
            calls,
            [
                ("b", Some(0), true),
                ("c", None, true),
                ("d", None, false),
                ("e", None, false)
            ]
        );
        assert_eq!(found.defines, ["a"]);
        assert_eq!(
            found.includes[1].literals,
            ["context", "key", "auth.password"]
        );
        // Each call with how it is made and where its name is spelled.
        let spelled: Vec<(Call, &str)> = found
            .includes
            .iter()
            .map(|call| (call.call, &text[call.span.clone()]))
            .collect();
        assert_eq!(
            spelled,
            [
                (Call::Include, "\"b\""),
                (Call::Include, "\"c\""),
                (Call::Template, "\"d\""),
                (Call::Include, "\"e\"")
            ]
        );
        // A name computed at render time is no call of a named template.
        let text = "{{ include (printf \"%s.x\" .Chart.Name) . }}{{ block \"f\" . }}{{ end }}";
        let (actions, _) = super::super::lex::lex(text);
        let found = reads(text, &actions);
        let calls: Vec<(&str, Call)> = found
            .includes
            .iter()
            .map(|call| (call.name.as_str(), call.call))
            .collect();
        assert_eq!(calls, [("f", Call::Block)]);
    }

    #[test]
    fn values_passed_whole_are_opaque() {
        let text = "{{ include \"x\" (dict \"v\" .Values) }}";
        let (actions, _) = super::super::lex::lex(text);
        assert!(reads(text, &actions).opaque.is_some());
        let text = "{{ index .Values $key }}";
        let (actions, _) = super::super::lex::lex(text);
        assert!(reads(text, &actions).opaque.is_some());
    }
}
