//! YAML handling: parse masked text with tree-sitter, then build the comment model.

pub mod anchor;
pub mod data;
pub mod directives;
pub mod events;
pub mod model;
pub mod parse;
pub mod pipeline;
pub mod plain;
pub mod recover;
pub mod scan;
pub mod syntax;
