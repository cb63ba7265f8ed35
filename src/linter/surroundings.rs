//! What a file's check needs from around it: its chart, the chart's values file and
//! whether helm-docs would read it; the chart-wide facts the values rules use.

use std::path::Path;

use crate::paths::FileKind;
use crate::rules::RULES;
use crate::settings::config::Config;
use crate::settings::project::Project;

/// What a file's findings depend on besides its bytes, looked up once per file.
pub(super) struct Surroundings {
    /// What it is to Helm, by its path.
    pub(super) kind: FileKind,
    /// Its chart, when a rule that reads the whole chart may run on the file.
    pub(super) chart: Option<(
        std::sync::Arc<crate::analysis::charts::Chart>,
        crate::analysis::charts::Role,
    )>,
    /// What the documentation generators make of it, if it is named like a values
    /// file.
    pub(super) values: Option<crate::rules::ValuesFile>,
    /// Report at most [`MAX_FINDINGS_PER_FILE`] findings (a report); the fixer sees
    /// them all, so its rounds do not grow with the file.
    pub(super) cap: bool,
}

impl Surroundings {
    pub(super) fn of(config: &Config, project: &Project, relative: &Path) -> Surroundings {
        let kind = FileKind::of(relative);
        Surroundings {
            kind,
            chart: chart_of(config, project, relative, kind),
            values: values_file(config, project, relative, kind),
            cap: true,
        }
    }
}

/// Whether a rule that reads the whole chart may run on some file of `config`.
pub(super) fn chart_rules_may_run(config: &Config) -> bool {
    RULES
        .iter()
        .any(|registered| registered.rule.needs_chart() && config.may_run(registered.id))
}

/// The chart of a template or `values.yaml` when a rule that reads the whole chart
/// may run on some file of the configuration (the file's own settings decide later).
pub(super) fn chart_of(
    config: &Config,
    project: &Project,
    relative: &Path,
    kind: FileKind,
) -> Option<(
    std::sync::Arc<crate::analysis::charts::Chart>,
    crate::analysis::charts::Role,
)> {
    // A chart renders what is under its `templates/` (not a `*.tpl` elsewhere).
    let candidate = kind == FileKind::Values
        || relative
            .components()
            .any(|component| component.as_os_str() == "templates");
    if !candidate || !chart_rules_may_run(config) {
        return None;
    }
    let absolute = config.root.join(relative);
    project.charts.of(&absolute, &project.chart_scope)
}

/// What the documentation generators make of a file named like a values file
/// (`values*.yaml`, `values*.yml`); `None` for any other file.
pub(super) fn values_file(
    config: &Config,
    project: &Project,
    relative: &Path,
    kind: FileKind,
) -> Option<crate::rules::ValuesFile> {
    if !kind.is_values() {
        return None;
    }
    let absolute = config.root.join(relative);
    let folder = absolute.parent()?;
    let in_chart = std::fs::symlink_metadata(folder.join("Chart.yaml"))
        .is_ok_and(|metadata| metadata.file_type().is_file());
    let helm_docs_reads = in_chart
        && kind == FileKind::Values
        && !helm_docs_ignores(
            folder,
            project.chart_scope.top.as_deref().unwrap_or(&config.root),
        );
    Some(crate::rules::ValuesFile {
        in_chart,
        helm_docs_reads,
    })
}

/// Whether a `.helmdocsignore` in the chart's folder or a folder above it, up to the
/// repository's top, names the chart (its folder, a folder above it, or its
/// `Chart.yaml`), read as helm-docs reads it: gitignore patterns relative to the
/// file's folder. helm-docs reads the one in the folder it runs in; tether does not
/// know which that is, so any of them counts.
pub(super) fn helm_docs_ignores(chart: &Path, top: &Path) -> bool {
    /// No ignore file needs more; a bigger one is not read.
    const MAX_IGNORE_BYTES: usize = 64 * 1024;
    for folder in chart.ancestors() {
        let file = folder.join(".helmdocsignore");
        if let Ok(bytes) = crate::source::read_regular(&file, MAX_IGNORE_BYTES) {
            let mut builder = ignore::gitignore::GitignoreBuilder::new(folder);
            for line in String::from_utf8_lossy(&bytes).lines() {
                // A bad pattern is skipped, as git skips it.
                let _ = builder.add_line(None, line);
            }
            if let Ok(patterns) = builder.build() {
                if patterns
                    .matched_path_or_any_parents(chart, true)
                    .is_ignore()
                    || patterns
                        .matched_path_or_any_parents(chart.join("Chart.yaml"), false)
                        .is_ignore()
                {
                    return true;
                }
            }
        }
        if folder == top || !folder.starts_with(top) {
            break;
        }
    }
    false
}
