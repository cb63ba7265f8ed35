//! The named templates a chart's rendering can call, as one index: every define of
//! the charts Helm loads with it, and whether that set is whole (every dependency
//! found and read). A leaf: [`super::Chart`] builds it (`defines.rs`), and
//! `undefined-template` and the values notes ask it.

use crate::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The charts of a define index's graph, and a fingerprint over their files and
/// manifests found without lexing (`Chart::graph_fingerprint`).
#[derive(Debug, Default)]
pub(super) struct Graph {
    pub(super) roots: HashSet<std::path::PathBuf>,
    pub(super) fingerprint: u64,
}

/// The defines of a chart graph (the chart, its dependencies, its parents and what
/// they reach) and of the repository's library charts.
#[derive(Debug, Default)]
pub struct DefineIndex {
    /// Every define of the charts of the graph.
    pub(super) graph: DefineNames,
    /// Every define of the repository's library charts outside the graph, which a
    /// build step may put under `charts/`.
    pub(super) libraries: DefineNames,
    /// The names of the graph's charts, in the order they were searched, each once.
    pub(super) searched: Vec<String>,
    /// Whether library charts outside the graph were searched too.
    pub(super) searched_libraries: bool,
    /// The graph's dependencies tether did not find.
    pub(super) missing: Vec<MissingDependency>,
    /// What else of the graph tether did not read (an archive read in part, a
    /// template too large), one sentence each.
    pub(super) gaps: Vec<String>,
    /// The folders of the graph's charts (a subchart shares its top chart's index
    /// when that index holds it).
    pub(super) roots: HashSet<std::path::PathBuf>,
}

/// The names of the defines of some charts: each chart's table, shared with the
/// chart's scan, never copied (a repository of N charts that each reach a library
/// of N defines would otherwise hold N² names).
#[derive(Default)]
pub(super) struct DefineNames(Vec<Arc<dyn Names>>);

/// A chart's table of defines, by name.
pub(super) trait Names: Send + Sync {
    fn has(&self, name: &str) -> bool;
    fn all(&self) -> Box<dyn Iterator<Item = &String> + '_>;
}

impl<V: Send + Sync> Names for HashMap<String, V> {
    fn has(&self, name: &str) -> bool {
        self.contains_key(name)
    }
    fn all(&self) -> Box<dyn Iterator<Item = &String> + '_> {
        Box::new(self.keys())
    }
}

impl std::fmt::Debug for DefineNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl DefineNames {
    /// Adds a chart's defines, once.
    pub(super) fn add(&mut self, defines: Arc<dyn Names>) {
        let same =
            |known: &Arc<dyn Names>| std::ptr::addr_eq(Arc::as_ptr(known), Arc::as_ptr(&defines));
        if !self.0.iter().any(same) {
            self.0.push(defines);
        }
    }

    pub(super) fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|defines| defines.has(name))
    }

    /// Every name, once per chart that defines it.
    fn iter(&self) -> impl Iterator<Item = &String> {
        self.0.iter().flat_map(|defines| defines.all())
    }
}

/// A dependency of the graph tether did not find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingDependency {
    pub name: String,
    pub alias: Option<String>,
    pub version: Option<String>,
    /// Why it was not found.
    pub why: String,
    /// The repository has a library chart of that name (at another version).
    pub library: bool,
    /// It is under `charts/`, but tether could not read it (`why` says what is
    /// wrong with it): no other place would help.
    pub unread: bool,
}

/// What the index knows of one name.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// A chart of the graph, or a library chart of the repository, defines it.
    Found,
    /// No chart defines it, and the graph was read whole: Helm fails where it is
    /// called.
    Absent {
        /// The define most like it, when one is near.
        nearest: Option<&'a str>,
    },
    /// No chart tether read defines it, but the graph was not read whole.
    Unknown {
        /// The missing dependencies that may define it (its prefix is their name
        /// or alias, or they are library charts).
        holders: Vec<&'a MissingDependency>,
    },
}

