//! yaml.v3's split of a file's comments into heads and feet, over its first
//! document: one pass over the lines with the scanner's stack of block indentations.

use std::ops::Range;

use super::gap::{Piece, scan_gap};
use super::lex::{ContentLine, LexState, lex_line};
use super::lines::{FileLines, Head, LineKind, SimKey};
use super::paths::is_ancestor;

/// The outcome of yaml.v3's split over the file's first document.
pub(super) struct Split {
    /// Each key's head comment, indexed like the keys; keys after the first
    /// document are cut off.
    pub(super) heads: Vec<Head>,
    /// Lines of comments that became feet, or heads of something that is not a key.
    pub(super) lost: Vec<usize>,
    /// Lines of comments that went to the document.
    pub(super) document_head: Vec<usize>,
}

/// Replays yaml.v3's comment scanning over the file's first document: one pass over
/// the lines, keeping the scanner's stack of block indentations.
pub(super) fn split_comments(file: &FileLines, keys: &[SimKey]) -> Split {
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
