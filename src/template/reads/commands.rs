//! The pipelines and commands of an action: what each argument reads of `.Values`,
//! with the keys spelled as strings, the calls of named templates, and the uses that
//! cannot be followed.

use std::ops::Range;

use super::syntax::{Item, collect_literals};
use super::{
    COPIES, Call, Dot, Include, MAX_GUARDS, Opacity, Opaque, PASS_THROUGH, Place, Read, Scanner,
    TESTS, Use,
};

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
pub(super) fn after_keyword(body: &str, base: usize) -> (&str, usize) {
    let word = body.trim_start();
    let skipped = body.len() - word.len();
    let after = word
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(word.len());
    (&word[after..], base + skipped + after)
}
