//! What helm-docs (v1.14, on gopkg.in/yaml.v3 v3.0.1) makes of a values.yaml's
//! comments: which `# --` description each key gets, and where every other `# --`
//! comment goes instead.
//!
//! helm-docs reads a key's description from the key's yaml.v3 `HeadComment`, so the
//! simulation has two halves. The first replays how yaml.v3's scanner splits each run
//! of comment lines into the foot of the content above it and the head of the token
//! below it (`yaml_parser_scan_comments`: a run right under content and followed by a
//! blank line is a foot; a run that a dedent cuts off is a foot; the head of a
//! document's first key is split at its last blank line). It reads tether's model for
//! the keys and comments and the file's lines for the rest, one pass over the file.
//! The second half replays helm-docs' `ParseComment` on each head (only the last
//! `# --` group counts; continuation lines are appended; `@default`, `@section`,
//! `@raw`, `@notationType` and `##` lines are not text; a second ` -- ` on the first
//! line makes it a keyed comment, which helm-docs drops), its `@ignore` removal, and
//! its older line scanner for `# key.path -- text`, which wins over `# --`.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use crate::source::SourceFile;
use crate::yaml::model::FileModel;
use crate::yaml::scan::closing_quote;

/// What helm-docs would print for a values.yaml: descriptions by key, and where each
/// `# --` comment ends up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelmDocs {
    /// Every key helm-docs gives a description, by its path in helm-docs notation (the
    /// README's key column, see [`helm_docs_path`]).
    pub descriptions: BTreeMap<String, Description>,
    /// Every comment that starts with `# --`, in file order, with where helm-docs
    /// sends it.
    pub markers: Vec<Marker>,
}

/// One key's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// The text as helm-docs writes it into the Description column, which it does not
    /// escape: the first line's text without a `(type)` prefix, each continuation
    /// line appended after a space (after a newline once `@raw` was seen).
    pub text: String,
    /// 0-based lines of the comment group helm-docs used: from the `# --` line (or the
    /// `# key.path --` line) through the last comment line of the group.
    pub lines: Range<usize>,
}

/// A comment that starts with `# --` (or is `# --`), and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// 0-based line of the comment.
    pub line: usize,
    pub destination: Destination,
}

/// Where helm-docs sends a `# --` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// It is the description of this key (helm-docs path).
    Key(String),
    /// A later `# --` line above the same key (only the last group counts), or an
    /// old-style `# key.path --` line for the same key, replaces it.
    Superseded { by_line: usize },
    /// yaml.v3 makes it a foot comment (or the head of something that is not a key,
    /// such as a value on its own line or the end of the document), which helm-docs
    /// never reads: it is lost.
    Foot,
    /// yaml.v3 gives it to the document, above the first key: it is lost.
    DocumentHead,
    /// A second ` -- ` on the line makes helm-docs read the text before it as a key
    /// path, and it drops the description.
    Keyed,
    /// It follows content on its line: yaml.v3 makes it a line comment, which
    /// helm-docs never reads.
    LineComment,
    /// It is above a key that `@ignore` (on this key or one above it) removes from the
    /// table.
    Ignored,
}

/// Simulates helm-docs on a plain values.yaml: `source` is the file, `model` its
/// tether model (plain YAML, not masked).
///
/// Only the file's first YAML document is read, as helm-docs does. The work is one
/// pass over the lines plus one over the keys and comments.
///
/// A description and a foot comment: see `tests::a_description_and_a_foot`.
pub fn simulate(source: &SourceFile, model: &FileModel) -> HelmDocs {
    let file = FileLines::new(source, model);
    let keys = keys_of(source, model);
    let split = split_comments(&file, &keys);
    let old_style = old_style_descriptions(&source.text);
    describe(&file, &keys, split, &old_style)
}

/// The key column of a helm-docs README for a tether key path: `a.b`, `a[0].b`, and
/// segments that hold a dot or a space quoted, `a."b.c"`. tether's own quoting
/// (`a["b.c"]`) is undone; other characters are printed as they are.
pub fn helm_docs_path(tether_path: &str) -> String {
    let mut out = String::with_capacity(tether_path.len() + 2);
    for (_, segment) in Segments::new(tether_path) {
        push_helm_segment(&mut out, segment);
    }
    out
}

// ---------------------------------------------------------------------------------
// Paths

/// One step of a tether path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment<'a> {
    Name(Cow<'a, str>),
    Index(usize),
}

/// The segments of a tether path, each with the byte offset where it starts (the
/// path of its parent collection is `&path[..start]`).
struct Segments<'a> {
    path: &'a str,
    position: usize,
}

impl<'a> Segments<'a> {
    fn new(path: &'a str) -> Self {
        Segments { path, position: 0 }
    }
}

impl<'a> Iterator for Segments<'a> {
    type Item = (usize, Segment<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let path = self.path;
        let bytes = path.as_bytes();
        if bytes.get(self.position) == Some(&b'.') {
            self.position += 1;
        }
        let start = self.position;
        if start >= bytes.len() {
            return None;
        }
        if bytes[start] == b'[' && bytes.get(start + 1) == Some(&b'"') {
            // `["name"]`, with `\"` and `\\` escaped.
            let body = start + 2;
            let mut end = body;
            let mut escaped = false;
            while end < bytes.len() && bytes[end] != b'"' {
                if bytes[end] == b'\\' {
                    escaped = true;
                    end += 1;
                }
                end += 1;
            }
            let end = end.min(bytes.len());
            let raw = &path[body..end];
            let name = if escaped {
                let mut name = String::with_capacity(raw.len());
                let mut chars = raw.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => name.extend(chars.next()),
                        other => name.push(other),
                    }
                }
                Cow::Owned(name)
            } else {
                Cow::Borrowed(raw)
            };
            self.position = (end + 2).min(bytes.len());
            return Some((start, Segment::Name(name)));
        }
        if bytes[start] == b'[' {
            let close = path[start..].find(']').map_or(path.len(), |n| start + n);
            let index = path[start + 1..close].parse().unwrap_or(0);
            self.position = (close + 1).min(path.len());
            return Some((start, Segment::Index(index)));
        }
        let end = path[start..]
            .find(['.', '['])
            .map_or(path.len(), |n| start + n);
        self.position = end;
        Some((start, Segment::Name(Cow::Borrowed(&path[start..end]))))
    }
}

