//! What a chart says of itself: `Chart.yaml` (and, for `apiVersion: v1` charts,
//! `requirements.yaml`): its name, version, type and dependencies with their
//! `alias`, `condition`, `tags` and `import-values`.

use crate::analysis::small_yaml::{Node, Value};

/// YAML nodes a `Chart.yaml` may make once aliases are expanded for the chart graph,
/// which takes the manifest of the run's listing of a repository's charts when that
/// listing's parse (bounded more loosely) made no more.
pub(crate) const MAX_CHART_YAML_NODES: usize = 500_000;

/// A chart's `Chart.yaml`, as far as the values analysis needs it.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub name: Option<String>,
    pub version: Option<String>,
    /// `type: library`: its templates render nothing of their own; its defines
    /// read the values of whoever includes them.
    pub library: bool,
    pub dependencies: Vec<Dependency>,
}

/// One entry of `dependencies:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dependency {
    pub name: String,
    pub alias: Option<String>,
    /// A version or a range (`4.5.2`, `~1.2`, `1.x.x`, `>= 1.0 < 2.0`).
    pub version: Option<String>,
    pub repository: Option<String>,
    /// `condition: a.enabled,b.enabled`: paths of the parent's values.
    pub conditions: Vec<Vec<String>>,
    /// `tags: [front]`: read as `tags.front` of the parent's values.
    pub tags: Vec<String>,
    /// `import-values`: the child's values copied into the parent's.
    pub imports: Vec<Import>,
}

/// One `import-values` entry: the child's values at `child` appear in the parent's
/// at `parent` (`- data` is `child: exports.data`, `parent: ` the top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub child: Vec<String>,
    pub parent: Vec<String>,
}

impl Dependency {
    /// The key the parent's values use for it: its alias, else its name.
    pub fn key(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }
}

impl Manifest {
    /// Reads `Chart.yaml` (`chart`) and, when it lists no dependencies,
    /// `requirements.yaml` (`requirements`), as Helm does for `apiVersion: v1`.
    pub fn of(chart: &Node, requirements: Option<&Node>) -> Manifest {
        let text = |node: &Node, key: &str| node.get(key).and_then(scalar_text);
        Manifest {
            name: text(chart, "name"),
            version: text(chart, "version"),
            library: text(chart, "type").is_some_and(|kind| kind == "library"),
            dependencies: dependencies_of(chart),
        }
        .with_requirements(requirements)
    }

    /// The manifest of a `Chart.yaml` without `dependencies:`, given a Helm 2
    /// chart's `requirements.yaml`, which lists them there.
    pub fn with_requirements(mut self, requirements: Option<&Node>) -> Manifest {
        if self.dependencies.is_empty() {
            if let Some(requirements) = requirements {
                self.dependencies = dependencies_of(requirements);
            }
        }
        self
    }
}

fn dependencies_of(node: &Node) -> Vec<Dependency> {
    let Some(Value::Seq(items)) = node.get("dependencies").map(|node| &node.value) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let text = |key: &str| item.get(key).and_then(scalar_text);
            let name = text("name")?;
            let conditions = text("condition")
                .map(|condition| {
                    condition
                        .split(',')
                        .map(|path| split_path(path.trim()))
                        .filter(|path| !path.is_empty())
                        .collect()
                })
                .unwrap_or_default();
            let tags = match item.get("tags").map(|node| &node.value) {
                Some(Value::Seq(tags)) => tags.iter().filter_map(scalar_text).collect(),
                _ => Vec::new(),
            };
            let imports = match item.get("import-values").map(|node| &node.value) {
                Some(Value::Seq(entries)) => entries.iter().filter_map(import_of).collect(),
                _ => Vec::new(),
            };
            Some(Dependency {
                name,
                alias: text("alias"),
                version: text("version"),
                repository: text("repository"),
                conditions,
                tags,
                imports,
            })
        })
        .collect()
}

