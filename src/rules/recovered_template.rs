//! `recovered-template`: a template document tether read by indentation because it
//! is not YAML once its actions are masked.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};

mod undecidable;

declare_rule! {
    /// ## What it does
    /// Reports a template document that tether read by indentation instead of
    /// parsing it, because it is not valid YAML once its template actions are masked,
    /// at the line where a YAML reader stops.
    ///
    /// Most often the template is wrong there: a key indented past its siblings, a
    /// block (`toYaml`, `include`) printed without `nindent` to its column, a tab in
    /// the indentation, a value and a block scalar on one line. Helm then renders
    /// broken YAML, or YAML that means something else, for some values. Sometimes the
    /// template is right and tether cannot follow it, such as keys chosen by an
    /// action. Then the findings of the other rules in that document rest on
    /// indentation alone, which is worth knowing too.
    ///
    /// Documents tether cannot judge are not reported, because Helm's output depends
    /// on text tether does not see:
    /// - lines indented deeper than the column a block-printing action on its own
    ///   line prints at (`{{- toYaml .x | nindent 2 }}` then deeper keys that join
    ///   the last item it prints), when the document reads as YAML without them;
    /// - a `[]` or `{}` printed under a condition after a collection's items
    ///   (`{{- if not .Values.args }} []{{ end }}`), when the document reads as YAML
    ///   without it;
    /// - lines a right trim marker joins to the scalar above (`args: {{ .a -}}` then
    ///   `,{{ .b }}` on the next line), when the document reads as YAML without them;
    /// - the body of a `define` whose lines are mostly not YAML (`key=value`, `[section]`,
    ///   a message): a configuration file or text that `include` prints.
    ///
    /// A template comment or an assignment prints nothing and is read as nothing
    /// (`pinned: "v1" {{- /* note */}}` is one quoted scalar). `tether map` shows
    /// which documents were recovered.
    ///
    /// Off by default, though its findings on the corpus are real: it needs every
    /// template parsed whole, which the default rules avoid, and that makes a check
    /// of a large repository take more than twice as long. Turn it on with `[rules]
    /// recovered-template = "warn"`, or run it now and then with `--select
    /// recovered-template`.
    ///
    /// ## Why it matters
    /// An indentation mistake in a template is invisible until a user sets the value
    /// that renders it; `helm lint` renders the defaults only.
    ///
    /// ## Example
    /// ```yaml
    /// spec:
    ///   containers:
    ///     - name: app
    ///       image: {{ .Values.image }}
    ///      ports:
    ///         - containerPort: 80
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// spec:
    ///   containers:
    ///     - name: app
    ///       image: {{ .Values.image }}
    ///       ports:
    ///         - containerPort: 80
    /// ```
    pub struct RecoveredTemplate {
        name: "recovered-template",
        level: Off,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for RecoveredTemplate {
    fn needs_model(&self, context: &FileContext) -> bool {
        context.is_template
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(model) = context.model.filter(|_| context.is_template) else {
            return;
        };
        let source = context.source;
        for document in model.documents.iter().filter(|document| document.recovered) {
            let lines = document.lines.clone();
            if lines.is_empty() {
                continue;
            }
            let start = source.line_start(lines.start);
            let end = if lines.end < source.line_count() {
                source.line_start(lines.end)
            } else {
                context.masked.len()
            };
            if undecidable::is_undecidable(context, document, &context.masked[start..end]) {
                continue;
            }
            // Where a second YAML reader (yaml-rust2) stops on the masked document;
            // else the first line tree-sitter found in error.
            let stop = crate::yaml::events::first_error(&context.masked[start..end]);
            let (line, why) = match stop {
                Some((offset, why)) => ((lines.start + offset).min(lines.end - 1), why),
                None => {
                    let problem = model
                        .problems
                        .iter()
                        .find(|problem| lines.contains(&problem.line));
                    (
                        problem.map_or(lines.start, |problem| problem.line),
                        "tree-sitter-yaml finds a syntax error".to_string(),
                    )
                }
            };
            let text = source.line_text(line);
            let indent = text.len() - text.trim_start().len();
            let range = source.line_range(line);
            let span = range.start + indent..range.end.max(range.start + indent);
            let block = match &document.define {
                Some(name) => format!("the body of `define \"{name}\"`"),
                None => "this template document".to_string(),
            };
            reporter
                .report(
                    span,
                    format!(
                        "{block} is not YAML once its actions are masked ({why} here), so tether read it by indentation"
                    ),
                )
                .with_help(
                    "check the indentation of this line and of the lines and actions above it (a block printed without `nindent` to its column, a key past its siblings, a tab); if `helm template` renders valid YAML for every value, the template is fine and tether cannot follow it",
                );
        }
    }
}
