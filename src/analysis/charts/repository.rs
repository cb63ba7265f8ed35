//! The charts of a repository (and of `chart-paths`) by name: where a dependency
//! that is not under `charts/` is looked for, as a monorepo keeps its library next
//! to the charts that use it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Folders and files looked at, all folders together: a larger tree is listed in
/// part, and a dependency not found says so.
const MAX_ENTRIES: usize = 200_000;
/// Folders deeper than this below a listed folder are not entered.
const MAX_DEPTH: usize = 24;

/// Charts by `name:` of their `Chart.yaml`, with their version and folder.
#[derive(Debug, Default)]
pub struct Repository {
    charts: HashMap<String, Vec<(PathBuf, Option<String>)>>,
    /// The folders of the charts of `type: library`.
    libraries: Vec<PathBuf>,
    /// Why the listing stopped early, when it did.
    pub truncated: Option<String>,
}

impl Repository {
    /// Lists the charts under `folders`: hidden folders, `node_modules` and links
    /// left out, bounded.
    pub fn list(folders: &[PathBuf]) -> Repository {
        let mut repository = Repository::default();
        let mut seen = 0usize;
        for top in folders {
            // What git ignores (build output, vendored checkouts) holds no chart a
            // dependency means; hidden folders and links are left out.
            // A chart's content folders hold no chart (Helm reads them as the
            // chart's templates and files), and they hold most of a tree.
            let walk = ignore::WalkBuilder::new(top)
                .max_depth(Some(MAX_DEPTH))
                .follow_links(false)
                .require_git(false)
                .filter_entry(|entry| {
                    entry.file_name() != "node_modules"
                        && !(entry.file_type().is_some_and(|kind| kind.is_dir())
                            && matches!(
                                entry.file_name().to_str(),
                                Some("templates" | "crds" | "files")
                            )
                            && entry
                                .path()
                                .parent()
                                .is_some_and(|chart| chart.join("Chart.yaml").is_file()))
                })
                .build();
            for entry in walk {
                seen += 1;
                if seen > MAX_ENTRIES {
                    repository.truncated = Some(format!(
                        "the repository was listed only in part (more than {MAX_ENTRIES} entries)"
                    ));
                    return repository.sorted();
                }
                let Ok(entry) = entry else { continue };
                let is_file = entry.file_type().is_some_and(|kind| kind.is_file());
                if is_file && entry.file_name() == "Chart.yaml" {
                    if let Some(folder) = entry.path().parent() {
                        repository.add(folder);
                    }
                }
            }
        }
        repository.sorted()
    }

    fn add(&mut self, folder: &Path) {
        let Ok((chart, _)) = crate::analysis::small_yaml::load(&folder.join("Chart.yaml")) else {
            return;
        };
        let text = |key: &str| {
            chart.get(key).and_then(|node| match &node.value {
                crate::analysis::small_yaml::Value::Scalar(scalar) => scalar.as_text(),
                _ => None,
            })
        };
        if text("type").is_some_and(|kind| kind == "library") {
            self.libraries.push(folder.to_path_buf());
        }
        if let Some(name) = text("name") {
            self.charts
                .entry(name)
                .or_default()
                .push((folder.to_path_buf(), text("version")));
        }
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
