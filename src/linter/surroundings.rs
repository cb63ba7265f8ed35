//! What a file's check needs from around it: its chart, the chart's values file and
//! whether helm-docs would read it; the chart-wide facts the values rules use.

use std::path::Path;

use crate::linter::project::Project;
use crate::paths::FileKind;
use crate::rules::RULES;
use crate::settings::config::Config;

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
    /// A file of a chart that a template may embed with `.Files.Get`: its bytes are
    /// data, so no fix of it is safe.
    pub(super) embeddable: bool,
    /// Only the rules that fix what they report run (a round of `--fix`, which
    /// reads only the findings with a fix).
    pub(super) fixable_only: bool,
}

impl Surroundings {
    pub(super) fn of(config: &Config, project: &Project, relative: &Path) -> Surroundings {
        let kind = FileKind::of(relative);
        Surroundings {
            kind,
            chart: chart_of(config, project, relative, kind),
            values: values_file(config, project, relative, kind),
            cap: true,
            embeddable: embeddable(config, project, relative, kind),
            fixable_only: false,
        }
    }

    /// What a round of `--fix` needs: the rules that fix what they report read
    /// neither the chart nor what the documentation generators make of a values
    /// file, so neither is looked up; every finding is seen.
    pub(super) fn for_fixing(config: &Config, project: &Project, relative: &Path) -> Surroundings {
        let kind = FileKind::of(relative);
        Surroundings {
            kind,
            chart: None,
            values: None,
            cap: false,
            embeddable: embeddable(config, project, relative, kind),
            fixable_only: true,
        }
    }
}

/// Whether a file is one Helm hands a chart's templates through `.Files`: below a
/// folder with a `Chart.yaml` (the nearest, up to the configuration's folder), and
/// neither under `templates/`, a values file nor the chart's own metadata (a
/// `files/x.yaml.tpl` rendered with `tpl` counts: its bytes end up in a ConfigMap
/// too). Left out as well: what the chart's `.helmignore` keeps out of the package,
/// and the files chart tools read by name (helm-unittest's `tests/*_test.yaml`,
/// chart-testing's `ci/*-values.yaml`). Whether a template embeds the file only
/// rendering tells (`.Files.Glob` patterns, names built at render time), so every
/// other one counts.
fn embeddable(config: &Config, project: &Project, relative: &Path, kind: FileKind) -> bool {
    const METADATA: [&str; 4] = [
        "Chart.yaml",
        "Chart.lock",
        "requirements.yaml",
        "requirements.lock",
    ];
    if kind.is_values()
        || crate::paths::in_templates_folder(relative)
        || relative
            .file_name()
            .is_some_and(|name| METADATA.iter().any(|metadata| name == *metadata))
    {
        return false;
    }
    let Some(chart) = relative.ancestors().skip(1).find(|folder| {
        std::fs::symlink_metadata(config.root.join(folder).join("Chart.yaml"))
            .is_ok_and(|metadata| metadata.file_type().is_file())
    }) else {
        return false;
    };
    let inside = relative.strip_prefix(chart).unwrap_or(relative);
    !read_by_chart_tools(inside) && !helm_ignores(&config.root.join(chart), inside, project)
}

/// Whether a chart tool reads the file at `inside` (a path in the chart) by its
/// name: a helm-unittest suite or a chart-testing values file.
fn read_by_chart_tools(inside: &Path) -> bool {
    let mut parts = inside.iter().filter_map(|part| part.to_str());
    let (Some(folder), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let stem = name
        .strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"));
    match (folder, stem) {
        ("tests", Some(stem)) => stem.ends_with("_test"),
        ("ci", Some(stem)) => stem.ends_with("-values"),
        _ => false,
    }
}

/// Whether the `.helmignore` of the chart in `chart` keeps the file at `inside` out
/// of the package (and so out of `.Files`), read as gitignore patterns, once per
/// chart and run.
fn helm_ignores(chart: &Path, inside: &Path, project: &Project) -> bool {
    let path = chart.join(".helmignore");
    let read = || ignore_file(chart, ".helmignore");
    project.ignore_file(&path, read).is_some_and(|patterns| {
        patterns
            .matched_path_or_any_parents(chart.join(inside), false)
            .is_ignore()
    })
}

/// The ignore file `name` of `folder`, read as gitignore patterns relative to the
/// folder (a bad pattern skipped, as git skips it); `None` when there is none, or it
/// is no regular file or larger than any ignore file needs.
fn ignore_file(folder: &Path, name: &str) -> Option<ignore::gitignore::Gitignore> {
    /// No ignore file needs more; a bigger one is not read.
    const MAX_IGNORE_BYTES: usize = 64 * 1024;
    let bytes = crate::source::read_regular(&folder.join(name), MAX_IGNORE_BYTES).ok()?;
    let mut builder = ignore::gitignore::GitignoreBuilder::new(folder);
    for line in String::from_utf8_lossy(&bytes).lines() {
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
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
            project,
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
pub(super) fn helm_docs_ignores(chart: &Path, top: &Path, project: &Project) -> bool {
    for folder in chart.ancestors() {
        let path = folder.join(".helmdocsignore");
        let found = project.ignore_file(&path, || ignore_file(folder, ".helmdocsignore"));
        if let Some(patterns) = found {
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
        if folder == top || !folder.starts_with(top) {
            break;
        }
    }
    false
}
