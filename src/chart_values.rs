//! A chart's values and what its files read of them, for `undefined-value` and
//! `unused-value`: the one analysis of tether that spans files. Each chart is read
//! once per run ([`Charts`]); its fingerprint covers every file the analysis read,
//! so a cached finding of one file goes stale when another file of its chart changes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::small_yaml::{self, Node, Scalar, Value};
use crate::template::reads::{Read, Use};

/// A values file larger than this is not analysed (the largest in the three corpora
/// is 203 KiB).
const MAX_VALUES_BYTES: usize = 4 * 1024 * 1024;
/// Files of one chart read for what they read of the values.
const MAX_FILES: usize = 20_000;
/// Larger files are not read for reads (they are data, not templates).
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// YAML nodes of a values file once aliases are expanded (the largest values file of
/// the corpora has about 6,000).
const MAX_NODES: usize = 500_000;
/// Charts vendored in charts vendored in … deeper than this are not analysed.
const MAX_NESTING: usize = 16;

/// The charts of one run, each analysed once, on the thread that first needs it.
#[derive(Debug, Default)]
pub struct Charts {
    charts: Mutex<HashMap<PathBuf, Arc<Slot>>>,
}

/// A chart analysed once (`None`: not a chart tether can read).
type Slot = OnceLock<Option<Arc<Chart>>>;

/// What a file is to its chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Under the chart's `templates/`.
    Template,
    /// The chart's `values.yaml`.
    Values,
}

impl Charts {
    /// The chart a file belongs to and what it is there, if it is a template or the
    /// `values.yaml` of a chart (a folder with a `Chart.yaml`).
    pub fn of(&self, absolute: &Path) -> Option<(Arc<Chart>, Role)> {
        let (root, role) = chart_root(absolute)?;
        Some((self.chart(&root)?, role))
    }

    /// The chart at `root`, analysed on first use.
    pub fn chart(&self, root: &Path) -> Option<Arc<Chart>> {
        let slot = self
            .charts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(root.to_path_buf())
            .or_default()
            .clone();
        slot.get_or_init(|| Chart::read(root, self).map(Arc::new))
            .clone()
    }
}

