//! The charts of a repository (and of `chart-paths`) by name: where a dependency
//! that is not under `charts/` is looked for, as a monorepo keeps its library next
//! to the charts that use it.

use crate::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::chart_yamls::ChartYamls;

/// Charts by `name:` of their `Chart.yaml`, with their version and folder.
#[derive(Debug, Default)]
pub struct Repository {
    charts: HashMap<String, Vec<(PathBuf, Option<String>)>>,
    /// The folders of the charts of `type: library`, with their `name:`.
    libraries: Vec<(PathBuf, Option<String>)>,
    /// Why a listing stopped early, when one did.
    pub truncated: Option<String>,
}

impl Repository {
    /// The charts of the listings of a scope's folders (its repository's top and
    /// `chart-paths`), each folder listed once per run ([`super::Charts`]).
    pub fn of(listings: &[Arc<ChartYamls>]) -> Repository {
        let mut repository = Repository::default();
        for listing in listings {
            for chart in &listing.charts {
                if chart.library {
                    repository
                        .libraries
                        .push((chart.folder.clone(), chart.name.clone()));
                }
                if let Some(name) = &chart.name {
                    repository
                        .charts
                        .entry(name.clone())
                        .or_default()
                        .push((chart.folder.clone(), chart.version.clone()));
                }
            }
            if repository.truncated.is_none() {
                repository.truncated.clone_from(&listing.truncated);
            }
        }
        repository.sorted()
    }

    /// Nearest the top first, so the listing does not depend on the walk's order.
    fn sorted(mut self) -> Repository {
        self.libraries.sort();
        for found in self.charts.values_mut() {
            found.sort_by_key(|(folder, _)| (folder.components().count(), folder.clone()));
        }
        self
    }

    /// The folders of the library charts.
    pub fn libraries(&self) -> impl Iterator<Item = &PathBuf> {
        self.libraries.iter().map(|(folder, _)| folder)
    }

    /// The library charts whose defines a chart in the folder `root` may call
    /// without naming them as dependencies, in folder order: of each name, the one
    /// nearest `root` (the most folders in common with it; of equals, the first),
    /// as a build step vendors one `common`, not every copy the repository holds
    /// (the libraries without a `name:` count as one name). A chart then searches
    /// as many libraries however many copies a monorepo keeps.
    pub fn libraries_near(&self, root: &Path) -> Vec<&PathBuf> {
        let mut chosen: Vec<(usize, &PathBuf)> = Vec::new();
        let mut by_name: HashMap<Option<&str>, usize> = HashMap::default();
        for (folder, name) in &self.libraries {
            let shared = shared_folders(folder, root);
            match by_name.get(&name.as_deref()) {
                Some(&at) if shared > chosen[at].0 => chosen[at] = (shared, folder),
                Some(_) => {}
                None => {
                    by_name.insert(name.as_deref(), chosen.len());
                    chosen.push((shared, folder));
                }
            }
        }
        let mut folders: Vec<&PathBuf> = chosen.into_iter().map(|(_, folder)| folder).collect();
        folders.sort();
        folders
    }

    /// The charts named `name`, with their versions.
    pub fn named(&self, name: &str) -> &[(PathBuf, Option<String>)] {
        self.charts.get(name).map_or(&[], Vec::as_slice)
    }

    /// [`Repository::named`], nearest the chart in the folder `root` first (the
    /// most folders in common with it; of equals, nearest the top, then in folder
    /// order): a dependency found by name is the copy beside the chart, as
    /// [`Repository::libraries_near`] chooses a library.
    pub fn named_near(&self, name: &str, root: &Path) -> Vec<&(PathBuf, Option<String>)> {
        let mut named: Vec<&(PathBuf, Option<String>)> = self.named(name).iter().collect();
        named.sort_by_key(|(folder, _)| std::cmp::Reverse(shared_folders(folder, root)));
        named
    }
}

/// How many leading components `a` and `b` have in common: how near one chart's
/// folder is to another's.
fn shared_folders(a: &Path, b: &Path) -> usize {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::chart_yamls::FoundChart;

    fn library(folder: &str, name: Option<&str>) -> FoundChart {
        FoundChart {
            folder: PathBuf::from(folder),
            name: name.map(String::from),
            version: Some("1.0.0".into()),
            library: true,
            depends_on: Vec::new(),
        }
    }

    /// Sixteen copies of a monorepo, each with its `common` and `util` libraries
    /// and one without a name: a chart searches the three of its own copy, not 48;
    /// a chart outside every copy, the first of each name in folder order.
    #[test]
    fn a_chart_searches_the_nearest_library_of_each_name() {
        let mut charts = Vec::new();
        for copy in 1..=16 {
            charts.push(library(&format!("/m/c{copy}/lib/common"), Some("common")));
            charts.push(library(&format!("/m/c{copy}/lib/util"), Some("util")));
            charts.push(library(&format!("/m/c{copy}/unnamed"), None));
        }
        let mut listing = ChartYamls::default();
        listing.charts = charts;
        let repository = Repository::of(&[Arc::new(listing)]);
        let near = |root: &str| -> Vec<String> {
            repository
                .libraries_near(Path::new(root))
                .iter()
                .map(|folder| folder.display().to_string())
                .collect()
        };
        assert_eq!(
            near("/m/c7/apps/web"),
            ["/m/c7/lib/common", "/m/c7/lib/util", "/m/c7/unnamed"]
        );
        assert_eq!(
            near("/elsewhere/app"),
            ["/m/c1/lib/common", "/m/c1/lib/util", "/m/c1/unnamed"]
        );
        // A dependency found by name: the copy beside the chart first, then the
        // others nearest the top.
        let named: Vec<String> = repository
            .named_near("common", Path::new("/m/c7/apps/web"))
            .iter()
            .take(3)
            .map(|(folder, _)| folder.display().to_string())
            .collect();
        assert_eq!(
            named,
            ["/m/c7/lib/common", "/m/c1/lib/common", "/m/c10/lib/common"]
        );
    }
}
