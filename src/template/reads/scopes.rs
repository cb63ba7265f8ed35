//! The scopes the scanner follows: the blocks of `if`, `with`, `range` and
//! `define`, what the dot holds in each, and the variables bound on the way.

use super::commands::after_keyword;
use super::syntax::{Item, Kind, Token, parse, tokenize};
use super::{COPIES, Call, Dot, Frame, MAX_FRAMES, PASS_THROUGH, Place, Scanner, Use};
use crate::template::lex::{Action, ActionKind, Keyword};

impl Scanner<'_> {
    fn dot(&self) -> Dot {
        self.frames
            .last()
            .map_or(Dot::Root, |frame| frame.inside.clone())
    }

    pub(super) fn guards(&self) -> Vec<Vec<String>> {
        self.frames
            .iter()
            .flat_map(|frame| frame.guards.iter().cloned())
            .collect()
    }

    pub(super) fn action(&mut self, action: &Action) {
        let body = action.body_text(self.text);
        let base = action.body.start;
        self.action_tpl = crate::template::lex::contains(body, "tpl");
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
                        plain,
                        ..Place::ARGUMENT
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
                    self.pipeline(&items, Place::HANDED);
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
                // The define's dot is what its callers hand it.
                self.frames.push(Frame {
                    keyword: Some(keyword),
                    inside: Dot::Handed(Vec::new()),
                    outside: Dot::Handed(Vec::new()),
                    guards: Vec::new(),
                    variables: self.variables.len(),
                });
            }
            Keyword::Template => {
                let items = parse(&tokens);
                self.pipeline(&items, Place::HANDED);
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
            ..Place::ARGUMENT
        };
        let before = self.mark();
        let (subject, guards) = self.binding(tokens, place, keyword == Keyword::Range);
        if keyword == Keyword::Range {
            // Ranging reads every element.
            self.since(before, |read| read.use_ = Use::Whole);
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
            ..Place::ARGUMENT
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
        let before = self.mark();
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
            self.since(before, |read| read.use_ = Use::Touch);
        }
        let guards = self.out.reads[before.reads..]
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
                        variable.1 =
                            reassigned(std::mem::replace(&mut variable.1, Dot::Unknown), held);
                    }
                }
                _ => self.variables.push((name, held)),
            }
        }
        (dot, guards)
    }

    /// What a pipeline of one command of one operand holds (`.Values.a`, `.`, `$v`).
    ///
    /// `(.Values.a).b` holds `a.b`; a copy of values (`deepCopy .Values.a`, `omit
    /// .Values "x"`) holds them, a merge of several (`merge .Values.a
    /// .Values.global.a`) holds each.
    fn lone_value(&self, items: &[Vec<Item>]) -> Option<Dot> {
        let [command] = items else { return None };
        match command.as_slice() {
            [item] => self.value_of(item),
            [Item::Ident(function), arguments @ ..] if COPIES.contains(&function.as_str()) => {
                let mut paths = Vec::new();
                for item in arguments {
                    match self.value_of(item) {
                        Some(Dot::Values(path)) => paths.push(path),
                        Some(Dot::Several(several)) => paths.extend(several),
                        _ => {}
                    }
                }
                paths.sort();
                paths.dedup();
                match paths.len() {
                    0 => None,
                    1 => paths.pop().map(Dot::Values),
                    _ => Some(Dot::Several(paths)),
                }
            }
            _ => None,
        }
    }

    /// What one operand holds, if it is a value tether follows.
    pub(super) fn value_of(&self, item: &Item) -> Option<Dot> {
        match item {
            Item::Chain {
                variable, fields, ..
            } => match self.resolve(variable.as_deref(), fields) {
                Some(dot) => Some(dot),
                None => {
                    let base = self.base(variable.as_deref());
                    (fields.is_empty()).then_some(base)
                }
            },
            Item::Group { commands, fields } => {
                let value = self.lone_value(commands)?;
                if fields.is_empty() {
                    return Some(value);
                }
                match value {
                    Dot::Unknown => None,
                    value => extended(value, fields),
                }
            }
            _ => None,
        }
    }

    pub(super) fn base(&self, variable: Option<&str>) -> Dot {
        match variable {
            None => self.dot(),
            // `$` in a define is what the define was handed.
            Some("") if self.define.is_some() => Dot::Handed(Vec::new()),
            Some("") => Dot::Root,
            Some(name) => self
                .variables
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map_or(Dot::Unknown, |(_, dot)| dot.clone()),
        }
    }

    /// What a chain reads, if it reads values: a values path (`Dot::Values([])` is
    /// `.Values` itself), several, or in a define a path into what it was handed.
    pub(super) fn resolve(&self, variable: Option<&str>, fields: &[String]) -> Option<Dot> {
        match self.base(variable) {
            // `.context.Values.a`, `$root.Values.a`: a helper called with a dict
            // that carries the root context, as charts pass it.
            Dot::Root | Dot::Unknown => carried(fields).map(Dot::Values),
            base => extended(base, fields),
        }
    }
}

/// What a variable holding `old` holds after `$v = new` in a block that may not
/// run: values it held stay (with the new ones, if values too); values reached
/// through `.Values` stay over a path into what a define was handed.
fn reassigned(old: Dot, new: Dot) -> Dot {
    let paths = |dot: &Dot| match dot {
        Dot::Values(path) => Some(vec![path.clone()]),
        Dot::Several(paths) => Some(paths.clone()),
        _ => None,
    };
    if !old.holds_values() {
        return new;
    }
    match (paths(&old), paths(&new)) {
        (Some(mut all), Some(added)) => {
            all.extend(added);
            all.sort();
            all.dedup();
            match all.len() {
                1 => all.pop().map_or(Dot::Unknown, Dot::Values),
                _ => Dot::Several(all),
            }
        }
        (None, Some(_)) => new,
        _ => old,
    }
}

/// The values path after `Values` in `fields`, if it is there.
fn carried(fields: &[String]) -> Option<Vec<String>> {
    let at = fields.iter().position(|field| field == "Values")?;
    Some(fields[at + 1..].to_vec())
}

/// What `fields` of `value` hold.
fn extended(value: Dot, fields: &[String]) -> Option<Dot> {
    let join = |mut path: Vec<String>| {
        path.extend(fields.iter().cloned());
        path
    };
    match value {
        Dot::Root | Dot::Unknown => carried(fields).map(Dot::Values),
        Dot::Values(path) => Some(Dot::Values(join(path))),
        Dot::Several(paths) => Some(Dot::Several(paths.into_iter().map(join).collect())),
        // A define's dot is taken for the root context too: `.Values.a` in it
        // reads `a`, whoever calls it.
        Dot::Handed(path) => {
            let path = join(path);
            Some(match carried(&path) {
                Some(values) => Dot::Values(values),
                None => Dot::Handed(path),
            })
        }
    }
}
