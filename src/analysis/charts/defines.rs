//! Which named templates a chart's rendering can call: Helm loads the templates of
//! the chart being rendered and of every chart under it into one set, so a chart
//! may call the defines of its dependencies, its parents and their other
//! dependencies. [`Chart::define_index`] gathers them once per graph, with the
//! dependencies tether did not find, and the repository's library charts apart.

use crate::collections::HashSet;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use super::names::{DefineIndex, Graph, MissingDependency};
use super::{Chart, DependencySource, MAX_REACHED_CHARTS};
use crate::cache_key::CacheKey;

impl Chart {
    /// The named templates the chart's rendering can call, found once per graph: a
    /// subchart shares the index of its parent when that index holds it.
    pub fn define_index(&self) -> Arc<DefineIndex> {
        self.define_index
            .get_or_init(|| {
                if let Some(parent) = self.parent_chart() {
                    let index = parent.define_index();
                    if index.holds(&self.root) {
                        return index;
                    }
                }
                Arc::new(self.index_defines())
            })
            .clone()
    }

    /// Over the files and manifests of every chart [`Chart::define_index`] gathers
    /// for this chart, found without lexing any (what a cached run compares):
    /// shared with the parent whose graph holds the chart, as the index is.
    pub(super) fn graph_fingerprint(&self) -> u64 {
        self.graph().fingerprint
    }

    /// The charts of [`Chart::graph_fingerprint`], and the fingerprint.
    fn graph(&self) -> Arc<Graph> {
        self.graph
            .get_or_init(|| {
                if let Some(parent) = self.parent_chart() {
                    let graph = parent.graph();
                    if graph.roots.contains(&self.root) {
                        return graph;
                    }
                }
                let Gathering { index, key, .. } = self.gather(false);
                Arc::new(Graph {
                    roots: index.roots,
                    fingerprint: key.finish(),
                })
            })
            .clone()
    }

    /// The index of this chart's graph: the chart and what it reaches, then each
    /// parent (nearest first) and what it reaches; then the repository's library
    /// charts outside that graph.
    fn index_defines(&self) -> DefineIndex {
        let Gathering { mut index, .. } = self.gather(true);
        self.mark_libraries(&mut index.missing);
        index
    }

    /// Goes over this chart's graph in the index's order, its charts' files and
    /// manifests into the key; with `scan`, their defines and what kept any from
    /// being read whole into the index.
    fn gather(&self, scan: bool) -> Gathering {
        let mut gathering = Gathering {
            index: DefineIndex::default(),
            key: CacheKey::new("define-index"),
            queue: VecDeque::new(),
            seen: HashSet::default(),
            scan,
        };
        gathering.visit(self);
        gathering.drain();
        for chart in self.ancestors() {
            gathering.visit(&chart);
            gathering.drain();
        }
        for library in self.repository_libraries() {
            if gathering.index.roots.contains(&library.root) {
                continue;
            }
            if scan {
                gathering
                    .index
                    .libraries
                    .add(library.scan().defines.clone());
                gathering.index.searched_libraries = true;
            }
            gathering.key.add("library-files", library.files_content());
            gathering.key.add("library", library.fingerprint);
        }
        gathering
    }

    /// Marks the missing dependencies the repository has as a library chart (at
    /// another version): any define may be theirs.
    fn mark_libraries(&self, missing: &mut [MissingDependency]) {
        let Some(charts) = self.charts.upgrade() else {
            return;
        };
        if missing.is_empty() || (self.scope.top.is_none() && self.scope.chart_paths.is_empty()) {
            return;
        }
        let repository = charts.repository(&self.scope);
        let libraries: HashSet<&PathBuf> = repository.libraries().collect();
        for dependency in missing {
            dependency.library = repository
                .named(&dependency.name)
                .iter()
                .any(|(folder, _)| libraries.contains(folder));
        }
    }
}

/// The index being gathered, breadth first over the graph.
struct Gathering {
    index: DefineIndex,
    key: CacheKey,
    queue: VecDeque<Arc<Chart>>,
    seen: HashSet<PathBuf>,
    /// Whether to read the charts' defines (else only their files' key).
    scan: bool,
}

impl Gathering {
    /// Takes the charts queued, and those they reach, until none is left or the
    /// graph is larger than tether follows.
    fn drain(&mut self) {
        while let Some(chart) = self.queue.pop_front() {
            self.visit(&chart);
        }
    }

    /// Takes one chart's defines, and queues its dependencies.
    fn visit(&mut self, chart: &Chart) {
        if !self.seen.insert(chart.root.clone()) {
            return;
        }
        if self.seen.len() > MAX_REACHED_CHARTS {
            if self.index.gaps.is_empty() {
                self.index.gaps.push(format!(
                    "the graph has more than {MAX_REACHED_CHARTS} charts"
                ));
            }
            self.queue.clear();
            return;
        }
        let name = chart.name();
        self.index.roots.insert(chart.root.clone());
        self.key.add("files", chart.files_content());
        self.key.add("chart", chart.fingerprint);
        if self.scan {
            self.index_chart(chart, &name);
        }
        for resolved in &chart.dependencies {
            if let DependencySource::Missing(why) | DependencySource::Unread(why) = &resolved.source
            {
                if !self.scan {
                    continue;
                }
                let missing = MissingDependency {
                    name: resolved.dependency.name.clone(),
                    alias: resolved.dependency.alias.clone(),
                    version: resolved.dependency.version.clone(),
                    why: why.clone(),
                    library: false,
                    unread: matches!(resolved.source, DependencySource::Unread(_)),
                };
                if !self.index.missing.contains(&missing) {
                    self.index.missing.push(missing);
                }
                continue;
            }
            match chart.dependency_chart(resolved) {
                Some(dependency) => self.queue.push_back(dependency),
                None if !self.scan => {}
                None => self.index.gaps.push(format!(
                    "`{}`, a dependency of `{name}`, is not a chart tether reads",
                    resolved.dependency.name
                )),
            }
        }
    }
}

