//! Decides, for every comment, which key it documents (DESIGN §4).
//!
//! Anchoring works on lines and columns, not on tree parentage: tree-sitter-yaml puts
//! a comment before the first key of a nested map under the parent pair, and an
//! end-of-block comment inside the inner mapping even at column 0.
//!
//! - trailing: on the key's line after it; comment-only lines right below, indented
//!   deeper than the key, continue it when the key's value ended on that line;
//! - leading: the run of comment lines directly above a key at the key's column.
//!   Template lines between are transparent when they open blocks, assign, hold
//!   template comments, or open and close whole blocks below the comment;
//! - detached: an `end` or `else` between a `#` run and the key closes the block that
//!   holds the comment; the key below is recorded. A template comment is never
//!   rendered, so above an `end` or `else` it documents that template logic and is
//!   free instead;
//! - free: everything else, including a run directly above an action that prints
//!   content (`include`, `toYaml`, `template`, `define`), which documents that action.

use crate::source::SourceFile;
use crate::template::lex::{Action, ActionKind, Keyword};

use super::directives::{Directives, is_schema_fence};
use super::model::{Attached, Comment, CommentStyle, Detached, Document, Key, Placement};
use super::syntax::{ParsedDocument, RawKey};

/// The parts of a file that anchoring reads, shared by all of its documents.
pub struct TemplateView<'a> {
    source: &'a SourceFile,
    masked: &'a str,
    directive_lines: &'a [bool],
    actions: &'a [Action],
    /// First and last line of every action.
    action_lines: Vec<(usize, usize)>,
    /// Which comments speak to a tool rather than document a key.
    directives: &'a Directives,
    /// Plain YAML (a values file), where a comment directly above a key may sit left
    /// of it and still document it, as helm-docs reads it.
    plain: bool,
}

impl<'a> TemplateView<'a> {
    pub fn new(
        source: &'a SourceFile,
        masked: &'a str,
        directive_lines: &'a [bool],
        actions: &'a [Action],
        directives: &'a Directives,
        plain: bool,
    ) -> Self {
        let mut action_lines = Vec::with_capacity(actions.len());
        let mut line = 0;
        let mut scanned = 0;
        let bytes = source.text.as_bytes();
        for action in actions {
            line += count_newlines(&bytes[scanned..action.span.start]);
            let end_line = line + count_newlines(&bytes[action.span.clone()]);
            action_lines.push((line, end_line));
            scanned = action.span.start;
        }
        TemplateView {
            source,
            masked,
            directive_lines,
            actions,
            action_lines,
            directives,
            plain,
        }
    }

    fn is_directive(&self, line: usize) -> bool {
        self.directive_lines.get(line).copied().unwrap_or(false)
    }

    fn masked_line(&self, line: usize) -> &str {
        let range = self.source.line_range(line);
        &self.masked[range]
    }
}

fn count_newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// What a line of a document is, for anchoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    DocumentMarker,
    /// Only template actions (template comments included).
    Directive,
    /// A `#` comment and nothing else.
    YamlComment,
    /// A `#` comment addressed to a tool (`# yamllint disable-line`): transparent.
    ToolComment,
    Content,
}

/// One comment before runs are joined.
struct Piece {
    style: CommentStyle,
    line: usize,
    end_line: usize,
    column: usize,
    span: std::ops::Range<usize>,
    text: String,
    own_line: bool,
    /// For template comments: index of the action.
    action: Option<usize>,
    /// Addressed to a tool, not to a reader (see `directives`).
    tool: bool,
}

/// Where a comment went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Leading(usize),
    Trailing(usize),
    /// The key, and the line of the `end` or `else` that cut the comment off.
    Detached(usize, usize),
    Free,
    /// A directive to a tool: documents nothing.
    Tool,
}

