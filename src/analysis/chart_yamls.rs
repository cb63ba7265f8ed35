//! The `Chart.yaml` files under a folder (a repository's top, or a folder of
//! `chart-paths`), found in one walk and each read once, in parallel. Both readers
//! of a repository's charts take them from here: the version pins of
//! `stale-version-reference`, and the charts by name where the chart graph looks
//! for a dependency that is not under `charts/`.

use crate::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::WalkState;
use rayon::prelude::*;

use crate::analysis::by_hash::ByHash;
use crate::analysis::charts::manifest::{MAX_CHART_YAML_NODES, Manifest};
use crate::analysis::pins::{Pin, chart_yaml_pins};
use crate::analysis::small_yaml::Node;

/// `Chart.yaml` files read at most; a larger tree is read in part, and says so.
const MAX_CHARTS: usize = 20_000;
/// Folder entries walked at most to find them.
const MAX_ENTRIES: usize = 500_000;
/// A `Chart.yaml` larger than this is not read (an umbrella chart pinning thousands
/// of dependencies stays well below it).
const MAX_CHART_YAML_BYTES: usize = 8 << 20;
/// YAML nodes a `Chart.yaml` may make here once aliases are expanded, for its pins
/// and its name; the chart graph reads fewer ([`MAX_CHART_YAML_NODES`]).
const MAX_NODES: usize = 1_000_000;

/// Folders Helm reads as a chart's content: a `Chart.yaml` below one is a file the
/// chart renders or ships, not a chart of the repository.
const CONTENT_FOLDERS: [&str; 3] = ["templates", "crds", "files"];

/// What the `Chart.yaml` files under one folder say.
#[derive(Debug, Default)]
pub struct ChartYamls {
    /// Each chart found, by folder, sorted.
    pub charts: Vec<FoundChart>,
    /// The pins of the `Chart.yaml` files outside any folder named like a chart's
    /// content (`templates/`, `crds/`, `files/`), wherever it is.
    pub pins: Vec<Pin>,
    /// What kept pins from being read (a `Chart.yaml` that is not read, a limit
    /// hit), for `stale-version-reference` to say.
    pub pin_problems: Vec<String>,
    /// Why the listing stopped early, when it did.
    pub truncated: Option<String>,
    /// Each `Chart.yaml` read, with the hash of its bytes and its manifest, until
    /// the chart graph takes it ([`ChartYamls::listed`]): a file is read and parsed
    /// once per run.
    texts: Mutex<HashMap<PathBuf, ListedChartYaml>>,
}

/// A `Chart.yaml` as the listing read it.
#[derive(Debug, Clone)]
pub struct ListedChartYaml {
    pub text: String,
    /// The hash of its bytes.
    pub hash: u64,
    /// What it says without a `requirements.yaml`, when the chart graph's bounds
    /// ([`MAX_CHART_YAML_NODES`]) read it whole; else the graph refuses it.
    pub manifest: Option<Arc<Manifest>>,
}

impl ChartYamls {
    /// The manifest of the `Chart.yaml` at `path` when the listing read it, its
    /// text no longer than `max_bytes`, and it was not taken: `Some(None)` when the
    /// chart graph's bounds refuse it.
    pub fn manifest(&self, path: &Path, max_bytes: usize) -> Option<Option<Arc<Manifest>>> {
        let texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
        texts
            .get(path)
            .filter(|listed| listed.text.len() <= max_bytes)
            .map(|listed| listed.manifest.clone())
    }

    /// The `Chart.yaml` at `path` as the listing read it (its text, the hash of its
    /// bytes, its manifest): handed over once when `take`, else a copy left there;
    /// `None` when it did not read it, or it was taken.
    pub fn listed(&self, path: &Path, take: bool) -> Option<ListedChartYaml> {
        let mut texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
        match take {
            true => texts.remove(path),
            false => texts.get(path).cloned(),
        }
    }

    /// Keeps what each `Chart.yaml` read says, in the order read.
    fn take(&mut self, read: Vec<Read>) {
        let mut texts = HashMap::default();
        for one in read {
            if let (Some(chart), Some(listed)) = (&one.chart, one.listed) {
                texts.insert(chart.folder.join("Chart.yaml"), listed);
            }
            self.charts.extend(one.chart);
            match one.pins {
                Ok(pins) => self.pins.extend(pins),
                Err(problem) => self.pin_problems.push(problem),
            }
        }
        self.texts = Mutex::new(texts);
    }
}

