//! Parses masked YAML with tree-sitter, one document at a time, into keys and comments.
//!
//! tree-sitter-yaml keeps rows in 16 bits, so a file is split at its `---` lines and
//! each document parsed alone; rows are shifted back afterwards. Where a document
//! still parses with an ERROR node, its keys and comments are recovered from
//! indentation (see `recover.rs`) and the document is marked as recovered.

use std::cell::RefCell;
use std::ops::Range;

use std::sync::OnceLock;

use tree_sitter::{
    Language, Node, Parser, Query, QueryCursor, StreamingIterator, Tree, TreeCursor,
};

use super::syntax::{
    MAX_DEPTH, ParsedDocument, RawComment, RawKey, Recovery, push_index, push_key, scalar_text,
};
use super::{plain, recover, scan};
use crate::lines::count_spaces;
use crate::template::Define;

/// tree-sitter-yaml counts rows in 16 bits.
pub const MAX_DOCUMENT_LINES: usize = 32_767;

/// The tree-sitter queries in `queries/`, by file name, as embedded in the binary.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub const QUERIES: &[(&str, &str)] = &[("kind.scm", KIND_QUERY)];

const KIND_QUERY: &str = include_str!("../../queries/kind.scm");

/// The YAML grammar, compiled into the binary.
pub fn language() -> Language {
    tree_sitter_yaml::LANGUAGE.into()
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `text` with a parser kept per thread. `None` only if tree-sitter refused.
pub fn parse_tree(text: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&language()).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        parser.reset();
        parser.parse(text, None)
    })
}

/// Splits `masked` (the whole file, masked) into documents and parses each.
///
/// `original` is the file's real text, from which key names are taken, so a key that
/// is a template action keeps its `{{ … }}` in the path.
pub fn parse_documents(
    original: &str,
    masked: &str,
    line_starts: &[usize],
    content_start: usize,
    defines: &[Define],
) -> Vec<ParsedDocument> {
    split_documents(masked, line_starts, content_start, defines)
        .into_iter()
        .filter(|segment| !is_blank(original, line_starts, &segment.lines))
        .map(|segment| parse_document(original, masked, line_starts, content_start, segment, true))
        .collect()
}

/// Each document of a file of plain YAML as the tree walk reads it, beside what the
/// walk of yaml-rust2's events reads (`None` where it declines): what the corpus
/// test and the fuzz target compare.
#[cfg(any(test, feature = "internals"))]
pub fn both_walks(
    source: &crate::source::SourceFile,
) -> Vec<(ParsedDocument, Option<ParsedDocument>)> {
    let (text, line_starts) = (source.text.as_str(), source.document_line_starts());
    split_documents(text, line_starts, source.bom_len, &[])
        .into_iter()
        .filter(|segment| !is_blank(text, line_starts, &segment.lines))
        .map(|segment| {
            let too_far = too_far(&segment.lines, segment.too_deep_at).is_some();
            let tree = parse_document(text, text, line_starts, source.bom_len, segment, false);
            let mut events = ParsedDocument {
                keys: Vec::new(),
                comments: Vec::new(),
                kind: None,
                recovered: None,
                too_deep_at: None,
                ..tree.clone()
            };
            let walked = (!too_far)
                .then(|| walk_plain(text, line_starts, source.bom_len, &mut events))
                .flatten()
                .map(|()| events);
            (tree, walked)
        })
        .collect()
}

/// Whether `lines` of the file hold nothing but whitespace.
fn is_blank(original: &str, line_starts: &[usize], lines: &Range<usize>) -> bool {
    let start = line_starts[lines.start];
    let end = line_starts.get(lines.end).map_or(original.len(), |&n| n);
    original[start..end].trim().is_empty()
}

/// A stretch of lines parsed as one YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub lines: Range<usize>,
    /// The `define` whose body this is.
    pub define: Option<String>,
    /// The first line where block collections may nest deeper than [`MAX_DEPTH`].
    pub too_deep_at: Option<usize>,
}