/// Anchors the comments of one parsed document to its keys: the document's comment
/// pieces, where each goes, then the pieces joined into comments and handed out.
pub fn anchor(view: &TemplateView, parsed: ParsedDocument, index: usize) -> Document {
    let pieces = collect_pieces(view, &parsed);
    let lines = DocumentLines::new(view, &parsed, &pieces);
    let (targets, continues) = find_targets(view, &lines, &parsed.keys, &pieces, parsed.lines.end);
    let handed = hand_out(&pieces, &targets, &continues, &parsed.keys);
    let keys = keys_with_comments(view.source, parsed.keys, handed.key_comments);
    Document {
        index,
        yaml_comments: parsed.comments,
        kind: parsed.kind,
        define: parsed.define,
        lines: parsed.lines,
        keys,
        detached: handed.detached,
        free: handed.free,
        directives: handed.tool,
        recovered: parsed.recovered.is_some(),
        branch: None,
    }
}

/// The lines of one document as anchoring reads them: what each line is, and the
/// first key that starts on it.
struct DocumentLines {
    /// The document's first line.
    start: usize,
    kinds: Vec<LineKind>,
    /// Per line: the index of the first key that starts on it, `usize::MAX` where
    /// none does.
    first_key: Vec<usize>,
}

impl DocumentLines {
    /// Classifies the document's lines once; an own-line YAML comment addressed to a
    /// tool (in `pieces`) makes its line a [`LineKind::ToolComment`].
    fn new(view: &TemplateView, parsed: &ParsedDocument, pieces: &[Piece]) -> Self {
        let lines = parsed.lines.clone();
        let mut kinds: Vec<LineKind> = lines
            .clone()
            .map(|line| classify_line(view, parsed, line))
            .collect();
        for piece in pieces.iter().filter(|piece| piece.tool && piece.own_line) {
            if piece.style == CommentStyle::Yaml {
                kinds[piece.line - lines.start] = LineKind::ToolComment;
            }
        }
        let mut first_key = vec![usize::MAX; lines.len()];
        for (key_index, key) in parsed.keys.iter().enumerate().rev() {
            if lines.contains(&key.line) {
                first_key[key.line - lines.start] = key_index;
            }
        }
        DocumentLines {
            start: lines.start,
            kinds,
            first_key,
        }
    }

    /// What `line` (a line of the document) is.
    fn kind(&self, line: usize) -> LineKind {
        self.kinds[line - self.start]
    }

    /// The index of the first key that starts on `line`; `None` when no key does, or
    /// the line is outside the document.
    fn first_key_on(&self, line: usize) -> Option<usize> {
        self.first_key
            .get(line.wrapping_sub(self.start))
            .copied()
            .filter(|&k| k != usize::MAX)
    }
}

/// Where each piece goes, and whether it continues the comment of the piece before
/// it (a later line of a run, or of a trailing comment). `end` is the line after the
/// document.
fn find_targets(
    view: &TemplateView,
    lines: &DocumentLines,
    keys: &[RawKey],
    pieces: &[Piece],
    end: usize,
) -> (Vec<Target>, Vec<bool>) {
    let mut targets = vec![Target::Free; pieces.len()];
    // Pieces that continue the trailing comment of the piece before them.
    let mut continues = vec![false; pieces.len()];
    // The trailing piece (and its key) that a comment-only line right below continues.
    let mut open_trailing: Option<(usize, usize)> = None;

    let mut position = 0;
    while position < pieces.len() {
        let piece = &pieces[position];
        if piece.tool {
            targets[position] = Target::Tool;
            position += 1;
            continue;
        }
        if !piece.own_line {
            targets[position] = match trailing_key(keys, lines.first_key_on(piece.line), piece) {
                Some(key) => {
                    if keys[key].value_end_line == piece.line && piece.style == CommentStyle::Yaml {
                        open_trailing = Some((piece.end_line, key));
                    }
                    Target::Trailing(key)
                }
                None => Target::Free,
            };
            position += 1;
            continue;
        }
        if let Some((line, key)) = open_trailing.take() {
            if piece.style == CommentStyle::Yaml
                && piece.line == line + 1
                && last_column(view, piece) > keys[key].column
            {
                continues[position] = true;
                targets[position] = Target::Trailing(key);
                open_trailing = Some((piece.line, key));
                position += 1;
                continue;
            }
        }
        let run_end = end_of_run(pieces, position);
        let last = &pieces[run_end];
        let describes = pieces[position..=run_end]
            .iter()
            .any(|piece| is_description_marker(&view.source.text[piece.span.clone()]));
        // The column of the nearest key above the run: a run indented past it is
        // written under that key.
        let above = keys[..keys.partition_point(|key| key.line < piece.line)]
            .last()
            .map(|key| key.column);
        let run = Run {
            first_line: piece.line,
            last,
            describes,
            above,
        };
        let target = scan_down(view, lines, keys, run, end);
        for (offset, slot) in targets[position..=run_end].iter_mut().enumerate() {
            *slot = target;
            continues[position + offset] = offset > 0;
        }
        position = run_end + 1;
    }
    (targets, continues)
}

