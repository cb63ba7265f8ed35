//! Paths in helm-docs' notation: a tether key path read segment by segment,
//! printed as helm-docs' key column, renumbered past `@ignore`d items.

use crate::collections::HashMap;
use std::borrow::Cow;

/// The key column of a helm-docs README for a tether key path: `a.b`, `a[0].b`, and
/// segments that hold a dot or a space quoted, `a."b.c"`. tether's own quoting
/// (`a["b.c"]`) is undone; other characters are printed as they are.
pub fn helm_docs_path(tether_path: &str) -> String {
    let mut out = String::with_capacity(tether_path.len() + 2);
    for (_, segment) in Segments::new(tether_path) {
        push_helm_segment(&mut out, segment);
    }
    out
}

/// One step of a tether path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Segment<'a> {
    Name(Cow<'a, str>),
    Index(usize),
}

/// The segments of a tether path, each with the byte offset where it starts (the
/// path of its parent collection is `&path[..start]`).
pub(super) struct Segments<'a> {
    path: &'a str,
    position: usize,
}

impl<'a> Segments<'a> {
    pub(super) fn new(path: &'a str) -> Self {
        Segments { path, position: 0 }
    }
}

impl<'a> Iterator for Segments<'a> {
    type Item = (usize, Segment<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let path = self.path;
        let bytes = path.as_bytes();
        if bytes.get(self.position) == Some(&b'.') {
            self.position += 1;
        }
        let start = self.position;
        if start >= bytes.len() {
            return None;
        }
        if bytes[start] == b'[' && bytes.get(start + 1) == Some(&b'"') {
            // `["name"]`, with `\"` and `\\` escaped.
            let body = start + 2;
            let mut end = body;
            let mut escaped = false;
            while end < bytes.len() && bytes[end] != b'"' {
                if bytes[end] == b'\\' {
                    escaped = true;
                    end += 1;
                }
                end += 1;
            }
            let end = end.min(bytes.len());
            let raw = &path[body..end];
            let name = if escaped {
                let mut name = String::with_capacity(raw.len());
                let mut chars = raw.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => name.extend(chars.next()),
                        other => name.push(other),
                    }
                }
                Cow::Owned(name)
            } else {
                Cow::Borrowed(raw)
            };
            self.position = (end + 2).min(bytes.len());
            return Some((start, Segment::Name(name)));
        }
        if bytes[start] == b'[' {
            let close = path[start..].find(']').map_or(path.len(), |n| start + n);
            let index = path[start + 1..close].parse().unwrap_or(0);
            self.position = (close + 1).min(path.len());
            return Some((start, Segment::Index(index)));
        }
        let end = path[start..]
            .find(['.', '['])
            .map_or(path.len(), |n| start + n);
        self.position = end;
        Some((start, Segment::Name(Cow::Borrowed(&path[start..end]))))
    }
}

fn push_helm_segment(out: &mut String, segment: Segment) {
    match segment {
        Segment::Index(index) => {
            use std::fmt::Write;
            let _ = write!(out, "[{index}]");
        }
        Segment::Name(name) => {
            if !out.is_empty() {
                out.push('.');
            }
            if name.contains(['.', ' ']) {
                out.push('"');
                out.push_str(&name);
                out.push('"');
            } else {
                out.push_str(&name);
            }
        }
    }
}

/// Whether `ancestor` is the path of a collection that holds `path`.
pub(super) fn is_ancestor(ancestor: &str, path: &str) -> bool {
    path.len() > ancestor.len()
        && path.starts_with(ancestor)
        && matches!(path.as_bytes()[ancestor.len()], b'.' | b'[')
}

/// [`helm_docs_path`] with the items that `@ignore` removed taken out of the count.
pub(super) fn renumbered_path(path: &str, ignored_items: &HashMap<&str, Vec<usize>>) -> String {
    let mut out = String::with_capacity(path.len());
    for (start, segment) in Segments::new(path) {
        let segment = match segment {
            Segment::Index(index) => {
                // Items are recorded in file order, so the list is sorted.
                let removed = ignored_items
                    .get(&path[..start])
                    .map_or(0, |items| items.partition_point(|&item| item < index));
                Segment::Index(index - removed)
            }
            name => name,
        };
        push_helm_segment(&mut out, segment);
    }
    out
}
