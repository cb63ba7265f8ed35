//! Which `$variables` a template may name where, as `text/template`'s parser
//! scopes them: `$` always; a variable from its declaration (`$x := …`, `range
//! $i, $v := …`) to the `end` of the control structure it was declared in (the
//! `if`, `range` or `with` whose pipeline or body declares it; an `else` does not
//! end it); and inside a `define` or `block`, none declared outside it.

use crate::collections::HashMap;
use std::ops::Range;

use super::lex::{Action, ActionKind, Keyword};

/// A declared variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// As written, with its `$` (`$name`).
    pub name: String,
    /// The action that declares it.
    pub declared: Range<usize>,
}

/// One control structure: the names it declared.
#[derive(Debug, Default)]
struct Frame {
    names: Vec<String>,
}

/// The scopes of a template, stepped through its actions in order. A lookup costs
/// the same however many variables are declared: each name keeps its declarations
/// in scope, innermost last.
#[derive(Debug)]
pub struct Scope {
    frames: Vec<Frame>,
    /// Per name: its declarations in scope, each with its frame and its order of
    /// declaration.
    declared: HashMap<String, Vec<(usize, usize, Range<usize>)>>,
    /// Declarations so far.
    count: usize,
    /// The frames of the `define`s and `block`s open, innermost last.
    seals: Vec<usize>,
}

/// The variables a pipeline declares at its start (`$x :=`, `$i, $v :=`), each with
/// the byte of its `$` in `pipeline`; none for an assignment (`$x =`) or a
/// pipeline that declares nothing.
fn declaration(pipeline: &str) -> Vec<(&str, usize)> {
    let bytes = pipeline.as_bytes();
    let name_at = |at: usize| -> Option<usize> {
        if bytes.get(at) != Some(&b'$') {
            return None;
        }
        let length = bytes[at + 1..]
            .iter()
            .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_')
            .count();
        let starts_well = bytes
            .get(at + 1)
            .is_some_and(|byte| byte.is_ascii_alphabetic() || *byte == b'_');
        starts_well.then_some(at + 1 + length)
    };
    let skip_space = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let mut names = Vec::new();
    let mut at = 0;
    loop {
        let Some(end) = name_at(at) else {
            return Vec::new();
        };
        names.push((&pipeline[at..end], at));
        at = skip_space(end);
        match bytes.get(at) {
            Some(b',') if names.len() == 1 => at = skip_space(at + 1),
            Some(b':') if bytes.get(at + 1) == Some(&b'=') => return names,
            _ => return Vec::new(),
        }
    }
}

impl Default for Scope {
    fn default() -> Scope {
        Scope {
            frames: vec![Frame::default()],
            declared: HashMap::default(),
            count: 0,
            seals: Vec::new(),
        }
    }
}

impl Scope {
    /// Takes in `action` of `text`: its `end` closes a structure, its keyword opens
    /// one, its declarations are in scope from the next action on.
    pub fn step(&mut self, text: &str, action: &Action) {
        match action.kind {
            ActionKind::Comment => return,
            ActionKind::Control(Keyword::End) => {
                if self.frames.len() > 1 {
                    if let Some(frame) = self.frames.pop() {
                        // A `define` or `block` ends: what it sealed is seen again.
                        if self.seals.last() == Some(&self.frames.len()) {
                            self.seals.pop();
                        }
                        for name in frame.names {
                            if let Some(declarations) = self.declared.get_mut(&name) {
                                declarations.pop();
                            }
                        }
                    }
                }
                return;
            }
            ActionKind::Control(Keyword::Define | Keyword::Block) => {
                self.seals.push(self.frames.len());
                self.frames.push(Frame::default());
            }
            ActionKind::Control(Keyword::If | Keyword::With | Keyword::Range) => {
                self.frames.push(Frame::default());
            }
            _ => {}
        }
        let pipeline = pipeline_of(action.body_text(text).trim(), action.kind);
        let depth = self.frames.len() - 1;
        for (name, _) in declaration(pipeline) {
            self.count += 1;
            self.declared.entry(name.to_string()).or_default().push((
                depth,
                self.count,
                action.span.clone(),
            ));
            if let Some(frame) = self.frames.last_mut() {
                frame.names.push(name.to_string());
            }
        }
    }

