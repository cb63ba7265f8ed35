//! Renders comment models: the text form (the comment-map snapshot format) and JSON.
//!
//! The text form lists one key a line with its comments on that line, so a comment
//! that moves from one key to another shows up as a two-line diff. Lines and columns
//! are 1-based in both forms.

use std::fmt::Write;

use serde::Serialize;

use crate::yaml::model::{Comment, Document, FileModel};

/// A path as shown in output: forward slashes on every platform.
pub fn display_path(model: &FileModel) -> String {
    crate::paths::slashed(&model.path)
}

impl std::fmt::Display for FileModel {
    /// The text form `tether map` prints and snapshot tests pin: the path, then each
    /// document and key with its comments.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&text(self))
    }
}

/// The text form of one file's model.
pub fn text(model: &FileModel) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", display_path(model));
    for problem in &model.problems {
        let _ = writeln!(out, "  problem@{} {}", problem.line + 1, problem.message);
    }
    for document in &model.documents {
        write_document(&mut out, document);
    }
    out
}

fn write_document(out: &mut String, document: &Document) {
    let _ = write!(out, "  document {}", document.index);
    if let Some(kind) = &document.kind {
        let _ = write!(out, " {kind}");
    }
    if let Some(define) = &document.define {
        let _ = write!(out, " define {define:?}");
    }
    let _ = write!(
        out,
        " (lines {}-{}",
        document.lines.start + 1,
        document.lines.end
    );
    if document.recovered {
        out.push_str(", recovered from indentation");
    }
    if let Some(branch) = document.branch {
        let _ = write!(out, ", {}", branch.describe());
    }
    out.push_str(")\n");
    for key in &document.keys {
        let _ = write!(out, "    {}:{} {}", key.line + 1, key.column + 1, key.path);
        for attached in &key.comments {
            let _ = write!(
                out,
                "  {}@{} {:?}",
                attached.placement.as_str(),
                attached.comment.line + 1,
                attached.comment.text
            );
        }
        out.push('\n');
    }
    for detached in &document.detached {
        let _ = writeln!(
            out,
            "    detached@{} {:?} separated from {}",
            detached.comment.line + 1,
            detached.comment.text,
            detached.separated_from
        );
    }
    for comment in &document.free {
        let _ = writeln!(out, "    free@{} {:?}", comment.line + 1, comment.text);
    }
    for comment in &document.directives {
        let _ = writeln!(out, "    directive@{} {:?}", comment.line + 1, comment.text);
    }
}

/// The JSON form of a set of models (`{"files":[…]}`, documented in
/// docs/src/map.md) written a file at a time, byte for byte as one pretty-printed
/// document: the opening with the first file, each file
/// indented in the list, the closing at the end.
#[derive(Debug, Default)]
pub struct JsonMap {
    files: usize,
}

impl JsonMap {
    /// The text of one more file.
    pub fn file(&mut self, model: &FileModel) -> String {
        let pretty = serde_json::to_string_pretty(&JsonFile::from(model)).unwrap_or_default();
        // A JSON string holds no raw line break: every line is the file's own.
        let mut out = String::from(if self.files == 0 {
            "{\n  \"files\": [\n"
        } else {
            ",\n"
        });
        for (index, line) in pretty.lines().enumerate() {
            if index > 0 {
                out.push('\n');
            }
            out.push_str("    ");
            out.push_str(line);
        }
        self.files += 1;
        out
    }

    /// The text after the last file.
    pub fn end(&self) -> String {
        if self.files == 0 {
            "{\n  \"files\": []\n}".into()
        } else {
            "\n  ]\n}".into()
        }
    }
}

#[derive(Serialize)]
struct JsonFile {
    path: String,
    documents: Vec<JsonDocument>,
    problems: Vec<JsonProblem>,
}

#[derive(Serialize)]
struct JsonDocument {
    index: usize,
    kind: Option<String>,
    define: Option<String>,
    recovered: bool,
    /// `"first"` or `"last"`: which branch of each if/else was modelled.
    branch: Option<&'static str>,
    keys: Vec<JsonKey>,
    detached: Vec<JsonDetached>,
    free: Vec<JsonComment>,
    directives: Vec<JsonComment>,
}

#[derive(Serialize)]
struct JsonKey {
    path: String,
    line: usize,
    column: usize,
    comments: Vec<JsonAttached>,
}

#[derive(Serialize)]
struct JsonAttached {
    placement: &'static str,
    line: usize,
    text: String,
}

#[derive(Serialize)]
struct JsonDetached {
    line: usize,
    text: String,
    separated_from: String,
}

#[derive(Serialize)]
struct JsonComment {
    line: usize,
    text: String,
}

#[derive(Serialize)]
struct JsonProblem {
    line: usize,
    message: String,
}

impl From<&FileModel> for JsonFile {
    fn from(model: &FileModel) -> Self {
        JsonFile {
            path: display_path(model),
            documents: model
                .documents
                .iter()
                .map(|document| JsonDocument {
                    index: document.index,
                    kind: document.kind.clone(),
                    define: document.define.clone(),
                    recovered: document.recovered,
                    branch: document.branch.map(|branch| match branch {
                        crate::template::mask::Branch::First => "first",
                        crate::template::mask::Branch::Last => "last",
                    }),
                    keys: document
                        .keys
                        .iter()
                        .map(|key| JsonKey {
                            path: key.path.clone(),
                            line: key.line + 1,
                            column: key.column + 1,
                            comments: key
                                .comments
                                .iter()
                                .map(|attached| JsonAttached {
                                    placement: attached.placement.as_str(),
                                    line: attached.comment.line + 1,
                                    text: attached.comment.text.clone(),
                                })
                                .collect(),
                        })
                        .collect(),
                    detached: document
                        .detached
                        .iter()
                        .map(|detached| JsonDetached {
                            line: detached.comment.line + 1,
                            text: detached.comment.text.clone(),
                            separated_from: detached.separated_from.clone(),
                        })
                        .collect(),
                    free: document.free.iter().map(json_comment).collect(),
                    directives: document.directives.iter().map(json_comment).collect(),
                })
                .collect(),
            problems: model
                .problems
                .iter()
                .map(|problem| JsonProblem {
                    line: problem.line + 1,
                    message: problem.message.clone(),
                })
                .collect(),
        }
    }
}

fn json_comment(comment: &Comment) -> JsonComment {
    JsonComment {
        line: comment.line + 1,
        text: comment.text.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written a file at a time, the JSON is byte for byte the one pretty-printed
    /// document of every file, with none, one and two files.
    #[test]
    fn the_json_written_a_file_at_a_time_is_the_whole_document() {
        let models: Vec<FileModel> = ["a: 1 # one\n", "# b\nb:\n  c: 2\n"]
            .iter()
            .enumerate()
            .map(|(n, text)| {
                FileModel::from_bytes(
                    std::path::Path::new(&format!("{n}.yaml")),
                    text.as_bytes().to_vec(),
                )
            })
            .collect();
        for count in 0..=models.len() {
            let files: Vec<JsonFile> = models[..count].iter().map(JsonFile::from).collect();
            #[derive(Serialize)]
            struct Whole {
                files: Vec<JsonFile>,
            }
            let whole = serde_json::to_string_pretty(&Whole { files }).unwrap();
            let mut json = JsonMap::default();
            let mut streamed: String = models[..count].iter().map(|m| json.file(m)).collect();
            streamed.push_str(&json.end());
            assert_eq!(streamed, whole, "{count} files");
        }
    }
}
