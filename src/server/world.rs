//! What one piece of the server's work reads: the open documents and the
//! configurations at one moment ([`Snapshot`]), and the charts read through those
//! documents ([`Batch`]), so the analysis sees the editor's unsaved text wherever
//! `check` would read the file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::analysis::charts::{Chart, Charts, UnsavedTexts};
use crate::diagnostic::Diagnostic;
use crate::linter::file::SharedModel;
use crate::linter::project::{Project, Resolved};
use crate::linter::resolve::Resolver;
use crate::paths::FileKind;
use crate::settings::config::Config;
use crate::yaml::model::FileModel;

use super::documents::Documents;
use super::workspace::Workspace;

/// The documents and configurations as they were after one message.
#[derive(Debug)]
pub(crate) struct Snapshot {
    pub documents: Documents,
    pub resolver: SharedResolver,
    /// The folders whose files the server reads and answers for.
    pub workspace: Arc<Workspace>,
    /// Counts the changes: work for an older generation is stale.
    pub generation: u64,
    /// What the user set in the editor.
    pub settings: Arc<super::settings::EditorSettings>,
    /// What each template read, kept across generations.
    pub memo: Arc<crate::analysis::charts::ReadsMemo>,
    /// The charts read through these documents, once for the generation: the
    /// worker's check and the requests answered meanwhile share them, so a hover
    /// during a check does not read the chart a second time.
    pub charts: std::sync::OnceLock<Arc<Charts>>,
    /// The files requests modelled (the `values.yaml` a hover quotes), kept across
    /// generations and taken while their text is the same.
    pub models: Arc<Models>,
}

/// The server's resolver, which the message loop and the worker share. `check`
/// resolves a run's folders in one batch and then looks files up without a lock;
/// an editor opens files one at a time, so the server resolves each file's folder
/// when it first meets it, under this lock (two threads, one lookup per file and
/// piece of work).
pub(crate) type SharedResolver = Arc<Mutex<Resolver>>;

/// The configuration of the file at `path` (absolute), its folder resolved on
/// first sight.
pub(crate) fn configuration_of(
    resolver: &SharedResolver,
    path: &Path,
) -> Result<Resolved, crate::error::ConfigurationError> {
    resolver
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .config_for(path)
}

/// One piece of work over a snapshot: its charts are read once, through the open
/// documents.
pub(crate) struct Batch<'a> {
    pub snapshot: &'a Snapshot,
    charts: Arc<Charts>,
}

/// A file's text and comment model.
pub(crate) struct Modelled {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub model: Arc<FileModel>,
}

/// The model of one text of a file, made once by whichever needs it first: the
/// worker's check of the file or a request that quotes it (a hover on a `.Values`
/// read quotes the chart's `values.yaml`). The other waits for it rather than make
/// it again, unless it only quotes the file and an older text's model is there
/// ([`Batch::latest_model`]).
pub(crate) struct ModelCell {
    path: PathBuf,
    text: Arc<str>,
    model: OnceLock<Arc<FileModel>>,
    /// Set once some thread took on making the model.
    making: AtomicBool,
    /// The model of the file's text before this one, when it was made: what a
    /// request that quotes the file answers from while this text's model is
    /// being made.
    before: Option<(Arc<str>, Arc<FileModel>)>,
}

impl SharedModel for ModelCell {
    fn model(&self, make: &dyn Fn() -> FileModel) -> Arc<FileModel> {
        self.model
            .get_or_init(|| {
                self.making.store(true, Ordering::Release);
                Arc::new(make())
            })
            .clone()
    }
}

/// The files requests and checks modelled (a chart's `values.yaml` a hover
/// quotes), the newest last, bounded: a keystroke in a template does not make the
/// next hover model the chart's values again.
#[derive(Default)]
pub(crate) struct Models(Mutex<Vec<Arc<ModelCell>>>);

impl std::fmt::Debug for Models {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.0.lock().map_or(0, |models| models.len());
        write!(formatter, "Models({kept} kept)")
    }
}

/// How many modelled files are kept.
const MODELS_KEPT: usize = 16;

/// A file as the batch sees it: its configuration, the run's state with the
/// batch's charts, and its text.
pub(crate) struct FileState {
    pub config: Arc<Config>,
    pub project: Project,
    /// Relative to the configuration's folder, as `check` names it.
    pub relative: PathBuf,
    pub text: Arc<str>,
    /// Whether `check` would check it (its configuration's `include`/`exclude`).
    pub included: bool,
}