/// The chart root of a template or values file.
pub fn chart_root(absolute: &Path) -> Option<(PathBuf, Role)> {
    let is_chart = |folder: &Path| {
        folder
            .join("Chart.yaml")
            .symlink_metadata()
            .is_ok_and(|metadata| metadata.is_file())
    };
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

/// One chart: its values, its dependencies and what its files read.
#[derive(Debug)]
pub struct Chart {
    pub root: PathBuf,
    /// The keys of `values.yaml`.
    pub values: Keys,
    /// Names of keys written in comments (`# name: …`), left out on purpose.
    pub commented: HashSet<String>,
    /// `type: library`: its templates read the values of the charts that include
    /// them.
    pub library: bool,
    /// Dependency names and aliases, with the chart when it is vendored as a folder.
    pub dependencies: Vec<(String, Option<Arc<Chart>>)>,
    /// For a chart vendored in another's `charts/`, what the parent's `values.yaml`
    /// sets for it (under its name or alias).
    pub from_parent: Vec<Keys>,
    /// The `condition:`s of `Chart.yaml`'s dependencies, which read values.
    conditions: Vec<Vec<String>>,
    /// Over `values.yaml`, `Chart.yaml` and the parent's `values.yaml`: what a
    /// template's `undefined-value` findings depend on.
    pub fingerprint: u64,
    /// What the chart's files read, made when `unused-value` first needs it.
    scan: OnceLock<Scan>,
    /// Over the bytes of the files [`Chart::scan`] reads and of its vendored
    /// charts': the cache key of `values.yaml`, made without lexing anything.
    content: OnceLock<u64>,
    /// The chart's files under `templates/`, and the others, listed once.
    files: OnceLock<(Vec<PathBuf>, Vec<PathBuf>)>,
    /// What this run's check saw of the chart's templates, by path: `values.yaml`
    /// is checked after them, and its analysis reads and lexes none of them again.
    seen: Mutex<HashMap<PathBuf, Seen>>,
}

/// What the check of one template saw, for the analysis of `values.yaml`.
#[derive(Debug)]
pub struct Seen {
    /// The hash of the file's bytes, when they are text the analysis reads (UTF-8,
    /// at most [`MAX_FILE_BYTES`]); `None`: the analysis skips the file.
    text_hash: Option<u64>,
    /// Whether the text uses `.Files`.
    uses_files: bool,
    /// Whether the check reads these bytes as the analysis does: as they are (no
    /// invalid UTF-8, NUL or lone CR for reading to replace).
    pub as_read: bool,
    /// What the file reads, when the check read its text as the analysis does (not
    /// when the findings came from the cache).
    reads: Option<FileReads>,
}

impl Seen {
    /// What the bytes of a template are to the analysis; `hash` is theirs.
    pub fn of(bytes: &[u8], hash: u64) -> Seen {
        let text = (bytes.len() as u64 <= MAX_FILE_BYTES)
            .then(|| std::str::from_utf8(bytes).ok())
            .flatten();
        Seen {
            text_hash: text.map(|_| hash),
            uses_files: text.is_some_and(|text| text.contains(".Files")),
            as_read: text.is_some_and(crate::source::text_unchanged),
            reads: None,
        }
    }

    /// Adds what the file reads, found by the check on `text` (the file's bytes,
    /// unchanged) with its template actions.
    pub fn with_reads(mut self, text: &str, found: crate::template::reads::Reads) -> Seen {
        if self.as_read {
            self.reads = Some(FileReads::of(text, || found));
        }
        self
    }
}

/// What one file reads of the values, as the analysis keeps it.
#[derive(Debug, Clone, Default)]
struct FileReads {
    reads: Vec<(Vec<String>, Use)>,
    /// `.Values` used whole or by a computed key.
    opaque: bool,
    /// Files of the chart it renders by name.
    files: Vec<String>,
}

impl FileReads {
    /// The reads of `text`, from `found` (called only when the text names `Values`).
    fn of(text: &str, found: impl FnOnce() -> crate::template::reads::Reads) -> FileReads {
        if !text.contains("Values") {
            return FileReads::default();
        }
        let found = found();
        FileReads {
            reads: found
                .reads
                .into_iter()
                .map(|read| (read.path, read.use_))
                .collect(),
            opaque: found.opaque.is_some(),
            files: found.files,
        }
    }

    /// The reads of a file's text, lexed here.
    fn lex(text: &str) -> FileReads {
        FileReads::of(text, || {
            let (actions, _) = crate::template::lex::lex(text);
            crate::template::reads::reads(text, &actions)
        })
    }
}

/// What every file of a chart reads.
#[derive(Debug)]
pub struct Scan {
    /// Whether the chart has templates at all (a chart without any reads nothing).
    pub has_templates: bool,
    /// Every read of every file of the chart (templates, `files/` when a template
    /// uses `.Files`, `tpl` strings of `values.yaml`), with the conditions.
    pub reads: Vec<(Vec<String>, Use)>,
    /// A file uses `.Values` whole or by a computed key: what it reads is unknown.
    pub opaque: Option<PathBuf>,
}

impl Chart {
    fn read(root: &Path, charts: &Charts) -> Option<Chart> {
        // Each level of vendoring is a nested analysis on this thread's stack.
        let nesting = root
            .components()
            .filter(|component| component.as_os_str() == "charts")
            .count();
        let vendor = |folder: &Path| {
            (nesting < MAX_NESTING)
                .then(|| charts.chart(folder))
                .flatten()
        };
        let (values_text, values_hash) = read_text(&root.join("values.yaml"), MAX_VALUES_BYTES)?;
        let values = Keys::of(&small_yaml::parse_bounded(&values_text, MAX_NODES, 128).ok()?);
        let (chart_yaml, chart_hash) = small_yaml::load(&root.join("Chart.yaml")).ok()?;
        let library = chart_yaml
            .get("type")
            .and_then(Node::as_str)
            .is_some_and(|kind| kind == "library");
        let mut conditions: Vec<Vec<String>> = Vec::new();
        let mut dependencies = Vec::new();
        if let Some(Value::Seq(items)) = chart_yaml.get("dependencies").map(|node| &node.value) {
            for item in items {
                let Some(name) = item.get("name").and_then(Node::as_str) else {
                    continue;
                };
                let folder = root.join("charts").join(name);
                let vendored = folder
                    .symlink_metadata()
                    .is_ok_and(|metadata| metadata.is_dir())
                    .then(|| vendor(&folder))
                    .flatten();
                dependencies.push((name.to_string(), vendored.clone()));
                if let Some(alias) = item.get("alias").and_then(Node::as_str) {
                    dependencies.push((alias.to_string(), vendored));
                }
                if let Some(condition) = item.get("condition").and_then(Node::as_str) {
                    for path in condition.split(',') {
                        conditions.push(split_path(path.trim()));
                    }
                }
            }
        }
        // Every chart in `charts/` is a dependency, declared or not; an archive's name
        // is its file name without the version.
        if let Ok(entries) = std::fs::read_dir(root.join("charts")) {
            let mut entries: Vec<_> = entries.flatten().collect();
            entries.sort_by_key(std::fs::DirEntry::file_name);
            for entry in entries {
                let file_name = entry.file_name().to_string_lossy().into_owned();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    let vendored = vendor(&entry.path());
                    let name = small_yaml::load(&entry.path().join("Chart.yaml"))
                        .ok()
                        .and_then(|(chart, _)| {
                            chart.get("name").and_then(Node::as_str).map(str::to_string)
                        });
                    for name in [Some(file_name.clone()), name].into_iter().flatten() {
                        if !dependencies.iter().any(
                            |(known, chart): &(String, Option<Arc<Chart>>)| {
                                *known == name && chart.is_some()
                            },
                        ) {
                            dependencies.push((name, vendored.clone()));
                        }
                    }
                } else if let Some(stem) = file_name.strip_suffix(".tgz") {
                    let name = stem
                        .rfind('-')
                        .filter(|at| stem[at + 1..].starts_with(|c: char| c.is_ascii_digit()))
                        .map_or(stem, |at| &stem[..at]);
                    dependencies.push((name.to_string(), None));
                }
            }
        }
        let (from_parent, parent_hash) = parent_values(root);
        Some(Chart {
            root: root.to_path_buf(),
            values,
            commented: commented_names(&values_text),
            library,
            dependencies,
            from_parent,
            conditions,
            fingerprint: values_hash ^ chart_hash.rotate_left(7) ^ parent_hash.rotate_left(13),
            scan: OnceLock::new(),
            content: OnceLock::new(),
            files: OnceLock::new(),
            seen: Mutex::default(),
        })
    }

    /// What `values.yaml`'s `unused-value` findings depend on: the chart's own
    /// fingerprint, the bytes of every file the scan reads, and the same of each
    /// vendored chart. Reads, never lexes, so a cached run stays cheap.
    pub fn content_fingerprint(&self) -> u64 {
        *self.content.get_or_init(|| {
            let mut fingerprint = self.fingerprint;
            let (templates, others) = self.files();
            let mut uses_files = false;
            let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            for (index, file) in templates.iter().enumerate() {
                let (hash, uses) = match seen.get(file) {
                    Some(seen) => (seen.text_hash, seen.uses_files),
                    None => match read_text(file, MAX_FILE_BYTES as usize) {
                        Some((text, hash)) => (Some(hash), text.contains(".Files")),
                        None => (None, false),
                    },
                };
                if let Some(hash) = hash {
                    uses_files |= uses;
                    fingerprint ^= hash.rotate_left((index % 63) as u32 + 1)
                        ^ xxhash_rust::xxh3::xxh3_64(file.as_os_str().as_encoded_bytes());
                }
            }
            drop(seen);
            if uses_files {
                for (index, file) in others.iter().enumerate() {
                    if let Some((_, hash)) = read_text(file, MAX_FILE_BYTES as usize) {
                        fingerprint ^= hash.rotate_left((index % 61) as u32 + 2)
                            ^ xxhash_rust::xxh3::xxh3_64(file.as_os_str().as_encoded_bytes());
                    }
                }
            }
            for (index, (_, chart)) in self.dependencies.iter().enumerate() {
                if let Some(chart) = chart {
                    fingerprint ^= chart
                        .content_fingerprint()
                        .rotate_left((index % 59) as u32 + 3);
                }
            }
            fingerprint
        })
    }

    /// The chart's files under `templates/`, and the others.
    fn files(&self) -> &(Vec<PathBuf>, Vec<PathBuf>) {
        self.files.get_or_init(|| {
            let templates = self.root.join("templates");
            chart_files(&self.root)
                .into_iter()
                .partition(|file| file.starts_with(&templates))
        })
    }

    /// Records what the check of the template at `path` saw.
    pub fn saw(&self, path: &Path, seen: Seen) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_path_buf(), seen);
    }

    /// What the chart's files read, read on first use.
    pub fn scan(&self) -> &Scan {
        self.scan.get_or_init(|| self.read_files())
    }

    fn read_files(&self) -> Scan {
        let root = &self.root;
        let mut reads: Vec<(Vec<String>, Use)> = self
            .conditions
            .iter()
            .map(|path| (path.clone(), Use::Touch))
            .collect();
        let mut opaque = None;
        let templates = root.join("templates");
        let mut add = |path: &Path, found: FileReads| {
            // Outside `templates/`, a file is rendered only if a template hands it to
            // `tpl`: its reads count, its whole uses of `.Values` do not.
            if found.opaque && opaque.is_none() && path.starts_with(&templates) {
                opaque = Some(path.to_path_buf());
            }
            // A file a template renders that is not there: what it reads is unknown.
            for name in found.files {
                let file = root.join(&name);
                let inside = std::path::Path::new(&name)
                    .components()
                    .all(|component| matches!(component, std::path::Component::Normal(_)));
                if inside && !file.symlink_metadata().is_ok_and(|m| m.is_file()) && opaque.is_none()
                {
                    opaque = Some(file);
                }
            }
            reads.extend(found.reads);
        };
        // `tpl` strings of values.yaml read values too.
        if let Some((text, _)) = read_text(&root.join("values.yaml"), MAX_VALUES_BYTES) {
            add(&root.join("values.yaml"), FileReads::lex(&text));
        }
        let (in_templates, others) = self.files();
        let has_templates = !in_templates.is_empty();
        // Files outside `templates/` are rendered only through `.Files`: read them
        // only when a template uses it.
        let mut uses_files = false;
        let mut seen =
            std::mem::take(&mut *self.seen.lock().unwrap_or_else(PoisonError::into_inner));
        for file in in_templates {
            let found = match seen.remove(file) {
                Some(Seen {
                    text_hash: None, ..
                }) => continue,
                Some(Seen {
                    uses_files: uses,
                    reads: Some(found),
                    ..
                }) => {
                    uses_files |= uses;
                    found
                }
                _ => {
                    let Some((text, _)) = read_text(file, MAX_FILE_BYTES as usize) else {
                        continue;
                    };
                    uses_files |= text.contains(".Files");
                    FileReads::lex(&text)
                }
            };
            add(file, found);
        }
        if uses_files {
            for file in others {
                let Some((text, _)) = read_text(file, MAX_FILE_BYTES as usize) else {
                    continue;
                };
                add(file, FileReads::lex(&text));
            }
        }
        // Charts read the same values in many places: keep each once.
        reads.sort_unstable();
        reads.dedup();
        reads.shrink_to_fit();
        Scan {
            has_templates,
            reads,
            opaque,
        }
    }

    /// Why `path` read by a template is not a value of the chart: the first key
    /// `values.yaml` does not have, with the path to it. `None` when it is there, or
    /// may be: under a `null`, a scalar, a list or an empty map (filled by users), a
    /// key named in a comment, `global`, a dependency's, or one the template `set`s.
    pub fn undefined(&self, path: &[String], set: &[Vec<String>]) -> Option<usize> {
        let first = path.first()?;
        // `_name`: by convention supplied from outside (a parent, a platform).
        if first == "global"
            || first.starts_with('_')
            || self.dependencies.iter().any(|(name, _)| name == first)
        {
            return None;
        }
        if set
            .iter()
            .any(|set| path.starts_with(set) || set.starts_with(path))
        {
            return None;
        }
        let missing = missing_in(&self.values, path, &self.commented)?;
        // A parent that sets it for this chart defines it too.
        if self
            .from_parent
            .iter()
            .any(|values| missing_in(values, path, &HashSet::new()).is_none())
        {
            return None;
        }
        Some(missing)
    }
}

