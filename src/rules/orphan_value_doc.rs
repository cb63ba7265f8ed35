//! `orphan-value-doc`: a values annotation that names no key, or documents the wrong one.

use super::values::{annotations, commented_out_tail, has_annotations, key_paths, Annotation};
use super::{FileContext, Level, Reporter, Rule};

/// ## What it does
/// In a chart's `values.yaml`, reports documentation that belongs to no key:
/// - a readme-generator `## @param full.path` or a helm-docs `# full.path -- text`
///   naming a path that does not exist in the file;
/// - a cozyvalues-gen `## @param {type} name` naming no top-level key;
/// - a helm-docs `# -- text` description whose block goes on into a commented-out
///   key (`# targetPort: 80`): helm-docs attaches the description to the next real
///   key below, which is not the one it was written for.
///
/// `## @skip` and `## @extra` paths are not checked: readme-generator does not
/// require them to exist.
///
/// ## Why it matters
/// Generated READMEs and schemas then describe keys that are gone, or give one key
/// another key's description, and nothing fails.
///
/// ## Example
/// ```yaml
/// # -- Port of the Service's target.
/// # targetPort: 8080
/// annotations: {}
/// ```
///
/// ## Instead
/// ```yaml
/// # targetPort: 8080
///
/// # -- Annotations of the Service.
/// annotations: {}
/// ```
pub struct OrphanValueDoc;

impl Rule for OrphanValueDoc {
    fn name(&self) -> &'static str {
        "orphan-value-doc"
    }

    fn default_level(&self) -> Level {
        Level::Warn
    }

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
                Annotation::Param { path } => (!paths.contains(path), path.clone()),
                Annotation::HelmDocsPath { path } => (!paths.contains(path), path.clone()),
                Annotation::TypedParam { name, optional } => {
                    (!optional && !top.contains(name), name.clone())
                }
                Annotation::Unchecked { .. } => (false, String::new()),
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
        for document in &model.documents {
            let leading = document.keys.iter().flat_map(|key| {
                key.comments
                    .iter()
                    .map(move |attached| (Some(key), &attached.comment))
            });
            let free = document.free.iter().map(|comment| (None, comment));
            for (key, comment) in leading.chain(free) {
                let lines: Vec<&str> = comment.text.lines().collect();
                if !lines
                    .first()
                    .is_some_and(|first| first.trim_start().starts_with("-- "))
                {
                    continue;
                }
                let Some(index) = commented_out_tail(&lines) else {
                    continue;
                };
                let commented = lines[index];
                let name = commented.trim().trim_start_matches("- ");
                let name = name.split(':').next().unwrap_or(name);
                let target = key
                    .map(|key| format!(" attaches it to `{}`", key.path))
                    .unwrap_or_else(|| " attaches it to the next key below".to_string());
                let piece = comment
                    .spans
                    .get(index)
                    .cloned()
                    .unwrap_or(comment.spans[0].clone());
                reporter
                    .report(
                        comment.spans[0].clone(),
                        format!(
                            "this helm-docs description runs into the commented-out key `{name}`; helm-docs{target}"
                        ),
                    )
                    .with_label(piece, "commented-out key")
                    .with_help(
                        "separate the commented-out key from the description with a blank line, or remove it",
                    );
            }
        }
    }
}