/// What a check of one file found.
pub(crate) enum Checked {
    /// The findings, in the text they were found in.
    Findings {
        text: Arc<str>,
        diagnostics: Vec<Diagnostic>,
    },
    /// The file's configuration is broken: why.
    Broken(String),
    /// `check` would not check it.
    Excluded,
}

impl<'a> Batch<'a> {
    /// A batch over `snapshot`, reading charts through its documents.
    pub fn new(snapshot: &'a Snapshot) -> Batch<'a> {
        Batch::with_charts(snapshot, Batch::charts_of(snapshot))
    }

    /// The charts of `snapshot`, read through its documents (once per snapshot).
    pub fn charts_of(snapshot: &Snapshot) -> Arc<Charts> {
        snapshot
            .charts
            .get_or_init(|| {
                let overlay: UnsavedTexts = snapshot
                    .documents
                    .iter()
                    .map(|(path, document)| (path.clone(), document.text.clone()))
                    .collect();
                Arc::new(Charts::with_overlay(
                    Arc::new(overlay),
                    snapshot.memo.clone(),
                ))
            })
            .clone()
    }

    /// A batch over `snapshot` whose charts are `charts`, read for a snapshot of
    /// the same generation: the requests between two changes share what the first
    /// of them read.
    pub fn with_charts(snapshot: &'a Snapshot, charts: Arc<Charts>) -> Batch<'a> {
        Batch { snapshot, charts }
    }

    /// The model of `text`, the text of the file at `path`, shared with the
    /// worker's check and the other requests: made by `make` unless it was made
    /// or is being made for this text.
    pub fn model(&self, path: &Path, text: &Arc<str>, make: &dyn Fn() -> FileModel) -> Modelled {
        Modelled {
            path: path.to_path_buf(),
            text: text.clone(),
            model: self.cell(path, text).model(make),
        }
    }

    /// The newest model of the file at `path` for a request that quotes it (a
    /// hover on a `.Values` read quotes the chart's `values.yaml`): the model of
    /// `text` once it is made; until then the model of the file's text before,
    /// when there is one, while the model of `text` is made on another thread
    /// (the worker's check, or one this starts), so the request never waits for
    /// a model. The positions in what it returns are in the text it returns. A
    /// request about a position in the file itself takes [`Batch::model`], whose
    /// model is always of `text`.
    pub fn latest_model(
        &self,
        path: &Path,
        text: &Arc<str>,
        make: Arc<dyn Fn() -> FileModel + Send + Sync>,
    ) -> Modelled {
        let cell = self.cell(path, text);
        if let (None, Some((before, model))) = (cell.model.get(), &cell.before) {
            let started = cell.making.swap(true, Ordering::AcqRel);
            let made_elsewhere = started || {
                let cell = cell.clone();
                let make = make.clone();
                std::thread::Builder::new()
                    .name("tether-lsp-model".into())
                    .spawn(move || {
                        cell.model(&*make);
                    })
                    .is_ok()
            };
            if made_elsewhere {
                return Modelled {
                    path: path.to_path_buf(),
                    text: before.clone(),
                    model: model.clone(),
                };
            }
        }
        Modelled {
            path: path.to_path_buf(),
            text: text.clone(),
            model: cell.model(&*make),
        }
    }

    /// The findings of `file`, the file at `path`, as `check` finds them: its
    /// model is shared when it is a values file's or one a request modelled (any
    /// other file's is the check's own).
    pub fn findings(&self, path: &Path, file: &FileState) -> Vec<Diagnostic> {
        let modelled_before = self.lock_models().iter().any(|cell| cell.path == path);
        let shared = (FileKind::of(&file.relative).is_values() || modelled_before)
            .then(|| self.cell(path, &file.text));
        let (_, diagnostics) = crate::linter::file::check_buffer(
            &file.config,
            &file.project,
            &file.relative,
            file.text.as_bytes().to_vec(),
            shared.as_deref().map(|cell| cell as &dyn SharedModel),
        );
        diagnostics
    }

    /// The kept model of `text` at `path`, or a new one not made yet, kept in
    /// place of an older model of the file (the oldest goes when there are too
    /// many).
    fn cell(&self, path: &Path, text: &Arc<str>) -> Arc<ModelCell> {
        let mut models = self.lock_models();
        let found = models.iter().find(|cell| {
            cell.path == path && (Arc::ptr_eq(&cell.text, text) || cell.text == *text)
        });
        if let Some(found) = found {
            return found.clone();
        }
        let mut before = None;
        models.retain(|cell| {
            if cell.path != path {
                return true;
            }
            before = match cell.model.get() {
                Some(model) => Some((cell.text.clone(), model.clone())),
                None => cell.before.clone(),
            };
            false
        });
        if models.len() >= MODELS_KEPT {
            models.remove(0);
        }
        let cell = Arc::new(ModelCell {
            path: path.to_path_buf(),
            text: text.clone(),
            model: OnceLock::new(),
            making: AtomicBool::new(false),
            before,
        });
        models.push(cell.clone());
        cell
    }

    fn lock_models(&self) -> std::sync::MutexGuard<'_, Vec<Arc<ModelCell>>> {
        self.snapshot
            .models
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The file at `path` (absolute): its open text or, when it is not open, the
    /// file on disk; `Err` with why it cannot be had: outside the workspace (where
    /// it resolves to, links followed), or its configuration broken.
    pub fn file(&self, path: &Path) -> Result<FileState, String> {
        let path = &self.inside(path)?;
        let resolved =
            configuration_of(&self.snapshot.resolver, path).map_err(|error| error.to_string())?;
        let relative = crate::paths::relative_to(path, &resolved.config.root);
        let text = match self.snapshot.documents.get(path) {
            Some(document) => document.text.clone(),
            None => {
                // A file the editor has not opened (the `values.yaml` a hover
                // quotes) is read only inside the repository, links followed.
                let top = resolved.project.chart_scope.top.clone().unwrap_or_else(|| {
                    crate::paths::repository_top(&resolved.config.root)
                        .unwrap_or_else(|| resolved.config.root.clone())
                });
                let bytes = crate::source::read_inside(path, &top, crate::source::MAX_FILE_BYTES)
                    .map_err(|error| format!("{}: {error}", path.display()))?;
                Arc::from(String::from_utf8_lossy(&bytes).as_ref())
            }
        };
        let project = Project {
            pins: resolved.project.pins.clone(),
            charts: self.charts.clone(),
            chart_scope: resolved.project.chart_scope.clone(),
            // Looked for again on each change: the user may be editing one.
            ignore_files: Default::default(),
        };
        Ok(FileState {
            included: resolved.config.includes(&relative),
            config: resolved.config,
            project,
            relative,
            text,
        })
    }

    /// Checks the file at `path` as `check` would, in its open text.
    pub fn check(&self, path: &Path) -> Checked {
        let file = match self.file(path) {
            Ok(file) => file,
            Err(why) => return Checked::Broken(why),
        };
        if !file.included {
            return Checked::Excluded;
        }
        let diagnostics = self.findings(path, &file);
        Checked::Findings {
            text: file.text,
            diagnostics,
        }
    }

    /// Where the file at `path` (absolute) is, resolved, if that is inside the
    /// workspace; `Err` with what to say otherwise.
    fn inside(&self, path: &Path) -> Result<PathBuf, String> {
        self.snapshot.workspace.inside(path).ok_or_else(|| {
            format!(
                "{}: outside the workspace; tether reads only the files of its folders",
                path.display()
            )
        })
    }

    /// The chart of a template or `values.yaml` at `path` (inside the workspace).
    pub fn chart_of(&self, path: &Path) -> Option<Arc<Chart>> {
        let path = &self.inside(path).ok()?;
        let resolved = configuration_of(&self.snapshot.resolver, path).ok()?;
        self.charts
            .of(path, &resolved.project.chart_scope)
            .map(|(chart, _)| chart)
    }

    /// The open documents whose findings a change of the files `changed` may
    /// change: those files, and the open files of every chart that depends on the
    /// chart of one of them (a template, `values.yaml`, `Chart.yaml`).
    pub fn affected(&self, changed: &[PathBuf]) -> Vec<PathBuf> {
        let roots: Vec<PathBuf> = changed
            .iter()
            .filter_map(|path| chart_folder(path))
            .collect();
        let mut affected: Vec<PathBuf> = self
            .snapshot
            .documents
            .keys()
            .filter(|path| {
                changed.contains(path)
                    || (!roots.is_empty()
                        && self
                            .chart_of(path)
                            .is_some_and(|chart| roots.iter().any(|root| chart.depends_on(root))))
            })
            .cloned()
            .collect();
        affected.sort();
        affected
    }
}

/// The chart folder a file belongs to: the nearest folder at or above it with a
/// `Chart.yaml`.
pub(crate) fn chart_folder(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|folder| folder.join("Chart.yaml").is_file())
        .map(Path::to_path_buf)
}