/// Where `path` leaves `values`: the depth of the first key a non-empty map lacks
/// (and no comment names).
fn missing_in(values: &Keys, path: &[String], commented: &HashSet<String>) -> Option<usize> {
    let mut node = values;
    for (depth, key) in path.iter().enumerate() {
        match node {
            Keys::Open => return None,
            Keys::Map(_) => match node.get(key) {
                Some(child) => node = child,
                None => return (!commented.contains(key.as_str())).then_some(depth),
            },
        }
    }
    None
}

/// The keys of a values file without its values: all the value rules need, and a
/// fraction of the tree's memory.
#[derive(Debug, Clone)]
pub enum Keys {
    /// A map with keys: name, line, what is under it.
    Map(Vec<(String, usize, Keys)>),
    /// A null, a scalar, a list or an empty map: users may put anything there.
    Open,
}

impl Keys {
    fn of(node: &Node) -> Keys {
        let Value::Map(entries) = &node.value else {
            return Keys::Open;
        };
        let keys: Vec<(String, usize, Keys)> = entries
            .iter()
            .filter_map(|(key, value)| match &key.value {
                Value::Scalar(Scalar::Str(name)) => Some((name.clone(), key.line, Keys::of(value))),
                _ => None,
            })
            .collect();
        if keys.is_empty() {
            Keys::Open
        } else {
            Keys::Map(keys)
        }
    }

