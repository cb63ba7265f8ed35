//! The dependency graph: where each dependency of a chart lies, resolved as Helm
//! resolves it, and the charts around a chart (its parent, the charts it reaches,
//! the repository's libraries).

use crate::collections::HashSet;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::values::missing_in;
use super::{
    Archive, Chart, Charts, Dependency, DependencySource, Location, MAX_ARCHIVE_DEPTH, MAX_NESTING,
    MAX_REACHED_CHARTS, MAX_VALUES_BYTES, Manifest, Read, ResolvedDependency, Scope, charts_folder,
    is_chart, manifest,
};
use crate::analysis::chart_yamls::Wanted;
use crate::analysis::small_yaml;

/// A chart's name and version, as a dependency matches them.
type NameVersion = (String, Option<String>);

impl Chart {
    /// A dependency's chart, when it was found.
    pub(super) fn dependency_chart(&self, resolved: &ResolvedDependency) -> Option<Arc<Chart>> {
        self.charts
            .upgrade()?
            .at(resolved.location.as_ref()?, &self.scope)
    }

    /// The chart whose `charts/` folder holds this one.
    pub(super) fn parent_chart(&self) -> Option<Arc<Chart>> {
        let (folder, chart) = self
            .parent
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
                let chart = self.charts.upgrade()?.chart(parent, &self.scope)?;
                Some((parent.to_path_buf(), Arc::downgrade(&chart)))
            })
            .as_ref()?;
        chart
            .upgrade()
            .or_else(|| self.charts.upgrade()?.chart(folder, &self.scope))
    }

    /// Whether the parent chart's values set `path` for this chart: under its
    /// folder's name, its `name` or an alias the parent gives it.
    pub(super) fn parent_sets(&self, path: &[String]) -> bool {
        let Some(parent) = self.parent_chart() else {
            return false;
        };
        self.names_in(&parent)
            .iter()
            .filter_map(|name| parent.values().get(name))
            .any(|values| missing_in(values, path, &HashSet::default()).is_none())
    }

    /// The keys `parent` may keep this chart's values under: the chart's folder
    /// name, its `name`, and the alias the parent gives it.
    fn names_in(&self, parent: &Chart) -> Vec<String> {
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
    }

    /// Where Helm looks for this chart's value at `path` before the chart's own
    /// `values.yaml`, outermost chart first (its value wins): each parent's values
    /// under the key it keeps this chart's at (`child.replicas`), or, for a path
    /// under `global`, the same path, which Helm copies into every subchart. Each
    /// chart with the path its values spell; up to the nesting limit.
    pub fn overriding_sources(&self, path: &[String]) -> Vec<(Arc<Chart>, Vec<String>)> {
        let global = path.first().is_some_and(|first| first == "global");
        let ancestors = self.ancestors();
        let mut sources = Vec::new();
        let mut spelled = path.to_vec();
        for (index, chart) in ancestors.iter().enumerate() {
            if !global {
                let child: &Chart = index.checked_sub(1).map_or(self, |below| &ancestors[below]);
                let names = child.names_in(chart);
                // The key the parent's values use, else the one Helm would: the
                // alias, or the chart's name.
                let key = names
                    .iter()
                    .find(|name| chart.values().get(name).is_some())
                    .or(names.last())
                    .cloned()
                    .unwrap_or_default();
                spelled.insert(0, key);
            }
            sources.push((chart.clone(), spelled.clone()));
        }
        sources.reverse();
        sources
    }

    /// The charts whose `charts/` folders hold this one, nearest first, up to the
    /// nesting limit.
    pub fn ancestors(&self) -> Vec<Arc<Chart>> {
        let mut ancestors: Vec<Arc<Chart>> = Vec::new();
        let mut parent = self.parent_chart();
        while let Some(chart) = parent {
            if ancestors.len() >= MAX_NESTING {
                break;
            }
            parent = chart.parent_chart();
            ancestors.push(chart);
        }
        ancestors
    }

    /// The library charts of the chart's repository and `chart-paths`, the
    /// nearest of each name ([`super::repository::Repository::libraries_near`]),
    /// bounded.
    pub(super) fn repository_libraries(&self) -> Vec<Arc<Chart>> {
        let Some(charts) = self.charts.upgrade() else {
            return Vec::new();
        };
        charts
            .libraries_near(&self.scope, &self.root)
            .iter()
            .filter_map(|folder| charts.chart(folder, &self.scope))
            .collect()
    }

    /// The charts this chart's dependencies reach, breadth first, itself left out,
    /// each once, bounded.
    pub(super) fn reached_charts(&self) -> Vec<Arc<Chart>> {
        let mut reached: Vec<Arc<Chart>> = Vec::new();
        let mut seen: HashSet<PathBuf> = HashSet::from_iter([self.root.clone()]);
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
}

