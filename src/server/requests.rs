//! The requests that read the analysis, dispatched by method: each parses its
//! parameters (a malformed one gets `InvalidParams`), reads one [`Batch`] and
//! answers.

use lsp_server::{ErrorCode, Request, Response};
use serde::de::DeserializeOwned;

use super::findings::{Failure, request_path};
use super::snapshot::{Batch, Snapshot};

/// The methods [`handle`] answers.
pub(crate) const METHODS: &[&str] = &[
    "textDocument/diagnostic",
    "textDocument/codeAction",
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/documentSymbol",
];

/// The answer to `request`.
pub(crate) fn handle(snapshot: &Snapshot, request: Request) -> Response {
    let Request { id, method, params } = request;
    let batch = Batch::new(snapshot);
    let result = match method.as_str() {
        "textDocument/diagnostic" => run(params, |params| pull_diagnostics(&batch, params)),
        "textDocument/codeAction" => run(params, |params| {
            super::actions::code_actions(&batch, params)
        }),
        "textDocument/hover" => run(params, |params| super::hover::hover(&batch, params)),
        "textDocument/definition" => run(params, |params| {
            super::navigation::definition(&batch, params)
        }),
        "textDocument/references" => run(params, |params| {
            super::navigation::references(&batch, params)
        }),
        "textDocument/documentSymbol" => run(params, |params| {
            super::navigation::document_symbols(&batch, params)
        }),
        _ => Err((
            ErrorCode::MethodNotFound,
            format!("tether does not answer `{method}`"),
        )),
    };
    match result {
        Ok(value) => Response::new_ok(id, value),
        Err((code, message)) => Response::new_err(id, code as i32, message),
    }
}

fn run<P: DeserializeOwned, R: serde::Serialize>(
    params: serde_json::Value,
    handler: impl FnOnce(P) -> Result<R, Failure>,
) -> Result<serde_json::Value, Failure> {
    let params: P = serde_json::from_value(params).map_err(|error| {
        (
            ErrorCode::InvalidParams,
            format!("invalid parameters: {error}"),
        )
    })?;
    let result = handler(params)?;
    serde_json::to_value(result).map_err(|error| (ErrorCode::InternalError, error.to_string()))
}

/// `textDocument/diagnostic`: the file's findings, always in full.
fn pull_diagnostics(
    batch: &Batch,
    params: lsp_types::DocumentDiagnosticParams,
) -> Result<lsp_types::DocumentDiagnosticReportResult, Failure> {
    let items = match request_path(batch, &params.text_document.uri)? {
        Some(path) => super::findings::lsp_diagnostics(batch, &path),
        None => Vec::new(),
    };
    Ok(lsp_types::DocumentDiagnosticReportResult::Report(
        lsp_types::DocumentDiagnosticReport::Full(lsp_types::RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: lsp_types::FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        }),
    ))
}
