//! One file's check: read once (bounded, binary files said), scanned, parsed where
//! a rule needs a tree, the rules run, suppressions applied and findings capped.

use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Severity};
use crate::excerpt::Excerpt;
use crate::linter::cache::Cache;
use crate::linter::changes::Changes;
use crate::linter::project::Project;
use crate::linter::suppress::Suppressions;
use crate::linter::surroundings::Surroundings;
use crate::linter::walk::FileToCheck;
use crate::rules::rule::{Fixable, Verdict};
use crate::rules::{CommentInfo, FileContext, Reporter, RuleId};
use crate::settings::config::Config;
use crate::source::{MAX_FILE_BYTES, Problem, SourceFile, binary_offset};
use crate::template::lex::Lexed;
use crate::template::{self, lex::ActionKind};
use crate::yaml::model::{CommentStyle, FileModel};
use crate::yaml::pipeline::{self, model_front};
use crate::yaml::{parse, scan};

/// Whether to build parse trees only where a rule needs one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Lazy,
    Full,
}

impl Mode {
    /// `lazy` or `full`, as the cache names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Lazy => "lazy",
            Mode::Full => "full",
        }
    }
}

/// `changed_lines`: keep only the findings on lines that changed (a finding counts when
/// any of its ranges, labels included, touches one: a required comment whose comment
/// line changed though its key did not).
pub(super) fn check_file(
    file: &FileToCheck,
    surroundings: Surroundings,
    mode: Mode,
    cache: Option<&Cache>,
    changed_lines: Option<&Changes>,
) -> Outcome {
    let key_of = |bytes_hash: u64| file_key(bytes_hash, &surroundings, cache.is_some());
    // A file its chart read and the cache holds needs no more than the hash of its
    // bytes: the chart's templates are read, not lexed, and a file without findings
    // leaves its text to go with the chart.
    let peeked = cache.and_then(|cache| {
        let (chart, role) = surroundings.chart.as_ref()?;
        let template = matches!(role, crate::analysis::charts::Role::Template);
        let bytes_hash = chart.text_hash(&file.absolute, template)?;
        let diagnostics = cache.get(file.relative(), key_of(bytes_hash))?;
        Some((bytes_hash, diagnostics))
    });
    if let Some((bytes_hash, diagnostics)) = &peeked {
        if diagnostics.is_empty() {
            return Outcome::Checked {
                excerpt: None,
                diagnostics: Vec::new(),
                hash: key_of(*bytes_hash),
                from_cache: true,
            };
        }
    }
    let (bytes, bytes_hash, lexed) = match file_bytes(file, &surroundings, peeked.is_none()) {
        Ok(read) => read,
        Err(error) => {
            return Outcome::Unreadable {
                message: error.to_string(),
            };
        }
    };
    let hash = key_of(bytes_hash);
    // Findings are made and cached with paths relative to the configuration, and
    // shown relative to the run's root.
    let shown = |mut diagnostics: Vec<Diagnostic>, source: &SourceFile| {
        if let Some(changes) = changed_lines {
            diagnostics.retain(|diagnostic| {
                std::iter::once(&diagnostic.range)
                    .chain(diagnostic.labels.iter().map(|label| &label.range))
                    .any(|range| {
                        let lines = source.line_of(range.start)..source.line_of(range.end) + 1;
                        changes.touches(&file.absolute, lines)
                    })
            });
        }
        for diagnostic in &mut diagnostics {
            diagnostic.path = file.display().to_path_buf();
        }
        diagnostics
    };
    let cached = match peeked {
        Some((peeked, diagnostics)) if peeked == bytes_hash => Some(diagnostics),
        _ => cache.and_then(|cache| cache.get(file.relative(), hash)),
    };
    if let Some(diagnostics) = cached {
        let (excerpt, diagnostics) = match diagnostics.is_empty() {
            true => (None, diagnostics),
            false => {
                let source = SourceFile::from_bytes(file.display().to_path_buf(), bytes).0;
                let diagnostics = shown(diagnostics, &source);
                (Some(Excerpt::of(&source, &diagnostics)), diagnostics)
            }
        };
        return Outcome::Checked {
            excerpt,
            diagnostics,
            hash,
            from_cache: true,
        };
    }
    let (mut source, diagnostics) = check_source(
        &file.config,
        &file.project,
        file.relative(),
        Source {
            lexed,
            ..Source::new(bytes, Some(bytes_hash))
        },
        mode,
        surroundings,
    );
    source.path = file.display().to_path_buf();
    let diagnostics = shown(diagnostics, &source);
    Outcome::Checked {
        excerpt: (!diagnostics.is_empty()).then(|| Excerpt::of(&source, &diagnostics)),
        diagnostics,
        hash,
        from_cache: false,
    }
}

