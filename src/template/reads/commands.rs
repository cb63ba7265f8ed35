//! The pipelines and commands of an action: what each argument reads of `.Values`,
//! with the keys spelled as strings, the calls of named templates, and the uses that
//! cannot be followed.

use std::ops::Range;

use super::syntax::{Item, collect_literals};
use super::{
    Arg, COPIES, Call, Dot, Include, MAX_GUARDS, Mark, Opacity, Opaque, PASS_THROUGH, Place, Read,
    Scanner, TESTS, Use,
};

/// Functions that hand their arguments on as they are, inside what they make: a
/// value in them handed to a named template is followed into it.
const HANDS_ON: &[&str] = &[
    "include",
    "dict",
    "list",
    "deepCopy",
    "mustDeepCopy",
    "omit",
    "pick",
    "merge",
    "mustMerge",
    "mergeOverwrite",
    "mustMergeOverwrite",
];

/// Nesting of `dict`s followed in an argument.
const MAX_ARG_DEPTH: usize = 6;

impl Scanner<'_> {
    pub(super) fn pipeline(&mut self, commands: &[Vec<Item>], place: Place) {
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
        let place = if function == Some("include") {
            self.include(arguments, Call::Include);
            Place {
                handed: true,
                ..place
            }
        } else {
            place
        };
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
                .is_some_and(|item| self.value_of(item).is_some_and(|dot| dot.is_root()));
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
            handed: place.handed && function.is_none_or(|f| HANDS_ON.contains(&f)),
        };
        if fields.is_empty() {
            self.pipeline(commands, inner);
        } else {
            // `(.Values.a).b`: `a` is only dereferenced; `a.b` is what
            // the command uses. The idiom tolerates a missing `a`, so
            // the read is never plain.
            let before = self.mark();
            self.pipeline(commands, inner);
            let whole = self.value_of(item);
            self.since(before, |read| {
                read.use_ = Use::Touch;
                read.plain = false;
            });
            let span = self.out.reads[before.reads..]
                .first()
                .or(self.out.handed[before.handed..].first())
                .map_or(0..0, |read| read.span.clone());
            match whole {
                Some(Dot::Values(path)) => self.push_read(path, span, command.use_, false),
                Some(Dot::Several(paths)) => {
                    for path in paths {
                        self.push_read(path, span.clone(), command.use_, false);
                    }
                }
                Some(Dot::Handed(path)) => self.push_handed(path, span, command.use_),
                _ => {}
            }
        }
    }

    /// A chain (`variable` and `fields`, spelled at `span`) passed to `command` as
    /// its argument number `index`: the read of the value it names (of each, under a
    /// merge; in a define, of what the define was handed), with the keys that
    /// `index`, `get`, `hasKey`, `set`, `unset`, `pluck` and `dig` spell as strings.
    /// A value handed to a named template is a reference here: the call's argument
    /// follows it into the define.
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
                // Rendered only through `tpl`: in this action, or later through
                // the variable it is bound to.
                if self.action_tpl || (place.bound && self.text_tpl) {
                    self.out.rendered.push(name.clone());
                }
            }
            return;
        }
        let handing = place.handed && function.is_none_or(|f| HANDS_ON.contains(&f));
        match self.resolve(variable, fields) {
            Some(Dot::Values(path)) if handing && !path.is_empty() => {
                self.push_read(path, span.clone(), Use::Touch, false);
            }
            Some(Dot::Values(_)) if handing => {}
            Some(Dot::Values(path)) => self.values_argument(command, index, path, span, true),
            Some(Dot::Several(paths)) => {
                for path in paths {
                    if handing {
                        self.push_read(path, span.clone(), Use::Touch, false);
                    } else {
                        // Each may miss a key the merge has: never plain.
                        self.values_argument(command, index, path, span, false);
                    }
                }
            }
            Some(Dot::Handed(path)) if !handing => {
                if let Some((path, use_)) = self.keyed(command, index, path, span, true) {
                    self.push_handed(path, span.clone(), use_);
                }
            }
            _ => {}
        }
    }

    /// The read of the values `path` names, passed to `command` as its argument
    /// number `index`; `.Values` itself used whole or by a computed key makes the
    /// file opaque.
    fn values_argument(
        &mut self,
        command: &InCommand,
        index: usize,
        path: Vec<String>,
        span: &Range<usize>,
        may_be_plain: bool,
    ) {
        let (function, place) = (command.function, command.place);
        let Some((path, use_)) = self.keyed(command, index, path, span, false) else {
            return;
        };
        if path.is_empty() {
            // A copy of `.Values` bound to a variable is read through
            // the variable.
            if place.bound && function.is_none_or(|f| COPIES.contains(&f)) {
                return;
            }
            // `.Values` whole: printed (`toYaml`), hashed, given to `tpl`…
            self.opaque(span.start, Opacity::Whole);
            return;
        }
        let plain = may_be_plain
            && place.plain
            && self.overflow == 0
            && function.is_none_or(|f| PASS_THROUGH.contains(&f));
        self.push_read(path, span.clone(), use_, plain);
    }

    /// `path` with the keys `command` spells after it as strings, and how it is
    /// used; `None` when the command writes it (`set`, recorded) or reads `.Values`
    /// by a computed key (opaque). Of what a define was handed (`handed`), a
    /// computed key reads the value whole.
    fn keyed(
        &mut self,
        command: &InCommand,
        index: usize,
        mut path: Vec<String>,
        span: &Range<usize>,
        handed: bool,
    ) -> Option<(Vec<String>, Use)> {
        let (function, arguments) = (command.function, command.arguments);
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
                    if !handed {
                        self.out.set.push(path);
                    }
                    return None;
                }
                if !complete && path.is_empty() {
                    if handed {
                        return Some((path, Use::Whole));
                    }
                    self.opaque(span.start, Opacity::Computed);
                    return None;
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
                let (keys, all) = string_keys(&arguments[..index - 1]);
                if !all && path.is_empty() {
                    if handed {
                        return Some((path, Use::Whole));
                    }
                    self.opaque(span.start, Opacity::Computed);
                    return None;
                }
                if all {
                    path.extend(keys);
                }
            }
            _ => {}
        }
        Some((path, use_))
    }

    /// Records a read of what the define being read was handed.
    fn push_handed(&mut self, path: Vec<String>, span: Range<usize>, use_: Use) {
        if self.define.is_none() {
            return;
        }
        self.out.handed.push(Read {
            path,
            span,
            use_,
            plain: false,
            guards: std::sync::Arc::from(Vec::new()),
            define: self.define,
        });
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
    pub(super) fn include(&mut self, arguments: &[Item], call: Call) {
        let Some(Item::Str(name, span)) = arguments.first() else {
            return;
        };
        let argument = arguments.get(1);
        let root = argument.is_some_and(|item| self.carries_root(item, 0));
        let mut literals = Vec::new();
        if let Some(item) = argument {
            collect_literals(item, &mut literals, 0);
        }
        let argument = argument.map_or_else(Arg::nothing, |item| self.arg_of(item, 0).bounded(0));
        self.out.includes.push(Include {
            name: name.clone(),
            span: span.clone(),
            call,
            define: self.define,
            root,
            literals,
            argument,
        });
    }

    /// What an argument of a call hands the named template, as far as values go:
    /// a value tether follows, a `dict` of such, a copy or merge of them.
    fn arg_of(&self, item: &Item, depth: usize) -> Arg {
        if depth > MAX_ARG_DEPTH {
            return Arg::nothing();
        }
        let Item::Group { commands, fields } = item else {
            return self.value_of(item).map_or_else(Arg::nothing, Dot::arg);
        };
        let inner = match commands.as_slice() {
            [command] => match command.as_slice() {
                [Item::Ident(function), rest @ ..] if function == "dict" => Arg::Dict(
                    rest.chunks(2)
                        .filter_map(|pair| match pair {
                            [Item::Str(key, _), value] => {
                                Some((key.clone(), self.arg_of(value, depth + 1)))
                            }
                            _ => None,
                        })
                        .collect(),
                ),
                [Item::Ident(function), rest @ ..]
                    if function == "list" || COPIES.contains(&function.as_str()) =>
                {
                    let mut held: Vec<Arg> = rest
                        .iter()
                        .map(|item| self.arg_of(item, depth + 1))
                        .filter(|arg| *arg != Arg::nothing())
                        .collect();
                    if held.len() == 1 && function != "list" {
                        held.remove(0)
                    } else {
                        Arg::Other(held)
                    }
                }
                [single] => self.arg_of(single, depth + 1),
                _ => self.value_of(item).map_or_else(Arg::nothing, Dot::arg),
            },
            _ => Arg::nothing(),
        };
        if fields.is_empty() {
            inner
        } else {
            inner.at(fields)
        }
    }

    /// Whether an argument hands the root context on: `.` or `$` where that is
    /// the root, or a `dict`/`list`/`merge` holding it.
    fn carries_root(&self, item: &Item, depth: usize) -> bool {
        match item {
            Item::Chain {
                variable, fields, ..
            } => fields.is_empty() && self.base(variable.as_deref()).is_root(),
            Item::Group { commands, fields } if fields.is_empty() && depth < 8 => commands
                .iter()
                .flatten()
                .any(|item| self.carries_root(item, depth + 1)),
            _ => false,
        }
    }

    /// How many reads were made so far.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            reads: self.out.reads.len(),
            handed: self.out.handed.len(),
        }
    }

    /// Changes each read (and handed read) made since `mark`.
    pub(super) fn since(&mut self, mark: Mark, change: impl Fn(&mut Read)) {
        self.out.reads[mark.reads..].iter_mut().for_each(&change);
        self.out.handed[mark.handed..].iter_mut().for_each(&change);
    }

    fn opaque(&mut self, offset: usize, kind: Opacity) {
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
pub(super) fn after_keyword(body: &str, base: usize) -> (&str, usize) {
    let word = body.trim_start();
    let skipped = body.len() - word.len();
    let after = word
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(word.len());
    (&word[after..], base + skipped + after)
}
