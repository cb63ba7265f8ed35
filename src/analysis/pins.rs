//! The repository's version pins, for `stale-version-reference`: every vendored
//! chart (`charts/NAME/Chart.yaml`: its `name` at its `version` and `appVersion`),
//! every exact `dependencies:` entry of a `Chart.yaml`, and the `[[pin]]` entries of
//! `tether.toml` (a version read from a file with a regex).

use std::path::Path;

use regex::Regex;

use crate::analysis::small_yaml::{Node, Scalar, Value};

/// Names too common in prose to be told from a component's name.
const TOO_COMMON: &[&str] = &[
    "app",
    "apps",
    "api",
    "base",
    "chart",
    "charts",
    "common",
    "core",
    "crds",
    "default",
    "helm",
    "library",
    "lib",
    "main",
    "operator",
    "controller",
    "server",
    "system",
    "test",
    "tests",
    "utils",
    "util",
    "values",
    "webhook",
    "manager",
    "agent",
    "proxy",
    "config",
    "global",
    "cluster",
    "kubernetes",
    "k8s",
    "dashboard",
];

/// The pinned names, found in text as whole words (not inside a longer word of
/// letters, digits and `_`), case-insensitively: an Aho–Corasick automaton, whose
/// size grows with the names' total length, not exponentially as one regular
/// expression of them all can.
#[derive(Debug)]
pub struct Names {
    automaton: aho_corasick::AhoCorasick,
}

/// Names of components a repository pins, in bytes, at most: far beyond any real
/// repository, and a bound on the automaton's memory.
const MAX_NAME_BYTES: usize = 4 << 20;

/// Names matched by a DFA at most, in bytes (its tables take a few hundred bytes
/// per byte of names).
const MAX_DFA_NAME_BYTES: usize = 32 << 10;

impl Names {
    /// The matcher of `names`; `None` when there are none, an error when a limit is
    /// hit.
    fn new(names: &[&str]) -> Result<Option<Names>, String> {
        if names.is_empty() {
            return Ok(None);
        }
        let total: usize = names.iter().map(|name| name.len()).sum();
        if total > MAX_NAME_BYTES {
            return Err(format!(
                "the repository pins {} names ({} MiB of them), more than the {} MiB tether matches in comments; stale-version-reference is off for this run",
                names.len(),
                total >> 20,
                MAX_NAME_BYTES >> 20
            ));
        }
        // A DFA searches fastest; its tables grow with the names, so a repository
        // pinning more than a few thousand of them gets the automaton the crate
        // chooses.
        let kind = (total <= MAX_DFA_NAME_BYTES).then_some(aho_corasick::AhoCorasickKind::DFA);
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(kind)
            .build(names)
            .map(|automaton| Some(Names { automaton }))
            .map_err(|error| {
                format!("the pinned names cannot be matched ({error}); stale-version-reference is off for this run")
            })
    }

    /// The names in `text`, left to right, the longest at each place, whole words
    /// only.
    pub fn find_iter<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
        let mut found: Vec<std::ops::Range<usize>> = self
            .automaton
            .find_overlapping_iter(text)
            .map(|found| found.range())
            .filter(|range| whole_word(text, range))
            .collect();
        // Leftmost, then longest; then drop what overlaps a name already taken.
        found.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut taken_to = 0;
        found.into_iter().filter(move |range| {
            let keep = range.start >= taken_to;
            if keep {
                taken_to = range.end;
            }
            keep
        })
    }

    /// Whether a name is in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.automaton
            .find_overlapping_iter(text)
            .any(|found| whole_word(text, &found.range()))
    }
}

/// Whether `range` of `text` is not inside a longer word of letters, digits and `_`.
fn whole_word(text: &str, range: &std::ops::Range<usize>) -> bool {
    let bytes = text.as_bytes();
    let word = |at: usize| {
        bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    !word(range.end) && (range.start == 0 || !word(range.start - 1))
}

/// One pinned version of a component, and where it is pinned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The component's name, lowercase.
    pub name: String,
    /// The version, without a leading `v`.
    pub version: String,
    /// What pins it, for messages: `version of packages/x/charts/foo/Chart.yaml`.
    pub source: String,
}

/// Every pin of a repository, and a matcher for their names.
#[derive(Debug, Default)]
pub struct PinIndex {
    pub pins: Vec<Pin>,
    /// Any pinned name, case-insensitive, not inside a longer word.
    pub names: Option<Names>,
    /// What kept pins from being read or matched (a `Chart.yaml` that is not read,
    /// a limit hit): said once per run, never turned into "no findings".
    pub problems: Vec<String>,
    /// Hash of every pin, for the findings cache.
    pub fingerprint: u64,
}

impl PinIndex {
    /// Builds the index from `pins`, and what kept others from being read.
    pub fn new(mut pins: Vec<Pin>, mut problems: Vec<String>) -> PinIndex {
        pins.retain(|pin| pin.name.len() >= 3 && !TOO_COMMON.contains(&pin.name.as_str()));
        pins.sort_by(|a, b| {
            (&a.name, &a.version, &a.source).cmp(&(&b.name, &b.version, &b.source))
        });
        pins.dedup();
        let mut names: Vec<&str> = pins.iter().map(|pin| pin.name.as_str()).collect();
        names.dedup();
        // Longest first, so `cert-manager` wins over `cert`.
        names.sort_by_key(|name| std::cmp::Reverse(name.len()));
        let names = Names::new(&names).unwrap_or_else(|why| {
            problems.push(why);
            None
        });
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for pin in &pins {
            hasher.update(pin.name.as_bytes());
            hasher.update(b"\0");
            hasher.update(pin.version.as_bytes());
            hasher.update(b"\0");
            hasher.update(pin.source.as_bytes());
            hasher.update(b"\n");
        }
        PinIndex {
            pins,
            names,
            problems,
            fingerprint: hasher.digest(),
        }
    }