/// Checks one file's bytes; `relative` is its path relative to the configuration's
/// folder, which globs match and findings show.
// The entry point of the tests and fuzz targets (`helm_tether::internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn check_bytes(
    config: &Config,
    relative: &Path,
    bytes: Vec<u8>,
    mode: Mode,
) -> (SourceFile, Vec<Diagnostic>) {
    let project = Project::unattached(config);
    let surroundings = Surroundings::of(config, &project, relative);
    check_source(
        config,
        &project,
        relative,
        Source::new(bytes, None),
        mode,
        surroundings,
    )
}

/// The cache key of a file whose bytes hash to `bytes_hash`. A file's findings
/// depend on its bytes; about its chart's values, on the chart's other files and
/// the charts its dependencies reach; for a values file, on whether it is a
/// chart's and whether helm-docs reads it. Without a cache (`cached` false) the
/// chart's part is not found.
fn file_key(bytes_hash: u64, surroundings: &Surroundings, cached: bool) -> u64 {
    let chart = surroundings
        .chart
        .as_ref()
        .filter(|_| cached)
        .map(|(chart, _)| chart.content_fingerprint());
    crate::cache_key::CacheKey::new("file")
        .part("bytes", bytes_hash)
        .optional("chart", chart)
        .part("embeddable", u64::from(surroundings.embeddable))
        .optional(
            "values-file",
            surroundings
                .values
                .map(|facts| u64::from(facts.in_chart) + u64::from(facts.helm_docs_reads) * 2),
        )
        .finish()
}

/// The text of `file` and the hash of its bytes, when its chart read it (a
/// template, `values.yaml`, `Chart.yaml`, a file a template renders through
/// `.Files`): the check takes it from there, with its lexing when the chart's scan
/// lexed it.
fn handed_text(
    file: &FileToCheck,
    surroundings: &Surroundings,
    checked: bool,
) -> Option<(String, u64, Option<Lexed>)> {
    match &surroundings.chart {
        // A file to be checked: its chart is scanned and its values parsed first
        // (a library's templates are read by the scans of the charts that use it,
        // maybe later, on another thread). A cached result's file: a copy, the
        // text left for an analysis that may still need it.
        Some((chart, _)) if checked => chart.take_checked_text(&file.absolute),
        Some((chart, _)) => chart.copy_text(&file.absolute).map(without_lexing),
        // The nearest chart folder above it, if the run read that chart; a
        // `Chart.yaml` no chart of the run read (a chart without templates or
        // values, which nothing reads for its values) from the repository's
        // listing, which read it for the pins.
        None => file
            .absolute
            .ancestors()
            .skip(1)
            .find_map(|folder| file.project.charts.read_already(folder))
            .and_then(|chart| chart.take_text(&file.absolute))
            .or_else(|| {
                (file.absolute.file_name()? == "Chart.yaml")
                    .then(|| file.project.charts.listed_chart_yaml(&file.absolute, true))
                    .flatten()
                    .map(|listed| without_lexing((listed.text, listed.hash)))
            }),
    }
}

/// The bytes of `file` with their hash, and their lexing when made: handed by its
/// chart ([`handed_text`]), else read.
fn file_bytes(
    file: &FileToCheck,
    surroundings: &Surroundings,
    checked: bool,
) -> std::io::Result<(Vec<u8>, u64, Option<Lexed>)> {
    match handed_text(file, surroundings, checked) {
        Some((text, hash, lexed)) => Ok((text.into_bytes(), hash, lexed)),
        None => {
            let bytes = crate::source::read_regular(&file.absolute, MAX_FILE_BYTES)?;
            let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
            Ok((bytes, hash, None))
        }
    }
}

/// A handed text no lexing came with.
fn without_lexing((text, hash): (String, u64)) -> (String, u64, Option<Lexed>) {
    (text, hash, None)
}

