//! What a report keeps of a file with findings: the lines its findings show, not
//! the whole text. A run over a large tree then holds its findings' lines; the
//! renderers ask an [`Excerpt`] what they asked of the file (where an offset is,
//! the text of a window of lines), and get the same answers for those lines.

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::source::SourceFile;

/// Runs of whole lines of one file, each run with where its lines start.
#[derive(Debug, Clone, Default)]
pub struct Excerpt {
    /// The length of the whole text: offsets past it are clamped to it.
    len: usize,
    /// The number of lines of the whole text.
    line_count: usize,
    /// Length of a leading byte-order mark, 0 or 3.
    bom_len: usize,
    /// Sorted, apart, never adjacent.
    pieces: Vec<Piece>,
}

/// Consecutive lines of the file.
#[derive(Debug, Clone, Default)]
struct Piece {
    /// The number of its first line, 0-based.
    first_line: usize,
    /// Its lines, each with its line break (the last one's if the file has one).
    text: String,
    /// Where each line starts in the file; never empty.
    line_starts: Vec<usize>,
}

impl Piece {
    /// The offset of its first line in the file.
    fn start(&self) -> usize {
        self.line_starts[0]
    }
}

impl Excerpt {
    /// The lines of `source` that `diagnostics` (findings in it) touch: each
    /// finding's lines from its start to its end, its labels' lines, and the lines
    /// its fix's edits start and end on.
    pub fn of(source: &SourceFile, diagnostics: &[Diagnostic]) -> Excerpt {
        let len = source.text.len();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for diagnostic in diagnostics {
            let labels = diagnostic.labels.iter().map(|label| &label.range);
            for range in std::iter::once(&diagnostic.range).chain(labels) {
                let start = range.start.min(len);
                let end = range.end.clamp(start, len);
                spans.push((source.line_of(start), source.line_of(end)));
            }
            let edits = diagnostic.fix.iter().flat_map(|fix| &fix.edits);
            for edit in edits {
                for offset in [edit.range.start, edit.range.end] {
                    let line = source.line_of(offset.min(len));
                    spans.push((line, line));
                }
            }
        }
        spans.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (first, last) in spans {
            match merged.last_mut() {
                Some((_, end)) if first <= *end + 1 => *end = (*end).max(last),
                _ => merged.push((first, last)),
            }
        }
        let pieces = merged
            .into_iter()
            .map(|(first, last)| {
                let start = source.line_start(first);
                let end = match last + 1 < source.line_count() {
                    true => source.line_start(last + 1),
                    false => len,
                };
                Piece {
                    first_line: first,
                    text: source.text[start..end].to_string(),
                    line_starts: (first..=last).map(|line| source.line_start(line)).collect(),
                }
            })
            .collect();
        Excerpt {
            len,
            line_count: source.line_count(),
            bom_len: source.bom_len,
            pieces,
        }
    }

    /// Whether the file was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The length of the whole file's text.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The number of lines of the whole file.
    pub fn line_count(&self) -> usize {
        self.line_count
    }

    /// The piece holding `offset`, or the nearest before it.
    fn piece_at(&self, offset: usize) -> Option<&Piece> {
        let after = self.pieces.partition_point(|piece| piece.start() <= offset);
        self.pieces.get(after.checked_sub(1)?)
    }

    /// The piece holding `line`.
    fn piece_of_line(&self, line: usize) -> Option<&Piece> {
        let after = self
            .pieces
            .partition_point(|piece| piece.first_line <= line);
        let piece = self.pieces.get(after.checked_sub(1)?)?;
        (line < piece.first_line + piece.line_starts.len()).then_some(piece)
    }

    /// 0-based line that holds `offset` (one of the excerpt's lines).
    pub fn line_of(&self, offset: usize) -> usize {
        let Some(piece) = self.piece_at(offset) else {
            return 0;
        };
        let index = match piece.line_starts.binary_search(&offset) {
            Ok(index) => index,
            Err(next) => next.saturating_sub(1),
        };
        piece.first_line + index
    }

    /// Where `line` starts (one of the excerpt's lines; else the end of the file).
    pub fn line_start(&self, line: usize) -> usize {
        self.piece_of_line(line)
            .map_or(self.len, |piece| piece.line_starts[line - piece.first_line])
    }

    /// Byte range of `line` without its `\n` (and without a `\r` before it).
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let Some(piece) = self.piece_of_line(line) else {
            return self.len..self.len;
        };
        let index = line - piece.first_line;
        let start = piece.line_starts[index];
        let mut end = match piece.line_starts.get(index + 1) {
            Some(next) => next - 1,
            // The piece's last line: its line break ends the piece, unless it is
            // the empty line after the file's last line break.
            None => {
                let end = piece.start() + piece.text.len();
                end - usize::from(end > start && piece.text.ends_with('\n'))
            }
        };
        if end > start && piece.text.as_bytes()[end - 1 - piece.start()] == b'\r' {
            end -= 1;
        }
        start..end
    }

    /// The text of `line`, without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        self.text(self.line_range(line))
    }

    /// The text of `range` (within one piece of the excerpt; empty elsewhere).
    pub fn text(&self, range: Range<usize>) -> &str {
        self.piece_at(range.start)
            .and_then(|piece| {
                let start = range.start.checked_sub(piece.start())?;
                let end = range.end.checked_sub(piece.start())?;
                piece.text.get(start..end)
            })
            .unwrap_or("")
    }

    /// The character at `offset`, if the excerpt holds one there.
    pub fn char_at(&self, offset: usize) -> Option<char> {
        let piece = self.piece_at(offset)?;
        piece.text.get(offset - piece.start()..)?.chars().next()
    }

    /// 0-based column of `offset` on its line, in characters, not counting a
    /// byte-order mark.
    pub fn column_of(&self, offset: usize) -> usize {
        let line = self.line_of(offset);
        let mut start = self.line_start(line);
        if line == 0 {
            start = start.max(self.bom_len.min(offset));
        }
        self.text(start..offset.max(start)).chars().count()
    }
}