fn push_helm_segment(out: &mut String, segment: Segment) {
    match segment {
        Segment::Index(index) => {
            use std::fmt::Write;
            let _ = write!(out, "[{index}]");
        }
        Segment::Name(name) => {
            if !out.is_empty() {
                out.push('.');
            }
            if name.contains(['.', ' ']) {
                out.push('"');
                out.push_str(&name);
                out.push('"');
            } else {
                out.push_str(&name);
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// The file's lines

/// What the scanner sees on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// Nothing but spaces and tabs.
    Blank,
    /// A `#` comment alone on its line, at this column.
    Comment { column: usize },
    /// Anything else: a token, or the inside of a scalar.
    Content,
}

/// The kind of the last token on a content line, as far as the comment split cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LastToken {
    /// `key:` with its value on a later line.
    Value,
    /// A plain or block scalar: yaml.v3 reads past the line break looking for more of
    /// it, so the next scan starts below this line.
    Scalar,
    /// Anything else: a quoted scalar, a flow collection, an anchor, a tag, a `-`.
    Other,
}

/// The lines of the file, classified once.
struct FileLines<'a> {
    source: &'a SourceFile,
    kinds: Vec<LineKind>,
    /// Per line: an own-line or trailing comment starts at this byte offset.
    comment_start: Vec<Option<usize>>,
    /// Per line: the content of a block scalar.
    block_scalar: Vec<bool>,
}

impl<'a> FileLines<'a> {
    fn new(source: &'a SourceFile, model: &FileModel) -> Self {
        let line_count = source.document_line_starts().len();
        let mut comment_start = vec![None; line_count];
        let mut own_line = vec![None; line_count];
        for document in &model.documents {
            for comment in &document.yaml_comments {
                if comment.line < line_count {
                    comment_start[comment.line] = Some(comment.span.start);
                    if comment.own_line {
                        own_line[comment.line] = Some(comment.column);
                    }
                }
            }
        }
        let kinds = (0..line_count)
            .map(|line| {
                if let Some(column) = own_line[line] {
                    LineKind::Comment { column }
                } else if source
                    .line_text(line)
                    .trim_start_matches('\u{feff}')
                    .bytes()
                    .all(|b| b == b' ' || b == b'\t')
                {
                    LineKind::Blank
                } else {
                    LineKind::Content
                }
            })
            .collect();
        let scan = crate::yaml::scan::scan(
            &source.text,
            &source.text,
            source.document_line_starts(),
            0..line_count,
            source.bom_len,
        );
        let mut block_scalar = vec![false; line_count];
        for line in scan.block_scalar_lines {
            if line < line_count {
                block_scalar[line] = true;
            }
        }
        FileLines {
            source,
            kinds,
            comment_start,
            block_scalar,
        }
    }

    fn len(&self) -> usize {
        self.kinds.len()
    }

    /// The line's text after any byte-order mark, without its line break.
    fn text(&self, line: usize) -> &'a str {
        let text = self.source.line_text(line);
        if line == 0 {
            text.trim_start_matches('\u{feff}')
        } else {
            text
        }
    }

    /// The comment on `line` as yaml.v3 reads it: from `#` to the end of the line.
    fn comment_text(&self, line: usize) -> &'a str {
        let range = self.source.line_range(line);
        let start = self.comment_start[line].unwrap_or(range.start);
        &self.source.text[start.clamp(range.start, range.end)..range.end]
    }
}

/// A key or item, with what the split needs to know about it.
struct SimKey<'a> {
    path: &'a str,
    line: usize,
    /// Byte column.
    column: usize,
}

/// Every key and item of the file, in file order.
fn keys_of<'a>(source: &SourceFile, model: &'a FileModel) -> Vec<SimKey<'a>> {
    model
        .keys()
        .map(|(_, key)| SimKey {
            path: &key.path,
            line: key.line,
            column: key.offset - source.line_start(key.line),
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// yaml.v3's split of comments into heads and feet

/// A head comment as yaml.v3 builds it: comment lines, and `None` where a blank line
/// separates two groups (the text joins them with `\n`, so a blank is an empty line).
type Head = Vec<Option<usize>>;

/// What the scanner carries from line to line.
#[derive(Default)]
struct LexState {
    flow_depth: usize,
    quote: Option<u8>,
    expect_node: bool,
}

/// The facts of one content line.
struct ContentLine {
    line: usize,
    /// Byte column of its first character that is not a space or tab.
    first_column: usize,
    /// The line starts outside flow collections and quoted scalars, so its first
    /// token may end blocks.
    starts_in_block: bool,
    last: LastToken,
    /// A comment follows the content on this line.
    trailing_comment: bool,
    /// The line is `---` or `...`.
    document_marker: Option<&'static str>,
    /// The line's first character closes a flow collection.
    closes_flow: bool,
    /// The line is a `- ` item with only an anchor or a tag after the dash: its
    /// collection starts on the next line.
    item_with_properties_only: bool,
}

/// The outcome of yaml.v3's split over the file's first document.
struct Split {
    /// Each key's head comment, indexed like the keys; keys after the first
    /// document are cut off.
    heads: Vec<Head>,
    /// Lines of comments that became feet, or heads of something that is not a key.
    lost: Vec<usize>,
    /// Lines of comments that went to the document.
    document_head: Vec<usize>,
}

/// Replays yaml.v3's comment scanning over the file's first document: one pass over
/// the lines, keeping the scanner's stack of block indentations.
fn split_comments(file: &FileLines, keys: &[SimKey]) -> Split {
    let mut router = Router {
        keys,
        split: Split {
            heads: vec![Vec::new(); keys.len()],
            lost: Vec::new(),
            document_head: Vec::new(),
        },
        carried: Vec::new(),
    };
    let mut next_key = 0;
    let mut blocks = BlockIndents::new();
    let mut lex = LexState::default();
    let mut in_flow = Vec::new();
    let mut previous: Option<ContentLine> = None;
    let mut explicit_document = false;
    let mut seen_token = false;
    let mut gap_start = 0;
    let mut end = None;
    for line in 0..file.len() {
        if file.kinds[line] != LineKind::Content {
            continue;
        }
        let line_keys = keys_on_line(keys, &mut next_key, line);
        in_flow.clear();
        in_flow.resize(line_keys.len(), false);
        let content = lex_line(file, line, &mut lex, &keys[line_keys.clone()], &mut in_flow);
        let ends_document = match content.document_marker {
            Some("---") => seen_token || explicit_document,
            Some(_) => true,
            None => false,
        };
        let pieces = scan_gap(
            file,
            gap_start..line,
            previous.as_ref(),
            Some(&content),
            blocks.innermost(),
        );
        let next = Next {
            content: &content,
            keys: line_keys.clone(),
            implicit_document_start: !seen_token && !explicit_document,
        };
        router.route(pieces, (!ends_document).then_some(next));
        if ends_document {
            end = Some(line);
            break;
        }
        if content.document_marker.is_some() {
            explicit_document = true;
            blocks.reset();
        } else {
            seen_token = true;
            if content.starts_in_block {
                blocks.close_past(content.first_column);
            }
            blocks.open(&keys[line_keys], &in_flow);
        }
        previous = Some(content);
        gap_start = line + 1;
    }
    if end.is_none() {
        let pieces = scan_gap(
            file,
            gap_start..file.len(),
            previous.as_ref(),
            None,
            blocks.innermost(),
        );
        router.route(pieces, None);
    }
    let mut split = router.split;
    if let Some(end) = end {
        // Keys after the first document are not helm-docs' keys.
        split.heads.truncate(
            keys.iter()
                .position(|key| key.line >= end)
                .unwrap_or(keys.len()),
        );
    }
    split
}

/// The keys that start on `line`, as indices into `keys`. `next_key` is the first
/// key not passed yet; it moves past them, and past the keys of the lines before
/// (which the split skips when they hold no content of their own).
fn keys_on_line(keys: &[SimKey], next_key: &mut usize, line: usize) -> Range<usize> {
    while *next_key < keys.len() && keys[*next_key].line < line {
        *next_key += 1;
    }
    let first = *next_key;
    while *next_key < keys.len() && keys[*next_key].line == line {
        *next_key += 1;
    }
    first..*next_key
}

/// yaml.v3's stack of block indentations: the column of the innermost open block
/// (-1 at the top of a document, where none is open) and those of the blocks around
/// it. A comment run that dedents past the innermost block is a foot.
struct BlockIndents {
    /// The columns of the blocks around the innermost one, outermost first.
    outer: Vec<isize>,
    innermost: isize,
}

impl BlockIndents {
    fn new() -> Self {
        BlockIndents {
            outer: Vec::new(),
            innermost: -1,
        }
    }

    /// The column of the innermost open block, 0 at the top of a document: what a
    /// comment run's dedent is measured against.
    fn innermost(&self) -> usize {
        self.innermost.max(0) as usize
    }

    /// Closes every block, as a document marker (`---`, `...`) does.
    fn reset(&mut self) {
        self.outer.clear();
        self.innermost = -1;
    }

    /// Closes the blocks indented past `column`, where a line's first token starts
    /// in block context.
    fn close_past(&mut self, column: usize) {
        while self.innermost > column as isize {
            self.innermost = self.outer.pop().unwrap_or(-1);
        }
    }

    /// Opens a block at each key of a line that is outside flow collections (per
    /// `in_flow`) and indented past the innermost block.
    fn open(&mut self, keys: &[SimKey], in_flow: &[bool]) {
        for (key, &flow) in keys.iter().zip(in_flow) {
            if !flow && key.column as isize > self.innermost {
                self.outer.push(self.innermost);
                self.innermost = key.column as isize;
            }
        }
    }
}

/// The token that ends a run of comment lines.
struct Next<'a> {
    content: &'a ContentLine,
    /// The keys that start on its line, as indices into the keys.
    keys: Range<usize>,
    /// It is the first token of an implicit document.
    implicit_document_start: bool,
}

/// Sends each run's pieces where yaml.v3's parser puts them.
struct Router<'a> {
    keys: &'a [SimKey<'a>],
    split: Split,
    /// Head text that waits for the next key: comments above an explicit `---` at
    /// the start of the stream stay in the parser and go to the document's first key.
    carried: Head,
}

