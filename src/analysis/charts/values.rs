//! A values file's keys, and the questions the value rules ask of them: which keys
//! no read reaches, where a read path leaves the keys.

use crate::collections::HashSet;

use crate::analysis::small_yaml::{Node, Scalar, Value};
use crate::template::reads::{Read, Use};

/// The keys of a values file without its values: all the value rules need, and a
/// fraction of the tree's memory.
#[derive(Debug, Clone)]
pub enum Keys {
    /// A map with keys: name, line, what is under it, sorted by name (the last of
    /// duplicate keys kept, as YAML loaders keep it).
    Map(Vec<(String, usize, Keys)>),
    /// A null, a scalar, a list or an empty map: users may put anything there.
    Open,
}

/// Key comparisons made by lookups, counted for the growth tests (the work of the
/// value rules, which must not grow with the square of the keys).
#[cfg(feature = "internals")]
pub static KEY_COMPARISONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Keys {
    pub fn of(node: &Node) -> Keys {
        let Value::Map(entries) = &node.value else {
            return Keys::Open;
        };
        let mut keys: Vec<(String, usize, Keys)> = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            if let Value::Scalar(Scalar::Str(name)) = &key.value {
                keys.push((name.clone(), key.line, Keys::of(value)));
            }
        }
        if keys.is_empty() {
            return Keys::Open;
        }
        // Sorted for lookups in logarithmic time; a stable sort keeps duplicates in
        // file order, and the last of them wins.
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        let mut unique: Vec<(String, usize, Keys)> = Vec::with_capacity(keys.len());
        for entry in keys {
            match unique.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => unique.push(entry),
            }
        }
        Keys::Map(unique)
    }

    /// What is under `key`.
    pub fn get(&self, key: &str) -> Option<&Keys> {
        match self {
            Keys::Map(entries) => entries
                .binary_search_by(|(name, _, _)| {
                    #[cfg(feature = "internals")]
                    KEY_COMPARISONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    name.as_str().cmp(key)
                })
                .ok()
                .map(|at| &entries[at].2),
            Keys::Open => None,
        }
    }

    /// What is at `path`, if every key on the way is there.
    pub fn at(&self, path: &[String]) -> Option<&Keys> {
        path.iter().try_fold(self, |node, key| node.get(key))
    }

    /// The entries of a map, in file order.
    pub fn entries_in_file_order(&self) -> Vec<&(String, usize, Keys)> {
        match self {
            Keys::Map(entries) => {
                let mut ordered: Vec<_> = entries.iter().collect();
                ordered.sort_by_key(|(_, line, _)| *line);
                ordered
            }
            Keys::Open => Vec::new(),
        }
    }
}

/// Where `path` leaves `values`: the depth of the first key a non-empty map lacks
/// (and no comment names).
pub fn missing_in(values: &Keys, path: &[String], commented: &HashSet<String>) -> Option<usize> {
    let mut node = values;
    for (depth, key) in path.iter().enumerate() {
        match node {
            Keys::Open => return None,
            Keys::Map(_) => match node.get(key) {
                Some(child) => node = child,
                None => return (!commented.contains(key.as_str())).then_some(depth),
            },
        }
    }
    None
}

/// Under `node` (at `prefix`), the outermost keys no read covers, in file order.
pub fn unused_under(
    node: &Keys,
    prefix: &mut Vec<String>,
    used: &Used,
    found: &mut Vec<(Vec<String>, usize)>,
) {
    for (name, line, value) in node.entries_in_file_order() {
        prefix.push(name.clone());
        if !used.reaches(prefix) {
            found.push((prefix.clone(), *line));
        } else if !used.whole_above(prefix) {
            unused_under(value, prefix, used, found);
        }
        prefix.pop();
    }
}

/// Reads indexed for [`Used::reaches`]: a chart's own, as slices of its reads (no
/// path is copied), with the indexes of reads shared between charts
/// (`closures.rs`).
pub struct Used<'a> {
    own: Index<&'a [String]>,
    shared: Vec<&'a OwnedUsed>,
}

