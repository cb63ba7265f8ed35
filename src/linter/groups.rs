//! A run's files in chart trees: each tree (a chart with everything under it, its
//! subcharts included) is checked as one group, and the charts read for it are let
//! go once its files are checked, so a run holds the charts of the trees being
//! checked, not of the whole repository. A tree whose chart another tree of the
//! run reads as a dependency is checked after that tree, as soon as it can be
//! ([`Plan`]): it is then read once, not again after it was let go, and held only
//! between the two.

use crate::collections::{HashMap, HashSet};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::analysis::charts::{Charts, Scope, is_chart};
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

/// The order a run checks its chart trees in: the trees in path order, each as
/// soon as a thread is free, but a tree whose chart another tree of the run reads
/// as a dependency by name or `file://` path only once those trees are checked
/// (they read its chart, and it is let go once its own files are), and then
/// before any other. So a chart read for another tree is held from that tree
/// until its own is checked, not until the end of the run; and a library chart,
/// which every tree near it searches for defines, until the last of those trees
/// is checked.
pub(super) struct Plan {
    groups: Vec<Group>,
    /// For each group, how many groups must be checked before it.
    waits: Vec<usize>,
    /// For each group, the groups that wait for it.
    unblocks: Vec<Vec<usize>>,
    /// The library charts the groups' charts search (and the charts that hold
    /// them), each let go once the last of those groups is checked.
    libraries: Vec<(Arc<Charts>, PathBuf)>,
    /// For each group, the libraries its charts search or it holds (indexes
    /// into `libraries`).
    searches: Vec<Vec<usize>>,
}

impl Plan {
    /// The order of `groups` (in path order): which tree waits for which, from
    /// each repository's listing of `Chart.yaml` files and where each listed
    /// chart's dependencies not under its `charts/` are read from.
    pub fn of(groups: Vec<Group>, files: &[FileToCheck]) -> Plan {
        let roots: HashMap<&Path, usize> = groups
            .iter()
            .enumerate()
            .filter_map(|(at, group)| Some((group.root.as_deref()?, at)))
            .collect();
        let mut waits = vec![0; groups.len()];
        let mut unblocks: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
        let mut edges: HashSet<(usize, usize)> = HashSet::default();
        let mut libraries: Vec<(Arc<Charts>, PathBuf)> = Vec::new();
        let mut library_at: HashMap<(usize, PathBuf), usize> = HashMap::default();
        let mut searches: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
        // Each repository's listing once (the run's charts and the scope).
        let mut listed: Vec<(&Arc<Charts>, &Scope)> = Vec::new();
        for group in &groups {
            let Some(file) = group.files.first().map(|&index| &files[index]) else {
                continue;
            };
            let (charts, scope) = (&file.project.charts, &file.project.chart_scope);
            if listed
                .iter()
                .any(|(seen, seen_scope)| Arc::ptr_eq(seen, charts) && *seen_scope == scope)
            {
                continue;
            }
            listed.push((charts, scope));
            let Some(top) = &scope.top else {
                continue;
            };
            for chart in &charts.chart_yamls(top).charts {
                let Some(from) = tree_of(&chart.folder, &roots) else {
                    continue;
                };
                let own = chart.library.then(|| chart.folder.clone());
                for folder in charts
                    .libraries_near(scope, &chart.folder)
                    .into_iter()
                    .chain(own)
                {
                    let key = (Arc::as_ptr(charts) as usize, folder);
                    let at = *library_at.entry(key.clone()).or_insert_with(|| {
                        libraries.push((charts.clone(), key.1));
                        libraries.len() - 1
                    });
                    if !searches[from].contains(&at) {
                        searches[from].push(at);
                    }
                }
                for wanted in &chart.depends_on {
                    let Some(to) = charts
                        .found_elsewhere(scope, &chart.folder, wanted)
                        .and_then(|folder| roots.get(folder.as_path()).copied())
                    else {
                        continue;
                    };
                    if to != from && edges.insert((from, to)) {
                        waits[to] += 1;
                        unblocks[from].push(to);
                    }
                }
            }
        }
        Plan {
            groups,
            waits,
            unblocks,
            libraries,
            searches,
        }
    }

