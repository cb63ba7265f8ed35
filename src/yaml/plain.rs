//! The keys of a document of plain YAML (a chart's `values.yaml`, any file that is
//! not a template) from yaml-rust2's events, without a tree-sitter tree.
//!
//! tree-sitter-yaml costs about 265 instructions a byte of YAML; yaml-rust2's events
//! about 95. [`super::parse`] asks this walk first for a document of plain YAML and
//! parses it with tree-sitter only where the walk declines (`None`):
//! - yaml-rust2 stops at an error (tree-sitter then finds it, and recovery runs);
//! - the text holds what the two parsers read differently: a tab, a carriage return
//!   or another control character (C1 ones too), a byte-order mark past the start,
//!   a line or paragraph separator, U+FFFE or U+FFFF;
//! - the document holds what this walk does not place exactly as the tree walk does:
//!   a key that is not a one-line scalar (`? ` keys, a key with an anchor or a tag);
//!   an anchor or tag before a sequence item, or before a block scalar or nothing;
//!   an empty `-` item, or an item below its `-`; a single pair inside `[…]`; a key
//!   without a value inside `{…}`; a quoted scalar over several lines, or a plain one
//!   inside `[…]`; a block scalar header not after `:` or `-`; a top-level `kind:`
//!   that is not a plain key with a one-line plain value; a document that is one
//!   scalar; a second document; nesting deeper than a quarter of [`MAX_DEPTH`]
//!   (the tree walk counts four nodes a level).
//!
//! A corpus test holds this walk to tree-sitter's keys on every file of plain YAML in
//! the corpus, and the `plain_walk` fuzz target on any bytes.

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::scan::closing_quote;
use super::syntax::{MAX_DEPTH, RawComment, RawKey, push_index, push_key, scalar_text};

/// What the walk found in one document: its keys in document order, and the value of
/// a top-level `kind:` when it is a plain scalar (as `queries/kind.scm` finds it).
#[derive(Debug)]
pub struct Walked {
    pub keys: Vec<RawKey>,
    pub kind: Option<String>,
}

/// Where a document lies in its file.
pub struct Place<'a> {
    /// Byte offset of the document's text in the file.
    pub offset: usize,
    /// The file's line of the document's first line.
    pub first_line: usize,
    /// The file's line starts.
    pub line_starts: &'a [usize],
    /// The file's lines of block scalar content, sorted (what the comment scan found).
    pub block_scalar_lines: &'a [usize],
    /// The document's comments, in order (what the comment scan found).
    pub comments: &'a [RawComment],
}

/// Walks the events of `text`, one document of plain YAML; `None` where the tree walk
/// is needed (see the module's documentation).
pub fn walk(text: &str, place: &Place) -> Option<Walked> {
    if !plain_enough(text) {
        return None;
    }
    let mut walk = Walk {
        text,
        place,
        ascii: text.is_ascii(),
        cursor: (0, 0, 0),
        path: String::new(),
        stack: Vec::new(),
        keys: Vec::new(),
        kind: Kind::Unseen,
        documents: 0,
    };
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = parser.next_token().ok()?;
        match event {
            Event::StreamEnd => break,
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
            Event::DocumentStart => {
                walk.documents += 1;
                if walk.documents > 1 {
                    return None;
                }
            }
            Event::Alias(_) => {
                let at = walk.byte(mark)?;
                walk.node(at, mark, Node::Alias)?;
            }
            Event::Scalar(value, style, anchor, tag) => {
                let at = walk.byte(mark)?;
                let decorated = anchor != 0 || tag.is_some();
                // A plain scalar whose text is not its value goes on below.
                let continues = style == TScalarStyle::Plain
                    && !text
                        .get(at..)
                        .is_some_and(|rest| rest.starts_with(value.as_str()));
                // Where the next node starts bounds a block scalar's content, and
                // a plain scalar's lines.
                let next = match style {
                    TScalarStyle::Literal | TScalarStyle::Folded => Some(parser.peek().ok()?.1),
                    TScalarStyle::Plain if continues && !value.is_empty() => {
                        Some(parser.peek().ok()?.1)
                    }
                    _ => None,
                };
                walk.node(
                    at,
                    mark,
                    Node::Scalar {
                        value: &value,
                        style,
                        decorated,
                        next,
                    },
                )?;
            }
            Event::MappingStart(anchor, ref tag) | Event::SequenceStart(anchor, ref tag) => {
                let at = walk.byte(mark)?;
                let sequence = matches!(event, Event::SequenceStart(..));
                let decorated = anchor != 0 || tag.is_some();
                // A `[` or `{` opens a flow collection, unless the event is a
                // block sequence without indentation whose first item starts there
                // (yaml-rust2 places it at that item): then the item's event is next,
                // at the same place.
                let bracket = text.as_bytes().get(at) == Some(if sequence { &b'[' } else { &b'{' });
                let flow = bracket && parser.peek().ok()?.1.index() != mark.index();
                walk.node(
                    at,
                    mark,
                    Node::Collection {
                        sequence,
                        flow,
                        decorated,
                    },
                )?;
            }
            Event::MappingEnd | Event::SequenceEnd => walk.close(mark)?,
        }
    }
    let kind = match walk.kind {
        Kind::Found(value) => Some(value),
        Kind::Unseen | Kind::Pending => None,
    };
    Some(Walked {
        keys: walk.keys,
        kind,
    })
}