impl Router<'_> {
    /// Feet are lost; the head goes to the token that follows (`None` at the end of
    /// the document) when that token is a key or an item.
    fn route(&mut self, pieces: Vec<Piece>, next: Option<Next>) {
        let mut head: Head = Vec::new();
        for piece in pieces {
            if piece.foot {
                self.split.lost.extend(piece.text.iter().flatten());
            } else {
                head = piece.text;
            }
        }
        let Some(next) = next else {
            self.lose(head);
            return;
        };
        if next.content.document_marker.is_some() {
            // Above the `---` that opens the first document.
            self.carried.append(&mut head);
            return;
        }
        if next.implicit_document_start {
            // yaml.v3 gives the document everything up to the last blank line.
            let split = match head.last() {
                Some(None) => Some(head.len()),
                _ => head.iter().rposition(Option::is_none),
            };
            if let Some(split) = split {
                let rest = head.split_off(split);
                self.split.document_head.extend(head.iter().flatten());
                head = rest.into_iter().skip(1).collect();
            }
        }
        match self.target(&next) {
            Some(target) => {
                let key_head = &mut self.split.heads[target];
                key_head.append(&mut self.carried);
                key_head.append(&mut head);
            }
            None => self.lose(head),
        }
    }

    /// The key that takes the head above `next`: the key or item its line starts
    /// with. Above `- &anchor` whose collection starts on the next line, the parser
    /// gives it to the collection's first key instead.
    fn target(&self, next: &Next) -> Option<usize> {
        let first = next.keys.start;
        let key = self.keys[next.keys.clone()].first()?;
        if key.column != next.content.first_column {
            return None;
        }
        let child = next.keys.end;
        let target = match self.keys.get(child) {
            Some(first_child)
                if next.content.item_with_properties_only
                    && next.keys.len() == 1
                    && is_ancestor(key.path, first_child.path) =>
            {
                child
            }
            _ => first,
        };
        (target < self.split.heads.len()).then_some(target)
    }

    fn lose(&mut self, head: Head) {
        self.split.lost.extend(self.carried.drain(..).flatten());
        self.split.lost.extend(head.iter().flatten());
    }
}

/// Reads one content line's tokens far enough to know where flow collections and
/// quoted scalars start and end, which of `keys` sit inside a flow collection, and
/// what the last token is.
fn lex_line(
    file: &FileLines,
    line: usize,
    state: &mut LexState,
    keys: &[SimKey],
    in_flow: &mut [bool],
) -> ContentLine {
    let text = file.text(line);
    let bytes = text.as_bytes();
    let offset = file.source.line_text(line).len() - text.len();
    let indentation = bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let first_column = indentation + offset;
    let trailing_comment = file.comment_start[line].is_some();
    let starts_in_block = state.flow_depth == 0 && state.quote.is_none();
    let mut content = ContentLine {
        line,
        first_column,
        starts_in_block,
        last: LastToken::Other,
        trailing_comment,
        document_marker: None,
        closes_flow: state.flow_depth > 0 && matches!(bytes.get(indentation), Some(b']' | b'}')),
        item_with_properties_only: false,
    };
    if file.block_scalar[line] {
        content.starts_in_block = false;
        content.last = LastToken::Scalar;
        return content;
    }
    if starts_in_block {
        for marker in ["---", "..."] {
            if text.starts_with(marker)
                && bytes
                    .get(3)
                    .is_none_or(|&b| b == b' ' || b == b'\t' || b == b'\r')
            {
                content.document_marker = Some(marker);
                return content;
            }
        }
        state.expect_node = true;
    }
    let mut key_index = 0;
    let mut position = 0;
    if let Some(quote) = state.quote {
        match closing_quote(bytes, 0, quote) {
            Some(after) => {
                state.quote = None;
                position = after;
                state.expect_node = false;
            }
            None => return content,
        }
    }
    // Whether the tokens so far are a `-` followed only by anchors and tags.
    let mut shape = Shape::Empty;
    while position < bytes.len() {
        let byte = bytes[position];
        if byte == b' ' || byte == b'\t' {
            position += 1;
            continue;
        }
        if byte == b'#' && (position == 0 || matches!(bytes[position - 1], b' ' | b'\t')) {
            break;
        }
        while key_index < keys.len() && keys[key_index].column < position + offset {
            key_index += 1;
        }
        if key_index < keys.len() && keys[key_index].column == position + offset {
            in_flow[key_index] = state.flow_depth > 0;
            key_index += 1;
        }
        let (token, after) = lex_token(bytes, position, state, &mut content.last);
        position = after;
        shape = match (shape, token) {
            (Shape::Empty, Token::Dash) => Shape::Dash,
            (Shape::Dash | Shape::DashProperties, Token::Property) => Shape::DashProperties,
            _ => Shape::Other,
        };
    }
    content.item_with_properties_only = shape == Shape::DashProperties;
    content
}

