//! `undefined-template`: a template calls a named template that no chart Helm
//! loads with it defines.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::analysis::charts::Role;
use crate::analysis::charts::names::Lookup;
use crate::template::reads::Call;

declare_rule! {
    /// ## What it does
    /// Reports an `include "name"` or `template "name"` of a named template that
    /// no chart Helm loads with the template defines. Searched: the chart, its
    /// dependencies (folders and archives under `charts/`, `file://` paths, charts
    /// of that name and version elsewhere in the repository, the nearest first, or
    /// under `chart-paths`), the charts they depend on, its parent charts and their other
    /// dependencies; and the repository's library charts, as a build step may
    /// vendor them: of each name, the one nearest the chart (the most folders in
    /// common), so a monorepo that keeps several copies of `common` is searched in
    /// the copy beside the chart, not in all of them. The message names the define most like it and the charts
    /// searched.
    ///
    /// Reported only when every dependency of that graph was found and read: when
    /// one is missing (not built with `helm dependency build`, not in the
    /// repository), nothing is reported, as the missing chart may define the name.
    /// If the values rules skip the chart for it, the run's note names the missing
    /// dependency that may define it (its name or alias prefixes the define, or it
    /// is a library chart), or says that no chart searched defines it. A name
    /// computed at render time (`include (printf "%s.labels" .Chart.Name) .`) and a
    /// call inside a `tpl` string are not checked; `block` defines what it calls.
    /// In a `type: library` chart, whose defines run inside the charts that include
    /// it (and may call a define those charts provide), only a name in the
    /// library's own namespace (`common.…` in `common`) or a typo of a define that
    /// exists (two edits at most) is reported.
    ///
    /// ## Why it matters
    /// Helm stops with `no template "…" associated with template` as soon as the
    /// line renders, and `helm lint` sees it only when that branch renders with the
    /// default values: a typo (`commot.tplvalues.render`), a helper renamed or a
    /// dependency dropped whose helpers the chart still calls breaks an install for
    /// whoever turns the branch on.
    ///
    /// ## Example
    /// ```yaml
    /// # templates/helpers.yaml
    /// {{- define "app.labels" -}}
    /// app: web
    /// {{- end }}
    /// # templates/deployment.yaml
    /// metadata:
    ///   labels:
    ///     {{- include "app.label" . | nindent 4 }}
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # templates/helpers.yaml
    /// {{- define "app.labels" -}}
    /// app: web
    /// {{- end }}
    /// # templates/deployment.yaml
    /// metadata:
    ///   labels:
    ///     {{- include "app.labels" . | nindent 4 }}
    /// ```
    pub struct UndefinedTemplate {
        name: "undefined-template",
        level: Error,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for UndefinedTemplate {
    fn needs_chart(&self) -> bool {
        true
    }

    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some((chart, Role::Template)) = context.chart else {
            return;
        };
        let found = context.value_reads();
        let mut index = None;
        for call in &found.includes {
            // A `block` defines the template it calls; the file's own defines are
            // there even when the chart's index read other bytes of it.
            if call.call == Call::Block || found.defines.contains(&call.name) {
                continue;
            }
            let index = index.get_or_insert_with(|| chart.define_index());
            let Lookup::Absent { nearest } = index.lookup(&call.name) else {
                continue;
            };
            if chart.library && !own_or_mistyped(&chart.name(), &call.name, nearest) {
                continue;
            }
            let mut message = format!(
                "no chart defines `{}`, which this `{}` calls (searched: {})",
                call.name,
                call.call.keyword(),
                index.searched_list()
            );
            if let Some(nearest) = nearest {
                message.push_str(&format!("; did you mean `{nearest}`?"));
            }
            reporter.report(call.span.clone(), message).with_help(
                "Helm fails when this line renders: call a template that is defined, or define this one; if a build step puts the chart that defines it under charts/, name that chart's folder in `chart-paths` of tether.toml",
            );
        }
    }
}

/// Whether a library chart's call of a define no chart has is a mistake of its own:
/// the name is in the library's own namespace (`common.x` in `common`) or a typo of
/// a define that exists (at most two edits away). A library's defines run inside the
/// charts that include it, which may define what it calls (a hook it leaves to them).
fn own_or_mistyped(library: &str, name: &str, nearest: Option<&str>) -> bool {
    let own = name
        .strip_prefix(library)
        .is_some_and(|rest| rest.starts_with('.'));
    own || nearest.is_some_and(|nearest| strsim::levenshtein(name, nearest) <= 2)
}
