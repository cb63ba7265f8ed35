//! `tether check`: every file read once, the rules run on it, findings sorted.
//!
//! A parse tree is built only for the files where a rule asks for one (a required
//! key, a comment that may be detached, a values file with annotations): the other
//! rules read the comment scanner's output, which equals tree-sitter's on valid YAML.
//! [`Mode::Full`] builds every tree; a corpus test holds both modes to the same
//! findings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::PoisonError;

use rayon::prelude::*;

use crate::analysis::charts::Chart;
use crate::diagnostic::{Diagnostic, Severity};
use crate::excerpt::Excerpt;
use crate::linter::cache::{Cache, ChartNotes, FreshChart};
use crate::linter::changes::Changes;
use crate::linter::file::{Mode, Outcome, check_file};
use crate::linter::groups;
use crate::linter::project::Resolved;
use crate::linter::resolve::Resolver;
use crate::linter::surroundings::Surroundings;
use crate::linter::walk::{self, FileToCheck};
use crate::rules::RuleId;
use crate::settings::config::Config;
use std::sync::Arc;

/// Everything a check found. [`CheckReport::render`] prints it in the formats of
/// `tether check`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CheckReport {
    /// Files checked (read or not).
    pub files: usize,
    /// Sorted by path, position, rule.
    pub diagnostics: Vec<Diagnostic>,
    /// The lines of every file with a finding that its findings show.
    /// Shared, so a renderer's copy of the report (`render` names configurations
    /// from where paths are shown) copies the findings, never the texts.
    pub(crate) sources: Arc<BTreeMap<PathBuf, Excerpt>>,
    /// Inputs that do not exist, files that could not be read: tether could not do
    /// its whole job.
    pub failures: Vec<String>,
    /// Files whose findings came from the cache.
    pub cached: usize,
    /// Things the user should know that are neither findings nor failures (why the
    /// cache was not used).
    pub notes: Vec<String>,
    /// The folder finding paths are relative to: the configuration's, or the folder
    /// above every configuration used.
    pub root: PathBuf,
    /// Files named on the command line that their configuration excludes, counted
    /// by the setting that left them out (`` `exclude` in tether.toml ``,
    /// `` `default-exclude` ``).
    pub excluded: std::collections::BTreeMap<String, usize>,
    /// Charts whose values the value rules could not analyse whole (a dependency
    /// not on disk, `.Values` used whole), and why.
    pub partial_charts: Vec<PartialChart>,
    /// Charts whose templates use `.Values` whole (`toYaml .Values`, a checksum of
    /// it): every value counts as read there, which the run says once per chart.
    pub read_whole: Vec<PartialChart>,
    /// The configuration files findings may name, absolute, longest first.
    pub(crate) configurations: Vec<String>,
}

/// A chart the value rules analysed in part, and why: the rules then stay quiet
/// about what they cannot know, and the run says so once.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PartialChart {
    /// The chart's folder, relative to [`CheckReport::root`].
    pub chart: PathBuf,
    /// One sentence each.
    pub reasons: Vec<String>,
}

impl CheckReport {
    /// A report of a check that could not start, `message` saying why: what
    /// `tether check --format json` prints then, so machines read every outcome.
    pub fn failed(message: impl Into<String>) -> CheckReport {
        CheckReport {
            failures: vec![message.into()],
            ..CheckReport::default()
        }
    }

    /// A finding's path for machines (GitHub annotations, SARIF): relative to
    /// `base` (the repository's top level), whatever folder the configuration is in.
    pub fn path_from(&self, diagnostic: &Diagnostic, base: &Path) -> String {
        let absolute = self.root.join(&diagnostic.path);
        let relative = absolute.strip_prefix(base).unwrap_or(&absolute);
        crate::paths::slashed(relative)
    }

    /// How many findings have this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == severity)
            .count()
    }

    /// The failures that are not also a `read-error` finding (an unreadable file or
    /// folder is both: a finding on its path, and a failure that sets the exit
    /// code): what the machine formats and the closing line add to the findings.
    pub fn failures_beyond_findings(&self) -> Vec<&String> {
        let read_errors: crate::collections::HashSet<String> = self
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.rule == RuleId::ReadError)
            .filter_map(|diagnostic| {
                let message = diagnostic
                    .message
                    .strip_prefix("cannot read this file: ")
                    .or_else(|| diagnostic.message.strip_prefix("cannot read this folder: "))?;
                Some(format!("{}: {message}", diagnostic.path.display()))
            })
            .collect();
        self.failures
            .iter()
            .filter(|failure| !read_errors.contains(*failure))
            .collect()
    }
}

