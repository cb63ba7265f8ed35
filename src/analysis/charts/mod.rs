//! The charts of a run as Helm composes them, for `undefined-value` and
//! `unused-value`: each chart's values, what its files read, and its dependencies
//! resolved as Helm resolves them (a folder or an archive under `charts/`, a
//! `file://` path, a chart of that name and version elsewhere in the repository or
//! under `chart-paths`). A named template included with the root context reads
//! the includer's values as its body spells them, across charts.
//!
//! The index is read-only to the rules: each chart is read once per run, on the
//! first thread that asks ([`Charts::chart`]), from disk, never from what a check
//! of another file saw, so no order between files matters. Three layers, each
//! depending only on the one before: [`Chart`] (manifest, values, where each
//! dependency lies), [`Scan`] (what the chart's own files read and define) and
//! [`Analysis`] (the reads of the chart with the defines it reaches in its
//! dependencies). A dependency cycle can therefore never make a chart wait on
//! itself.

mod analysis;
mod archive;
mod closures;
mod defines;
mod dependencies;
pub(crate) mod manifest;
pub(crate) mod names;
mod queries;
mod read;
mod repository;
pub(crate) mod scan;
pub(crate) mod values;

use crate::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

pub use archive::Archive;
pub use manifest::{Dependency, Manifest};
pub use values::{Keys, guarded};

use super::by_hash::{ByHash, ByStamp};
use super::chart_yamls::ChartYamls;
use crate::template::reads::{Arg, Reads, Use};
use names::DefineIndex;
use repository::Repository;

/// A values file larger than this is not analysed (the largest in the corpora is
/// 203 KiB).
const MAX_VALUES_BYTES: usize = 4 * 1024 * 1024;
/// Files of one chart read for what they read of the values.
const MAX_FILES: usize = 20_000;
/// Larger files are not read for reads, as `check` reads none larger: a template
/// that large makes the chart's reads unknown (said, as a `.Files` read is). CRD
/// templates of a megabyte or more are common, and read.
const MAX_FILE_BYTES: u64 = crate::source::MAX_FILE_BYTES as u64;
/// YAML nodes of a values file once aliases are expanded (the largest values file of
/// the corpora has about 6,000).
const MAX_NODES: usize = 500_000;
/// Dependencies followed from one chart, transitively.
const MAX_REACHED_CHARTS: usize = 256;

/// The `charts/` folder of the chart in the folder `root`, listed without following
/// a link: its entries (at most [`MAX_REACHED_CHARTS`], sorted by name); none when
/// there is no such folder; an error saying why when `charts` is a link (which may
/// lead out of the repository) or no folder.
fn charts_folder(root: &Path) -> Result<Vec<std::fs::DirEntry>, &'static str> {
    let folder = root.join("charts");
    match std::fs::symlink_metadata(&folder) {
        Err(_) => return Ok(Vec::new()),
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err("charts is a link, which tether does not follow");
        }
        Ok(metadata) if !metadata.is_dir() => return Err("charts is not a folder"),
        Ok(_) => {}
    }
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Err("charts cannot be listed");
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    entries.truncate(MAX_REACHED_CHARTS);
    Ok(entries)
}
/// Charts vendored in charts vendored in … deeper than this are not analysed.
const MAX_NESTING: usize = 16;
/// Archives inside archives inside … deeper than this are not read.
const MAX_ARCHIVE_DEPTH: usize = 3;
/// What all the archives of one run may unpack to together: a repository of many
/// small gzip bombs stops here, each one bounded on its own as well.
const MAX_RUN_ARCHIVE_BYTES: usize = 256 * 1024 * 1024;