    /// What is under `key` (the last of duplicate keys, as YAML loaders keep).
    fn get(&self, key: &str) -> Option<&Keys> {
        match self {
            Keys::Map(entries) => entries
                .iter()
                .rev()
                .find(|(name, _, _)| name == key)
                .map(|(_, _, keys)| keys),
            Keys::Open => None,
        }
    }
}

impl Chart {
    /// The outermost keys of `values.yaml` that nothing of the chart reads, with
    /// their lines: none when a file reads the values in a way that cannot be
    /// followed.
    pub fn unused(&self) -> Vec<(Vec<String>, usize)> {
        let scan = self.scan();
        if scan.opaque.is_some() || self.library || !scan.has_templates {
            return Vec::new();
        }
        let mut found = Vec::new();
        let Keys::Map(entries) = &self.values else {
            return found;
        };
        let own = Used::new(&scan.reads);
        for (name, line, value) in entries {
            let path = vec![name.clone()];
            // `enabled` at the top: the switch a parent's `condition: NAME.enabled`
            // reads when the chart is used as a dependency.
            if name == "enabled" {
                continue;
            }
            if name == "global" {
                // Read by this chart and every dependency: checked only when all are
                // vendored, against all of them.
                if self.dependencies.iter().any(|(_, chart)| {
                    chart
                        .as_ref()
                        .is_none_or(|chart| chart.scan().opaque.is_some())
                }) {
                    continue;
                }
                let mut reads = scan.reads.clone();
                for (_, chart) in &self.dependencies {
                    reads.extend(
                        chart
                            .iter()
                            .flat_map(|chart| chart.scan().reads.iter().cloned()),
                    );
                }
                let all = Used::new(&reads);
                if all.reaches(&path) {
                    unused_under(value, &mut path.clone(), &all, &mut found);
                } else {
                    found.push((path, *line));
                }
                continue;
            }
            match self
                .dependencies
                .iter()
                .find(|(dependency, _)| dependency == name)
            {
                // A subchart's values are read by its own files.
                Some((_, Some(chart))) => {
                    if chart.scan().opaque.is_none() {
                        let mut inner = Vec::new();
                        unused_under(
                            value,
                            &mut Vec::new(),
                            &Used::new(&chart.scan().reads),
                            &mut inner,
                        );
                        found.extend(
                            inner
                                .into_iter()
                                .filter(|(inner, _)| {
                                    // `enabled` and the like, read by this chart's conditions.
                                    let mut whole = path.clone();
                                    whole.extend(inner.iter().cloned());
                                    !own.reaches(&whole)
                                })
                                .map(|(inner, line)| {
                                    let mut whole = path.clone();
                                    whole.extend(inner);
                                    (whole, line)
                                }),
                        );
                    }
                }
                Some((_, None)) => {}
                None => {
                    if own.reaches(&path) {
                        let mut prefix = path.clone();
                        unused_under(value, &mut prefix, &own, &mut found);
                    } else {
                        found.push((path, *line));
                    }
                }
            }
        }
        found
    }
}

