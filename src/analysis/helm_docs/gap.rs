//! yaml.v3's `yaml_parser_scan_comments` on the comment and blank lines between two
//! content lines: which runs become feet and which the head of the next token.

use std::ops::Range;

use super::lex::ContentLine;
use super::lines::{FileLines, Head, LastToken, LineKind};

/// One piece of a run of comment lines, as yaml.v3 cuts it.
#[derive(Debug)]
pub(super) struct Piece {
    pub(super) foot: bool,
    pub(super) text: Head,
}

/// Replays `yaml_parser_scan_comments` on the comment lines and blank lines between
/// two content lines (`next` is `None` at the end of the file). `next_indent` is the
/// column of the innermost open block.
pub(super) fn scan_gap(
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