/// The charts of one run, each read once, on the thread that first needs it.
#[derive(Debug, Default)]
pub struct Charts {
    /// Each chart by folder (`None`: not a chart tether can read).
    charts: OnceMap<PathBuf, Option<Arc<Chart>>>,
    /// Each archive by path, or why it could not be read.
    archives: OnceMap<PathBuf, Result<Arc<Archive>, String>>,
    /// Bytes the run's archives unpacked to, all together.
    archive_bytes: std::sync::atomic::AtomicUsize,
    /// The charts of a scope's folders, by name.
    repositories: OnceMap<Vec<PathBuf>, Arc<Repository>>,
    /// The `Chart.yaml` files under each folder: the pins of a repository and its
    /// charts by name come from the same listing.
    chart_yamls: OnceMap<PathBuf, Arc<ChartYamls>>,
    /// Texts that stand in for files of chart folders (an editor's unsaved
    /// buffers, `tether server`), by absolute path.
    overlay: Option<Arc<UnsavedTexts>>,
    /// What templates read in an earlier set of charts of the same process.
    memo: Option<Arc<ReadsMemo>>,
}

/// What each template read and each values file held, by path with the hash of
/// the bytes it was read from, kept across the charts an editor's successive
/// changes make (`tether server`): a file whose bytes did not change is not lexed
/// or parsed again.
#[derive(Debug, Default)]
pub struct ReadsMemo {
    /// What each template (or file a template renders) read and defines.
    files: ByHash<Arc<FileScan>>,
    /// The hash of each template's bytes on disk, under the file's stamp: an
    /// unchanged template is not read again for the next change's charts.
    stamps: ByStamp,
    /// What each values file held: a chart's `values.yaml` is not parsed again
    /// while its bytes stay the same.
    values: ByHash<ValuesRead>,
    /// What each `Chart.yaml` of a listing said: the repository's charts are
    /// listed again for each change, and their files seldom change.
    chart_yamls: ByHash<super::chart_yamls::ChartYamlSays>,
}

impl ReadsMemo {
    /// A memo that trusts the stamps of files however recently they changed: for
    /// tests, whose files are all new.
    #[cfg(test)]
    fn trusting_new_files() -> ReadsMemo {
        ReadsMemo {
            stamps: ByStamp::trusting_new_files(),
            ..ReadsMemo::default()
        }
    }

    /// What the file at `path` read and defines when its bytes hashed to `hash`,
    /// made by `scan` when it is not kept.
    fn file(&self, path: &Path, hash: u64, scan: impl FnOnce() -> FileScan) -> Arc<FileScan> {
        self.files.get_or_make(path, hash, || Arc::new(scan()))
    }

    /// What the values file at `path` held when its bytes hashed to `hash`, made
    /// by `read` when it is not kept.
    fn values(&self, path: &Path, hash: u64, read: impl FnOnce() -> ValuesRead) -> ValuesRead {
        self.values.get_or_make(path, hash, read)
    }

    /// What each `Chart.yaml` of a listing said, by its bytes.
    pub(crate) fn chart_yamls(&self) -> &ByHash<super::chart_yamls::ChartYamlSays> {
        &self.chart_yamls
    }
}

/// A values file as a chart reads it: its keys, the names its comments spell,
/// what its `tpl` strings read, and why it could not be read whole.
#[derive(Debug, Clone)]
struct ValuesRead {
    keys: Arc<Keys>,
    commented: Arc<HashSet<String>>,
    reads: Arc<Reads>,
    problem: Option<String>,
}

/// Values made once per key, each on the thread that first asks for it. The lock
/// is held only to find a key's slot, never while its value is made: making one
/// value may ask for others (a chart for its dependencies), and threads asking for
/// different keys never wait on each other.
#[derive(Debug)]
struct OnceMap<K, V> {
    slots: Mutex<HashMap<K, Arc<OnceLock<V>>>>,
}

impl<K, V> Default for OnceMap<K, V> {
    fn default() -> Self {
        OnceMap {
            slots: Mutex::new(HashMap::default()),
        }
    }
}