/// The index of the last piece of the run that starts at `position`: YAML comment
/// lines directly below each other at one column. A template comment is a run of
/// its own.
fn end_of_run(pieces: &[Piece], position: usize) -> usize {
    let piece = &pieces[position];
    let mut run_end = position;
    if piece.style == CommentStyle::Yaml {
        while let Some(next) = pieces.get(run_end + 1) {
            let last = &pieces[run_end];
            if next.style == CommentStyle::Yaml
                && !next.tool
                && next.own_line
                && next.line == last.line + 1
                && next.column == piece.column
            {
                run_end += 1;
            } else {
                break;
            }
        }
    }
    run_end
}

/// A document's comments, handed out by where they went.
struct HandedOut {
    /// Per key: the comments that document it.
    key_comments: Vec<Vec<Attached>>,
    detached: Vec<Detached>,
    free: Vec<Comment>,
    /// Comments addressed to a tool.
    tool: Vec<Comment>,
}

/// Joins runs and continuations into comments, then hands them out by target.
fn hand_out(
    pieces: &[Piece],
    targets: &[Target],
    continues: &[bool],
    keys: &[RawKey],
) -> HandedOut {
    let mut handed = HandedOut {
        key_comments: vec![Vec::new(); keys.len()],
        detached: Vec::new(),
        free: Vec::new(),
        tool: Vec::new(),
    };
    let mut position = 0;
    while position < pieces.len() {
        let mut end = position + 1;
        while end < pieces.len() && continues[end] {
            end += 1;
        }
        let comment = join(&pieces[position..end]);
        match targets[position] {
            Target::Leading(key) => handed.key_comments[key].push(Attached {
                placement: Placement::Leading,
                comment,
            }),
            Target::Trailing(key) => handed.key_comments[key].push(Attached {
                placement: Placement::Trailing,
                comment,
            }),
            Target::Detached(key, closed_at) => handed.detached.push(Detached {
                comment,
                separated_from: keys[key].path.clone(),
                closed_at,
            }),
            Target::Free => handed.free.push(comment),
            Target::Tool => handed.tool.push(comment),
        }
        position = end;
    }
    handed
}

/// The document's keys, each with the comments that document it in line order.
fn keys_with_comments(
    source: &SourceFile,
    raw_keys: Vec<RawKey>,
    key_comments: Vec<Vec<Attached>>,
) -> Vec<Key> {
    raw_keys
        .into_iter()
        .zip(key_comments)
        .map(|(raw, mut comments)| {
            comments.sort_by_key(|attached| attached.comment.line);
            Key {
                column: source.column_of(raw.offset),
                path: raw.path,
                line: raw.line,
                offset: raw.offset,
                comments,
            }
        })
        .collect()
}

