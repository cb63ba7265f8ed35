//! `tether server`: a language server over stdio. The message loop here keeps the
//! open documents and the configurations, and hands every check to one worker
//! thread (`diagnostics.rs`), so it never waits on one; hover, completion and
//! navigation are answered on a thread of their own (`requests.rs`), so they never
//! wait on a check either. Both read the analysis through the open buffers
//! (`world.rs`), as `check` would read the files. The server never writes a file: fixes are edits the client applies. It
//! reads and answers for the files of its workspace alone (`workspace.rs`).

mod actions;
mod builtins;
mod completion;
mod diagnostics;
mod documents;
mod findings;
mod graph;
mod hover;
mod navigation;
mod notifications;
mod outline;
mod poll;
mod requests;
mod settings;
mod transport;
mod workspace;
mod world;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::Sender;
use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;

use crate::linter::check::ConfigSource;
use crate::linter::resolve::Resolver;
use crate::settings::config::Config;
use diagnostics::{Current, Job, Worker};
use documents::{Document, Documents};
use requests::{Lane, Method, Pending, Queued};
use transport::Incoming;
use workspace::Workspace;
use world::Snapshot;

/// Serves the Language Server Protocol on standard input and output until the
/// client says `exit` or closes the stream. `Ok(true)` when the client asked for
/// `shutdown` first: the protocol has the server exit with 0 then and 1 otherwise.
pub(crate) fn serve() -> std::io::Result<bool> {
    serve_on(std::io::BufReader::new(std::io::stdin()), std::io::stdout())
}

/// Serves `input` as a client's byte stream and discards the answers: the fuzz
/// target's entry point (`helm_tether::internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn serve_bytes(input: Vec<u8>) -> std::io::Result<()> {
    serve_on(std::io::Cursor::new(input), std::io::sink()).map(|_| ())
}

/// Serves the protocol on `input` and `output` (the tests and the fuzz target
/// serve in memory); whether `shutdown` came before the end.
pub(crate) fn serve_on(
    mut input: impl BufRead + Send + 'static,
    mut output: impl Write + Send + 'static,
) -> std::io::Result<bool> {
    let (incoming_sender, incoming) = crossbeam_channel::bounded::<Incoming>(16);
    let (out, outgoing) = crossbeam_channel::unbounded::<serde_json::Value>();
    let reader = std::thread::Builder::new()
        .name("tether-lsp-reader".into())
        .spawn(move || -> std::io::Result<()> {
            while let Some(message) = transport::read(&mut input)? {
                if incoming_sender.send(message).is_err() {
                    break;
                }
            }
            Ok(())
        })?;
    let (written, all_written) = crossbeam_channel::bounded::<std::io::Result<()>>(1);
    std::thread::Builder::new()
        .name("tether-lsp-writer".into())
        .spawn(move || {
            let result = outgoing
                .iter()
                .try_for_each(|message| transport::write(&mut output, &message));
            let _ = written.send(result);
        })?;
    // What the server's own watch saw change, for clients that cannot watch files.
    let (polled_sender, polled) = crossbeam_channel::bounded::<Vec<PathBuf>>(4);
    let mut server = Server::new(out, polled_sender);
    loop {
        crossbeam_channel::select! {
            recv(incoming) -> message => {
                let Ok(message) = message else { break };
                if !server.take(message) {
                    break;
                }
            }
            recv(polled) -> paths => {
                if let Ok(paths) = paths {
                    findings::guarded((), || server.files_changed(paths));
                }
            }
        }
    }
    let clean = server.shutdown;
    drop(server);
    // What is queued is written; a check still running (a fix-all of a huge file)
    // holds the writer open, and is not waited for: the process ends with `exit`.
    let _ = all_written.recv_timeout(EXIT_GRACE);
    // The reader may be blocked on a stream that stays open; it ends with the
    // process.
    drop(reader);
    Ok(clean)
}

