//! tether keeps the comments of Helm chart templates tied to the keys they explain.
//!
//! The library is the whole tool; the `tether` binary only parses arguments and calls
//! [`run`]. The pipeline (DESIGN §2) flows one way: [`source`] → [`template`] (lex,
//! mask) → [`yaml`] (parse, model, anchor) → [`report`].

pub mod cache;
pub mod check;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod idem;
pub mod lines;
pub mod report;
pub mod rules;
pub mod source;
pub mod template;
pub mod walk;
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
/// A file outside `templates/` that is not valid YAML but holds `{{` is a template
/// rendered with `tpl` (a chart's `files/`); it is modelled as a template when that
/// parses better.
///
/// `path` is the path shown in output; the bytes are not read from it.
pub fn model_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> FileModel {
    let path = path.into();
    let is_template = is_template_path(&path);
    let (source, mut problems) = SourceFile::from_bytes(path, bytes);
    let mut model = model_file(&source, is_template);
    if !is_template && recovered_documents(&model) > 0 && source.text.contains("{{") {
        let as_template = model_file(&source, true);
        if recovered_documents(&as_template) < recovered_documents(&model) {
            model = as_template;
        }
    }
    problems.append(&mut model.problems);
    problems.sort_by_key(|problem| problem.line);
    model.problems = problems;
    model
}

fn recovered_documents(model: &FileModel) -> usize {
    model
        .documents
        .iter()
        .filter(|document| document.recovered)
        .count()
}

/// Reads and models one file; only a file that cannot be read is an error.
pub fn model_path(path: &Path) -> std::io::Result<FileModel> {
    let bytes = std::fs::read(path)?;
    Ok(model_bytes(path, bytes))
}
