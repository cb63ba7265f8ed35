//! Reading a chart: its `Chart.yaml` and `values.yaml` into a [`Chart`], and the
//! files it lists, from its folder (or an overlay's text) or from its archive.

use crate::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::dependencies::resolve_dependencies;
use super::scan::lex_reads;
use super::values::commented_names;
use super::{
    Archive, Chart, ChartFiles, Charts, Keys, Location, MAX_FILE_BYTES, MAX_FILES, MAX_NESTING,
    MAX_NODES, MAX_REACHED_CHARTS, MAX_VALUES_BYTES, Manifest, Read, ReadsMemo, ResolvedDependency,
    Scope, UnsavedTexts, ValuesRead,
};
use crate::analysis::small_yaml;
use crate::cache_key::CacheKey;
use crate::template::reads::{Arg, Reads};

/// A chart's `Chart.yaml`, and why it could not be read when it could not. A
/// `Chart.yaml` tether cannot read still makes its folder a chart (Helm would refuse
/// it, or read it where tether's limits stop): said, and the values rules skip the
/// chart, since its dependencies are unknown.
fn chart_yaml_of(text: &str) -> (small_yaml::Node, Option<String>) {
    match small_yaml::parse_bounded(text, super::manifest::MAX_CHART_YAML_NODES, 64) {
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

/// A chart's `Chart.yaml` as its chart is read: the manifest the run's listing of
/// the repository's `Chart.yaml` files made of it (its parse made no more nodes than
/// the graph reads), or the file parsed here.
enum ChartYaml {
    Listed(Arc<Manifest>),
    Parsed(small_yaml::Node),
}

impl ChartYaml {
    /// The chart's manifest, given its `requirements.yaml`.
    fn manifest(self, requirements: Option<&small_yaml::Node>) -> Manifest {
        match self {
            ChartYaml::Listed(listed) => (*listed).clone().with_requirements(requirements),
            ChartYaml::Parsed(node) => Manifest::of(&node, requirements),
        }
    }
}

/// The archive a chart at `location` lies in (`None` for a folder), with what it
/// left out in `problems`; `None` when it could not be read.
fn archive_of(
    location: &Location,
    charts: &Charts,
    problems: &mut Vec<String>,
) -> Option<Option<Arc<Archive>>> {
    let Location::Archive { key, .. } = location else {
        return Some(None);
    };
    let archive = charts.archive(key, || Err(String::new())).ok()?;
    if let Some(why) = &archive.incomplete {
        problems.push(format!(
            "{} was read only in part ({why}): what its templates left out read is unknown",
            key.display()
        ));
    }
    Some(Some(archive))
}

/// What a chart's `values.yaml`, as `read` found it (at `path`, through `memo`
/// when the charts keep one), holds.
fn values_of(read: Read, path: &Path, memo: Option<&ReadsMemo>) -> ValuesRead {
    match read {
        Read::Text(text, hash) => values_of_text(&text, hash, path, memo),
        Read::Absent => values_read("", None),
        Read::Unreadable(why) => values_read("", Some(format!("values.yaml {why}"))),
    }
}

/// What the values `text` at `path`, whose bytes hash to `hash`, holds (through
/// `memo` when the charts keep one).
fn values_of_text(text: &str, hash: u64, path: &Path, memo: Option<&ReadsMemo>) -> ValuesRead {
    match memo {
        Some(memo) => memo.values(path, hash, || values_read(text, None)),
        None => values_read(text, None),
    }
}

/// What the values `text` holds; `problem` is why it is not the file's whole text.
fn values_read(text: &str, mut problem: Option<String>) -> ValuesRead {
    let keys = match small_yaml::parse_bounded(text, MAX_NODES, 128) {
        Ok(node) => Keys::of(&node),
        Err((line, why)) => {
            problem = Some(format!("values.yaml is not read past line {line}: {why}"));
            Keys::Open
        }
    };
    ValuesRead {
        keys: Arc::new(keys),
        commented: Arc::new(commented_names(text)),
        reads: Arc::new(values_file_reads(text)),
        problem,
    }
}

impl Chart {
    pub(super) fn read(location: &Location, charts: &Arc<Charts>, scope: &Scope) -> Option<Chart> {
        let root = location.root();
        let mut problems = Vec::new();
        let archive = archive_of(location, charts, &mut problems)?;
        let overlay = charts.overlay.clone();
        let boundary = scope.boundary(&root);
        let read = |name: &str| {
            read_chart_file(
                (archive.as_deref(), overlay.as_deref()),
                location,
                &boundary,
                name,
                MAX_VALUES_BYTES,
            )
        };
        let on_disk = matches!(location, Location::Folder(_)) && overlay.is_none();
        let (chart_text, chart_hash, listed) = chart_yaml_text(on_disk, charts, &root, read)?;
        let (chart_yaml, chart_problem) = match listed {
            Some(manifest) => (ChartYaml::Listed(manifest), None),
            None => {
                let (node, problem) = chart_yaml_of(&chart_text);
                (ChartYaml::Parsed(node), problem)
            }
        };
        // `values.yaml` is parsed on first use (`Chart::values_read`): a cached
        // run of an unchanged chart needs only the hash of its bytes.
        let values_read = read("values.yaml");
        let values_hash = match &values_read {
            Read::Text(_, hash) => *hash,
            Read::Absent => 0,
            // Why it is not read is what the chart's notes say.
            Read::Unreadable(why) => xxhash_rust::xxh3::xxh3_64(why.as_bytes()) | 1,
        };
        let (handed, values_source) =
            handed_texts(on_disk, &root, (chart_text, chart_hash), values_read);
        let chart_yaml_unreadable = chart_problem.is_some();
        problems.extend(chart_problem);
        let values_problem_at = problems.len();
        let requirements = match read("requirements.yaml") {
            Read::Text(text, hash) => Some((text, hash)),
            _ => None,
        };
        let requirements_yaml = requirements
            .as_ref()
            .and_then(|(text, _)| small_yaml::parse_bounded(text, MAX_NODES, 64).ok());
        let manifest = chart_yaml.manifest(requirements_yaml.as_ref());
        let nesting = root
            .components()
            .filter(|component| component.as_os_str() == "charts")
            .count();
        let mut unread_archives = Vec::new();
        let mut dependencies = if nesting < MAX_NESTING {
            let (dependencies, unread) = resolve_dependencies(
                &manifest,
                location,
                archive.as_deref(),
                charts,
                scope,
                &boundary,
            );
            problems.extend(unread.iter().cloned());
            unread_archives = unread;
            dependencies
        } else {
            Vec::new()
        };
        dependencies.truncate(MAX_REACHED_CHARTS);
        let hashes = (chart_hash, values_hash, requirements.map(|(_, hash)| hash));
        let fingerprint = fingerprint_of(hashes, &dependencies);
        Some(Chart {
            root,
            location: location.clone(),
            boundary,
            archive,
            library: manifest.library,
            manifest,
            values: OnceLock::new(),
            values_source: Mutex::new(values_source),
            dependencies,
            problems,
            values_problem_at,
            chart_yaml_unreadable,
            unread_archives,
            fingerprint,
            scope: scope.clone(),
            charts: Arc::downgrade(charts),
            parent: OnceLock::new(),
            texts: OnceLock::new(),
            scan: OnceLock::new(),
            analysis: OnceLock::new(),
            parts: OnceLock::new(),
            content: OnceLock::new(),
            files: OnceLock::new(),
            define_index: OnceLock::new(),
            graph: OnceLock::new(),
            overlay,
            handed: Mutex::new(handed),
        })
    }

    /// The chart's files under `templates/`, the others, and what could not be
    /// listed, listed once.
    pub(super) fn files(&self) -> &ChartFiles {
        self.files.get_or_init(|| {
            let templates = self.root.join("templates");
            let (files, unreadable) = match &self.archive {
                None => chart_files(&self.root),
                Some(archive) => {
                    let prefix = match &self.location {
                        Location::Archive { prefix, .. } => prefix.as_str(),
                        Location::Folder(_) => "",
                    };
                    (archive_files(archive, prefix, &self.root), Vec::new())
                }
            };
            let (templates, others) = files
                .into_iter()
                .partition(|file| file.starts_with(&templates));
            ChartFiles {
                templates,
                others,
                unreadable,
            }
        })
    }

    /// What `values.yaml` holds, parsed on first use: from the text the chart read,
    /// which waits for the file's check; a text the check took already is read
    /// again.
    pub(super) fn values_read(&self) -> &ValuesRead {
        self.values.get_or_init(|| {
            #[cfg(feature = "internals")]
            super::scan::count_work(&self.root, |work| work.values_parsed += 1);
            let path = self.root.join("values.yaml");
            let memo = self.charts.upgrade().and_then(|charts| charts.memo.clone());
            let memo = memo.as_deref();
            let source = self
                .values_source
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(read) = source {
                return values_of(read, &path, memo);
            }
            {
                let handed = self.handed.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some((text, hash)) = handed.get(&path) {
                    return values_of_text(text, *hash, &path, memo);
                }
            }
            let read = read_chart_file(
                (self.archive.as_deref(), self.overlay.as_deref()),
                &self.location,
                &self.boundary,
                "values.yaml",
                MAX_VALUES_BYTES,
            );
            values_of(read, &path, memo)
        })
    }

    /// The keys of `values.yaml`.
    pub fn values(&self) -> &Arc<Keys> {
        &self.values_read().keys
    }

    /// Names of keys written in the comments of `values.yaml` (`# name: …`), left
    /// out on purpose.
    pub fn commented(&self) -> &Arc<HashSet<String>> {
        &self.values_read().commented
    }

    /// Whether the values could not be read (nor, so, the dependencies: a
    /// `Chart.yaml` tether cannot read).
    pub(super) fn values_unreadable(&self) -> bool {
        self.chart_yaml_unreadable || self.values_read().problem.is_some()
    }

    /// What kept tether from reading the chart whole, in order: the archive, the
    /// `Chart.yaml`, the `values.yaml`, the archives under `charts/`.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = self.problems.clone();
        let at = self.values_problem_at.min(problems.len());
        if let Some(problem) = &self.values_read().problem {
            problems.insert(at, problem.clone());
        }
        problems
    }

    /// The text of one of the chart's files (`path` under [`Chart::root`]).
    pub(super) fn text_of(&self, path: &Path) -> Option<(String, u64)> {
        match self.read_file(path) {
            Read::Text(text, hash) => Some((text, hash)),
            Read::Absent | Read::Unreadable(_) => None,
        }
    }

    /// One of the chart's files (`path` under [`Chart::root`]), or why it is not
    /// text tether reads.
    pub(super) fn read_file(&self, path: &Path) -> Read {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return Read::Absent;
        };
        read_chart_file(
            (self.archive.as_deref(), self.overlay.as_deref()),
            &self.location,
            &self.boundary,
            &crate::paths::slashed(relative),
            MAX_FILE_BYTES as usize,
        )
    }

    /// Whether `path` is one of the chart's files tether reads.
    pub(super) fn has_file(&self, path: &Path) -> bool {
        let ChartFiles {
            templates, others, ..
        } = self.files();
        templates
            .binary_search_by(|file| file.as_path().cmp(path))
            .is_ok()
            || others
                .binary_search_by(|file| file.as_path().cmp(path))
                .is_ok()
    }
}