/// How long the answers already queued may take to be written once the client says
/// `exit`, while a check may still be running.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The message loop's state.
/// The prefix of the ids of the server's `workspace/configuration` requests.
const CONFIGURATION: &str = "tether-configuration-";

struct Server {
    out: Sender<serde_json::Value>,
    documents: Documents,
    resolver: world::SharedResolver,
    /// The folders the server reads and answers for.
    workspace: Arc<Workspace>,
    /// The workspace's first folder: the defaults' root where no `tether.toml` is
    /// found.
    root: PathBuf,
    generation: u64,
    latest: Arc<AtomicU64>,
    /// The newest snapshot, where the worker finds it.
    current: Current,
    jobs: Option<Sender<Job>>,
    /// The lane of hover, completion and navigation.
    reads: Option<Sender<Queued>>,
    /// The requests queued on either lane.
    pending: Pending,
    /// What the user set in the editor.
    settings: Arc<settings::EditorSettings>,
    /// What each template read, for every snapshot.
    memo: Arc<crate::analysis::charts::ReadsMemo>,
    /// The files requests modelled, for every snapshot.
    models: Arc<world::Models>,
    initialized: bool,
    shutdown: bool,
    /// Whether the client watches files for the server once asked (dynamic
    /// registration), and whether it answers `workspace/configuration`.
    client_watches: bool,
    client_configures: bool,
    /// The latest `workspace/configuration` the server asked: older answers are
    /// stale.
    asked_configuration: u64,
    /// The folders the server's own watch looks at, when the client cannot watch
    /// files for the server, and where it says what changed.
    watched: Option<poll::Folders>,
    polled: Sender<Vec<PathBuf>>,
}

impl Server {
    fn new(out: Sender<serde_json::Value>, polled: Sender<Vec<PathBuf>>) -> Server {
        let root = std::env::current_dir().unwrap_or_default();
        let resolver = Arc::new(std::sync::Mutex::new(resolver(&root)));
        let workspace = Arc::new(Workspace::default());
        let empty = Snapshot {
            documents: Documents::new(),
            resolver: resolver.clone(),
            workspace: workspace.clone(),
            generation: 0,
            settings: Arc::default(),
            memo: Arc::default(),
            charts: std::sync::OnceLock::new(),
            models: Arc::default(),
        };
        Server {
            resolver,
            out,
            documents: Documents::new(),
            workspace,
            root,
            generation: 0,
            latest: Arc::new(AtomicU64::new(0)),
            current: Arc::new(std::sync::Mutex::new(Arc::new(empty))),
            jobs: None,
            reads: None,
            pending: Pending::default(),
            settings: Arc::default(),
            memo: Arc::default(),
            models: Arc::default(),
            initialized: false,
            shutdown: false,
            client_watches: false,
            client_configures: false,
            asked_configuration: 0,
            watched: None,
            polled,
        }
    }

    /// Handles one message; false when the server is to stop.
    fn take(&mut self, message: Incoming) -> bool {
        let message = match message {
            Incoming::Message(message) => message,
            Incoming::Malformed(response) => {
                let _ = self.out.send(response);
                return true;
            }
        };
        match message {
            Message::Request(request) => self.request(request),
            Message::Notification(notification) => {
                if notification.method == lsp_types::notification::Exit::METHOD {
                    return false;
                }
                findings::guarded((), || self.notification(notification));
            }
            // Answers to the server's own requests (registration, refresh,
            // configuration).
            Message::Response(response) => self.answered(response),
        }
        true
    }

    fn respond(&self, response: Response) {
        let _ = self
            .out
            .send(transport::value_of(&Message::Response(response)));
    }