impl From<Config> for ConfigSource {
    fn from(config: Config) -> Self {
        ConfigSource::One(config)
    }
}

impl From<&Config> for ConfigSource {
    fn from(config: &Config) -> Self {
        ConfigSource::One(config.clone())
    }
}

/// How the files of a check find their configuration.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ConfigSource {
    /// This configuration for every file (`tether check --config`).
    One(Config),
    /// Each file's nearest `tether.toml`, in its folder or above, as `tether check`
    /// does without `--config`; `fallback` for the files that have none. `select`
    /// narrows every configuration to these rules (`--select`).
    Nearest {
        /// The configuration of files with no `tether.toml` above them.
        fallback: Config,
        /// Rule names; empty for all.
        select: Vec<String>,
        /// Rule names turned off in every configuration (`--ignore`).
        ignore: Vec<String>,
    },
}

/// How a check runs.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Parse every file, not only those a rule needs a tree for (slower; the findings
    /// are the same).
    pub full: bool,
    /// Read and write the content-hash cache in `.tether_cache/` beside each
    /// `tether.toml`.
    pub cache: bool,
    /// Only what changed since a git revision.
    pub changed_since: Option<ChangedSince>,
}

impl CheckOptions {
    /// Sets [`CheckOptions::full`].
    pub fn full(mut self, full: bool) -> Self {
        self.full = full;
        self
    }

    /// Sets [`CheckOptions::cache`].
    pub fn cache(mut self, cache: bool) -> Self {
        self.cache = cache;
        self
    }

    /// Sets [`CheckOptions::changed_since`].
    pub fn changed_since(mut self, changed: ChangedSince) -> Self {
        self.changed_since = Some(changed);
        self
    }
}

/// `--changed-since REV` and `--changed-lines`: the files added, modified, renamed or
/// copied since the merge base of `revision` and HEAD, untracked files included.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChangedSince {
    /// A folder of the repository.
    pub repository: PathBuf,
    /// What to compare with: a branch, tag or commit.
    pub revision: String,
    /// Keep only findings that touch a changed line.
    pub lines_only: bool,
}

impl ChangedSince {
    /// The files changed since `revision` in the repository of the folder `repository`.
    pub fn new(repository: impl Into<PathBuf>, revision: impl Into<String>) -> Self {
        ChangedSince {
            repository: repository.into(),
            revision: revision.into(),
            lines_only: false,
        }
    }

    /// Sets [`ChangedSince::lines_only`].
    pub fn lines_only(mut self, lines_only: bool) -> Self {
        self.lines_only = lines_only;
        self
    }
}

/// Checks the files under `paths` (files, or folders walked as `tether check` walks
/// them) as `tether check` does: each with the configuration `configs` chooses (one
/// [`Config`] for all, or each file's nearest `tether.toml`), with the cache and
/// limits `options` sets. Only what keeps the check from starting is an error (an
/// unknown rule in `select`, git failing to list changes); a file that cannot be read
/// is one of the [`CheckReport::failures`], so one bad file never stops a run.
///
/// ```
/// use helm_tether::{check_paths, CheckOptions, Config, ConfigSource};
/// # fn main() -> Result<(), helm_tether::Error> {
/// let config = Config::discover("examples/kubevirt")?;
/// let report = check_paths(&config, &["examples/kubevirt"], &CheckOptions::default())?;
/// assert!(report.files > 0 && report.failures.is_empty());
///
/// let configs = ConfigSource::Nearest {
///     fallback: Config::default_for(".".into()),
///     select: vec!["required-comment".into()],
///     ignore: Vec::new(),
/// };
/// let report = check_paths(configs, &["examples"], &CheckOptions::default().full(true))?;
/// assert!(report.diagnostics.iter().all(|d| d.rule == "required-comment"));
/// # Ok(())
/// # }
/// ```
pub fn check_paths<P: AsRef<Path>>(
    configs: impl Into<ConfigSource>,
    paths: &[P],
    options: &CheckOptions,
) -> Result<CheckReport, crate::error::Error> {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let mut resolver = configs.into().resolver(walk::covered(&inputs))?;
    let changes = match &options.changed_since {
        Some(since) => Some(
            Changes::since(&since.repository, &since.revision)
                .map_err(crate::error::Error::from)?,
        ),
        None => None,
    };
    let changed = changes
        .as_ref()
        .zip(options.changed_since.as_ref())
        .map(|(changes, since)| Changed {
            changes,
            lines_only: since.lines_only,
        });
    let mode = if options.full { Mode::Full } else { Mode::Lazy };
    let report = check_resolved(&mut resolver, &inputs, mode, options.cache, changed);
    // The run's chart index is freed on a thread of its own: a caller has its
    // report at once (the command line prints it and exits, which ends the thread).
    let _ = std::thread::Builder::new()
        .name("tether-free".into())
        .spawn(move || drop(resolver));
    Ok(report)
}

