//! `undocumented-value`: a `values.yaml` key nobody documented.

use crate::collections::HashSet;

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use super::values::{
    Annotation, Found, annotations, has_words, is_under, plain_path, readme_leaves,
};
use crate::yaml::model::FileModel;

/// Nodes of a values file read for readme-generator's check; a bigger file is not
/// checked that way (no values file comes near).
const MAX_NODES: usize = 500_000;

declare_rule! {
    /// ## What it does
    /// Reports the keys of a chart's `values.yaml` (beside its `Chart.yaml`) that no
    /// comment documents. Override files (`values-prod.yaml`, `values.openshift.yaml`,
    /// those of end-to-end tests) set values `values.yaml` documents, as helm-docs
    /// and readme-generator read them, and are left alone.
    ///
    /// In a file written for bitnami's readme-generator (one with `## @param
    /// full.path` and `## @section` lines), it checks what readme-generator checks before it
    /// writes the README: every value (every scalar, empty map and empty list; a list
    /// of strings as a whole; the items of other lists one by one) needs a
    /// `## @param` naming its path, unless a `## @skip` path or a `@param` with
    /// modifiers (`[object]`, `[array]`, …) covers it. Other comments, `@section` and
    /// `@descriptionStart`/`@descriptionEnd` text document no value there.
    ///
    /// Elsewhere, a key counts as documented when it has a comment with words in it
    /// attached (leading or trailing, which includes helm-docs' `# -- text` and, as
    /// helm-docs reads it, a `# --` run indented deeper than the key directly above
    /// it; an empty `#` or `##` line documents nothing), when a helm-docs
    /// `# full.path -- text` names it, or, for a top-level key, when a cozyvalues-gen
    /// `## @param {type} name` names it. A key is also covered when one of its parents
    /// or children is documented: a documented map documents its fields, and a
    /// documented leaf under an undocumented map is what helm-docs lists. Only the
    /// outermost undocumented keys are reported, once each. Sequence items, and
    /// the keys inside them (`- alert: …` rules, `- name: …` entries), are covered
    /// by the sequence's key.
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
        chart_values(context)
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(model) = context.model.filter(|_| chart_values(context)) else {
            return;
        };
        let found = annotations(context);
        // Written for readme-generator: a `## @param` and a `## @section`, which
        // readme-generator needs to render its table. A lone `@param` copied into a
        // helm-docs file is not.
        let has = |wanted: fn(&Annotation) -> bool| found.iter().any(|f| wanted(&f.annotation));
        if has(|a| matches!(a, Annotation::Param { .. })) && has(|a| *a == Annotation::Section) {
            readme_generator(context, model, &found, reporter);
            return;
        }
        let mut documented: HashSet<String> = HashSet::default();
        for found in found {
            match found.annotation {
                Annotation::HelmDocsPath { path }
                | Annotation::Skip { path }
                | Annotation::Extra { path } => {
                    documented.insert(path);
                }
                Annotation::TypedParam { name, .. } => {
                    documented.insert(name);
                }
                Annotation::Param { .. } | Annotation::Section => {}
            }
        }
        for (_, key) in model.keys() {
            if key
                .comments
                .iter()
                .any(|attached| has_words(&attached.comment.text))
            {
                documented.insert(plain_path(&key.path));
            }
        }
        // Every prefix of a documented path: a key with a documented descendant.
        let mut has_documented_below: HashSet<&str> = HashSet::default();
        for path in &documented {
            for (index, c) in path.char_indices() {
                if c == '.' || c == '[' {
                    has_documented_below.insert(&path[..index]);
                }
            }
        }
        for (_, key) in model.keys() {
            let plain = plain_path(&key.path);
            // A sequence's items, and the keys inside them, are data its key
            // documents (`- alert: …` rules, `- name: …` entries).
            if plain.contains('[') {
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

/// A chart's `values.yaml`, beside its `Chart.yaml`: where helm-docs and
/// readme-generator read a chart's documentation. An override file beside it
/// (`values-prod.yaml`, `values.openshift.yaml`) sets values `values.yaml`
/// documents.
fn chart_values(context: &FileContext) -> bool {
    context.is_values_file()
        && context.values_file.is_some_and(|file| file.in_chart)
        && context
            .source
            .path
            .file_name()
            .is_some_and(|name| name == "values.yaml")
}

/// readme-generator's own check: every value it lists needs a `## @param`.
fn readme_generator(
    context: &FileContext,
    model: &FileModel,
    found: &[Found],
    reporter: &mut Reporter,
) {
    // A file that is not YAML is parse-problem's to report.
    let Ok(node) = crate::analysis::small_yaml::parse_bounded(&context.source.text, MAX_NODES, 128)
    else {
        return;
    };
    let mut params: HashSet<&str> = HashSet::default();
    let mut covered: Vec<&str> = Vec::new();
    for found in found {
        match &found.annotation {
            Annotation::Param {
                path,
                modifiers: true,
            }
            | Annotation::Skip { path } => covered.push(path),
            Annotation::Param { path, .. } => {
                params.insert(path);
            }
            _ => {}
        }
    }
    for leaf in readme_leaves(&node) {
        if params.contains(leaf.path.as_str())
            || covered.iter().any(|under| is_under(&leaf.path, under))
        {
            continue;
        }
        let line = leaf
            .line
            .saturating_sub(1)
            .min(context.source.line_count().saturating_sub(1));
        let range = context.source.line_range(line);
        let key = model
            .keys()
            .map(|(_, key)| key)
            .find(|key| key.line == line)
            .map(|key| key.offset);
        let start = key.unwrap_or(
            range.start
                + (context.source.line_text(line).len()
                    - context.source.line_text(line).trim_start().len()),
        );
        let end = context.masked[start..range.end]
            .find(':')
            .map_or(range.end, |n| start + n)
            .max(start);
        reporter
            .report(
                start..end,
                format!(
                    "`{}` has no `## @param`; readme-generator stops with \"Missing metadata for key\"",
                    leaf.path
                ),
            )
            .with_help(format!(
                "add `## @param {} description` above the key, or `## @skip {}`",
                leaf.path, leaf.path
            ));
    }
}

/// The proper prefixes of a plain path at segment boundaries: `a`, `a.b` for `a.b.c`.
fn prefixes(path: &str) -> Vec<&str> {
    path.char_indices()
        .filter(|&(index, c)| index > 0 && (c == '.' || c == '['))
        .map(|(index, _)| &path[..index])
        .collect()
}