impl DefineIndex {
    /// Whether every dependency of the graph was found and read whole.
    pub fn complete(&self) -> bool {
        self.missing.is_empty() && self.gaps.is_empty()
    }

    /// Every name the index holds, once: the graph's defines, then the
    /// repository's library charts' outside it.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let mut seen = HashSet::default();
        self.graph
            .iter()
            .chain(
                self.libraries
                    .iter()
                    .filter(|name| !self.graph.contains(name)),
            )
            .map(String::as_str)
            .filter(move |name| seen.insert(*name))
    }

    /// Whether the index is that of a graph holding the chart at `root`.
    pub(super) fn holds(&self, root: &std::path::Path) -> bool {
        self.roots.contains(root)
    }

    /// What the index knows of the define `name`.
    pub fn lookup(&self, name: &str) -> Lookup<'_> {
        if self.graph.contains(name) {
            return Lookup::Found;
        }
        if !self.complete() {
            let holders = self
                .missing
                .iter()
                .filter(|missing| missing.may_define(name))
                .collect();
            return Lookup::Unknown { holders };
        }
        if self.libraries.contains(name) {
            return Lookup::Found;
        }
        let nearest = nearest(name, &self.graph).or_else(|| nearest(name, &self.libraries));
        Lookup::Absent { nearest }
    }

    /// The charts searched, for a message: at most five names, then how many more,
    /// and the repository's library charts when they were searched too (only a
    /// graph read whole is searched beyond).
    pub fn searched_list(&self) -> String {
        let mut list = quoted(&self.searched, 5);
        if self.searched_libraries && self.complete() {
            list.push_str(" and the repository's library charts");
        }
        list
    }

    /// Why the values rules cannot know what the calls of `unknown` read (each a
    /// define no chart tether read has), for the run's notes: the missing
    /// dependencies that may define them, or, where none may, that they exist in
    /// no chart searched and which dependencies were not searched.
    pub fn unknown_note(&self, unknown: &[String]) -> String {
        let mut held: Vec<(&MissingDependency, Vec<String>)> = Vec::new();
        let mut nowhere: Vec<String> = Vec::new();
        // Defined in a chart of the graph the analysis did not follow (past its
        // bounds): rare, and said as it is.
        let mut unfollowed: Vec<String> = Vec::new();
        for name in unknown {
            let holders = match self.lookup(name) {
                Lookup::Unknown { holders } => holders,
                Lookup::Found => {
                    unfollowed.push(name.clone());
                    continue;
                }
                Lookup::Absent { .. } => Vec::new(),
            };
            if holders.is_empty() {
                nowhere.push(name.clone());
            }
            for holder in holders {
                match held.iter_mut().find(|(missing, _)| *missing == holder) {
                    Some((_, names)) => names.push(name.clone()),
                    None => held.push((holder, vec![name.clone()])),
                }
            }
        }
        let mut sentences: Vec<String> = held
            .iter()
            .map(|(missing, names)| {
                format!(
                    "it includes {}, which the missing dependency {} may define",
                    quoted(names, 3),
                    missing.shown()
                )
            })
            .collect();
        if !nowhere.is_empty() {
            let mut sentence = format!(
                "it includes {}, which no chart searched defines (searched: {})",
                quoted(&nowhere, 3),
                self.searched_list()
            );
            // A dependency a sentence before explained is named only.
            let unsearched: Vec<String> = self
                .missing
                .iter()
                .map(|missing| {
                    if held.iter().any(|(shown, _)| *shown == missing) {
                        format!("`{}`", missing.name)
                    } else {
                        missing.shown()
                    }
                })
                .collect();
            if !unsearched.is_empty() {
                let more = unsearched.len().saturating_sub(3);
                let mut shown: Vec<String> = unsearched.into_iter().take(3).collect();
                if more > 0 {
                    shown.push(format!("{more} more"));
                }
                sentence.push_str(&format!("; not searched: {}", shown.join(", ")));
            }
            if let Some(gap) = self.gaps.first() {
                sentence.push_str(&format!("; not read whole: {gap}"));
            }
            sentences.push(sentence);
        }
        if !unfollowed.is_empty() {
            sentences.push(format!(
                "it includes {}, defined in a chart of its graph whose reads tether does not follow",
                quoted(&unfollowed, 3)
            ));
        }
        let mut note = sentences.join("; ");
        if self.missing.iter().any(|missing| !missing.unread) {
            note.push_str("; run `helm dependency build` in the chart, or name the folder holding a dependency in `chart-paths` of tether.toml");
        } else if !self.missing.is_empty() {
            note.push_str("; run `helm dependency build` in the chart to write its archives again");
        }
        note
    }
}

