//! tether keeps the comments of Helm chart templates tied to the keys they explain.
//!
//! The library is the whole tool; the `tether` binary only parses arguments and calls
//! [`run`]. The pipeline (DESIGN §2) flows one way: [`source`] → [`template`] (lex,
//! mask) → [`yaml`] (parse, model, anchor) → [`report`].

// A new way to panic needs a written reason (`#[allow(…)]` with a comment): tether
// runs on hostile input and one bad file must never stop a run.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod cache;
pub mod changes;
pub mod check;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod idem;
pub mod lines;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod source;
pub mod template;
pub mod walk;
pub mod yaml;

use std::path::{Path, PathBuf};

pub use cli::run;
pub use source::{Problem, SourceFile};
pub use yaml::directives::{Directives, DEFAULT_DIRECTIVES};
pub use yaml::model::{
    is_template_path, model_file, Attached, Comment, CommentStyle, Detached, Document, FileModel,
    Key, Placement,
};

/// Models a file from its bytes: templates (see [`is_template_path`]) are masked first.
///
/// A file outside `templates/` with a line of template actions alone (`{{- if … }}`)
/// outside its block scalars is a template rendered with `tpl` (a chart's `files/`), and is
/// modelled as one. `tether check` reads files the same way.
///
/// `path` is the path shown in output; the bytes are not read from it.
pub fn model_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> FileModel {
    model_bytes_with(path, bytes, &Directives::default())
}

/// [`model_bytes`] with a configuration's own directive comments (`directives = […]`
/// in `tether.toml`), which document no key.
pub fn model_bytes_with(
    path: impl Into<PathBuf>,
    bytes: Vec<u8>,
    directives: &Directives,
) -> FileModel {
    let path = path.into();
    if let Some(offset) = source::binary_offset(&bytes) {
        return FileModel {
            path,
            is_template: false,
            documents: Vec::new(),
            problems: vec![Problem::new(
                0,
                format!("binary file (a NUL byte at offset {offset}); not modelled"),
            )],
        };
    }
    let (source, mut problems) = SourceFile::from_bytes(path.clone(), bytes);
    let reading = yaml::model::read(&source, &path, &mut problems);
    let mut model =
        yaml::model::model_front(&source, reading.is_template, &reading.front, directives);
    problems.append(&mut model.problems);
    problems.sort_by_key(|problem| problem.line);
    model.problems = problems;
    model
}

/// Reads and models one file; only a file that cannot be read is an error.
pub fn model_path(path: &Path) -> std::io::Result<FileModel> {
    let bytes = source::read_regular(path, source::MAX_FILE_BYTES)?;
    Ok(model_bytes(path, bytes))
}
