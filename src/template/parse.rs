//! What Helm's template parser refuses, found without rendering: an `end` or
//! `else` with no block to close, a block never closed, a `define` inside a block,
//! a `break` or `continue` outside a `range`, a function Helm does not define, a
//! `$variable` no declaration in scope names; and a call of a function whose
//! argument count is fixed with another count, which fails when the line
//! renders. Each is said as Helm says it, with where.

use std::ops::Range;

use super::functions;
use super::lex::{Action, ActionKind, Keyword};

/// One thing Helm's parser (or, for an argument count, its renderer) refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The bytes it is about.
    pub span: Range<usize>,
    pub message: String,
    /// What to do.
    pub help: &'static str,
}

/// Everything of `text` (whose actions are `actions`) Helm's parser refuses, in
/// file order.
pub fn refusals(text: &str, actions: &[Action]) -> Vec<Refusal> {
    let mut found = blocks(text, actions);
    for action in actions {
        if action.kind != ActionKind::Comment {
            calls(text, action, &mut found);
        }
    }
    for used in super::scope::uses(text, actions) {
        if used.declared.is_none() {
            found.push(Refusal {
                message: format!(
                    "`{}` is not declared here: Helm's parser fails with `undefined variable \"{}\"`",
                    used.name, used.name
                ),
                span: used.span,
                help: "declare it before this action in the same block (`{{ $name := … }}`), or inside a define pass it in the define's argument",
            });
        }
    }
    found.sort_by_key(|refusal| refusal.span.start);
    found
}

/// The word of a control keyword, as Helm's errors spell it.
fn word(keyword: Keyword) -> &'static str {
    match keyword {
        Keyword::If => "if",
        Keyword::Else => "else",
        Keyword::With => "with",
        Keyword::Range => "range",
        Keyword::End => "end",
        Keyword::Define => "define",
        Keyword::Block => "block",
        Keyword::Template => "template",
        Keyword::Break => "break",
        Keyword::Continue => "continue",
    }
}

/// An open block: its keyword, its action, and whether a plain `else` was seen.
struct Open {
    keyword: Keyword,
    span: Range<usize>,
    otherwise: bool,
}

/// The refusals of the block structure: how `end`, `else`, `define`, `break` and
/// `continue` nest.
fn blocks(text: &str, actions: &[Action]) -> Vec<Refusal> {
    let mut found = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let refuse = |found: &mut Vec<Refusal>, span: &Range<usize>, message: String, help| {
        found.push(Refusal {
            span: span.clone(),
            message,
            help,
        });
    };
    for action in actions {
        let ActionKind::Control(keyword) = action.kind else {
            continue;
        };
        if keyword == Keyword::Define && !open.is_empty() {
            refuse(
                &mut found,
                &action.span,
                "a `{{define}}` inside a block: Helm's parser allows a define only at the top of a file".into(),
                "end the block before the define, or move the define to the top level",
            );
        }
        match keyword {
            Keyword::End if open.pop().is_none() => refuse(
                &mut found,
                &action.span,
                "an `{{end}}` with no block to close: Helm's parser fails with `unexpected {{end}}`".into(),
                "remove it, or open the block it was meant to close",
            ),
            Keyword::Else => {
                let body = action.body_text(text).trim();
                let chained = body
                    .strip_prefix("else")
                    .is_some_and(|rest| !rest.trim().is_empty());
                match open.last_mut() {
                    Some(block)
                        if matches!(block.keyword, Keyword::If | Keyword::With | Keyword::Range)
                            && !block.otherwise =>
                    {
                        block.otherwise = !chained;
                    }
                    Some(block) if block.otherwise => refuse(
                        &mut found,
                        &action.span,
                        format!("an `{{{{else}}}}` after the `{{{{else}}}}` of this `{{{{{}}}}}`: Helm's parser fails with `expected end; found {{{{else}}}}`", word(block.keyword)),
                        "merge the two else branches, or end the block first",
                    ),
                    _ => refuse(
                        &mut found,
                        &action.span,
                        "an `{{else}}` outside an `if`, `with` or `range`: Helm's parser fails with `unexpected {{else}}`".into(),
                        "remove it, or open the block it belongs to",
                    ),
                }
            }
            Keyword::Break | Keyword::Continue => {
                let in_range = open
                    .iter()
                    .rev()
                    .take_while(|block| !matches!(block.keyword, Keyword::Define | Keyword::Block))
                    .any(|block| block.keyword == Keyword::Range);
                if !in_range {
                    refuse(
                        &mut found,
                        &action.span,
                        format!(
                            "a `{{{{{}}}}}` outside a `range`: Helm's parser fails with `{{{{{}}}}} outside {{{{range}}}}`",
                            word(keyword),
                            word(keyword)
                        ),
                        "use it inside a range, or remove it",
                    );
                }
            }
            _ if keyword.opens_block() => open.push(Open {
                keyword,
                span: action.span.clone(),
                otherwise: false,
            }),
            _ => {}
        }
    }
    for block in open {
        refuse(
            &mut found,
            &block.span,
            format!(
                "this `{{{{{}}}}}` is never closed: Helm's parser fails at the end of the file with `unexpected EOF`",
                word(block.keyword)
            ),
            "close it with `{{ end }}` where its block ends",
        );
    }
    found
}

