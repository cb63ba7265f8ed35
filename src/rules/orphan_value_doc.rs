//! `orphan-value-doc`: a values annotation that names no key, or documents the wrong one.

use crate::collections::HashMap;

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use super::values::{Annotation, annotations, has_annotations, is_commented_out_key, key_paths};
use crate::analysis::helm_docs::{self, Destination};
use crate::yaml::model::{Comment, FileModel, Key, Placement};

declare_rule! {
    /// ## What it does
    /// In a chart's `values.yaml`, reports documentation that belongs to no key, or that
    /// a generator gives to another key than the one it was written for:
    /// - a readme-generator `## @param full.path` or a helm-docs `# full.path -- text`
    ///   naming a path that does not exist in the file;
    /// - a cozyvalues-gen `## @param {type} name` naming no top-level key;
    /// - in a `values.yaml` that helm-docs reads (beside its chart's `Chart.yaml`, in a
    ///   chart that no `.helmdocsignore` of the repository names), a helm-docs `# --`
    ///   description that helm-docs itself (v1.14, which reads comments through
    ///   yaml.v3) would lose or show for another key: a description of a
    ///   commented-out key that runs, across a blank line, into the next real key; a
    ///   description dropped because a later `# --` above the same key replaces it; a
    ///   description a blank line cuts off from the key below, so yaml.v3 reads it as the
    ///   closing comment of the content above; a line with a second ` -- `, which
    ///   helm-docs reads as `key -- description`. The message says what helm-docs will do.
    ///
    /// A description of a commented-out key (`# -- TCP services` / `# tcp:` above the
    /// real `tcp: {}`, or followed by a blank line) is left alone when helm-docs gives it
    /// to that key or to none: that is what its author meant. `## @skip` and `## @extra`
    /// paths are not checked: readme-generator does not require them to exist. A test
    /// compares tether's model of helm-docs with every README helm-docs generated in the
    /// real-chart corpus, key by key.
    ///
    /// ## Why it matters
    /// Generated READMEs and schemas then describe keys that are gone, or give one key
    /// another key's description, and nothing fails.
    ///
    /// ## Example
    /// ```yaml
    /// service:
    ///   type: ClusterIP
    ///
    ///   # -- The Service's targetPort.
    ///   # targetPort: 8080
    ///
    ///   annotations: {}
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// service:
    ///   type: ClusterIP
    ///
    ///   # -- The Service's targetPort.
    ///   # targetPort: 8080
    ///
    ///   # -- Annotations of the Service.
    ///   annotations: {}
    /// ```
    pub struct OrphanValueDoc {
        name: "orphan-value-doc",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for OrphanValueDoc {
    fn needs_model(&self, context: &FileContext) -> bool {
        context.is_values_file() && has_annotations(context)
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(model) = context.model.filter(|_| context.is_values_file()) else {
            return;
        };
        let (paths, top) = key_paths(model);
        for found in annotations(context) {
            let (missing, what) = match &found.annotation {
                Annotation::Param { path, .. } => (!paths.contains(path), path.clone()),
                Annotation::HelmDocsPath { path } => (!paths.contains(path), path.clone()),
                Annotation::TypedParam { name, optional } => {
                    (!optional && !top.contains(name), name.clone())
                }
                Annotation::Skip { .. } | Annotation::Extra { .. } | Annotation::Section => {
                    (false, String::new())
                }
            };
            if missing {
                reporter
                    .report(
                        found.span.clone(),
                        format!("documentation names `{what}`, which is not a key of this file"),
                    )
                    .with_help("fix the path, or remove the documentation of a value that is gone");
            }
        }
        // Only where helm-docs reads: a chart's `values.yaml` that no
        // `.helmdocsignore` names.
        if context.values_file.is_some_and(|file| file.helm_docs_reads) {
            report_helm_docs(context, model, reporter);
        }
    }
}

/// Reports the `# --` descriptions that helm-docs loses or gives to another key than
/// the one they were written for.
fn report_helm_docs(context: &FileContext, model: &FileModel, reporter: &mut Reporter) {
    let docs = helm_docs::simulate(context.source, model);
    if docs.markers.is_empty() {
        return;
    }
    let (owners, keys) = comment_owners(model);
    for marker in &docs.markers {
        let Some(&(key, comment)) = owners.get(&marker.line) else {
            continue;
        };
        let site = MarkerSite {
            marker,
            comment,
            written_for: key.map(|key| helm_docs::helm_docs_path(&key.path)),
            group: marker_group(comment, marker.line),
            commented_keys: commented_keys(comment, marker.line),
        };
        let index = marker.line - comment.line;
        let span = comment
            .spans
            .get(index)
            .or(comment.spans.first())
            .cloned()
            .unwrap_or(0..0);
        let Some(message) = site.message(context, &docs, &keys) else {
            continue;
        };
        let help = match &marker.destination {
            Destination::Keyed => "write ` -- ` once, after `#`",
            Destination::Key(_) => {
                "end the commented-out block with a blank line and give the key below its own `# --`, or remove the description"
            }
            Destination::Superseded { .. } => "merge the two descriptions into one `# --` block",
            _ => "put the description directly above its key, with no blank line between",
        };
        reporter.report(span, message).with_help(help);
    }
}

/// Per comment line: the comment it belongs to, and the key that comment documents.
type Owners<'a> = HashMap<usize, (Option<&'a Key>, &'a Comment)>;

/// Which comment every comment line of the model belongs to, and the key it
/// documents there (leading comments; free comments document none), with every key
/// in file order.
fn comment_owners(model: &FileModel) -> (Owners<'_>, Vec<&Key>) {
    let mut owners = Owners::default();
    let mut keys: Vec<&Key> = Vec::new();
    for document in &model.documents {
        for key in &document.keys {
            keys.push(key);
            for attached in &key.comments {
                if attached.placement == Placement::Leading {
                    for line in attached.comment.line..=attached.comment.end_line {
                        owners.insert(line, (Some(key), &attached.comment));
                    }
                }
            }
        }
        for comment in &document.free {
            for line in comment.line..=comment.end_line {
                owners.insert(line, (None, comment));
            }
        }
    }
    (owners, keys)
}

/// The keys commented out below the marker on `line` in its comment, items left
/// out: of a description of a commented-out key (`# -- Port` / `# port: 80`),
/// helm-docs losing it is expected, giving it to a real key is not.
fn commented_keys(comment: &Comment, line: usize) -> Vec<String> {
    comment
        .text
        .lines()
        .skip(line - comment.line + 1)
        .map(str::trim_end)
        .filter(|line| !line.starts_with("- ") && is_commented_out_key(line))
        .map(|line| line.split(':').next().unwrap_or(line).to_string())
        .collect()
}

/// A `# --` marker with what tether's model says of it.
struct MarkerSite<'a> {
    marker: &'a helm_docs::Marker,
    /// The comment that holds it.
    comment: &'a Comment,
    /// The key the comment documents in the model, in helm-docs notation.
    written_for: Option<String>,
    /// Its lines up to the next `-- ` line ([`marker_group`]).
    group: Vec<&'a str>,
    /// The keys commented out below it ([`commented_keys`]).
    commented_keys: Vec<String>,
}

impl MarkerSite<'_> {
    /// What to say of where helm-docs sends the marker; `None` when that is where it
    /// was written for, or where losing it is expected.
    fn message(
        &self,
        context: &FileContext,
        docs: &helm_docs::HelmDocs,
        keys: &[&Key],
    ) -> Option<String> {
        match &self.marker.destination {
            Destination::Key(shown_for) => self.given_to(shown_for, keys),
            Destination::Superseded { by_line } => self.superseded(context, *by_line),
            Destination::Foot | Destination::DocumentHead => self.dropped(docs, keys),
            Destination::Keyed => Some(
                "helm-docs reads the text before the second ` -- ` on this line as a key path and drops the description"
                    .to_string(),
            ),
            Destination::LineComment | Destination::Ignored => None,
        }
    }

    /// The marker's description goes to the key `shown_for`: said when that is not
    /// the key it was written for.
    fn given_to(&self, shown_for: &str, keys: &[&Key]) -> Option<String> {
        if self.written_for.as_deref() == Some(shown_for) {
            return None;
        }
        // The commented-out key the description names: not an example of the value of
        // the key below (`# -- Annotations` / `# team: web` / `annotations: {}`).
        let description = self.group.first().copied().unwrap_or("");
        let named = self
            .commented_keys
            .iter()
            .find(|name| names(description, name));
        let last_segment = shown_for.rsplit('.').next().unwrap_or(shown_for);
        match (named, &self.written_for) {
            (Some(name), _) if name != last_segment => Some(format!(
                "helm-docs gives this description of the commented-out `{name}` to `{shown_for}`: the README will show it for that key"
            )),
            (_, Some(below)) => Some(format!(
                "helm-docs gives this description to `{shown_for}`, not to `{below}` below it"
            )),
            (_, None) => {
                // Indented deeper than the key below and followed by
                // commented-out YAML: an example in the value of the key above,
                // which helm-docs still gives to the key below. (A description
                // that is only indented too deep is meant for the key below.)
                let comment = self.comment;
                let next = keys.iter().find(|key| key.line > comment.end_line);
                let example = self
                    .group
                    .iter()
                    .skip(1)
                    .any(|line| is_commented_out_key(line.trim_end()));
                if !example || next.is_none_or(|next| next.column >= comment.column) {
                    return None;
                }
                Some(format!(
                    "helm-docs gives this description, indented under the key above, to `{shown_for}` below it: the README will show it for that key"
                ))
            }
        }
    }

    /// Another description (a later `# --` group above the same key, or an old-style
    /// line, on `by_line`) replaces the marker's: said unless the marker describes a
    /// commented-out key, or its comment documents no key.
    fn superseded(&self, context: &FileContext, by_line: usize) -> Option<String> {
        match (self.commented_keys.is_empty(), &self.written_for) {
            (true, Some(below)) => Some(format!(
                "helm-docs starts another description at line {} (`{}`) and keeps only the last one above `{below}`: it drops this one",
                by_line + 1,
                context.line_text(by_line).trim()
            )),
            _ => None,
        }
    }

    /// helm-docs loses the marker's description, as a foot or the document's head
    /// comment: said unless it describes a commented-out key, or is deeper than the
    /// key below or that key has a description of its own.
    fn dropped(&self, docs: &helm_docs::HelmDocs, keys: &[&Key]) -> Option<String> {
        if !self.commented_keys.is_empty() {
            return None;
        }
        let why = if self.marker.destination == Destination::DocumentHead {
            "above the first key, a blank line makes it a comment of the whole document"
        } else {
            "yaml.v3 reads it as the closing comment of the content above it"
        };
        match &self.written_for {
            Some(below) => Some(format!(
                "helm-docs drops this description of `{below}`: {why}"
            )),
            None => {
                // Only a description at the level of the key below was
                // written for it; a deeper one is commented-out content.
                let comment = self.comment;
                let next = keys.iter().find(|key| key.line > comment.end_line);
                let next = next.filter(|next| next.column == comment.column)?;
                let next_path = helm_docs::helm_docs_path(&next.path);
                if docs.descriptions.contains_key(&next_path) {
                    return None;
                }
                Some(format!(
                    "helm-docs drops this description ({why}), so `{next_path}` below it gets none"
                ))
            }
        }
    }
}

/// The lines of a comment's text from the marker's line up to the next `-- ` line.
fn marker_group(comment: &Comment, line: usize) -> Vec<&str> {
    let lines: Vec<&str> = comment.text.lines().collect();
    let start = (line - comment.line).min(lines.len());
    let mut group = vec![];
    for (offset, text) in lines[start..].iter().enumerate() {
        if offset > 0 && text.trim_start().starts_with("--") {
            break;
        }
        group.push(*text);
    }
    group
}

/// Whether a description's text names a key: `revisionHistoryLimit` in "Set the
/// revisionHistoryLimit", `logFormat` in "Dex log format", letters and digits compared
/// without case.
fn names(description: &str, key: &str) -> bool {
    let fold = |text: &str| -> String {
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let key = fold(key);
    !key.is_empty() && fold(description).contains(&key)
}