    /// Checks every group with `check`, as many at once as the thread pool has
    /// threads: first the groups whose wait just ended (their charts are held),
    /// then the others. Those are cut into as many lanes as threads, each a run of
    /// the path order (as rayon splits a list), taken in turn: two threads check
    /// far parts of the repository, not a large tree's large neighbours at once.
    /// Trees that wait for each other in a ring are taken in path order once
    /// nothing else is left to check.
    pub fn run(self, check: impl Fn(&Group) + Sync) {
        let threads = rayon::current_num_threads().max(1);
        let mut searchers = vec![0; self.libraries.len()];
        for &library in self.searches.iter().flatten() {
            searchers[library] += 1;
        }
        let queue = Queue::new(self.waits, searchers, threads);
        let shared = Shared {
            groups: &self.groups,
            unblocks: &self.unblocks,
            libraries: &self.libraries,
            searches: &self.searches,
            queue: Mutex::new(queue),
            threads,
            check: &check,
        };
        rayon::scope(|scope| shared.start_workers(scope));
    }
}

/// What the workers of [`Plan::run`] share.
struct Shared<'a, F> {
    groups: &'a [Group],
    unblocks: &'a [Vec<usize>],
    libraries: &'a [(Arc<Charts>, PathBuf)],
    searches: &'a [Vec<usize>],
    queue: Mutex<Queue>,
    threads: usize,
    check: &'a F,
}

/// The groups not yet checked, and the workers checking them.
struct Queue {
    /// Groups whose wait is over, by place in path order: taken first, as other
    /// trees read their charts and those are held until they are checked.
    waited: BTreeSet<usize>,
    /// Groups that waited for none, by their turn (the lanes in turn), then
    /// their place in path order.
    ready: BTreeSet<(usize, usize)>,
    /// Groups still waiting for others.
    waiting: BTreeSet<usize>,
    waits: Vec<usize>,
    /// For each library, the groups not yet checked that search it.
    searchers: Vec<usize>,
    /// Groups being checked.
    running: usize,
    /// Workers started and not yet ended.
    workers: usize,
}

impl Queue {
    /// The queue of groups each of which waits for `waits` others, the groups not
    /// waiting in lanes for `threads` threads.
    fn new(waits: Vec<usize>, searchers: Vec<usize>, threads: usize) -> Queue {
        let lane = waits.len().div_ceil(threads).max(1);
        Queue {
            waited: BTreeSet::new(),
            ready: (0..waits.len())
                .filter(|&at| waits[at] == 0)
                .map(|at| ((at % lane) * threads + at / lane, at))
                .collect(),
            waiting: (0..waits.len()).filter(|&at| waits[at] != 0).collect(),
            waits,
            searchers,
            running: 0,
            workers: 0,
        }
    }

    /// The next group to check: the first whose wait ended, else the first
    /// ready one; when none is and nothing is being checked, the first waiting
    /// one (a ring of trees waiting for each other).
    fn next(&mut self) -> Option<usize> {
        let next = self
            .waited
            .pop_first()
            .or_else(|| self.ready.pop_first().map(|(_, at)| at))
            .or_else(|| match self.running {
                0 => self.waiting.pop_first(),
                _ => None,
            })?;
        self.running += 1;
        Some(next)
    }
}

impl<'a, F: Fn(&Group) + Sync> Shared<'a, F> {
    /// Starts as many workers as there are groups to take, up to the threads.
    /// A worker never waits: it ends when no group is ready, and the worker that
    /// ends another group's wait starts workers for what it made ready. (A worker
    /// that waited could be the one holding, lower on its thread's stack, the
    /// group it waits for: rayon runs a queued task inside another's join.)
    fn start_workers<'s>(&'s self, scope: &rayon::Scope<'s>)
    where
        'a: 's,
    {
        let start = {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            let takeable = match queue.running {
                0 => queue.waited.len() + queue.ready.len() + queue.waiting.len(),
                _ => queue.waited.len() + queue.ready.len(),
            };
            let start = takeable.min(self.threads.saturating_sub(queue.workers));
            queue.workers += start;
            start
        };
        for _ in 0..start {
            scope.spawn(|scope| self.work(scope));
        }
    }

