//! The charts of a repository (and of `chart-paths`) by name: where a dependency
//! that is not under `charts/` is looked for, as a monorepo keeps its library next
//! to the charts that use it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::analysis::chart_yamls::ChartYamls;

/// Charts by `name:` of their `Chart.yaml`, with their version and folder.
#[derive(Debug, Default)]
pub struct Repository {
    charts: HashMap<String, Vec<(PathBuf, Option<String>)>>,
    /// The folders of the charts of `type: library`.
    libraries: Vec<PathBuf>,
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
                    repository.libraries.push(chart.folder.clone());
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
        self.libraries.iter()
    }

    /// The charts named `name`, with their versions.
    pub fn named(&self, name: &str) -> &[(PathBuf, Option<String>)] {
        self.charts.get(name).map_or(&[], Vec::as_slice)
    }
}