/// One chart of the listing.
#[derive(Debug)]
pub struct FoundChart {
    pub folder: PathBuf,
    /// `name:`, as Helm reads a scalar (`name: true` is `true`).
    pub name: Option<String>,
    /// `version:`, likewise.
    pub version: Option<String>,
    /// `type: library`.
    pub library: bool,
    /// Each of its `dependencies:`, as the order of a run's chart trees needs it.
    pub depends_on: Vec<Wanted>,
}

/// A dependency of a listed chart: its `name`, its `version` (a version or a
/// range) and its `repository` when that is a `file://` folder, as written (a
/// chart repository's address says nothing of where in this one it lies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub name: String,
    pub version: Option<String>,
    pub repository: Option<String>,
}

impl Wanted {
    /// What a manifest's dependency asks for, its `repository` kept only when it
    /// is a `file://` folder.
    fn of(dependency: &crate::analysis::charts::manifest::Dependency) -> Wanted {
        Wanted {
            name: dependency.name.clone(),
            version: dependency.version.clone(),
            repository: dependency
                .repository
                .clone()
                .filter(|repository| repository.starts_with("file://")),
        }
    }
}

/// Lists and reads the `Chart.yaml` files under `top`: what git would list (ignored
/// and hidden files left out, links not followed), `node_modules` and a chart's
/// content folders not entered; bounded in entries, files and bytes.
pub fn list(top: &Path, memo: Option<&ByHash<ChartYamlSays>>) -> ChartYamls {
    let entries = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    // The first folder or entry that could not be listed: charts there are unknown.
    let unread = Mutex::new(None);
    ignore::WalkBuilder::new(top)
        .standard_filters(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let folder = entry.file_type().is_some_and(|kind| kind.is_dir());
            let name = entry.file_name();
            !(folder
                && (name == "node_modules"
                    || (CONTENT_FOLDERS.iter().any(|content| name == *content)
                        && entry
                            .path()
                            .parent()
                            .is_some_and(|chart| chart.join("Chart.yaml").is_file()))))
        })
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                // A run from a huge folder (a home directory) lists its first part only.
                if entries.fetch_add(1, Ordering::Relaxed) >= MAX_ENTRIES {
                    return WalkState::Quit;
                }
                match entry {
                    Ok(entry) => {
                        if entry.file_name() == "Chart.yaml"
                            && entry.file_type().is_some_and(|kind| kind.is_file())
                        {
                            found
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .push(entry.into_path());
                        }
                    }
                    Err(error) => {
                        unread
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .get_or_insert_with(|| error.to_string());
                    }
                }
                WalkState::Continue
            })
        });
    let mut listing = ChartYamls::default();
    if entries.into_inner() > MAX_ENTRIES {
        listing.truncated = Some(format!(
            "the repository was listed only in part (more than {MAX_ENTRIES} entries)"
        ));
        listing.pin_problems.push(format!(
            "stale-version-reference: more than {MAX_ENTRIES} entries under {}; the pins of the rest are not read",
            top.display()
        ));
    }
    if let Some(error) = unread.into_inner().unwrap_or_else(PoisonError::into_inner) {
        listing
            .truncated
            .get_or_insert_with(|| format!("the repository was listed only in part ({error})"));
        listing.pin_problems.push(format!(
            "stale-version-reference: {error}; the pins of the `Chart.yaml` files there are not read"
        ));
    }
    let mut found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    found.sort_unstable();
    if found.len() > MAX_CHARTS {
        found.truncate(MAX_CHARTS);
        listing.truncated = Some(format!(
            "the repository was listed only in part (more than {MAX_CHARTS} `Chart.yaml` files)"
        ));
        listing.pin_problems.push(format!(
            "stale-version-reference: more than {MAX_CHARTS} `Chart.yaml` files under {}; the pins of the rest are not read",
            top.display()
        ));
    }
    let read: Vec<Read> = found
        .par_iter()
        .map(|path| read_one(path, top, memo))
        .collect();
    listing.take(read);
    listing
}

/// What one `Chart.yaml` says.
struct Read {
    /// The chart it makes, when it could be read.
    chart: Option<FoundChart>,
    /// Its pins (none below a folder named like a chart's content), or why it was
    /// not read for them.
    pins: Result<Vec<Pin>, String>,
    /// Its text, the hash of its bytes and its manifest, when it was read.
    listed: Option<ListedChartYaml>,
}

/// What one `Chart.yaml`'s bytes say, made once for each text when a memo is
/// kept across runs (`tether server`).
#[derive(Debug, Clone)]
pub(crate) struct ChartYamlSays {
    /// Its manifest, when it could be parsed, and the YAML nodes it made.
    chart: Option<(Arc<Manifest>, usize)>,
    pins: Result<Vec<Pin>, String>,
}

