//! `undefined-value`: a template prints a value its chart's `values.yaml` does not
//! define.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::analysis::charts::{Role, guarded};

declare_rule! {
    /// ## What it does
    /// Reports a template that prints `.Values.a.b` (or `$.Values.a.b`) where the
    /// chart's `values.yaml` has no `a.b`: the key is missing under a map that has
    /// other keys.
    ///
    /// Only reads whose missing value reaches the output are reported: printed as
    /// they are or through `quote`, `toYaml`, `nindent` and the like, with no
    /// `default`, `required`, test, `include` or other helper on the way, and not
    /// inside an `if`, `with` or `range` that tests the missing key or a key under it.
    /// Scopes are followed: inside `{{ with .Values.devices }}`, `.x` is
    /// `devices.x`; `$v := .Values.a` then `$v.b` is `a.b`; `index .Values "a" "b"`
    /// is `a.b`. `.Values` inside a `define` is taken to be the chart's. The dot
    /// inside `range`, keys computed at render time and values passed to helpers are
    /// not followed, and nothing is reported for them.
    ///
    /// Never reported: a key under a `null`, a scalar, a list or an empty map
    /// (`podAnnotations: {}` is filled by users), a key whose name a comment of
    /// `values.yaml` writes as `# name:` (values documented but left unset),
    /// `global`, a dependency's values, values a template `set`s, and anything in a
    /// `type: library` chart, whose templates read the including chart's values.
    ///
    /// ## Why it matters
    /// A value no default defines renders as nothing: `image: ` or `replicas: `.
    /// It is usually a typo (`.Values.image.tags` for `tag`) or a value users can
    /// only discover by reading templates.
    ///
    /// ## Example
    /// ```yaml
    /// # values.yaml
    /// image:
    ///   repository: nginx
    /// # templates/deployment.yaml
    /// image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # values.yaml
    /// image:
    ///   repository: nginx
    ///   # -- Defaults to the chart's appVersion.
    ///   tag: ""
    /// # templates/deployment.yaml
    /// image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
    /// ```
    pub struct UndefinedValue {
        name: "undefined-value",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for UndefinedValue {
    fn needs_chart(&self) -> bool {
        true
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some((chart, Role::Template)) = context.chart else {
            return;
        };
        if chart.library {
            return;
        }
        let found = context.value_reads();
        for read in found.reads.iter().filter(|read| read.plain) {
            let Some(depth) = chart.undefined(&read.path, &found.set) else {
                continue;
            };
            if guarded(read, depth) {
                continue;
            }
            let under = if depth == 0 {
                "at the top of the chart's values.yaml".to_string()
            } else {
                format!(
                    "under `{}` in the chart's values.yaml",
                    read.path[..depth].join(".")
                )
            };
            reporter
                .report(
                    read.span.clone(),
                    format!(
                        "`.Values.{}` is not defined: no `{}` {under}",
                        read.path.join("."),
                        read.path[depth]
                    ),
                )
                .with_help(
                    "give it a default in values.yaml (or name it in a comment there, `# key: …`), or guard the read with `default`, `if` or `with`",
                );
        }
    }
}
