//! Finds every Go-template action `{{ … }}` in a file and says what kind it is.
//!
//! The lexer follows `text/template`: `{{-`/`-}}` trim markers, interpreted strings
//! (which may hold `}}` and escapes), raw strings (which may span lines), character
//! constants, and comments `{{/* … */}}` that may span lines. It never fails: an
//! action that does not close is reported and ends at the end of its first line, so
//! the rest of the file is still lexed.

use std::ops::Range;

/// One `{{ … }}` action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// From the first `{` to the last `}` (or to where recovery ended it).
    pub span: Range<usize>,
    /// The text between the delimiters and trim markers.
    pub body: Range<usize>,
    pub kind: ActionKind,
    /// `{{-`: trims whitespace before the action.
    pub trim_left: bool,
    /// `-}}`: trims whitespace after the action.
    pub trim_right: bool,
    /// The last command of the pipeline (`nindent 4` in `include "x" . | nindent 4`).
    pub last_command: Range<usize>,
    /// False when the action never closed and recovery ended it.
    pub terminated: bool,
}

/// What an action does, which decides how it is masked and how it affects anchoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    Control(Keyword),
    /// `$name := …` or `$name = …`.
    Assignment,
    /// `{{/* … */}}`.
    Comment,
    /// Everything that prints: field references, `include`, `toYaml`, function calls.
    Output,
}

/// The control keywords of `text/template`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    If,
    Else,
    With,
    Range,
    End,
    Define,
    Block,
    Template,
    Break,
    Continue,
}

impl Keyword {
    fn from_word(word: &str) -> Option<Keyword> {
        Some(match word {
            "if" => Keyword::If,
            "else" => Keyword::Else,
            "with" => Keyword::With,
            "range" => Keyword::Range,
            "end" => Keyword::End,
            "define" => Keyword::Define,
            "block" => Keyword::Block,
            "template" => Keyword::Template,
            "break" => Keyword::Break,
            "continue" => Keyword::Continue,
            _ => return None,
        })
    }

    /// Keywords whose block is closed by a matching `end`.
    pub fn opens_block(self) -> bool {
        matches!(
            self,
            Keyword::If | Keyword::With | Keyword::Range | Keyword::Define | Keyword::Block
        )
    }
}

impl Action {
    /// The action's body text, without delimiters and trim markers.
    pub fn body_text<'a>(&self, text: &'a str) -> &'a str {
        &text[self.body.clone()]
    }

    /// The text of a comment action without `/*` and `*/`, trimmed.
    pub fn comment_text<'a>(&self, text: &'a str) -> &'a str {
        let body = self.body_text(text).trim();
        let body = body.strip_prefix("/*").unwrap_or(body);
        let body = body.strip_suffix("*/").unwrap_or(body);
        body.trim()
    }

    /// The first word of the pipeline's last command: `nindent` in
    /// `include "x" . | nindent 4`.
    pub fn last_function<'a>(&self, text: &'a str) -> &'a str {
        let command = text[self.last_command.clone()].trim_start();
        let end = command
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(command.len());
        &command[..end]
    }
}

/// An action that did not close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    /// Offset of the `{{` that opened it.
    pub offset: usize,
    pub message: String,
}

/// A template's actions and the lexer's errors, as [`lex`] finds them: made once
/// per template and run, by its chart's scan where the chart read it, and handed
/// to the file's check with its text.
pub type Lexed = (Vec<Action>, Vec<LexError>);

/// Lexes every action of `text`, in order, never overlapping.
pub fn lex(text: &str) -> Lexed {
    let (actions, errors, _) = lex_counting(text);
    (actions, errors)
}

