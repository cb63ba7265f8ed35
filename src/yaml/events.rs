//! A YAML text's events as yaml-rust2's parser gives them, hashed with their
//! layout and comments left out, and where the parser stops: what
//! [`super::data`] compares before and after a fix, and what `recovered-template`
//! reports. A leaf module: it reads text, not files or configurations.

use std::hash::Hasher;

use xxhash_rust::xxh3::Xxh3;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

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

/// Where yaml-rust2 stops reading `text` (masked YAML) as YAML: the 0-based line in
/// `text` and why, or `None` when it reads to the end.
pub fn first_error(text: &str) -> Option<(usize, String)> {
    match part_of(text, 0) {
        Part::Parsed(_) => None,
        Part::Broken { line, message, .. } => Some((line, message)),
    }
}

/// Parses one part; `first_line` places its error in the file.
pub fn part_of(text: &str, first_line: usize) -> Part {
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
                node(hasher, anchor, tag.as_ref());
                hasher.write_usize(text.len());
                hasher.write(text.as_bytes());
            }
            Event::SequenceStart(anchor, tag) => {
                hasher.write_u8(5);
                node(hasher, anchor, tag.as_ref());
            }
            Event::MappingStart(anchor, tag) => {
                hasher.write_u8(8);
                node(hasher, anchor, tag.as_ref());
            }
            Event::SequenceEnd => hasher.write_u8(6),
            Event::MappingEnd => hasher.write_u8(7),
        }
    }
}

/// A node's anchor and tag, as every node event carries them.
fn node(hasher: &mut Xxh3, anchor: usize, tag: Option<&yaml_rust2::parser::Tag>) {
    hasher.write_usize(anchor);
    if let Some(tag) = tag {
        hasher.write(tag.handle.as_bytes());
        hasher.write_u8(0);
        hasher.write(tag.suffix.as_bytes());
    }
    hasher.write_u8(0xff);
}