/// Under `node` (at `prefix`), the outermost keys no read covers.
fn unused_under(
    node: &Keys,
    prefix: &mut Vec<String>,
    used: &Used,
    found: &mut Vec<(Vec<String>, usize)>,
) {
    let Keys::Map(entries) = node else {
        return;
    };
    for (name, line, value) in entries {
        prefix.push(name.clone());
        if !used.reaches(prefix) {
            found.push((prefix.clone(), *line));
        } else if !used.whole_above(prefix) {
            unused_under(value, prefix, used, found);
        }
        prefix.pop();
    }
}

/// Reads indexed for [`Used::reaches`]: every read path and each of its prefixes,
/// and the paths read whole.
struct Used {
    touched: HashSet<Vec<String>>,
    whole: HashSet<Vec<String>>,
}

impl Used {
    fn new(reads: &[(Vec<String>, Use)]) -> Used {
        let mut touched = HashSet::new();
        let mut whole = HashSet::new();
        for (path, use_) in reads {
            for end in 1..=path.len() {
                touched.insert(path[..end].to_vec());
            }
            if *use_ == Use::Whole {
                whole.insert(path.clone());
            }
        }
        Used { touched, whole }
    }

    /// Whether a read reaches `path`: the path itself, something under it, or
    /// something above it read whole.
    fn reaches(&self, path: &[String]) -> bool {
        self.touched.contains(path) || self.whole_above(path)
    }