/// [`lex`], and the number of bytes it examined: the work, which tests hold linear
/// in the size of the input whatever the input is.
pub fn lex_counting(text: &str) -> (Vec<Action>, Vec<LexError>, usize) {
    #[cfg(feature = "internals")]
    lexes::note(text);
    let mut lexer = Lexer {
        text,
        work: 0,
        backtick: Memo::default(),
        comment_close: Memo::default(),
    };
    let bytes = text.as_bytes();
    let mut actions = Vec::new();
    let mut errors = Vec::new();
    let mut position = 0;
    while let Some(found) = find_open(bytes, position) {
        lexer.work += found - position;
        let (action, error) = lexer.action(found);
        if let Some(error) = error {
            errors.push(error);
        }
        position = action.span.end.max(found + 2);
        actions.push(action);
    }
    (
        actions,
        errors,
        lexer.work + bytes.len() - position.min(bytes.len()),
    )
}

/// The lexer's state: memos that keep every search forward-only, so no byte is
/// examined more than a bounded number of times (an unclosed raw string or comment
/// would otherwise send every later action to the end of the file again).
struct Lexer<'a> {
    text: &'a str,
    /// Bytes examined.
    work: usize,
    /// The next backtick at or after a position.
    backtick: Memo,
    /// The next `*/` that closes a comment action (`*/}}`, `*/ -}}`).
    comment_close: Memo,
}

/// The answer of a forward search from `from`: the first match at or after it, or
/// none up to the end of the text. A search from a later position reuses it while
/// the match lies ahead of that position.
#[derive(Debug, Default, Clone, Copy)]
struct Memo {
    from: Option<usize>,
    found: Option<usize>,
}

impl Memo {
    fn lookup(&self, position: usize) -> Option<Option<usize>> {
        let from = self.from?;
        match self.found {
            _ if position < from => None,
            None => Some(None),
            Some(found) if found >= position => Some(Some(found)),
            Some(_) => None,
        }
    }
}

fn find_open(bytes: &[u8], from: usize) -> Option<usize> {
    let mut position = from;
    while position + 1 < bytes.len() {
        let next = memchr(b'{', &bytes[position..])? + position;
        if bytes.get(next + 1) == Some(&b'{') {
            return Some(next);
        }
        position = next + 1;
    }
    None
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    memchr::memchr(needle, haystack)
}

/// The end of the line holding `offset`, before its `\r\n` or `\n`.
fn line_end_before_cr(bytes: &[u8], offset: usize) -> usize {
    let end = memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |n| offset + n);
    if end > offset && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// The white space `text/template` reads around a trim marker and trims beside it:
/// space, tab, carriage return, newline (a form feed is text to it).
pub fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// How many bytes of white space end `bytes[..at]`: what a `{{-` at `at` trims.
pub fn space_before(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|&&byte| is_space(byte))
        .count()
}

/// How many bytes of white space start `bytes[at..]`: what a `-}}` ending at `at`
/// trims.
pub fn space_after(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .take_while(|&&byte| is_space(byte))
        .count()
}