/// Which changes a run is limited to (`--changed-since`, `--changed-lines`).
#[derive(Debug, Clone, Copy)]
pub struct Changed<'a> {
    pub changes: &'a Changes,
    /// Keep only the findings on changed lines.
    pub lines_only: bool,
}

/// Checks the files under `inputs`, each with the configuration `resolver` chooses
/// for it (the nearest `tether.toml`, or one for all), limited to what changed when
/// `changed` says so.
pub fn check_resolved(
    resolver: &mut Resolver,
    inputs: &[PathBuf],
    mode: Mode,
    use_cache: bool,
    changed: Option<Changed>,
) -> CheckReport {
    let walk::Walked {
        mut files,
        root,
        bad_inputs,
        unreadable,
        excluded,
    } = walk::files(resolver, inputs);
    resolver.forget_folders();
    if let Some(changed) = changed {
        files.retain(|file| changed.changes.contains(&file.absolute));
    }
    // One cache per configuration, beside its tether.toml.
    let (configs, config_index) = configurations_of(&files);
    let caches: Vec<Option<Cache>> = configs
        .iter()
        .map(|resolved| {
            use_cache.then(|| Cache::load(&resolved.config, &resolved.project, mode.name()))
        })
        .collect();
    let lines = changed
        .filter(|changed| changed.lines_only)
        .map(|changed| changed.changes);
    // One chart tree at a time (two, on two threads), its charts let go once its
    // files are checked; a tree other trees read as a dependency after them. Each
    // tree's outcomes go into the report as it ends, so a run holds the findings,
    // not every file's outcome.
    let keep_fresh = !changed.is_some_and(|changed| changed.lines_only);
    let taking = std::sync::Mutex::new(Taking {
        report: CheckReport {
            files: files.len(),
            excluded,
            root: root.clone(),
            failures: bad_inputs,
            ..CheckReport::default()
        },
        unreadable: Vec::new(),
        // Findings kept for changed lines only are not the file's findings.
        fresh: caches
            .iter()
            .map(|cache| (cache.is_some() && keep_fresh).then(Vec::new))
            .collect(),
        fresh_charts: caches
            .iter()
            .map(|cache| (cache.is_some() && keep_fresh).then(Vec::new))
            .collect(),
    });
    // What the cache of the `index`th file's configuration kept of its chart, by
    // the chart's fingerprint (`None`: no cache is read or written).
    let kept_notes = |index: usize, chart: &Chart| {
        let cache = caches[config_index[index]].as_ref()?;
        let hash = chart.content_fingerprint();
        Some((
            hash,
            cache.chart(chart_folder(&chart.root, &files[index]), hash),
        ))
    };
    groups::Plan::of(groups::chart_groups(&files), &files).run(|group| {
        let checked = check_group(group, &files, &root, &kept_notes, |index, surroundings| {
            let cache = caches[config_index[index]].as_ref();
            check_file(&files[index], surroundings, mode, cache, lines)
        });
        let mut taking = taking.lock().unwrap_or_else(PoisonError::into_inner);
        for (index, outcome) in checked.outcomes {
            taking.take(outcome, index, &files[index], config_index[index]);
        }
        taking.take_charts(checked.partial, &files, &config_index);
    });
    let Taking {
        mut report,
        fresh,
        fresh_charts,
        unreadable: mut unreadable_files,
    } = taking.into_inner().unwrap_or_else(PoisonError::into_inner);
    // In the order of the files, then the folders, whichever tree ended first.
    unreadable_files.sort_by_key(|(index, _)| *index);
    for (index, message) in unreadable_files {
        report.take_unreadable(files[index].display().to_path_buf(), message, false);
    }
    for (path, message) in unreadable {
        report.take_unreadable(path, message, true);
    }
    report.partial_charts.sort_by(|a, b| a.chart.cmp(&b.chart));
    report.read_whole.sort_by(|a, b| a.chart.cmp(&b.chart));
    report.keep_configurations(&configs);
    report
        .diagnostics
        .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    report.notes = run_notes(&configs, caches, (fresh, fresh_charts));
    report
}