/// Splits a file into documents: a `---` line starts a new document, and so do the
/// first line of a top-level `define` and the line after its `end`. Lines before a
/// document's `---` that hold no content belong to that document.
pub fn split_documents(
    masked: &str,
    line_starts: &[usize],
    content_start: usize,
    defines: &[Define],
) -> Vec<Segment> {
    let line_count = line_starts.len();
    let mut segments = vec![Segment {
        lines: 0..line_count,
        define: None,
        too_deep_at: None,
    }];
    let mut nesting = Nesting::default();
    let mut seen_content = false;
    let mut next_define = 0;
    let mut in_define: Option<&Define> = None;
    for line in 0..line_count {
        let mut boundary: Option<Option<String>> = None;
        if in_define.is_some_and(|define| define.lines.end == line) {
            in_define = None;
            boundary = Some(None);
        }
        if let Some(define) = defines.get(next_define).filter(|d| d.lines.start == line) {
            in_define = Some(define);
            next_define += 1;
            boundary = Some(Some(define.name.clone()));
        }
        let start = line_starts[line].max(if line == 0 { content_start } else { 0 });
        let end = line_starts.get(line + 1).map_or(masked.len(), |&n| n);
        let text = &masked.as_bytes()[start..end];
        let indent = count_spaces(text);
        if boundary.is_none() && is_document_start(text) {
            if seen_content {
                boundary = Some(in_define.map(|define| define.name.clone()));
            }
            seen_content = true;
        } else if let Some(&first) = text[indent..].iter().find(|b| !b.is_ascii_whitespace()) {
            seen_content |= first != b'#';
        }
        if let Some(define) = boundary {
            if line > 0 {
                if let Some(last) = segments.last_mut() {
                    last.lines.end = line;
                }
                segments.push(Segment {
                    lines: line..line_count,
                    define,
                    too_deep_at: None,
                });
            } else if let Some(first) = segments.first_mut() {
                first.define = define;
            }
            seen_content = is_document_start(text);
            nesting = Nesting::default();
        }
        if let Some(segment) = segments.last_mut() {
            if segment.too_deep_at.is_none() && nesting.exceeds(text, indent, MAX_DEPTH) {
                segment.too_deep_at = Some(line);
            }
        }
    }
    segments
}

/// An upper bound on how deep block collections nest, line by line: every
/// indentation level still open, plus one per `- ` that opens a sequence on the line.
#[derive(Default)]
struct Nesting {
    indents: Vec<usize>,
}

