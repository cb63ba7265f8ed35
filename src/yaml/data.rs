//! What a file's YAML means with its comments and layout left out: the data that a
//! fix, which only moves comments and whitespace, must keep.
//!
//! A file is read as the comment map reads it (a template masked, then split into
//! its documents and `define` bodies), and each part is parsed with yaml-rust2's
//! event parser, a second YAML reader independent of tree-sitter's. A part's data is
//! a hash of its events (scalars with their text, plain or quoted, tags, anchors,
//! aliases, collection starts and ends); a part that does not parse is the hash of
//! the events before the error, with the error's place and words.

use crate::paths::FileKind;
use std::path::Path;

pub use super::events::Part;
use super::events::part_of;
use crate::source::SourceFile;
use crate::yaml::parse::split_documents;
use crate::yaml::pipeline;

/// The data of a whole file, a part per document or `define` body, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data {
    pub parts: Vec<Part>,
}

/// The data of `text`, read as `tether check` reads the file at `relative`.
pub fn data_of(relative: &Path, text: &str) -> Data {
    let source = SourceFile::from_text(relative, text);
    let mut problems = Vec::new();
    let reading = pipeline::read(&source, FileKind::of(relative), None, &mut problems);
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