fn classify_line(view: &TemplateView, parsed: &ParsedDocument, line: usize) -> LineKind {
    if view.is_directive(line) {
        return LineKind::Directive;
    }
    let text = view.masked_line(line);
    let text = if line == 0 {
        text.trim_start_matches('\u{feff}')
    } else {
        text
    };
    let trimmed = text.trim_start_matches([' ', '\t']);
    if trimmed.is_empty() {
        return LineKind::Blank;
    }
    if trimmed.starts_with('#') {
        // A `#` at the start of a block scalar's line is text, not a comment; only a
        // comment the parser saw counts.
        let is_comment = parsed
            .comments
            .binary_search_by_key(&line, |comment| comment.line)
            .is_ok();
        if is_comment {
            return LineKind::YamlComment;
        }
        return LineKind::Content;
    }
    if (trimmed.starts_with("---") || trimmed.starts_with("..."))
        && trimmed.len() == text.len()
        && is_empty_or_comment(trimmed[3..].trim_start())
    {
        return LineKind::DocumentMarker;
    }
    LineKind::Content
}

fn is_empty_or_comment(text: &str) -> bool {
    text.is_empty() || text.starts_with('#')
}

/// The YAML comments and template comments of a document, in file order.
fn collect_pieces(view: &TemplateView, parsed: &ParsedDocument) -> Vec<Piece> {
    let text = &view.source.text;
    let mut pieces: Vec<Piece> = parsed
        .comments
        .iter()
        .map(|raw| {
            let body = &text[raw.span.clone()];
            let body = body.strip_prefix('#').unwrap_or(body);
            let body = body.strip_prefix(' ').unwrap_or(body);
            Piece {
                style: CommentStyle::Yaml,
                line: raw.line,
                end_line: raw.line,
                column: view.source.column_of(raw.span.start),
                span: raw.span.clone(),
                text: body.trim_end().to_string(),
                own_line: raw.own_line,
                action: None,
                tool: false,
            }
        })
        .collect();
    let lines = &parsed.lines;
    for (index, action) in view.actions.iter().enumerate() {
        let (line, end_line) = view.action_lines[index];
        if line < lines.start {
            continue;
        }
        if line >= lines.end {
            break;
        }
        if action.kind != ActionKind::Comment {
            continue;
        }
        pieces.push(Piece {
            style: CommentStyle::Template,
            line,
            end_line,
            column: view.source.column_of(action.span.start),
            span: action.span.clone(),
            text: dedent(action.comment_text(text)),
            own_line: view.is_directive(line),
            action: Some(index),
            tool: false,
        });
    }
    pieces.sort_by_key(|piece| piece.span.start);
    mark_tool_comments(view.directives, &mut pieces);
    for piece in &mut pieces {
        if piece.style == CommentStyle::Yaml
            && crate::yaml::directives::is_ytt_annotation(&text[piece.span.clone()])
        {
            piece.tool = true;
        }
    }
    pieces
}

/// Marks the pieces addressed to a tool: directives, and the lines of a multi-line
/// `# @schema` block with its fences.
fn mark_tool_comments(directives: &Directives, pieces: &mut [Piece]) {
    // The line of the last piece of an open `# @schema` block.
    let mut schema_block: Option<usize> = None;
    for piece in pieces {
        let comment_line = piece.style == CommentStyle::Yaml && piece.own_line;
        // A schema block is a run of comment lines; anything else ends it.
        if schema_block.is_some_and(|last| !comment_line || piece.line != last + 1) {
            schema_block = None;
        }
        let fence = comment_line && is_schema_fence(&piece.text);
        piece.tool = fence || schema_block.is_some() || directives.is_directive(&piece.text);
        schema_block = match (fence, schema_block) {
            (true, Some(_)) => None,
            (true, None) | (false, Some(_)) => Some(piece.line),
            (false, None) => None,
        };
    }
}

