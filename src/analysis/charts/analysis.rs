//! A chart's [`Analysis`]: its own reads with those of the named templates it
//! calls in the charts it reaches, followed call by call.

use crate::collections::{HashMap, HashSet};
use std::collections::VecDeque;
use std::sync::Arc;

use super::manifest::split_path;
use super::{Analysis, Call, Chart, Define, DependencySource, Keys, names};
use crate::template::reads::{Arg, Use};

impl Analysis {
    /// The define `name` of `chart` uses `.Values` whole, in `shown` at `line`:
    /// every value counts as read (said once, for the first such define met).
    fn used_whole(&mut self, name: &str, chart: &Chart, shown: &str, line: usize) {
        if self.everything.is_none() {
            self.everything = Some(format!(
                "`{name}` of chart `{}` ({shown}) uses `.Values` whole at line {line}",
                chart.name()
            ));
        }
    }

    /// A define of `chart` merges into the root's values: its values count as the
    /// chart's (each chart once).
    fn merges(&mut self, chart: &Arc<Chart>) {
        if !self.merged.iter().any(|known| Arc::ptr_eq(known, chart)) {
            self.merged.push(chart.clone());
        }
    }

    /// The chart's reads indexed for `unused-value`, with the parts of other
    /// charts' defines it shares.
    pub(super) fn used(&self) -> super::values::Used<'_> {
        super::values::Used::new(&self.reads).with_shared(self.shared.iter().map(|part| &part.used))
    }
}

impl Chart {
    /// The chart's reads with the named templates it reaches in its dependencies,
    /// made on first use.
    pub fn analysis(&self) -> &Analysis {
        self.analysis.get_or_init(|| self.analyse())
    }

    /// The chart's reads with those of the defines it calls in the charts it
    /// reaches, followed call by call from its own files' calls, each define with
    /// what the call hands it.
    fn analyse(&self) -> Analysis {
        let scan = self.scan();
        let mut analysis = Analysis {
            reads: scan.reads().cloned().collect(),
            ..Analysis::default()
        };
        if let Some((file, why)) = &scan.opaque {
            analysis.opaque = Some(format!("{} {why}", self.shown(file)));
        }
        if let Some((file, why)) = &scan.everything {
            analysis.everything = Some(format!("{} {why}", self.shown(file)));
        }
        let mut follow = Follow {
            namespace: self.reached_defines(),
            libraries_read: false,
            // Defines a declared dependency would bring are its, not a library's.
            declared_missing: self.dependencies.iter().any(|resolved| {
                matches!(
                    resolved.source,
                    DependencySource::Missing(_) | DependencySource::Unread(_)
                )
            }),
            queue: VecDeque::new(),
            visited: HashSet::default(),
            bindings: HashMap::default(),
            literals: Vec::new(),
            parts_taken: HashSet::default(),
            unshadowed: HashMap::default(),
        };
        // The calls of the chart's files; those inside its own defines as the
        // define's body spells them for the root context (how tether reads a
        // define's `.Values`), and again below with what each call hands it.
        for call in scan.calls() {
            let argument = call.argument.bind(&Arg::Root);
            let root = call.root || argument.carries_root();
            follow.queue.push_back((call.clone(), argument, root));
        }
        while let Some((call, argument, root)) = follow.queue.pop_front() {
            follow.literals.extend(call.literals.iter().cloned());
            self.follow_call(&call.name, argument, root, &mut follow, &mut analysis);
        }
        analysis.reads.extend(self.literal_reads(&follow.literals));
        analysis.unknown.sort();
        analysis.reads.sort_unstable();
        analysis.reads.dedup();
        analysis
    }