    /// The pins of `name` (any case).
    pub fn of(&self, name: &str) -> impl Iterator<Item = &Pin> + use<'_> {
        let name = name.to_ascii_lowercase();
        self.pins.iter().filter(move |pin| pin.name == name)
    }
}

/// A version as pins and comments write it, without a leading `v`: `1.9.0`,
/// `0.8.1-rc.1`. `None` for anything else (ranges, `1.7.x`, words).
pub fn exact_version(text: &str) -> Option<String> {
    let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let core_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let core = &text[..core_end];
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() < 2 || parts.len() > 4 || parts.iter().any(|part| part.is_empty()) {
        return None;
    }
    let rest = &text[core_end..];
    let suffix_fine = rest.is_empty()
        || (rest.len() > 1
            && rest.starts_with(['-', '+'])
            && rest[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'));
    if !suffix_fine {
        return None;
    }
    Some(text.to_string())
}

/// The pins one `Chart.yaml` (at `path`, shown as `shown`) holds: a vendored
/// chart's own versions and its exact `dependencies:` entries.
pub fn chart_yaml_pins(document: &Node, path: &Path, shown: &Path) -> Vec<Pin> {
    let mut pins = Vec::new();
    let vendored = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .is_some_and(|name| name == "charts");
    if vendored {
        if let Some(name) = document.get("name").and_then(text) {
            for field in ["version", "appVersion"] {
                if let Some(version) = document
                    .get(field)
                    .and_then(text)
                    .and_then(|v| exact_version(&v))
                {
                    pins.push(Pin {
                        name: name.to_ascii_lowercase(),
                        version,
                        source: format!("{field} in {}", shown.display()),
                    });
                }
            }
        }
    }
    if let Some(Value::Seq(dependencies)) = document.get("dependencies").map(|d| &d.value) {
        for dependency in dependencies {
            let (Some(name), Some(version)) = (
                dependency.get("name").and_then(text),
                dependency
                    .get("version")
                    .and_then(text)
                    .and_then(|v| exact_version(&v)),
            ) else {
                continue;
            };
            pins.push(Pin {
                name: name.to_ascii_lowercase(),
                version,
                source: format!("`dependencies` of {}:{}", shown.display(), dependency.line),
            });
        }
    }
    pins
}

/// A scalar's text: strings and whole numbers.
fn text(node: &Node) -> Option<String> {
    match &node.value {
        Value::Scalar(Scalar::Str(text)) => Some(text.trim().to_string()),
        Value::Scalar(Scalar::Int(number)) => Some(number.to_string()),
        _ => None,
    }
}

/// A `[[pin]]` entry of `tether.toml`, compiled: its version read from `file` with
/// the first capture group of `regex`.
pub fn configured_pin(name: &str, file: &Path, shown: &Path, regex: &Regex) -> Result<Pin, String> {
    let bytes = crate::source::read_regular(file, 4 * 1024 * 1024)
        .map_err(|error| format!("cannot read {}: {error}", shown.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let captures = regex
        .captures(&text)
        .ok_or_else(|| format!("`regex` matches nothing in {}", shown.display()))?;
    let found = captures
        .get(1)
        .or_else(|| captures.get(0))
        .map(|m| m.as_str())
        .unwrap_or_default();
    let version = exact_version(found).ok_or_else(|| {
        format!(
            "`regex` found {found:?} in {}, which is not a version such as 1.9.0",
            shown.display()
        )
    })?;
    let line = text[..captures.get(0).map_or(0, |m| m.start())]
        .matches('\n')
        .count()
        + 1;
    Ok(Pin {
        name: name.to_ascii_lowercase(),
        version,
        source: format!("`[[pin]]` {name}: {}:{line}", shown.display()),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_found_as_whole_words_longest_first() {
        let names = Names::new(&["cert", "cert-manager", "cilium"])
            .unwrap()
            .unwrap();
        let found: Vec<&str> = {
            let text = "Cert-Manager 1.2, certificates, (cilium) xcilium cert";
            names.find_iter(text).map(|range| &text[range]).collect()
        };
        assert_eq!(found, ["Cert-Manager", "cilium", "cert"]);
    }

    #[test]
    fn too_many_names_are_a_problem_said_not_no_findings() {
        let long = "n".repeat(1 << 20);
        let names: Vec<&str> = std::iter::repeat_n(long.as_str(), 5).collect();
        assert!(
            Names::new(&names)
                .unwrap_err()
                .contains("stale-version-reference is off")
        );
    }

    use super::*;

    #[test]
    fn versions() {
        assert_eq!(exact_version("v1.9.0").as_deref(), Some("1.9.0"));
        assert_eq!(exact_version("0.8.1-rc.1").as_deref(), Some("0.8.1-rc.1"));
        assert_eq!(exact_version("0.8").as_deref(), Some("0.8"));
        assert_eq!(exact_version("1.7.x"), None);
        assert_eq!(exact_version("~1.2.0"), None);
        assert_eq!(exact_version(">=1.0"), None);
        assert_eq!(exact_version("1"), None);
        assert_eq!(exact_version("1.2.3.4.5"), None);
    }
}