/// Reads one `Chart.yaml`; what its bytes say is taken from `memo` when it holds
/// them.
fn read_one(path: &Path, top: &Path, memo: Option<&ByHash<ChartYamlSays>>) -> Read {
    let shown = crate::paths::relative_path(path, top);
    let pinned = !shown.parent().is_some_and(|folder| {
        folder.components().any(|part| {
            CONTENT_FOLDERS
                .iter()
                .any(|content| part.as_os_str() == *content)
        })
    });
    let problem = |why: String| {
        format!(
            "stale-version-reference: {} is not read for pins: {why}",
            shown.display()
        )
    };
    let (text, hash) = match read_chart_yaml(path) {
        Ok(read) => read,
        Err(why) => {
            return Read {
                chart: None,
                pins: if pinned {
                    Err(problem(why))
                } else {
                    Ok(Vec::new())
                },
                listed: None,
            };
        }
    };
    // Bounded more loosely than the chart graph reads a `Chart.yaml`: the count of
    // nodes says whether the graph may take the manifest from here.
    let say = || match crate::analysis::small_yaml::parse_counted(&text, MAX_NODES, 64) {
        Ok((document, nodes)) => says(&document, nodes, path, &shown, pinned),
        Err((line, why)) => ChartYamlSays {
            chart: None,
            pins: if pinned {
                Err(problem(format!("line {line}: {why}")))
            } else {
                Ok(Vec::new())
            },
        },
    };
    let said = match memo {
        Some(memo) => memo.get_or_make(path, hash, say),
        None => say(),
    };
    let Some(((manifest, nodes), folder)) = said.chart.zip(path.parent()) else {
        return Read {
            chart: None,
            pins: said.pins,
            listed: None,
        };
    };
    Read {
        chart: Some(FoundChart {
            folder: folder.to_path_buf(),
            name: manifest.name.clone(),
            version: manifest.version.clone(),
            library: manifest.library,
            // Copied out: a chart of the listing keeps these for the whole run, its
            // manifest goes with its text once the chart graph takes it.
            depends_on: manifest.dependencies.iter().map(Wanted::of).collect(),
        }),
        pins: said.pins,
        listed: Some(ListedChartYaml {
            text,
            hash,
            // A parse bounded by fewer nodes reads it whole exactly when it made
            // no more than that.
            manifest: (nodes <= MAX_CHART_YAML_NODES).then_some(manifest),
        }),
    }
}

/// What the parsed `Chart.yaml` at `path` says.
fn says(document: &Node, nodes: usize, path: &Path, shown: &Path, pinned: bool) -> ChartYamlSays {
    // The chart graph's own reading of a manifest: one parser of `name`,
    // `version`, `type` and `dependencies:`.
    let manifest = Manifest::of(document, None);
    ChartYamlSays {
        pins: Ok(if pinned {
            chart_yaml_pins(document, path, shown)
        } else {
            Vec::new()
        }),
        chart: Some((Arc::new(manifest), nodes)),
    }
}