/// A token of an action's body.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A name: a function, a keyword or `nil`/`true`/`false`.
    Name(Range<usize>),
    /// `$name` and the fields after it.
    Variable,
    /// `.Field.Chain` (or `.` alone); `glued` when it follows a `)` directly,
    /// and so is a field of that group's value.
    Field {
        glued: bool,
    },
    /// A string, a character or a number.
    Literal,
    Open,
    Close,
    Pipe,
    Comma,
    Assign,
}

/// The tokens of the action body at `body` of `text`.
fn tokens(text: &str, body: Range<usize>) -> Vec<Token> {
    let bytes = text.as_bytes();
    let name_byte = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let mut found = Vec::new();
    let mut at = body.start;
    while at < body.end {
        let byte = bytes[at];
        let start = at;
        at += 1;
        let token = match byte {
            b' ' | b'\t' | b'\r' | b'\n' => continue,
            b'"' | b'\'' | b'`' => {
                while at < body.end && bytes[at] != byte {
                    at += if bytes[at] == b'\\' && byte != b'`' {
                        2
                    } else {
                        1
                    };
                }
                at = (at + 1).min(body.end);
                Token::Literal
            }
            b'(' => Token::Open,
            b')' => Token::Close,
            b'|' => Token::Pipe,
            b',' => Token::Comma,
            b'=' => Token::Assign,
            b':' if bytes.get(at) == Some(&b'=') => {
                at += 1;
                Token::Assign
            }
            b'$' | b'.' => {
                while at < body.end && (name_byte(bytes[at]) || bytes[at] == b'.') {
                    at += 1;
                }
                if byte == b'$' {
                    Token::Variable
                } else {
                    Token::Field {
                        glued: found.last() == Some(&Token::Close)
                            && start > 0
                            && bytes[start - 1] == b')',
                    }
                }
            }
            b'0'..=b'9' | b'-' | b'+' => {
                while at < body.end
                    && (name_byte(bytes[at])
                        || bytes[at] == b'.'
                        || (matches!(bytes[at], b'+' | b'-')
                            && matches!(bytes[at - 1], b'e' | b'E' | b'p' | b'P')))
                {
                    at += 1;
                }
                Token::Literal
            }
            _ if byte.is_ascii_alphabetic() || byte == b'_' => {
                while at < body.end && name_byte(bytes[at]) {
                    at += 1;
                }
                Token::Name(start..at)
            }
            _ => Token::Literal,
        };
        found.push(token);
    }
    found
}

/// Names that are literals, not calls.
const LITERALS: &[&str] = &["nil", "true", "false"];

