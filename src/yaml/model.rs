//! The comment-anchored model of a file: documents, their keys, and which comment
//! documents which key.
//!
//! [`model_file`] runs the front of the pipeline (lex, mask, parse, anchor) on one
//! source and never fails: whatever kept the file from being modelled exactly is a
//! [`Problem`] in the result.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::source::{Problem, SourceFile, MAX_FILE_BYTES};
use crate::template::mask::{self, Branch, Masked};
use crate::template::{self, lex::Action, Define};

use super::anchor::{self, TemplateView};
use super::directives::Directives;
use super::parse::{self, ParsedDocument, RawComment, Recovery};

/// Everything tether knows about one file.
#[derive(Debug, Clone)]
pub struct FileModel {
    pub path: PathBuf,
    /// Whether the file was read as a Helm template (masked) or as plain YAML.
    pub is_template: bool,
    pub documents: Vec<Document>,
    pub problems: Vec<Problem>,
}

/// One YAML document of a file.
#[derive(Debug, Clone)]
pub struct Document {
    /// 0-based position of the document in its file.
    pub index: usize,
    /// The top-level `kind:` when it is a plain scalar.
    pub kind: Option<String>,
    /// Set when the document is the body of a `{{ define "name" }}` block.
    pub define: Option<String>,
    /// The file's lines that belong to this document.
    pub lines: Range<usize>,
    /// Every key and sequence item, in file order.
    pub keys: Vec<Key>,
    /// Comments cut off from the key below them by the end of a template block.
    pub detached: Vec<Detached>,
    /// Comments that document no key: headers, footers, blank-line separated notes,
    /// and comments above an action that prints content.
    pub free: Vec<Comment>,
    /// Comments addressed to a tool (`# yamllint disable-line`, `# @schema`): they
    /// document nothing.
    pub directives: Vec<Comment>,
    /// Set when the document is not valid YAML after masking and its keys were
    /// recovered from indentation.
    pub recovered: bool,
    /// Set when the branches of an if/else have shapes no one YAML tree holds, and
    /// one branch of each was modelled instead.
    pub branch: Option<Branch>,
    /// Every `#` comment of the document, one per line, as the parser found it.
    pub yaml_comments: Vec<RawComment>,
}

/// A key of a mapping, or an item of a sequence.
#[derive(Debug, Clone)]
pub struct Key {
    /// helm-unittest dot notation: `spec.configuration.evictionStrategy`,
    /// `…featureGates[0]`, `metadata.annotations["a.b/c"]`.
    pub path: String,
    /// 0-based line.
    pub line: usize,
    /// 0-based column, in characters.
    pub column: usize,
    /// Byte offset of the key (or of the item's `-`) in the file.
    pub offset: usize,
    pub comments: Vec<Attached>,
}

/// A comment attached to a key, and how.
#[derive(Debug, Clone)]
pub struct Attached {
    pub placement: Placement,
    pub comment: Comment,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// On the key's own line, after the key or its value.
    Trailing,
    /// The comment lines directly above the key, at its column.
    Leading,
}

impl Placement {
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Trailing => "trailing",
            Placement::Leading => "leading",
        }
    }
}

/// A comment separated from the key below it by a template block's end.
#[derive(Debug, Clone)]
pub struct Detached {
    pub comment: Comment,
    /// Path of the key the comment sits above.
    pub separated_from: String,
    /// 0-based line of the `end` or `else` that cut the comment off from its key.
    pub closed_at: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentStyle {
    /// `# …`
    Yaml,
    /// `{{/* … */}}`
    Template,
}

/// A comment: one `{{/* */}}` action, or a run of `#` lines read as one text.
#[derive(Debug, Clone)]
pub struct Comment {
    pub style: CommentStyle,
    /// 0-based first and last line.
    pub line: usize,
    pub end_line: usize,
    /// 0-based column of the first line's marker, in characters.
    pub column: usize,
    /// The text without its markers: `#` and one space after it on every line, or
    /// `{{/*` and `*/}}`; the lines of a run joined with `\n`.
    pub text: String,
    /// Byte range of every piece: each `#` comment of a run, or the whole action.
    pub spans: Vec<Range<usize>>,
}

impl FileModel {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every key of every document, with its document.
    pub fn keys(&self) -> impl Iterator<Item = (&Document, &Key)> {
        self.documents
            .iter()
            .flat_map(|document| document.keys.iter().map(move |key| (document, key)))
    }
}

/// Whether a path is read as a Helm template: a file under a `templates/` folder or
/// a `*.tpl` file. `values.yaml`, `Chart.yaml` and test files are plain YAML, where
/// `{{` is literal text.
pub fn is_template_path(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "tpl")
        || path
            .parent()
            .is_some_and(|parent| parent.components().any(|c| c.as_os_str() == "templates"))
}