/// Regular files of the chart that may hold template actions, its subcharts'
/// folders and hidden ones left out, links not followed; bounded. Also the folders
/// and entries below the chart's folder that could not be listed, with why.
fn chart_files(root: &Path) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    let mut full = false;
    let walked = crate::folders::walk(root, |entry| {
        let name = entry.name();
        let name = name.to_string_lossy();
        let at_top = entry.depth() == 1;
        full |= files.len() >= MAX_FILES;
        if entry.is_hidden() || full {
            crate::folders::Step::Over
        } else if entry.is_dir() {
            // Subcharts are charts of their own; Helm never renders `crds/`.
            if at_top && (name == "charts" || name == "crds") {
                crate::folders::Step::Over
            } else {
                crate::folders::Step::Into
            }
        } else {
            if entry.is_file() && keeps_file(&name, at_top) {
                // Listed whatever its size: reading it says when it is too large.
                files.push(entry.path());
            }
            crate::folders::Step::Into
        }
    });
    files.sort();
    let mut unreadable: Vec<(PathBuf, String)> = walked
        .unread
        .into_iter()
        // Not the chart's own folder: a chart that is not there is read elsewhere
        // as missing.
        .filter(|unread| unread.path != root)
        .map(|unread| {
            let why = unread.why();
            (unread.path, why)
        })
        .collect();
    // What lies past the bound is unknown, as an unreadable folder is.
    if full {
        unreadable.push((
            root.to_path_buf(),
            format!("has more than {MAX_FILES} files; tether reads the first"),
        ));
    }
    (files, unreadable)
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