/// Whether `text` holds none of the characters where yaml-rust2 and tree-sitter-yaml
/// read YAML differently: a tab, a carriage return or another control character (C0,
/// DEL, or C1, which YAML does not count printable and yaml-rust2 reads as text), a
/// byte-order mark past the start, a line or paragraph separator (line breaks to
/// YAML 1.1), or the noncharacters U+FFFE and U+FFFF. tree-sitter reads such a
/// document alone.
fn plain_enough(text: &str) -> bool {
    let bytes = text.as_bytes();
    let control = bytes
        .iter()
        .any(|&byte| (byte < b' ' && byte != b'\n') || byte == 0x7f);
    // U+0080 to U+009F: 0xC2 then 0x80 to 0x9F (NEL, U+0085, among them).
    let c1 = memchr::memchr_iter(0xc2, bytes).any(|at| {
        bytes
            .get(at + 1)
            .is_some_and(|next| (0x80..=0x9f).contains(next))
    });
    !control
        && !c1
        && !["\u{feff}", "\u{2028}", "\u{2029}", "\u{fffe}", "\u{ffff}"]
            .iter()
            .any(|mark| memchr::memmem::find(bytes, mark.as_bytes()).is_some())
}

/// One node as yaml-rust2 gives it.
enum Node<'e> {
    Scalar {
        value: &'e str,
        style: TScalarStyle,
        decorated: bool,
        /// For a block scalar or a plain scalar over lines, where the next event is.
        next: Option<Marker>,
    },
    Alias,
    Collection {
        sequence: bool,
        flow: bool,
        decorated: bool,
    },
}

/// One open collection.
struct Frame {
    sequence: bool,
    flow: bool,
    /// The length of the path its entries live under.
    path_len: usize,
    items: usize,
    /// A mapping's next node is a key.
    expect_key: bool,
    /// The key (index in `keys`) whose value, or the item whose node, is read now.
    open: Option<usize>,
    /// The last line a key or a finished entry of it is on.
    end_line: usize,
    /// A block mapping that is a sequence's item: yaml-rust2 places the mapping after
    /// its first key, so the item's `-` is found from that key.
    item_of_first_key: bool,
}

/// The top-level `kind:`, as the tree walk and `queries/kind.scm` find it: the first
/// top-level pair whose path is `kind`, when the document is a block mapping, its key
/// a plain scalar and its value a plain scalar without an action.
enum Kind {
    Unseen,
    /// The pair is found and its key qualifies; its value is next.
    Pending,
    Found(String),
}

struct Walk<'a> {
    text: &'a str,
    place: &'a Place<'a>,
    ascii: bool,
    /// The last position converted: (line of `text`, character column, byte offset).
    cursor: (usize, usize, usize),
    path: String,
    stack: Vec<Frame>,
    keys: Vec<RawKey>,
    kind: Kind,
    documents: usize,
}