/// The template stage's output for one file: its actions, masked text and top-level
/// `define`s. `check` computes it once and hands it to [`model_front`] when a rule
/// needs the model, so no file is lexed and masked twice.
#[derive(Debug, Clone, Default)]
pub struct Front {
    pub actions: Vec<Action>,
    /// `None` for plain YAML, which is parsed as written.
    pub masked: Option<Masked>,
    pub defines: Vec<Define>,
}

impl Front {
    /// Lexes and masks a template (an unclosed action goes to `problems`); plain YAML
    /// has an empty front.
    pub fn new(source: &SourceFile, is_template: bool, problems: &mut Vec<Problem>) -> Front {
        if !is_template || source.text.len() > MAX_FILE_BYTES {
            return Front::default();
        }
        let (actions, masked) = template::lex_and_mask(source, problems);
        let defines = template::defines(source, &actions);
        Front {
            actions,
            masked: Some(masked),
            defines,
        }
    }

    /// The text tree-sitter reads: masked for a template, the file's own otherwise.
    pub fn masked_text<'a>(&'a self, source: &'a SourceFile) -> &'a str {
        self.masked
            .as_ref()
            .map_or(source.text.as_str(), |masked| masked.text.as_str())
    }
}

/// Models one file. Never fails; see [`FileModel::problems`].
pub fn model_file(source: &SourceFile, is_template: bool, directives: &Directives) -> FileModel {
    let mut problems = Vec::new();
    let front = Front::new(source, is_template, &mut problems);
    let mut model = model_front(source, is_template, &front, directives);
    problems.append(&mut model.problems);
    problems.sort_by_key(|problem| problem.line);
    model.problems = problems;
    model
}

/// How `map` and `check` read a file: the one front end both use, so they never
/// disagree about a file.
#[derive(Debug)]
pub struct Reading {
    /// Whether the file is read as a Helm template.
    pub is_template: bool,
    pub front: Front,
}

/// Decides how to read a file and runs the template stage: files under `templates/`
/// and `*.tpl` files are templates; any other file is plain YAML, unless it holds a
/// line of template actions alone (`{{- if … }}`, `{{- include … }}`) outside
/// its block scalars, which plain YAML never has: then it is a template rendered with `tpl` (a chart's
/// `files/`). Lexing problems go to `problems`.
pub fn read(source: &SourceFile, path: &Path, problems: &mut Vec<Problem>) -> Reading {
    let mut is_template = is_template_path(path);
    if !is_template && source.text.len() <= MAX_FILE_BYTES && source.text.contains("{{") {
        let (actions, _) = template::lex::lex(&source.text);
        is_template = mask::has_template_line_outside_block_scalars(&source.text, &actions);
    }
    Reading {
        is_template,
        front: Front::new(source, is_template, problems),
    }
}

