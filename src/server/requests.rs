//! The requests that read the analysis: which methods the server answers (one
//! enum, so a method is answered exactly when it is known), the lane each is
//! answered on, and the dispatch: each handler parses its parameters (a malformed
//! one gets `InvalidParams`), reads one [`Batch`] and answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, Request, RequestId, Response};
use lsp_types::request::Request as _;
use serde::de::DeserializeOwned;

use super::findings::{Failure, request_path};
use super::world::{Batch, Snapshot};

/// A request method the server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Diagnostic,
    CodeAction,
    Hover,
    Definition,
    References,
    DocumentSymbol,
    Completion,
    ResolveCompletion,
}

/// Where a request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Beside the checks, on the worker: what needs a file's findings (pull
    /// diagnostics, code actions), which a check of the same snapshot computes.
    Checks,
    /// On their own thread, never behind a check or a fix: what the user waits for
    /// as they move the cursor and type (hover, completion, navigation).
    Reads,
}

impl Method {
    const ALL: [Method; 8] = [
        Method::Diagnostic,
        Method::CodeAction,
        Method::Hover,
        Method::Definition,
        Method::References,
        Method::DocumentSymbol,
        Method::Completion,
        Method::ResolveCompletion,
    ];

    /// The method a request names, if the server answers it.
    pub fn of(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|method| method.name() == name)
    }

    fn name(self) -> &'static str {
        use lsp_types::request::{
            CodeActionRequest, Completion, DocumentDiagnosticRequest, DocumentSymbolRequest,
            GotoDefinition, HoverRequest, References, ResolveCompletionItem,
        };
        match self {
            Method::Diagnostic => DocumentDiagnosticRequest::METHOD,
            Method::CodeAction => CodeActionRequest::METHOD,
            Method::Hover => HoverRequest::METHOD,
            Method::Definition => GotoDefinition::METHOD,
            Method::References => References::METHOD,
            Method::DocumentSymbol => DocumentSymbolRequest::METHOD,
            Method::Completion => Completion::METHOD,
            Method::ResolveCompletion => ResolveCompletionItem::METHOD,
        }
    }

    pub fn lane(self) -> Lane {
        match self {
            Method::Diagnostic | Method::CodeAction => Lane::Checks,
            Method::Hover
            | Method::Definition
            | Method::References
            | Method::DocumentSymbol
            | Method::Completion
            | Method::ResolveCompletion => Lane::Reads,
        }
    }
}

/// A request queued for a lane, with the documents as they were when it came.
pub(crate) struct Queued {
    pub method: Method,
    pub snapshot: Arc<Snapshot>,
    pub request: Request,
}

/// The requests queued or running, each with the flag `$/cancelRequest` sets: a
/// lane answers a request cancelled before it starts with `RequestCancelled`
/// instead of working on it, and long work (a fix-all) stops at its next check of
/// the flag. Holds only what is queued or running, so it stays as small as the
/// queues.
#[derive(Debug, Default, Clone)]
pub(crate) struct Pending(Arc<Mutex<HashMap<RequestId, Arc<AtomicBool>>>>);

impl Pending {
    pub fn queued(&self, id: RequestId) {
        self.lock().insert(id, Arc::default());
    }

    /// `$/cancelRequest`: marks `id` if it is still queued or running.
    pub fn cancel(&self, id: &RequestId) {
        if let Some(cancelled) = self.lock().get(id) {
            cancelled.store(true, Ordering::Relaxed);
        }
    }

    /// The flag of `id`, which stays listed until [`Pending::finish`].
    fn start(&self, id: &RequestId) -> Arc<AtomicBool> {
        self.lock().get(id).cloned().unwrap_or_default()
    }

    /// Takes `id` off the list once it is answered.
    fn finish(&self, id: &RequestId) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Arc<AtomicBool>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Answers the requests of the reads lane until the message loop hangs up. The
/// requests between two changes read the same snapshot, so its charts are read
/// once for all of them and for the worker's check.
pub(crate) fn answer_reads(
    queue: Receiver<Queued>,
    out: Sender<serde_json::Value>,
    pending: Pending,
) {
    for queued in queue {
        answer(&out, &pending, queued);
    }
}

/// Answers one queued request, with the charts of its snapshot; a handler that
/// fails answers with an error, never takes the server down.
pub(crate) fn answer(out: &Sender<serde_json::Value>, pending: &Pending, queued: Queued) {
    let Queued {
        method,
        snapshot,
        request,
    } = queued;
    let id = request.id.clone();
    let cancelled = pending.start(&id);
    let answered = (!cancelled.load(Ordering::Relaxed)).then(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle(method, &Batch::new(&snapshot), request, &cancelled)
        }))
    });
    pending.finish(&id);
    let cancelled = cancelled.load(Ordering::Relaxed);
    let response = match answered {
        Some(Ok(response)) if !cancelled => response,
        Some(Err(panic)) if !cancelled => {
            // The panic hook printed where, on standard error.
            let why = super::findings::panic_message(&panic);
            Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("tether failed on this request (please report it): {why}"),
            )
        }
        // Cancelled before it started, or while it ran: what it found is dropped.
        _ => Response::new_err(
            id,
            ErrorCode::RequestCanceled as i32,
            "the client cancelled this request".into(),
        ),
    };
    let _ = out.send(super::transport::value_of(&Message::Response(response)));
}

/// The answer to `request`, whose method is `method`; long work stops once
/// `cancelled` is set.
fn handle(method: Method, batch: &Batch, request: Request, cancelled: &AtomicBool) -> Response {
    let Request { id, params, .. } = request;
    let result = match method {
        Method::Diagnostic => run(params, |params| pull_diagnostics(batch, params)),
        Method::CodeAction => run(params, |params| {
            super::actions::code_actions(batch, params, cancelled)
        }),
        Method::Hover => run(params, |params| super::hover::hover(batch, params)),
        Method::Definition => run(params, |params| {
            super::navigation::definition(batch, params)
        }),
        Method::References => run(params, |params| {
            super::navigation::references(batch, params)
        }),
        Method::DocumentSymbol => run(params, |params| {
            super::navigation::document_symbols(batch, params)
        }),
        Method::Completion => run(params, |params| {
            super::completion::completion(batch, params)
        }),
        Method::ResolveCompletion => run(params, |item| super::completion::resolve(batch, item)),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method is found by its name and by no other.
    #[test]
    fn methods_are_found_by_their_names() {
        for method in Method::ALL {
            assert_eq!(Method::of(method.name()), Some(method));
        }
        assert_eq!(Method::of("textDocument/formatting"), None);
    }

    /// The editor page lists exactly the requests the server answers.
    #[test]
    fn the_editor_page_lists_the_methods_answered() {
        let page = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/editor.md"),
        )
        .unwrap();
        let listed = page
            .split("Requests answered:")
            .nth(1)
            .and_then(|rest| rest.split("\n\n").next())
            .unwrap();
        let mut named: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
        let mut answered: Vec<&str> = Method::ALL.iter().map(|method| method.name()).collect();
        named.sort_unstable();
        answered.sort_unstable();
        assert_eq!(named, answered);
    }
}