    /// Answers request `id` with the error `code` and `message`.
    fn refuse(&self, id: lsp_server::RequestId, code: ErrorCode, message: &str) {
        self.respond(Response::new_err(id, code as i32, message.into()));
    }

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        if request.method == "initialize" && self.initialized {
            self.refuse(
                id,
                ErrorCode::InvalidRequest,
                "the server is initialized already",
            );
            return;
        }
        if request.method == "initialize" {
            let response = findings::guarded(
                Response::new_err(
                    id.clone(),
                    ErrorCode::InvalidParams as i32,
                    "invalid initialize".into(),
                ),
                || self.initialize(request),
            );
            self.respond(response);
            return;
        }
        if !self.initialized {
            self.refuse(
                id,
                ErrorCode::ServerNotInitialized,
                "the server is not initialized",
            );
            return;
        }
        if request.method == "shutdown" {
            self.shutdown = true;
            self.respond(Response::new_ok(id, serde_json::Value::Null));
            return;
        }
        if self.shutdown {
            self.refuse(id, ErrorCode::InvalidRequest, "the server is shutting down");
            return;
        }
        let Some(method) = Method::of(&request.method) else {
            let message = format!("tether does not answer `{}`", request.method);
            self.refuse(id, ErrorCode::MethodNotFound, &message);
            return;
        };
        let queued = Queued {
            method,
            snapshot: self.request_snapshot(),
            request,
        };
        self.pending.queued(id);
        match method.lane() {
            Lane::Checks => self.send(Job::Request(queued)),
            Lane::Reads => {
                if let Some(reads) = &self.reads {
                    let _ = reads.send(queued);
                }
            }
        }
    }

    fn initialize(&mut self, request: Request) -> Response {
        // The specification spells it `workspace.diagnostics`, lsp-types
        // `workspace.diagnostic`: either is read.
        let workspace = &request.params["capabilities"]["workspace"];
        let refresh = [&workspace["diagnostics"], &workspace["diagnostic"]]
            .iter()
            .any(|diagnostics| diagnostics["refreshSupport"] == true);
        let params: lsp_types::InitializeParams = match serde_json::from_value(request.params) {
            Ok(params) => params,
            Err(error) => {
                return Response::new_err(
                    request.id,
                    ErrorCode::InvalidParams as i32,
                    format!("invalid initialize parameters: {error}"),
                );
            }
        };
        self.set_workspace(workspace_of(&params));
        if let Some(options) = &params.initialization_options {
            self.configure(options);
        }
        let text_document = params.capabilities.text_document.as_ref();
        let pull = text_document.is_some_and(|capabilities| capabilities.diagnostic.is_some());
        let workspace = params.capabilities.workspace.as_ref();
        let watch = workspace
            .and_then(|workspace| workspace.did_change_watched_files.as_ref())
            .and_then(|watched| watched.dynamic_registration)
            .unwrap_or(false);
        self.client_configures = workspace
            .and_then(|workspace| workspace.configuration)
            .unwrap_or(false);
        if let Err(error) = self.start_threads(pull, refresh) {
            return Response::new_err(
                request.id,
                ErrorCode::InternalError as i32,
                format!("cannot start the server's threads: {error}"),
            );
        }
        self.initialized = true;
        // The client watches once asked, after `initialized` (the server sends no
        // request before its answer to `initialize`).
        self.client_watches = watch;
        if !watch {
            // Neovim 0.7 and other clients without dynamic registration: the server
            // watches the files itself, so a saved `tether.toml` still applies.
            let folders = poll::Folders::default();
            let (watched, polled) = (folders.clone(), self.polled.clone());
            let spawned = std::thread::Builder::new()
                .name("tether-lsp-watch".into())
                .spawn(move || poll::watch(watched, polled));
            self.watched = spawned.is_ok().then_some(folders);
        }
        Response::new_ok(request.id, capabilities(pull))
    }

    /// Starts the worker, which checks, and the thread of the reads lane.
    fn start_threads(&mut self, pull: bool, refresh: bool) -> std::io::Result<()> {
        let (jobs, receiver) = crossbeam_channel::unbounded();
        let worker = Worker {
            out: self.out.clone(),
            latest: self.latest.clone(),
            pull,
            refresh,
            current: self.current.clone(),
            pending: self.pending.clone(),
        };
        std::thread::Builder::new()
            .name("tether-lsp-worker".into())
            .spawn(move || worker.run(receiver))?;
        self.jobs = Some(jobs);
        let (reads, queue) = crossbeam_channel::unbounded();
        let (out, pending) = (self.out.clone(), self.pending.clone());
        std::thread::Builder::new()
            .name("tether-lsp-reads".into())
            .spawn(move || requests::answer_reads(queue, out, pending))?;
        self.reads = Some(reads);
        Ok(())
    }

    /// Takes the user's settings from `options`; settings that are wrong are said to
    /// the user, and the ones before kept.
    fn configure(&mut self, options: &serde_json::Value) {
        match settings::EditorSettings::from_json(options) {
            Ok(settings) => self.settings = Arc::new(settings),
            Err(why) => {
                let params = lsp_types::ShowMessageParams {
                    typ: lsp_types::MessageType::ERROR,
                    message: format!("tether: {why}"),
                };
                let notification = Notification::new("window/showMessage".into(), params);
                let _ = self
                    .out
                    .send(transport::value_of(&Message::Notification(notification)));
            }
        }
    }

    /// Asks the client for the `tether` section of its settings
    /// (`workspace/configuration`); [`Server::answered`] takes the answer.
    fn ask_configuration(&mut self) {
        self.asked_configuration += 1;
        let params = lsp_types::ConfigurationParams {
            items: vec![lsp_types::ConfigurationItem {
                scope_uri: None,
                section: Some("tether".into()),
            }],
        };
        let id = format!("{CONFIGURATION}{}", self.asked_configuration);
        let request = Request::new(id.into(), "workspace/configuration".into(), params);
        let _ = self
            .out
            .send(transport::value_of(&Message::Request(request)));
    }

    /// The client's answer to one of the server's requests: the settings it was
    /// last asked for are taken (a section the client does not have keeps the
    /// settings as they are); other answers need nothing.
    fn answered(&mut self, response: Response) {
        let latest = format!("{CONFIGURATION}{}", self.asked_configuration);
        if response.id != latest.into() {
            return;
        }
        let section = response
            .response_result
            .ok()
            .and_then(|mut result| result.get_mut(0).map(serde_json::Value::take))
            .filter(serde_json::Value::is_object);
        if let Some(section) = section {
            self.configure(&section);
        }
    }

    /// Asks the client to tell of changes to the files that configure a check.
    fn register_watchers(&self) {
        let watchers: Vec<lsp_types::FileSystemWatcher> = WATCHED
            .iter()
            .map(|pattern| lsp_types::FileSystemWatcher {
                glob_pattern: lsp_types::GlobPattern::String((*pattern).into()),
                kind: None,
            })
            .collect();
        let options = lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers };
        let params = lsp_types::RegistrationParams {
            registrations: vec![lsp_types::Registration {
                id: "tether-watched-files".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        let request = Request::new(
            "tether-register".to_string().into(),
            "client/registerCapability".into(),
            params,
        );
        let _ = self
            .out
            .send(transport::value_of(&Message::Request(request)));
    }

    fn opened(&mut self, params: lsp_types::DidOpenTextDocumentParams) {
        if self.workspace.is_empty() {
            if let Some(named) = documents::named_path(&params.text_document.uri) {
                self.set_workspace(Workspace::of_document(&named));
            }
        }
        let Some(path) = self.document_path(&params.text_document.uri) else {
            return;
        };
        if let (Some(watched), Some(top)) = (&self.watched, self.workspace.folder_of(&path)) {
            watched.add(&path, top);
        }
        self.documents.insert(
            path.clone(),
            Document {
                uri: params.text_document.uri,
                version: Some(params.text_document.version),
                text: Arc::from(params.text_document.text.as_str()),
            },
        );
        self.changed_paths(vec![path], false);
    }

    fn changed(&mut self, params: lsp_types::DidChangeTextDocumentParams) {
        let Some(path) = self.document_path(&params.text_document.uri) else {
            return;
        };
        let Some(document) = self.documents.get_mut(&path) else {
            return;
        };
        let text = documents::apply_changes(&document.text, params.content_changes);
        document.text = Arc::from(text.as_str());
        document.version = Some(params.text_document.version);
        let all = configures(&path);
        if all {
            self.resolver = Arc::new(std::sync::Mutex::new(resolver(&self.root)));
        }
        self.changed_paths(vec![path], all);
    }

    fn closed(&mut self, params: lsp_types::DidCloseTextDocumentParams) {
        let Some(path) = self.document_path(&params.text_document.uri) else {
            return;
        };
        if self.documents.remove(&path).is_some() {
            self.send(Job::Closed(params.text_document.uri));
            // What it read on disk may differ from its buffer.
            self.changed_paths(vec![path], false);
        }
    }

    /// Files changed on disk (saved, or seen by the client's watcher): a
    /// configuration file makes every open file be checked again with the
    /// configurations read anew.
    fn files_changed(&mut self, paths: Vec<PathBuf>) {
        let all = paths.iter().any(|path| configures(path));
        if all {
            self.resolver = Arc::new(std::sync::Mutex::new(resolver(&self.root)));
        }
        self.changed_paths(paths, all);
    }

    fn changed_paths(&mut self, paths: Vec<PathBuf>, all: bool) {
        self.generation += 1;
        self.latest.store(self.generation, Ordering::SeqCst);
        let snapshot = self.snapshot();
        // The snapshot before is dropped here (or when the work reading it ends):
        // a queue of changes holds no text.
        *self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = snapshot;
        self.send(Job::Changed { paths, all });
    }

    /// Where the document `uri` names is, resolved, if it is inside the workspace:
    /// a message about any other file is ignored.
    fn document_path(&self, uri: &lsp_types::Uri) -> Option<PathBuf> {
        self.workspace.inside(&documents::named_path(uri)?)
    }

    /// Answers for the files of `workspace` from now on; its first folder roots the
    /// defaults.
    fn set_workspace(&mut self, workspace: Workspace) {
        if let Some(first) = workspace.first() {
            self.root = first.to_path_buf();
            self.resolver = Arc::new(std::sync::Mutex::new(resolver(&self.root)));
        }
        self.workspace = Arc::new(workspace);
    }

    /// The snapshot a request reads: the worker's, when nothing changed since it
    /// was made (the request shares the charts it reads), or a new one.
    fn request_snapshot(&self) -> Arc<Snapshot> {
        let current = self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if current.generation == self.generation
            && Arc::ptr_eq(&current.resolver, &self.resolver)
            && Arc::ptr_eq(&current.workspace, &self.workspace)
            && Arc::ptr_eq(&current.settings, &self.settings)
        {
            current
        } else {
            self.snapshot()
        }
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        Arc::new(Snapshot {
            documents: self.documents.clone(),
            resolver: self.resolver.clone(),
            workspace: self.workspace.clone(),
            generation: self.generation,
            settings: self.settings.clone(),
            memo: self.memo.clone(),
            charts: std::sync::OnceLock::new(),
            models: self.models.clone(),
        })
    }

    fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }
}

