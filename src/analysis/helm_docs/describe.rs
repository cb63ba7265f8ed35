//! helm-docs' reading of the split: each kept key's description, `@ignore`, and
//! where every `# --` comment of the file goes.

use crate::collections::HashMap;
use std::collections::BTreeMap;

use super::lines::{FileLines, Head, LineKind, SimKey};
use super::parse::{OldStyle, Parsed, is_marker, parse_comment};
use super::paths::{Segment, Segments, helm_docs_path, is_ancestor, renumbered_path};
use super::split::Split;
use super::types::{Description, Destination, HelmDocs, Marker};

/// A key's head comment, read by helm-docs.
struct NewStyle {
    parsed: Parsed,
    /// Index in the head of the line the group starts on.
    start: usize,
}

/// helm-docs' reading of the split: each kept key's description, from its head or an
/// old-style line, and where every `# --` comment of the file goes.
pub(super) fn describe(
    file: &FileLines,
    keys: &[SimKey],
    split: Split,
    old_style: &HashMap<String, OldStyle>,
) -> HelmDocs {
    let heads = split.heads;
    let mut destinations: Vec<Option<Destination>> = vec![None; file.len()];
    for &line in &split.lost {
        destinations[line] = Some(Destination::Foot);
    }
    for &line in &split.document_head {
        destinations[line] = Some(Destination::DocumentHead);
    }
    let ignored = Ignored::find(file, keys, &heads);
    let mut descriptions = BTreeMap::new();
    for (index, head) in heads.iter().enumerate() {
        if ignored.keys[index] {
            for line in marker_lines(file, head) {
                destinations[line] = Some(Destination::Ignored);
            }
            continue;
        }
        let path = ignored.path_of(keys[index].path);
        let old = old_style.get(&path);
        let description = describe_key(file, head, &path, old, &mut destinations);
        if let Some(description) = description {
            descriptions.insert(path, description);
        }
    }
    HelmDocs {
        descriptions,
        markers: markers_of(file, destinations),
    }
}

/// The keys that `@ignore` removes from helm-docs' table.
struct Ignored<'a> {
    /// Per key: removed, by its own head or by an ancestor's.
    keys: Vec<bool>,
    /// The indices of the removed items of each sequence (by the sequence's path),
    /// in file order.
    items: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Ignored<'a> {
    /// `@ignore` anywhere in a head removes the key with everything under it, and the
    /// later items of its sequence move up.
    fn find(file: &FileLines, keys: &[SimKey<'a>], heads: &[Head]) -> Self {
        let mut items: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut open: Vec<usize> = Vec::new();
        let mut ignored = vec![false; heads.len()];
        for (index, head) in heads.iter().enumerate() {
            let path = keys[index].path;
            while open
                .last()
                .is_some_and(|&parent| !is_ancestor(keys[parent].path, path))
            {
                open.pop();
            }
            let parent_ignored = open.last().is_some_and(|&parent| ignored[parent]);
            let own = head
                .iter()
                .flatten()
                .any(|&line| file.comment_text(line).contains("@ignore"));
            ignored[index] = parent_ignored || own;
            if own && !parent_ignored && path.ends_with(']') {
                if let Some((start, Segment::Index(item))) = Segments::new(path).last() {
                    items.entry(&path[..start]).or_default().push(item);
                }
            }
            open.push(index);
        }
        Ignored {
            keys: ignored,
            items,
        }
    }

    /// A kept key's path in helm-docs notation, its items renumbered past the
    /// removed ones.
    fn path_of(&self, path: &str) -> String {
        if self.items.is_empty() {
            helm_docs_path(path)
        } else {
            renumbered_path(path, &self.items)
        }
    }
}

/// The lines of a head that are `# --` markers.
fn marker_lines(file: &FileLines, head: &Head) -> Vec<usize> {
    head.iter()
        .flatten()
        .copied()
        .filter(|&line| is_marker(file.comment_text(line)))
        .collect()
}

/// helm-docs' reading of one kept key's head (`path` in its notation) against the
/// old-style description for the same path, if any: sets where each marker of the
/// head goes in `destinations`, and returns the key's description.
fn describe_key(
    file: &FileLines,
    head: &Head,
    path: &str,
    old: Option<&OldStyle>,
    destinations: &mut [Option<Destination>],
) -> Option<Description> {
    let lines: Vec<&str> = head
        .iter()
        .map(|line| line.map_or("", |line| file.comment_text(line)))
        .collect();
    let new_style = lines.iter().any(|line| line.contains("# --")).then(|| {
        let (parsed, start) = parse_comment(&lines);
        NewStyle { parsed, start }
    });
    let old_wins = old.is_some_and(|old| !old.parsed.description.is_empty());
    let last_group = head
        .iter()
        .rposition(|line| line.is_some_and(|line| file.comment_text(line).starts_with("# --")))
        .and_then(|index| head[index]);
    for line in marker_lines(file, head) {
        let destination = if Some(line) != last_group {
            Destination::Superseded {
                by_line: last_group.unwrap_or(line),
            }
        } else if new_style
            .as_ref()
            .is_some_and(|new| !new.parsed.key.is_empty())
        {
            Destination::Keyed
        } else if let (true, Some(old)) = (old_wins, old) {
            Destination::Superseded {
                by_line: old.lines.start,
            }
        } else {
            Destination::Key(path.to_string())
        };
        destinations[line] = Some(destination);
    }
    let new_description = new_style
        .filter(|new| new.parsed.key.is_empty())
        .map(|new| {
            let first = head[new.start..].iter().flatten().next().copied();
            let last = head.iter().flatten().last().copied();
            Description {
                text: new.parsed.description,
                lines: first.unwrap_or(0)..last.map_or(0, |last| last + 1),
            }
        });
    let old_description = old.map(|old| Description {
        text: old.parsed.description.clone(),
        lines: old.lines.clone(),
    });
    match (old_description, new_description) {
        (Some(old), _) if old_wins => Some(old),
        (_, Some(new)) => Some(new),
        (old, None) => old,
    }
}

/// Every `# --` comment of the file with where it went. A marker the split never
/// reached is in a later document: helm-docs never reads it either.
fn markers_of(file: &FileLines, destinations: Vec<Option<Destination>>) -> Vec<Marker> {
    destinations
        .into_iter()
        .enumerate()
        .filter(|&(line, _)| {
            file.comment_start[line].is_some() && is_marker(file.comment_text(line))
        })
        .map(|(line, destination)| Marker {
            line,
            destination: match file.kinds[line] {
                LineKind::Comment { .. } => destination.unwrap_or(Destination::Foot),
                _ => Destination::LineComment,
            },
        })
        .collect()
}