impl Walk<'_> {
    /// The byte offset in `text` of a marker: its index in ASCII text, else found from
    /// its line and column (which count characters).
    fn byte(&mut self, mark: Marker) -> Option<usize> {
        if self.ascii {
            return Some(mark.index());
        }
        let row = mark.line().checked_sub(1)?;
        let (line, column, byte) = self.cursor;
        let (mut column, mut byte) = if line == row && column <= mark.col() {
            (column, byte)
        } else {
            (0, self.row_start(row)?)
        };
        let mut chars = self.text.get(byte..)?.chars();
        while column < mark.col() {
            byte += chars.next()?.len_utf8();
            column += 1;
        }
        self.cursor = (row, column, byte);
        Some(byte)
    }

    /// Whether a marker is at the end of `text`. yaml-rust2 counts a marker's index
    /// in characters in some places and in bytes in others (after a block scalar's
    /// content), so the end is found from the marker's line and column.
    fn is_end(&mut self, mark: Marker) -> bool {
        let row = mark.line().saturating_sub(1);
        match self.row_start(row) {
            Some(start) if start < self.text.len() => {
                self.byte(mark).is_none_or(|byte| byte >= self.text.len())
            }
            _ => true,
        }
    }

    /// The byte offset in `text` where its line `row` (0-based) starts.
    fn row_start(&self, row: usize) -> Option<usize> {
        if row == 0 {
            return Some(0);
        }
        let start = *self.place.line_starts.get(self.place.first_line + row)?;
        start.checked_sub(self.place.offset)
    }

    /// The file's line of a marker and the byte column of `at` on it.
    fn line_and_column(&self, mark: Marker, at: usize) -> Option<(usize, usize)> {
        let row = mark.line().checked_sub(1)?;
        let column = at.checked_sub(self.row_start(row)?)?;
        Some((self.place.first_line + row, column))
    }

    fn node(&mut self, at: usize, mark: Marker, node: Node) -> Option<()> {
        let Some(frame) = self.stack.last_mut() else {
            // The document's root: a collection opens; an empty document has no
            // key. A document that is one scalar is left to the tree, which reads
            // its lines as it will.
            return match node {
                Node::Collection { sequence, flow, .. } => self.open(at, mark, sequence, flow),
                Node::Scalar {
                    value: "",
                    style: TScalarStyle::Plain,
                    decorated: false,
                    ..
                } => Some(()),
                _ => None,
            };
        };
        if !frame.sequence && frame.expect_key {
            return self.key(at, mark, node);
        }
        if frame.sequence {
            self.item(at, &node)?;
        } else {
            // `{a, b}` holds keys with no value, which tree-sitter reads as no pair.
            if frame.flow
                && matches!(
                    node,
                    Node::Scalar {
                        value: "",
                        style: TScalarStyle::Plain,
                        ..
                    }
                )
            {
                return None;
            }
            frame.expect_key = true;
        }
        self.value_kind(&node, at)?;
        match node {
            Node::Scalar {
                value,
                style,
                decorated,
                next,
            } => {
                let end = self.scalar_end(at, mark, value, style, decorated, next)?;
                self.finish(end);
            }
            Node::Alias => {
                let (line, _) = self.line_and_column(mark, at)?;
                self.finish(Some(line));
            }
            Node::Collection { sequence, flow, .. } => self.open(at, mark, sequence, flow)?,
        }
        Some(())
    }

    /// The line a scalar that starts at `at` ends on; `Some(None)` for an empty node,
    /// which ends where its key or item does.
    fn scalar_end(
        &mut self,
        at: usize,
        mark: Marker,
        value: &str,
        style: TScalarStyle,
        decorated: bool,
        next: Option<Marker>,
    ) -> Option<Option<usize>> {
        let (line, _) = self.line_and_column(mark, at)?;
        let bytes = self.text.as_bytes();
        Some(match style {
            // An anchor or tag with no node after it ends where it is, in the tree.
            TScalarStyle::Plain if value.is_empty() && decorated => return None,
            TScalarStyle::Plain if value.is_empty() => None,
            // yaml-rust2 reads `[|]` or `{a: >}` as plain text, tree-sitter as an
            // error.
            TScalarStyle::Plain if bytes.get(at).is_some_and(|byte| b"|>".contains(byte)) => {
                return None;
            }
            TScalarStyle::Plain => match next {
                None => Some(line),
                Some(next) => Some(self.plain_end(at, value, next.line())?),
            },
            // A quoted scalar over several lines: tree-sitter and yaml-rust2 disagree
            // on how far its lines must be indented.
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => {
                let end = quoted_end(self.text, at)?;
                memchr::memchr(b'\n', &bytes[at..end])
                    .is_none()
                    .then_some(())?;
                Some(line)
            }
            TScalarStyle::Literal | TScalarStyle::Folded => {
                Some(self.block_scalar_end(at, decorated, next?)?)
            }
        })
    }

    /// The line a block scalar whose content yaml-rust2 places at `at` ends on; `None`
    /// where tree-sitter may read it otherwise.
    fn block_scalar_end(&mut self, at: usize, decorated: bool, next: Marker) -> Option<usize> {
        // The comment scanner finds block scalars only after a key's `:` or an
        // item's `-`.
        if decorated {
            return None;
        }
        let header_end = self.header_end(at)?;
        // Below a header with a comment, tree-sitter-yaml may read a first line of
        // content that starts with `#` as that comment's next line.
        let commented = self.text.get(header_end..)?.starts_with('#');
        if commented && self.text.as_bytes().get(at) == Some(&b'#') {
            return None;
        }
        let indicator = self.indicator(header_end)?;
        let before = self.text[..indicator].trim_end_matches(' ');
        if !(before.ends_with(':') || before.ends_with('-')) {
            return None;
        }
        let header = self.place.first_line + self.row_of(header_end);
        let at_end = self.is_end(next);
        let next_line = if at_end {
            self.place.first_line + self.row_of(self.text.len()) + 1
        } else {
            self.place.first_line + next.line().checked_sub(1)?
        };
        let last = self.last_content_line(header, next_line);
        // At the end of the text, with only blank lines after its content, it ends
        // after them.
        let rest = match self.row_start(last + 1 - self.place.first_line) {
            Some(start) => self.text.get(start..)?,
            None => "",
        };
        if at_end && rest.trim().is_empty() {
            return Some(self.place.first_line + self.row_of(self.text.len().saturating_sub(1)));
        }
        Some(last)
    }

    /// A mapping's key: a one-line scalar without an anchor or a tag.
    fn key(&mut self, at: usize, mark: Marker, node: Node) -> Option<()> {
        let Node::Scalar {
            value,
            style,
            decorated: false,
            ..
        } = node
        else {
            return None;
        };
        let end = match style {
            TScalarStyle::Plain if !value.is_empty() => {
                self.text.get(at..)?.starts_with(value).then_some(())?;
                at + value.len()
            }
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => {
                let end = quoted_end(self.text, at)?;
                memchr::memchr(b'\n', &self.text.as_bytes()[at..end])
                    .is_none()
                    .then_some(())?;
                end
            }
            _ => return None,
        };
        // A `? ` key is a node of its own in the tree.
        let before = self.text.as_bytes()[..at].iter().rposition(|&b| b != b' ');
        if before.is_some_and(|index| self.text.as_bytes()[index] == b'?') {
            return None;
        }
        if self.stack.last()?.item_of_first_key {
            self.stack.last_mut()?.item_of_first_key = false;
            let dash = dash_before(self.text, at)?;
            let depth = self.stack.len();
            let index = self.push_item_key(dash, depth - 2)?;
            self.stack.get_mut(depth - 2)?.open = Some(index);
        }
        let (line, column) = self.line_and_column(mark, at)?;
        let frame = self.stack.last_mut()?;
        self.path.truncate(frame.path_len);
        push_key(&mut self.path, scalar_text(self.text.get(at..end)?.trim()));
        frame.expect_key = false;
        frame.open = Some(self.keys.len());
        frame.end_line = frame.end_line.max(line);
        let in_flow = frame.flow;
        if self.stack.len() == 1 && self.path == "kind" && matches!(self.kind, Kind::Unseen) {
            // The query reads `kind` only as a plain key in a block mapping; what
            // it makes of any other pair whose path is `kind` is left to it.
            if in_flow || style != TScalarStyle::Plain || value != "kind" {
                return None;
            }
            self.kind = Kind::Pending;
        }
        self.keys.push(RawKey {
            path: self.path.clone(),
            offset: self.place.offset + at,
            line,
            column,
            value_end_line: line,
            in_flow,
        });
        Some(())
    }

    /// A sequence's item: its `-` in a block sequence, its node in a flow sequence.
    fn item(&mut self, at: usize, node: &Node) -> Option<()> {
        let frame = self.stack.last_mut()?;
        let (decorated, empty) = match node {
            Node::Scalar {
                value,
                style,
                decorated,
                ..
            } => (
                *decorated,
                *style == TScalarStyle::Plain && value.is_empty(),
            ),
            Node::Alias => (false, false),
            Node::Collection { decorated, .. } => (*decorated, false),
        };
        if decorated || empty {
            return None;
        }
        let flow = frame.flow;
        self.path.truncate(frame.path_len);
        push_index(&mut self.path, frame.items);
        frame.items += 1;
        frame.open = None;
        let start = match node {
            // `[a: 1]` holds a mapping of one pair that has no `{`.
            Node::Collection {
                sequence: false,
                flow: false,
                ..
            } if flow => return None,
            _ if flow => at,
            // yaml-rust2 places a block mapping after its first key: its item is
            // placed when that key is read.
            Node::Collection {
                sequence: false,
                flow: false,
                ..
            } => return Some(()),
            Node::Scalar {
                style: TScalarStyle::Literal | TScalarStyle::Folded,
                ..
            } => dash_before(self.text, self.indicator(self.header_end(at)?)?)?,
            _ => dash_before(self.text, at)?,
        };
        let depth = self.stack.len() - 1;
        let index = self.push_item_key(start, depth)?;
        self.stack.get_mut(depth)?.open = Some(index);
        Some(())
    }

    /// Records the key of the item of `self.stack[depth]` that starts at `start`.
    fn push_item_key(&mut self, start: usize, depth: usize) -> Option<usize> {
        let row = self.row_of(start);
        let line = self.place.first_line + row;
        let column = start.checked_sub(self.row_start(row)?)?;
        let frame = self.stack.get_mut(depth)?;
        frame.end_line = frame.end_line.max(line);
        let in_flow = frame.flow;
        let path = self.path[..self.path_at_item(depth)?].to_string();
        self.keys.push(RawKey {
            path,
            offset: self.place.offset + start,
            line,
            column,
            value_end_line: line,
            in_flow,
        });
        Some(self.keys.len() - 1)
    }

    /// The length of the path of the item open in `self.stack[depth]`: the path of
    /// the frame above it, or the whole path.
    fn path_at_item(&self, depth: usize) -> Option<usize> {
        Some(match self.stack.get(depth + 1) {
            Some(child) => child.path_len,
            None => self.path.len(),
        })
    }

    /// The end of a block scalar's header line (before its comment), for the scalar
    /// whose content yaml-rust2 places at `at`: the last line above `at` that is not
    /// blank, or `at`'s own line when the text before `at` on it is not blank.
    fn header_end(&self, at: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let last = bytes[..at]
            .iter()
            .rposition(|&b| !matches!(b, b' ' | b'\n'))?;
        let row = self.row_of(last);
        let line = self.place.first_line + row;
        let comments = self.place.comments;
        let index = comments.partition_point(|comment| comment.line < line);
        let end = match comments.get(index).filter(|comment| comment.line == line) {
            Some(comment) => comment.span.start.checked_sub(self.place.offset)?,
            None => last + 1,
        };
        Some(end)
    }

    /// The block scalar indicator (`|`, `>-`, `|2+`) that the header ending at `end`
    /// ends with: its offset.
    fn indicator(&self, end: usize) -> Option<usize> {
        let header = self.text.get(..end)?.trim_end_matches(' ');
        let spec = header.trim_end_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
        let indicator = spec.len().checked_sub(1)?;
        matches!(spec.as_bytes()[indicator], b'|' | b'>').then_some(indicator)
    }

    /// Settles the top-level `kind:` once its value is seen: a plain scalar on one
    /// line, without an action. Any other value is left to the query (`None`).
    fn value_kind(&mut self, node: &Node, at: usize) -> Option<()> {
        if !matches!(self.kind, Kind::Pending) || self.stack.len() != 1 {
            return Some(());
        }
        let Node::Scalar {
            value,
            style: TScalarStyle::Plain,
            ..
        } = node
        else {
            return None;
        };
        let one_line = self.text.get(at..)?.starts_with(value);
        if value.is_empty() || value.contains("{{") || !one_line {
            return None;
        }
        self.kind = Kind::Found(value.trim().to_string());
        Some(())
    }

    /// Opens a collection that starts at `at`.
    fn open(&mut self, at: usize, mark: Marker, sequence: bool, flow: bool) -> Option<()> {
        if self.stack.len() >= MAX_DEPTH / 4 {
            return None;
        }
        let (line, _) = self.line_and_column(mark, at)?;
        let item_of_first_key = !sequence
            && !flow
            && self
                .stack
                .last()
                .is_some_and(|frame| frame.sequence && !frame.flow && frame.open.is_none());
        self.stack.push(Frame {
            sequence,
            flow,
            path_len: self.path.len(),
            items: 0,
            expect_key: !sequence,
            open: None,
            end_line: line,
            item_of_first_key,
        });
        Some(())
    }

    /// Closes the innermost collection: a flow collection ends at its bracket, a block
    /// collection with its last entry.
    fn close(&mut self, mark: Marker) -> Option<()> {
        let frame = self.stack.pop()?;
        let line = self.place.first_line + mark.line().checked_sub(1)?;
        // tree-sitter-yaml closes a block collection at the next token, after the
        // comments before it: they end the collection when they come after its
        // last entry.
        let at_end = self.is_end(mark);
        let end = if frame.flow {
            line
        } else if at_end {
            // At the end of the text it closes after the blank lines that end it.
            self.place.first_line + self.row_of(self.text.len().saturating_sub(1))
        } else {
            let comments = self.place.comments;
            let before = comments.partition_point(|comment| comment.line < line);
            let comment = before
                .checked_sub(1)
                .map_or(0, |index| comments[index].line);
            frame.end_line.max(comment)
        };
        self.path.truncate(frame.path_len);
        self.finish(Some(end));
        Some(())
    }

    /// The node of the open key or item ended on `end` (`None`: it is empty).
    fn finish(&mut self, end: Option<usize>) {
        let Some(frame) = self.stack.last_mut() else {
            return;
        };
        if let (Some(end), Some(open)) = (end, frame.open) {
            if let Some(key) = self.keys.get_mut(open) {
                key.value_end_line = key.value_end_line.max(end);
            }
            frame.end_line = frame.end_line.max(end);
        }
        if frame.sequence {
            frame.open = None;
        }
    }

    /// The last line of a plain scalar over several lines (block context only) that
    /// starts at `at`, whose next node is on the (1-based) line `next`: the last line
    /// above `next` that holds neither only a comment nor only blanks, when `value`
    /// ends with what that line holds before its comment.
    fn plain_end(&self, at: usize, value: &str, next: usize) -> Option<usize> {
        if self.stack.last().is_some_and(|frame| frame.flow) {
            return None;
        }
        let first = self.row_of(at);
        let comments = self.place.comments;
        for row in (first..next.checked_sub(1)?).rev() {
            let start = self.row_start(row)?;
            let end = self.row_start(row + 1).unwrap_or(self.text.len());
            let line = self.place.first_line + row;
            let index = comments.partition_point(|comment| comment.line < line);
            let code_end = match comments.get(index).filter(|comment| comment.line == line) {
                Some(comment) => comment.span.start.checked_sub(self.place.offset)?,
                None => end,
            };
            let code = self.text.get(start.max(at)..code_end)?.trim();
            if code.is_empty() {
                continue;
            }
            // A `-`, `?` or `:` that opens the next node is not the scalar's text.
            if row > first && matches!(code.as_bytes()[0], b'-' | b'?' | b':') {
                return None;
            }
            return value.ends_with(code).then_some(line);
        }
        None
    }

    /// The last line of content of a block scalar whose header is on `header` and
    /// whose next node is on `next`, or its header when it has none.
    fn last_content_line(&self, header: usize, next: usize) -> usize {
        let lines = self.place.block_scalar_lines;
        let below = lines.partition_point(|&line| line < next);
        match below.checked_sub(1).map(|index| lines[index]) {
            Some(last) if last > header => last,
            _ => header,
        }
    }

    /// The 0-based line of `text` that holds byte `at`.
    fn row_of(&self, at: usize) -> usize {
        let lines = self.place.line_starts;
        let absolute = self.place.offset + at;
        lines
            .partition_point(|&start| start <= absolute)
            .saturating_sub(1)
            .saturating_sub(self.place.first_line)
    }
}

