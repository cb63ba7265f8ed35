//! Code actions: the fix `check --fix` would apply to a finding, all of a file's
//! fixes at once (`source.fixAll`), and silencing a finding with a
//! `tether: ignore[rule]` comment in the file's comment form. Each is an edit the
//! client applies; the server writes nothing, and offers no edit of a file
//! `check --fix` would refuse to write.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    TextEdit, Uri, WorkspaceEdit,
};

use super::documents::LineIndex;
use super::findings::{Failure, request_path, to_lsp};
use super::world::Batch;
use crate::diagnostic::Diagnostic;

/// The reason a silencing comment is written with, for the user to replace.
const REASON: &str = "reason";

/// `textDocument/codeAction`: the actions for the findings in the range, and the
/// file's fix-all when it has fixes (whose fixing stops once `cancelled` is set).
pub(crate) fn code_actions(
    batch: &Batch,
    params: CodeActionParams,
    cancelled: &std::sync::atomic::AtomicBool,
) -> Result<Option<CodeActionResponse>, Failure> {
    let uri = params.text_document.uri;
    let Some(path) = request_path(batch, &uri)? else {
        return Ok(None);
    };
    if !writable(batch, &uri, &path) {
        return Ok(None);
    }
    let Ok(file) = batch.file(&path) else {
        return Ok(None);
    };
    if !file.included {
        return Ok(None);
    }
    let diagnostics = batch.findings(&path, &file);
    let text: &str = &file.text;
    let index = LineIndex::new(text);
    // A finding counts when one of its lines is in the range: a cursor on the
    // line asks for its actions.
    let lines = params.range.start.line as usize..=params.range.end.line as usize;
    let wants = |kind: &CodeActionKind| {
        params.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|wanted| kind.as_str().starts_with(wanted.as_str()))
        })
    };
    let template = crate::yaml::pipeline::is_template_path(&file.relative);
    let mut actions = Vec::new();
    for diagnostic in &diagnostics {
        let first = index.line_of(diagnostic.range.start);
        let last = index.line_of(diagnostic.range.end);
        if first > *lines.end() || last < *lines.start() {
            continue;
        }
        let shown = to_lsp(diagnostic, &index, Some(&uri));
        if let Some(fix) = &diagnostic.fix {
            actions.push(fix_action(&uri, &index, diagnostic, fix, shown.clone()));
        }
        actions.push(CodeAction {
            title: format!("Silence {} on this line", diagnostic.rule.name()),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![shown]),
            edit: Some(edit_of(
                &uri,
                vec![silence(diagnostic, text, &index, template)],
            )),
            ..CodeAction::default()
        });
    }
    if diagnostics
        .iter()
        .any(|diagnostic| diagnostic.fix_applies(false))
    {
        if let Ok(fixed) = crate::linter::fix::fix_text_in(
            &file.config,
            &file.project,
            &file.relative,
            text,
            false,
            cancelled,
        ) {
            if fixed.text != text {
                let whole = index.range(&(0..text.len()));
                actions.push(CodeAction {
                    title: "Fix every tether finding in this file".into(),
                    kind: Some(CodeActionKind::SOURCE_FIX_ALL),
                    edit: Some(edit_of(&uri, vec![TextEdit::new(whole, fixed.text)])),
                    ..CodeAction::default()
                });
            }
        }
    }
    let actions: Vec<CodeActionOrCommand> = actions
        .into_iter()
        .filter(|action| action.kind.as_ref().is_none_or(&wants))
        .map(CodeActionOrCommand::CodeAction)
        .collect();
    Ok(Some(actions))
}

/// Whether `check --fix` would write the file the client names `uri`, found at
/// `resolved`: the server offers no edit `--fix` would refuse. Refused: a name with
/// `..` in it (where it is reached from cannot be told), a name that is a link
/// itself, a file reached through a link that leaves the repository holding the
/// name (its nearest folder above with a `.git`; the workspace folder outside any
/// repository), and a file on disk that is not a regular file or is read-only. A
/// buffer not yet saved is written by the editor alone, and gets its edits.
fn writable(batch: &Batch, uri: &Uri, resolved: &std::path::Path) -> bool {
    use std::path::Component;
    let Some(named) = super::documents::named_path(uri) else {
        return false;
    };
    if named.components().any(|part| part == Component::ParentDir)
        || std::fs::symlink_metadata(&named).is_ok_and(|metadata| metadata.is_symlink())
    {
        return false;
    }
    let top = named
        .parent()
        .and_then(crate::paths::repository_top)
        .and_then(|top| top.canonicalize().ok())
        .or_else(|| {
            batch
                .snapshot
                .workspace
                .folder_of(resolved)
                .map(std::path::Path::to_path_buf)
        });
    if !top.is_some_and(|top| resolved.starts_with(top)) {
        return false;
    }
    match std::fs::metadata(resolved) {
        Ok(metadata) => metadata.is_file() && !metadata.permissions().readonly(),
        Err(error) => error.kind() == std::io::ErrorKind::NotFound,
    }
}

/// The quick fix of one finding. An unsafe fix is offered for that one finding,
/// said, and never preferred (nor part of the fix-all, as `check --fix` leaves it).
fn fix_action(
    uri: &Uri,
    index: &LineIndex,
    diagnostic: &Diagnostic,
    fix: &crate::diagnostic::Fix,
    shown: lsp_types::Diagnostic,
) -> CodeAction {
    let edits = fix
        .edits
        .iter()
        .map(|edit| TextEdit::new(index.range(&edit.range), edit.content.clone()))
        .collect();
    let safe = fix.applies(false);
    CodeAction {
        title: format!(
            "Fix {}{}: {}",
            diagnostic.rule.name(),
            if safe {
                ""
            } else {
                " (unsafe: it may change what Helm renders)"
            },
            diagnostic.message
        ),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![shown]),
        edit: Some(edit_of(uri, edits)),
        is_preferred: Some(safe),
        ..CodeAction::default()
    }
}

/// The line inserted above a finding's line that silences it: a `#` comment in
/// YAML, a template comment in a template (`{{-` so the rendered output keeps no
/// trace of it), indented as the line is.
pub(crate) fn silence(
    diagnostic: &Diagnostic,
    text: &str,
    index: &LineIndex,
    template: bool,
) -> TextEdit {
    let line = index.line_of(diagnostic.range.start);
    let start = index.line_start(line);
    let indentation: String = text[start..]
        .chars()
        .take_while(|character| *character == ' ' || *character == '\t')
        .collect();
    let rule = diagnostic.rule.name();
    // The line's own ending: a CRLF file gets a CRLF line.
    let newline = if text[start..]
        .split('\n')
        .next()
        .is_some_and(|line| line.ends_with('\r'))
    {
        "\r\n"
    } else {
        "\n"
    };
    let comment = if template {
        format!("{indentation}{{{{- /* tether: ignore[{rule}] {REASON} */}}}}{newline}")
    } else {
        format!("{indentation}# tether: ignore[{rule}] {REASON}{newline}")
    };
    let at = index.position(start);
    TextEdit::new(lsp_types::Range::new(at, at), comment)
}

fn edit_of(uri: &Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..WorkspaceEdit::default()
    }
}
