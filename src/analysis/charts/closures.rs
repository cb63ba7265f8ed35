//! What following a chart's defines from the root context reaches, made once per
//! chart and shared by every chart that calls them: a library whose defines
//! include each other (`include "lib.b" .` inside `lib.a`) is followed once, not
//! once per chart that includes it, so a repository of N charts calling a library
//! of N defines in a ring is analysed in time and memory linear in N.
//!
//! The defines are grouped into the strongly connected parts of the graph of
//! their calls that hand on the root context to a define of the same chart
//! (Tarjan's algorithm). Each part holds what its defines read, use whole, merge
//! and call elsewhere; a chart's analysis takes the parts its call reaches, by
//! reference.

use crate::collections::HashMap;
use std::sync::Arc;

use super::values::OwnedUsed;
use super::{Call, Chart, Part, Parts};
use crate::template::reads::Arg;

impl Chart {
    /// The chart's defines in strongly connected parts of their root-context
    /// calls, made on first use.
    pub(super) fn parts(&self) -> &Parts {
        self.parts.get_or_init(|| self.make_parts())
    }

    fn make_parts(&self) -> Parts {
        let defines = &self.scan().defines;
        let mut names: Vec<&String> = defines.keys().collect();
        names.sort();
        let index: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(at, name)| (name.as_str(), at))
            .collect();
        // Each define's calls, as edges within the chart or exits.
        let mut edges: Vec<Vec<(usize, &Call)>> = vec![Vec::new(); names.len()];
        let mut exits: Vec<Vec<(Call, Arg, bool)>> = vec![Vec::new(); names.len()];
        for (at, name) in names.iter().enumerate() {
            for inner in &defines[*name].calls {
                let bound = inner.argument.bind(&Arg::Root);
                let inner_root = bound.carries_root() || inner.root;
                match index.get(inner.name.as_str()) {
                    Some(&to) if bound == Arg::Root && inner_root => edges[at].push((to, inner)),
                    _ => exits[at].push((inner.clone(), bound, inner_root)),
                }
            }
        }
        let part_of_node = strongly_connected(&edges);
        let count = part_of_node.iter().max().map_or(0, |last| last + 1);
        let mut parts: Vec<Part> = (0..count).map(|_| Part::default()).collect();
        for (at, name) in names.iter().enumerate() {
            let define = &defines[*name];
            let part = &mut parts[part_of_node[at]];
            part.reads.extend(define.reads.iter().cloned());
            for (path, use_) in &define.handed {
                if Arg::Root.reads(path, *use_, &mut part.reads) && part.handed_whole.is_none() {
                    part.handed_whole = Some((*name).clone());
                }
            }
            if let (Some((file, line)), None) = (&define.whole, &part.whole) {
                part.whole = Some(((*name).clone(), file.clone(), *line));
            }
            part.sets_values |= define.sets_values;
            part.exits.append(&mut exits[at]);
            for (to, call) in &edges[at] {
                part.literals.extend(call.literals.iter().cloned());
                let to = part_of_node[*to];
                if to != part_of_node[at] {
                    part.next.push(to);
                }
            }
        }
        let parts = parts
            .into_iter()
            .map(|mut part| {
                part.reads.sort_unstable();
                part.reads.dedup();
                part.next.sort_unstable();
                part.next.dedup();
                part.used = OwnedUsed::new(&part.reads);
                Arc::new(part)
            })
            .collect();
        Parts {
            part_of: names
                .iter()
                .enumerate()
                .map(|(at, name)| ((*name).clone(), part_of_node[at]))
                .collect(),
            parts,
        }
    }
}

/// The strongly connected part of each node of `edges` (Tarjan's algorithm,
/// without recursion: a ring of thousands of defines needs no deep stack).
fn strongly_connected(edges: &[Vec<(usize, &Call)>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let count = edges.len();
    let mut order = vec![UNSEEN; count];
    let mut low = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut part = vec![UNSEEN; count];
    let mut stack = Vec::new();
    let mut next_order = 0;
    let mut parts = 0;
    for start in 0..count {
        if order[start] != UNSEEN {
            continue;
        }
        // Each frame: a node and how many of its edges were taken.
        let mut frames = vec![(start, 0)];
        order[start] = next_order;
        low[start] = next_order;
        next_order += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (node, ref mut taken)) = frames.last_mut() {
            if let Some(&(to, _)) = edges[node].get(*taken) {
                *taken += 1;
                if order[to] == UNSEEN {
                    order[to] = next_order;
                    low[to] = next_order;
                    next_order += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    frames.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(order[to]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    part[member] = parts;
                    if member == node {
                        break;
                    }
                }
                parts += 1;
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn rings_are_one_part_and_chains_one_part_a_node() {
        let call = super::Call {
            name: String::new(),
            root: false,
            literals: Vec::new(),
            argument: crate::template::reads::Arg::nothing(),
        };
        let ring: Vec<Vec<(usize, &super::Call)>> =
            (0..5).map(|at| vec![((at + 1) % 5, &call)]).collect();
        let parts = strongly_connected(&ring);
        assert!(parts.iter().all(|part| *part == parts[0]));
        let chain: Vec<Vec<(usize, &super::Call)>> = (0..5)
            .map(|at| {
                if at < 4 {
                    vec![(at + 1, &call)]
                } else {
                    vec![]
                }
            })
            .collect();
        let mut parts = strongly_connected(&chain);
        parts.sort_unstable();
        parts.dedup();
        assert_eq!(parts.len(), 5);
    }
}