/// Where each dependency of a chart lies, in Helm's order: a folder or an archive
/// under `charts/`, a `file://` path, a chart of that name and version elsewhere
/// in the repository or under `chart-paths`. Then every chart under `charts/` that
/// no declaration names.
pub(super) fn resolve_dependencies(
    manifest: &Manifest,
    location: &Location,
    archive: Option<&Archive>,
    charts: &Charts,
    scope: &Scope,
    boundary: &Path,
) -> (Vec<ResolvedDependency>, Vec<String>) {
    let (vendored, unread) = vendored_charts(location, archive, charts, boundary);
    let mut used = vec![false; vendored.len()];
    let mut resolved = Vec::new();
    for dependency in &manifest.dependencies {
        let matches = |found: &NameVersion| accepts(dependency, found);
        if let Some(at) = vendored.iter().position(|(_, name, _)| matches(name)) {
            used[at] = true;
            let (found, _, source) = &vendored[at];
            resolved.push(ResolvedDependency {
                dependency: dependency.clone(),
                location: Some(found.clone()),
                source: source.clone(),
            });
            continue;
        }
        let elsewhere = match location {
            Location::Folder(root) => {
                find_elsewhere(dependency, (root, boundary), charts, scope, &matches)
            }
            Location::Archive { .. } => {
                Err("inside an archive, only its own charts/ is read".into())
            }
        };
        match elsewhere {
            Ok((found, source)) => resolved.push(ResolvedDependency {
                dependency: dependency.clone(),
                location: Some(found),
                source,
            }),
            Err(why) => {
                // A folder or an archive of its name under `charts/` that could
                // not be read is why it is missing.
                let unread = unread.iter().find(|(file_name, _)| {
                    file_name.is_empty() || vendored_as(file_name, &dependency.name)
                });
                resolved.push(ResolvedDependency {
                    dependency: dependency.clone(),
                    location: None,
                    source: match unread {
                        Some((_, unread)) => DependencySource::Unread(unread.clone()),
                        None => DependencySource::Missing(why),
                    },
                });
            }
        }
    }
    for ((found, (name, version), source), used) in vendored.into_iter().zip(used) {
        if !used {
            resolved.push(ResolvedDependency {
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
    (resolved, unread.into_iter().map(|(_, why)| why).collect())
}

/// Whether the entry `file_name` of `charts/` is where the chart `name` was put:
/// its folder, or the archive `helm dependency build` makes of it
/// (`common-2.1.0.tgz` of `common`).
fn vendored_as(file_name: &str, name: &str) -> bool {
    let stem = file_name.strip_suffix(".tgz").unwrap_or(file_name);
    // `-` and a version (`common-2.1.0`, `common-v2`): `common-lib-2.0.0` is
    // another chart.
    stem.strip_prefix(name).is_some_and(|rest| {
        let version = rest
            .strip_prefix('-')
            .map(|v| v.strip_prefix('v').unwrap_or(v));
        rest.is_empty() || version.is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// The charts under a chart's `charts/`: folders and archives, each with its name
/// and version (a folder's name stands in for a missing `name:`); and the archives
/// that could not be read, by file name, each with a sentence saying why (an empty
/// name: the whole `charts/` folder, a link).
fn vendored_charts(
    location: &Location,
    archive: Option<&Archive>,
    charts: &Charts,
    boundary: &Path,
) -> (Vec<Vendored>, Vec<(String, String)>) {
    let mut found = Vec::new();
    let mut unread = Vec::new();
    match (location, archive) {
        (Location::Folder(root), _) => {
            in_charts_folder(root, charts, boundary, &mut found, &mut unread)
        }
        (Location::Archive { key, prefix }, Some(archive)) => {
            in_archived_charts_folder(archive, key, prefix, charts, &mut found, &mut unread)
        }
        (Location::Archive { .. }, None) => {}
    }
    found.truncate(MAX_REACHED_CHARTS);
    (found, unread)
}

/// [`vendored_charts`] of a chart folder: the folders and archives of its
/// `charts/`.
fn in_charts_folder(
    root: &Path,
    charts: &Charts,
    boundary: &Path,
    found: &mut Vec<Vendored>,
    unread: &mut Vec<(String, String)>,
) {
    let entries = match charts_folder(root) {
        Ok(entries) => entries,
        Err(why) => {
            // The whole folder: every chart that would be in it.
            unread.push((String::new(), why.to_string()));
            return;
        }
    };
    for entry in entries {
        // The entry's own type: a link is neither a folder nor a file here.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if kind.is_dir() {
            let manifest = match folder_manifest(&path, charts, boundary) {
                Ok(Some(manifest)) => manifest,
                // A folder without a `Chart.yaml` is no chart, to Helm too.
                Ok(None) => continue,
                Err(why) => {
                    let why = format!("charts/{file_name}/Chart.yaml {why}");
                    unread.push((file_name, why));
                    continue;
                }
            };
            let name = manifest.name.unwrap_or(file_name);
            found.push((
                Location::Folder(path),
                (name, manifest.version),
                DependencySource::Vendored,
            ));
        } else if file_name.ends_with(".tgz") {
            match vendored_archive(&entry, charts) {
                Ok(charts) => found.extend(charts),
                Err(why) => {
                    let why = format!("charts/{file_name} is not read: {why}");
                    unread.push((file_name, why));
                }
            }
        }
    }
}

/// What the `Chart.yaml` of the folder `path` under `charts/` says: from the chart
/// when the run read it already (a library every chart of the repository reads),
/// else from the repository's listing or the file, read once; `None` when there is
/// none, an error when it cannot be read.
fn folder_manifest(
    path: &Path,
    charts: &Charts,
    boundary: &Path,
) -> Result<Option<Manifest>, String> {
    if let Some(chart) = charts.read_already(path) {
        return Ok(Some(chart.manifest.clone()));
    }
    let chart_yaml = path.join("Chart.yaml");
    // The run's listing of the repository's `Chart.yaml` files read and parsed it
    // (and says when the graph's bounds refuse it: then it names no chart).
    if let Some(manifest) = charts.listed_manifest(&chart_yaml, MAX_VALUES_BYTES) {
        return Ok(manifest.map(|manifest| (*manifest).clone()));
    }
    let read = match charts.read_already(path) {
        // Made on another thread meanwhile: the listing let go of its text.
        Some(chart) => return Ok(Some(chart.manifest.clone())),
        None => Read::in_folder(&chart_yaml, boundary, MAX_VALUES_BYTES),
    };
    match read {
        Read::Text(text, _) => Ok(manifest_of(&text)),
        Read::Absent => Ok(None),
        Read::Unreadable(why) => Err(why),
    }
}

/// [`vendored_charts`] of a chart inside an archive (`key`, its files under
/// `prefix`): its `charts/` folders, and the archives inside the archive, read from
/// memory, a few levels deep.
fn in_archived_charts_folder(
    archive: &Archive,
    key: &Path,
    prefix: &str,
    charts: &Charts,
    found: &mut Vec<Vendored>,
    unread: &mut Vec<(String, String)>,
) {
    let under = format!("{prefix}charts/");
    found.extend(archive_charts(archive, key, &under));
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
            unread.push((
                rest.to_string(),
                format!("{name} is not read: archives nest deeper than {MAX_ARCHIVE_DEPTH}"),
            ));
            continue;
        }
        let nested_key = key.join(name);
        match charts.archive(&nested_key, || Ok(Archive::from_bytes(bytes))) {
            Ok(nested) => match archive_charts(&nested, &nested_key, "") {
                charts if charts.is_empty() => {
                    unread.push((
                        rest.to_string(),
                        format!("{name} is not read: {}", no_chart(&nested)),
                    ));
                }
                charts => found.extend(charts),
            },
            Err(why) => unread.push((rest.to_string(), format!("{name} is not read: {why}"))),
        }
    }
}

/// The charts of the archive `entry` under a chart folder's `charts/`, or what is
/// wrong with it: a link or anything but a regular file is named from the folder's
/// listing, never opened (a FIFO would block), and an archive that holds no chart
/// says why (not a gzip-compressed tar, cut short).
fn vendored_archive(entry: &std::fs::DirEntry, charts: &Charts) -> Result<Vec<Vendored>, String> {
    let metadata = entry
        .metadata()
        .map_err(|error| format!("cannot be read: {error}"))?;
    if metadata.file_type().is_symlink() {
        return Err(
            "it is a symbolic link, and tether reads a chart archive only as a regular file".into(),
        );
    }
    if !metadata.is_file() {
        return Err(format!(
            "it is {}, not a regular file",
            crate::source::file_kind(&metadata)
        ));
    }
    let path = entry.path();
    let archive = charts.archive(&path, || Archive::read(&path))?;
    let found = archive_charts(&archive, &path, "");
    if found.is_empty() {
        return Err(no_chart(&archive));
    }
    Ok(found)
}

/// Why an archive gave no chart: what stopped its reading, or that it holds no
/// `<folder>/Chart.yaml`.
fn no_chart(archive: &Archive) -> String {
    match &archive.incomplete {
        Some(why) => why.clone(),
        None => "it holds no chart (no `<folder>/Chart.yaml` inside)".into(),
    }
}

/// A chart found under `charts/`: where it lies, its name and version, and how.
type Vendored = (Location, NameVersion, DependencySource);

/// The charts of an archive whose folders lie directly under `under` (`""` for
/// the top of a packaged archive, `common/charts/` for a chart's subcharts).
fn archive_charts(archive: &Archive, key: &Path, under: &str) -> Vec<Vendored> {
    let source = if under.is_empty() {
        DependencySource::Archive(key.to_path_buf())
    } else {
        DependencySource::Vendored
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
    small_yaml::parse_bounded(text, super::manifest::MAX_CHART_YAML_NODES, 64)
        .ok()
        .map(|node| Manifest::of(&node, None))
}

/// Whether a chart of `name` at `version` is what `dependency` asks for: its name,
/// and a version its range takes (a range tether cannot read takes any).
fn accepts(dependency: &Dependency, (name, version): &NameVersion) -> bool {
    *name == dependency.name
        && match (&dependency.version, version) {
            (Some(constraint), Some(version)) => {
                manifest::version_matches(constraint, version) != Some(false)
            }
            _ => true,
        }
}

impl Charts {
    /// The folders of the library charts the chart in the folder `root` searches
    /// for defines it does not have, of each name the nearest
    /// ([`super::repository::Repository::libraries_near`]), itself left out,
    /// bounded.
    pub fn libraries_near(&self, scope: &Scope, root: &Path) -> Vec<PathBuf> {
        if scope.top.is_none() && scope.chart_paths.is_empty() {
            return Vec::new();
        }
        self.repository(scope)
            .libraries_near(root)
            .into_iter()
            .filter(|folder| *folder != root)
            .take(MAX_REACHED_CHARTS)
            .cloned()
            .collect()
    }

    /// The folder the chart in the folder `root` reads `wanted` from when that
    /// dependency is not under its `charts/`, found as [`Chart::read`] finds it:
    /// its `file://` folder, or the nearest chart of its name at a version it takes.
    /// Only the scope's listing is read, and the folders on a `file://` path.
    pub fn found_elsewhere(&self, scope: &Scope, root: &Path, wanted: &Wanted) -> Option<PathBuf> {
        let dependency = Dependency {
            name: wanted.name.clone(),
            version: wanted.version.clone(),
            repository: wanted.repository.clone(),
            ..Dependency::default()
        };
        let boundary = scope.boundary(root);
        let matches = |found: &NameVersion| accepts(&dependency, found);
        match find_elsewhere(&dependency, (root, &boundary), self, scope, &matches) {
            Ok((Location::Folder(folder), _)) => Some(folder),
            _ => None,
        }
    }
}

/// A dependency not under `charts/`: its `file://` folder, or a chart of its name
/// and a matching version in the repository or under `chart-paths`. `at` is the
/// chart's folder and the folder its files must lie in ([`Scope::boundary`]).
fn find_elsewhere(
    dependency: &Dependency,
    at: (&Path, &Path),
    charts: &Charts,
    scope: &Scope,
    matches: &dyn Fn(&NameVersion) -> bool,
) -> Result<(Location, DependencySource), String> {
    let (root, boundary) = at;
    if let Some(path) = dependency
        .repository
        .as_deref()
        .and_then(|repository| repository.strip_prefix("file://"))
    {
        // A stranger's chart may name any folder: one outside the repository is
        // neither read nor looked at, so the answer is the same whether or not it
        // exists.
        let folder = match crate::paths::confine(&root.join(path), boundary) {
            crate::paths::Confined::Inside(folder) => folder,
            crate::paths::Confined::Outside => {
                return Err(format!(
                    "`file://{path}` lies outside the repository, which tether does not read; check that chart out inside the repository"
                ));
            }
            crate::paths::Confined::Loop => {
                return Err(format!("`file://{path}` is a loop of symbolic links"));
            }
        };
        if is_chart(&folder) {
            return Ok((
                Location::Folder(folder.clone()),
                DependencySource::FilePath(folder),
            ));
        }
        if !folder.is_dir() {
            return Err(format!("`file://{path}` is not there"));
        }
        return Err(format!("`file://{path}` holds no Chart.yaml"));
    }
    if scope.top.is_none() && scope.chart_paths.is_empty() {
        return Err("not under charts/".into());
    }
    let repository = charts.repository(scope);
    let candidates = repository.named_near(&dependency.name, root);
    if let Some((folder, _)) = candidates.iter().find(|(folder, version)| {
        folder != root && matches(&(dependency.name.clone(), version.clone()))
    }) {
        return Ok((
            Location::Folder(folder.clone()),
            DependencySource::Elsewhere(folder.clone()),
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

#[cfg(test)]
mod tests {
    use super::vendored_as;

    #[test]
    fn a_vendored_name_is_the_chart_or_the_chart_and_a_version() {
        assert!(vendored_as("common", "common"));
        assert!(vendored_as("common-2.1.0.tgz", "common"));
        assert!(vendored_as("common-v2.tgz", "common"));
        assert!(!vendored_as("common-lib-2.0.0.tgz", "common"));
        assert!(!vendored_as("commons", "common"));
    }
}