/// [`Used`] owning its paths: the index of reads many charts share, made once.
#[derive(Debug, Default)]
pub struct OwnedUsed(Index<Vec<String>>);

impl OwnedUsed {
    pub fn new<'a>(reads: impl IntoIterator<Item = &'a (Vec<String>, Use)>) -> OwnedUsed {
        OwnedUsed(Index::of(reads, <[String]>::to_vec))
    }
}

/// Every read path and each of its prefixes, and the paths read whole, each kept
/// as `K` (a slice of the reads, or a copy).
#[derive(Debug)]
struct Index<K> {
    touched: HashSet<K>,
    whole: HashSet<K>,
}

impl<K> Default for Index<K> {
    fn default() -> Self {
        Index {
            touched: HashSet::default(),
            whole: HashSet::default(),
        }
    }
}

impl<K: std::borrow::Borrow<[String]> + std::hash::Hash + Eq> Index<K> {
    fn of<'a>(
        reads: impl IntoIterator<Item = &'a (Vec<String>, Use)>,
        key: impl Fn(&'a [String]) -> K,
    ) -> Index<K> {
        let mut index = Index::default();
        for (path, use_) in reads {
            for end in 1..=path.len() {
                if !index.touched.contains(&path[..end]) {
                    index.touched.insert(key(&path[..end]));
                }
            }
            if *use_ == Use::Whole {
                index.whole.insert(key(path));
            }
        }
        index
    }

    fn whole_above(&self, path: &[String]) -> bool {
        (1..=path.len()).any(|end| self.whole.contains(&path[..end]))
    }
}

impl<'a> Used<'a> {
    pub fn new(reads: impl IntoIterator<Item = &'a (Vec<String>, Use)>) -> Used<'a> {
        Used {
            own: Index::of(reads, |path| path),
            shared: Vec::new(),
        }
    }

    /// These reads with the shared ones of `shared`.
    pub fn with_shared(mut self, shared: impl IntoIterator<Item = &'a OwnedUsed>) -> Used<'a> {
        self.shared.extend(shared);
        self
    }

    /// Whether a read reaches `path`: the path itself, something under it, or
    /// something above it read whole.
    pub fn reaches(&self, path: &[String]) -> bool {
        self.own.touched.contains(path)
            || self
                .shared
                .iter()
                .any(|shared| shared.0.touched.contains(path))
            || self.whole_above(path)
    }

    /// Whether `path` or a key above it is read whole.
    pub fn whole_above(&self, path: &[String]) -> bool {
        self.own.whole_above(path) || self.shared.iter().any(|shared| shared.0.whole_above(path))
    }
}

/// Whether a guard of a read makes the missing key at `depth` set whenever the
/// read runs: a guard on that key or under it.
pub fn guarded(read: &Read, depth: usize) -> bool {
    let missing = &read.path[..=depth.min(read.path.len().saturating_sub(1))];
    read.guards.iter().any(|guard| guard.starts_with(missing))
}

/// `name` of every comment line shaped like a key (`# name: value`, `#name:`),
/// the way charts document values they leave unset.
pub fn commented_names(text: &str) -> HashSet<String> {
    text.lines()
        .filter_map(|line| {
            let comment = line.trim_start().strip_prefix('#')?;
            let comment = comment.trim_start_matches('#').trim_start();
            let comment = comment.strip_prefix("- ").unwrap_or(comment);
            let end = comment.find(':')?;
            let name = &comment[..end];
            (!name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .then(|| name.rsplit('.').next().unwrap_or(name).to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_duplicate_wins() {
        let node =
            crate::analysis::small_yaml::parse_bounded("a: 1\nb:\n  c: 1\nb: 2\n", 100, 8).unwrap();
        let keys = Keys::of(&node);
        assert!(matches!(keys.get("b"), Some(Keys::Open)));
        let lines: Vec<usize> = keys
            .entries_in_file_order()
            .iter()
            .map(|(_, line, _)| *line)
            .collect();
        assert_eq!(lines, [1, 4]);
    }
}