/// What the cache of a file's configuration kept of a chart, given the file's
/// index: the chart's fingerprint and the notes kept for it (`None`: no cache).
type KeptNotes<'a> = dyn Fn(usize, &Chart) -> Option<(u64, Option<ChartNotes>)> + Sync + 'a;

/// One chart tree checked: each file's outcome, by index, and what the run says
/// of its charts.
struct Checked {
    outcomes: Vec<(usize, Outcome)>,
    partial: Partial,
}

/// Checks the files of one chart tree with `check`, then lets go of its charts.
fn check_group(
    group: &groups::Group,
    files: &[FileToCheck],
    root: &Path,
    kept_notes: &KeptNotes<'_>,
    check: impl Fn(usize, Surroundings) -> Outcome + Sync,
) -> Checked {
    // What each file's findings depend on besides its bytes (its chart, what the
    // documentation generators make of it), looked up once and in parallel: finding
    // a file's chart looks for `Chart.yaml` on disk, and reads the chart on first use.
    let surroundings: Vec<Surroundings> = group
        .files
        .par_iter()
        .map(|&index| {
            let file = &files[index];
            Surroundings::of(&file.config, &file.project, file.relative())
        })
        .collect();
    let partial = partial_charts(&group.files, &surroundings, root, kept_notes);
    let outcomes = group
        .files
        .par_iter()
        .zip(surroundings)
        .map(|(&index, surroundings)| (index, check(index, surroundings)))
        .collect();
    group.release(files);
    Checked { outcomes, partial }
}

/// A file's fresh findings, for its configuration's cache: its path, its key and
/// its findings.
type Stored = (PathBuf, u64, Vec<Diagnostic>);

/// The configurations of `files`, each once, and the index of each file's.
fn configurations_of(files: &[FileToCheck]) -> (Vec<Resolved>, Vec<usize>) {
    let mut configs: Vec<Resolved> = Vec::new();
    let config_index = files
        .iter()
        .map(|file| {
            configs
                .iter()
                .position(|resolved| Arc::ptr_eq(&resolved.config, &file.config))
                .unwrap_or_else(|| {
                    configs.push(Resolved {
                        config: file.config.clone(),
                        project: file.project.clone(),
                    });
                    configs.len() - 1
                })
        })
        .collect();
    (configs, config_index)
}

/// A chart's notes this run made for a cache: the index of a file of it, its
/// folder, its fingerprint and the notes.
type FreshNotes = (usize, PathBuf, u64, ChartNotes);

/// The charts read in part, those whose values all count as read, and the notes
/// this run made of a chart for a cache.
type Partial = (Vec<PartialChart>, Vec<PartialChart>, Vec<FreshNotes>);

/// The charts one group's files (`indexes`, each with its `surroundings`) belong
/// to, each analysed once and in parallel before any of the files is checked (the
/// index every rule that needs a whole chart reads, never written by a check):
/// those tether could not read whole, with why, and those whose every value counts
/// as read, by folder. A chart whose notes the cache kept under its fingerprint is
/// not analysed here.
fn partial_charts(
    indexes: &[usize],
    surroundings: &[Surroundings],
    root: &Path,
    kept_notes: &KeptNotes<'_>,
) -> Partial {
    let mut seen = crate::collections::HashSet::default();
    let charts: Vec<(usize, &Arc<Chart>)> = indexes
        .iter()
        .zip(surroundings)
        .filter_map(|(&index, surroundings)| Some((index, &surroundings.chart.as_ref()?.0)))
        .filter(|(_, chart)| seen.insert(chart.root.as_path()))
        .collect();
    let entry = |chart: &Chart, reasons: Vec<String>| {
        (!reasons.is_empty()).then(|| PartialChart {
            chart: crate::paths::relative_to(&chart.root, root),
            reasons,
        })
    };
    let found: Vec<(
        Option<PartialChart>,
        Option<PartialChart>,
        Option<FreshNotes>,
    )> = charts
        .par_iter()
        .map(|&(index, chart)| {
            let (notes, fresh) = match kept_notes(index, chart) {
                Some((_, Some(notes))) => (notes, None),
                kept => {
                    let partial = chart.partial();
                    let whole = match partial.is_empty() {
                        true => chart.reads_everything().into_iter().collect(),
                        false => Vec::new(),
                    };
                    let notes = ChartNotes { partial, whole };
                    let fresh =
                        kept.map(|(hash, _)| (index, chart.root.clone(), hash, notes.clone()));
                    (notes, fresh)
                }
            };
            (
                entry(chart, notes.partial),
                entry(chart, notes.whole),
                fresh,
            )
        })
        .collect();
    let mut partial = Vec::new();
    let mut whole = Vec::new();
    let mut fresh = Vec::new();
    for (one_partial, one_whole, one_fresh) in found {
        partial.extend(one_partial);
        whole.extend(one_whole);
        fresh.extend(one_fresh);
    }
    partial.sort_by(|a: &PartialChart, b: &PartialChart| a.chart.cmp(&b.chart));
    whole.sort_by(|a: &PartialChart, b: &PartialChart| a.chart.cmp(&b.chart));
    (partial, whole, fresh)
}

