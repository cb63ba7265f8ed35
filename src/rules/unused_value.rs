//! `unused-value`: a key of a chart's `values.yaml` that nothing of the chart reads.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::analysis::charts::Role;

declare_rule! {
    /// ## What it does
    /// Reports a key of a chart's `values.yaml` that no file of the chart reads:
    /// no template, no file under the chart (read with `.Files.Get` and `tpl`), no
    /// `tpl` string of `values.yaml` itself, no `condition:` of `Chart.yaml`. Only
    /// the outermost unread key is reported; a map read whole (`toYaml
    /// .Values.resources`, `range .Values.env`) reads everything under it. A named
    /// template (the chart's own, or a library chart's `include
    /// "common.names.fullname" .`) reads what its call hands it as its body does,
    /// transitively: the chart's values with the root context, and through a
    /// `dict`, `.Values` or a value under it (`include "x" (dict "values" .Values)`
    /// then `.values.env` in the define reads `env`; `include "x"
    /// .Values.image` then `.tag` reads `image.tag`). A `merge` of several values
    /// reads each of them.
    /// Dependencies are found under `charts/` (folders and `.tgz` archives), at
    /// `file://` paths, elsewhere in the repository by name and version (the copy
    /// nearest the chart first), and under
    /// `chart-paths`. Keys under a subchart's name (or alias) are checked against
    /// the subchart's own reads when it is found, and not at all otherwise;
    /// `global` is skipped when a dependency is not found. A chart that calls a
    /// define no readable chart has, while a dependency is missing, is skipped
    /// whole, and the run says which missing dependency may define it; when every
    /// dependency was found, such a define reads nothing (Helm fails where it is
    /// called, which `undefined-template` reports).
    /// A top-level `enabled` is never reported: it is the switch a parent's
    /// `condition: NAME.enabled` reads when the chart is someone's dependency.
    ///
    /// Reads are followed as `undefined-value` follows them (scopes of `with`,
    /// variables, `index`, `dig`, `hasKey`, `get`). A template that uses `.Values`
    /// whole (`tpl (toYaml .Values) .`, `{{ .Values | toJson | sha256sum }}`) reads
    /// every value: nothing is reported for the chart, and the run says why in a
    /// note. When a template reads `.Values` by a computed key (`index .Values
    /// $name`), or renders with `tpl` a file of the chart that is not there (`tpl
    /// (.Files.Get "files/x") .`), what it reads cannot be known: nothing is
    /// reported, and the chart is listed as partial. Off for `type: library` charts
    /// and for charts without templates.
    ///
    /// ## Why it matters
    /// A value nothing reads is a setting that does nothing: users set it and
    /// nothing changes, usually because a template was renamed or removed and its
    /// values stayed.
    ///
    /// ## Example
    /// ```yaml
    /// # values.yaml; no template reads .Values.legacyPort
    /// service:
    ///   port: 80
    /// legacyPort: 8080
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// service:
    ///   port: 80
    /// ```
    pub struct UnusedValue {
        name: "unused-value",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for UnusedValue {
    fn needs_chart(&self) -> bool {
        true
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some((chart, Role::Values)) = context.chart else {
            return;
        };
        let lines = context.source.line_count();
        // Advice on subcharts only where the chart has some (a library is none).
        let subcharts = chart.subchart_keys();
        let help = match subcharts.as_slice() {
            [] => "remove it, or read it in a template".to_string(),
            keys => format!(
                "remove it, or read it in a template; values for a subchart go under its name ({})",
                keys.iter()
                    .take(5)
                    .map(|key| format!("`{key}:`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        for (path, line) in chart.unused() {
            let Some(line) = line.checked_sub(1).filter(|line| *line < lines) else {
                continue;
            };
            let range = context.source.line_range(line);
            let text = &context.source.text[range.clone()];
            let key = path.last().map_or("", String::as_str);
            let start = text.find(key).map_or(range.start, |at| range.start + at);
            let end = (start + key.len()).min(range.end.max(start));
            reporter
                .report(
                    start..end,
                    format!(
                        "`{}` is set here but nothing of the chart reads it",
                        path.join(".")
                    ),
                )
                .with_help(help.clone());
        }
    }
}
