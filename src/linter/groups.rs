//! A run's files in chart trees: each tree (a chart with everything under it, its
//! subcharts included) is checked as one group, and the charts read for it are let
//! go once its files are checked, so a run holds the charts of the trees being
//! checked, not of the whole repository. A tree whose chart another chart of the
//! repository depends on is checked in a second round, after the charts that read
//! it as a dependency: it is then read once, not again after it was let go.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::charts::{Charts, is_chart};
use crate::linter::walk::FileToCheck;

/// The files of one chart tree, or the files outside every chart.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Group {
    /// The outermost chart folder above the files; `None` for the files outside
    /// every chart.
    pub root: Option<PathBuf>,
    /// Indexes into the run's files, in their order.
    pub files: Vec<usize>,
}

impl Group {
    /// Lets go of the charts read for the group (those in its tree) in each
    /// repository's charts its files use.
    pub fn release(&self, files: &[FileToCheck]) {
        let Some(root) = &self.root else {
            return;
        };
        let mut released: Vec<&Arc<Charts>> = Vec::new();
        for &index in &self.files {
            let charts = &files[index].project.charts;
            if !released.iter().any(|seen| Arc::ptr_eq(seen, charts)) {
                charts.release_under(root);
                released.push(charts);
            }
        }
    }
}

/// `groups` in two rounds: first the trees whose chart no chart of its repository
/// names in its `dependencies:`, then the others, each round in its order.
pub(super) fn in_rounds(groups: Vec<Group>, files: &[FileToCheck]) -> [Vec<Group>; 2] {
    // Per repository listing (the run's charts and the repository's top): the
    // names some chart depends on, and each chart's name by folder.
    type Listing = (HashSet<String>, HashMap<PathBuf, String>);
    let mut listings: HashMap<(usize, PathBuf), Listing> = HashMap::new();
    let [mut first, mut second] = [Vec::new(), Vec::new()];
    for group in groups {
        let depended = group.root.as_ref().is_some_and(|root| {
            let Some(file) = group.files.first().map(|&index| &files[index]) else {
                return false;
            };
            let Some(top) = &file.project.chart_scope.top else {
                return false;
            };
            let charts = &file.project.charts;
            let key = (Arc::as_ptr(charts) as usize, top.clone());
            let (depended, names) = listings.entry(key).or_insert_with(|| {
                let listing = charts.chart_yamls(top);
                let depended = listing
                    .charts
                    .iter()
                    .flat_map(|chart| chart.depends_on.iter().cloned())
                    .collect();
                let names = listing
                    .charts
                    .iter()
                    .filter_map(|chart| Some((chart.folder.clone(), chart.name.clone()?)))
                    .collect();
                (depended, names)
            });
            names.get(root).is_some_and(|name| depended.contains(name))
        });
        if depended {
            second.push(group);
        } else {
            first.push(group);
        }
    }
    [first, second]
}

/// `files` grouped by the outermost chart folder above each (a folder with a
/// `Chart.yaml`), the groups in the order of their first file.
pub(super) fn chart_groups(files: &[FileToCheck]) -> Vec<Group> {
    let mut outermost = Outermost::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_root: HashMap<Option<PathBuf>, usize> = HashMap::new();
    for (index, file) in files.iter().enumerate() {
        let root = file
            .absolute
            .parent()
            .and_then(|folder| outermost.chart_at_or_above(folder));
        let at = *by_root.entry(root.clone()).or_insert_with(|| {
            groups.push(Group {
                root,
                files: Vec::new(),
            });
            groups.len() - 1
        });
        groups[at].files.push(index);
    }
    groups
}

/// The outermost chart folder at or above each folder, each folder looked at once.
#[derive(Default)]
struct Outermost(HashMap<PathBuf, Option<PathBuf>>);

impl Outermost {
    fn chart_at_or_above(&mut self, folder: &Path) -> Option<PathBuf> {
        if let Some(found) = self.0.get(folder) {
            return found.clone();
        }
        let above = folder
            .parent()
            .and_then(|parent| self.chart_at_or_above(parent));
        let found = above.or_else(|| is_chart(folder).then(|| folder.to_path_buf()));
        self.0.insert(folder.to_path_buf(), found.clone());
        found
    }
}