/// What `--fix` applies in one round: the findings of the rules that fix what they
/// report, every one (none held back by the per-file limit), as [`check_bytes`]
/// finds them; the other rules do not run, and the chart is not read.
pub(crate) fn check_fixable(
    config: &Config,
    project: &Project,
    relative: &Path,
    bytes: Vec<u8>,
) -> (SourceFile, Vec<Diagnostic>) {
    check_source(
        config,
        project,
        relative,
        Source::new(bytes, None),
        Mode::Lazy,
        Surroundings::for_fixing(config, project, relative),
    )
}

/// Checks an editor's unsaved text of the file `relative` as `check` would check the
/// file (`tether server`): `project`'s charts read the other unsaved texts. Its
/// comment model is taken from `shared` when given.
pub(crate) fn check_buffer(
    config: &Config,
    project: &Project,
    relative: &Path,
    bytes: Vec<u8>,
    shared: Option<&dyn SharedModel>,
) -> (SourceFile, Vec<Diagnostic>) {
    let surroundings = Surroundings::of(config, project, relative);
    let mut source = Source::new(bytes, None);
    source.shared = shared;
    check_source(config, project, relative, source, Mode::Lazy, surroundings)
}

/// Where else a file's comment model may be made: the server models a values file
/// once for its check and for the requests that quote it meanwhile (a hover on a
/// `.Values` read), whichever comes first, the other waiting for it.
pub(crate) trait SharedModel {
    /// The model of the file's text: the one made or being made, or `make`'s.
    fn model(&self, make: &dyn Fn() -> FileModel) -> Arc<FileModel>;
}

/// The bytes of a file to check, with their hash when the caller has it, their
/// lexing when its chart's scan made it, and where their model may be shared.
pub(super) struct Source<'a> {
    bytes: Vec<u8>,
    hash: Option<u64>,
    lexed: Option<Lexed>,
    shared: Option<&'a dyn SharedModel>,
}

impl Source<'_> {
    pub(super) fn new(bytes: Vec<u8>, hash: Option<u64>) -> Source<'static> {
        Source {
            bytes,
            hash,
            lexed: None,
            shared: None,
        }
    }
}

/// Checks one file's bytes (with their hash, when the caller has it) in the
/// surroundings looked up for it.
pub(super) fn check_source(
    config: &Config,
    project: &Project,
    relative: &Path,
    Source {
        bytes,
        hash: bytes_hash,
        lexed,
        shared,
    }: Source,
    mode: Mode,
    surroundings: Surroundings,
) -> (SourceFile, Vec<Diagnostic>) {
    let (surroundings_cap, embeddable) = (surroundings.cap, surroundings.embeddable);
    let fixable_only = surroundings.fixable_only;
    let settings = config.settings_for(relative);
    if let Some(offset) = binary_offset(&bytes) {
        return binary_file(relative, offset, &settings);
    }
    let (source, mut problems) = SourceFile::from_bytes(relative.to_path_buf(), bytes);
    // The chart's scan lexed the bytes as read; reading them as text changed none
    // (no problem), or they are lexed again.
    let lexed = lexed.filter(|_| problems.is_empty());
    // `helm template` output (`examples/*/rendered/`) is generated: like a vendored
    // chart, left out unless `default-exclude = false`.
    // A template of another format a chart embeds (`files/nginx.conf.tpl`) is no
    // YAML: left out the same way.
    if config.leaves_out_generated()
        && (is_rendered_output(relative, &source.text)
            || is_embedded_non_yaml(relative, &source.text))
    {
        return (source, Vec::new());
    }
    problems.extend(too_large(&source));
    let pipeline::Reading { is_template, front } =
        pipeline::read(&source, surroundings.kind, lexed, &mut problems);
    let masked_text = front.masked_text(&source);
    let line_count = source.document_line_starts().len();
    let directive_lines = front.masked.as_ref().map_or_else(
        || vec![false; line_count + 1],
        |m| m.directive_lines.clone(),
    );
    let (block_scalar_lines, scanned) = scan_file(&source, masked_text, &front);
    let template_comments = template_comments(&source, &front.actions, &directive_lines);
    let scanned_comments = comment_infos(&source, scanned.iter(), &template_comments);

    let mut enabled = enabled_rules(&settings);
    if fixable_only {
        enabled.retain(|(registered, _)| registered.rule.fixable() == Fixable::Always);
    }
    let chart = surroundings.chart.filter(|_| rules_on(&settings));
    let mut context = FileContext {
        path: relative,
        source: &source,
        is_template,
        masked: masked_text,
        directive_lines: &directive_lines,
        actions: &front.actions,
        comments: &scanned_comments,
        model: None,
        block_scalar_lines: &block_scalar_lines,
        problems: &problems,
        requires: &config.require,
        settings: &settings,
        pins: project.pins.as_deref(),
        chart: chart.as_ref().map(|(chart, role)| (chart.as_ref(), *role)),
        values_file: surroundings.values,
        value_reads: std::cell::OnceCell::new(),
    };
    if let Some(found) = scanned_reads(&chart, &config.root.join(relative), &source, bytes_hash) {
        let _ = context.value_reads.set(found);
    }
    // A shared model is made for the requests that quote the file, whether or not
    // a rule needs it (the findings are the same either way: `Mode::Full`).
    let wants_model = source.text.len() <= MAX_FILE_BYTES
        && (mode == Mode::Full
            || shared.is_some()
            || enabled
                .iter()
                .any(|(registered, _)| registered.rule.needs_model(&context)));
    let make = || model_front(&source, is_template, &front, &config.directives);
    let model: Option<Arc<FileModel>> = wants_model.then(|| match shared {
        Some(shared) => shared.model(&make),
        None => Arc::new(make()),
    });
    // The file's comments are the scanner's in every mode, so a tree changes no
    // comment finding: tree-sitter takes a `#` line that opens a block scalar's
    // content for a comment, where YAML (and the scanner) read it as text, and a
    // document modelled from one branch of its if/else has lost the other's.
    context.model = model.as_deref();
    let (mut diagnostics, dropped) = lint(&context, enabled, surroundings_cap);
    drop(context);
    super::applicability::settle(&mut diagnostics, &source.text, &front.actions, embeddable);
    if surroundings_cap {
        cap_findings(&source, &mut diagnostics, dropped);
    }
    (source, diagnostics)
}

