//! Which named templates a chart's rendering can call: Helm loads the templates of
//! the chart being rendered and of every chart under it into one set, so a chart
//! may call the defines of its dependencies, its parents and their other
//! dependencies. [`Chart::define_index`] gathers them once per graph, with the
//! dependencies tether did not find, and the repository's library charts apart.

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use super::names::{DefineIndex, MissingDependency};
use super::{Chart, MAX_NESTING, MAX_REACHED_CHARTS, Source};
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

    /// The index of this chart's graph: the chart and what it reaches, then each
    /// parent (nearest first) and what it reaches; then the repository's library
    /// charts outside that graph.
    fn index_defines(&self) -> DefineIndex {
        let mut gathering = Gathering {
            index: DefineIndex::default(),
            key: CacheKey::new("define-index"),
            queue: VecDeque::new(),
            seen: HashSet::new(),
        };
        gathering.visit(self);
        gathering.drain();
        let mut parent = self.parent_chart();
        let mut depth = 0;
        while let Some(chart) = parent {
            if depth >= MAX_NESTING {
                break;
            }
            depth += 1;
            gathering.visit(&chart);
            gathering.drain();
            parent = chart.parent_chart();
        }
        for library in self.repository_libraries() {
            if gathering.index.roots.contains(&library.root) {
                continue;
            }
            let scan = library.scan();
            gathering
                .index
                .libraries
                .extend(scan.defines.keys().cloned());
            gathering.index.searched_libraries = true;
            gathering.key.add("library-files", scan.content);
            gathering.key.add("library", library.fingerprint);
        }
        self.mark_libraries(&mut gathering.index.missing);
        let Gathering { mut index, key, .. } = gathering;
        index.fingerprint = key.finish();
        index
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
        if !self.index.searched.contains(&name) {
            self.index.searched.push(name.clone());
        }
        let scan = chart.scan();
        self.index.graph.extend(scan.defines.keys().cloned());
        self.key.add("files", scan.content);
        self.key.add("chart", chart.fingerprint);
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
        if chart.dependencies.len() < chart.manifest.dependencies.len() {
            self.index.gaps.push(format!(
                "the dependencies of `{name}` lie deeper than tether follows"
            ));
        }
        for resolved in &chart.dependencies {
            if let Source::Missing(why) = &resolved.source {
                let missing = MissingDependency {
                    name: resolved.dependency.name.clone(),
                    alias: resolved.dependency.alias.clone(),
                    version: resolved.dependency.version.clone(),
                    why: why.clone(),
                    library: false,
                };
                if !self.index.missing.contains(&missing) {
                    self.index.missing.push(missing);
                }
                continue;
            }
            match chart.dependency_chart(resolved) {
                Some(dependency) => self.queue.push_back(dependency),
                None => self.index.gaps.push(format!(
                    "`{}`, a dependency of `{name}`, is not a chart tether reads",
                    resolved.dependency.name
                )),
            }
        }
    }
}
