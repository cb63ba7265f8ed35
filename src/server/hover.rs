//! Hover: on a key, the comments that document it and the templates that read
//! it; on a `.Values` read, the key's line in `values.yaml` with its documentation,
//! or that it is not defined and the nearest key; on an `include`, the first lines
//! of the define.

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use std::sync::Arc;

use super::documents::LineIndex;
use super::findings::{Failure, request_path};
use super::graph::{self, Site, Target};
use super::world::Batch;
use crate::analysis::charts::Chart;
use crate::yaml::model::{Key, Placement};

/// The lines of a define shown on hover.
const DEFINE_LINES: usize = 8;

/// `textDocument/hover`.
pub(crate) fn hover(batch: &Batch, params: HoverParams) -> Result<Option<Hover>, Failure> {
    let Some(path) = request_path(
        batch,
        &params.text_document_position_params.text_document.uri,
    )?
    else {
        return Ok(None);
    };
    let Ok(file) = batch.file(&path) else {
        return Ok(None);
    };
    let offset = LineIndex::new(&file.text).offset(params.text_document_position_params.position);
    let text = hover_text(batch, &path, &file.text, offset);
    Ok(text.map(|value| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    }))
}

/// The hover's Markdown at `offset` of the file at `path`.
pub(crate) fn hover_text(
    batch: &Batch,
    path: &std::path::Path,
    text: &str,
    offset: usize,
) -> Option<String> {
    let chart = batch.chart_of(path);
    if let Some(chart) = &chart {
        let target = graph::target_at(text, offset);
        if let Some(Target::Builtin(builtin)) = &target {
            let chart_yaml = batch.file(&chart.root.join("Chart.yaml")).ok();
            return Some(super::builtins::hover(
                builtin,
                chart_yaml.as_ref().map(|file| &*file.text),
            ));
        }
        match target {
            Some(Target::Read(read)) => return read_markdown(batch, chart, &read.path),
            Some(Target::Include(name)) => return define_markdown(batch, chart, &name),
            Some(Target::Variable { at, .. }) => return Some(variable_markdown(text, &at)),
            Some(Target::Function(function)) => {
                return Some(function.markdown());
            }
            _ => {}
        }
    }
    let modelled = graph::model_of(batch, path)?;
    let key = graph::key_at(&modelled, offset)?.clone();
    let mut out = format!("`{}`", key.path);
    if key.comments.is_empty() {
        push_conventions(&mut out, &key, &modelled.text);
    } else {
        push_documentation(&mut out, &key);
    }
    if let Some(chart) = chart.filter(|chart| chart.root.join("values.yaml") == path) {
        push_readers(&mut out, batch, &chart, &key);
    }
    Some(out)
}

/// The hover of a read of `.Values` at `path` in a template of `chart`: the key's
/// line in the values that win, with its documentation, or that it is not
/// defined and the nearest key.
pub(super) fn read_markdown(batch: &Batch, chart: &Arc<Chart>, path: &[String]) -> Option<String> {
    let shown = path.join(".");
    Some(match graph::value_site(batch, chart, path)? {
        Site::Found { file, key, over } => {
            let line = file
                .text
                .lines()
                .nth(key.line)
                .unwrap_or_default()
                .trim_end();
            let base = over.as_ref().map_or(&chart.root, |parent| &parent.root);
            let mut out = format!(
                "`.Values.{shown}`: {}:{}\n\n```yaml\n{line}\n```",
                shown_path(&file.path, base),
                key.line + 1
            );
            if let Some(parent) = over {
                out.push_str(&format!(
                    "\n\nSet by the parent chart `{}`, whose values Helm puts over this chart's own",
                    parent.name()
                ));
            }
            if key.comments.is_empty() {
                push_conventions(&mut out, &key, &file.text);
            } else {
                push_documentation(&mut out, &key);
            }
            out
        }
        Site::Missing { values, nearest } => {
            let mut out = format!(
                "`.Values.{shown}` is not defined in {}",
                shown_path(&values, &chart.root)
            );
            if let Some(nearest) = nearest {
                out.push_str(&format!("; the nearest key is `{nearest}`"));
            }
            out
        }
    })
}

