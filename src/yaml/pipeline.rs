//! The front of the pipeline (lex, mask, parse, anchor) for one file: from bytes to
//! its [`FileModel`]. It never fails: whatever kept a file from being modelled exactly
//! is a [`Problem`] in the result.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::paths::FileKind;
use crate::source::{self, MAX_FILE_BYTES, Problem, SourceFile};
use crate::template::mask::{self, Branch, Masked};
use crate::template::{
    self, Define,
    lex::{Action, Lexed},
};

use super::anchor::{self, TemplateView};
use super::directives::Directives;
use super::model::FileModel;
use super::parse;
use super::syntax::{MAX_DEPTH, ParsedDocument, Recovery};

impl FileModel {
    /// Models a file from its bytes, as [`comment_map`] models a file it reads:
    /// under `templates/` or `*.tpl` the bytes are read as a Helm template, anything
    /// else as YAML.
    ///
    /// A file outside `templates/` with a line of template actions alone (`{{- if … }}`)
    /// outside its block scalars is a template rendered with `tpl` (a chart's `files/`),
    /// and is modelled as one. `tether check` reads files the same way.
    ///
    /// `path` is the path shown in output and decides how the bytes are read; nothing
    /// is read from it.
    ///
    /// ```
    /// use helm_tether::FileModel;
    /// let model = FileModel::from_bytes("templates/cm.yaml", b"# why\nkey: {{ .Values.x }}\n".to_vec());
    /// assert_eq!(model.documents[0].keys[0].comments[0].comment.text, "why");
    /// ```
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> FileModel {
        model_bytes_with(path, bytes, &Directives::default())
    }
}

/// [`FileModel::from_bytes`] with a configuration's own directive comments (`directives = […]`
/// in `tether.toml`), which document no key.
pub fn model_bytes_with(
    path: impl Into<PathBuf>,
    bytes: Vec<u8>,
    directives: &Directives,
) -> FileModel {
    let (mut model, mut problems) = model_as_checked(path.into(), bytes, directives);
    problems.append(&mut model.problems);
    problems.sort_by_key(|problem| problem.line);
    model.problems = problems;
    model
}

/// The model `check` makes of a file's bytes, and apart from it the problems of
/// reading them, which `check` reports on their own: the server shares this one
/// model between its check of a file and the requests that quote it.
pub(crate) fn model_as_checked(
    path: PathBuf,
    bytes: Vec<u8>,
    directives: &Directives,
) -> (FileModel, Vec<Problem>) {
    if let Some(offset) = source::binary_offset(&bytes) {
        let model = FileModel {
            path,
            is_template: false,
            documents: Vec::new(),
            problems: Vec::new(),
        };
        let why = format!("binary file (a NUL byte at offset {offset}); not modelled");
        return (model, vec![Problem::new(0, why)]);
    }
    let (source, mut problems) = SourceFile::from_bytes(path.clone(), bytes);
    let reading = read(&source, FileKind::of(&path), None, &mut problems);
    let model = model_front(&source, reading.is_template, &reading.front, directives);
    (model, problems)
}

/// The comment map of one file: every key path and the comments that document it,
/// which comments are detached and which document no key. Only a file that cannot
/// be read is an error; whatever kept the file from being modelled exactly is one of
/// [`FileModel::problems`]. The path is read as `tether map` reads it: under
/// `templates/` or `*.tpl` as a Helm template, anything else as YAML.
///
/// `Display` gives the text form `tether map` prints, which snapshot tests pin:
///
/// ```
/// let map = helm_tether::comment_map("examples/kubevirt/templates/kubevirt-cr.yaml").unwrap();
/// let text = map.to_string();
/// assert!(text.contains("spec.configuration.evictionStrategy"));
/// ```
pub fn comment_map(path: impl AsRef<Path>) -> Result<FileModel, crate::error::Error> {
    comment_map_with_directives(path.as_ref(), &Directives::default())
}

/// [`comment_map`] with tool directives (`directives = […]` in `tether.toml`), which
/// document no key: the YAML stage takes the directives, not the configuration.
pub(crate) fn comment_map_with_directives(
    path: &Path,
    directives: &Directives,
) -> Result<FileModel, crate::error::Error> {
    let bytes = source::read_regular(path, source::MAX_FILE_BYTES)
        .map_err(|error| crate::error::Error::reading(path, error))?;
    Ok(model_bytes_with(path, bytes, directives))
}