impl<K: Eq + std::hash::Hash, V: Clone> OnceMap<K, V> {
    /// The value of `key`, made by `make` if no thread made it yet.
    fn get_or_init(&self, key: K, make: impl FnOnce() -> V) -> V {
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        slot.get_or_init(make).clone()
    }

    /// The value of `key`, if a thread made it.
    fn get(&self, key: &K) -> Option<V> {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.get(key)?.get().cloned()
    }

    /// The first `Some` `find` gives for a value made so far.
    fn find_map<R>(&self, mut find: impl FnMut(&K, &V) -> Option<R>) -> Option<R> {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.iter().find_map(|(key, slot)| find(key, slot.get()?))
    }

    /// Lets go of the values `keep` refuses; a thread that holds one keeps its copy.
    fn retain(&self, mut keep: impl FnMut(&K, Option<&V>) -> bool) {
        self.slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|key, slot| keep(key, slot.get()));
    }
}

/// Unsaved texts by absolute path, read instead of the files on disk.
pub type UnsavedTexts = HashMap<PathBuf, Arc<str>>;

/// Where the dependencies of a chart are looked for beyond its own `charts/`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The repository's top (or, outside one, the folder the run covers): a chart
    /// of the dependency's name and version anywhere in it resolves it.
    pub top: Option<PathBuf>,
    /// `chart-paths` of `tether.toml`, absolute: folders of the repository holding
    /// charts that a build step uses (configuration refuses one outside it).
    pub chart_paths: Vec<PathBuf>,
}

impl Scope {
    /// The folder the files of the chart at `folder` must lie in, links followed:
    /// the repository's top when the chart is in it, else the top of the
    /// repository holding the chart, else the chart's own folder.
    fn boundary(&self, folder: &Path) -> PathBuf {
        match &self.top {
            Some(top) if folder.starts_with(top) => top.clone(),
            _ => crate::paths::repository_top(folder).unwrap_or_else(|| folder.to_path_buf()),
        }
    }
}

/// What a file is to its chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Under the chart's `templates/`.
    Template,
    /// The chart's `values.yaml`.
    Values,
}

/// Where a chart lies.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Location {
    Folder(PathBuf),
    /// A chart folder (`common/`) inside an archive; `key` names the archive in
    /// [`Charts::archives`] (its path, or the path of the archive holding it joined
    /// with its name inside).
    Archive {
        key: PathBuf,
        prefix: String,
    },
}

impl Location {
    /// The chart's identity in the run, and the root its files are named under.
    fn root(&self) -> PathBuf {
        match self {
            Location::Folder(folder) => folder.clone(),
            Location::Archive { key, prefix } => key.join(prefix.trim_end_matches('/')),
        }
    }
}

impl Charts {
    /// The charts of a run that reads `overlay`'s texts instead of those files, and
    /// takes what a template read from `memo` when its bytes are those it was read
    /// from.
    pub fn with_overlay(overlay: Arc<UnsavedTexts>, memo: Arc<ReadsMemo>) -> Charts {
        Charts {
            overlay: Some(overlay),
            memo: Some(memo),
            ..Charts::default()
        }
    }

    /// The chart a file belongs to and what it is there, if it is a template or the
    /// `values.yaml` of a chart (a folder with a `Chart.yaml`).
    pub fn of(self: &Arc<Self>, absolute: &Path, scope: &Scope) -> Option<(Arc<Chart>, Role)> {
        let (root, role) = chart_root(absolute)?;
        Some((self.chart(&root, scope)?, role))
    }

    /// Lets go of the charts in `folder` and below (and the archives there), once
    /// the run has checked their files: a run's memory then follows the largest
    /// chart tree, not the repository. A library chart is kept, for the charts
    /// that use it later. A chart asked for again is read again.
    pub fn release_under(&self, folder: &Path) {
        self.charts.retain(|root, chart| {
            !root.starts_with(folder)
                || chart.is_some_and(|chart| chart.as_ref().is_some_and(|chart| chart.library))
        });
        self.archives.retain(|path, archive| {
            let keep = !path.starts_with(folder);
            if let (false, Some(Ok(archive))) = (keep, archive) {
                let size: usize = archive.files.iter().map(|(_, bytes)| bytes.len()).sum();
                self.archive_bytes
                    .fetch_sub(size, std::sync::atomic::Ordering::Relaxed);
            }
            keep
        });
    }

