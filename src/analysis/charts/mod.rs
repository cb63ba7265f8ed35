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

mod archive;
mod defines;
mod manifest;
pub(crate) mod names;
mod repository;
pub(crate) mod values;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

pub use archive::Archive;
pub use manifest::{Dependency, Manifest};
pub use values::{Keys, guarded};

use crate::analysis::chart_yamls::ChartYamls;
use crate::analysis::small_yaml;
use crate::cache_key::CacheKey;
use crate::template::reads::{Opacity, Reads, Use};
use manifest::split_path;
use names::DefineIndex;
use repository::Repository;
use values::{Used, commented_names, missing_in, unused_under};

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
    overlay: Option<Arc<Overlay>>,
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
            slots: Mutex::new(HashMap::new()),
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
}

/// Unsaved texts by absolute path, read instead of the files on disk.
pub type Overlay = HashMap<PathBuf, Arc<str>>;

/// A chart's name and version, as a dependency matches them.
type NameVersion = (String, Option<String>);

/// Where the dependencies of a chart are looked for beyond its own `charts/`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The repository's top (or, outside one, the folder the run covers): a chart
    /// of the dependency's name and version anywhere in it resolves it.
    pub top: Option<PathBuf>,
    /// `chart-paths` of `tether.toml`, absolute: folders holding charts kept in
    /// another checkout.
    pub chart_paths: Vec<PathBuf>,
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
    /// The charts of a run that reads `overlay`'s texts instead of those files.
    pub fn with_overlay(overlay: Arc<Overlay>) -> Charts {
        Charts {
            overlay: Some(overlay),
            ..Charts::default()
        }
    }

    /// The chart a file belongs to and what it is there, if it is a template or the
    /// `values.yaml` of a chart (a folder with a `Chart.yaml`).
    pub fn of(self: &Arc<Self>, absolute: &Path, scope: &Scope) -> Option<(Arc<Chart>, Role)> {
        let (root, role) = chart_root(absolute)?;
        Some((self.chart(&root, scope)?, role))
    }

    /// The chart in the folder `root`, read on first use.
    pub fn chart(self: &Arc<Self>, root: &Path, scope: &Scope) -> Option<Arc<Chart>> {
        self.at(&Location::Folder(root.to_path_buf()), scope)
    }

    fn at(self: &Arc<Self>, location: &Location, scope: &Scope) -> Option<Arc<Chart>> {
        self.charts.get_or_init(location.root(), || {
            Chart::read(location, self, scope).map(Arc::new)
        })
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

    /// The `Chart.yaml` files under `folder`, listed and read once per run: the
    /// resolver takes a repository's pins from the same listing.
    pub fn chart_yamls(&self, folder: &Path) -> Arc<ChartYamls> {
        self.chart_yamls.get_or_init(folder.to_path_buf(), || {
            Arc::new(crate::analysis::chart_yamls::list(folder))
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

fn is_chart(folder: &Path) -> bool {
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
    archive: Option<Arc<Archive>>,
    pub manifest: Manifest,
    /// The keys of `values.yaml`.
    pub values: Keys,
    /// Names of keys written in comments (`# name: …`), left out on purpose.
    pub commented: HashSet<String>,
    /// `type: library`.
    pub library: bool,
    /// The declared dependencies, each resolved, then the charts under `charts/`
    /// that no declaration names (Helm renders those too).
    pub dependencies: Vec<Resolved>,
    /// What `values.yaml` reads itself (`tpl` strings), read with the values.
    values_reads: Reads,
    /// What kept tether from reading the chart whole (a `values.yaml` it cannot
    /// parse or that is too large, an archive read in part): shown in
    /// [`Chart::partial`], and the value rules stay quiet where they depend on it.
    problems: Vec<String>,
    /// Whether the values themselves could not be read.
    values_unreadable: bool,
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
    /// The chart whose `charts/` folder holds this one, found once.
    parent: OnceLock<Option<Arc<Chart>>>,
    scan: OnceLock<Scan>,
    analysis: OnceLock<Analysis>,
    content: OnceLock<u64>,
    files: OnceLock<(Vec<PathBuf>, Vec<PathBuf>)>,
    /// The named templates its rendering can call (`defines.rs`).
    define_index: OnceLock<Arc<DefineIndex>>,
    /// The run's unsaved texts (see [`Charts::with_overlay`]).
    overlay: Option<Arc<Overlay>>,
}

/// A dependency and where it was found.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub dependency: Dependency,
    /// Where the chart lies, when it was found.
    location: Option<Location>,
    /// How it was found, or why it was not.
    pub source: Source,
}

/// How a dependency was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
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
}

impl Resolved {
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
    /// Every read of every file of the chart (templates and their defines, `files/`
    /// when a template uses `.Files`, `tpl` strings of `values.yaml`), with the
    /// conditions of `Chart.yaml`.
    pub reads: Vec<(Vec<String>, Use)>,
    /// A template uses `.Values` whole or by a computed key, or renders a file
    /// that is not there: what it reads is unknown. Where, and why.
    pub opaque: Option<(PathBuf, String)>,
    /// Every call of a named template in the chart's files.
    calls: Vec<Call>,
    /// A template tether did not read (too large, not UTF-8), and why: what it
    /// defines is unknown.
    unread_template: Option<String>,
    /// The chart's named templates.
    defines: HashMap<String, Arc<Define>>,
    /// Over the bytes and names of the files read: what the chart's findings
    /// depend on besides its manifest and values.
    content: u64,
    /// What each template reads, with the hash of the bytes it was found in: the
    /// check of that template takes it rather than reading the reads again.
    template_reads: HashMap<PathBuf, (u64, Arc<Reads>)>,
    /// The text of each template of a chart folder, as read for the scan, until the
    /// check of that template takes it ([`Chart::take_text`]): a file is read once
    /// per run.
    texts: Mutex<HashMap<PathBuf, (String, u64)>>,
}

/// A call of a named template, as the analysis follows it.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    /// The argument carries the root context.
    root: bool,
    literals: Vec<String>,
}

/// A named template: what its body reads of the values of the context it is
/// given, and what it calls.
#[derive(Debug, Default)]
struct Define {
    reads: Vec<(Vec<String>, Use)>,
    calls: Vec<Call>,
    /// Where it uses `.Values` whole (file and line).
    whole: Option<(PathBuf, usize)>,
    /// It replaces the root's values with a merge (`set . "Values" …`).
    sets_values: bool,
}

/// A chart's reads with the defines it reaches in its dependencies.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Every path the chart's rendering reads.
    pub reads: Vec<(Vec<String>, Use)>,
    /// Why what the chart reads cannot be known (`.Values` used whole).
    pub opaque: Option<String>,
    /// Named templates called with the root context that no chart tether read
    /// defines: they may read any value.
    pub unknown: Vec<String>,
    /// Dependencies whose values a reached define merges into the chart's.
    merged: Vec<Arc<Chart>>,
    /// Library charts of the repository read for defines no dependency has.
    libraries: Vec<Arc<Chart>>,
}

/// A chart's `Chart.yaml`, and why it could not be read when it could not. A
/// `Chart.yaml` tether cannot read still makes its folder a chart (Helm would refuse
/// it, or read it where tether's limits stop): said, and the values rules skip the
/// chart, since its dependencies are unknown.
fn chart_yaml_of(text: &str) -> (small_yaml::Node, Option<String>) {
    match small_yaml::parse_bounded(text, MAX_NODES, 64) {
        Ok(node) => (node, None),
        Err((line, why)) => (
            small_yaml::Node {
                value: small_yaml::Value::Map(Vec::new()),
                line: 1,
            },
            Some(format!(
                "Chart.yaml is not read past line {line}: {why}; its dependencies are not known"
            )),
        ),
    }
}