/// Reads the token that starts at `position` (no space, no comment) and moves
/// `state` past it; `last` becomes its kind. Returns the token and the position
/// after it.
fn lex_token(
    bytes: &[u8],
    mut position: usize,
    state: &mut LexState,
    last: &mut LastToken,
) -> (Token, usize) {
    let byte = bytes[position];
    let next = bytes.get(position + 1).copied();
    let next_is_space = next.is_none_or(|b| b == b' ' || b == b'\t');
    let in_flow_collection = state.flow_depth > 0;
    let token = match byte {
        b'"' | b'\'' if state.expect_node => {
            *last = LastToken::Other;
            state.expect_node = false;
            match closing_quote(bytes, position + 1, byte) {
                Some(after) => position = after,
                None => {
                    state.quote = Some(byte);
                    position = bytes.len();
                }
            }
            Token::Other
        }
        b'[' | b'{' if state.expect_node || in_flow_collection => {
            state.flow_depth += 1;
            state.expect_node = true;
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b']' | b'}' if in_flow_collection => {
            state.flow_depth -= 1;
            state.expect_node = false;
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b',' if in_flow_collection => {
            state.expect_node = true;
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b'-' if next_is_space && state.expect_node => {
            *last = LastToken::Other;
            position += 1;
            Token::Dash
        }
        b'?' if next_is_space && state.expect_node => {
            *last = LastToken::Other;
            position += 1;
            Token::Other
        }
        b':' if next_is_space || (in_flow_collection && is_flow_indicator(next)) => {
            state.expect_node = true;
            *last = if in_flow_collection {
                LastToken::Other
            } else {
                LastToken::Value
            };
            position += 1;
            Token::Other
        }
        b'&' | b'!' | b'*' if state.expect_node => {
            while position < bytes.len()
                && !matches!(bytes[position], b' ' | b'\t')
                && !(in_flow_collection && is_flow_indicator(Some(bytes[position])))
            {
                position += 1;
            }
            *last = LastToken::Other;
            if byte == b'*' {
                state.expect_node = false;
                Token::Other
            } else {
                Token::Property
            }
        }
        b'|' | b'>' if state.expect_node && !in_flow_collection => {
            // A block scalar header: its content is on the next lines.
            *last = LastToken::Scalar;
            position = bytes.len();
            Token::Other
        }
        _ => {
            // A plain scalar: up to `: `, ` #`, or a flow indicator in a flow.
            *last = LastToken::Scalar;
            state.expect_node = false;
            position = plain_scalar_end(bytes, position, in_flow_collection);
            Token::Other
        }
    };
    (token, position)
}

/// Where the plain scalar that starts at `position` ends: at `: `, ` #`, or in a
/// flow collection at a flow indicator, after its first character.
fn plain_scalar_end(bytes: &[u8], mut position: usize, in_flow_collection: bool) -> usize {
    position += 1;
    while position < bytes.len() {
        let byte = bytes[position];
        let next = bytes.get(position + 1).copied();
        let ends_at_colon = byte == b':'
            && (next.is_none_or(|b| b == b' ' || b == b'\t')
                || (in_flow_collection && is_flow_indicator(next)));
        let ends_at_comment = matches!(byte, b' ' | b'\t') && next == Some(b'#');
        if ends_at_colon || ends_at_comment || (in_flow_collection && is_flow_indicator(Some(byte)))
        {
            break;
        }
        position += 1;
    }
    position
}

/// A flow indicator: `,`, `[`, `]`, `{`, `}`.
fn is_flow_indicator(byte: Option<u8>) -> bool {
    matches!(byte, Some(b',' | b'[' | b']' | b'{' | b'}'))
}

/// A token, as far as [`lex_token`] tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Dash,
    /// An anchor or a tag.
    Property,
    Other,
}

/// The tokens of a line so far: nothing, a `-`, a `-` and properties, or else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Empty,
    Dash,
    DashProperties,
    Other,
}

/// One piece of a run of comment lines, as yaml.v3 cuts it.
#[derive(Debug)]
struct Piece {
    foot: bool,
    text: Head,
}

/// Replays `yaml_parser_scan_comments` on the comment lines and blank lines between
/// two content lines (`next` is `None` at the end of the file). `next_indent` is the
/// column of the innermost open block.
fn scan_gap(
    file: &FileLines,
    gap: Range<usize>,
    previous: Option<&ContentLine>,
    next: Option<&ContentLine>,
    next_indent: usize,
) -> Vec<Piece> {
    let Some(first_comment) = gap
        .clone()
        .find(|&line| matches!(file.kinds[line], LineKind::Comment { .. }))
    else {
        return Vec::new();
    };
    // The line just below the previous content: a comment that starts there is a
    // candidate foot. yaml.v3 measures it from where its scan started, which is the
    // line of the previous token unless that token was a plain scalar that read on to
    // the comment; on the first line of the stream that leaves no foot line at all.
    let foot_line = previous.and_then(|previous| {
        if previous.line == 0 && (previous.last != LastToken::Scalar || previous.trailing_comment) {
            None
        } else {
            Some(previous.line + 1)
        }
    });
    let mut scan = GapScan {
        foot_line,
        previous_is_value: previous.is_some_and(|previous| previous.last == LastToken::Value),
        next_indent,
        first_empty: match previous {
            Some(previous) => first_comment == previous.line + 1,
            None => first_comment <= 1,
        },
        recent_empty: false,
        text: Vec::new(),
        start: (0, 0),
        pieces: Vec::new(),
    };
    for line in first_comment..gap.end {
        match file.kinds[line] {
            LineKind::Comment { column } => scan.comment(line, column),
            _ => scan.blank(),
        }
    }
    scan.finish(next)
}

/// What [`scan_gap`] carries from line to line: yaml.v3's flags, the run of comment
/// lines read so far, and the pieces already cut off.
struct GapScan {
    /// The line where a comment starts a candidate foot (see [`scan_gap`]).
    foot_line: Option<usize>,
    /// The previous content line ends with `key:`, whose value is still to come: a
    /// run right below it is no foot.
    previous_is_value: bool,
    /// The column of the innermost open block.
    next_indent: usize,
    /// No blank line yet, and the first comment right below the previous content
    /// (yaml.v3's `first_empty`).
    first_empty: bool,
    /// The last line read was blank.
    recent_empty: bool,
    /// The run being read.
    text: Head,
    /// The line and column of the run's first comment.
    start: (usize, usize),
    pieces: Vec<Piece>,
}

impl GapScan {
    /// Whether a break after the run (a blank line, the end of the file) makes it a
    /// foot: it started right below content that is not `key:`, or left of the
    /// innermost block, with no blank line before it.
    fn is_foot_at_break(&self) -> bool {
        self.first_empty
            && ((Some(self.start.0) == self.foot_line && !self.previous_is_value)
                || self.start.1 < self.next_indent)
    }

    /// Cuts the run read so far, if any, off as a foot.
    fn cut_foot(&mut self) {
        if !self.text.is_empty() {
            self.pieces.push(Piece {
                foot: true,
                text: std::mem::take(&mut self.text),
            });
        }
    }

    /// A comment line at `column`: one left of the innermost block, at another
    /// column than the run's, makes the run above it a foot and starts a new one.
    fn comment(&mut self, line: usize, column: usize) {
        if !self.text.is_empty() && column < self.next_indent && column != self.start.1 {
            self.cut_foot();
        }
        if self.text.is_empty() {
            self.start = (line, column);
        }
        self.text.push(Some(line));
        self.recent_empty = false;
    }

    /// A blank line: the first after a run either makes the run a foot (see
    /// [`GapScan::is_foot_at_break`]) or joins it to what follows with an empty line.
    fn blank(&mut self) {
        if !self.recent_empty {
            if self.is_foot_at_break() {
                self.cut_foot();
            } else if !self.text.is_empty() {
                self.text.push(None);
            }
        }
        self.first_empty = false;
        self.recent_empty = true;
    }

    /// The pieces of the gap, once the run meets `next` (`None` at the end of the
    /// file): above a token that closes a flow collection, or dedents to another
    /// column than the run's, the run is a foot; otherwise it is a head.
    fn finish(mut self, next: Option<&ContentLine>) -> Vec<Piece> {
        match next {
            Some(next) => {
                if next.closes_flow
                    || (next.first_column < self.next_indent && next.first_column != self.start.1)
                {
                    self.cut_foot();
                }
            }
            None => {
                if !self.recent_empty && self.is_foot_at_break() {
                    self.cut_foot();
                }
            }
        }
        if !self.text.is_empty() {
            self.pieces.push(Piece {
                foot: false,
                text: self.text,
            });
        }
        self.pieces
    }
}

// ---------------------------------------------------------------------------------
// helm-docs

/// helm-docs' reading of one comment group.
#[derive(Debug, Default)]
struct Parsed {
    /// The text before ` -- ` on the first line: a key path (old style), or a keyed
    /// new-style line that helm-docs drops.
    key: String,
    description: String,
}

/// helm-docs' `ParseComment` on the lines of one comment (head comment lines, or the
/// file's lines for the old style). Returns the result and the index of the line the
/// group starts on.
fn parse_comment(lines: &[&str]) -> (Parsed, usize) {
    let last = lines
        .iter()
        .rposition(|line| line.starts_with("# --"))
        .unwrap_or(0);
    let lines = &lines[last..];
    let mut parsed = Parsed::default();
    let mut start = 0;
    for (index, line) in lines.iter().enumerate() {
        if let Some((key, description)) = description_match(line) {
            parsed.key = key.to_string();
            parsed.description = description.to_string();
            start = index;
            break;
        }
    }
    if let Some(rest) = parsed.description.strip_prefix('(') {
        if let Some(close) = rest.find(')') {
            if close > 0 {
                parsed.description = trim_re2_space(&rest[close + 1..]).to_string();
            }
        }
    }
    let mut raw = false;
    for line in &lines[start + 1..] {
        let trimmed = trim_re2_space(line);
        if trimmed.starts_with("##") {
            continue;
        }
        if !raw {
            if let Some(after) = trimmed.strip_prefix('#') {
                if after.starts_with(is_re2_space) && trim_re2_space(after).starts_with("@raw") {
                    raw = true;
                    continue;
                }
            }
        }
        if trimmed.starts_with("# @default -- ")
            || trimmed.starts_with("# @section -- ")
            || is_notation_type(trimmed)
        {
            continue;
        }
        if let Some(after) = trimmed.strip_prefix('#') {
            let mut chars = after.chars();
            let text = match chars.next() {
                Some(c) if is_re2_space(c) => chars.as_str(),
                _ => after,
            };
            parsed.description.push(if raw { '\n' } else { ' ' });
            parsed.description.push_str(text);
        }
    }
    (parsed, last + start)
}

/// `^\s*#\s*(.*)\s+--\s*(.*)$`: the key before the last ` --` that follows
/// whitespace, and the text after it.
fn description_match(line: &str) -> Option<(&str, &str)> {
    let after_hash = trim_re2_space(line).strip_prefix('#')?;
    let bytes = after_hash.as_bytes();
    let leading = after_hash.len() - trim_re2_space(after_hash).len();
    let dashes = (1..bytes.len().saturating_sub(1))
        .rev()
        .find(|&i| bytes[i] == b'-' && bytes[i + 1] == b'-' && is_re2_space_byte(bytes[i - 1]))?;
    let key = if dashes > leading {
        &after_hash[leading..dashes - 1]
    } else {
        ""
    };
    Some((key, trim_re2_space(&after_hash[dashes + 2..])))
}

/// `^\s*#\s+@notationType\s+--\s+(.*)$`.
fn is_notation_type(trimmed: &str) -> bool {
    let Some(after) = trimmed.strip_prefix('#') else {
        return false;
    };
    let rest = trim_re2_space(after);
    if rest.len() == after.len() {
        return false;
    }
    let Some(rest) = rest.strip_prefix("@notationType") else {
        return false;
    };
    let after_name = trim_re2_space(rest);
    if after_name.len() == rest.len() {
        return false;
    }
    after_name
        .strip_prefix("--")
        .is_some_and(|after| after.starts_with(is_re2_space))
}

/// RE2's `\s`: `[\t\n\f\r ]`.
fn is_re2_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

fn is_re2_space_byte(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn trim_re2_space(text: &str) -> &str {
    text.trim_start_matches(is_re2_space)
}

/// An old-style description, `# key.path -- text`.
struct OldStyle {
    parsed: Parsed,
    lines: Range<usize>,
}

/// helm-docs' `parseChartValuesFileComments`: a scan of the raw lines for
/// `# key.path -- text` blocks, whatever the YAML around them. A block runs over the
/// comment lines that follow; a later block for the same key replaces an earlier one.
fn old_style_descriptions(text: &str) -> HashMap<String, OldStyle> {
    // Go's bufio.Scanner stops at a line longer than its 64 KiB buffer.
    const MAX_LINE: usize = 64 * 1024;
    let mut out = HashMap::new();
    let mut block: Vec<&str> = Vec::new();
    let mut block_start = 0;
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return out;
    }
    for (number, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.len() >= MAX_LINE {
            break;
        }
        if block.is_empty() {
            if line.contains("--") {
                if let Some((key, _)) = description_match(line) {
                    if !key.is_empty() {
                        block.push(line);
                        block_start = number;
                    }
                }
            }
            continue;
        }
        if trim_re2_space(line).starts_with('#') {
            block.push(line);
            continue;
        }
        let (parsed, _) = parse_comment(&block);
        if !parsed.key.is_empty() {
            out.insert(
                parsed.key.clone(),
                OldStyle {
                    parsed,
                    lines: block_start..block_start + block.len(),
                },
            );
        }
        block.clear();
    }
    out
}

// ---------------------------------------------------------------------------------
// Putting it together

/// A key's head comment, read by helm-docs.
struct NewStyle {
    parsed: Parsed,
    /// Index in the head of the line the group starts on.
    start: usize,
}

/// helm-docs' reading of the split: each kept key's description, from its head or an
/// old-style line, and where every `# --` comment of the file goes.
fn describe(
    file: &FileLines,
    keys: &[SimKey],
    split: Split,
    old_style: &HashMap<String, OldStyle>,
) -> HelmDocs {
    let heads = split.heads;
    let mut destinations: Vec<Option<Destination>> = vec![None; file.len()];
    for &line in &split.lost {
        destinations[line] = Some(Destination::Foot);
    }
    for &line in &split.document_head {
        destinations[line] = Some(Destination::DocumentHead);
    }
    let ignored = Ignored::find(file, keys, &heads);
    let mut descriptions = BTreeMap::new();
    for (index, head) in heads.iter().enumerate() {
        if ignored.keys[index] {
            for line in marker_lines(file, head) {
                destinations[line] = Some(Destination::Ignored);
            }
            continue;
        }
        let path = ignored.path_of(keys[index].path);
        let old = old_style.get(&path);
        let description = describe_key(file, head, &path, old, &mut destinations);
        if let Some(description) = description {
            descriptions.insert(path, description);
        }
    }
    HelmDocs {
        descriptions,
        markers: markers_of(file, destinations),
    }
}

/// The keys that `@ignore` removes from helm-docs' table.
struct Ignored<'a> {
    /// Per key: removed, by its own head or by an ancestor's.
    keys: Vec<bool>,
    /// The indices of the removed items of each sequence (by the sequence's path),
    /// in file order.
    items: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Ignored<'a> {
    /// `@ignore` anywhere in a head removes the key with everything under it, and the
    /// later items of its sequence move up.
    fn find(file: &FileLines, keys: &[SimKey<'a>], heads: &[Head]) -> Self {
        let mut items: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut open: Vec<usize> = Vec::new();
        let mut ignored = vec![false; heads.len()];
        for (index, head) in heads.iter().enumerate() {
            let path = keys[index].path;
            while open
                .last()
                .is_some_and(|&parent| !is_ancestor(keys[parent].path, path))
            {
                open.pop();
            }
            let parent_ignored = open.last().is_some_and(|&parent| ignored[parent]);
            let own = head
                .iter()
                .flatten()
                .any(|&line| file.comment_text(line).contains("@ignore"));
            ignored[index] = parent_ignored || own;
            if own && !parent_ignored && path.ends_with(']') {
                if let Some((start, Segment::Index(item))) = Segments::new(path).last() {
                    items.entry(&path[..start]).or_default().push(item);
                }
            }
            open.push(index);
        }
        Ignored {
            keys: ignored,
            items,
        }
    }

    /// A kept key's path in helm-docs notation, its items renumbered past the
    /// removed ones.
    fn path_of(&self, path: &str) -> String {
        if self.items.is_empty() {
            helm_docs_path(path)
        } else {
            renumbered_path(path, &self.items)
        }
    }
}

/// The lines of a head that are `# --` markers.
fn marker_lines(file: &FileLines, head: &Head) -> Vec<usize> {
    head.iter()
        .flatten()
        .copied()
        .filter(|&line| is_marker(file.comment_text(line)))
        .collect()
}

/// helm-docs' reading of one kept key's head (`path` in its notation) against the
/// old-style description for the same path, if any: sets where each marker of the
/// head goes in `destinations`, and returns the key's description.
fn describe_key(
    file: &FileLines,
    head: &Head,
    path: &str,
    old: Option<&OldStyle>,
    destinations: &mut [Option<Destination>],
) -> Option<Description> {
    let lines: Vec<&str> = head
        .iter()
        .map(|line| line.map_or("", |line| file.comment_text(line)))
        .collect();
    let new_style = lines.iter().any(|line| line.contains("# --")).then(|| {
        let (parsed, start) = parse_comment(&lines);
        NewStyle { parsed, start }
    });
    let old_wins = old.is_some_and(|old| !old.parsed.description.is_empty());
    let last_group = head
        .iter()
        .rposition(|line| line.is_some_and(|line| file.comment_text(line).starts_with("# --")))
        .and_then(|index| head[index]);
    for line in marker_lines(file, head) {
        let destination = if Some(line) != last_group {
            Destination::Superseded {
                by_line: last_group.unwrap_or(line),
            }
        } else if new_style
            .as_ref()
            .is_some_and(|new| !new.parsed.key.is_empty())
        {
            Destination::Keyed
        } else if let (true, Some(old)) = (old_wins, old) {
            Destination::Superseded {
                by_line: old.lines.start,
            }
        } else {
            Destination::Key(path.to_string())
        };
        destinations[line] = Some(destination);
    }
    let new_description = new_style
        .filter(|new| new.parsed.key.is_empty())
        .map(|new| {
            let first = head[new.start..].iter().flatten().next().copied();
            let last = head.iter().flatten().last().copied();
            Description {
                text: new.parsed.description,
                lines: first.unwrap_or(0)..last.map_or(0, |last| last + 1),
            }
        });
    let old_description = old.map(|old| Description {
        text: old.parsed.description.clone(),
        lines: old.lines.clone(),
    });
    match (old_description, new_description) {
        (Some(old), _) if old_wins => Some(old),
        (_, Some(new)) => Some(new),
        (old, None) => old,
    }
}

/// Every `# --` comment of the file with where it went. A marker the split never
/// reached is in a later document: helm-docs never reads it either.
fn markers_of(file: &FileLines, destinations: Vec<Option<Destination>>) -> Vec<Marker> {
    destinations
        .into_iter()
        .enumerate()
        .filter(|&(line, _)| {
            file.comment_start[line].is_some() && is_marker(file.comment_text(line))
        })
        .map(|(line, destination)| Marker {
            line,
            destination: match file.kinds[line] {
                LineKind::Comment { .. } => destination.unwrap_or(Destination::Foot),
                _ => Destination::LineComment,
            },
        })
        .collect()
}

/// Whether `ancestor` is the path of a collection that holds `path`.
fn is_ancestor(ancestor: &str, path: &str) -> bool {
    path.len() > ancestor.len()
        && path.starts_with(ancestor)
        && matches!(path.as_bytes()[ancestor.len()], b'.' | b'[')
}

/// A comment helm-docs' users write as a description: `# -- text` or `# --`.
pub(crate) fn is_marker(comment: &str) -> bool {
    comment
        .strip_prefix("# --")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' ') || rest.trim().is_empty())
}