impl Lexer<'_> {
    /// Lexes the action whose `{{` is at `open`.
    fn action(&mut self, open: usize) -> (Action, Option<LexError>) {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut cursor = open + 2;
        let trim_left =
            bytes.get(cursor) == Some(&b'-') && bytes.get(cursor + 1).is_some_and(|&b| is_space(b));
        if trim_left {
            cursor += 2;
        }
        let body_start = cursor;
        // A comment is `/*` right after the delimiter and its trim marker.
        let after_space = skip_spaces(bytes, cursor);
        if bytes[after_space..].starts_with(b"/*") && (after_space == cursor || trim_left) {
            return self.comment(open, trim_left, body_start, after_space + 2);
        }

        let mut paren_depth = 0usize;
        let mut last_command_start = body_start;
        let scan_start = cursor;
        while cursor < bytes.len() {
            match bytes[cursor] {
                b'"' => cursor = skip_interpreted_string(bytes, cursor + 1),
                b'\'' => cursor = skip_char_constant(bytes, cursor + 1),
                b'`' => match self.next_backtick(cursor + 1) {
                    Some(close) => cursor = close + 1,
                    None => cursor = bytes.len(),
                },
                b'(' => {
                    paren_depth += 1;
                    cursor += 1;
                }
                b')' => {
                    paren_depth = paren_depth.saturating_sub(1);
                    cursor += 1;
                }
                b'|' if paren_depth == 0 => {
                    cursor += 1;
                    last_command_start = cursor;
                }
                b'-' if bytes[cursor..].starts_with(b"-}}")
                    && cursor > body_start
                    && is_space(bytes[cursor - 1]) =>
                {
                    self.work += cursor - scan_start;
                    let action = finish(
                        text,
                        open..cursor + 3,
                        body_start..cursor,
                        trim_left,
                        true,
                        last_command_start..cursor,
                    );
                    return (action, None);
                }
                b'}' if bytes.get(cursor + 1) == Some(&b'}') => {
                    self.work += cursor - scan_start;
                    let action = finish(
                        text,
                        open..cursor + 2,
                        body_start..cursor,
                        trim_left,
                        false,
                        last_command_start..cursor,
                    );
                    return (action, None);
                }
                b'{' if bytes.get(cursor + 1) == Some(&b'{') => break,
                _ => cursor += 1,
            }
        }
        // Never closed: end the action at the end of its first line, or before the next
        // `{{`, so the rest of the file is lexed normally. The line's end is looked for
        // only up to where the scan stopped.
        self.work += cursor.min(bytes.len()) - scan_start;
        // The end never passes the line's end, not even for the whitespace a trim
        // marker takes (`{{-` and a newline): the next line is not the action's.
        let stop = cursor.max(body_start).min(bytes.len());
        let end = line_end_before_cr(&bytes[..stop], open);
        let mut action = finish(
            text,
            open..end,
            body_start.min(end)..end,
            trim_left,
            false,
            last_command_start.min(end)..end,
        );
        action.terminated = false;
        let error = LexError {
        offset: open,
        message: "unterminated template action: `{{` is never closed by `}}`; close it on this line or the lines below".into(),
    };
        (action, Some(error))
    }

    fn comment(
        &mut self,
        open: usize,
        trim_left: bool,
        body_start: usize,
        cursor: usize,
    ) -> (Action, Option<LexError>) {
        let text = self.text;
        let bytes = text.as_bytes();
        if let Some(comment_end) = self.next_comment_close(cursor) {
            let mut close = comment_end;
            let mut trim_right = false;
            let spaces_end = skip_spaces(bytes, close);
            if bytes[spaces_end..].starts_with(b"-}}") && spaces_end > close {
                trim_right = true;
                close = spaces_end + 1;
            }
            let mut action = finish(
                text,
                open..close + 2,
                body_start..comment_end,
                trim_left,
                trim_right,
                comment_end..comment_end,
            );
            action.kind = ActionKind::Comment;
            return (action, None);
        }
        let line_end = line_end_before_cr(bytes, open);
        self.work += line_end - open;
        let mut action = finish(
            text,
            open..line_end,
            body_start..line_end,
            trim_left,
            false,
            line_end..line_end,
        );
        action.kind = ActionKind::Comment;
        action.terminated = false;
        let error = LexError {
        offset: open,
        message: "unterminated template comment: `{{/*` is never closed by `*/}}`; close it where the comment ends".into(),
    };
        (action, Some(error))
    }

    /// The next backtick at or after `from`.
    fn next_backtick(&mut self, from: usize) -> Option<usize> {
        if let Some(known) = self.backtick.lookup(from) {
            return known;
        }
        let bytes = self.text.as_bytes();
        let found = memchr(b'`', &bytes[from..]).map(|n| from + n);
        self.work += found.map_or(bytes.len(), |n| n + 1) - from;
        self.backtick = Memo {
            from: Some(from),
            found,
        };
        found
    }

    /// Just past the first `*/` at or after `from` that closes a comment action: `}}`
    /// follows it, or spaces and `-}}`.
    fn next_comment_close(&mut self, from: usize) -> Option<usize> {
        if let Some(known) = self.comment_close.lookup(from) {
            return known;
        }
        let bytes = self.text.as_bytes();
        let mut cursor = from;
        let found = loop {
            let Some(star) = find_bytes(&bytes[cursor..], b"*/") else {
                break None;
            };
            let comment_end = cursor + star + 2;
            let spaces_end = skip_spaces(bytes, comment_end);
            let closes = bytes[comment_end..].starts_with(b"}}")
                || (spaces_end > comment_end && bytes[spaces_end..].starts_with(b"-}}"));
            self.work += spaces_end - cursor;
            if closes {
                break Some(comment_end);
            }
            cursor = comment_end;
        };
        if found.is_none() {
            self.work += bytes.len() - cursor;
        }
        self.comment_close = Memo {
            from: Some(from),
            found,
        };
        found
    }
}