/// The files whose change changes the findings of others: what configures a check,
/// and the charts' files (a template written by `git checkout` or `make update`
/// changes its values file's `unused-value`).
const WATCHED: &[&str] = &[
    "**/templates/**",
    "**/*.tpl",
    "**/tether.toml",
    "**/.yamllint",
    "**/.yamllint.yaml",
    "**/.yamllint.yml",
    "**/ct.yaml",
    "**/Chart.yaml",
    "**/requirements.yaml",
    "**/values.yaml",
];

/// Whether a change of the file at `path` changes the configuration of other files
/// (`tether.toml`, yamllint's and chart-testing's files).
fn configures(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    name == crate::settings::config::FILE_NAME || name.starts_with(".yamllint") || name == "ct.yaml"
}

/// The resolver `check` makes without `--config`: each file's nearest
/// `tether.toml`, the defaults rooted at the workspace where there is none.
fn resolver(root: &Path) -> Resolver {
    let source = ConfigSource::Nearest {
        fallback: Config::default_for(root.to_path_buf()),
        select: Vec::new(),
        ignore: Vec::new(),
    };
    let covered = Some(root.to_path_buf());
    source.resolver(covered.clone()).unwrap_or_else(|_| {
        Resolver::discover(
            Config::default_for(root.to_path_buf()),
            Vec::new(),
            Vec::new(),
            covered,
        )
    })
}