    /// Follows one call of the define `name`, handed `argument` (the root context
    /// in it when `root`), into `analysis`: the define's reads of the root's values
    /// when it is handed the root (a define of the chart's own has them in the
    /// chart's reads already), its reads of what it is handed, and its own calls.
    fn follow_call(
        &self,
        name: &str,
        argument: Arg,
        root: bool,
        follow: &mut Follow,
        analysis: &mut Analysis,
    ) {
        let own = self.scan().defines.get(name);
        if own.is_none() && !root && !argument.holds_values() {
            return;
        }
        let count = follow.bindings.entry(name.to_string()).or_default();
        if follow
            .visited
            .contains(&(name.to_string(), argument.clone(), root))
        {
            return;
        }
        if *count >= MAX_BINDINGS {
            if analysis.opaque.is_none() {
                analysis.opaque = Some(format!(
                    "`{name}` is called with more than {MAX_BINDINGS} different arguments, and tether follows no more"
                ));
            }
            return;
        }
        *count += 1;
        follow
            .visited
            .insert((name.to_string(), argument.clone(), root));
        let (define, chart) = match own {
            Some(define) => (define.clone(), None),
            None => match follow.lookup(self, name, analysis) {
                Some((define, chart)) => (define, Some(chart)),
                None => {
                    self.unknown_define(name, &argument, root, analysis);
                    return;
                }
            },
        };
        if let Some(chart) = &chart {
            if root && argument == Arg::Root && self.unshadowed(chart, follow) {
                self.take_parts(chart, name, follow, analysis);
                return;
            }
        }
        if let (Some(chart), true) = (&chart, root) {
            analysis.reads.extend(define.reads.iter().cloned());
            if let Some((file, line)) = &define.whole {
                analysis.used_whole(name, chart, &self.shown(file), *line);
            }
            if define.sets_values {
                analysis.merges(chart);
            }
        }
        for (path, use_) in &define.handed {
            if argument.reads(path, *use_, &mut analysis.reads) && analysis.everything.is_none() {
                analysis.everything = Some(format!(
                    "`{name}` uses whole the `.Values` the chart hands it"
                ));
            }
        }
        for inner in &define.calls {
            let bound = inner.argument.bind(&argument);
            let inner_root = bound.carries_root() || (inner.root && root);
            follow.queue.push_back((inner.clone(), bound, inner_root));
        }
    }

    /// Whether no define of `chart` is shadowed for this chart's calls: no chart
    /// whose defines come first (this one, and those before `chart` in the
    /// namespace) defines a name `chart` defines. Then a call with the root
    /// context into `chart` reaches what `chart`'s own parts say.
    fn unshadowed(&self, chart: &Arc<Chart>, follow: &mut Follow) -> bool {
        let key = Arc::as_ptr(chart) as usize;
        if let Some(known) = follow.unshadowed.get(&key) {
            return *known;
        }
        let defines = &chart.scan().defines;
        let before = follow
            .namespace
            .0
            .iter()
            .take_while(|known| !Arc::ptr_eq(known, chart))
            .filter(|known| !std::ptr::eq(Arc::as_ptr(known), self));
        let free = std::iter::once(self)
            .chain(before.map(|known| &**known))
            .all(|earlier| {
                earlier
                    .scan()
                    .defines
                    .keys()
                    .all(|name| !defines.contains_key(name))
            });
        follow.unshadowed.insert(key, free);
        free
    }

    /// Takes the parts of `chart`'s defines that a call of `name` with the root
    /// context reaches, once each: their reads by reference, what they use whole
    /// or merge, and their calls that leave them, queued.
    fn take_parts(
        &self,
        chart: &Arc<Chart>,
        name: &str,
        follow: &mut Follow,
        analysis: &mut Analysis,
    ) {
        let parts = chart.parts();
        let Some(&first) = parts.part_of.get(name) else {
            return;
        };
        let key = Arc::as_ptr(chart) as usize;
        let mut pending = VecDeque::from([first]);
        while let Some(at) = pending.pop_front() {
            if !follow.parts_taken.insert((key, at)) {
                continue;
            }
            let part = &parts.parts[at];
            if let Some((define, file, line)) = &part.whole {
                analysis.used_whole(define, chart, &self.shown(file), *line);
            }
            if part.sets_values {
                analysis.merges(chart);
            }
            if let (Some(define), None) = (&part.handed_whole, &analysis.everything) {
                analysis.everything = Some(format!(
                    "`{define}` uses whole the `.Values` the chart hands it"
                ));
            }
            follow.literals.extend(part.literals.iter().cloned());
            follow.queue.extend(part.exits.iter().cloned());
            pending.extend(part.next.iter().copied());
            analysis.shared.push(part.clone());
        }
    }

    /// A define no chart tether read has, called with `argument`. In a graph read
    /// whole, Helm fails where it is called (`undefined-template` says so) and it
    /// reads nothing; otherwise a chart tether did not read may define it: handed
    /// the root context or all the values, it may read any value; handed values
    /// under `.Values`, it reads them whole.
    fn unknown_define(&self, name: &str, argument: &Arg, root: bool, analysis: &mut Analysis) {
        let index = self.define_index();
        if matches!(index.lookup(name), names::Lookup::Absent { .. }) {
            return;
        }
        if root || argument.holds_all_values() {
            if !analysis.unknown.iter().any(|known| known == name) {
                analysis.unknown.push(name.to_string());
            }
            return;
        }
        let mut paths = Vec::new();
        argument.values_paths(&mut paths);
        analysis
            .reads
            .extend(paths.into_iter().map(|path| (path, Use::Whole)));
    }