fn finish(
    text: &str,
    span: Range<usize>,
    body: Range<usize>,
    trim_left: bool,
    trim_right: bool,
    last_command: Range<usize>,
) -> Action {
    let kind = classify(&text[body.clone()]);
    Action {
        span,
        body,
        kind,
        trim_left,
        trim_right,
        last_command,
        terminated: true,
    }
}

/// Classifies an action by its first word.
fn classify(body: &str) -> ActionKind {
    let body = body.trim_start();
    let word_end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    if let Some(keyword) = Keyword::from_word(&body[..word_end]) {
        return ActionKind::Control(keyword);
    }
    if is_assignment(body) {
        return ActionKind::Assignment;
    }
    ActionKind::Output
}

/// `$x := …`, `$x = …`, `$a, $b := …`.
fn is_assignment(body: &str) -> bool {
    let mut rest = body;
    loop {
        let Some(after_dollar) = rest.strip_prefix('$') else {
            return false;
        };
        let name_end = after_dollar
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after_dollar.len());
        rest = after_dollar[name_end..].trim_start();
        if let Some(more) = rest.strip_prefix(',') {
            rest = more.trim_start();
            continue;
        }
        return rest.starts_with(":=") || (rest.starts_with('=') && !rest.starts_with("=="));
    }
}

fn skip_spaces(bytes: &[u8], mut cursor: usize) -> usize {
    while cursor < bytes.len() && is_space(bytes[cursor]) {
        cursor += 1;
    }
    cursor
}

/// Skips to just past the closing quote; an interpreted string ends at a newline
/// when it is not closed (as `text/template` reports), so recovery stays local.
fn skip_interpreted_string(bytes: &[u8], mut cursor: usize) -> usize {
    while cursor < bytes.len() {
        match bytes[cursor] {
            b'\\' => cursor += 2,
            b'"' => return cursor + 1,
            b'\n' => return cursor,
            _ => cursor += 1,
        }
    }
    bytes.len()
}

fn skip_char_constant(bytes: &[u8], mut cursor: usize) -> usize {
    while cursor < bytes.len() {
        match bytes[cursor] {
            b'\\' => cursor += 2,
            b'\'' => return cursor + 1,
            b'\n' => return cursor,
            _ => cursor += 1,
        }
    }
    bytes.len()
}

fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// Whether `text` contains `needle`: `str::contains` with memchr's vectorised
/// search, for the tests a check runs over every template's whole text (`{{`,
/// `tpl`, `.Files`), where the standard search was a sixtieth of its time.
pub(crate) fn contains(text: &str, needle: &str) -> bool {
    find_bytes(text.as_bytes(), needle.as_bytes()).is_some()
}