/// [`helm_docs_path`] with the items that `@ignore` removed taken out of the count.
fn renumbered_path(path: &str, ignored_items: &HashMap<&str, Vec<usize>>) -> String {
    let mut out = String::with_capacity(path.len());
    for (start, segment) in Segments::new(path) {
        let segment = match segment {
            Segment::Index(index) => {
                // Items are recorded in file order, so the list is sorted.
                let removed = ignored_items
                    .get(&path[..start])
                    .map_or(0, |items| items.partition_point(|&item| item < index));
                Segment::Index(index - removed)
            }
            name => name,
        };
        push_helm_segment(&mut out, segment);
    }
    out
}

#[cfg(test)]
mod tests {
    //! The cases of the research notes (A–Q), each checked against helm-docs'
    //! comment logic running on the real gopkg.in/yaml.v3 v3.0.1.

    use super::*;

    #[test]
    fn a_description_and_a_foot() {
        let yaml =
            "# -- Pods to run\nreplicas: 1\nimage: x\n# -- lost: a foot of `image`\n\ntag: v1\n";
        let source = SourceFile::from_text("values.yaml", yaml);
        let model =
            crate::yaml::model::FileModel::from_bytes("values.yaml", yaml.as_bytes().to_vec());
        let docs = simulate(&source, &model);
        assert_eq!(docs.descriptions["replicas"].text, "Pods to run");
        assert_eq!(docs.markers[1].destination, Destination::Foot);
    }