    /// Every named template of the charts the chart's rendering loads, nearest
    /// first: its dependencies, and (Helm renders a chart with its parents'
    /// templates loaded too, so a subchart may call its parents' defines and its
    /// siblings') each parent up to the top and the charts it reaches.
    fn reached_defines(&self) -> Namespace {
        let mut namespace = Namespace::default();
        let mut reached = self.reached_charts();
        for chart in self.ancestors() {
            let siblings = chart.reached_charts();
            reached.push(chart);
            reached.extend(siblings);
        }
        for chart in &reached {
            namespace.add(chart);
        }
        namespace
    }

    /// The reads of paths spelled as strings and handed to a helper
    /// (`"auth.password"`), which the helper reads. A lone word names a value only
    /// when it is no map: words such as `"crds"` or `"server"` name components far
    /// more often than the values a helper looks up.
    fn literal_reads(&self, literals: &[String]) -> Vec<(Vec<String>, Use)> {
        let mut reads = Vec::new();
        for literal in literals {
            let path = split_path(literal);
            let is_path = !path.is_empty()
                && literal
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'));
            let named = match self.values().at(&path) {
                Some(Keys::Map(_)) => path.len() > 1,
                Some(Keys::Open) => true,
                None => false,
            };
            if is_path && named {
                reads.push((path, Use::Whole));
            }
        }
        reads
    }
}

/// The charts whose named templates a chart's calls may reach, nearest first: a
/// name is the first of them to define it. Looked up chart by chart rather than
/// merged into one table, so a chart that reaches a library of thousands of
/// defines does not copy them all.
#[derive(Default)]
struct Namespace(Vec<Arc<Chart>>);

impl Namespace {
    /// Adds `chart` after the others, once.
    fn add(&mut self, chart: &Arc<Chart>) {
        if !self.0.iter().any(|known| Arc::ptr_eq(known, chart)) {
            self.0.push(chart.clone());
        }
    }

    /// The define `name` and the chart that defines it.
    fn get(&self, name: &str) -> Option<(Arc<Define>, Arc<Chart>)> {
        self.0.iter().find_map(|chart| {
            let define = chart.scan().defines.get(name)?;
            Some((define.clone(), chart.clone()))
        })
    }

    fn contains_key(&self, name: &str) -> bool {
        self.0
            .iter()
            .any(|chart| chart.scan().defines.contains_key(name))
    }
}

/// Distinct arguments a define is followed with, per chart: a define that hands
/// itself ever new arguments ends.
const MAX_BINDINGS: usize = 256;

/// The state of following a chart's calls.
struct Follow {
    namespace: Namespace,
    /// The repository's libraries were added to the namespace.
    libraries_read: bool,
    /// A declared dependency was not found.
    declared_missing: bool,
    /// Calls to follow: each with what it hands, and whether that holds the root.
    queue: VecDeque<(Call, Arg, bool)>,
    visited: HashSet<(String, Arg, bool)>,
    /// Arguments followed per define.
    bindings: HashMap<String, usize>,
    /// The string literals of every call followed.
    literals: Vec<String>,
    /// The parts of other charts' defines taken, by chart and index.
    parts_taken: HashSet<(usize, usize)>,
    /// Whether each chart's defines are shadowed for this chart, once known.
    unshadowed: HashMap<usize, bool>,
}

impl Follow {
    /// The define `name` in the charts `chart` reaches; not found there, in a
    /// library chart of the repository, which a build step puts under `charts/`
    /// (no chart renders without the defines it calls), read once.
    fn lookup(
        &mut self,
        chart: &Chart,
        name: &str,
        analysis: &mut Analysis,
    ) -> Option<(Arc<Define>, Arc<Chart>)> {
        if !self.namespace.contains_key(name) && !self.libraries_read && !self.declared_missing {
            self.libraries_read = true;
            for library in chart.repository_libraries() {
                self.namespace.add(&library);
                analysis.libraries.push(library);
            }
        }
        self.namespace.get(name)
    }
}