/// The offset of the `-` of the block sequence item whose node starts at `at`, on
/// the same line (a node below its `-` may have a comment between).
fn dash_before(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let dash = bytes[..at].iter().rposition(|&b| b != b' ')?;
    (bytes[dash] == b'-').then_some(dash)
}

/// The byte after the closing quote of the quoted scalar that starts at `at`.
fn quoted_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    closing_quote(bytes, at + 1, *bytes.get(at)?)
}

#[cfg(test)]
mod tests {
    use crate::source::SourceFile;
    use crate::yaml::parse::both_walks;

    /// Each document as both walks read it: its keys (path, line, last line of the
    /// value) and `kind` when the event walk took it and found what the tree walk
    /// finds, "declined" when it left it to the tree.
    fn compare(text: &str) -> Vec<String> {
        let source = SourceFile::from_bytes("values.yaml", text.as_bytes().to_vec()).0;
        both_walks(&source)
            .into_iter()
            .map(|(tree, events)| match events {
                None => "declined".to_string(),
                Some(events) if events == tree => {
                    let keys: Vec<String> = events
                        .keys
                        .iter()
                        .map(|key| format!("{} {}..{}", key.path, key.line, key.value_end_line))
                        .collect();
                    format!("same: {} kind {:?}", keys.join(", "), events.kind)
                }
                Some(events) => panic!("the walks differ on {text:?}:\n{tree:#?}\n{events:#?}"),
            })
            .collect()
    }