    /// Lets go of the chart in the folder `root`, a library chart included: once
    /// no tree left to check searches it. A chart asked for again is read again.
    pub fn release_chart(&self, root: &Path) {
        self.charts.retain(|folder, _| folder != root);
    }

    /// The chart in the folder `root` if the run read it already.
    pub fn read_already(&self, root: &Path) -> Option<Arc<Chart>> {
        self.charts.get(&root.to_path_buf()).flatten()
    }

    /// The chart in the folder `root`, read on first use.
    pub fn chart(self: &Arc<Self>, root: &Path, scope: &Scope) -> Option<Arc<Chart>> {
        self.at(&Location::Folder(root.to_path_buf()), scope)
    }

    fn at(self: &Arc<Self>, location: &Location, scope: &Scope) -> Option<Arc<Chart>> {
        let mut made = false;
        let chart = self.charts.get_or_init(location.root(), || {
            made = true;
            Chart::read(location, self, scope).map(Arc::new)
        });
        // The listing's text of its `Chart.yaml` goes once the chart is there to
        // be found instead: a chart read meanwhile on another thread, whose
        // `charts/` holds this one, needed it for the name (it does not wait for
        // a chart being read).
        if made && self.overlay.is_none() && matches!(location, Location::Folder(_)) {
            self.listed_chart_yaml(&location.root().join("Chart.yaml"), true);
        }
        chart
    }

    /// The archive at `key`, read once; `load` gives its bytes.
    fn archive(
        &self,
        key: &Path,
        load: impl FnOnce() -> Result<Archive, String>,
    ) -> Result<Arc<Archive>, String> {
        self.archives.get_or_init(key.to_path_buf(), || {
            let archive = load()?;
            let size: usize = archive.files.iter().map(|(_, bytes)| bytes.len()).sum();
            let before = self
                .archive_bytes
                .fetch_add(size, std::sync::atomic::Ordering::Relaxed);
            if before + size > MAX_RUN_ARCHIVE_BYTES {
                return Err(format!(
                    "the run's chart archives unpack to more than {} MiB",
                    MAX_RUN_ARCHIVE_BYTES >> 20
                ));
            }
            Ok(Arc::new(archive))
        })
    }

    /// The charts under the scope's folders, by name, listed once per scope.
    fn repository(&self, scope: &Scope) -> Arc<Repository> {
        let folders: Vec<PathBuf> = scope
            .top
            .iter()
            .chain(&scope.chart_paths)
            .cloned()
            .collect();
        self.repositories.get_or_init(folders.clone(), || {
            let listings: Vec<Arc<ChartYamls>> = folders
                .iter()
                .map(|folder| self.chart_yamls(folder))
                .collect();
            Arc::new(Repository::of(&listings))
        })
    }

    /// The manifest of the `Chart.yaml` at `path` when a listing of the run read
    /// it, its text no longer than `max_bytes`, and no chart took it yet, without a
    /// copy of the text: `Some(None)` when the chart graph's bounds refuse it.
    pub(crate) fn listed_manifest(
        &self,
        path: &Path,
        max_bytes: usize,
    ) -> Option<Option<Arc<Manifest>>> {
        self.chart_yamls.find_map(|folder, listing| {
            path.starts_with(folder)
                .then(|| listing.manifest(path, max_bytes))
                .flatten()
        })
    }