/// Over the hashes of a chart's `Chart.yaml`, `values.yaml` and
/// `requirements.yaml`, and where each dependency was found.
fn fingerprint_of(hashes: (u64, u64, Option<u64>), dependencies: &[ResolvedDependency]) -> u64 {
    let (chart, values, requirements) = hashes;
    let mut key = CacheKey::new("chart")
        .part("values", values)
        .part("manifest", chart)
        .optional("requirements", requirements);
    for resolved in dependencies {
        key.add_bytes("dependency", format!("{:?}", resolved.source).as_bytes());
    }
    key.finish()
}

/// The file `relative` (`values.yaml`, `templates/x.yaml`) of the chart at
/// `location`, from its folder ([`Read::in_folder`]) or its archive (`sources.0`):
/// UTF-8 text of at most `limit` bytes; an overlay text (`sources.1`) stands in for
/// a file of a folder.
fn read_chart_file(
    sources: (Option<&Archive>, Option<&UnsavedTexts>),
    location: &Location,
    boundary: &Path,
    relative: &str,
    limit: usize,
) -> Read {
    let (archive, overlay) = sources;
    let bytes = match (archive, location) {
        (Some(archive), Location::Archive { prefix, .. }) => {
            match archive.get(&format!("{prefix}{relative}")) {
                Some(bytes) => bytes.to_vec(),
                None => return Read::Absent,
            }
        }
        (_, location) => {
            let path = location.root().join(relative);
            match overlay.and_then(|overlay| overlay.get(&path)) {
                Some(text) => text.as_bytes().to_vec(),
                None => return Read::in_folder(&path, boundary, limit),
            }
        }
    };
    Read::of_bytes(bytes, limit)
}

