//! The worker: the one thread that checks, so the message loop never waits on a
//! check. Changes are debounced (a burst of keystrokes is one check) and a check
//! made stale by a newer change stops between files; requests that read the
//! analysis (pull diagnostics, code actions, hover, navigation) are answered here
//! too, at once.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::PublishDiagnosticsParams;

use super::findings::{guarded, lsp_diagnostics};
use super::snapshot::{Batch, Snapshot};

/// How long after the last change a check starts.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(60);

/// What the message loop hands the worker.
pub(crate) enum Job {
    /// Files changed (`all`: every open file may be affected, as after a
    /// configuration changed).
    Changed {
        snapshot: Arc<Snapshot>,
        paths: Vec<PathBuf>,
        all: bool,
    },
    /// A request that reads the analysis.
    Request {
        snapshot: Arc<Snapshot>,
        request: Request,
    },
    /// A document was closed: its diagnostics are cleared.
    Closed(lsp_types::Uri),
}

/// The worker's state.
pub(crate) struct Worker {
    pub out: Sender<serde_json::Value>,
    /// The newest generation the message loop made.
    pub latest: Arc<AtomicU64>,
    /// The client pulls diagnostics (`textDocument/diagnostic`).
    pub pull: bool,
    /// The client accepts `workspace/diagnostic/refresh`.
    pub refresh: bool,
}

impl Worker {
    /// Runs until the message loop hangs up.
    pub fn run(self, jobs: Receiver<Job>) {
        let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
        let mut all = false;
        let mut snapshot: Option<Arc<Snapshot>> = None;
        let mut refreshes = 0u64;
        loop {
            let waiting = snapshot.is_some();
            let job = if waiting {
                jobs.recv_timeout(DEBOUNCE)
            } else {
                jobs.recv().map_err(|_| RecvTimeoutError::Disconnected)
            };
            match job {
                Ok(Job::Changed {
                    snapshot: newer,
                    paths,
                    all: every,
                }) => {
                    pending.extend(paths);
                    all |= every;
                    snapshot = Some(newer);
                }
                Ok(Job::Request { snapshot, request }) => self.answer(&snapshot, request),
                Ok(Job::Closed(uri)) => {
                    if !self.pull {
                        self.publish(uri, Vec::new(), None);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    let Some(current) = snapshot.take() else {
                        continue;
                    };
                    if self.latest.load(Ordering::SeqCst) > current.generation {
                        // A newer change is on its way with its own snapshot.
                        snapshot = Some(current);
                        continue;
                    }
                    let changed: Vec<PathBuf> = pending.iter().cloned().collect();
                    if self.check_changed(&current, &changed, all, &mut refreshes) {
                        pending.clear();
                        all = false;
                    } else {
                        snapshot = Some(current);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    /// Checks the open files a change of `changed` may affect and publishes their
    /// findings; false when a newer change made the work stale before the end.
    fn check_changed(
        &self,
        snapshot: &Snapshot,
        changed: &[PathBuf],
        all: bool,
        refreshes: &mut u64,
    ) -> bool {
        let batch = Batch::new(snapshot);
        let targets: Vec<PathBuf> = if all {
            let mut every: Vec<PathBuf> = snapshot.documents.keys().cloned().collect();
            every.sort();
            every
        } else {
            guarded(Vec::new(), || batch.affected(changed))
        };
        if self.pull {
            // The client pulls a file it changes; when the change may change the
            // findings of another open file (or of several changed together, which
            // it may have pulled in between), it is told to pull them all again.
            let others = targets.len() > 1 || targets.iter().any(|path| !changed.contains(path));
            if self.refresh && (all || others) {
                *refreshes += 1;
                let request = Request::new(
                    format!("tether-refresh-{refreshes}").into(),
                    "workspace/diagnostic/refresh".into(),
                    serde_json::Value::Null,
                );
                let _ = self
                    .out
                    .send(super::transport::value_of(&Message::Request(request)));
            }
            return true;
        }
        // The changed files first: what the user is typing in.
        let (first, rest): (Vec<&PathBuf>, Vec<&PathBuf>) =
            targets.iter().partition(|path| changed.contains(path));
        for path in first.into_iter().chain(rest) {
            if self.latest.load(Ordering::SeqCst) > snapshot.generation {
                return false;
            }
            let Some(document) = snapshot.documents.get(path) else {
                continue;
            };
            let found = guarded(Vec::new(), || lsp_diagnostics(&batch, path));
            self.publish(document.uri.clone(), found, document.version);
        }
        true
    }

    fn publish(
        &self,
        uri: lsp_types::Uri,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        let notification = Notification::new("textDocument/publishDiagnostics".into(), params);
        let _ = self
            .out
            .send(super::transport::value_of(&Message::Notification(
                notification,
            )));
    }

    /// Answers a request that reads the analysis; a handler that fails answers
    /// with an error, never takes the server down.
    fn answer(&self, snapshot: &Snapshot, request: Request) {
        let id = request.id.clone();
        let response = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            super::requests::handle(snapshot, request)
        }))
        .unwrap_or_else(|_| {
            Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "tether failed on this request (please report it)".into(),
            )
        });
        let _ = self
            .out
            .send(super::transport::value_of(&Message::Response(response)));
    }
}