    /// The text of the `Chart.yaml` at `path`, the hash of its bytes and its
    /// manifest, when a listing of the run read it and no chart took it yet; handed
    /// over once when `take` (to the chart graph, which hands it to the check), else
    /// left there (a parent reads its vendored charts' names before they are read).
    pub(crate) fn listed_chart_yaml(
        &self,
        path: &Path,
        take: bool,
    ) -> Option<crate::analysis::chart_yamls::ListedChartYaml> {
        self.chart_yamls.find_map(|folder, listing| {
            path.starts_with(folder)
                .then(|| listing.listed(path, take))
                .flatten()
        })
    }

    /// The `Chart.yaml` files under `folder`, listed and read once per run: the
    /// resolver takes a repository's pins from the same listing.
    pub fn chart_yamls(&self, folder: &Path) -> Arc<ChartYamls> {
        self.chart_yamls.get_or_init(folder.to_path_buf(), || {
            Arc::new(super::chart_yamls::list(
                folder,
                self.memo.as_deref().map(ReadsMemo::chart_yamls),
            ))
        })
    }
}

/// The chart root of a template or values file.
fn chart_root(absolute: &Path) -> Option<(PathBuf, Role)> {
    let parent = absolute.parent()?;
    if absolute.file_name()? == "values.yaml" && is_chart(parent) {
        return Some((parent.to_path_buf(), Role::Values));
    }
    let templates = absolute
        .ancestors()
        .skip(1)
        .find(|folder| folder.file_name().is_some_and(|name| name == "templates"))?;
    let root = templates.parent()?;
    is_chart(root).then(|| (root.to_path_buf(), Role::Template))
}

/// Whether `folder` holds a `Chart.yaml` that is a regular file (a link is not
/// followed).
pub(crate) fn is_chart(folder: &Path) -> bool {
    folder
        .join("Chart.yaml")
        .symlink_metadata()
        .is_ok_and(|metadata| metadata.is_file())
}

/// One chart: its manifest, its values and where its dependencies lie.
#[derive(Debug)]
pub struct Chart {
    /// The chart's folder (for a chart in an archive: the archive's path joined
    /// with the chart's folder inside it).
    pub root: PathBuf,
    location: Location,
    /// The folder its files must lie in ([`Scope::boundary`]): a link that leads
    /// out of it is not followed.
    boundary: PathBuf,
    archive: Option<Arc<Archive>>,
    pub manifest: Manifest,
    /// What `values.yaml` holds, parsed on first use ([`Chart::values_read`]).
    values: OnceLock<ValuesRead>,
    /// What reading `values.yaml` gave when it is not in [`Chart::handed`] (not
    /// text, or the chart is not on disk), until the values are parsed.
    values_source: Mutex<Option<Read>>,
    /// `type: library`.
    pub library: bool,
    /// The declared dependencies, each resolved, then the charts under `charts/`
    /// that no declaration names (Helm renders those too).
    pub dependencies: Vec<ResolvedDependency>,
    /// What kept tether from reading the chart whole (a `Chart.yaml` it cannot
    /// parse, an archive read in part), a `values.yaml` it cannot parse or that is
    /// too large aside ([`Chart::problems`]): shown in [`Chart::partial`], and the
    /// value rules stay quiet where they depend on it.
    problems: Vec<String>,
    /// Where in `problems` the problem of `values.yaml`, found when it is
    /// parsed, goes.
    values_problem_at: usize,
    /// `Chart.yaml` could not be read: the values rules skip the chart.
    chart_yaml_unreadable: bool,
    /// The archives under `charts/` that could not be read, and why: what they
    /// define is unknown.
    unread_archives: Vec<String>,
    /// Over `values.yaml`, `Chart.yaml`, `requirements.yaml` and where each
    /// dependency was found.
    pub fingerprint: u64,
    scope: Scope,
    /// The run's charts, where dependencies are found (the run holds them; a chart
    /// does not keep them alive).
    charts: std::sync::Weak<Charts>,
    /// The chart whose `charts/` folder holds this one, found once: its folder,
    /// and the chart without keeping it alive (a parent's analysis holds its
    /// subcharts, so a subchart holding its parent would keep both alive); a run
    /// that let the parent go looks it up again by its folder.
    parent: OnceLock<Option<(PathBuf, std::sync::Weak<Chart>)>>,
    texts: OnceLock<Texts>,
    scan: OnceLock<Scan>,
    analysis: OnceLock<Analysis>,
    /// Its defines in the parts their root-context calls make (`closures.rs`).
    parts: OnceLock<Parts>,
    content: OnceLock<u64>,
    files: OnceLock<ChartFiles>,
    /// The named templates its rendering can call (`defines.rs`).
    define_index: OnceLock<Arc<DefineIndex>>,
    /// The charts that index is over, and a fingerprint of them found without
    /// lexing (`defines.rs`).
    graph: OnceLock<Arc<names::Graph>>,
    /// The run's unsaved texts (see [`Charts::with_overlay`]).
    overlay: Option<Arc<UnsavedTexts>>,
    /// The texts of `Chart.yaml` and `values.yaml` as the chart was read from
    /// them, until the check of each takes it ([`Chart::take_text`]).
    handed: Mutex<HashMap<PathBuf, (String, u64)>>,
}