    /// The frame below which nothing is seen: the innermost `define` or `block`.
    fn floor(&self) -> usize {
        self.seals.last().copied().unwrap_or(0)
    }

    /// The declaration of `$name` (written with its `$`) in scope, if any.
    pub fn lookup(&self, name: &str) -> Option<&Range<usize>> {
        let (depth, _, declared) = self.declared.get(name)?.last()?;
        (*depth >= self.floor()).then_some(declared)
    }

    /// The variables in scope, each name once (the nearest declaration), the
    /// latest declared first.
    pub fn visible(&self) -> Vec<Variable> {
        let floor = self.floor();
        let mut found: Vec<(usize, Variable)> = self
            .declared
            .iter()
            .filter_map(|(name, declarations)| {
                let (depth, order, declared) = declarations.last()?;
                (*depth >= floor).then(|| {
                    let variable = Variable {
                        name: name.clone(),
                        declared: declared.clone(),
                    };
                    (*order, variable)
                })
            })
            .collect();
        found.sort_by_key(|(order, _)| std::cmp::Reverse(*order));
        found.into_iter().map(|(_, variable)| variable).collect()
    }
}

/// One `$variable` spelled in an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// As written, with its `$`.
    pub name: String,
    /// Where it is spelled.
    pub span: Range<usize>,
    /// The action that declares the variable it names: this one for a
    /// declaration; `None` when no declaration is in scope (Helm's parser fails
    /// with "undefined variable").
    pub declared: Option<Range<usize>>,
    /// Whether this spelling declares it (`$x :=`).
    pub declaration: bool,
}

impl Use {
    /// Whether `other` names the same variable: the same name, declared by the same
    /// action.
    pub fn same_variable(&self, other: &Use) -> bool {
        self.name == other.name && self.declared.is_some() && self.declared == other.declared
    }
}

/// Every `$variable` spelled in the actions of `text` (`actions`, in order), each
/// with the declaration it names. `$` alone and `$.field` name the data, not a
/// variable, and are left out.
pub fn uses(text: &str, actions: &[Action]) -> Vec<Use> {
    let mut scope = Scope::default();
    let mut found = Vec::new();
    for action in actions {
        if action.kind == ActionKind::Comment {
            continue;
        }
        let declared = declared_names(text, action);
        for (name, span) in spelled_variables(text, action.body.clone()) {
            let declaration = declared
                .iter()
                .any(|(declared_name, at)| *declared_name == name && *at == span.start);
            let declared = if declaration {
                Some(action.span.clone())
            } else {
                scope.lookup(&name).cloned()
            };
            found.push(Use {
                name,
                span,
                declared,
                declaration,
            });
        }
        scope.step(text, action);
    }
    found
}

/// The names an action declares, each with the byte its `$` is at.
fn declared_names(text: &str, action: &Action) -> Vec<(String, usize)> {
    let body = &text[action.body.clone()];
    let pipeline = pipeline_of(body.trim(), action.kind);
    let start = action.body.start
        + (body.len() - body.trim_start().len())
        + (body.trim().len() - pipeline.len());
    declaration(pipeline)
        .into_iter()
        .map(|(name, at)| (name.to_string(), start + at))
        .collect()
}

/// The `$name` spellings of the action body at `body` of `text`, outside its
/// string literals.
fn spelled_variables(text: &str, body: Range<usize>) -> Vec<(String, Range<usize>)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = body.start;
    while at < body.end {
        match bytes[at] {
            quote @ (b'"' | b'`' | b'\'') => {
                at += 1;
                while at < body.end && bytes[at] != quote {
                    if bytes[at] == b'\\' && quote != b'`' {
                        at += 1;
                    }
                    at += 1;
                }
                at += 1;
            }
            b'$' => {
                let start = at;
                at += 1;
                while at < body.end && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                    at += 1;
                }
                if at > start + 1 {
                    found.push((text[start..at].to_string(), start..at));
                }
            }
            _ => at += 1,
        }
    }
    found
}