/// A `Chart.yaml`'s text and the hash of its bytes: bounded in bytes, and larger
/// than a configuration may be (an umbrella chart pins thousands of dependencies).
/// It is parsed bounded in nodes and depth.
fn read_chart_yaml(path: &Path) -> Result<(String, u64), String> {
    let bytes = crate::source::read_regular(path, MAX_CHART_YAML_BYTES)
        .map_err(|error| error.to_string())?;
    if bytes.len() > MAX_CHART_YAML_BYTES {
        return Err(format!("larger than {} MiB", MAX_CHART_YAML_BYTES >> 20));
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    Ok((text, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(top: &Path, path: &str, text: &str) {
        let path = top.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A `Chart.yaml` whose aliases expand past the chart graph's bound, and not
    /// past the listing's, is still a chart of the listing (its name and pins
    /// read), and hands the graph no manifest: the graph says it is not read, as
    /// when it parsed it itself.
    #[test]
    fn a_chart_yaml_past_the_graphs_bound_is_listed_without_a_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let items = vec!["x"; 1000].join(", ");
        let copies = vec!["*a"; 600].join(", ");
        write(
            top,
            "big/Chart.yaml",
            &format!("name: big\nversion: 1.0.0\nbase: &a [{items}]\ncopies: [{copies}]\n"),
        );
        write(top, "small/Chart.yaml", "name: small\nversion: 1.0.0\n");
        let listing = list(top, None);
        let names: Vec<_> = listing
            .charts
            .iter()
            .map(|chart| chart.name.clone())
            .collect();
        assert_eq!(names, [Some("big".to_string()), Some("small".to_string())]);
        assert!(
            listing.pin_problems.is_empty(),
            "{:?}",
            listing.pin_problems
        );
        let manifest = |chart: &str| listing.manifest(&top.join(chart).join("Chart.yaml"), 1 << 20);
        assert!(matches!(manifest("big"), Some(None)));
        assert!(matches!(manifest("small"), Some(Some(_))));
    }

    #[test]
    fn one_listing_gives_the_charts_and_the_pins() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        write(
            top,
            "apps/app/Chart.yaml",
            "name: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 17.3.2\n",
        );
        write(
            top,
            "apps/app/charts/redis/Chart.yaml",
            "name: redis\nversion: 17.3.2\nappVersion: 7.0.5\n",
        );
        write(
            top,
            "libs/common/Chart.yaml",
            "name: common\nversion: 2.0.0\ntype: library\n",
        );
        // A chart's own content folders are not entered.
        write(
            top,
            "apps/app/templates/Chart.yaml",
            "name: rendered\nversion: 9.9.9\n",
        );
        // A scaffold outside any chart: a chart of the repository, pinning nothing.
        write(
            top,
            "scaffold/templates/starter/Chart.yaml",
            "name: starter\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 1.0.0\n",
        );
        write(top, "broken/Chart.yaml", "name: [unclosed\n");
        write(
            top,
            "node_modules/pkg/Chart.yaml",
            "name: npm\nversion: 1.0.0\n",
        );
        let listing = list(top, None);
        let charts: Vec<(String, Option<String>, bool)> = listing
            .charts
            .iter()
            .map(|chart| {
                (
                    crate::paths::slashed(chart.folder.strip_prefix(top).unwrap()),
                    chart.name.clone(),
                    chart.library,
                )
            })
            .collect();
        assert_eq!(
            charts,
            [
                ("apps/app".to_string(), Some("app".to_string()), false),
                ("apps/app/charts/redis".into(), Some("redis".into()), false),
                ("libs/common".into(), Some("common".into()), true),
                (
                    "scaffold/templates/starter".into(),
                    Some("starter".into()),
                    false
                ),
            ]
        );
        let pins: Vec<String> = listing
            .pins
            .iter()
            .map(|pin| format!("{} {} ({})", pin.name, pin.version, pin.source))
            .collect();
        assert_eq!(
            pins,
            [
                "redis 17.3.2 (`dependencies` of apps/app/Chart.yaml:4)",
                "redis 17.3.2 (version in apps/app/charts/redis/Chart.yaml)",
                "redis 7.0.5 (appVersion in apps/app/charts/redis/Chart.yaml)",
            ]
        );
        assert_eq!(listing.pin_problems.len(), 1, "{:?}", listing.pin_problems);
        assert!(
            listing.pin_problems[0].starts_with(
                "stale-version-reference: broken/Chart.yaml is not read for pins: line 2"
            ),
            "{:?}",
            listing.pin_problems
        );
        assert_eq!(listing.truncated, None);
    }

    /// A memo kept across listings (the server lists again for each change) hands
    /// back what each unchanged `Chart.yaml` said, and reads a changed one anew.
    #[test]
    fn a_memo_spares_parsing_an_unchanged_chart_yaml_again() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        write(top, "a/Chart.yaml", "name: a\nversion: 1.0.0\n");
        write(top, "b/Chart.yaml", "name: b\nversion: 1.0.0\n");
        write(top, "broken/Chart.yaml", "name: [unclosed\n");
        let memo = ByHash::default();
        let said = |listing: &ChartYamls| {
            let charts: Vec<String> = listing
                .charts
                .iter()
                .map(|chart| format!("{:?} {:?}", chart.name, chart.version))
                .collect();
            (charts, listing.pins.clone(), listing.pin_problems.clone())
        };
        let first = said(&list(top, Some(&memo)));
        assert_eq!(memo.taken.load(Ordering::Relaxed), 0);
        assert_eq!(said(&list(top, Some(&memo))), first);
        assert_eq!(memo.taken.load(Ordering::Relaxed), 3);
        assert_eq!(said(&list(top, None)), first);
        write(top, "b/Chart.yaml", "name: b\nversion: 2.0.0\n");
        let changed = said(&list(top, Some(&memo)));
        assert_eq!(memo.taken.load(Ordering::Relaxed), 5);
        assert_eq!(changed.0[1], "Some(\"b\") Some(\"2.0.0\")");
    }
}