/// A chart's files tether reads, listed once: those under `templates/`, the
/// others, and the folders and entries that could not be listed, with why (what
/// they hold is unknown, so the chart is read in part).
#[derive(Debug, Default)]
pub(super) struct ChartFiles {
    pub templates: Vec<PathBuf>,
    pub others: Vec<PathBuf>,
    pub unreadable: Vec<(PathBuf, String)>,
}

/// A dependency and where it was found.
#[derive(Debug, Clone)]
pub struct ResolvedDependency {
    pub dependency: Dependency,
    /// Where the chart lies, when it was found.
    location: Option<Location>,
    /// How it was found, or why it was not.
    pub source: DependencySource,
}

/// How a dependency was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DependencySource {
    /// A folder under `charts/`.
    Vendored,
    /// An archive under `charts/` (`helm dependency build`).
    Archive(PathBuf),
    /// `repository: file://…`.
    FilePath(PathBuf),
    /// A chart of that name and version elsewhere in the repository or under
    /// `chart-paths`.
    Elsewhere(PathBuf),
    /// Not found: why.
    Missing(String),
    /// Under `charts/` (its folder or its archive), but not read: why.
    Unread(String),
}

impl ResolvedDependency {
    /// Whether the parent's values under `key` are this dependency's.
    fn keyed(&self, key: &str) -> bool {
        self.dependency.key() == key || self.dependency.name == key
    }
}

/// What a chart's own files read and define.
#[derive(Debug, Default)]
pub struct Scan {
    /// Whether the chart has templates at all (a chart without any reads nothing).
    pub has_templates: bool,
    /// The conditions and tags of the chart's dependencies, which read values.
    conditions: Vec<(Vec<String>, Use)>,
    /// What each file of the chart read (the `tpl` strings of `values.yaml`, each
    /// template, the files a template renders through `.Files`), in that order.
    files: Vec<Arc<FileScan>>,
    /// A template reads `.Values` by a computed key, or renders a file that is not
    /// there: what it reads is unknown. Where, and why.
    pub opaque: Option<(PathBuf, String)>,
    /// A template uses `.Values` whole (`toYaml .Values`): every value is read.
    /// Where, and how.
    pub everything: Option<(PathBuf, String)>,
    /// A template tether did not read (too large, not UTF-8), and why: what it
    /// defines is unknown.
    unread_template: Option<String>,
    /// The chart's named templates (shared with the define indexes of the charts
    /// that reach them).
    defines: Arc<HashMap<String, Arc<Define>>>,
    /// What each template reads, with the hash of the bytes it was found in: the
    /// check of that template takes it rather than reading the reads again.
    template_reads: HashMap<PathBuf, (u64, Arc<Reads>)>,
}