impl CheckReport {
    /// Takes one file's outcome into the report; its fresh findings go to `fresh`
    /// (its configuration's cache) when given.
    /// Keeps the configuration files the findings may name (`[[require]]`'s
    /// `…/tether.toml:8 requires it`), absolute, longest first so that no path is
    /// replaced inside a longer one: [`CheckReport::render`] shows them as each
    /// format shows files. Findings keep the absolute path (the cache, the editor).
    fn keep_configurations(&mut self, configs: &[Resolved]) {
        let mut written: Vec<String> = configs
            .iter()
            .flat_map(|resolved| resolved.config.require.iter())
            .map(|require| require.file.clone())
            .collect();
        written.sort_unstable();
        written.dedup();
        written.sort_by_key(|file| std::cmp::Reverse(file.len()));
        self.configurations = written;
    }

    /// A file or folder that could not be read: a `read-error` finding on it, and
    /// a failure that sets the exit code.
    fn take_unreadable(&mut self, path: PathBuf, message: String, folder: bool) {
        let what = if folder { "folder" } else { "file" };
        self.failures.push(format!("{}: {message}", path.display()));
        self.diagnostics.push(Diagnostic {
            rule: RuleId::ReadError,
            severity: Severity::Error,
            path,
            range: 0..0,
            message: format!("cannot read this {what}: {message}"),
            help: Some("check its permissions, or exclude it in tether.toml".into()),
            labels: Vec::new(),
            fix: None,
        });
    }
}

/// The report a run fills as its chart trees end, and each configuration's fresh
/// findings for its cache (`None`: no cache is written).
struct Taking {
    report: CheckReport,
    fresh: Vec<Option<Vec<Stored>>>,
    /// Each configuration's charts this run analysed, for its cache.
    fresh_charts: Vec<Option<Vec<FreshChart>>>,
    /// The files that could not be read, by index, with why: taken last, in the
    /// files' order.
    unreadable: Vec<(usize, String)>,
}

impl Taking {
    /// Takes what one tree's check says of its charts; the notes it made go to
    /// the cache of the configuration of the file they were made for.
    fn take_charts(&mut self, partial: Partial, files: &[FileToCheck], config_index: &[usize]) {
        let (partial_charts, read_whole, fresh) = partial;
        self.report.partial_charts.extend(partial_charts);
        self.report.read_whole.extend(read_whole);
        for (index, root, hash, notes) in fresh {
            if let Some(Some(charts)) = self.fresh_charts.get_mut(config_index[index]) {
                let folder = chart_folder(&root, &files[index]).to_path_buf();
                charts.push((folder, hash, notes));
            }
        }
    }

    /// Takes the outcome of `file`, the run's `index`th, whose configuration is the
    /// run's `config`th.
    fn take(&mut self, outcome: Outcome, index: usize, file: &FileToCheck, config: usize) {
        let report = &mut self.report;
        match outcome {
            Outcome::Checked {
                excerpt,
                diagnostics,
                hash,
                from_cache,
            } => {
                if from_cache {
                    report.cached += 1;
                } else if let Some(Some(fresh)) = self.fresh.get_mut(config) {
                    let stored = diagnostics
                        .iter()
                        .cloned()
                        .map(|mut diagnostic| {
                            diagnostic.path = file.relative().to_path_buf();
                            diagnostic
                        })
                        .collect();
                    fresh.push((file.relative().to_path_buf(), hash, stored));
                }
                if let Some(excerpt) = excerpt {
                    Arc::make_mut(&mut report.sources)
                        .insert(file.display().to_path_buf(), excerpt);
                }
                report.diagnostics.extend(diagnostics);
            }
            Outcome::Unreadable { message } => self.unreadable.push((index, message)),
        }
    }
}