#[cfg(test)]
mod tests {
    use super::Excerpt;
    use crate::diagnostic::{Diagnostic, Label, Severity};
    use crate::rules::RuleId;
    use crate::source::SourceFile;

    fn finding(range: std::ops::Range<usize>, labels: Vec<Label>) -> Diagnostic {
        Diagnostic {
            rule: RuleId::DetachedComment,
            severity: Severity::Warning,
            path: "values.yaml".into(),
            range,
            message: String::new(),
            help: None,
            labels,
            fix: None,
        }
    }

    /// Every question a renderer asks about a finding's lines has the answer the
    /// whole file gives.
    #[test]
    fn an_excerpt_answers_as_the_file_does_on_its_findings_lines() {
        let text = "\u{feff}a: 1\r\n# über\nb: 2\n\n\nc:\n  d: 3\ne: 4\n";
        let (source, _) = SourceFile::from_bytes("values.yaml", text.as_bytes().to_vec());
        let label = Label {
            range: text.find("d:").unwrap()..text.find("d:").unwrap() + 2,
            message: "here".into(),
        };
        let findings = vec![
            finding(3..4, Vec::new()),
            finding(
                text.find("ber").unwrap()..text.find("b:").unwrap(),
                Vec::new(),
            ),
            finding(
                text.find("c:").unwrap()..text.find("c:").unwrap(),
                vec![label],
            ),
            finding(text.len()..text.len(), Vec::new()),
        ];
        let excerpt = Excerpt::of(&source, &findings);
        assert_eq!(excerpt.len(), source.text.len());
        assert_eq!(excerpt.line_count(), source.line_count());
        let mut offsets: Vec<usize> = Vec::new();
        for finding in &findings {
            let ranges =
                std::iter::once(&finding.range).chain(finding.labels.iter().map(|l| &l.range));
            for range in ranges {
                offsets.extend(range.clone());
                offsets.push(range.end);
            }
        }
        for offset in offsets {
            let line = source.line_of(offset);
            assert_eq!(excerpt.line_of(offset), line, "line of {offset}");
            assert_eq!(
                excerpt.column_of(offset),
                source.column_of(offset),
                "column of {offset}"
            );
            assert_eq!(excerpt.line_start(line), source.line_start(line));
            assert_eq!(
                excerpt.line_range(line),
                source.line_range(line),
                "line {line}"
            );
            assert_eq!(excerpt.line_text(line), source.line_text(line));
            assert_eq!(
                excerpt.char_at(offset),
                source.text[offset..].chars().next()
            );
        }
        let window = source.line_start(5)..source.line_range(6).end;
        assert_eq!(excerpt.text(window.clone()), &source.text[window]);
        // The lines between the findings are not held.
        assert_eq!(source.line_text(7), "e: 4");
        assert!(excerpt.text(source.line_range(7)).is_empty());
        assert_eq!(excerpt.pieces.len(), 3);
    }

    proptest::proptest! {
        /// On any text and any findings, at every end of every range a renderer
        /// asks about, the excerpt answers as the whole file does.
        #[test]
        fn an_excerpt_answers_as_the_file_does_anywhere(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "b: 1", "\n", "\n", "\r\n", "é", "# c", "\u{feff}"]),
                0..40,
            ),
            cuts in proptest::collection::vec((0usize..200, 0usize..200, 0usize..4), 0..6),
        ) {
            let text: String = pieces.concat();
            let (source, _) = SourceFile::from_bytes("values.yaml", text.as_bytes().to_vec());
            let text = source.text.clone();
            let boundaries: Vec<usize> =
                (0..=text.len()).filter(|&at| text.is_char_boundary(at)).collect();
            let at = |index: usize| boundaries[index % boundaries.len()];
            let findings: Vec<Diagnostic> = cuts
                .iter()
                .map(|&(start, length, label)| {
                    let (start, end) = (at(start), at(start + length).max(at(start)));
                    let labels = (label == 0)
                        .then(|| Label { range: at(end + 3)..at(end + 3), message: String::new() })
                        .into_iter()
                        .collect();
                    finding(start..end, labels)
                })
                .collect();
            let excerpt = Excerpt::of(&source, &findings);
            for finding in &findings {
                let ranges = std::iter::once(&finding.range)
                    .chain(finding.labels.iter().map(|label| &label.range));
                for range in ranges {
                    for offset in [range.start, range.end] {
                        let line = source.line_of(offset);
                        proptest::prop_assert_eq!(excerpt.line_of(offset), line);
                        proptest::prop_assert_eq!(excerpt.column_of(offset), source.column_of(offset));
                        proptest::prop_assert_eq!(excerpt.line_range(line), source.line_range(line));
                        proptest::prop_assert_eq!(excerpt.line_text(line), source.line_text(line));
                        proptest::prop_assert_eq!(excerpt.char_at(offset), text[offset..].chars().next());
                    }
                    let (first, last) = (source.line_of(range.start), source.line_of(range.end));
                    let window = source.line_start(first)..source.line_range(last).end.max(range.end);
                    proptest::prop_assert_eq!(excerpt.text(window.clone()), &text[window]);
                }
            }
        }
    }
}