impl Gathering {
    /// Takes one chart's defines into the index, and what kept it from being
    /// read whole.
    fn index_chart(&mut self, chart: &Chart, name: &str) {
        if !self.index.searched.iter().any(|searched| searched == name) {
            self.index.searched.push(name.to_string());
        }
        let scan = chart.scan();
        self.index.graph.add(scan.defines.clone());
        if let Some(why) = &scan.unread_template {
            self.index.gaps.push(format!("`{name}`: {why}"));
        }
        if let Some(why) = chart
            .archive
            .as_ref()
            .and_then(|archive| archive.incomplete.as_ref())
        {
            self.index
                .gaps
                .push(format!("`{name}` was read only in part ({why})"));
        }
        for why in &chart.unread_archives {
            self.index.gaps.push(format!("`{name}`: {why}"));
        }
        self.note_links(chart, name);
        if chart.dependencies.len() < chart.manifest.dependencies.len() {
            self.index.gaps.push(format!(
                "the dependencies of `{name}` lie deeper than tether follows"
            ));
        }
    }

    /// Notes the links under the chart's `charts/` (a monorepo links its library
    /// or a sibling there): tether does not follow them, so what they define is
    /// unknown, unless a dependency of that name was found another way (`file://`
    /// follows the link).
    fn note_links(&mut self, chart: &Chart, name: &str) {
        // A `charts` that is a link is named with the archives that are not read.
        for file_name in chart.links().iter().map(String::as_str) {
            // A linked archive is named with the archives that are not read.
            if file_name.ends_with(".tgz") {
                continue;
            }
            let found = chart.dependencies.iter().any(|resolved| {
                !matches!(
                    resolved.source,
                    DependencySource::Missing(_) | DependencySource::Unread(_)
                ) && (resolved.dependency.name == file_name
                    || resolved.dependency.alias.as_deref() == Some(file_name))
            });
            if !found {
                self.index.gaps.push(format!(
                    "`{name}`: charts/{file_name} is a link, which tether does not follow"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::names::Lookup;
    use super::super::{Charts, Scope};
    use std::path::Path;
    use std::sync::Arc;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn chart_yaml(name: &str) -> String {
        format!("apiVersion: v2\nname: {name}\nversion: 1.0.0\n")
    }

    /// A subchart of a subchart calls its grandparent's define and shares the top
    /// chart's index; a typo is absent, with the define nearest to it.
    #[test]
    fn a_subchart_sees_every_parent_and_shares_its_index() {
        let folder = tempfile::tempdir().unwrap();
        let top = folder.path().canonicalize().unwrap();
        write(&top, "app/Chart.yaml", &chart_yaml("app"));
        write(
            &top,
            "app/templates/_helpers.tpl",
            "{{ define \"app.labels\" }}x{{ end }}\n",
        );
        write(&top, "app/charts/mid/Chart.yaml", &chart_yaml("mid"));
        write(
            &top,
            "app/charts/mid/charts/leaf/Chart.yaml",
            &chart_yaml("leaf"),
        );
        let charts = Arc::new(Charts::default());
        let scope = Scope {
            top: Some(top.clone()),
            chart_paths: Vec::new(),
        };
        let leaf = charts
            .chart(&top.join("app/charts/mid/charts/leaf"), &scope)
            .unwrap();
        let app = charts.chart(&top.join("app"), &scope).unwrap();
        let index = leaf.define_index();
        assert!(Arc::ptr_eq(&index, &app.define_index()));
        assert_eq!(index.lookup("app.labels"), Lookup::Found);
        assert_eq!(
            index.lookup("app.label"),
            Lookup::Absent {
                nearest: Some("app.labels")
            }
        );
        assert_eq!(index.searched_list(), "`app`, `mid`, `leaf`");
    }

    /// A link under `charts/` is not followed: what it defines is unknown, so no
    /// define is absent.
    #[cfg(unix)]
    #[test]
    fn a_linked_chart_leaves_the_graph_incomplete() {
        let folder = tempfile::tempdir().unwrap();
        let top = folder.path().canonicalize().unwrap();
        write(&top, "app/Chart.yaml", &chart_yaml("app"));
        write(&top, "sibling/Chart.yaml", &chart_yaml("sibling"));
        std::fs::create_dir_all(top.join("app/charts")).unwrap();
        std::os::unix::fs::symlink(top.join("sibling"), top.join("app/charts/sibling")).unwrap();
        let charts = Arc::new(Charts::default());
        let scope = Scope {
            top: Some(top.clone()),
            chart_paths: Vec::new(),
        };
        let index = charts
            .chart(&top.join("app"), &scope)
            .unwrap()
            .define_index();
        assert!(!index.complete());
        assert_eq!(
            index.lookup("sibling.fullname"),
            Lookup::Unknown {
                holders: Vec::new()
            }
        );
        assert_eq!(
            index.unknown_note(&["sibling.fullname".to_string()]),
            "it includes `sibling.fullname`, which no chart searched defines (searched: `app`); not read whole: `app`: charts/sibling is a link, which tether does not follow"
        );
    }
}