/// The hover of the named template `name` as a template of `chart` calls it: where
/// it is defined, and its first lines.
pub(super) fn define_markdown(batch: &Batch, chart: &Chart, name: &str) -> Option<String> {
    let (file, range, define_text) = graph::define_site(batch, chart, name)?;
    let start = define_text[..range.start]
        .rfind('\n')
        .map_or(0, |at| at + 1);
    let lines: Vec<&str> = define_text[start..].lines().take(DEFINE_LINES).collect();
    let line = LineIndex::new(&define_text).line_of(range.start) + 1;
    Some(format!(
        "`{name}`: {}:{line}\n\n```gotmpl\n{}\n```",
        shown_path(&file, &chart.root),
        lines.join("\n")
    ))
}

/// The hover of a `$variable`: the action that declares it, or that none in scope
/// does.
fn variable_markdown(text: &str, used: &crate::template::scope::Use) -> String {
    let Some(declared) = &used.declared else {
        return format!(
            "`{}` is not declared here: Helm's parser fails with \"undefined variable\"",
            used.name
        );
    };
    let line = LineIndex::new(text).line_of(declared.start) + 1;
    let action: String = text[declared.clone()].chars().take(200).collect();
    format!(
        "`{}`: declared on line {line}\n\n```gotmpl\n{action}\n```",
        used.name
    )
}

/// The template lines that read the values key `key` of `chart`: the first
/// [`READERS_SHOWN`], and how many more.
fn push_readers(out: &mut String, batch: &Batch, chart: &Chart, key: &Key) {
    let readers = graph::readers(chart, &graph::segments(&key.path));
    if readers.is_empty() {
        out.push_str("\n\nRead by no template");
        return;
    }
    out.push_str("\n\nRead by:");
    let mut seen = std::collections::BTreeSet::new();
    let mut more = std::collections::BTreeSet::new();
    for (file, range) in readers {
        // A template the server may not read (outside the workspace) is not shown.
        let Ok(state) = batch.file(&file) else {
            continue;
        };
        let line = LineIndex::new(&state.text).line_of(range.start) + 1;
        let entry = format!("{}:{line}", shown_path(&file, &chart.root));
        if seen.len() >= READERS_SHOWN {
            if !seen.contains(&entry) {
                more.insert(entry);
            }
            continue;
        }
        if seen.insert(entry.clone()) {
            out.push_str(&format!("\n- {entry}"));
        }
    }
    if !more.is_empty() {
        out.push_str(&format!(
            "\n- … and {} more (Find All References lists every one)",
            more.len()
        ));
    }
}

/// How many of a values key's readers its hover lists; the rest are counted.
const READERS_SHOWN: usize = 10;

/// The comments that document `key`, leading first, as Markdown.
fn push_documentation(out: &mut String, key: &Key) {
    let mut comments: Vec<_> = key.comments.iter().collect();
    comments.sort_by_key(|attached| attached.placement != Placement::Leading);
    if comments.is_empty() {
        out.push_str("\n\nNo comment documents it");
    }
    for attached in comments {
        out.push_str("\n\n");
        out.push_str(&markdown_of(&attached.comment.text));
    }
}

/// The documentation of a key with no comment of its own, as a values file's
/// conventions give it elsewhere in `text` (`@param`, `@field` of a `@typedef`, a
/// helm-docs `# path -- text`): the rules count those as documentation too.
fn push_conventions(out: &mut String, key: &Key, text: &str) {
    let path = crate::rules::values::plain_path(&key.path);
    if let Some((line, doc)) = crate::rules::values::documentation_of(text, &path) {
        let written = text.lines().nth(line).unwrap_or_default().trim();
        out.push_str(&format!(
            "\n\n{}\n\n(line {}: `{}`)",
            if doc.is_empty() { "Documented" } else { &doc },
            line + 1,
            written.replace('`', "'")
        ));
    } else {
        push_documentation(out, key);
    }
}