/// The refusals of the calls of `action`: functions Helm does not define, and
/// argument counts a function's fixed arity refuses.
fn calls(text: &str, action: &Action, found: &mut Vec<Refusal>) {
    let tokens = tokens(text, action.body.clone());
    let mut at = 0;
    let name = |token: Option<&Token>| match token {
        Some(Token::Name(range)) => Some(&text[range.clone()]),
        _ => None,
    };
    // The keyword, and what it takes before its pipeline.
    match name(tokens.first()) {
        Some("if" | "with" | "range") => at = 1,
        Some("else") => {
            at = 1;
            if matches!(name(tokens.get(1)), Some("if" | "with")) {
                at = 2;
            }
        }
        Some("template" | "block" | "define") => at = 2,
        Some("end" | "break" | "continue") => return,
        _ => {}
    }
    // A declaration: `$x :=`, `$i, $v :=`, `$x =`.
    let declares = match &tokens[at.min(tokens.len())..] {
        [Token::Variable, Token::Assign, ..] => 2,
        [
            Token::Variable,
            Token::Comma,
            Token::Variable,
            Token::Assign,
            ..,
        ] => 4,
        _ => 0,
    };
    at += declares;
    let mut parser = Calls {
        text,
        tokens: &tokens,
        at,
        found,
    };
    parser.pipeline();
}

/// The calls of a pipeline's tokens, read in one pass.
struct Calls<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
    found: &'a mut Vec<Refusal>,
}

/// An operand of a command: a name (a call), or anything else.
enum Operand {
    Name(Range<usize>),
    Value,
}

impl Calls<'_> {
    /// Reads a pipeline up to its closing `)` or the end, checking each command.
    fn pipeline(&mut self) {
        let mut piped = false;
        loop {
            let mut operands: Vec<Operand> = Vec::new();
            while let Some(token) = self.tokens.get(self.at) {
                match token {
                    Token::Pipe | Token::Close => break,
                    Token::Open => {
                        self.at += 1;
                        self.pipeline();
                        operands.push(Operand::Value);
                    }
                    Token::Name(range) => operands.push(Operand::Name(range.clone())),
                    Token::Field { glued: true } | Token::Comma | Token::Assign => {}
                    Token::Field { glued: false } | Token::Variable | Token::Literal => {
                        operands.push(Operand::Value);
                    }
                }
                self.at += 1;
            }
            self.command(&operands, piped);
            match self.tokens.get(self.at) {
                Some(Token::Pipe) => {
                    self.at += 1;
                    piped = true;
                }
                // A group's `)` is taken by the caller, which steps past it.
                _ => return,
            }
        }
    }

    /// Checks one command: each name is a function Helm defines; the first is
    /// called with the operands after it (and the piped value), any other with
    /// none.
    fn command(&mut self, operands: &[Operand], piped: bool) {
        for (index, operand) in operands.iter().enumerate() {
            let Operand::Name(range) = operand else {
                continue;
            };
            let name = &self.text[range.clone()];
            if LITERALS.contains(&name) {
                continue;
            }
            let Some(function) = functions::lookup(name) else {
                let mut message = format!(
                    "`{name}` is no function Helm defines: Helm's parser fails with `function \"{name}\" not defined`"
                );
                if let Some(nearest) = nearest(name) {
                    message.push_str(&format!("; did you mean `{nearest}`?"));
                }
                self.found.push(Refusal {
                    span: range.clone(),
                    message,
                    help: "call a function that Go's templates, Sprig or Helm define (the editor's completion lists them), or fix its spelling",
                });
                continue;
            };
            let given = if index == 0 {
                operands.len() - 1 + usize::from(piped)
            } else {
                0
            };
            let (least, most) = function.arity();
            if given < least || most.is_some_and(|most| given > most) {
                let wants = match most {
                    Some(most) if most == least => format!("{least}"),
                    Some(most) => format!("{least} to {most}"),
                    None => format!("at least {least}"),
                };
                self.found.push(Refusal {
                    span: range.clone(),
                    message: format!(
                        "`{name}` takes {wants} argument{}, and this call gives it {given}{}: Helm fails when the line renders with `wrong number of args for {name}`",
                        if wants == "1" { "" } else { "s" },
                        if piped && index == 0 { " (the piped value counted)" } else { "" }
                    ),
                    help: "give the function the arguments its signature names (the editor shows it on hover), or wrap a call used as an argument in parentheses",
                });
            }
        }
    }
}