/// How many times this process lexed the texts a test watches, by the xxh3 hash of
/// their bytes: for the test that holds a check to lexing each template once. Only
/// watched texts are counted, and only while a watch lasts: a fuzz target, which
/// builds with the same feature, hashes nothing and keeps nothing.
#[cfg(feature = "internals")]
pub mod lexes {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, PoisonError};

    use crate::collections::HashMap;

    /// How many watches are open.
    static WATCHES: AtomicUsize = AtomicUsize::new(0);
    /// The lexings of each watched text so far.
    static COUNTS: Mutex<Option<HashMap<u64, usize>>> = Mutex::new(None);

    /// Counts a lexing of `text`, if it is watched.
    pub(super) fn note(text: &str) {
        if WATCHES.load(Ordering::Relaxed) == 0 {
            return;
        }
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        let mut counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = counts.as_mut().and_then(|counts| counts.get_mut(&hash)) {
            *count += 1;
        }
    }

    /// Counts the lexings of `texts` from now until the watch is dropped.
    pub fn watch<'a>(texts: impl IntoIterator<Item = &'a str>) -> Watch {
        let hashes: Vec<u64> = texts
            .into_iter()
            .map(|text| xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
            .collect();
        let mut counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        let counts = counts.get_or_insert_default();
        for hash in &hashes {
            counts.insert(*hash, 0);
        }
        WATCHES.fetch_add(1, Ordering::Relaxed);
        Watch(hashes)
    }

    /// A watch of some texts' lexings.
    pub struct Watch(Vec<u64>);

    impl Watch {
        /// How many times `text`, one of the watched, was lexed since the watch began.
        pub fn of(&self, text: &str) -> usize {
            let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
            let counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
            counts
                .as_ref()
                .and_then(|counts| counts.get(&hash).copied())
                .unwrap_or(0)
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            let mut counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(counts) = counts.as_mut() {
                for hash in &self.0 {
                    counts.remove(hash);
                }
            }
            WATCHES.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, ActionKind)> {
        let (actions, errors) = lex(text);
        assert!(errors.is_empty(), "{errors:?}");
        actions
            .iter()
            .map(|action| (text[action.span.clone()].to_string(), action.kind))
            .collect()
    }

    #[test]
    fn classifies_actions() {
        let found = kinds(
            "{{- if .x }}{{ else if .y }}{{ $a := 1 }}{{ $k, $v = 1 }}{{/* c */}}{{ .z | quote }}{{ end -}}",
        );
        let kinds: Vec<_> = found.iter().map(|(_, kind)| *kind).collect();
        assert_eq!(
            kinds,
            vec![
                ActionKind::Control(Keyword::If),
                ActionKind::Control(Keyword::Else),
                ActionKind::Assignment,
                ActionKind::Assignment,
                ActionKind::Comment,
                ActionKind::Output,
                ActionKind::Control(Keyword::End),
            ]
        );
    }

    #[test]
    fn strings_may_hold_closing_braces() {
        let found = kinds(r#"a: {{ "}}" }} b: {{ `x}}y` }} c: {{ "\"}}" }} d: {{ "{{" }}"#);
        assert_eq!(found.len(), 4);
        assert_eq!(found[1].0, "{{ `x}}y` }}");
        assert_eq!(found[3].0, r#"{{ "{{" }}"#);
    }

    #[test]
    fn trim_markers_and_last_command() {
        let text = "{{- include \"x\" (dict \"a\" (b | c)) | nindent 4 -}}";
        let (actions, _) = lex(text);
        assert!(actions[0].trim_left && actions[0].trim_right);
        assert_eq!(actions[0].last_function(text), "nindent");
        assert_eq!(actions[0].span, 0..text.len());
    }

    #[test]
    fn multi_line_comment_and_dash_number() {
        let text = "{{- /*\n doc\n*/ -}}\n{{-3}}";
        let (actions, errors) = lex(text);
        assert!(errors.is_empty());
        assert_eq!(actions[0].kind, ActionKind::Comment);
        assert_eq!(actions[0].comment_text(text), "doc");
        assert!(!actions[1].trim_left);
    }

    #[test]
    fn unterminated_actions_recover_at_line_end() {
        let text = "a: {{ .x\nb: {{ .y }}\nc: {{/* open\n";
        let (actions, errors) = lex(text);
        assert_eq!(errors.len(), 2);
        assert_eq!(actions[0].span, 3..8);
        assert_eq!(&text[actions[1].span.clone()], "{{ .y }}");
        assert_eq!(actions[2].kind, ActionKind::Comment);
    }
}