/// A chart's `values.yaml` as `read` found it: its text, its hash, its keys, and
/// why it could not be read whole, when it could not.
fn values_of(read: Read) -> (String, u64, Keys, Option<String>) {
    let mut problem = None;
    let (text, hash) = match read {
        Read::Text(text, hash) => (text, hash),
        Read::Absent => (String::new(), 0),
        Read::Unreadable(why) => {
            problem = Some(format!("values.yaml {why}"));
            (String::new(), 0)
        }
    };
    let keys = match small_yaml::parse_bounded(&text, MAX_NODES, 128) {
        Ok(node) => Keys::of(&node),
        Err((line, why)) => {
            problem = Some(format!("values.yaml is not read past line {line}: {why}"));
            Keys::Open
        }
    };
    (text, hash, keys, problem)
}

impl Chart {
    fn read(location: &Location, charts: &Arc<Charts>, scope: &Scope) -> Option<Chart> {
        let root = location.root();
        let mut problems = Vec::new();
        let archive = match location {
            Location::Folder(_) => None,
            Location::Archive { key, .. } => {
                let archive = charts.archive(key, || Err(String::new())).ok()?;
                if let Some(why) = &archive.incomplete {
                    problems.push(format!(
                        "{} was read only in part ({why}): what its templates left out read is unknown",
                        key.display()
                    ));
                }
                Some(archive)
            }
        };
        let overlay = charts.overlay.clone();
        let read = |name: &str| {
            read_chart_file(
                archive.as_deref(),
                overlay.as_deref(),
                location,
                name,
                MAX_VALUES_BYTES,
            )
        };
        let (chart_text, chart_hash) = match read("Chart.yaml") {
            Read::Text(text, hash) => (text, hash),
            Read::Absent | Read::Unreadable(_) => return None,
        };
        let (chart_yaml, chart_problem) = chart_yaml_of(&chart_text);
        let (values_text, values_hash, values, values_problem) = values_of(read("values.yaml"));
        let values_unreadable = values_problem.is_some() || chart_problem.is_some();
        problems.extend(chart_problem);
        problems.extend(values_problem);
        // Its reads count; its calls do not: `{{ include … }}` in a values file
        // is most often an example in a comment, and a call of a define no chart
        // has would make the chart partial.
        let mut values_reads = lex_reads(&values_text);
        values_reads.includes.clear();
        let requirements = match read("requirements.yaml") {
            Read::Text(text, hash) => Some((text, hash)),
            _ => None,
        };
        let requirements_yaml = requirements
            .as_ref()
            .and_then(|(text, _)| small_yaml::parse_bounded(text, MAX_NODES, 64).ok());
        let manifest = Manifest::of(&chart_yaml, requirements_yaml.as_ref());
        let nesting = root
            .components()
            .filter(|component| component.as_os_str() == "charts")
            .count();
        let mut unread_archives = Vec::new();
        let mut dependencies = if nesting < MAX_NESTING {
            let (dependencies, unread) =
                resolve_dependencies(&manifest, location, archive.as_deref(), charts, scope);
            problems.extend(unread.iter().cloned());
            unread_archives = unread;
            dependencies
        } else {
            Vec::new()
        };
        dependencies.truncate(MAX_REACHED_CHARTS);
        let mut key = CacheKey::new("chart")
            .part("values", values_hash)
            .part("manifest", chart_hash)
            .optional("requirements", requirements.map(|(_, hash)| hash));
        for resolved in &dependencies {
            key.add_bytes("dependency", format!("{:?}", resolved.source).as_bytes());
        }
        let fingerprint = key.finish();
        Some(Chart {
            root,
            location: location.clone(),
            archive,
            library: manifest.library,
            manifest,
            values,
            commented: commented_names(&values_text),
            dependencies,
            values_reads,
            problems,
            values_unreadable,
            unread_archives,
            fingerprint,
            scope: scope.clone(),
            charts: Arc::downgrade(charts),
            parent: OnceLock::new(),
            scan: OnceLock::new(),
            analysis: OnceLock::new(),
            content: OnceLock::new(),
            files: OnceLock::new(),
            define_index: OnceLock::new(),
            overlay,
        })
    }

