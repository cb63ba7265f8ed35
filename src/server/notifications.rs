//! The client's notifications, each taken to its handler by its type
//! (`lsp_types`' `Notification`: its method and its parameters' type), in one
//! table: a notification tether handles is named once, with the parameters it reads.

use lsp_server::Notification;
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument,
    DidOpenTextDocument, DidSaveTextDocument, Initialized, Notification as Typed,
};

use super::Server;

/// `workspace/didChangeConfiguration` with its parameters as sent: what a client
/// of the push model sends under `settings` may be any value, or nothing.
enum ConfigurationChanged {}

impl Typed for ConfigurationChanged {
    type Params = serde_json::Value;
    const METHOD: &'static str = "workspace/didChangeConfiguration";
}

/// A notification on its way to the handler of its type, taken once.
struct Dispatch<'a> {
    server: &'a mut Server,
    notification: Option<Notification>,
}

impl Dispatch<'_> {
    /// Hands the notification to `handle` when it is an `N`. One whose parameters
    /// do not parse is dropped: a notification has no answer to carry an error.
    fn on<N: Typed>(mut self, handle: fn(&mut Server, N::Params)) -> Self {
        let Some(notification) = self
            .notification
            .take_if(|notification| notification.method == N::METHOD)
        else {
            return self;
        };
        if let Ok(params) = serde_json::from_value::<N::Params>(notification.params) {
            handle(self.server, params);
        }
        self
    }
}

impl Server {
    /// A notification from the client, once it is initialized; one tether does
    /// not handle is ignored.
    pub(super) fn notification(&mut self, notification: Notification) {
        if !self.initialized {
            return;
        }
        Dispatch {
            server: self,
            notification: Some(notification),
        }
        .on::<Cancel>(Server::cancel)
        .on::<Initialized>(|server, _| server.on_initialized())
        .on::<ConfigurationChanged>(Server::configuration_changed)
        .on::<DidOpenTextDocument>(Server::opened)
        .on::<DidChangeTextDocument>(Server::changed)
        .on::<DidCloseTextDocument>(Server::closed)
        .on::<DidSaveTextDocument>(Server::saved)
        .on::<DidChangeWatchedFiles>(Server::watched_files_changed);
    }

    /// `$/cancelRequest`: a request still queued is answered as cancelled, one
    /// running stops at its next check.
    fn cancel(&mut self, params: lsp_types::CancelParams) {
        let id = match params.id {
            lsp_types::NumberOrString::Number(number) => number.into(),
            lsp_types::NumberOrString::String(string) => string.into(),
        };
        self.pending.cancel(&id);
    }

    /// `initialized`: the file watchers are registered and the settings asked for,
    /// for a client that can.
    fn on_initialized(&mut self) {
        if self.client_watches {
            self.register_watchers();
        }
        if self.client_configures {
            self.ask_configuration();
        }
    }

    /// A client that answers `workspace/configuration` is asked again (the pull
    /// model: what it sends here may be nothing); another's settings are taken as
    /// sent.
    fn configuration_changed(&mut self, params: serde_json::Value) {
        if self.client_configures {
            self.ask_configuration();
        } else if let Some(settings) = params.get("settings").filter(|s| !s.is_null()) {
            self.configure(settings);
        }
    }

    /// A saved document: the files that depend on it are checked again.
    fn saved(&mut self, params: lsp_types::DidSaveTextDocumentParams) {
        if let Some(path) = self.document_path(&params.text_document.uri) {
            self.files_changed(vec![path]);
        }
    }

    /// Files the client's watcher (or the server's own poll) saw change.
    fn watched_files_changed(&mut self, params: lsp_types::DidChangeWatchedFilesParams) {
        let paths = params
            .changes
            .iter()
            .filter_map(|change| self.document_path(&change.uri))
            .collect();
        self.files_changed(paths);
    }
}