/// A chart's own files as read, before any is lexed ([`Chart::texts`]): enough to
/// say whether they changed (a cached run asks no more of an unchanged chart),
/// and what its [`Scan`] lexes.
#[derive(Debug, Default)]
pub(super) struct Texts {
    /// Each template, in listing order, as read.
    templates: Vec<(PathBuf, TemplateRead)>,
    /// The files outside `templates/` read because a template uses `.Files`, each
    /// with the hash of its bytes.
    others: Vec<(PathBuf, u64)>,
    /// A template uses `.Files` (it names it).
    uses_files: bool,
    /// The names of the links under the chart folder's `charts/` (not followed).
    links: Vec<String>,
    /// Over the bytes and names of the files read: what the chart's findings
    /// depend on besides its manifest and values.
    content: u64,
    /// The text of each file read of a chart folder, until the scan has lexed it
    /// and the check of that file takes it ([`Chart::take_text`]): a file is read
    /// once per run.
    texts: Mutex<HashMap<PathBuf, (String, u64)>>,
    /// The lexing of each template the scan lexed where it waits in `texts`,
    /// taken with its text by the template's check ([`Chart::take_checked_text`]):
    /// a template is lexed once per run.
    lexed: Mutex<HashMap<PathBuf, crate::template::lex::Lexed>>,
}

/// One template of [`Texts`].
#[derive(Debug)]
enum TemplateRead {
    /// Read: the hash of its bytes (its text is in [`Texts::texts`] until taken).
    Text(u64),
    /// Unchanged since an editor's memo found what it reads: not read again.
    Memo(u64, Arc<FileScan>),
    /// There, but not text tether reads: why.
    Unreadable(String),
}

/// What one file of a chart adds to the chart's [`Scan`], made once for its bytes
/// (and kept across an editor's changes in the [`ReadsMemo`]).
#[derive(Debug)]
struct FileScan {
    /// What the file reads, in and out of its defines, each once.
    reads: Vec<(Vec<String>, Use)>,
    /// Its calls of named templates, in and out of its defines.
    calls: Vec<Call>,
    /// The named templates it defines, in its order.
    defines: Vec<(String, Arc<Define>)>,
    /// The line of its first read of `.Values` by a key computed at render time.
    computed: Option<usize>,
    /// The line of its first use of `.Values` whole.
    whole: Option<usize>,
    /// The files it renders with `tpl` by name.
    rendered: Vec<String>,
    /// It uses `.Files`.
    uses_files: bool,
    /// What it reads, as the lexer found it: the check of a template takes it.
    found: Arc<Reads>,
}

/// A call of a named template, as the analysis follows it.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    /// The argument carries the root context.
    root: bool,
    literals: Vec<String>,
    /// What the argument holds of values; inside a define, in terms of what the
    /// define was handed.
    argument: Arg,
}

/// A named template: what its body reads of the values of the context it is
/// given, and what it calls.
#[derive(Debug, Default, Clone)]
struct Define {
    reads: Vec<(Vec<String>, Use)>,
    /// What its body reads of what it is handed, other than through `.Values`
    /// (`.values.env`): resolved at each call.
    handed: Vec<(Vec<String>, Use)>,
    calls: Vec<Call>,
    /// Where it uses `.Values` whole (file and line).
    whole: Option<(PathBuf, usize)>,
    /// It replaces the root's values with a merge (`set . "Values" …`).
    sets_values: bool,
}