/// The variables in scope at byte `offset` of `text`, whose actions are
/// `actions`: those declared by actions that end before it.
pub fn in_scope_at(text: &str, actions: &[Action], offset: usize) -> Vec<Variable> {
    let mut scope = Scope::default();
    for action in actions
        .iter()
        .take_while(|action| action.span.end <= offset)
    {
        scope.step(text, action);
    }
    scope.visible()
}

/// The pipeline of an action whose trimmed body is `body`: after its keyword, where
/// a declaration may start. `else if $x := …` and `else with $x := …` declare
/// into the structure they continue; a `define` has none.
fn pipeline_of(body: &str, kind: ActionKind) -> &str {
    match kind {
        ActionKind::Control(Keyword::If) => after_word(body, "if"),
        ActionKind::Control(Keyword::With) => after_word(body, "with"),
        ActionKind::Control(Keyword::Range) => after_word(body, "range"),
        ActionKind::Control(Keyword::Else) => {
            let rest = after_word(body, "else");
            ["if", "with"]
                .into_iter()
                .find_map(|word| {
                    rest.strip_prefix(word)
                        .filter(|after| after.starts_with(char::is_whitespace))
                })
                .map_or("", str::trim_start)
        }
        ActionKind::Control(_) => "",
        _ => body,
    }
}

/// `body` after its first word `word` and the space after it.
fn after_word<'a>(body: &'a str, word: &str) -> &'a str {
    body.strip_prefix(word).map_or(body, str::trim_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str, needle: &str) -> Vec<String> {
        let (actions, _) = super::super::lex::lex(text);
        let offset = text.find(needle).unwrap();
        in_scope_at(text, &actions, offset)
            .into_iter()
            .map(|variable| variable.name)
            .collect()
    }

    #[test]
    fn variables_are_scoped_as_the_parser_scopes_them() {
        let text = "{{ $top := 1 }}{{ range $i, $item := .Values.list }}{{ $inner := 2 }}{{ if $item }}{{ else }}A{{ end }}B{{ end }}C\
                    {{ define \"x\" }}{{ $local := 3 }}D{{ end }}{{ with $w := .Values.a }}E{{ end }}F";
        assert_eq!(names(text, "A"), ["$inner", "$item", "$i", "$top"]);
        assert_eq!(names(text, "B"), ["$inner", "$item", "$i", "$top"]);
        assert_eq!(names(text, "C"), ["$top"]);
        // A define sees none of the template's variables.
        assert_eq!(names(text, "D"), ["$local"]);
        assert_eq!(names(text, "E"), ["$w", "$top"]);
        assert_eq!(names(text, "F"), ["$top"]);
        // A declaration counts from the next action: not in its own.
        assert_eq!(names("{{ $a := 1 }}{{ $b := $a }}", "$a }}"), ["$a"]);
    }

    #[test]
    fn each_use_names_its_declaration() {
        let text = "{{ $x := 1 }}{{ if $x }}{{ $x := \"$y\" }}{{ $x }}{{ end }}{{ $x }}{{ $z }}";
        let (actions, _) = super::super::lex::lex(text);
        let found: Vec<(String, usize, Option<usize>, bool)> = uses(text, &actions)
            .into_iter()
            .map(|used| {
                let declared = used.declared.map(|span| span.start);
                (used.name, used.span.start, declared, used.declaration)
            })
            .collect();
        assert_eq!(
            found,
            [
                ("$x".to_string(), 3, Some(0), true),
                ("$x".into(), 19, Some(0), false),
                // Shadowed inside the `if`; the string is no use.
                ("$x".into(), 27, Some(24), true),
                ("$x".into(), 43, Some(24), false),
                ("$x".into(), 60, Some(0), false),
                ("$z".into(), 68, None, false),
            ]
        );
    }
}