/// The text of the `Chart.yaml` of the chart at `root` and the hash of its bytes,
/// with its manifest when the text was parsed already: for a chart folder
/// `on_disk`, from the run's listing of the repository's `Chart.yaml` files when it
/// read it, else read with `read`; `None` when there is none tether can read.
fn chart_yaml_text(
    on_disk: bool,
    charts: &Charts,
    root: &Path,
    read: impl Fn(&str) -> Read,
) -> Option<(String, u64, Option<Arc<Manifest>>)> {
    // A copy: the listing lets go of its text once the chart is made
    // (`Charts::at`), so a chart read meanwhile for its vendored charts' names
    // finds it there.
    let listed = on_disk
        .then(|| charts.listed_chart_yaml(&root.join("Chart.yaml"), false))
        .flatten()
        .filter(|listed| listed.text.len() <= MAX_VALUES_BYTES);
    match listed {
        Some(listed) => Some((listed.text, listed.hash, listed.manifest)),
        None => match read("Chart.yaml") {
            Read::Text(text, hash) => Some((text, hash, None)),
            Read::Absent | Read::Unreadable(_) => None,
        },
    }
}

/// The texts of a chart folder's `Chart.yaml` and `values.yaml` as its chart was
/// read from them `on_disk`: a command's run checks these two files too, and takes
/// their texts from the chart rather than read them again (an editor's are its
/// buffers, an archive's are not checked).
/// `values`, what reading `values.yaml` gave, is handed too when it is text;
/// else it is returned, for the values' first use.
fn handed_texts(
    on_disk: bool,
    root: &Path,
    chart_yaml: (String, u64),
    values: Read,
) -> (HashMap<PathBuf, (String, u64)>, Option<Read>) {
    let mut handed = HashMap::default();
    if !on_disk {
        return (handed, Some(values));
    }
    let values = match values {
        Read::Text(text, hash) => {
            handed.insert(root.join("values.yaml"), (text, hash));
            None
        }
        other => Some(other),
    };
    handed.insert(root.join("Chart.yaml"), chart_yaml);
    (handed, values)
}

/// What the `tpl` strings of a values file read: their reads, and the paths their
/// calls spell as strings (`(list "auth.password")`, which the helper reads). The
/// calls themselves are not followed: a call of a define no chart has would make
/// the chart partial for a string that may never be rendered. A call in a comment
/// is an example, and left out.
fn values_file_reads(text: &str) -> Reads {
    let mut found = lex_reads(text);
    found.includes.retain_mut(|include| {
        let line_start = text[..include.span.start]
            .rfind('\n')
            .map_or(0, |at| at + 1);
        include.root = false;
        include.argument = Arg::nothing();
        !text[line_start..].trim_start().starts_with('#')
    });
    found
}