/// What following a chart's defines from the root context reaches
/// (`closures.rs`): one strongly connected part of a chart's root-context calls.
#[derive(Debug, Default)]
struct Part {
    /// What its defines read, as the root context's values, and read of what
    /// they are handed (the root context); sorted, each once.
    reads: Vec<(Vec<String>, Use)>,
    /// The same, indexed for `unused-value`.
    used: values::OwnedUsed,
    /// The first of its defines (by name) that uses `.Values` whole: its name,
    /// file and line.
    whole: Option<(String, PathBuf, usize)>,
    /// The first of its defines (by name) that uses whole what it is handed.
    handed_whole: Option<String>,
    /// One of its defines merges into the root's values.
    sets_values: bool,
    /// The string literals of the calls between its defines.
    literals: Vec<String>,
    /// The calls that leave it: to a define of another chart, or with another
    /// argument than the root context, each with what it hands and whether that
    /// holds the root; followed by the calling chart, in its namespace.
    exits: Vec<(Call, crate::template::reads::Arg, bool)>,
    /// The parts its calls reach, by index.
    next: Vec<usize>,
}

/// A chart's defines in parts.
#[derive(Debug, Default)]
struct Parts {
    /// Each define's part, by name.
    part_of: HashMap<String, usize>,
    parts: Vec<Arc<Part>>,
}

/// A chart's reads with the defines it reaches in its dependencies.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Every path the chart's rendering reads.
    pub reads: Vec<(Vec<String>, Use)>,
    /// Why what the chart reads cannot be known (a computed key, a file rendered
    /// that is not there).
    pub opaque: Option<String>,
    /// Why every value counts as read (`.Values` printed whole).
    pub everything: Option<String>,
    /// Named templates called with the root context that no chart tether read
    /// defines: they may read any value.
    pub unknown: Vec<String>,
    /// Dependencies whose values a reached define merges into the chart's.
    merged: Vec<Arc<Chart>>,
    /// Library charts of the repository read for defines no dependency has.
    libraries: Vec<Arc<Chart>>,
    /// The parts of other charts' defines the chart's calls reach with the root
    /// context, shared with every chart that reaches them: their reads are the
    /// chart's reads too ([`Analysis::used`]).
    shared: Vec<Arc<Part>>,
}

/// A chart file, read.
#[derive(Debug)]
enum Read {
    Text(String, u64),
    Absent,
    /// There, but not text tether reads: why.
    Unreadable(String),
}

impl Read {
    /// A file of a chart folder: a regular file inside `boundary` (the
    /// repository), its links followed, read as UTF-8 text of at most `limit`
    /// bytes. A file whose link leads out of the repository is not read, and said
    /// so, the same whether or not its target exists: the value rules would
    /// otherwise tell, key by key, what a file anywhere on the machine holds.
    fn in_folder(path: &Path, boundary: &Path, limit: usize) -> Read {
        Read::in_folder_with_metadata(path, boundary, limit).0
    }

    /// [`Read::in_folder`], with the metadata of the file read when it was read.
    fn in_folder_with_metadata(
        path: &Path,
        boundary: &Path,
        limit: usize,
    ) -> (Read, Option<std::fs::Metadata>) {
        use crate::source::Unconfined;
        match crate::source::read_confined(path, boundary, limit) {
            Ok((bytes, metadata)) => (Read::of_bytes(bytes, limit), Some(metadata)),
            Err(Unconfined::Outside) => {
                let why = "leads outside the repository through a link, so tether does not read it";
                (Read::Unreadable(why.into()), None)
            }
            Err(Unconfined::Loop) => (Read::Unreadable("is a loop of symbolic links".into()), None),
            Err(Unconfined::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {
                (Read::Absent, None)
            }
            Err(Unconfined::Io(error)) => {
                (Read::Unreadable(format!("cannot be read: {error}")), None)
            }
        }
    }

    /// Bytes of a chart file as text, or why they are not.
    fn of_bytes(bytes: Vec<u8>, limit: usize) -> Read {
        if bytes.len() > limit {
            return Read::Unreadable(format!("is larger than {} KiB", limit / 1024));
        }
        let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
        match String::from_utf8(bytes) {
            Ok(text) => Read::Text(text, hash),
            Err(_) => Read::Unreadable("is not UTF-8".into()),
        }
    }
}

#[cfg(test)]
mod tests;
