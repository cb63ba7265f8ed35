//! `undocumented-value`: a `values.yaml` key nobody documented.

use std::collections::HashSet;

use super::rule::{declare_rule, FileContext, NoOptions, Reporter, Rule};
use super::values::{annotations, plain_path, Annotation};

declare_rule! {
    /// ## What it does
    /// Reports the keys of a chart's `values.yaml` (and `values-*.yaml`) that no comment
    /// documents. A key counts as documented when it has a comment attached (leading or
    /// trailing, which includes helm-docs' `# -- text`), when a readme-generator
    /// `## @param full.path` or helm-docs `# full.path -- text` names it, or, for a
    /// top-level key, when a cozyvalues-gen `## @param {type} name` names it.
    ///
    /// A key is also covered when one of its parents or children is documented: a
    /// documented map documents its fields, and a documented leaf under an undocumented
    /// map is what helm-docs and readme-generator list. Only the outermost undocumented
    /// keys are reported, once each. Sequence items are covered by their key.
    ///
    /// Off by default; turn it on with `[rules] undocumented-value = "warn"`.
    ///
    /// ## Why it matters
    /// `values.yaml` is a chart's interface. A value without a description is a value
    /// users set by reading templates.
    ///
    /// ## Example
    /// ```yaml
    /// replicaCount: 1
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # -- Number of replicas of the web server.
    /// replicaCount: 1
    /// ```
    pub struct UndocumentedValue {
        name: "undocumented-value",
        level: Off,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for UndocumentedValue {
    fn needs_model(&self, context: &FileContext) -> bool {
        context.is_values_file()
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(model) = context.model.filter(|_| context.is_values_file()) else {
            return;
        };
        let mut documented: HashSet<String> = HashSet::new();
        for found in annotations(context) {
            match found.annotation {
                Annotation::Param { path } | Annotation::HelmDocsPath { path } => {
                    documented.insert(path);
                }
                Annotation::TypedParam { name, .. } => {
                    documented.insert(name);
                }
                Annotation::Unchecked { path } => {
                    documented.insert(path);
                }
            }
        }
        for (_, key) in model.keys() {
            if !key.comments.is_empty() {
                documented.insert(plain_path(&key.path));
            }
        }
        // Every prefix of a documented path: a key with a documented descendant.
        let mut has_documented_below: HashSet<&str> = HashSet::new();
        for path in &documented {
            for (index, c) in path.char_indices() {
                if c == '.' || c == '[' {
                    has_documented_below.insert(&path[..index]);
                }
            }
        }
        for (_, key) in model.keys() {
            let plain = plain_path(&key.path);
            if plain.ends_with(']') {
                continue;
            }
            let ancestors_or_self_documented = prefixes(&plain)
                .into_iter()
                .chain(std::iter::once(plain.as_str()))
                .any(|prefix| documented.contains(prefix));
            if ancestors_or_self_documented || has_documented_below.contains(plain.as_str()) {
                continue;
            }
            // Only the outermost: skip keys whose parent is reported already.
            let parent_reported = prefixes(&plain).into_iter().any(|prefix| {
                !prefix.ends_with(']')
                    && !documented.contains(prefix)
                    && !has_documented_below.contains(prefix)
            });
            if parent_reported {
                continue;
            }
            let end = context.source.line_range(key.line).end;
            let name_end = context.masked[key.offset..end]
                .find(':')
                .map_or(end, |n| key.offset + n);
            reporter
                .report(key.offset..name_end, format!("`{plain}` is not documented"))
                .with_help(
                    "write a comment directly above the key, such as `# -- what this value does` (helm-docs)",
                );
        }
    }
}

/// The proper prefixes of a plain path at segment boundaries: `a`, `a.b` for `a.b.c`.
fn prefixes(path: &str) -> Vec<&str> {
    path.char_indices()
        .filter(|&(index, c)| index > 0 && (c == '.' || c == '['))
        .map(|(index, _)| &path[..index])
        .collect()
}