/// What the template at `path` reads, when its chart's scan read it already: taken
/// from there when the scan read these very bytes (hashing to `bytes_hash`, when
/// the caller has it).
fn scanned_reads(
    chart: &Option<(
        Arc<crate::analysis::charts::Chart>,
        crate::analysis::charts::Role,
    )>,
    path: &Path,
    source: &SourceFile,
    bytes_hash: Option<u64>,
) -> Option<Arc<crate::template::reads::Reads>> {
    let Some((chart, crate::analysis::charts::Role::Template)) = chart else {
        return None;
    };
    let hash = bytes_hash.unwrap_or_else(|| xxhash_rust::xxh3::xxh3_64(source.text.as_bytes()));
    chart.template_reads(path, &source.text, hash)
}

/// That `source` is larger than tether reads, if it is: it is checked in part.
fn too_large(source: &SourceFile) -> Option<Problem> {
    (source.text.len() > MAX_FILE_BYTES).then(|| {
        Problem::new(
            0,
            format!(
                "file is larger than the {} MiB that tether reads; exclude it in tether.toml",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        )
    })
}

/// The rules `settings` turn on, with the severity of their findings.
pub(super) fn enabled_rules(
    settings: &crate::rules::RuleSettings,
) -> Vec<(&'static crate::rules::Registered, Severity)> {
    settings
        .levels
        .iter()
        .filter_map(|(rule, level)| {
            level
                .severity()
                .map(|severity| (rule.registered(), severity))
        })
        .collect()
}

/// The comments of a file as the scanner finds them, document by document, and
/// which lines are inside a block scalar.
pub(super) fn scan_file(
    source: &SourceFile,
    masked_text: &str,
    front: &pipeline::Front,
) -> (Vec<bool>, Vec<crate::yaml::syntax::RawComment>) {
    let line_starts = source.document_line_starts();
    let mut block_scalar_lines = vec![false; line_starts.len() + 1];
    let mut scanned = Vec::new();
    if source.text.len() <= MAX_FILE_BYTES {
        for segment in
            parse::split_documents(masked_text, line_starts, source.bom_len, &front.defines)
        {
            let found = scan::scan(
                &source.text,
                masked_text,
                line_starts,
                segment.lines,
                source.bom_len,
            );
            for line in found.block_scalar_lines {
                block_scalar_lines[line] = true;
            }
            scanned.extend(found.comments);
        }
    }
    (block_scalar_lines, scanned)
}

/// Runs the `enabled` rules on one file, then the suppression pass: the findings
/// that count (each rule's first [`MAX_FINDINGS_PER_FILE`] when `cap`), and how many
/// bounded reporters dropped, with whether any of those was an error.
pub(super) fn lint(
    context: &FileContext,
    enabled: Vec<(&crate::rules::Registered, Severity)>,
    cap: bool,
) -> (Vec<Diagnostic>, (usize, bool)) {
    let (source, relative, settings) = (context.source, context.path, context.settings);
    let suppressions = Suppressions::read(source, context.comments);
    // yamllint's own suppression comments, for the rules that mirror its rules.
    let yamllint_directives = crate::settings::yamllint::Directives::read(
        source.line_text(0),
        context
            .comments
            .iter()
            .filter(|comment| comment.style == CommentStyle::Yaml)
            .map(|comment| {
                (
                    comment.line,
                    &source.text[comment.span.clone()],
                    comment.own_line,
                )
            }),
    );
    // A finding counts unless a yamllint directive or a tether suppression covers it.
    let counts = |diagnostic: &Diagnostic| {
        let line = source.line_of(diagnostic.range.start);
        if !yamllint_directives.is_empty() && yamllint_directives.suppresses(diagnostic.rule, line)
        {
            return Verdict::Suppressed(None);
        }
        match suppressions.covering(line, diagnostic.rule) {
            Some(entry) => Verdict::Suppressed(Some(entry)),
            None => Verdict::Counts,
        }
    };
    // Which suppression entries covered a finding: the suppression pass after the
    // rules reports the others.
    let mut used = vec![false; suppressions.len()];
    let mut diagnostics = Vec::new();
    // Findings bounded reporters dropped: how many, and whether any was an error.
    let mut dropped = (0, false);
    for (registered, severity) in enabled {
        let id = registered.id;
        // A report keeps each rule's first findings only, so a hostile file's
        // findings take bounded memory; the fixer sees them all.
        let mut reporter = if cap {
            Reporter::bounded(id, severity, relative, MAX_FINDINGS_PER_FILE, &counts)
        } else {
            Reporter::new(id, severity, relative)
        };
        registered.rule.check(context, &mut reporter);
        let (mut found, dropped_here, mut used_here) = reporter.into_bounded();
        dropped.0 += dropped_here;
        dropped.1 |= dropped_here > 0 && severity == Severity::Error;
        found.retain(|diagnostic| counts(diagnostic).keep(&mut used_here));
        for entry in used_here {
            used[entry] = true;
        }
        diagnostics.extend(found);
    }
    // The suppression pass: what no finding used.
    if let Some(severity) = settings.level(RuleId::UnusedSuppression).severity() {
        diagnostics.extend(suppressions.unused(&used, settings, severity, relative));
    }
    (diagnostics, dropped)
}

/// Whether a rule that reads the whole chart is on in `settings`.
pub(super) fn rules_on(settings: &crate::rules::RuleSettings) -> bool {
    settings
        .levels
        .iter()
        .any(|(rule, level)| rule.registered().rule.needs_chart() && level.severity().is_some())
}

/// At most this many findings are reported for one file; the rest are counted in one
/// closing finding, so one hostile file cannot flood a report (in every format).
pub const MAX_FINDINGS_PER_FILE: usize = 100;

pub(super) fn cap_findings(
    source: &SourceFile,
    diagnostics: &mut Vec<Diagnostic>,
    (dropped_before, error_dropped): (usize, bool),
) {
    if diagnostics.len() <= MAX_FINDINGS_PER_FILE && dropped_before == 0 {
        return;
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let dropped = diagnostics.split_off(MAX_FINDINGS_PER_FILE.min(diagnostics.len()));
    let severity = if error_dropped
        || dropped
            .iter()
            .any(|diagnostic| diagnostic.severity == Severity::Error)
    {
        Severity::Error
    } else {
        Severity::Warning
    };
    let dropped_count = dropped.len() + dropped_before;
    let end = source.text.len();
    diagnostics.push(Diagnostic {
        rule: RuleId::FindingLimit,
        severity,
        path: source.path.clone(),
        range: end..end,
        message: format!(
            "and {dropped_count} more findings in this file, not shown: tether reports at most {MAX_FINDINGS_PER_FILE} a file"
        ),
        help: Some("fix the findings above and run again, or exclude the file in tether.toml".into()),
        labels: Vec::new(),
        fix: None,
    });
}

/// A binary file gets one finding without a snippet, and no rule reads it.
/// Whether a file is `helm template` output: not a template itself, and its first
/// line after blank lines and `---` is the `# Source: CHART/templates/…` header Helm
/// writes above every manifest it renders.
fn is_rendered_output(relative: &Path, text: &str) -> bool {
    if crate::yaml::pipeline::is_template_path(relative) {
        return false;
    }
    text.lines()
        .map(str::trim_end)
        .find(|line| !line.is_empty() && *line != "---")
        .and_then(|line| line.strip_prefix("# Source: "))
        .is_some_and(|source| source.contains("/templates/") || source.contains("/charts/"))
}

/// Whether a file is a template of another format that a chart embeds (`tpl
/// (.Files.Get "files/nginx.conf.tpl") .`): a `*.tpl` outside `templates/` whose
/// name says another format (`nginx.conf.tpl`, `config.php.tpl`), or, with no
/// format in its name, whose first line that is neither blank, a comment nor a lone
/// action is no YAML (`server {`, `<?php`).
fn is_embedded_non_yaml(relative: &Path, text: &str) -> bool {
    let Some(stem) = relative
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_suffix(".tpl"))
    else {
        return false;
    };
    if crate::paths::in_templates_folder(relative) {
        return false;
    }
    if let Some((_, format)) = stem.rsplit_once('.') {
        return !matches!(format, "yaml" | "yml" | "json");
    }
    let lone_action = |line: &str| line.starts_with("{{") && line.ends_with("}}");
    let first = text
        .lines()
        .map(str::trim)
        .find(|line| !(line.is_empty() || line.starts_with('#') || lone_action(line)));
    first.is_some_and(|line| {
        let yaml = line.starts_with('-')
            || line.starts_with('[')
            || line.starts_with('{')
            || line.starts_with('"')
            || line.starts_with('\'')
            || line.ends_with(':')
            || line.contains(": ");
        !yaml
    })
}

pub(super) fn binary_file(
    relative: &Path,
    offset: usize,
    settings: &crate::rules::RuleSettings,
) -> (SourceFile, Vec<Diagnostic>) {
    let source = SourceFile::from_text(relative.to_path_buf(), "");
    let Some(severity) = settings.level(RuleId::ParseProblem).severity() else {
        return (source, Vec::new());
    };
    let diagnostic = Diagnostic {
        rule: RuleId::ParseProblem,
        severity,
        path: relative.to_path_buf(),
        range: 0..0,
        message: format!("binary file (a NUL byte at offset {offset}); it was not checked"),
        help: Some("exclude it in tether.toml, or rename it if it is not YAML".into()),
        labels: Vec::new(),
        fix: None,
    };
    (source, vec![diagnostic])
}

/// The template comments `{{/* */}}` of a file, as comment infos.
pub(super) fn template_comments(
    source: &SourceFile,
    actions: &[template::lex::Action],
    directive_lines: &[bool],
) -> Vec<CommentInfo> {
    actions
        .iter()
        .filter(|action| action.kind == ActionKind::Comment)
        .map(|action| {
            let line = source.line_of(action.span.start);
            CommentInfo {
                style: CommentStyle::Template,
                span: action.span.clone(),
                line,
                column: action.span.start - source.line_start(line),
                own_line: directive_lines.get(line).copied().unwrap_or(false),
            }
        })
        .collect()
}

/// `#` comments and template comments, merged in file order.
pub(super) fn comment_infos<'a>(
    source: &SourceFile,
    raw: impl Iterator<Item = &'a crate::yaml::syntax::RawComment>,
    template_comments: &[CommentInfo],
) -> Vec<CommentInfo> {
    let mut comments: Vec<CommentInfo> = raw
        .map(|comment| CommentInfo {
            style: CommentStyle::Yaml,
            span: comment.span.clone(),
            line: comment.line,
            column: comment
                .span
                .start
                .saturating_sub(source.content_start(comment.line)),
            own_line: comment.own_line,
        })
        .chain(template_comments.iter().cloned())
        .collect();
    comments.sort_by_key(|comment| comment.span.start);
    comments
}

pub(super) enum Outcome {
    Checked {
        /// The lines the findings show, when there are findings: a run holds those
        /// lines, not the text of the whole tree.
        excerpt: Option<Excerpt>,
        diagnostics: Vec<Diagnostic>,
        hash: u64,
        from_cache: bool,
    },
    /// The file could not be read: why.
    Unreadable { message: String },
}