fn import_of(entry: &Node) -> Option<Import> {
    if let Some(name) = scalar_text(entry) {
        return Some(Import {
            child: vec!["exports".to_string(), name],
            parent: Vec::new(),
        });
    }
    let child = entry.get("child").and_then(scalar_text)?;
    let parent = entry
        .get("parent")
        .and_then(scalar_text)
        .unwrap_or_default();
    Some(Import {
        child: split_path(&child),
        parent: split_path(&parent),
    })
}

/// A scalar as text (`version: 1.2` is a float to YAML, `1.2` to Helm).
fn scalar_text(node: &Node) -> Option<String> {
    match &node.value {
        Value::Scalar(scalar) => scalar.as_text(),
        _ => None,
    }
}

/// `a.b.c` as keys.
pub fn split_path(path: &str) -> Vec<String> {
    path.split('.')
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `version` satisfies a dependency's `constraint`, as Helm's semver ranges
/// read it (a bare version is exact, `x` and `*` are wildcards, spaces or commas
/// join comparators, `||` separates alternatives). `None`: either cannot be read.
pub fn version_matches(constraint: &str, version: &str) -> Option<bool> {
    let version = semver::Version::parse(version.trim().trim_start_matches('v')).ok()?;
    let mut any = false;
    for alternative in constraint.split("||") {
        let requirement = cargo_requirement(alternative)?;
        // Helm compares pre-releases like any version when the range names none.
        let plain = semver::Version::new(version.major, version.minor, version.patch);
        any |= requirement.matches(&version) || requirement.matches(&plain);
    }
    Some(any)
}

/// One alternative of a Helm range in the `semver` crate's syntax.
fn cargo_requirement(alternative: &str) -> Option<semver::VersionReq> {
    let mut comparators = Vec::new();
    let mut pending_operator = String::new();
    for word in alternative.split(|c: char| c.is_whitespace() || c == ',') {
        if word.is_empty() {
            continue;
        }
        if word
            .chars()
            .all(|c| matches!(c, '<' | '>' | '=' | '~' | '^' | '!'))
        {
            pending_operator.push_str(word);
            continue;
        }
        let word = format!("{pending_operator}{word}");
        pending_operator.clear();
        let operator_end = word
            .find(|c: char| c.is_ascii_alphanumeric() || c == '*')
            .unwrap_or(word.len());
        let (operator, rest) = word.split_at(operator_end);
        let rest = rest.trim_start_matches('v');
        let operator = match operator {
            // A bare version is exact in Helm, a caret range in Cargo; a wildcard
            // stands alone.
            "" if rest.contains(['x', 'X', '*']) => "",
            "" => "=",
            "=" | "==" => "=",
            other => other,
        };
        comparators.push(format!("{operator}{rest}"));
    }
    if comparators.is_empty() {
        return Some(semver::VersionReq::STAR);
    }
    semver::VersionReq::parse(&comparators.join(", ")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_ranges_match_as_helm_reads_them() {
        let cases = [
            ("4.5.2", "4.5.2", Some(true)),
            ("4.5.2", "4.5.3", Some(false)),
            ("1.x.x", "1.9.0", Some(true)),
            ("1.x.x", "2.0.0", Some(false)),
            ("~1.2.0", "1.2.9", Some(true)),
            ("^2.0.0", "2.31.1", Some(true)),
            (">= 1.0.0 < 2.0.0", "1.5.0", Some(true)),
            (">=1.0.0, <2.0.0", "2.0.0", Some(false)),
            ("1.0.0 || 2.x", "2.3.0", Some(true)),
            ("*", "0.1.0", Some(true)),
            ("2.x.x", "2.4.0-rc.1", Some(true)),
            ("not a range", "1.0.0", None),
        ];
        for (constraint, version, expected) in cases {
            assert_eq!(
                version_matches(constraint, version),
                expected,
                "{constraint} against {version}"
            );
        }
    }
}