impl Nesting {
    /// `indent`: how many spaces the line starts with.
    fn exceeds(&mut self, line: &[u8], indent: usize, limit: usize) -> bool {
        let rest = &line[indent..];
        if rest
            .first()
            .is_none_or(|&b| matches!(b, b'#' | b'\r' | b'\n'))
        {
            return false;
        }
        while self.indents.last().is_some_and(|&top| top > indent) {
            self.indents.pop();
        }
        if self.indents.last().is_none_or(|&top| top < indent) {
            self.indents.push(indent);
        }
        let mut depth = self.indents.len();
        let mut rest = rest;
        while let Some(after) = rest.strip_prefix(b"-") {
            if after
                .first()
                .is_some_and(|&b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            {
                break;
            }
            depth += 1;
            let spaces = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
            rest = &after[spaces..];
        }
        depth > limit
    }
}

fn is_document_start(line: &[u8]) -> bool {
    line.strip_prefix(b"---").is_some_and(|rest| {
        rest.first()
            .is_none_or(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    })
}

fn parse_document(
    original: &str,
    masked: &str,
    line_starts: &[usize],
    content_start: usize,
    segment: Segment,
    walk_events: bool,
) -> ParsedDocument {
    let lines = segment.lines;
    let start = document_start(line_starts, &lines, content_start);
    let end = line_starts.get(lines.end).map_or(masked.len(), |&n| n);
    let mut document = ParsedDocument {
        lines: lines.clone(),
        keys: Vec::new(),
        comments: Vec::new(),
        kind: None,
        define: segment.define,
        recovered: None,
        too_deep_at: None,
    };
    let text = &masked[start..end];
    // Too deep or too long for tree-sitter-yaml: recover what indentation shows.
    if let Some(reason) = too_far(&lines, segment.too_deep_at) {
        recover::recover(original, masked, line_starts, content_start, &mut document);
        document.recovered = Some(reason);
        return document;
    }
    // `masked` is the file's own text, not a masked copy, only for plain YAML.
    let plain = std::ptr::eq(original, masked);
    if walk_events
        && plain
        && walk_plain(original, line_starts, content_start, &mut document).is_some()
    {
        return document;
    }
    let tree = parse_tree(text);
    let error_lines = match &tree {
        Some(tree) => error_lines(tree, lines.start).map(|found| {
            // tree-sitter's ERROR node may end before the line that broke the YAML:
            // widen the range to the first line at which a prefix stops parsing.
            let culprit = first_failing_line(text) + lines.start;
            found.start.min(culprit)..found.end.max(culprit + 1)
        }),
        None => Some(lines.clone()),
    };
    match (tree, error_lines) {
        (Some(tree), None) => {
            let mut walker = Walker {
                original,
                masked: text,
                offset: start,
                line_offset: lines.start,
                document: &mut document,
                kind_pair: None,
            };
            walker.walk(tree.root_node().walk());
            if let Some(pair) = walker.kind_pair {
                document.kind = document_kind(&tree, pair, original, text, start);
            }
        }
        (_, error_lines) => {
            let error_lines = error_lines.unwrap_or(lines.clone());
            recover::recover(original, masked, line_starts, content_start, &mut document);
            document.recovered = Some(Recovery::SyntaxError { lines: error_lines });
        }
    }
    document
}

/// Why a document is recovered from indentation before any parse: more lines than
/// tree-sitter-yaml counts, or block nesting deeper than it keeps.
fn too_far(lines: &Range<usize>, too_deep_at: Option<usize>) -> Option<Recovery> {
    if lines.len() > MAX_DOCUMENT_LINES {
        Some(Recovery::TooLong)
    } else {
        too_deep_at.map(|line| Recovery::TooDeep { line })
    }
}

/// The byte where the document of `lines` starts: a byte-order mark is not YAML,
/// so the first document starts after it.
fn document_start(line_starts: &[usize], lines: &Range<usize>, content_start: usize) -> usize {
    line_starts[lines.start].max(if lines.start == 0 { content_start } else { 0 })
}

/// Fills `document` (plain YAML) from the walk of yaml-rust2's events (see
/// `plain.rs`), its comments from the comment scan; `None`, leaving it as it was,
/// where the tree is needed.
fn walk_plain(
    original: &str,
    line_starts: &[usize],
    content_start: usize,
    document: &mut ParsedDocument,
) -> Option<()> {
    let lines = document.lines.clone();
    let start = document_start(line_starts, &lines, content_start);
    let end = line_starts.get(lines.end).map_or(original.len(), |&n| n);
    let mut found = scan::scan(
        original,
        original,
        line_starts,
        lines.clone(),
        content_start,
    );
    // tree-sitter reads the text after a byte-order mark: its columns on the first
    // line do not count the mark.
    for comment in found
        .comments
        .iter_mut()
        .filter(|comment| comment.line == 0)
    {
        comment.column = comment.column.saturating_sub(content_start);
    }
    let place = plain::Place {
        offset: start,
        first_line: lines.start,
        line_starts,
        block_scalar_lines: &found.block_scalar_lines,
        comments: &found.comments,
    };
    let walked = plain::walk(original.get(start..end)?, &place)?;
    document.keys = walked.keys;
    document.kind = walked.kind;
    document.comments = found.comments;
    Some(())
}

/// The document's `kind:` (queries/kind.scm), unless its value is a template action.
/// The query runs over the top-level `kind` pair the walk found, not the whole tree.
fn document_kind(
    tree: &Tree,
    pair: Range<usize>,
    original: &str,
    text: &str,
    offset: usize,
) -> Option<String> {
    static QUERY: OnceLock<Option<Query>> = OnceLock::new();
    let query = QUERY
        .get_or_init(|| Query::new(&language(), KIND_QUERY).ok())
        .as_ref()?;
    let kind_capture = query.capture_index_for_name("kind")?;
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    cursor.set_byte_range(pair);
    let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
    while let Some(found) = matches.next() {
        for capture in found.captures.iter().filter(|c| c.index == kind_capture) {
            let range = capture.node.byte_range();
            let value = original[range.start + offset..range.end + offset].trim();
            if !value.contains("{{") {
                return Some(value.to_string());
            }
        }
    }
    None
}

/// The first line (0-based, in `text`) such that `text` up to and including it does
/// not parse: a binary search over prefixes, run only on a document that failed.
fn first_failing_line(text: &str) -> usize {
    let line_ends: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter(|&(_, byte)| byte == b'\n')
        .map(|(offset, _)| offset + 1)
        .chain(std::iter::once(text.len()))
        .collect();
    let fails = |line: usize| {
        parse_tree(&text[..line_ends[line]]).is_none_or(|tree| tree.root_node().has_error())
    };
    // Invariant: the prefix through `high` fails (the whole text does).
    let (mut low, mut high) = (0, line_ends.len() - 1);
    while low < high {
        let middle = low + (high - low) / 2;
        if fails(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    high
}

/// The lines from the first to the last ERROR or MISSING node, if any.
fn error_lines(tree: &Tree, line_offset: usize) -> Option<Range<usize>> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut first = usize::MAX;
    let mut last = 0;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            first = first.min(node.start_position().row);
            last = last.max(node.end_position().row);
        } else if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                let first = if first == usize::MAX { 0 } else { first };
                return Some(first + line_offset..last.max(first) + line_offset + 1);
            }
        }
    }
}