/// The folder `root` of a chart, relative to the configuration of `file` (as the
/// cache keeps it), or whole when it lies outside it.
fn chart_folder<'a>(root: &'a Path, file: &FileToCheck) -> &'a Path {
    root.strip_prefix(&file.config.root).unwrap_or(root)
}

/// Each configuration's fresh findings and chart notes, for its cache.
type Fresh = (Vec<Option<Vec<Stored>>>, Vec<Option<Vec<FreshChart>>>);

/// What the run says beside its findings: a nested configuration that drops the
/// entries of the one above it (on every run: a note said once is missed by the
/// next person), why a cache was not used (after
/// storing each configuration's fresh findings), and a limit that turned a rule off
/// (never taken for "no findings").
fn run_notes(
    configs: &[Resolved],
    caches: Vec<Option<Cache>>,
    (fresh, fresh_charts): Fresh,
) -> Vec<String> {
    let shadowing: Vec<String> = configs
        .iter()
        .filter_map(|resolved| resolved.config.shadowing_note())
        .collect();
    let mut cache_notes = Vec::new();
    for ((cache, fresh), charts) in caches.into_iter().zip(fresh).zip(fresh_charts) {
        if let Some(cache) = cache {
            cache_notes.extend(cache.disabled.clone());
            let charts = charts.unwrap_or_default();
            cache_notes.extend(cache.store(fresh.unwrap_or_default(), charts));
        }
    }
    cache_notes.dedup();
    let mut pin_errors: Vec<String> = configs
        .iter()
        .filter(|resolved| resolved.config.may_run(RuleId::StaleVersionReference))
        .flat_map(|resolved| {
            let pins = resolved.project.pins.iter();
            pins.flat_map(|pins| pins.problems.clone())
        })
        .collect();
    pin_errors.sort();
    pin_errors.dedup();
    shadowing
        .into_iter()
        .chain(
            cache_notes
                .into_iter()
                .map(|note| format!("cache not used: {note}")),
        )
        .chain(pin_errors)
        .collect()
}

impl ConfigSource {
    /// What chooses each file's configuration, `--select` applied, for a run that
    /// covers the folder `covered` ([`walk::covered`] of its inputs).
    pub(crate) fn resolver(
        self,
        covered: Option<PathBuf>,
    ) -> Result<Resolver, crate::error::Error> {
        Ok(match self {
            ConfigSource::One(config) => Resolver::one(config),
            ConfigSource::Nearest {
                mut fallback,
                select,
                ignore,
            } => {
                if !select.is_empty() {
                    fallback.select(&select)?;
                }
                fallback.ignore(&ignore)?;
                Resolver::discover(fallback, select, ignore, covered)
            }
        })
    }
}

/// The configurations `tether check` finds for the files under `folder` (the
/// nearest `tether.toml` of every folder that holds a file, and those they extend),
/// each once, sorted by path; and why each broken one cannot be read. This is
/// where `tether idem` finds the `[[idem]]` entries of a monorepo, from the
/// listing of its repository (`listed`) when it has one.
#[cfg_attr(not(unix), allow(dead_code))] // `tether idem` is a Unix command
pub(crate) fn configurations_under(
    folder: impl AsRef<Path>,
    listed: Option<&crate::git::Listed>,
) -> (Vec<Config>, Vec<String>) {
    let folder = crate::paths::absolute(folder.as_ref());
    let mut resolver = Resolver::discover(
        Config::default_for(folder.clone()),
        Vec::new(),
        Vec::new(),
        Some(folder.clone()),
    );
    let _ = walk::files_listed(&mut resolver, std::slice::from_ref(&folder), listed);
    let mut configs: Vec<Config> = Vec::new();
    let mut broken: Vec<String> = Vec::new();
    for found in resolver.found() {
        match found {
            Ok(resolved) => {
                let Some(file) = &resolved.config.file else {
                    continue;
                };
                if !configs
                    .iter()
                    .any(|known| known.file.as_ref() == Some(file))
                {
                    configs.push((*resolved.config).clone());
                }
            }
            Err(error) => {
                let error = error.to_string();
                if !broken.contains(&error) {
                    broken.push(error);
                }
            }
        }
    }
    configs.sort_by(|a, b| a.file.cmp(&b.file));
    broken.sort();
    (configs, broken)
}
