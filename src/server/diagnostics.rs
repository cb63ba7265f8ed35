//! The worker: the one thread that checks, so the message loop never waits on a
//! check. Changes are debounced (a burst of keystrokes is one check) and a check
//! made stale by a newer change stops between files; the requests that need a
//! file's findings (pull diagnostics, code actions) are answered here too, at
//! once. A change carries no text: the worker checks the newest documents the
//! message loop left in [`Current`], so however fast the user types, one copy of
//! each document is held, not one per keystroke.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Message, Notification, Request};
use lsp_types::PublishDiagnosticsParams;

use super::findings::{guarded, lsp_diagnostics};
use super::requests::{Pending, Queued};
use super::world::{Batch, Snapshot};

/// The newest documents and configurations, which the message loop replaces after
/// every change.
pub(crate) type Current = Arc<Mutex<Arc<Snapshot>>>;

/// How long after the last change a check starts.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(60);

/// What the message loop hands the worker.
pub(crate) enum Job {
    /// Files changed (`all`: every open file may be affected, as after a
    /// configuration changed).
    Changed { paths: Vec<PathBuf>, all: bool },
    /// A request that needs a file's findings.
    Request(Queued),
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
    /// The newest snapshot.
    pub current: Current,
    /// The requests queued, and which the client cancelled.
    pub pending: Pending,
}

/// What the worker last published for each open document: a file whose findings
/// a change did not change is not published again.
type Published = HashMap<String, Vec<lsp_types::Diagnostic>>;

impl Worker {
    /// Runs until the message loop hangs up.
    pub fn run(self, jobs: Receiver<Job>) {
        let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
        let mut all = false;
        let mut waiting = false;
        let mut refreshes = 0u64;
        let mut published = Published::new();
        loop {
            let job = if waiting {
                jobs.recv_timeout(DEBOUNCE)
            } else {
                jobs.recv().map_err(|_| RecvTimeoutError::Disconnected)
            };
            match job {
                Ok(Job::Changed { paths, all: every }) => {
                    changed.extend(paths);
                    all |= every;
                    waiting = true;
                }
                Ok(Job::Request(queued)) => {
                    super::requests::answer(&self.out, &self.pending, queued)
                }
                Ok(Job::Closed(uri)) => {
                    published.remove(uri.as_str());
                    if !self.pull {
                        self.publish(uri, Vec::new(), None);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    let current = self
                        .current
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .clone();
                    let paths: Vec<PathBuf> = changed.iter().cloned().collect();
                    let checked = Checked {
                        changed: &paths,
                        all,
                    };
                    if self.check_changed(&current, checked, &mut refreshes, &mut published) {
                        changed.clear();
                        all = false;
                        waiting = false;
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
        Checked { changed, all }: Checked,
        refreshes: &mut u64,
        published: &mut Published,
    ) -> bool {
        let batch = Batch::new(snapshot);
        let targets = || -> Vec<PathBuf> {
            if all {
                let mut every: Vec<PathBuf> = snapshot.documents.keys().cloned().collect();
                every.sort();
                every
            } else {
                guarded(Vec::new(), || batch.affected(changed))
            }
        };
        if self.pull {
            let targets = targets();
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
        // The changed files first, before the others are even found: what the user
        // is typing in.
        let mut first: Vec<PathBuf> = changed
            .iter()
            .filter(|path| snapshot.documents.contains_key(*path))
            .cloned()
            .collect();
        first.sort();
        let mut check = |path: &PathBuf| -> bool {
            if self.latest.load(Ordering::SeqCst) > snapshot.generation {
                return false;
            }
            let Some(document) = snapshot.documents.get(path) else {
                return true;
            };
            let found = guarded(Vec::new(), || lsp_diagnostics(&batch, path));
            // A file the user is typing in is published with its new version; any
            // other only when its findings changed.
            let key = document.uri.as_str();
            if changed.contains(path) || published.get(key) != Some(&found) {
                published.insert(key.to_string(), found.clone());
                self.publish(document.uri.clone(), found, document.version);
            }
            true
        };
        if !first.iter().all(&mut check) {
            return false;
        }
        targets()
            .iter()
            .filter(|path| !changed.contains(path))
            .all(check)
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
}

/// What a check is of: the files changed since the last one, and whether every
/// open file may be affected.
struct Checked<'a> {
    changed: &'a [PathBuf],
    all: bool,
}