/// Walks one document's tree with a cursor, building paths as it goes.
struct Walker<'a> {
    original: &'a str,
    /// The document's masked text, which the tree's offsets index.
    masked: &'a str,
    /// Byte offset of the document in the file.
    offset: usize,
    line_offset: usize,
    document: &'a mut ParsedDocument,
    /// Byte range (in the document) of the first pair whose path is `kind`.
    kind_pair: Option<Range<usize>>,
}

/// What the walk knows about one open node: the path its children live under.
struct Frame {
    path_len: usize,
    kind: NodeKind,
    items: usize,
    in_flow: bool,
    /// A child not to walk into: the pair's key.
    skip: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Pair,
    FlowPair,
    BlockSequenceItem,
    FlowSequence,
    FlowMapping,
    FlowNode,
    Comment,
    /// A scalar: nothing below it is a key or a comment.
    Scalar,
    Other,
}

/// Node kinds by tree-sitter kind id, and the id of the `key` field: comparing
/// numbers instead of strings keeps the walk cheap next to parsing.
struct Grammar {
    kinds: Vec<NodeKind>,
    key_field: Option<std::num::NonZeroU16>,
}

fn grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| {
        let language = language();
        let kinds = (0..language.node_kind_count() as u16)
            .map(|id| match language.node_kind_for_id(id).unwrap_or("") {
                "block_mapping_pair" => NodeKind::Pair,
                "flow_pair" => NodeKind::FlowPair,
                "block_sequence_item" => NodeKind::BlockSequenceItem,
                "flow_sequence" => NodeKind::FlowSequence,
                "flow_mapping" => NodeKind::FlowMapping,
                "flow_node" => NodeKind::FlowNode,
                "comment" => NodeKind::Comment,
                // A block scalar's node holds the comment of its header line
                // (`key: |  # c`), so it is walked like any other node.
                "plain_scalar" | "double_quote_scalar" | "single_quote_scalar" => NodeKind::Scalar,
                _ => NodeKind::Other,
            })
            .collect();
        Grammar {
            kinds,
            key_field: language.field_id_for_name("key"),
        }
    })
}

impl NodeKind {
    fn of(node: &Node, grammar: &Grammar) -> NodeKind {
        grammar
            .kinds
            .get(node.kind_id() as usize)
            .copied()
            .unwrap_or(NodeKind::Other)
    }
}