/// A comment's text as Markdown: `#` runs that open a line (`## @param …`, `###`
/// banners) and helm-docs' `--` after them are markers, not headings or text;
/// lines indented past the text around them
/// (an example) are kept as written in a code block; other lines end with a hard
/// break, as the comment breaks them.
fn markdown_of(text: &str) -> String {
    let mut out = String::new();
    let mut example: Vec<&str> = Vec::new();
    let flush = |out: &mut String, example: &mut Vec<&str>| {
        if example.is_empty() {
            return;
        }
        let indent = example
            .iter()
            .filter(|line| !line.trim().is_empty())
            .map(|line| line.len() - line.trim_start().len())
            .min()
            .unwrap_or(0);
        out.push_str("```yaml\n");
        for line in example.drain(..) {
            out.push_str(line.get(indent..).unwrap_or("").trim_end());
            out.push('\n');
        }
        out.push_str("```\n");
    };
    for line in text.lines() {
        let line = line.trim_start_matches('#');
        let line = line.strip_prefix(' ').unwrap_or(line);
        // helm-docs' `# -- text` marks a description: the marker is not its text.
        let line = match line.strip_prefix("--") {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => rest.trim_start(),
            _ => line,
        };
        if line.starts_with([' ', '\t']) && !line.trim().is_empty() {
            example.push(line);
            continue;
        }
        flush(&mut out, &mut example);
        let line = line.trim_end();
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(line);
            out.push_str("  \n");
        }
    }
    flush(&mut out, &mut example);
    out.trim_end().to_string()
}