/// The function most like `name`, if one is close.
fn nearest(name: &str) -> Option<&'static str> {
    functions::FUNCTIONS
        .iter()
        .map(|function| (strsim::jaro_winkler(name, function.name), function.name))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<String> {
        let (actions, _) = super::super::lex::lex(text);
        refusals(text, &actions)
            .into_iter()
            .map(|refusal| format!("{}: {}", &text[refusal.span], refusal.message))
            .collect()
    }

    #[test]
    fn what_helm_accepts_is_not_refused() {
        let text = r#"{{- define "x" -}}{{ $name := default "a" .Values.name | trunc 63 | trimSuffix "-" }}{{ $name }}{{- end -}}
{{ range $i, $e := .Values.list }}{{ if eq $i 0 }}{{ continue }}{{ else if $e }}{{ break }}{{ else }}{{ $e }}{{ end }}{{ end }}
{{ include "x" . | nindent 4 }}{{ template "x" . }}{{ (.Values.a).b }}{{ printf "%s-%d" "a" 1 }}{{ now }}
{{ toYaml (merge (dict "a" 1) .Values.b) | indent 2 }}{{ if and .Values.a (not .Values.b) }}{{ end }}{{ with $x := .Values.c }}{{ $x }}{{ end }}
{{ list }}{{ nil }}{{ true }}{{ -1.5e+3 }}{{ 'a' }}{{ `raw "quoted" $nope` }}{{/* $nothing unknownFunc */}}"#;
        assert_eq!(messages(text), Vec::<String>::new());
    }

    #[test]
    fn what_helm_refuses_is_said_as_it_says_it() {
        let text = r#"{{ end }}{{ else }}{{ if .a }}{{ else }}{{ else }}{{ end }}{{ break }}
{{ toYml .Values.a }}{{ $undeclared }}{{ trunc 63 }}{{ .Values.a | trunc 1 2 }}{{ default upper "x" }}
{{ if .b }}{{ define "inside" }}{{ end }}{{ end }}{{ with .c }}"#;
        insta::assert_snapshot!(messages(text).join("\n"), @r#"
{{ end }}: an `{{end}}` with no block to close: Helm's parser fails with `unexpected {{end}}`
{{ else }}: an `{{else}}` outside an `if`, `with` or `range`: Helm's parser fails with `unexpected {{else}}`
{{ else }}: an `{{else}}` after the `{{else}}` of this `{{if}}`: Helm's parser fails with `expected end; found {{else}}`
{{ break }}: a `{{break}}` outside a `range`: Helm's parser fails with `{{break}} outside {{range}}`
toYml: `toYml` is no function Helm defines: Helm's parser fails with `function "toYml" not defined`; did you mean `toYaml`?
$undeclared: `$undeclared` is not declared here: Helm's parser fails with `undefined variable "$undeclared"`
trunc: `trunc` takes 2 arguments, and this call gives it 1: Helm fails when the line renders with `wrong number of args for trunc`
trunc: `trunc` takes 2 arguments, and this call gives it 3 (the piped value counted): Helm fails when the line renders with `wrong number of args for trunc`
upper: `upper` takes 1 argument, and this call gives it 0: Helm fails when the line renders with `wrong number of args for upper`
{{ define "inside" }}: a `{{define}}` inside a block: Helm's parser allows a define only at the top of a file
{{ with .c }}: this `{{with}}` is never closed: Helm's parser fails at the end of the file with `unexpected EOF`
"#);
    }
}