    fn run(yaml: &str) -> HelmDocs {
        let source = SourceFile::from_text("values.yaml", yaml);
        let model =
            crate::yaml::model::FileModel::from_bytes("values.yaml", yaml.as_bytes().to_vec());
        simulate(&source, &model)
    }

    fn descriptions(docs: &HelmDocs) -> Vec<(&str, &str)> {
        docs.descriptions
            .iter()
            .map(|(key, description)| (key.as_str(), description.text.as_str()))
            .collect()
    }

    fn markers(docs: &HelmDocs) -> Vec<(usize, Destination)> {
        docs.markers
            .iter()
            .map(|marker| (marker.line, marker.destination.clone()))
            .collect()
    }

    fn key(path: &str) -> Destination {
        Destination::Key(path.to_string())
    }

    #[test]
    fn a_commented_yaml_after_the_marker_is_appended() {
        let docs = run("controller:\n  # -- TCP services\n  # tcp:\n  #   8080: svc\n  tcp: {}\n");
        assert_eq!(
            descriptions(&docs),
            [("controller.tcp", "TCP services tcp:   8080: svc")]
        );
        assert_eq!(docs.descriptions["controller.tcp"].lines, 1..4);
        assert_eq!(markers(&docs), [(1, key("controller.tcp"))]);
    }

