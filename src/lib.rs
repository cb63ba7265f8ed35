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
pub mod key_pattern;
pub mod lines;
pub mod paths;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod source;
pub mod template;
pub mod walk;
pub mod yaml;

pub use cli::run;
pub use source::{Problem, SourceFile};
pub use yaml::directives::{Directives, DEFAULT_DIRECTIVES};
pub use yaml::model::{
    Attached, Comment, CommentStyle, Detached, Document, FileModel, Key, Placement,
};
pub use yaml::pipeline::{is_template_path, model_bytes, model_bytes_with, model_file, model_path};
