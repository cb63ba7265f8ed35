//! What a file's YAML means with its comments and layout left out: the data that a
//! fix, which only moves comments and whitespace, must keep.
//!
//! A file is read as the comment map reads it (a template masked, then split into
//! its documents and `define` bodies), and each part is parsed with yaml-rust2's
//! event parser, a second YAML reader independent of tree-sitter's. A part's data is
//! a hash of its events (scalars with their text, plain or quoted, tags, anchors,
//! aliases, collection starts and ends); a part that does not parse is the hash of
//! the events before the error, with the error's place and words.

use std::hash::Hasher;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::source::SourceFile;
use crate::yaml::parse::split_documents;
use crate::yaml::pipeline;

/// The data of one document or `define` body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// The part parsed: the hash of its events.
    Parsed(u64),
    /// It did not: the hash of the events before the error, and the error.
    Broken {
        events: u64,
        line: usize,
        message: String,
    },
}

/// The data of a whole file, a part per document or `define` body, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data {
    pub parts: Vec<Part>,
}

/// The data of `text`, read as `tether check` reads the file at `relative`.
pub fn data_of(relative: &Path, text: &str) -> Data {
    let source = SourceFile::from_text(relative, text);
    let mut problems = Vec::new();
    let reading = pipeline::read(&source, relative, &mut problems);
    let masked = reading.front.masked_text(&source);
    let line_starts = source.document_line_starts();
    let segments = split_documents(masked, line_starts, source.bom_len, &reading.front.defines);
    let parts = segments
        .iter()
        .map(|segment| {
            let start = line_starts
                .get(segment.lines.start)
                .map_or(masked.len(), |&start| start.max(source.bom_len));
            let end = line_starts
                .get(segment.lines.end)
                .map_or(masked.len(), |&end| end);
            part_of(&masked[start.min(end)..end], segment.lines.start)
        })
        .collect();
    Data { parts }
}

/// Where yaml-rust2 stops reading `text` (masked YAML) as YAML: the 0-based line in
/// `text` and why, or `None` when it reads to the end.
pub fn first_error(text: &str) -> Option<(usize, String)> {
    match part_of(text, 0) {
        Part::Parsed(_) => None,
        Part::Broken { line, message, .. } => Some((line, message)),
    }
}

/// Parses one part; `first_line` places its error in the file.
fn part_of(text: &str, first_line: usize) -> Part {
    let mut hasher = EventHasher {
        hasher: Xxh3::new(),
    };
    match Parser::new_from_str(text).load(&mut hasher, true) {
        Ok(()) => Part::Parsed(hasher.hasher.finish()),
        Err(error) => Part::Broken {
            events: hasher.hasher.finish(),
            line: first_line + error.marker().line().saturating_sub(1),
            message: error.info().to_string(),
        },
    }
}

/// Hashes events as they come: no tree is built, so a part costs its length.
struct EventHasher {
    hasher: Xxh3,
}

impl MarkedEventReceiver for EventHasher {
    fn on_event(&mut self, event: Event, _: Marker) {
        let hasher = &mut self.hasher;
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart => hasher.write_u8(1),
            Event::DocumentEnd => hasher.write_u8(2),
            Event::Alias(anchor) => {
                hasher.write_u8(3);
                hasher.write_usize(anchor);
            }
            Event::Scalar(text, style, anchor, tag) => {
                hasher.write_u8(4);
                // Plain text is resolved (`1` is a number, `"1"` a string); the
                // quoting of other scalars does not change their data.
                hasher.write_u8(u8::from(style == TScalarStyle::Plain));
                hasher.write_usize(anchor);
                if let Some(tag) = tag {
                    hasher.write(tag.handle.as_bytes());
                    hasher.write_u8(0);
                    hasher.write(tag.suffix.as_bytes());
                }
                hasher.write_u8(0xff);
                hasher.write_usize(text.len());
                hasher.write(text.as_bytes());
            }
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                hasher.write_u8(5);
                hasher.write_usize(anchor);
                if let Some(tag) = tag {
                    hasher.write(tag.handle.as_bytes());
                    hasher.write_u8(0);
                    hasher.write(tag.suffix.as_bytes());
                }
                hasher.write_u8(0xff);
            }
            Event::SequenceEnd => hasher.write_u8(6),
            Event::MappingEnd => hasher.write_u8(7),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(path: &str, text: &str) -> Data {
        data_of(Path::new(path), text)
    }

    #[test]
    fn comments_and_their_spacing_are_not_data() {
        let before = data("values.yaml", "a: 1 #one\n#two\nb:\n  - x\n");
        let after = data("values.yaml", "a: 1  # one\n# two\nb:\n  - x\n");
        assert!(matches!(before.parts[..], [Part::Parsed(_)]));
        assert_eq!(before, after);
    }

    #[test]
    fn a_comment_that_becomes_scalar_text_changes_the_data() {
        let before = data("values.yaml", "notes: |\n  title\n#Heading\nb: 1\n");
        let after = data("values.yaml", "notes: |\n  title\n  #Heading\nb: 1\n");
        assert_ne!(before, after);
    }

    #[test]
    fn quoting_is_data_only_for_plain_scalars() {
        assert_ne!(data("v.yaml", "a: 1\n"), data("v.yaml", "a: \"1\"\n"));
        assert_eq!(data("v.yaml", "a: '1'\n"), data("v.yaml", "a: \"1\"\n"));
    }

    #[test]
    fn a_template_is_read_masked_a_part_per_document() {
        let text = "a: {{ .Values.a }}\n---\nb: [\n---\nc: 1\n";
        let parts = data("templates/x.yaml", text).parts;
        assert_eq!(parts.len(), 3);
        assert!(matches!(parts[0], Part::Parsed(_)));
        assert!(
            matches!(parts[1], Part::Broken { line: 3, .. }),
            "{parts:?}"
        );
        assert!(matches!(parts[2], Part::Parsed(_)));
    }
}
