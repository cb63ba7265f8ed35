//! Findings as the protocol shows them, and what every request handler shares:
//! its failure type and the path of the document it names.

use std::path::Path;

use lsp_server::ErrorCode;
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString};

use super::documents::LineIndex;
use super::world::{Batch, Checked};
use crate::diagnostic::{Diagnostic, Severity};

/// What a handler fails with.
pub(crate) type Failure = (ErrorCode, String);

/// Where the document a request names is (resolved), if it is inside the
/// workspace: a request about a file outside gets an empty answer, and nothing of
/// the file is read.
pub(crate) fn request_path(
    batch: &Batch,
    uri: &lsp_types::Uri,
) -> Result<Option<std::path::PathBuf>, Failure> {
    let named = super::documents::named_path(uri).ok_or_else(|| {
        (
            ErrorCode::InvalidParams,
            format!("`{}` is not a local file", uri.as_str()),
        )
    })?;
    Ok(batch.snapshot.workspace.inside(&named))
}

/// `work()`, or `fallback` if it panics (no known path does; a last resort so a
/// bug costs one answer, not the session).
pub(crate) fn guarded<T>(fallback: T, work: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or(fallback)
}

/// What a caught panic said (the panic hook has printed where, on standard error).
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|message| (*message).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// The findings of the file at `path` as LSP diagnostics.
pub(crate) fn lsp_diagnostics(batch: &Batch, path: &Path) -> Vec<lsp_types::Diagnostic> {
    match batch.check(path) {
        Checked::Findings {
            text, diagnostics, ..
        } => {
            let index = LineIndex::new(&text);
            let uri = batch
                .snapshot
                .documents
                .get(path)
                .map(|document| document.uri.clone());
            diagnostics
                .iter()
                .map(|diagnostic| to_lsp(diagnostic, &index, uri.as_ref()))
                .collect()
        }
        Checked::Broken(why) => vec![lsp_types::Diagnostic {
            range: lsp_types::Range::default(),
            severity: Some(DiagnosticSeverity::ERROR),
            source: Some("tether".into()),
            message: why,
            ..lsp_types::Diagnostic::default()
        }],
        Checked::Excluded => Vec::new(),
    }
}

/// One finding as an LSP diagnostic: the rule is its code, labels its related
/// information.
pub(crate) fn to_lsp(
    diagnostic: &Diagnostic,
    index: &LineIndex,
    uri: Option<&lsp_types::Uri>,
) -> lsp_types::Diagnostic {
    let related = uri.map(|uri| {
        diagnostic
            .labels
            .iter()
            .map(|label| DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), index.range(&label.range)),
                message: label.message.clone(),
            })
            .collect::<Vec<_>>()
    });
    lsp_types::Diagnostic {
        range: index.range(&diagnostic.range),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(diagnostic.rule.name().into())),
        source: Some("tether".into()),
        message: diagnostic.message_with_help(),
        related_information: related.filter(|related| !related.is_empty()),
        ..lsp_types::Diagnostic::default()
    }
}
