//! A chart's [`Analysis`]: its own reads with those of the named templates it
//! calls in the charts it reaches, followed call by call.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use super::manifest::split_path;
use super::{Analysis, Call, Chart, Define, Keys, MAX_NESTING, Source, names};
use crate::template::reads::Use;

impl Chart {
    /// The chart's reads with the named templates it reaches in its dependencies,
    /// made on first use.
    pub fn analysis(&self) -> &Analysis {
        self.analysis.get_or_init(|| self.analyse())
    }

    /// The chart's reads with those of the defines it calls in the charts it
    /// reaches, followed call by call from its own files' calls.
    fn analyse(&self) -> Analysis {
        let scan = self.scan();
        let mut analysis = Analysis {
            reads: scan.reads.clone(),
            ..Analysis::default()
        };
        if let Some((file, why)) = &scan.opaque {
            analysis.opaque = Some(format!("{} {why}", self.shown(file)));
        }
        let mut namespace = self.reached_defines();
        let mut libraries_read = false;
        // Defines a declared dependency would bring are its, not a library's.
        let declared_missing = self
            .dependencies
            .iter()
            .any(|resolved| matches!(resolved.source, Source::Missing(_)));
        let mut queue: VecDeque<Call> = scan.calls.iter().cloned().collect();
        let mut visited: HashSet<String> = HashSet::new();
        let mut literals: Vec<String> = Vec::new();
        while let Some(call) = queue.pop_front() {
            literals.extend(call.literals.iter().cloned());
            // A define of the chart's own: its reads are the chart's already.
            if !call.root || scan.defines.contains_key(&call.name) {
                continue;
            }
            if !visited.insert(call.name.clone()) {
                continue;
            }
            // Not in any dependency: a library chart of the repository that
            // defines it, which a build step puts under `charts/` (no chart
            // renders without the defines it calls).
            if !namespace.contains_key(&call.name) && !libraries_read && !declared_missing {
                libraries_read = true;
                for chart in self.repository_libraries() {
                    add_defines(&mut namespace, &chart);
                    analysis.libraries.push(chart);
                }
            }
            match namespace.get(&call.name) {
                Some((define, chart)) => {
                    analysis.reads.extend(define.reads.iter().cloned());
                    if let (Some((file, line)), None) = (&define.whole, &analysis.opaque) {
                        analysis.opaque = Some(format!(
                            "`{}` of chart `{}` ({}) uses `.Values` whole at line {line}",
                            call.name,
                            chart.name(),
                            self.shown(file)
                        ));
                    }
                    if define.sets_values
                        && !analysis
                            .merged
                            .iter()
                            .any(|known| Arc::ptr_eq(known, chart))
                    {
                        analysis.merged.push(chart.clone());
                    }
                    queue.extend(define.calls.iter().cloned());
                }
                // A define no chart of a graph read whole has: Helm fails where
                // it is called (`undefined-template` says so), and it reads
                // nothing. Otherwise, a chart tether did not read may define it.
                None => {
                    let index = self.define_index();
                    if !matches!(index.lookup(&call.name), names::Lookup::Absent { .. }) {
                        analysis.unknown.push(call.name.clone());
                    }
                }
            }
        }
        analysis.reads.extend(self.literal_reads(&literals));
        analysis.unknown.sort();
        analysis.reads.sort_unstable();
        analysis.reads.dedup();
        analysis
    }

    /// Every named template of the charts the chart's rendering loads, nearest
    /// first: its dependencies, and (Helm renders a chart with its parents'
    /// templates loaded too, so a subchart may call its parents' defines and its
    /// siblings') each parent up to the top and the charts it reaches.
    fn reached_defines(&self) -> Namespace {
        let mut namespace = Namespace::new();
        let mut reached = self.reached_charts();
        let mut parent = self.parent_chart();
        let mut depth = 0;
        while let Some(chart) = parent {
            if depth >= MAX_NESTING {
                break;
            }
            depth += 1;
            parent = chart.parent_chart();
            let siblings = chart.reached_charts();
            reached.push(chart);
            reached.extend(siblings);
        }
        for chart in &reached {
            add_defines(&mut namespace, chart);
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
            let named = match self.values.at(&path) {
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

/// Named templates by name, each with the chart that defines it.
type Namespace = HashMap<String, (Arc<Define>, Arc<Chart>)>;

/// Adds the defines of `chart` to `namespace`, keeping a name that is there already:
/// charts are added nearest first.
fn add_defines(namespace: &mut Namespace, chart: &Arc<Chart>) {
    for (name, define) in &chart.scan().defines {
        namespace
            .entry(name.clone())
            .or_insert_with(|| (define.clone(), chart.clone()));
    }
}