/// The text of a multi-line template comment with the indentation its lines share
/// removed, and no `\r` before line ends.
fn dedent(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim_end();
    let rest: Vec<&str> = lines.map(str::trim_end).collect();
    let indent = rest
        .iter()
        .filter(|line| !line.is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = first.to_string();
    for line in rest {
        out.push('\n');
        out.push_str(line.get(indent..).unwrap_or(line.trim_start()));
    }
    out
}

/// The key an inline comment trails: among the keys that start on its line before it,
/// the block key furthest right (`- name: x  # c` documents `name`); a line of flow
/// keys gives its last key.
fn trailing_key(keys: &[RawKey], first: Option<usize>, piece: &Piece) -> Option<usize> {
    let first = first?;
    let on_line = keys[first..]
        .iter()
        .enumerate()
        .take_while(|(_, key)| key.line == piece.line)
        .filter(|(_, key)| key.offset < piece.span.start)
        .map(|(offset, key)| (first + offset, key));
    let mut best: Option<(usize, &RawKey)> = None;
    for (index, key) in on_line {
        best = match best {
            None => Some((index, key)),
            Some((_, current)) if current.in_flow && !key.in_flow => Some((index, key)),
            Some((_, current)) if !current.in_flow && key.in_flow => best,
            Some(_) => Some((index, key)),
        };
    }
    best.map(|(index, _)| index)
}

/// Whether a comment line is a helm-docs description marker (`# --`, `# -- text`).
fn is_description_marker(comment: &str) -> bool {
    comment
        .strip_prefix("# --")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
}

/// What [`scan_down`] needs of a comment run.
struct Run<'a> {
    /// The line of its first piece.
    first_line: usize,
    /// Its last piece.
    last: &'a Piece,
    /// A line of it is a helm-docs `# --` marker.
    describes: bool,
    /// The column of the nearest key above it, if any.
    above: Option<usize>,
}

/// Scans down from a comment run to the key it documents.
fn scan_down(
    view: &TemplateView,
    lines: &DocumentLines,
    keys: &[RawKey],
    run: Run,
    end: usize,
) -> Target {
    let last = run.last;
    let column = last_column(view, last);
    let mut opened = 0usize;
    let mut detached: Option<usize> = None;
    // Actions after a template comment on its own last line come first.
    let mut first_action = last.action.map_or(0, |index| index + 1);
    let start_line = last.end_line + 1;
    if last.action.is_some() {
        let walk = walk_actions(
            view,
            first_action,
            last.end_line,
            &mut opened,
            &mut detached,
        );
        match walk {
            Walk::Stop => return Target::Free,
            Walk::Continue(next) => first_action = next,
        }
        if detached.is_some() {
            return Target::Free;
        }
    }
    for line in start_line..end {
        match lines.kind(line) {
            LineKind::Blank | LineKind::DocumentMarker => return Target::Free,
            LineKind::ToolComment => {}
            LineKind::YamlComment => {
                if last.style == CommentStyle::Yaml {
                    return Target::Free;
                }
            }
            LineKind::Directive => {
                match walk_actions(view, first_action, line, &mut opened, &mut detached) {
                    Walk::Stop => return Target::Free,
                    Walk::Continue(next) => first_action = next,
                }
                // A template comment is never rendered: above an `else` or `end` it
                // documents the template logic there, not a key below.
                if detached.is_some() && last.style == CommentStyle::Template {
                    return Target::Free;
                }
            }
            LineKind::Content => {
                // In plain YAML a run directly above a key documents it from its
                // left, as helm-docs reads it. From its right only when it is a
                // helm-docs description (yaml.v3 gives it to the key below) and the
                // key above it is the key's parent: under a sibling it was written
                // for that sibling (a commented-out example), and where helm-docs
                // shows it is `orphan-value-doc`'s to say.
                let documents = |key: usize| {
                    let over_indented =
                        run.describes && run.above.is_none_or(|above| above < keys[key].column);
                    keys[key].column == column
                        || (view.plain
                            && line == start_line
                            && (column < keys[key].column || over_indented))
                };
                return match lines.first_key_on(line) {
                    // A run that is the whole `else` branch (`{{- else }}`, `# - item`,
                    // `{{- end }}`) is that branch commented out, not a key's
                    // documentation cut off from it.
                    Some(_) if detached.is_some_and(|at| whole_else_branch(view, &run, at)) => {
                        Target::Free
                    }
                    Some(key) if documents(key) => match detached {
                        Some(detached_at) => Target::Detached(key, detached_at),
                        None => Target::Leading(key),
                    },
                    _ => Target::Free,
                };
            }
        }
    }
    Target::Free
}