impl Walker<'_> {
    fn walk(&mut self, mut cursor: TreeCursor) {
        let mut path = String::new();
        let mut stack = vec![Frame {
            path_len: 0,
            kind: NodeKind::Other,
            items: 0,
            in_flow: false,
            skip: None,
        }];
        let grammar = grammar();
        loop {
            let node = cursor.node();
            // A pair's key is a scalar (or, rarely, a complex key): nothing in it is a
            // key or a comment of its own, so the walk does not go down into it.
            let frame = if stack
                .last()
                .is_some_and(|frame| frame.skip == Some(node.id()))
            {
                // A complex key (`? c: 2  # t`) may hold comments: they are the
                // file's comments like any other.
                if memchr::memchr(b'#', &self.masked.as_bytes()[node.byte_range()]).is_some() {
                    self.comments_in(&node, grammar);
                }
                None
            } else {
                self.enter(&node, grammar, &mut path, &mut stack)
            };
            let descend = frame.is_some();
            if let Some(frame) = frame {
                stack.push(frame);
            }
            if descend && cursor.goto_first_child() {
                continue;
            }
            if descend {
                stack.pop();
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                stack.pop();
            }
        }
    }

    /// Records every comment below `node`, and nothing else.
    fn comments_in(&mut self, node: &Node, grammar: &Grammar) {
        let mut cursor = node.walk();
        let mut depth = 0usize;
        loop {
            let current = cursor.node();
            if NodeKind::of(&current, grammar) == NodeKind::Comment {
                self.comment(&current);
            } else if depth < MAX_DEPTH * 4 && cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if depth == 0 {
                    return;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
                depth -= 1;
            }
        }
    }

    /// Records what `node` is, and returns the frame for its children, or `None` when
    /// its children are not to be walked (scalars, or nesting too deep).
    fn enter(
        &mut self,
        node: &Node,
        grammar: &Grammar,
        path: &mut String,
        stack: &mut [Frame],
    ) -> Option<Frame> {
        let kind = NodeKind::of(node, grammar);
        let parent = stack.last_mut()?;
        path.truncate(parent.path_len);
        let mut in_flow = parent.in_flow;
        let mut skip = None;
        match kind {
            NodeKind::Comment => {
                self.comment(node);
                return None;
            }
            NodeKind::BlockSequenceItem => {
                push_index(path, parent.items);
                parent.items += 1;
                self.key(node, node, path, in_flow);
            }
            NodeKind::FlowNode | NodeKind::FlowPair if parent.kind == NodeKind::FlowSequence => {
                push_index(path, parent.items);
                parent.items += 1;
                self.key(node, node, path, true);
            }
            _ => {}
        }
        if matches!(kind, NodeKind::Pair | NodeKind::FlowPair) {
            if let Some(key) = grammar
                .key_field
                .and_then(|field| node.child_by_field_id(field.get()))
            {
                push_key(path, self.key_name(&key));
                self.key(node, &key, path, kind == NodeKind::FlowPair);
                if path == "kind" && self.kind_pair.is_none() {
                    self.kind_pair = Some(node.byte_range());
                }
                skip = Some(key.id());
            }
        }
        if matches!(kind, NodeKind::FlowSequence | NodeKind::FlowMapping) {
            in_flow = true;
        }
        if kind == NodeKind::Scalar {
            return None;
        }
        // A flow node that does not start a flow collection (or a tag or anchor that
        // may precede one) holds a scalar or an alias: no key, no comment inside.
        if kind == NodeKind::FlowNode
            && !matches!(
                self.masked.as_bytes().get(node.start_byte()),
                Some(b'[' | b'{' | b'!' | b'&')
            )
        {
            return None;
        }
        if stack.len() > MAX_DEPTH * 4 {
            if self.document.too_deep_at.is_none() {
                self.document.too_deep_at = Some(node.start_position().row + self.line_offset);
            }
            return None;
        }
        Some(Frame {
            path_len: path.len(),
            kind,
            items: 0,
            in_flow,
            skip,
        })
    }

    fn key(&mut self, node: &Node, key: &Node, path: &str, in_flow: bool) {
        let start = key.start_position();
        self.document.keys.push(RawKey {
            path: path.to_string(),
            offset: key.start_byte() + self.offset,
            line: start.row + self.line_offset,
            column: start.column,
            value_end_line: value_end_row(node) + self.line_offset,
            in_flow,
        });
    }

    fn comment(&mut self, node: &Node) {
        let start = node.start_byte() + self.offset;
        let mut end = node.end_byte() + self.offset;
        if self.original.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        let line_start = self.original[..start].rfind('\n').map_or(0, |n| n + 1);
        let own_line = self.original[line_start..start]
            .trim_start_matches('\u{feff}')
            .bytes()
            .all(|b| b == b' ' || b == b'\t');
        self.document.comments.push(RawComment {
            span: start..end,
            line: node.start_position().row + self.line_offset,
            column: node.start_position().column,
            own_line,
        });
    }

    /// The key's name as written in the file: quotes removed, actions kept.
    fn key_name(&self, key: &Node) -> String {
        let text = &self.original[key.start_byte() + self.offset..key.end_byte() + self.offset];
        scalar_text(text.trim())
    }
}

/// The last row of a pair's value, not counting comments that tree-sitter may have
/// put inside the node.
fn value_end_row(node: &Node) -> usize {
    let mut end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row -= 1;
    }
    end.row
}