/// Whether a path is read as a Helm template: a file under a `templates/` folder or
/// a `*.tpl` file. `values.yaml`, `Chart.yaml` and test files are plain YAML, where
/// `{{` is literal text.
pub fn is_template_path(path: &Path) -> bool {
    FileKind::of(path) == FileKind::Template
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
    /// Lexes and masks a template (an unclosed action goes to `problems`), or masks
    /// it from its `lexed` text when that is made already; plain YAML has an empty
    /// front.
    pub fn new(
        source: &SourceFile,
        is_template: bool,
        lexed: Option<Lexed>,
        problems: &mut Vec<Problem>,
    ) -> Front {
        if !is_template || source.text.len() > MAX_FILE_BYTES {
            return Front::default();
        }
        let (actions, masked) = template::lex_and_mask(source, lexed, problems);
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
/// `files/`). Lexing problems go to `problems`. `lexed` is the text's lexing when
/// made already (its chart's scan lexed a template where it waited for its check);
/// a text is lexed once.
pub fn read(
    source: &SourceFile,
    kind: FileKind,
    mut lexed: Option<Lexed>,
    problems: &mut Vec<Problem>,
) -> Reading {
    let mut is_template = kind == FileKind::Template;
    if !is_template
        && source.text.len() <= MAX_FILE_BYTES
        && template::lex::contains(&source.text, "{{")
    {
        let found = lexed
            .take()
            .unwrap_or_else(|| template::lex::lex(&source.text));
        is_template = mask::has_template_line_outside_block_scalars(&source.text, &found.0);
        lexed = Some(found);
    }
    Reading {
        is_template,
        front: Front::new(source, is_template, lexed, problems),
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
    if let Some(problem) = unmodelled(source) {
        model.problems.push(problem);
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
    let variants = reparse_branches(source, front, &mut documents);
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
        document_problems(source, &document, is_template, &mut model.problems);
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

/// Why a file is not modelled at all: it is over the size limit, or holds nothing
/// but whitespace.
fn unmodelled(source: &SourceFile) -> Option<Problem> {
    if source.text.len() > MAX_FILE_BYTES {
        return Some(Problem::new(
            0,
            format!(
                "file is larger than the {} MiB that tether models; exclude it from the run",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        ));
    }
    if source.text[source.bom_len..].trim().is_empty() {
        return Some(Problem::new(
            0,
            "empty file: there are no keys or comments to model",
        ));
    }
    None
}

/// Where a document has a syntax error, branches of an if/else may have shapes no
/// one tree holds: masks the first, then the last branch of every if/else, and puts
/// each document that parses that way in place of its failed parse, with the branch
/// it was modelled from. Returns the masks made (none when every document parsed).
fn reparse_branches(
    source: &SourceFile,
    front: &Front,
    documents: &mut [(ParsedDocument, Option<Branch>)],
) -> Vec<(Branch, Masked)> {
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
    variants
}

/// Adds to `problems` what kept a document from being modelled exactly: a syntax
/// error or a length tree-sitter cannot count (its keys were recovered from
/// indentation), or nesting too deep to model.
fn document_problems(
    source: &SourceFile,
    document: &ParsedDocument,
    is_template: bool,
    problems: &mut Vec<Problem>,
) {
    match &document.recovered {
        Some(Recovery::SyntaxError { lines }) => problems.push(Problem::new(
            lines.start,
            recovery_message(source, lines.clone(), is_template),
        )),
        Some(Recovery::TooLong) => problems.push(Problem::new(
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
        problems.push(Problem::new(
            line,
            format!(
                "nesting deeper than {} levels; keys below that depth are not modelled",
                MAX_DEPTH
            ),
        ));
    }
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

/// What tree-sitter-yaml is given of one file: the text after masking and the
/// documents it is parsed in. For tools that run another YAML parser on templates,
/// and for benchmarks of the parse alone.
#[cfg(feature = "internals")]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct YamlView {
    /// Whether the file is read as a Helm template.
    pub is_template: bool,
    /// The file's text; for a template, every action replaced by a placeholder
    /// that keeps byte offsets, lines and columns (and the YAML shape) as they were.
    pub text: String,
    /// The documents, in order: a `---` line and each top-level `define` start one.
    /// Blank documents are left out.
    pub documents: Vec<ViewDocument>,
    /// What kept the file from being read exactly (unclosed actions, invalid UTF-8).
    pub problems: Vec<Problem>,
}

/// One document of a [`YamlView`].
#[cfg(feature = "internals")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ViewDocument {
    /// Its lines in the file, 0-based.
    pub lines: Range<usize>,
    /// Its bytes in [`YamlView::text`].
    pub bytes: Range<usize>,
    /// The `define` whose body it is.
    pub define: Option<String>,
    /// More lines than tree-sitter-yaml counts: tether recovers its keys from
    /// indentation and never parses it.
    pub too_long: bool,
}

/// The [`YamlView`] of a file's bytes; `path` decides how they are read, as in
/// [`FileModel::from_bytes`]. For this repository's benchmarks and `cargo xtask
/// print-tree` (the `internals` feature).
#[cfg(feature = "internals")]
pub fn yaml_view(path: impl Into<PathBuf>, bytes: Vec<u8>) -> YamlView {
    let path = path.into();
    let (source, mut problems) = SourceFile::from_bytes(path.clone(), bytes);
    let reading = read(&source, FileKind::of(&path), None, &mut problems);
    let text = reading.front.masked_text(&source).to_string();
    let documents = view_documents(&source, &text, &reading.front.defines);
    YamlView {
        is_template: reading.is_template,
        text,
        documents,
        problems,
    }
}

/// The documents `model_front` hands to tree-sitter, found the way it finds them.
#[cfg(feature = "internals")]
fn view_documents(source: &SourceFile, masked: &str, defines: &[Define]) -> Vec<ViewDocument> {
    let text = &source.text;
    if text.len() > MAX_FILE_BYTES || text[source.bom_len..].trim().is_empty() {
        return Vec::new();
    }
    let line_starts = source.document_line_starts();
    let byte_range = |lines: &Range<usize>, content_start: usize| {
        let start = line_starts
            .get(lines.start)
            .map_or(text.len(), |&n| n)
            .max(if lines.start == 0 { content_start } else { 0 });
        let end = line_starts.get(lines.end).map_or(text.len(), |&n| n);
        start.min(end)..end
    };
    parse::split_documents(masked, line_starts, source.bom_len, defines)
        .into_iter()
        .filter(|segment| !text[byte_range(&segment.lines, 0)].trim().is_empty())
        .map(|segment| ViewDocument {
            bytes: byte_range(&segment.lines, source.bom_len),
            too_long: segment.lines.len() > parse::MAX_DOCUMENT_LINES,
            lines: segment.lines,
            define: segment.define,
        })
        .collect()
}