    /// Whether `path` or a key above it is read whole.
    fn whole_above(&self, path: &[String]) -> bool {
        (1..=path.len()).any(|end| self.whole.contains(&path[..end]))
    }
}

/// Whether a guard of a read makes the missing key at `depth` set whenever the
/// read runs: a guard on that key or under it.
pub fn guarded(read: &Read, depth: usize) -> bool {
    let missing = &read.path[..=depth.min(read.path.len().saturating_sub(1))];
    read.guards.iter().any(|guard| guard.starts_with(missing))
}

fn split_path(path: &str) -> Vec<String> {
    path.split('.')
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect()
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
            } else if kind.is_file()
                && !(folder == root && (name == "values.yaml" || name == "Chart.yaml"))
                // helm-docs templates and documentation: they describe values, they do
                // not use them.
                && !name.ends_with(".gotmpl")
                && !name.ends_with(".md")
                && entry.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES)
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn read_text(path: &Path, limit: usize) -> Option<(String, u64)> {
    let bytes = crate::source::read_regular(path, limit).ok()?;
    if bytes.len() > limit {
        return None;
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    String::from_utf8(bytes).ok().map(|text| (text, hash))
}

/// `name` of every comment line shaped like a key (`# name: value`, `#name:`),
/// the way charts document values they leave unset.
fn commented_names(text: &str) -> HashSet<String> {
    text.lines()
        .filter_map(|line| {
            let comment = line.trim_start().strip_prefix('#')?;
            let comment = comment.trim_start_matches('#').trim_start();
            let comment = comment.strip_prefix("- ").unwrap_or(comment);
            let end = comment.find(':')?;
            let name = &comment[..end];
            (!name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .then(|| name.rsplit('.').next().unwrap_or(name).to_string())
        })
        .collect()
}

/// What the parent chart's `values.yaml` sets for a chart vendored in its
/// `charts/`: the values under the chart's folder name, its `name` and any alias.
fn parent_values(root: &Path) -> (Vec<Keys>, u64) {
    let Some(folder) = root.parent() else {
        return (Vec::new(), 0);
    };
    if folder.file_name().is_none_or(|name| name != "charts") {
        return (Vec::new(), 0);
    }
    let Some(parent) = folder.parent() else {
        return (Vec::new(), 0);
    };
    let Some((text, hash)) = read_text(&parent.join("values.yaml"), MAX_VALUES_BYTES) else {
        return (Vec::new(), 0);
    };
    let Ok(values) = small_yaml::parse_bounded(&text, MAX_NODES, 128) else {
        return (Vec::new(), hash);
    };
    let mut names: Vec<String> = root
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .into_iter()
        .collect();
    if let Ok((chart, _)) = small_yaml::load(&root.join("Chart.yaml")) {
        if let Some(name) = chart.get("name").and_then(Node::as_str) {
            names.push(name.to_string());
        }
    }
    if let Ok((chart, _)) = small_yaml::load(&parent.join("Chart.yaml")) {
        if let Some(Value::Seq(items)) = chart.get("dependencies").map(|node| &node.value) {
            for item in items {
                let name = item.get("name").and_then(Node::as_str);
                if name.is_some_and(|name| names.iter().any(|known| known == name)) {
                    if let Some(alias) = item.get("alias").and_then(Node::as_str) {
                        names.push(alias.to_string());
                    }
                }
            }
        }
    }
    let keys = names
        .iter()
        .filter_map(|name| values.get(name).map(Keys::of))
        .collect();
    (keys, hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analysis for `unused-value` takes what the check saw of a template, and
    /// reads from disk only the templates the check did not see.
    #[test]
    fn the_analysis_reads_no_template_the_check_saw() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path();
        std::fs::create_dir(root.join("templates")).unwrap();
        std::fs::write(
            root.join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 1.0.0\n",
        )
        .unwrap();
        std::fs::write(root.join("values.yaml"), "a: 1\nb: 2\nc: 3\n").unwrap();
        std::fs::write(root.join("templates/seen.yaml"), "x: {{ .Values.a }}\n").unwrap();
        std::fs::write(root.join("templates/unseen.yaml"), "y: {{ .Values.c }}\n").unwrap();
        let chart = Charts::default().chart(root).unwrap();
        // What the check saw of `seen.yaml` reads `b`; the file on disk reads `a`.
        let text = "x: {{ .Values.b }}\n";
        let (actions, _) = crate::template::lex::lex(text);
        let found = crate::template::reads::reads(text, &actions);
        let seen = Seen::of(text.as_bytes(), 0).with_reads(text, found);
        chart.saw(&root.join("templates/seen.yaml"), seen);
        let read: Vec<String> = chart
            .scan()
            .reads
            .iter()
            .map(|(path, _)| path.join("."))
            .collect();
        assert_eq!(read, ["b", "c"]);
    }
}