    /// Checks groups until none is ready.
    fn work<'s>(&'s self, scope: &rayon::Scope<'s>)
    where
        'a: 's,
    {
        loop {
            let next = {
                let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
                match queue.next() {
                    Some(next) => next,
                    None => {
                        queue.workers -= 1;
                        return;
                    }
                }
            };
            (self.check)(&self.groups[next]);
            let mut searched = Vec::new();
            let more = {
                let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
                queue.running -= 1;
                for &library in &self.searches[next] {
                    queue.searchers[library] -= 1;
                    if queue.searchers[library] == 0 {
                        searched.push(library);
                    }
                }
                for &after in &self.unblocks[next] {
                    queue.waits[after] -= 1;
                    if queue.waits[after] == 0 && queue.waiting.remove(&after) {
                        queue.waited.insert(after);
                    }
                }
                queue.waited.len() + queue.ready.len() > 1
            };
            for library in searched {
                let (charts, folder) = &self.libraries[library];
                charts.release_chart(folder);
            }
            if more {
                self.start_workers(scope);
            }
        }
    }
}

/// The group whose tree holds the chart folder `folder`: the outermost group
/// root at or above it.
fn tree_of(folder: &Path, roots: &HashMap<&Path, usize>) -> Option<usize> {
    folder
        .ancestors()
        .filter_map(|folder| roots.get(folder).copied())
        .last()
}

/// `files` grouped by the outermost chart folder above each (a folder with a
/// `Chart.yaml`), the groups in the order of their first file.
pub(super) fn chart_groups(files: &[FileToCheck]) -> Vec<Group> {
    let mut outermost = Outermost::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_root: HashMap<Option<PathBuf>, usize> = HashMap::default();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan of `count` groups (group `at` holds file `at`) in which each
    /// `(before, after)` has `after` wait for `before`.
    fn plan(count: usize, edges: &[(usize, usize)]) -> Plan {
        let mut plan = Plan {
            groups: (0..count)
                .map(|at| Group {
                    root: Some(PathBuf::from(format!("/charts/{at}"))),
                    files: vec![at],
                })
                .collect(),
            waits: vec![0; count],
            unblocks: vec![Vec::new(); count],
            libraries: Vec::new(),
            searches: vec![Vec::new(); count],
        };
        for &(before, after) in edges {
            plan.waits[after] += 1;
            plan.unblocks[before].push(after);
        }
        plan
    }

    /// The order `plan` checks its groups in, on `threads` threads.
    fn order(plan: Plan, threads: usize) -> Vec<usize> {
        let checked = Mutex::new(Vec::new());
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| plan.run(|group| checked.lock().unwrap().push(group.files[0])));
        checked.into_inner().unwrap()
    }

    #[test]
    fn a_tree_read_by_others_is_checked_right_after_the_last_of_them() {
        // 1 is read by 3 and 4: it comes after 4, before 5 and 6.
        assert_eq!(
            order(plan(7, &[(3, 1), (4, 1)]), 1),
            vec![0, 2, 3, 4, 1, 5, 6]
        );
        // 4 is read by 0: it comes next, before the trees between.
        assert_eq!(order(plan(5, &[(0, 4)]), 1), vec![0, 4, 1, 2, 3]);
        // A chain: 0 waits for 1, which waits for 2.
        assert_eq!(order(plan(4, &[(1, 0), (2, 1)]), 1), vec![2, 1, 0, 3]);
    }

    #[test]
    fn two_threads_take_two_lanes_of_the_path_order_in_turn() {
        // On one thread of the two, in the order taken: 0 and 3 (the first of
        // each half), then 1 and 4, then 2 and 5.
        let turns = |threads| {
            let mut queue = Queue::new(vec![0; 6], Vec::new(), threads);
            std::iter::from_fn(|| queue.next()).collect::<Vec<_>>()
        };
        assert_eq!(turns(2), vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(turns(1), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn trees_that_wait_for_each_other_are_checked_in_path_order() {
        assert_eq!(order(plan(3, &[(0, 1), (1, 0)]), 1), vec![2, 0, 1]);
        assert_eq!(order(plan(2, &[(0, 1), (1, 0)]), 1), vec![0, 1]);
    }

    #[test]
    fn on_several_threads_each_group_is_checked_once_and_after_what_it_waits_for() {
        let edges: Vec<(usize, usize)> = (0..200)
            .flat_map(|at| [(at * 3 + 1, at * 3), (at * 3 + 2, at * 3)])
            .chain([(0, 599), (599, 0)])
            .collect();
        for threads in [2, 4] {
            let checked = order(plan(600, &edges), threads);
            let mut sorted = checked.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..600).collect::<Vec<_>>());
            let place = |group: usize| checked.iter().position(|&at| at == group).unwrap();
            for at in 1..200 {
                assert!(place(at * 3) > place(at * 3 + 1) && place(at * 3) > place(at * 3 + 2));
            }
        }
    }
}
