//! The repository's version pins, for `stale-version-reference`: every vendored
//! chart (`charts/NAME/Chart.yaml`: its `name` at its `version` and `appVersion`),
//! every exact `dependencies:` entry of a `Chart.yaml`, and the `[[pin]]` entries of
//! `tether.toml` (a version read from a file with a regex).

use std::path::Path;

use regex::Regex;

use crate::small_yaml::{Node, Scalar, Value};

/// `Chart.yaml` files read at most; a repository with more is indexed in part.
const MAX_CHARTS: usize = 20_000;
/// Folder entries walked at most to find them.
const MAX_ENTRIES: usize = 500_000;

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
    pub names: Option<Regex>,
    /// Hash of every pin, for the findings cache.
    pub fingerprint: u64,
}

impl PinIndex {
    /// Builds the index from `pins`.
    pub fn new(mut pins: Vec<Pin>) -> PinIndex {
        pins.retain(|pin| pin.name.len() >= 3 && !TOO_COMMON.contains(&pin.name.as_str()));
        pins.sort_by(|a, b| {
            (&a.name, &a.version, &a.source).cmp(&(&b.name, &b.version, &b.source))
        });
        pins.dedup();
        let mut names: Vec<&str> = pins.iter().map(|pin| pin.name.as_str()).collect();
        names.dedup();
        // Longest first, so `cert-manager` wins over `cert`.
        names.sort_by_key(|name| std::cmp::Reverse(name.len()));
        let names = (!names.is_empty())
            .then(|| {
                let alternation: Vec<String> =
                    names.iter().map(|name| regex::escape(name)).collect();
                // ASCII word boundaries rather than a class around the names, so that
                // the regex engine finds the names by their literals first.
                Regex::new(&format!(r"(?i)(?-u:\b)({})(?-u:\b)", alternation.join("|"))).ok()
            })
            .flatten();
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
            fingerprint: hasher.digest(),
        }
    }

    /// The pins of `name` (any case).
    pub fn of(&self, name: &str) -> impl Iterator<Item = &Pin> {
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

/// The pins of the repository whose top is `top`: its vendored charts and exact
/// `dependencies:` entries, `Chart.yaml` files found as git would list them (ignored
/// and hidden ones left out).
pub fn repository_pins(top: &Path) -> Vec<Pin> {
    let mut pins = Vec::new();
    // A chart's `Chart.yaml` is never below its `templates/`, `crds/` or `files/`
    // (Helm reads those as the chart's content), and those hold most of a tree.
    let walker = ignore::WalkBuilder::new(top)
        .standard_filters(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|kind| kind.is_dir())
                && matches!(
                    entry.file_name().to_str(),
                    Some("templates" | "crds" | "files" | "node_modules")
                ))
        })
        .build();
    let mut read = 0;
    for (walked, entry) in walker.flatten().enumerate() {
        // A run from a huge folder (a home directory) indexes its first part only.
        if walked > MAX_ENTRIES {
            break;
        }
        if entry.file_name() != "Chart.yaml" || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        read += 1;
        if read > MAX_CHARTS {
            break;
        }
        let path = entry.path();
        let Ok((document, _)) = crate::small_yaml::load(path) else {
            continue;
        };
        let shown = crate::paths::relative_path(path, top);
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
