//! What the value rules and the server ask of a chart: a value undefined or unused,
//! what it could not know, where a value is read, which charts it depends on.

use crate::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::values::{Used, missing_in, unused_under};
use super::{Analysis, Chart, Keys, Location};
use crate::cache_key::CacheKey;

impl Chart {
    /// The chart's name for messages: `name` of `Chart.yaml`, else its folder.
    pub fn name(&self) -> String {
        self.manifest.name.clone().unwrap_or_else(|| {
            self.root
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
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
        if self.ancestors().iter().any(|chart| chart.root == root) {
            return true;
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
            Location::Folder(_) => self.files().templates.clone(),
            Location::Archive { .. } => Vec::new(),
        }
    }

    /// The names of the templates the chart's own files define.
    pub fn define_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.scan().defines.keys().cloned().collect();
        names.sort();
        names
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
    pub(super) fn shown(&self, file: &Path) -> String {
        let parent = self.root.parent().unwrap_or(&self.root);
        crate::paths::slashed(file.strip_prefix(parent).unwrap_or(file))
    }

    /// What the value rules could not know of this chart, one sentence each, for
    /// the run's notes and the JSON output's `partial_charts`: empty when the
    /// analysis is whole.
    pub fn partial(&self) -> Vec<String> {
        // Asked of each chart of a tree before its files are checked: its values
        // are parsed now, from the text the check of `values.yaml` takes next.
        let _ = self.values_read();
        // A library's values are never analysed: nothing to say.
        if self.library {
            return Vec::new();
        }
        let mut reasons: Vec<String> = self
            .problems()
            .iter()
            .map(|problem| format!("read in part: {problem}"))
            .collect();
        if self.values_unreadable() {
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

    /// Why every value of the chart counts as read (a template prints `.Values`
    /// whole, or hashes it), so `unused-value` has nothing to report there: a note
    /// for the run, not a gap in the analysis. Asked of a chart whose
    /// [`Chart::partial`] is empty (a partial chart's note says more).
    pub fn reads_everything(&self) -> Option<String> {
        if self.library || self.values_unreadable() {
            return None;
        }
        let analysis = self.analysis();
        let why = analysis.everything.as_ref()?;
        Some(format!(
            "every value counts as read, so unused-value has nothing to report: {why}"
        ))
    }

    /// What the chart's value findings depend on: the chart's fingerprint, the
    /// bytes of every file it reads, the same of every chart its define index
    /// gathers (what it reaches, its parents and theirs, the repository's
    /// libraries) and of every chart it reaches, and its parent's fingerprint.
    /// Found without lexing a template: a cached run asks no more of an
    /// unchanged chart.
    pub fn content_fingerprint(&self) -> u64 {
        *self.content.get_or_init(|| {
            let mut key = CacheKey::new("chart-content")
                .part("files", self.files_content())
                .part("chart", self.fingerprint)
                .part("defines", self.graph_fingerprint());
            // The graph is bounded, and a subchart shares its top chart's, whose
            // nearest libraries may not be its own: what the chart reaches and
            // the libraries it searches itself, apart.
            for chart in self
                .reached_charts()
                .iter()
                .chain(&self.repository_libraries())
            {
                key.add("reached-files", chart.files_content());
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
        if self.values_unreadable() {
            return None;
        }
        let missing = missing_in(self.values(), path, self.commented())?;
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
            match missing_in(chart.values(), path, chart.commented()) {
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
                if let Some(imported) = chart.values().at(&import.child) {
                    missing_in(imported, rest, &HashSet::default())?;
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
            || analysis.everything.is_some()
            || !analysis.unknown.is_empty()
            || self.library
            || self.values_unreadable()
            || !scan.has_templates
        {
            return Vec::new();
        }
        let mut found = Vec::new();
        let own = analysis.used();
        for (name, line, value) in self.values().entries_in_file_order() {
            let path = vec![name.clone()];
            // `enabled` at the top: the switch a parent's `condition: NAME.enabled`
            // reads when the chart is used as a dependency.
            if name == "enabled" {
                continue;
            }
            if name == "global" {
                self.unused_global(value, *line, analysis, &mut found);
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
                        || inner_analysis.everything.is_some()
                        || !inner_analysis.unknown.is_empty()
                    {
                        continue;
                    }
                    let mut inner = Vec::new();
                    unused_under(value, &mut Vec::new(), &inner_analysis.used(), &mut inner);
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
        own: &Analysis,
        found: &mut Vec<(Vec<String>, usize)>,
    ) {
        let mut charts = Vec::new();
        for resolved in &self.dependencies {
            let Some(chart) = self.dependency_chart(resolved) else {
                return;
            };
            let analysis = chart.analysis();
            if analysis.opaque.is_some()
                || analysis.everything.is_some()
                || !analysis.unknown.is_empty()
            {
                return;
            }
            charts.push(chart);
        }
        // Only reads under `global` reach a path under it.
        let analyses: Vec<&Analysis> = charts
            .iter()
            .map(|chart| chart.analysis())
            .chain(std::iter::once(own))
            .collect();
        let global = analyses
            .iter()
            .flat_map(|analysis| &analysis.reads)
            .filter(|(path, _)| path.first().is_some_and(|name| name == "global"));
        let path = vec!["global".to_string()];
        let all = Used::new(global).with_shared(
            analyses
                .iter()
                .flat_map(|analysis| &analysis.shared)
                .map(|part| &part.used),
        );
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