/// The workspace the client names: its workspace folders, or where it names none,
/// its root URI (deprecated, and what older clients send).
#[allow(deprecated)]
fn workspace_of(params: &lsp_types::InitializeParams) -> Workspace {
    let folders: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|folder| documents::named_path(&folder.uri))
        .collect();
    if !folders.is_empty() {
        return Workspace::new(folders);
    }
    Workspace::new(params.root_uri.as_ref().and_then(documents::named_path))
}

/// What the server can do.
fn capabilities(pull: bool) -> serde_json::Value {
    use lsp_types::{
        CodeActionKind, CodeActionOptions, CodeActionProviderCapability, DiagnosticOptions,
        DiagnosticServerCapabilities, HoverProviderCapability, OneOf, SaveOptions,
        ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
        TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
    };
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        diagnostic_provider: pull.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("tether".into()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                ..DiagnosticOptions::default()
            })
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::SOURCE_FIX_ALL,
            ]),
            ..CodeActionOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(completion::options()),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "tether", "version": env!("CARGO_PKG_VERSION") },
    })
}

#[cfg(test)]
mod tests {
    /// The client is asked to watch what a check of another file reads: templates
    /// and helpers included, as a client's glob matching reads the patterns.
    #[test]
    fn templates_and_configurations_are_watched() {
        let mut builder = globset::GlobSetBuilder::new();
        for pattern in super::WATCHED {
            builder.add(globset::Glob::new(pattern).unwrap());
        }
        let watched = builder.build().unwrap();
        for path in [
            "/w/charts/app/templates/deployment.yaml",
            "/w/charts/app/templates/sub/_helpers.tpl",
            "/w/charts/common/_lib.tpl",
            "/w/tether.toml",
            "/w/charts/app/Chart.yaml",
            "/w/charts/app/values.yaml",
        ] {
            assert!(watched.is_match(path), "{path}");
        }
        assert!(!watched.is_match("/w/charts/app/README.md"));
    }

    /// A request between two changes reads the worker's snapshot, so both read the
    /// generation's charts once; a change makes a new one.
    #[test]
    fn requests_share_the_charts_of_the_worker_until_a_change() {
        let (out, _) = crossbeam_channel::unbounded();
        let (polled, _) = crossbeam_channel::unbounded();
        let mut server = super::Server::new(out, polled);
        server.changed_paths(Vec::new(), false);
        let worker = server
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let charts = super::world::Batch::charts_of(&worker);
        let request = server.request_snapshot();
        assert!(std::sync::Arc::ptr_eq(
            &charts,
            &super::world::Batch::charts_of(&request)
        ));
        server.changed_paths(Vec::new(), false);
        let after = server.request_snapshot();
        assert_eq!(after.generation, request.generation + 1);
        assert!(!std::sync::Arc::ptr_eq(
            &charts,
            &super::world::Batch::charts_of(&after)
        ));
    }
}