/// Models one file from its template stage's output; the problems of lexing are the
/// caller's (they came with the [`Front`]).
pub fn model_front(
    source: &SourceFile,
    is_template: bool,
    front: &Front,
    directives: &Directives,
) -> FileModel {
    let mut model = FileModel {
        path: source.path.clone(),
        is_template,
        documents: Vec::new(),
        problems: Vec::new(),
    };
    if source.text.len() > MAX_FILE_BYTES {
        model.problems.push(Problem::new(
            0,
            format!(
                "file is larger than the {} MiB that tether models; exclude it from the run",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        ));
        return model;
    }
    if source.text[source.bom_len..].trim().is_empty() {
        model.problems.push(Problem::new(
            0,
            "empty file: there are no keys or comments to model",
        ));
        return model;
    }

    let masked_text = front.masked_text(source);
    let directive_lines = front
        .masked
        .as_ref()
        .map_or(&[][..], |m| &m.directive_lines[..]);
    let parsed = parse::parse_documents(
        &source.text,
        masked_text,
        source.document_line_starts(),
        source.bom_len,
        &front.defines,
    );
    let view = TemplateView::new(
        source,
        masked_text,
        directive_lines,
        &front.actions,
        directives,
        !is_template,
    );
    let mut documents: Vec<(ParsedDocument, Option<Branch>)> = parsed
        .into_iter()
        .map(|document| (document, None))
        .collect();
    // Branches of different shapes: model one branch of every if/else instead.
    let variants: Vec<(Branch, Masked)> = if documents.iter().any(|(d, _)| syntax_error(d)) {
        [Branch::First, Branch::Last]
            .into_iter()
            .filter_map(|branch| {
                mask::mask_branch(&source.text, &front.actions, branch)
                    .map(|masked| (branch, masked))
            })
            .collect()
    } else {
        Vec::new()
    };
    for (branch, masked) in &variants {
        let reparsed = parse::parse_documents(
            &source.text,
            &masked.text,
            source.document_line_starts(),
            source.bom_len,
            &front.defines,
        );
        for (slot, candidate) in documents.iter_mut().zip(reparsed) {
            if syntax_error(&slot.0) && candidate.lines == slot.0.lines && !syntax_error(&candidate)
            {
                *slot = (candidate, Some(*branch));
            }
        }
    }
    let variant_views: Vec<(Branch, TemplateView)> = variants
        .iter()
        .map(|(branch, masked)| {
            let view = TemplateView::new(
                source,
                &masked.text,
                &masked.directive_lines,
                &front.actions,
                directives,
                !is_template,
            );
            (*branch, view)
        })
        .collect();
    for (index, (document, branch)) in documents.into_iter().enumerate() {
        match &document.recovered {
            Some(Recovery::SyntaxError { lines }) => model.problems.push(Problem::new(
                lines.start,
                recovery_message(source, lines.clone(), is_template),
            )),
            Some(Recovery::TooLong) => model.problems.push(Problem::new(
                document.lines.start,
                format!(
                    "document is {} lines long, over the {} lines tree-sitter-yaml can count; its keys were recovered from indentation; split it with `---`",
                    document.lines.len(),
                    parse::MAX_DOCUMENT_LINES
                ),
            )),
            Some(Recovery::TooDeep { .. }) | None => {}
        }
        let too_deep = match &document.recovered {
            Some(Recovery::TooDeep { line }) => Some(*line),
            _ => document.too_deep_at,
        };
        if let Some(line) = too_deep {
            model.problems.push(Problem::new(
                line,
                format!(
                    "nesting deeper than {} levels; keys below that depth are not modelled",
                    parse::MAX_DEPTH
                ),
            ));
        }
        let document_view = variant_views
            .iter()
            .find(|(modelled, _)| Some(*modelled) == branch)
            .map_or(&view, |(_, view)| view);
        let mut anchored = anchor::anchor(document_view, document, index);
        anchored.branch = branch;
        model.documents.push(anchored);
    }
    model.problems.sort_by_key(|problem| problem.line);
    model
}

fn syntax_error(document: &ParsedDocument) -> bool {
    matches!(document.recovered, Some(Recovery::SyntaxError { .. }))
}

fn recovery_message(source: &SourceFile, lines: Range<usize>, is_template: bool) -> String {
    let range = if lines.end - lines.start <= 1 {
        format!("line {}", lines.start + 1)
    } else {
        format!("lines {}-{}", lines.start + 1, lines.end)
    };
    let tab_line = lines.clone().find(|&line| {
        source
            .line_text(line)
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .any(|b| b == b'\t')
    });
    let after_masking = if is_template {
        " after masking template actions"
    } else {
        ""
    };
    let mut message = format!(
        "not valid YAML{after_masking} ({range}); this document's keys were recovered from indentation"
    );
    if let Some(line) = tab_line {
        message.push_str(&format!(
            "; line {} is indented with a tab, YAML allows only spaces",
            line + 1
        ));
    }
    message
}