/// `path` relative to the folder holding the chart's folder (`app/values.yaml`).
pub(super) fn shown_path(path: &std::path::Path, chart_root: &std::path::Path) -> String {
    let base = chart_root.parent().unwrap_or(chart_root);
    crate::paths::slashed(path.strip_prefix(base).unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::super::documents::{Document, Documents, uri_of};
    use super::super::world::{Batch, Checked, Snapshot};
    use super::hover_text;

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }

    /// The hover texts of the server's fixture: reads (each spelling), an include,
    /// a values key, a library's read (shown with the including chart's key), and a
    /// subchart's reads, which the parent's values (`child.replicas`, `global`)
    /// override.
    #[test]
    fn hover_texts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        copy(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/server"),
            &root,
        );
        let mut documents = Documents::new();
        let template = root.join("app/templates/deployment.yaml");
        for path in [&template, &root.join("app/values.yaml")] {
            let text = std::fs::read_to_string(path).unwrap();
            documents.insert(
                path.clone(),
                Document {
                    uri: uri_of(path).unwrap(),
                    version: Some(1),
                    text: Arc::from(text.as_str()),
                },
            );
        }
        let snapshot = Snapshot {
            documents,
            resolver: Arc::new(std::sync::Mutex::new(super::super::resolver(&root))),
            workspace: Arc::new(super::super::workspace::Workspace::new([root.clone()])),
            generation: 1,
            settings: Arc::default(),
            memo: Arc::default(),
            charts: std::sync::OnceLock::new(),
            models: Arc::default(),
        };
        let batch = Batch::new(&snapshot);
        let mut out = String::new();
        let cases: [(&str, &str, usize); 9] = [
            ("app/templates/deployment.yaml", ".Values.replicas", 9),
            ("app/templates/deployment.yaml", "(.Values.image).tag", 17),
            ("app/templates/deployment.yaml", "$.Values.service", 3),
            ("app/templates/deployment.yaml", "include", 2),
            ("app/values.yaml", "  port:", 3),
            ("app/values.yaml", "image:", 1),
            ("common/templates/_names.tpl", ".Values.nameOverride", 9),
            // A subchart's reads, with the parent's values over its own.
            (
                "app/charts/child/templates/deployment.yaml",
                ".Values.replicas",
                9,
            ),
            (
                "app/charts/child/templates/deployment.yaml",
                ".Values.global",
                9,
            ),
        ];
        for (file, needle, shift) in cases {
            let path = root.join(file);
            let text = batch.file(&path).unwrap().text;
            let offset = text.find(needle).unwrap() + shift;
            let shown = hover_text(&batch, &path, &text, offset).unwrap_or_default();
            out.push_str(&format!("## {file} at `{needle}`\n{shown}\n\n"));
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!("server_hover", out));
    }

    /// A `values.yaml` whose link leads out of the repository is not read: a hover
    /// on a read never shows a line of a file outside.
    #[cfg(unix)]
    #[test]
    fn a_values_file_linked_outside_is_not_shown() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("app/templates")).unwrap();
        let chart = "apiVersion: v2\nname: app\nversion: 1.0.0\n";
        std::fs::write(root.join("app/Chart.yaml"), chart).unwrap();
        std::fs::write(base.join("secret.yaml"), "a: the-secret-value\n").unwrap();
        std::os::unix::fs::symlink("../../secret.yaml", root.join("app/values.yaml")).unwrap();
        let template = root.join("app/templates/x.yaml");
        let text = "x: {{ .Values.a }}\n";
        std::fs::write(&template, text).unwrap();
        let mut documents = Documents::new();
        documents.insert(
            template.clone(),
            Document {
                uri: uri_of(&template).unwrap(),
                version: Some(1),
                text: Arc::from(text),
            },
        );
        let snapshot = Snapshot {
            documents,
            resolver: Arc::new(std::sync::Mutex::new(super::super::resolver(&root))),
            generation: 1,
            settings: Arc::default(),
            memo: Arc::default(),
            charts: std::sync::OnceLock::new(),
            models: Arc::default(),
            // The workspace holds the secret too: only the repository's bound on
            // what the chart graph reads keeps it out.
            workspace: Arc::new(super::super::workspace::Workspace::new([base.clone()])),
        };
        let batch = Batch::new(&snapshot);
        let offset = text.find(".Values.a").unwrap() + 8;
        let shown = hover_text(&batch, &template, text, offset).unwrap_or_default();
        assert!(!shown.contains("the-secret-value"), "{shown}");
    }

    /// A new folder holding a chart `app` (its `Chart.yaml` only): the folder's
    /// guard and its path.
    fn app_chart() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("app/templates")).unwrap();
        let chart = "apiVersion: v2\nname: app\nversion: 1.0.0\n";
        std::fs::write(root.join("app/Chart.yaml"), chart).unwrap();
        (dir, root)
    }

    /// A snapshot of `root` with the file `open` open at `text`, at `generation`,
    /// keeping its models in `models`.
    fn snapshot_with(
        root: &Path,
        models: &Arc<super::super::world::Models>,
        (open, text): (&Path, &str),
        generation: u64,
    ) -> Snapshot {
        let mut documents = Documents::new();
        documents.insert(
            open.to_path_buf(),
            Document {
                uri: uri_of(open).unwrap(),
                version: Some(generation as i32),
                text: Arc::from(text),
            },
        );
        Snapshot {
            documents,
            resolver: Arc::new(std::sync::Mutex::new(super::super::resolver(root))),
            workspace: Arc::new(super::super::workspace::Workspace::new(
                [root.to_path_buf()],
            )),
            generation,
            settings: Arc::default(),
            memo: Arc::default(),
            charts: std::sync::OnceLock::new(),
            models: models.clone(),
        }
    }

    /// A values file a hover modelled is kept across changes of other files, and
    /// modelled again when its own text changes.
    #[test]
    fn a_values_model_outlives_a_change_of_a_template() {
        let (_dir, root) = app_chart();
        let values = root.join("app/values.yaml");
        std::fs::write(&values, "# how many\na: 1\n").unwrap();
        let template = root.join("app/templates/x.yaml");
        let models: Arc<super::super::world::Models> = Arc::default();
        let snapshot = |generation: u64, template_text: &str| {
            snapshot_with(&root, &models, (&template, template_text), generation)
        };
        let model = |snapshot: &Snapshot| {
            super::super::graph::model_of(&Batch::new(snapshot), &values).unwrap()
        };
        let first = model(&snapshot(1, "x: {{ .Values.a }}\n"));
        let after_a_keystroke = model(&snapshot(2, "x: {{ .Values.a }}\ny: 1\n"));
        assert!(Arc::ptr_eq(&first.model, &after_a_keystroke.model));
        std::fs::write(&values, "# how many\na: 2\n").unwrap();
        let after_the_values_changed = model(&snapshot(3, "x: {{ .Values.a }}\n"));
        assert!(!Arc::ptr_eq(&first.model, &after_the_values_changed.model));
        assert!(after_the_values_changed.text.contains("a: 2"));
    }

    /// The worker's check of an open `values.yaml` and a hover that quotes it share
    /// one model of its text: the hover after the check does not model it again;
    /// a new text is modelled anew, and the check of it keeps that model.
    #[test]
    fn a_check_and_a_hover_share_the_model_of_a_values_file() {
        let (_dir, root) = app_chart();
        let values = root.join("app/values.yaml");
        std::fs::write(root.join("app/templates/x.yaml"), "x: {{ .Values.a }}\n").unwrap();
        let models: Arc<super::super::world::Models> = Arc::default();
        let snapshot = |generation: u64, values_text: &str| {
            snapshot_with(&root, &models, (&values, values_text), generation)
        };
        // No rule needs this file's model: it is made for the requests.
        let checked = snapshot(1, "# how many\na: 1\n");
        let batch = Batch::new(&checked);
        assert!(matches!(batch.check(&values), Checked::Findings { .. }));
        let text = checked.documents.get(&values).unwrap().text.clone();
        let quoted = batch.model(&values, &text, &|| panic!("the check's model made again"));
        assert_eq!(quoted.model.keys().count(), 1);

        let hovered = snapshot(2, "# how many\na: 2\nb: 3\n");
        let batch = Batch::new(&hovered);
        let first = super::super::graph::model_of(&batch, &values).unwrap();
        assert!(!Arc::ptr_eq(&first.model, &quoted.model));
        assert!(matches!(batch.check(&values), Checked::Findings { .. }));
        let again = super::super::graph::model_of(&batch, &values).unwrap();
        assert!(Arc::ptr_eq(&first.model, &again.model));
        assert_eq!(again.model.keys().count(), 2);
    }

    /// A hover that quotes a `values.yaml` whose new text the worker's check is
    /// modelling answers at once from the model of the text before, not waiting
    /// for the check; once the new model is made, it answers from that.
    #[test]
    fn a_hover_does_not_wait_for_the_model_a_check_makes() {
        let (_dir, root) = app_chart();
        let values = root.join("app/values.yaml");
        std::fs::write(root.join("app/templates/x.yaml"), "x: {{ .Values.a }}\n").unwrap();
        let models: Arc<super::super::world::Models> = Arc::default();
        let snapshot = |generation: u64, values_text: &str| {
            snapshot_with(&root, &models, (&values, values_text), generation)
        };
        let before = snapshot(1, "# how many\na: 1\n");
        let quoted = super::super::graph::latest_model_of(&Batch::new(&before), &values).unwrap();
        assert!(quoted.text.contains("a: 1"));

        let changed = snapshot(2, "# how many\na: 2\n");
        let text = changed.documents.get(&values).unwrap().text.clone();
        let (started, start) = std::sync::mpsc::channel();
        let (finish, finished) = std::sync::mpsc::channel::<()>();
        let (changed, values, text) = (&changed, &values, &text);
        std::thread::scope(|scope| {
            // The worker's check, modelling the new text until told to finish.
            let check = scope.spawn(move || {
                let batch = Batch::new(changed);
                batch.model(values, text, &|| {
                    started.send(()).unwrap();
                    // A hover that waits for this model fails rather than hangs.
                    let _ = finished.recv_timeout(std::time::Duration::from_secs(5));
                    crate::yaml::pipeline::model_as_checked(
                        "app/values.yaml".into(),
                        text.as_bytes().to_vec(),
                        &crate::settings::config::Config::default_for(root.clone()).directives,
                    )
                    .0
                })
            });
            start.recv().unwrap();
            let batch = Batch::new(changed);
            let meanwhile = super::super::graph::latest_model_of(&batch, values).unwrap();
            assert!(Arc::ptr_eq(&meanwhile.model, &quoted.model));
            assert!(meanwhile.text.contains("a: 1"), "{}", meanwhile.text);
            let _ = finish.send(());
            let made = check.join().unwrap();
            let after = super::super::graph::latest_model_of(&batch, values).unwrap();
            assert!(Arc::ptr_eq(&after.model, &made.model));
            assert!(after.text.contains("a: 2"));
        });
    }
}
