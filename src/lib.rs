//! tether keeps the comments of Helm chart templates tied to the keys they explain.
//!
//! The library is the whole tool; the `tether` binary only parses arguments and calls
//! [`run`]. The pipeline (DESIGN §2) flows one way: [`source`] → [`template`] (lex,
//! mask) → [`yaml`] (parse, model, anchor) → [`report`].

pub mod cli;
pub mod report;
pub mod source;
pub mod template;
pub mod yaml;

use std::path::{Path, PathBuf};

pub use cli::run;
pub use source::{Problem, SourceFile};
pub use yaml::model::{
    is_template_path, model_file, Attached, Comment, CommentStyle, Detached, Document, FileModel,
    Key, Placement,
};

/// Models a file from its bytes: templates (see [`is_template_path`]) are masked first.
///
/// `path` is the path shown in output; the bytes are not read from it.
pub fn model_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> FileModel {
    let path = path.into();
    let is_template = is_template_path(&path);
    let (source, mut problems) = SourceFile::from_bytes(path, bytes);
    let mut model = model_file(&source, is_template);
    problems.append(&mut model.problems);
    problems.sort_by_key(|problem| problem.line);
    model.problems = problems;
    model
}

/// Reads and models one file; only a file that cannot be read is an error.
pub fn model_path(path: &Path) -> std::io::Result<FileModel> {
    let bytes = std::fs::read(path)?;
    Ok(model_bytes(path, bytes))
}
