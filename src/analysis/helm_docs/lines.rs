//! The file's lines as yaml.v3's comment scanner sees them, classified once, and
//! the keys of tether's model it splits comments against.

use crate::source::SourceFile;
use crate::yaml::model::FileModel;

/// What the scanner sees on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKind {
    /// Nothing but spaces and tabs.
    Blank,
    /// A `#` comment alone on its line, at this column.
    Comment { column: usize },
    /// Anything else: a token, or the inside of a scalar.
    Content,
}

/// The kind of the last token on a content line, as far as the comment split cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LastToken {
    /// `key:` with its value on a later line.
    Value,
    /// A plain or block scalar: yaml.v3 reads past the line break looking for more of
    /// it, so the next scan starts below this line.
    Scalar,
    /// Anything else: a quoted scalar, a flow collection, an anchor, a tag, a `-`.
    Other,
}

/// The lines of the file, classified once.
pub(super) struct FileLines<'a> {
    pub(super) source: &'a SourceFile,
    pub(super) kinds: Vec<LineKind>,
    /// Per line: an own-line or trailing comment starts at this byte offset.
    pub(super) comment_start: Vec<Option<usize>>,
    /// Per line: the content of a block scalar.
    pub(super) block_scalar: Vec<bool>,
}

impl<'a> FileLines<'a> {
    pub(super) fn new(source: &'a SourceFile, model: &FileModel) -> Self {
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

    pub(super) fn len(&self) -> usize {
        self.kinds.len()
    }

    /// The line's text after any byte-order mark, without its line break.
    pub(super) fn text(&self, line: usize) -> &'a str {
        let text = self.source.line_text(line);
        if line == 0 {
            text.trim_start_matches('\u{feff}')
        } else {
            text
        }
    }

    /// The comment on `line` as yaml.v3 reads it: from `#` to the end of the line.
    pub(super) fn comment_text(&self, line: usize) -> &'a str {
        let range = self.source.line_range(line);
        let start = self.comment_start[line].unwrap_or(range.start);
        &self.source.text[start.clamp(range.start, range.end)..range.end]
    }
}

/// A key or item, with what the split needs to know about it.
pub(super) struct SimKey<'a> {
    pub(super) path: &'a str,
    pub(super) line: usize,
    /// Byte column.
    pub(super) column: usize,
}

/// Every key and item of the file, in file order.
pub(super) fn keys_of<'a>(source: &SourceFile, model: &'a FileModel) -> Vec<SimKey<'a>> {
    model
        .keys()
        .map(|(_, key)| SimKey {
            path: &key.path,
            line: key.line,
            column: key.offset - source.line_start(key.line),
        })
        .collect()
}

/// A head comment as yaml.v3 builds it: comment lines, and `None` where a blank line
/// separates two groups (the text joins them with `\n`, so a blank is an empty line).
pub(super) type Head = Vec<Option<usize>>;