    #[test]
    fn the_event_walk_finds_what_the_tree_walk_finds() {
        let texts = [
            // Comments above, beside and after keys; blank lines ending a mapping.
            "# top\na:\n  b: 1  # beside\n\n  # inside\nc: 2\n\n\n",
            // A mapping's end: the comments before the next key belong to it.
            "a:\n  b: 1\n\n## @section next\n\nc: {}\n",
            "a:\n  b:\n    c: 1\n  # between\n  d: 2\n",
            // Sequences of mappings, scalars, nested sequences, flow collections.
            "list:\n  - name: x\n    port: 1\n  - y\n  - - deep\n    - deeper\n  - {a: 1, b: [2, 3]}\n",
            "list:\n- name: x\n- name: y\n  z: [1,\n    2]\n",
            // Block scalars: as values, as items, with headers and comments.
            "script: |\n  echo one\n\n  echo two\n\nnext: >-  # folded\n  text\n  more\nitems:\n  - |\n    one\n  - >\n    two\nkeep: |+\n  kept\n\nstrip: |-\n  kept\n\n",
            "end: |\n  at the end\n\n\n",
            "empty: |\nnext: 1\n",
            // Quoted keys and values over lines; anchors, aliases and merge keys.
            "\"a.b\": 1\n'c': \"two\n  lines\"\nd: &anchor\n  e: 1\nf:\n  <<: *anchor\n  g: 'x'\n",
            // Plain scalars over several lines.
            "description: one line\n  and the next\n  # not text\nafter: 1\n",
            // A top-level `kind:`, and documents.
            "kind: Pod\nmetadata:\n  name: x\n---\n\"kind\": Pod\n---\nkind: {{ x }}\n",
            // Text that is not ASCII, before keys on the same line.
            "é: { ü: 1, ö: \"ß\" }\n- wrong\n",
            "名前: 値  # コメント\nliste:\n  - ä: ö\n    ü: [ß, ñ]\n",
            // A byte-order mark: columns on the first line do not count it.
            "\u{feff}# lead\nkey: 1   # trailing\n",
            "\u{feff}a: 1  # c\n",
            // Empty values, and a key with no value in a flow mapping.
            "a:\nb: ~\nc: {d}\n",
        ];
        let found: Vec<Vec<String>> = texts.iter().map(|text| compare(text)).collect();
        let mut settings = insta::Settings::clone_current();
        settings
            .set_snapshot_path(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
        settings.bind(|| insta::assert_debug_snapshot!(found));
    }

    #[test]
    fn the_event_walk_declines_what_it_cannot_place() {
        let texts = [
            "? complex\n: key\n",
            "&a key: 1\n",
            "list:\n  - &a x\n",
            "list:\n  -\n  - x\n",
            "list: [a: 1]\n",
            "script: |  # runs first\n    # a shell comment first\n    set -e\n",
            "a: 1\r\nb: 2\r\n",
            "a: [unclosed\n",
        ];
        let found: Vec<Vec<String>> = texts.iter().map(|text| compare(text)).collect();
        assert!(
            found.iter().flatten().all(|outcome| *outcome == "declined"),
            "{found:?}"
        );
    }
}