    /// The chart's name for messages: `name` of `Chart.yaml`, else its folder.
    pub fn name(&self) -> String {
        self.manifest.name.clone().unwrap_or_else(|| {
            self.root
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
    }

    /// A dependency's chart, when it was found.
    fn dependency_chart(&self, resolved: &Resolved) -> Option<Arc<Chart>> {
        self.charts
            .upgrade()?
            .at(resolved.location.as_ref()?, &self.scope)
    }

    /// The chart's files under `templates/`, and the others, listed once.
    fn files(&self) -> &(Vec<PathBuf>, Vec<PathBuf>) {
        self.files.get_or_init(|| {
            let templates = self.root.join("templates");
            let files = match &self.archive {
                None => chart_files(&self.root),
                Some(archive) => {
                    let prefix = match &self.location {
                        Location::Archive { prefix, .. } => prefix.as_str(),
                        Location::Folder(_) => "",
                    };
                    archive_files(archive, prefix, &self.root)
                }
            };
            files
                .into_iter()
                .partition(|file| file.starts_with(&templates))
        })
    }

    /// The text of one of the chart's files (`path` under [`Chart::root`]).
    fn text_of(&self, path: &Path) -> Option<(String, u64)> {
        match self.read_file(path) {
            Read::Text(text, hash) => Some((text, hash)),
            Read::Absent | Read::Unreadable(_) => None,
        }
    }

    /// One of the chart's files (`path` under [`Chart::root`]), or why it is not
    /// text tether reads.
    fn read_file(&self, path: &Path) -> Read {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return Read::Absent;
        };
        read_chart_file(
            self.archive.as_deref(),
            self.overlay.as_deref(),
            &self.location,
            &crate::paths::slashed(relative),
            MAX_FILE_BYTES as usize,
        )
    }

    /// Whether `path` is one of the chart's files tether reads.
    fn has_file(&self, path: &Path) -> bool {
        let (templates, others) = self.files();
        templates
            .binary_search_by(|file| file.as_path().cmp(path))
            .is_ok()
            || others
                .binary_search_by(|file| file.as_path().cmp(path))
                .is_ok()
    }

    /// What the chart's own files read and define, read on first use.
    pub fn scan(&self) -> &Scan {
        self.scan.get_or_init(|| self.read_files())
    }

    /// What the chart's files read and define: the conditions and tags of its
    /// dependencies, the `tpl` strings of `values.yaml`, every template, and the
    /// other files when a template uses `.Files`.
    fn read_files(&self) -> Scan {
        let mut scan = Scan::default();
        for dependency in &self.manifest.dependencies {
            scan.reads.extend(
                dependency
                    .conditions
                    .iter()
                    .map(|path| (path.clone(), Use::Touch)),
            );
            scan.reads.extend(
                dependency
                    .tags
                    .iter()
                    .map(|tag| (vec!["tags".to_string(), tag.clone()], Use::Touch)),
            );
        }
        // `tpl` strings of values.yaml read values too.
        self.add_found(
            &self.root.join("values.yaml"),
            "",
            &self.values_reads,
            &mut scan,
        );
        let (in_templates, others) = self.files();
        scan.has_templates = !in_templates.is_empty();
        // Files outside `templates/` are rendered only through `.Files`: read them
        // only when a template uses it.
        let mut uses_files = false;
        // Over the names and bytes of the files read, in listing order.
        let mut content = CacheKey::new("chart-files");
        for file in in_templates.iter() {
            uses_files |= self.read_template(file, &mut scan, &mut content);
        }
        if uses_files {
            for file in others.iter() {
                if let Some((text, hash)) = self.text_of(file) {
                    content.add_bytes("file", file.as_os_str().as_encoded_bytes());
                    content.add("bytes", hash);
                    self.add_found(file, &text, &lex_reads(&text), &mut scan);
                }
            }
        }
        scan.content = content.finish();
        // Charts read the same values in many places: keep each once.
        scan.reads.sort_unstable();
        scan.reads.dedup();
        scan.reads.shrink_to_fit();
        scan
    }

    /// Reads one template of the chart into `scan`, and its name and bytes into
    /// `content`: what it reads, calls and defines, and, in a chart folder, its text,
    /// which the check of that template takes instead of reading it again. Returns
    /// whether it uses `.Files`.
    fn read_template(&self, file: &Path, scan: &mut Scan, content: &mut CacheKey) -> bool {
        let (text, hash) = match self.read_file(file) {
            Read::Text(text, hash) => (text, hash),
            Read::Absent => return false,
            // A template tether cannot read may read any value: the limit is
            // said, never taken for "reads nothing".
            Read::Unreadable(why) => {
                if scan.unread_template.is_none() {
                    scan.unread_template = Some(format!("{} {why}", self.shown(file)));
                }
                if scan.opaque.is_none() {
                    scan.opaque = Some((
                        file.to_path_buf(),
                        format!("{why}, which tether does not read"),
                    ));
                }
                return false;
            }
        };
        content.add_bytes("template", file.as_os_str().as_encoded_bytes());
        content.add("bytes", hash);
        let uses_files = text.contains(".Files");
        let found = lex_reads(&text);
        self.add_found(file, &text, &found, scan);
        scan.template_reads
            .insert(file.to_path_buf(), (hash, Arc::new(found)));
        if matches!(self.location, Location::Folder(_)) {
            scan.texts
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(file.to_path_buf(), (text, hash));
        }
        uses_files
    }

    /// Adds what one file of the chart reads, calls and defines (`found`, from
    /// `text`) to `scan`, each read and call also to the define it is in.
    fn add_found(&self, path: &Path, text: &str, found: &Reads, scan: &mut Scan) {
        self.note_opaque(path, text, found, scan);
        let mut defines: Vec<Define> = found.defines.iter().map(|_| Define::default()).collect();
        for read in &found.reads {
            let entry = (read.path.clone(), read.use_);
            if let Some(define) = define_at(&mut defines, read.define) {
                define.reads.push(entry.clone());
            }
            scan.reads.push(entry);
        }
        for include in &found.includes {
            let call = Call {
                name: include.name.clone(),
                root: include.root,
                literals: include.literals.clone(),
            };
            if let Some(define) = define_at(&mut defines, include.define) {
                define.calls.push(call.clone());
            }
            scan.calls.push(call);
        }
        for used in &found.opaque_uses {
            if used.kind == Opacity::Whole {
                if let Some(define) = define_at(&mut defines, used.define) {
                    let line = line_of(text, used.offset);
                    define.whole.get_or_insert((path.to_path_buf(), line));
                }
            }
        }
        for &at in &found.sets_values {
            if let Some(define) = define_at(&mut defines, at) {
                define.sets_values = true;
            }
        }
        for (name, define) in found.defines.iter().zip(defines) {
            define_once(&mut scan.defines, name.clone(), define);
        }
    }

    /// Makes `scan` opaque, unless it is already, when the file at `path` makes what
    /// the chart reads unknown: a template that uses `.Values` whole or by a computed
    /// key, or a file that renders a file of the chart tether did not find.
    fn note_opaque(&self, path: &Path, text: &str, found: &Reads, scan: &mut Scan) {
        let in_templates = path.starts_with(self.root.join("templates"));
        // Outside `templates/`, a file is rendered only if a template hands it to
        // `tpl`: its reads count, its whole uses of `.Values` do not.
        if in_templates && scan.opaque.is_none() {
            if let Some(offset) = found.opaque {
                scan.opaque = Some((
                    path.to_path_buf(),
                    format!(
                        "uses `.Values` whole or by a computed key at line {}",
                        line_of(text, offset)
                    ),
                ));
            }
        }
        // A file a template renders that is not there: what it reads is unknown.
        for name in &found.files {
            let inside = Path::new(name)
                .components()
                .all(|component| matches!(component, std::path::Component::Normal(_)));
            if inside && scan.opaque.is_none() && !self.has_file(&self.root.join(name)) {
                scan.opaque = Some((
                    path.to_path_buf(),
                    format!("renders `{name}` through `.Files`, which tether cannot read"),
                ));
            }
        }
    }

    /// The text of the template at `path` as the chart's scan read it, with the
    /// hash of its bytes, handed over once (the check takes it instead of reading
    /// and hashing the file again); `None` when the scan has not run, did not read
    /// it, or it was taken.
    pub fn take_text(&self, path: &Path) -> Option<(String, u64)> {
        self.scan
            .get()?
            .texts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(path)
    }

    /// What the template at `path` reads, as the scan found it in bytes whose hash
    /// is `hash`; `None` when it read other bytes (or none).
    pub fn template_reads(&self, path: &Path, hash: u64) -> Option<Arc<Reads>> {
        let (found_in, found) = self.scan().template_reads.get(path)?;
        (*found_in == hash).then(|| found.clone())
    }

    /// The chart's reads with the named templates it reaches in its dependencies,
    /// made on first use.
    pub fn analysis(&self) -> &Analysis {
        self.analysis.get_or_init(|| self.analyse())
    }

    /// The chart's reads with those of the defines it calls in the charts it
    /// reaches, followed call by call from its own files' calls.
    fn analyse(&self) -> Analysis {
        let scan = self.scan();
        let mut analysis = Analysis {
            reads: scan.reads.clone(),
            ..Analysis::default()
        };
        if let Some((file, why)) = &scan.opaque {
            analysis.opaque = Some(format!("{} {why}", self.shown(file)));
        }
        let mut namespace = self.reached_defines();
        let mut libraries_read = false;
        // Defines a declared dependency would bring are its, not a library's.
        let declared_missing = self
            .dependencies
            .iter()
            .any(|resolved| matches!(resolved.source, Source::Missing(_)));
        let mut queue: VecDeque<Call> = scan.calls.iter().cloned().collect();
        let mut visited: HashSet<String> = HashSet::new();
        let mut literals: Vec<String> = Vec::new();
        while let Some(call) = queue.pop_front() {
            literals.extend(call.literals.iter().cloned());
            // A define of the chart's own: its reads are the chart's already.
            if !call.root || scan.defines.contains_key(&call.name) {
                continue;
            }
            if !visited.insert(call.name.clone()) {
                continue;
            }
            // Not in any dependency: a library chart of the repository that
            // defines it, which a build step puts under `charts/` (no chart
            // renders without the defines it calls).
            if !namespace.contains_key(&call.name) && !libraries_read && !declared_missing {
                libraries_read = true;
                for chart in self.repository_libraries() {
                    add_defines(&mut namespace, &chart);
                    analysis.libraries.push(chart);
                }
            }
            match namespace.get(&call.name) {
                Some((define, chart)) => {
                    analysis.reads.extend(define.reads.iter().cloned());
                    if let (Some((file, line)), None) = (&define.whole, &analysis.opaque) {
                        analysis.opaque = Some(format!(
                            "`{}` of chart `{}` ({}) uses `.Values` whole at line {line}",
                            call.name,
                            chart.name(),
                            self.shown(file)
                        ));
                    }
                    if define.sets_values
                        && !analysis
                            .merged
                            .iter()
                            .any(|known| Arc::ptr_eq(known, chart))
                    {
                        analysis.merged.push(chart.clone());
                    }
                    queue.extend(define.calls.iter().cloned());
                }
                // A define no chart of a graph read whole has: Helm fails where
                // it is called (`undefined-template` says so), and it reads
                // nothing. Otherwise, a chart tether did not read may define it.
                None => {
                    let index = self.define_index();
                    if !matches!(index.lookup(&call.name), names::Lookup::Absent { .. }) {
                        analysis.unknown.push(call.name.clone());
                    }
                }
            }
        }
        analysis.reads.extend(self.literal_reads(&literals));
        analysis.unknown.sort();
        analysis.reads.sort_unstable();
        analysis.reads.dedup();
        analysis
    }

    /// Every named template of the charts the chart's rendering loads, nearest
    /// first: its dependencies, and (Helm renders a chart with its parents'
    /// templates loaded too, so a subchart may call its parents' defines and its
    /// siblings') each parent up to the top and the charts it reaches.
    fn reached_defines(&self) -> Namespace {
        let mut namespace = Namespace::new();
        let mut reached = self.reached_charts();
        let mut parent = self.parent_chart();
        let mut depth = 0;
        while let Some(chart) = parent {
            if depth >= MAX_NESTING {
                break;
            }
            depth += 1;
            parent = chart.parent_chart();
            let siblings = chart.reached_charts();
            reached.push(chart);
            reached.extend(siblings);
        }
        for chart in &reached {
            add_defines(&mut namespace, chart);
        }
        namespace
    }

    /// The reads of paths spelled as strings and handed to a helper
    /// (`"auth.password"`), which the helper reads. A lone word names a value only
    /// when it is no map: words such as `"crds"` or `"server"` name components far
    /// more often than the values a helper looks up.
    fn literal_reads(&self, literals: &[String]) -> Vec<(Vec<String>, Use)> {
        let mut reads = Vec::new();
        for literal in literals {
            let path = split_path(literal);
            let is_path = !path.is_empty()
                && literal
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'));
            let named = match self.values.at(&path) {
                Some(Keys::Map(_)) => path.len() > 1,
                Some(Keys::Open) => true,
                None => false,
            };
            if is_path && named {
                reads.push((path, Use::Whole));
            }
        }
        reads
    }

    /// The chart whose `charts/` folder holds this one.
    fn parent_chart(&self) -> Option<Arc<Chart>> {
        self.parent
            .get_or_init(|| {
                let Location::Folder(folder) = &self.location else {
                    return None;
                };
                let charts_folder = folder.parent()?;
                if charts_folder.file_name()? != "charts" {
                    return None;
                }
                let parent = charts_folder.parent()?;
                if !is_chart(parent) {
                    return None;
                }
                self.charts.upgrade()?.chart(parent, &self.scope)
            })
            .clone()
    }

    /// Whether the parent chart's values set `path` for this chart: under its
    /// folder's name, its `name` or an alias the parent gives it.
    fn parent_sets(&self, path: &[String]) -> bool {
        let Some(parent) = self.parent_chart() else {
            return false;
        };
        let folder = self
            .root
            .file_name()
            .map(|name| name.to_string_lossy().into_owned());
        let mut names: Vec<String> = folder
            .into_iter()
            .chain(self.manifest.name.clone())
            .collect();
        for dependency in &parent.manifest.dependencies {
            if names.contains(&dependency.name) {
                names.extend(dependency.alias.clone());
            }
        }
        names
            .iter()
            .filter_map(|name| parent.values.get(name))
            .any(|values| missing_in(values, path, &HashSet::new()).is_none())
    }

    /// The library charts of the chart's repository and `chart-paths`, bounded.
    fn repository_libraries(&self) -> Vec<Arc<Chart>> {
        let Some(charts) = self.charts.upgrade() else {
            return Vec::new();
        };
        if self.scope.top.is_none() && self.scope.chart_paths.is_empty() {
            return Vec::new();
        }
        let repository = charts.repository(&self.scope);
        repository
            .libraries()
            .filter(|folder| **folder != self.root)
            .take(MAX_REACHED_CHARTS)
            .filter_map(|folder| charts.chart(folder, &self.scope))
            .collect()
    }

    /// The charts this chart's dependencies reach, breadth first, itself left out,
    /// each once, bounded.
    fn reached_charts(&self) -> Vec<Arc<Chart>> {
        let mut reached: Vec<Arc<Chart>> = Vec::new();
        let mut seen: HashSet<PathBuf> = HashSet::from([self.root.clone()]);
        let mut queue: VecDeque<Arc<Chart>> = VecDeque::new();
        let mut visit =
            |from: &Chart, queue: &mut VecDeque<Arc<Chart>>, reached: &mut Vec<Arc<Chart>>| {
                for resolved in &from.dependencies {
                    if reached.len() >= MAX_REACHED_CHARTS {
                        return;
                    }
                    if let Some(chart) = from.dependency_chart(resolved) {
                        if seen.insert(chart.root.clone()) {
                            reached.push(chart.clone());
                            queue.push_back(chart);
                        }
                    }
                }
            };
        visit(self, &mut queue, &mut reached);
        while let Some(chart) = queue.pop_front() {
            visit(&chart, &mut queue, &mut reached);
        }
        reached
    }

    /// Whether this chart's findings may change with the files of the chart at
    /// `root`: it is this chart, a chart its dependencies reach, its parent (or the
    /// parent's parent), a library of the repository whose defines it may call, or
    /// another chart of its graph (a parent's other dependencies), whose defines
    /// `undefined-template` searches.
    pub fn depends_on(&self, root: &Path) -> bool {
        if self.root == root {
            return true;
        }
        let mut parent = self.parent_chart();
        while let Some(chart) = parent {
            if chart.root == root {
                return true;
            }
            parent = chart.parent_chart();
        }
        self.reached_charts()
            .iter()
            .chain(&self.repository_libraries())
            .any(|chart| chart.root == root)
            || self.define_index().holds(root)
    }

    /// The files under the chart's `templates/` (a folder's, not an archive's).
    pub fn template_files(&self) -> Vec<PathBuf> {
        match self.location {
            Location::Folder(_) => self.files().0.clone(),
            Location::Archive { .. } => Vec::new(),
        }
    }

    /// The charts this chart's rendering may reach: its dependencies, transitively,
    /// then the repository's libraries.
    pub fn reached(&self) -> Vec<Arc<Chart>> {
        let mut reached = self.reached_charts();
        for library in self.repository_libraries() {
            if !reached.iter().any(|chart| chart.root == library.root) {
                reached.push(library);
            }
        }
        reached
    }

    /// The dependency whose values the parent keeps under `key`, when it was found.
    pub fn dependency_keyed(&self, key: &str) -> Option<Arc<Chart>> {
        self.dependencies
            .iter()
            .find(|resolved| resolved.keyed(key))
            .and_then(|resolved| self.dependency_chart(resolved))
    }

    /// Where the chart's templates read the value at `path` or a value around it (a
    /// read of `image` reads `image.tag`): each file with the byte range of the read.
    pub fn readers_of(&self, path: &[String]) -> Vec<(PathBuf, std::ops::Range<usize>)> {
        let mut found: Vec<(PathBuf, std::ops::Range<usize>)> = self
            .scan()
            .template_reads
            .iter()
            .flat_map(|(file, (_, reads))| {
                reads
                    .reads
                    .iter()
                    .filter(|read| read.path.starts_with(path) || path.starts_with(&read.path))
                    .map(move |read| (file.clone(), read.span.clone()))
            })
            .collect();
        found.sort_by(|a, b| (&a.0, a.1.start).cmp(&(&b.0, b.1.start)));
        found
    }

    /// A path of the chart for messages: relative to the chart's folder.
    fn shown(&self, file: &Path) -> String {
        let parent = self.root.parent().unwrap_or(&self.root);
        crate::paths::slashed(file.strip_prefix(parent).unwrap_or(file))
    }

    /// What the value rules could not know of this chart, one sentence each, for
    /// the run's notes and the JSON output's `partial_charts`: empty when the
    /// analysis is whole.
    pub fn partial(&self) -> Vec<String> {
        // A library's values are never analysed: nothing to say.
        if self.library {
            return Vec::new();
        }
        let mut reasons: Vec<String> = self
            .problems
            .iter()
            .map(|problem| format!("read in part: {problem}"))
            .collect();
        if self.values_unreadable {
            reasons.push(
                "unused-value and undefined-value skipped the chart: its values are not known"
                    .into(),
            );
            return reasons;
        }
        let analysis = self.analysis();
        if !analysis.unknown.is_empty() {
            let why = self.define_index().unknown_note(&analysis.unknown);
            reasons.push(format!(
                "unused-value and undefined-value skipped the chart: {why}"
            ));
        } else if let Some(opaque) = &analysis.opaque {
            reasons.push(format!(
                "unused-value skipped the chart: {opaque}, so any value may be read"
            ));
        }
        reasons
    }

    /// What the chart's value findings depend on: the chart's fingerprint, the
    /// bytes of every file its scan read, and the same of its parent and of every
    /// chart it reaches.
    pub fn content_fingerprint(&self) -> u64 {
        *self.content.get_or_init(|| {
            let mut key = CacheKey::new("chart-content")
                .part("files", self.scan().content)
                .part("chart", self.fingerprint)
                .part("defines", self.define_index().fingerprint);
            let reached = self.reached_charts();
            let libraries = &self.analysis().libraries;
            for chart in reached.iter().chain(libraries) {
                key.add("reached-files", chart.scan().content);
                key.add("reached-chart", chart.fingerprint);
            }
            key.optional(
                "parent",
                self.parent_chart().map(|parent| parent.fingerprint),
            )
            .finish()
        })
    }

    /// Why `path` read by a template is not a value of the chart: the first key
    /// `values.yaml` does not have, with the path to it. `None` when it is there, or
    /// may be: under a `null`, a scalar, a list or an empty map (filled by users), a
    /// key named in a comment, `global`, a dependency's, one the template `set`s,
    /// one a dependency's values bring in (merged by a library, `import-values`),
    /// or anything at all when the chart calls a named template tether cannot see.
    pub fn undefined(&self, path: &[String], set: &[Vec<String>]) -> Option<usize> {
        let first = path.first()?;
        // `_name`: by convention supplied from outside (a parent, a platform).
        if first == "global"
            || first.starts_with('_')
            || self
                .dependencies
                .iter()
                .any(|resolved| resolved.keyed(first))
        {
            return None;
        }
        if set
            .iter()
            .any(|set| path.starts_with(set) || set.starts_with(path))
        {
            return None;
        }
        if self.values_unreadable {
            return None;
        }
        let missing = missing_in(&self.values, path, &self.commented)?;
        // A parent that sets it for this chart defines it too.
        if self.parent_sets(path) {
            return None;
        }
        let analysis = self.analysis();
        if !analysis.unknown.is_empty() {
            return None;
        }
        // A library that merges its values into the chart's (`set . "Values" …`):
        // the path is there, or it leaves the merged keys deeper.
        let mut missing = missing;
        for chart in &analysis.merged {
            match missing_in(&chart.values, path, &chart.commented) {
                None => return None,
                Some(depth) => missing = missing.max(depth),
            }
        }
        // `import-values`: the child's values at `child` appear at `parent`.
        for resolved in &self.dependencies {
            for import in &resolved.dependency.imports {
                let Some(rest) = path.strip_prefix(import.parent.as_slice()) else {
                    continue;
                };
                // An import from a dependency not found: what it brings is unknown.
                let chart = self.dependency_chart(resolved)?;
                if let Some(imported) = chart.values.at(&import.child) {
                    missing_in(imported, rest, &HashSet::new())?;
                }
            }
        }
        Some(missing)
    }

    /// The outermost keys of `values.yaml` that nothing of the chart reads, with
    /// their lines: none when the chart's reads cannot be known (see
    /// [`Chart::partial`]).
    pub fn unused(&self) -> Vec<(Vec<String>, usize)> {
        let scan = self.scan();
        let analysis = self.analysis();
        if analysis.opaque.is_some()
            || !analysis.unknown.is_empty()
            || self.library
            || self.values_unreadable
            || !scan.has_templates
        {
            return Vec::new();
        }
        let mut found = Vec::new();
        let own = Used::new(&analysis.reads);
        for (name, line, value) in self.values.entries_in_file_order() {
            let path = vec![name.clone()];
            // `enabled` at the top: the switch a parent's `condition: NAME.enabled`
            // reads when the chart is used as a dependency.
            if name == "enabled" {
                continue;
            }
            if name == "global" {
                self.unused_global(value, *line, &analysis.reads, &mut found);
                continue;
            }
            match self
                .dependencies
                .iter()
                .find(|resolved| resolved.keyed(name))
            {
                // A subchart's values are read by its own files.
                Some(resolved) => {
                    let Some(chart) = self.dependency_chart(resolved) else {
                        continue;
                    };
                    let inner_analysis = chart.analysis();
                    if chart.library
                        || inner_analysis.opaque.is_some()
                        || !inner_analysis.unknown.is_empty()
                    {
                        continue;
                    }
                    let mut inner = Vec::new();
                    unused_under(
                        value,
                        &mut Vec::new(),
                        &Used::new(&inner_analysis.reads),
                        &mut inner,
                    );
                    for (inner, line) in inner {
                        let mut whole = path.clone();
                        whole.extend(inner);
                        // `enabled` and the like, read by this chart's conditions.
                        if !own.reaches(&whole) {
                            found.push((whole, line));
                        }
                    }
                }
                None => {
                    if own.reaches(&path) {
                        unused_under(value, &mut path.clone(), &own, &mut found);
                    } else {
                        found.push((path, *line));
                    }
                }
            }
        }
        found
    }

    /// `global`: read by this chart and every dependency; checked only when all
    /// are found and followed, against all of them.
    fn unused_global(
        &self,
        value: &Keys,
        line: usize,
        own: &[(Vec<String>, Use)],
        found: &mut Vec<(Vec<String>, usize)>,
    ) {
        let mut charts = Vec::new();
        for resolved in &self.dependencies {
            let Some(chart) = self.dependency_chart(resolved) else {
                return;
            };
            let analysis = chart.analysis();
            if analysis.opaque.is_some() || !analysis.unknown.is_empty() {
                return;
            }
            charts.push(chart);
        }
        // Only reads under `global` reach a path under it.
        let global = charts
            .iter()
            .flat_map(|chart| &chart.analysis().reads)
            .chain(own)
            .filter(|(path, _)| path.first().is_some_and(|name| name == "global"));
        let path = vec!["global".to_string()];
        let all = Used::new(global);
        if all.reaches(&path) {
            unused_under(value, &mut path.clone(), &all, found);
        } else {
            found.push((path, line));
        }
    }

    /// The names of the chart's subcharts (dependencies that are not libraries),
    /// for advice on where their values go.
    pub fn subchart_keys(&self) -> Vec<String> {
        self.dependencies
            .iter()
            .filter(|resolved| {
                self.dependency_chart(resolved)
                    .is_none_or(|chart| !chart.library)
            })
            .map(|resolved| resolved.dependency.key().to_string())
            .collect()
    }
}

/// The define a read or call is in, by its index in the file.
fn define_at(defines: &mut [Define], at: Option<u32>) -> Option<&mut Define> {
    defines.get_mut(at? as usize)
}

/// Named templates by name, each with the chart that defines it.
type Namespace = HashMap<String, (Arc<Define>, Arc<Chart>)>;

/// Adds the defines of `chart` to `namespace`, keeping a name that is there already:
/// charts are added nearest first.
fn add_defines(namespace: &mut Namespace, chart: &Arc<Chart>) {
    for (name, define) in &chart.scan().defines {
        namespace
            .entry(name.clone())
            .or_insert_with(|| (define.clone(), chart.clone()));
    }
}

/// The 1-based line of `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Keeps the first define of a name, as Helm keeps one template per name (the
/// later file wins there; which one is rarely meant, both are read here).
fn define_once(defines: &mut HashMap<String, Arc<Define>>, name: String, define: Define) {
    match defines.get_mut(&name) {
        Some(existing) => {
            if let Some(existing) = Arc::get_mut(existing) {
                existing.reads.extend(define.reads);
                existing.calls.extend(define.calls);
                existing.whole = existing.whole.take().or(define.whole);
                existing.sets_values |= define.sets_values;
            }
        }
        None => {
            defines.insert(name, Arc::new(define));
        }
    }
}

/// The reads of a file's text.
fn lex_reads(text: &str) -> Reads {
    if !text.contains("{{") {
        return Reads::default();
    }
    let (actions, _) = crate::template::lex::lex(text);
    crate::template::reads::reads(text, &actions)
}

/// Where each dependency of a chart lies, in Helm's order: a folder or an archive
/// under `charts/`, a `file://` path, a chart of that name and version elsewhere
/// in the repository or under `chart-paths`. Then every chart under `charts/` that
/// no declaration names.
fn resolve_dependencies(
    manifest: &Manifest,
    location: &Location,
    archive: Option<&Archive>,
    charts: &Charts,
    scope: &Scope,
) -> (Vec<Resolved>, Vec<String>) {
    let (vendored, unread) = vendored_charts(location, archive, charts);
    let mut used = vec![false; vendored.len()];
    let mut resolved = Vec::new();
    for dependency in &manifest.dependencies {
        let matches = |(candidate, version): &NameVersion| {
            *candidate == dependency.name
                && match (&dependency.version, version) {
                    (Some(constraint), Some(version)) => {
                        manifest::version_matches(constraint, version) != Some(false)
                    }
                    _ => true,
                }
        };
        if let Some(at) = vendored.iter().position(|(_, name, _)| matches(name)) {
            used[at] = true;
            let (found, _, source) = &vendored[at];
            resolved.push(Resolved {
                dependency: dependency.clone(),
                location: Some(found.clone()),
                source: source.clone(),
            });
            continue;
        }
        let elsewhere = match location {
            Location::Folder(root) => find_elsewhere(dependency, root, charts, scope, &matches),
            Location::Archive { .. } => {
                Err("inside an archive, only its own charts/ is read".into())
            }
        };
        match elsewhere {
            Ok((found, source)) => resolved.push(Resolved {
                dependency: dependency.clone(),
                location: Some(found),
                source,
            }),
            Err(why) => resolved.push(Resolved {
                dependency: dependency.clone(),
                location: None,
                source: Source::Missing(why),
            }),
        }
    }
    for ((found, (name, version), source), used) in vendored.into_iter().zip(used) {
        if !used {
            resolved.push(Resolved {
                dependency: Dependency {
                    name,
                    version,
                    ..Dependency::default()
                },
                location: Some(found),
                source,
            });
        }
    }
    (resolved, unread)
}

/// The charts under a chart's `charts/`: folders and archives, each with its name
/// and version (a folder's name stands in for a missing `name:`); and the archives
/// that could not be read, and why.
fn vendored_charts(
    location: &Location,
    archive: Option<&Archive>,
    charts: &Charts,
) -> (Vec<Vendored>, Vec<String>) {
    let mut found = Vec::new();
    let mut unread = Vec::new();
    match (location, archive) {
        (Location::Folder(root), _) => {
            let Ok(entries) = std::fs::read_dir(root.join("charts")) else {
                return (found, unread);
            };
            let mut entries: Vec<_> = entries.flatten().collect();
            entries.sort_by_key(std::fs::DirEntry::file_name);
            for entry in entries.into_iter().take(MAX_REACHED_CHARTS) {
                // The entry's own type: a link is neither a folder nor a file here.
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                let file_name = entry.file_name().to_string_lossy().into_owned();
                if kind.is_dir() {
                    let manifest = read_text(&path.join("Chart.yaml"), MAX_VALUES_BYTES)
                        .and_then(|(text, _)| manifest_of(&text));
                    let Some(manifest) = manifest else { continue };
                    let name = manifest.name.unwrap_or(file_name);
                    found.push((
                        Location::Folder(path),
                        (name, manifest.version),
                        Source::Vendored,
                    ));
                } else if kind.is_file() && file_name.ends_with(".tgz") {
                    match charts.archive(&path, || Archive::read(&path)) {
                        Ok(archive) => found.extend(archive_charts(&archive, &path, "")),
                        Err(why) => unread.push(format!("charts/{file_name} is not read: {why}")),
                    }
                }
            }
        }
        (Location::Archive { key, prefix }, Some(archive)) => {
            let under = format!("{prefix}charts/");
            found.extend(archive_charts(archive, key, &under));
            // Archives inside the archive, read from memory, a few levels deep.
            let depth = key
                .components()
                .filter(|part| part.as_os_str().to_string_lossy().ends_with(".tgz"))
                .count();
            for (name, bytes) in &archive.files {
                let Some(rest) = name.strip_prefix(&under) else {
                    continue;
                };
                if !rest.ends_with(".tgz") || rest.contains('/') {
                    continue;
                }
                if depth >= MAX_ARCHIVE_DEPTH {
                    unread.push(format!(
                        "{name} is not read: archives nest deeper than {MAX_ARCHIVE_DEPTH}"
                    ));
                    continue;
                }
                let nested_key = key.join(name);
                match charts.archive(&nested_key, || Ok(Archive::from_bytes(bytes))) {
                    Ok(nested) => found.extend(archive_charts(&nested, &nested_key, "")),
                    Err(why) => unread.push(format!("{name} is not read: {why}")),
                }
            }
        }
        (Location::Archive { .. }, None) => {}
    }
    found.truncate(MAX_REACHED_CHARTS);
    (found, unread)
}

/// A chart found under `charts/`: where it lies, its name and version, and how.
type Vendored = (Location, NameVersion, Source);

/// The charts of an archive whose folders lie directly under `under` (`""` for
/// the top of a packaged archive, `common/charts/` for a chart's subcharts).
fn archive_charts(archive: &Archive, key: &Path, under: &str) -> Vec<Vendored> {
    let source = if under.is_empty() {
        Source::Archive(key.to_path_buf())
    } else {
        Source::Vendored
    };
    archive
        .files
        .iter()
        .filter_map(|(name, bytes)| {
            let folder = name.strip_prefix(under)?.strip_suffix("/Chart.yaml")?;
            if folder.contains('/') {
                return None;
            }
            let manifest = manifest_of(std::str::from_utf8(bytes).ok()?)?;
            let name = manifest.name.unwrap_or_else(|| folder.to_string());
            let location = Location::Archive {
                key: key.to_path_buf(),
                prefix: format!("{under}{folder}/"),
            };
            Some((location, (name, manifest.version), source.clone()))
        })
        .collect()
}

/// A `Chart.yaml`'s text read for its name, version and dependencies.
fn manifest_of(text: &str) -> Option<Manifest> {
    small_yaml::parse_bounded(text, MAX_NODES, 64)
        .ok()
        .map(|node| Manifest::of(&node, None))
}

/// A dependency not under `charts/`: its `file://` folder, or a chart of its name
/// and a matching version in the repository or under `chart-paths`.
fn find_elsewhere(
    dependency: &Dependency,
    root: &Path,
    charts: &Charts,
    scope: &Scope,
    matches: &dyn Fn(&NameVersion) -> bool,
) -> Result<(Location, Source), String> {
    let inside_scope = |folder: &Path| {
        scope
            .top
            .iter()
            .chain(&scope.chart_paths)
            .any(|allowed| folder.starts_with(allowed))
    };
    if let Some(path) = dependency
        .repository
        .as_deref()
        .and_then(|repository| repository.strip_prefix("file://"))
    {
        let Ok(folder) = root.join(path).canonicalize() else {
            return Err(format!("`file://{path}` is not there"));
        };
        // A stranger's chart may name any folder: only those in the repository
        // (or named in chart-paths) are read.
        if !inside_scope(&folder) && !folder.starts_with(root) {
            return Err(format!(
                "`file://{path}` lies outside the repository; name it in `chart-paths` to read it"
            ));
        }
        if is_chart(&folder) {
            return Ok((Location::Folder(folder.clone()), Source::FilePath(folder)));
        }
        return Err(format!("`file://{path}` holds no Chart.yaml"));
    }
    if scope.top.is_none() && scope.chart_paths.is_empty() {
        return Err("not under charts/".into());
    }
    let repository = charts.repository(scope);
    let candidates = repository.named(&dependency.name);
    if let Some((folder, _)) = candidates.iter().find(|(folder, version)| {
        folder != root && matches(&(dependency.name.clone(), version.clone()))
    }) {
        return Ok((
            Location::Folder(folder.clone()),
            Source::Elsewhere(folder.clone()),
        ));
    }
    let mut why = "not under charts/ and no chart of that name in the repository".to_string();
    if !candidates.is_empty() {
        let versions: Vec<String> = candidates
            .iter()
            .map(|(_, version)| version.clone().unwrap_or_else(|| "no version".into()))
            .collect();
        why = format!(
            "not under charts/; the repository has it at {} only",
            versions.join(", ")
        );
    }
    if let Some(limit) = &repository.truncated {
        why.push_str(&format!("; {limit}"));
    }
    Err(why)
}

/// Regular files of the chart that may hold template actions, its subcharts'
/// folders and hidden ones left out, links not followed; bounded.
fn chart_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || files.len() >= MAX_FILES {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                // Subcharts are charts of their own; Helm never renders `crds/`.
                if !(folder == root && (name == "charts" || name == "crds")) {
                    folders.push(path);
                }
            } else if kind.is_file() && keeps_file(&name, folder == root) {
                // Listed whatever its size: reading it says when it is too large.
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The same files of a chart inside an archive, named under `root`.
fn archive_files(archive: &Archive, prefix: &str, root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (name, _) in &archive.files {
        let Some(relative) = name.strip_prefix(prefix) else {
            continue;
        };
        let parts: Vec<&str> = relative.split('/').collect();
        let at_top = parts.len() == 1;
        let hidden = parts.iter().any(|part| part.starts_with('.'));
        let skipped = parts.len() > 1 && (parts[0] == "charts" || parts[0] == "crds");
        let file_name = parts.last().copied().unwrap_or_default();
        if hidden || skipped || !keeps_file(file_name, at_top) {
            continue;
        }
        files.push(root.join(relative));
        if files.len() >= MAX_FILES {
            break;
        }
    }
    // Sorted as paths (by component), as the folder listing is.
    files.sort();
    files
}

/// Whether a file of a chart may be rendered: not the chart's own `values.yaml`
/// and `Chart.yaml`, not helm-docs templates and documentation (they describe
/// values, they do not use them).
fn keeps_file(name: &str, at_top: bool) -> bool {
    let chart_file = at_top && matches!(name, "values.yaml" | "Chart.yaml" | "requirements.yaml");
    let described = [".gotmpl", ".md", ".tgz"]
        .iter()
        .any(|ending| name.ends_with(ending));
    !chart_file && !described
}

/// A chart file, read.
enum Read {
    Text(String, u64),
    Absent,
    /// There, but not text tether reads: why.
    Unreadable(String),
}

/// The file `relative` (`values.yaml`, `templates/x.yaml`) of the chart at
/// `location`, from its folder or its archive: UTF-8 text of at most `limit`
/// bytes, a regular file, never through a link; an `overlay` text stands in for a
/// file of a folder.
fn read_chart_file(
    archive: Option<&Archive>,
    overlay: Option<&Overlay>,
    location: &Location,
    relative: &str,
    limit: usize,
) -> Read {
    let bytes = match (archive, location) {
        (Some(archive), Location::Archive { prefix, .. }) => {
            match archive.get(&format!("{prefix}{relative}")) {
                Some(bytes) => bytes.to_vec(),
                None => return Read::Absent,
            }
        }
        (_, location) => {
            let path = location.root().join(relative);
            if let Some(text) = overlay.and_then(|overlay| overlay.get(&path)) {
                text.as_bytes().to_vec()
            } else {
                match crate::source::read_regular(&path, limit) {
                    Ok(bytes) => bytes,
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                        return Read::Absent;
                    }
                    Err(error) => return Read::Unreadable(format!("cannot be read: {error}")),
                }
            }
        }
    };
    if bytes.len() > limit {
        return Read::Unreadable(format!("is larger than {} KiB", limit / 1024));
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    match String::from_utf8(bytes) {
        Ok(text) => Read::Text(text, hash),
        Err(_) => Read::Unreadable("is not UTF-8".into()),
    }
}

fn read_text(path: &Path, limit: usize) -> Option<(String, u64)> {
    let bytes = crate::source::read_regular(path, limit).ok()?;
    if bytes.len() > limit {
        return None;
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    String::from_utf8(bytes).ok().map(|text| (text, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn scope(top: &Path) -> Scope {
        Scope {
            top: Some(top.to_path_buf()),
            chart_paths: Vec::new(),
        }
    }

    /// Two charts that depend on each other and call each other's defines: the
    /// analysis of either ends (no chart waits on itself), and follows both ways.
    #[test]
    fn a_dependency_cycle_ends() {
        let folder = tempfile::tempdir().unwrap();
        let top = folder.path().canonicalize().unwrap();
        write(
            &top,
            "a/Chart.yaml",
            "apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n  - name: b\n    repository: file://../b\n",
        );
        write(&top, "a/values.yaml", "fromB: 1\nunread: 2\n");
        write(
            &top,
            "a/templates/x.yaml",
            "{{ include \"b.x\" . }}\n{{ define \"a.y\" }}{{ .Values.nothing }}{{ end }}\n",
        );
        write(
            &top,
            "b/Chart.yaml",
            "apiVersion: v2\nname: b\nversion: 1.0.0\ndependencies:\n  - name: a\n    repository: file://../a\n",
        );
        write(&top, "b/values.yaml", "fromA: 1\n");
        write(
            &top,
            "b/templates/x.yaml",
            "{{ define \"b.x\" }}{{ .Values.fromB }}{{ include \"a.y\" . }}{{ end }}\n",
        );
        let (sender, receiver) = std::sync::mpsc::channel();
        let roots = [top.join("a"), top.join("b")];
        let scope = scope(&top);
        std::thread::spawn(move || {
            let charts = Arc::new(Charts::default());
            let unused: Vec<Vec<String>> = roots
                .iter()
                .map(|root| {
                    let chart = charts.chart(root, &scope).unwrap();
                    chart
                        .unused()
                        .into_iter()
                        .map(|(path, _)| path.join("."))
                        .collect()
                })
                .collect();
            sender.send(unused).unwrap();
        });
        let unused = receiver
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the analysis of a dependency cycle ends");
        assert_eq!(unused[0], ["unread"]);
    }

    /// A stranger's chart names folders outside the repository (`file://`), links
    /// and a FIFO under `charts/`: none is read, the dependency is missing, and the
    /// chart says so instead of reporting what it cannot know.
    #[cfg(unix)]
    #[test]
    fn hostile_dependencies_are_not_read() {
        let folder = tempfile::tempdir().unwrap();
        let base = folder.path().canonicalize().unwrap();
        let top = base.join("repo");
        std::fs::create_dir_all(top.join(".git")).unwrap();
        write(
            &base,
            "outside/Chart.yaml",
            "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
        );
        write(
            &base,
            "outside/templates/_l.tpl",
            "{{ define \"lib.all\" }}{{ .Values.a }}{{ end }}",
        );
        let chart_yaml = "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../../outside\n  - name: linked\n  - name: piped\n";
        write(&top, "app/Chart.yaml", chart_yaml);
        write(&top, "app/values.yaml", "a: 1\nb: 2\n");
        write(
            &top,
            "app/templates/x.yaml",
            "{{ include \"lib.all\" . }}\n",
        );
        std::fs::create_dir_all(top.join("app/charts")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), top.join("app/charts/linked")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(top.join("app/charts/piped-1.0.0.tgz"))
            .status()
            .unwrap();
        assert!(made.success());
        let charts = Arc::new(Charts::default());
        let chart = charts.chart(&top.join("app"), &scope(&top)).unwrap();
        let sources: Vec<&Source> = chart.dependencies.iter().map(|r| &r.source).collect();
        assert!(
            sources
                .iter()
                .all(|source| matches!(source, Source::Missing(_))),
            "{sources:?}"
        );
        assert!(
            matches!(sources[0], Source::Missing(why) if why.contains("outside the repository")),
            "{sources:?}"
        );
        assert!(chart.unused().is_empty());
        let reasons = chart.partial().join("\n");
        assert!(
            reasons.contains("`lib.all`") && reasons.contains("outside the repository"),
            "{reasons}"
        );
    }

    /// A CRD template of a megabyte and more is read for its values like any
    /// other (`{{- if .Values.crds.create }}` on its first line is a read); one past
    /// the limit makes the chart's reads unknown, and the chart says why.
    #[test]
    fn large_templates_are_read_and_too_large_ones_said() {
        let folder = tempfile::tempdir().unwrap();
        let top = folder.path().canonicalize().unwrap();
        let body = "# a line of a CRD\n".repeat(70_000);
        for (name, size) in [("large", body.len()), ("huge", MAX_FILE_BYTES as usize + 1)] {
            write(
                &top,
                &format!("{name}/Chart.yaml"),
                &format!("apiVersion: v2\nname: {name}\nversion: 1.0.0\n"),
            );
            write(
                &top,
                &format!("{name}/values.yaml"),
                "crds:\n  create: true\nunread: 1\n",
            );
            let mut text = String::from("{{- if .Values.crds.create }}\n");
            while text.len() < size {
                text.push_str(&body);
            }
            text.push_str("{{- end }}\n");
            write(&top, &format!("{name}/templates/crds.yaml"), &text);
        }
        assert!(body.len() > 1024 * 1024);
        let charts = Arc::new(Charts::default());
        let large = charts.chart(&top.join("large"), &scope(&top)).unwrap();
        let unused: Vec<String> = large
            .unused()
            .into_iter()
            .map(|(path, _)| path.join("."))
            .collect();
        assert_eq!(unused, ["unread"]);
        let huge = charts.chart(&top.join("huge"), &scope(&top)).unwrap();
        assert!(huge.unused().is_empty());
        let reasons = huge.partial().join("\n");
        assert!(
            reasons.contains(
                "templates/crds.yaml is larger than 16384 KiB, which tether does not read"
            ),
            "{reasons}"
        );
    }

    /// A library kept in another checkout is found through `chart-paths`, and
    /// only there: without it the chart is partial.
    #[test]
    fn chart_paths_make_a_library_visible() {
        let folder = tempfile::tempdir().unwrap();
        let base = folder.path().canonicalize().unwrap();
        write(
            &base,
            "library/common/Chart.yaml",
            "apiVersion: v2\nname: common\nversion: 4.5.2\ntype: library\n",
        );
        write(
            &base,
            "library/common/templates/_all.tpl",
            "{{ define \"common.all\" }}{{ .Values.image }}{{ end }}",
        );
        write(
            &base,
            "repo/app/Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 4.5.2\n    repository: https://charts.example.invalid\n",
        );
        write(&base, "repo/app/values.yaml", "image: x\nstray: 1\n");
        write(
            &base,
            "repo/app/templates/all.yaml",
            "{{ include \"common.all\" . }}",
        );
        let unused = |scope: Scope| {
            let charts = Arc::new(Charts::default());
            let chart = charts.chart(&base.join("repo/app"), &scope).unwrap();
            let unused: Vec<String> = chart
                .unused()
                .into_iter()
                .map(|(path, _)| path.join("."))
                .collect();
            (unused, chart.partial().is_empty())
        };
        let alone = scope(&base.join("repo"));
        assert_eq!(unused(alone.clone()), (Vec::new(), false));
        let with_paths = Scope {
            chart_paths: vec![base.join("library")],
            ..alone
        };
        assert_eq!(unused(with_paths), (vec!["stray".to_string()], true));
    }

    /// A values file tether cannot read is said, never taken as "nothing set".
    #[test]
    fn unreadable_values_are_reported() {
        let folder = tempfile::tempdir().unwrap();
        let top = folder.path().canonicalize().unwrap();
        write(
            &top,
            "c/Chart.yaml",
            "apiVersion: v2\nname: c\nversion: 1.0.0\n",
        );
        write(&top, "c/values.yaml", "a: [1,\n");
        write(&top, "c/templates/x.yaml", "{{ .Values.b }}\n");
        let charts = Arc::new(Charts::default());
        let chart = charts.chart(&top.join("c"), &scope(&top)).unwrap();
        assert!(chart.unused().is_empty());
        assert_eq!(chart.undefined(&["b".to_string()], &[]), None);
        let reasons = chart.partial().join("\n");
        assert!(
            reasons.contains("values.yaml is not read past line"),
            "{reasons}"
        );
    }
}