    #[test]
    fn b_blank_lines_after_a_block_do_not_stop_it() {
        let docs = run(
            "service:\n  type: ClusterIP\n\n  # -- targetPort desc\n  # targetPort:\n\n  annotations: {}\n",
        );
        assert_eq!(
            descriptions(&docs),
            [("service.annotations", "targetPort desc targetPort:")]
        );
        assert_eq!(markers(&docs), [(3, key("service.annotations"))]);
    }

    #[test]
    fn c_a_block_right_under_content_and_before_a_blank_is_a_foot() {
        let docs = run(
            "service:\n  type: ClusterIP\n  # -- targetPort desc\n  # targetPort:\n\n  annotations: {}\n",
        );
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(2, Destination::Foot)]);
    }

    #[test]
    fn d_only_the_last_group_counts() {
        let docs = run(
            "# -- before\nbefore: ~\n\n# -- commented\n#commented: ~\n\n# -- after\nafter: ~\n",
        );
        assert_eq!(
            descriptions(&docs),
            [("after", "after"), ("before", "before")]
        );
        assert_eq!(
            markers(&docs),
            [
                (0, key("before")),
                (3, Destination::Superseded { by_line: 6 }),
                (6, key("after")),
            ]
        );
    }

    #[test]
    fn e_a_foot_unless_a_blank_line_separates_it_from_the_content_above() {
        let lost = run("a: 1\nz: 1\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&lost), []);
        assert_eq!(markers(&lost), [(2, Destination::Foot)]);
        let kept = run("a: 1\n\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&kept), [("b", "desc b")]);
    }

    #[test]
    fn f_the_first_key_loses_a_block_followed_by_a_blank_line() {
        let lost = run("# -- desc a\n\na: 1\n");
        assert_eq!(descriptions(&lost), []);
        assert_eq!(markers(&lost), [(0, Destination::DocumentHead)]);
        let kept = run("# header\n\n# -- d\na: 1\n");
        assert_eq!(descriptions(&kept), [("a", "d")]);
    }

    #[test]
    fn g_a_block_at_child_indentation_before_a_dedent_is_a_foot() {
        let docs = run("a:\n  x: 1\n\n  # -- desc z\n  # z: 3\n\nb: 2\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(3, Destination::Foot)]);
    }

    #[test]
    fn h_a_dedented_block_before_a_blank_line_is_a_foot() {
        let lost = run("a:\n  x: 1\n# -- desc b\n\nb: 2\n");
        assert_eq!(markers(&lost), [(2, Destination::Foot)]);
        let kept = run("a:\n  x: 1\n# -- desc b\nb: 2\n");
        assert_eq!(descriptions(&kept), [("b", "desc b")]);
    }

    #[test]
    fn i_a_block_at_the_end_of_the_file_is_a_foot() {
        let docs = run("a: 1\n# -- desc for commented b\n# b: 2\n");
        assert_eq!(markers(&docs), [(1, Destination::Foot)]);
    }

    #[test]
    fn j_sequence_items() {
        let lost = run("l:\n  - x\n  # -- desc y\n\n  - y\n");
        assert_eq!(markers(&lost), [(2, Destination::Foot)]);
        let kept = run("l:\n  - x\n  # -- desc y\n  - y\n");
        assert_eq!(descriptions(&kept), [("l[1]", "desc y")]);
    }

    #[test]
    fn k_a_second_dashes_make_a_keyed_comment_and_other_spellings_are_no_markers() {
        let docs =
            run("# -- Use this -- or that\na: 1\n## -- x\nb: 2\n#   -- x\nc: 3\n#-- x\nd: 4\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(0, Destination::Keyed)]);
    }

    #[test]
    fn l_the_head_of_a_mapping_item_describes_the_item() {
        let docs = run(
            "paths:\n  # -- first path\n  - path: /\n    # -- pathType\n    pathType: Prefix\n",
        );
        assert_eq!(
            descriptions(&docs),
            [
                ("paths[0]", "first path"),
                ("paths[0].pathType", "pathType")
            ]
        );
    }

    #[test]
    fn m_line_comments_never_count() {
        let docs = run("a: 1 # -- line desc\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(0, Destination::LineComment)]);
    }

    #[test]
    fn n_ignore_removes_the_key_even_from_a_superseded_group() {
        let docs = run("# -- never @ignore this\na: 1\nb: 2\n");
        assert_eq!(markers(&docs), [(0, Destination::Ignored)]);
        let docs = run("a: 1\n\n# -- old @ignore\n\n# -- kept\nb: 2\nc: 3\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(
            markers(&docs),
            [(2, Destination::Ignored), (4, Destination::Ignored)]
        );
    }

    #[test]
    fn n_an_ignored_item_moves_the_next_items_up() {
        let docs = run("l:\n  - a\n  # @ignore\n  - b\n  # -- third\n  - c\n");
        assert_eq!(descriptions(&docs), [("l[1]", "third")]);
    }

    #[test]
    fn o_indentation_does_not_matter_in_the_middle_of_a_block() {
        let docs =
            run("a:\n  x: 1\n# -- desc y at col 0\n  y: 2\n    # -- desc z deeper\n  z: 3\n");
        assert_eq!(
            descriptions(&docs),
            [("a.y", "desc y at col 0"), ("a.z", "desc z deeper")]
        );
    }

    #[test]
    fn p_old_style_wins_wherever_it_is() {
        let docs = run("# a.b -- old style\nc: 1\na:\n  # -- new\n  b: 2\n");
        assert_eq!(descriptions(&docs), [("a.b", "old style")]);
        assert_eq!(docs.descriptions["a.b"].lines, 0..1);
        assert_eq!(
            markers(&docs),
            [(3, Destination::Superseded { by_line: 0 })]
        );
    }

    #[test]
    fn q_default_and_section_above_the_first_key_are_lost_too() {
        let docs = run("# -- d\n# @default -- X\n# @section -- S\n\n# unrelated\na: 1\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(0, Destination::DocumentHead)]);
    }

    #[test]
    fn type_default_hidden_and_raw_lines() {
        let docs = run(
            "a:\n  # -- (int) typed\n  # @default -- 5\n  ## hidden\n  # more\n  # @raw\n  # - item\n  b: 1\n",
        );
        assert_eq!(descriptions(&docs), [("a.b", "typed more\n- item")]);
        assert_eq!(docs.descriptions["a.b"].lines, 1..7);
    }

    #[test]
    fn a_head_above_an_explicit_document_start_reaches_the_first_key() {
        let docs = run("# -- d\n---\na: 1\n");
        assert_eq!(descriptions(&docs), [("a", "d")]);
    }

    #[test]
    fn only_the_first_document_counts() {
        let docs = run("a: 1\n---\n# -- b\nb: 2\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(2, Destination::Foot)]);
    }

    #[test]
    fn no_foot_line_after_a_quoted_scalar_on_the_first_line() {
        let docs = run("a: \"1\"\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&docs), [("b", "desc b")]);
        let docs = run("z: 1\na: \"1\"\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&docs), []);
    }

    #[test]
    fn helm_docs_turns_crlf_into_lf_before_yaml_v3_reads_the_file() {
        let docs = run("a:\r\n  x: 1\r\n  # -- desc y\r\n  y: 2\r\n");
        assert_eq!(descriptions(&docs), [("a.y", "desc y")]);
    }

    #[test]
    fn an_item_with_only_an_anchor_gives_its_head_to_its_first_key() {
        let docs = run("objects:\n  # -- the first\n  - &base\n    kind: A\n");
        assert_eq!(descriptions(&docs), [("objects[0].kind", "the first")]);
    }

    #[test]
    fn flow_items_take_heads_too() {
        let docs = run("a:\n  # -- in flow\n  b: [x,\n    # -- y\n    y]\n");
        assert_eq!(descriptions(&docs), [("a.b", "in flow"), ("a.b[1]", "y")]);
    }

    #[test]
    fn quoted_segments() {
        let docs = run("\"x.y\":\n  # -- dotted\n  \"s p\": 1\n");
        assert_eq!(descriptions(&docs), [("\"x.y\".\"s p\"", "dotted")]);
    }

    #[test]
    fn helm_docs_paths() {
        assert_eq!(helm_docs_path("a.b"), "a.b");
        assert_eq!(helm_docs_path("a[0].b[12]"), "a[0].b[12]");
        assert_eq!(helm_docs_path("a[0][1]"), "a[0][1]");
        assert_eq!(helm_docs_path(r#"a["b.c"].d"#), r#"a."b.c".d"#);
        assert_eq!(helm_docs_path(r#"["a b"][0]"#), r#""a b"[0]"#);
        assert_eq!(helm_docs_path(r#"a["x[1]"]"#), "a.x[1]");
        assert_eq!(helm_docs_path(r#"a["x\"y"]"#), r#"a.x"y"#);
        assert_eq!(helm_docs_path(r#"a["say \"hi\""]"#), r#"a."say "hi"""#);
        assert_eq!(helm_docs_path(r#"a[""]"#), "a.");
    }

    #[test]
    fn description_regex_takes_the_last_dashes_after_whitespace() {
        assert_eq!(description_match("# -- text"), Some(("", "text")));
        assert_eq!(description_match("# --"), Some(("", "")));
        assert_eq!(description_match("# --- x"), Some(("", "- x")));
        assert_eq!(description_match("# -- a -- b"), Some(("-- a", "b")));
        assert_eq!(
            description_match("  # a.b  -- text"),
            Some(("a.b ", "text"))
        );
        assert_eq!(description_match("## -- x"), Some(("#", "x")));
        assert_eq!(description_match("#-- x"), None);
        assert_eq!(description_match("a: 1 # -- x"), None);
    }
}