impl MissingDependency {
    /// Whether it may define `name`: the name starts with its name or alias and a
    /// dot (`common.names.fullname` of `common`), or it is a library chart.
    fn may_define(&self, name: &str) -> bool {
        let prefixed = |prefix: &str| {
            name.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('.'))
        };
        self.library || prefixed(&self.name) || self.alias.as_deref().is_some_and(prefixed)
    }

    /// `` `name` 1.2.3 (why) `` for messages.
    fn shown(&self) -> String {
        let version = self
            .version
            .as_deref()
            .map(|version| format!(" {version}"))
            .unwrap_or_default();
        format!("`{}`{version} ({})", self.name, self.why)
    }
}

/// The define of `names` most like `name`: by edit distance over the whole name, or
/// over what follows the first dot when only the prefix differs (`wordpress.port`
/// for `blog.port`), within about a quarter of the name's length.
fn nearest<'a>(name: &str, names: &'a DefineNames) -> Option<&'a str> {
    let limit = (name.chars().count() / 4).max(2);
    names
        .iter()
        .map(|candidate| {
            let whole = strsim::levenshtein(name, candidate);
            let by_suffix = match (suffix(name), suffix(candidate)) {
                (Some(own), Some(other)) if !own.is_empty() => {
                    strsim::levenshtein(own, other).saturating_add(2)
                }
                _ => usize::MAX,
            };
            (whole.min(by_suffix), candidate.as_str())
        })
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}

/// What follows the first dot of a define's name (`port` of `wordpress.port`).
fn suffix(name: &str) -> Option<&str> {
    name.split_once('.').map(|(_, rest)| rest)
}

/// `` `a`, `b` `` of at most `most` names, then how many more.
fn quoted(names: &[String], most: usize) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(most)
        .map(|name| format!("`{name}`"))
        .collect();
    if names.len() > most {
        shown.push(format!("{} more", names.len() - most));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> DefineNames {
        let defines: HashMap<String, ()> =
            list.iter().map(|name| ((*name).to_string(), ())).collect();
        let mut names = DefineNames::default();
        names.add(Arc::new(defines));
        names
    }

    #[test]
    fn the_nearest_define_is_a_typo_away_or_under_another_prefix() {
        let defines = names(&[
            "common.tplvalues.render",
            "common.names.fullname",
            "app.port",
        ]);
        assert_eq!(
            nearest("commot.tplvalues.render", &defines),
            Some("common.tplvalues.render")
        );
        assert_eq!(nearest("wordpress.port", &defines), Some("app.port"));
        assert_eq!(nearest("nextcloud.mariadb.fullname", &defines), None);
    }

    #[test]
    fn a_missing_dependency_may_define_what_its_name_prefixes() {
        let missing = MissingDependency {
            name: "common".into(),
            alias: Some("lib".into()),
            version: None,
            why: String::new(),
            library: false,
            unread: false,
        };
        assert!(missing.may_define("common.names.fullname"));
        assert!(missing.may_define("lib.x"));
        assert!(!missing.may_define("commonx.y"));
        assert!(!missing.may_define("nextcloud.common.x"));
    }
}