/// Whether the run is all an `else` branch holds: the line above it ends with an
/// `else` action and the branch's `end` is on `closed_at`, the line that cut the run
/// off (nothing but comments and actions lie between: content would have ended the
/// scan).
fn whole_else_branch(view: &TemplateView, run: &Run, closed_at: usize) -> bool {
    let Some(above) = run.first_line.checked_sub(1) else {
        return false;
    };
    let keywords_on = |line: usize| -> Vec<Keyword> {
        view.actions
            .iter()
            .zip(&view.action_lines)
            .filter(|(_, lines)| lines.0 == line)
            .filter_map(|(action, _)| match action.kind {
                ActionKind::Control(keyword) => Some(keyword),
                _ => None,
            })
            .collect()
    };
    keywords_on(above).last() == Some(&Keyword::Else)
        && keywords_on(closed_at).first() == Some(&Keyword::End)
}

/// The byte column of a piece on its line, comparable with tree-sitter's key columns.
fn last_column(view: &TemplateView, piece: &Piece) -> usize {
    let line_start = view.source.line_start(piece.line);
    let mut column = piece.span.start - line_start;
    if piece.line == 0 {
        column -= view.source.bom_len.min(column);
    }
    column
}

enum Walk {
    /// The line held an action that prints content: the comment documents it.
    Stop,
    /// Go on; the index of the first action after this line.
    Continue(usize),
}

/// Applies the actions that start on `line` (from `first_action` on) to the block
/// counter of a downward scan.
fn walk_actions(
    view: &TemplateView,
    first_action: usize,
    line: usize,
    opened: &mut usize,
    detached: &mut Option<usize>,
) -> Walk {
    let mut index = first_action;
    while index < view.actions.len() && view.action_lines[index].0 < line {
        index += 1;
    }
    while index < view.actions.len() && view.action_lines[index].0 == line {
        match view.actions[index].kind {
            ActionKind::Control(keyword) => match keyword {
                Keyword::If | Keyword::With | Keyword::Range => *opened += 1,
                Keyword::Else => {
                    if *opened == 0 {
                        detached.get_or_insert(line);
                    }
                }
                Keyword::End => {
                    if *opened == 0 {
                        detached.get_or_insert(line);
                    } else {
                        *opened -= 1;
                    }
                }
                Keyword::Define | Keyword::Block | Keyword::Template => return Walk::Stop,
                Keyword::Break | Keyword::Continue => {}
            },
            ActionKind::Assignment | ActionKind::Comment => {}
            ActionKind::Output => return Walk::Stop,
        }
        index += 1;
    }
    Walk::Continue(index)
}

/// Joins the pieces of a run (or a trailing comment and its continuation lines).
fn join(pieces: &[Piece]) -> Comment {
    let first = &pieces[0];
    let last = &pieces[pieces.len() - 1];
    Comment {
        style: first.style,
        line: first.line,
        end_line: last.end_line,
        column: first.column,
        text: pieces
            .iter()
            .map(|piece| piece.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        spans: pieces.iter().map(|piece| piece.span.clone()).collect(),
    }
}
