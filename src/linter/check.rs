//! `tether check`: every file read once, the rules run on it, findings sorted.
//!
//! A parse tree is built only for the files where a rule asks for one (a required
//! key, a comment that may be detached, a values file with annotations): the other
//! rules read the comment scanner's output, which equals tree-sitter's on valid YAML.
//! [`Mode::Full`] builds every tree; a corpus test holds both modes to the same
//! findings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Severity};
use crate::linter::cache::Cache;
use crate::linter::changes::Changes;
use crate::linter::suppress::Suppressions;
use crate::linter::walk::{self, FileToCheck};
use crate::paths::FileKind;
use crate::rules::rule::Verdict;
use crate::rules::{CommentInfo, FileContext, RULES, Reporter, RuleId};
use crate::settings::config::Config;
use crate::settings::project::{Project, Resolved};
use crate::settings::resolve::Resolver;
use crate::source::{MAX_FILE_BYTES, Problem, SourceFile, binary_offset};
use crate::template::{self, lex::ActionKind};
use crate::yaml::model::{CommentStyle, FileModel};
use crate::yaml::pipeline::{self, model_front};
use crate::yaml::{parse, scan};
use std::sync::Arc;

/// Whether to build parse trees only where a rule needs one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Lazy,
    Full,
}

impl Mode {
    /// `lazy` or `full`, as the cache names it.
    fn name(self) -> &'static str {
        match self {
            Mode::Lazy => "lazy",
            Mode::Full => "full",
        }
    }
}

/// Everything a check found. [`CheckReport::render`] prints it in the formats of
/// `tether check`.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct CheckReport {
    /// Files checked (read or not).
    pub files: usize,
    /// Sorted by path, position, rule.
    pub diagnostics: Vec<Diagnostic>,
    /// The text of every file with a finding, for rendering snippets.
    pub(crate) sources: BTreeMap<PathBuf, SourceFile>,
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
    /// Files named on the command line that their configuration excludes.
    pub excluded: usize,
    /// Charts whose values the value rules could not analyse whole (a dependency
    /// not on disk, `.Values` used whole), and why.
    pub partial_charts: Vec<PartialChart>,
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
        let read_errors: std::collections::HashSet<String> = self
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
/// them), every one with `config`: no cache, trees only where a rule needs one.
///
/// ```
/// let config = helm_tether::Config::discover("examples/kubevirt").unwrap();
/// let report = helm_tether::check_paths(&config, &["examples/kubevirt"]);
/// assert!(report.files > 0);
/// assert!(report.failures.is_empty());
/// ```
pub fn check_paths<P: AsRef<Path>>(config: &Config, paths: &[P]) -> CheckReport {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    check_resolved(
        &mut Resolver::one(config.clone()),
        &inputs,
        Mode::Lazy,
        false,
        None,
    )
}

/// Checks the files under `paths` as `tether check` does: each with the
/// configuration `configs` chooses, with the cache and limits `options` sets. Only
/// what keeps the check from starting is an error (an unknown rule in `select`, git
/// failing to list changes); a file that cannot be read is one of the
/// [`CheckReport::failures`].
///
/// ```
/// use helm_tether::{check_with, CheckOptions, Config, ConfigSource};
/// let configs = ConfigSource::Nearest {
///     fallback: Config::default_for(".".into()),
///     select: vec!["required-comment".into()],
///     ignore: Vec::new(),
/// };
/// let report = check_with(configs, &["examples"], &CheckOptions::default().full(true)).unwrap();
/// assert!(report.diagnostics.iter().all(|d| d.rule == "required-comment"));
/// ```
pub fn check_with<P: AsRef<Path>>(
    configs: ConfigSource,
    paths: &[P],
    options: &CheckOptions,
) -> Result<CheckReport, crate::error::Error> {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let mut resolver = configs.resolver()?;
    let changes = match &options.changed_since {
        Some(since) => Some(
            Changes::since(&since.repository, &since.revision)
                .map_err(crate::error::Error::Changes)?,
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
    // What each file's findings depend on besides its bytes (its chart, what the
    // documentation generators make of it), looked up once and in parallel: finding
    // a file's chart looks for `Chart.yaml` on disk, and reads the chart on first use.
    let surroundings: Vec<Surroundings> = files
        .par_iter()
        .map(|file| Surroundings::of(&file.config, &file.project, &file.relative))
        .collect();
    let partial_charts = partial_charts(&surroundings, &root);
    let lines = changed
        .filter(|changed| changed.lines_only)
        .map(|changed| changed.changes);
    let outcomes: Vec<Outcome> = files
        .par_iter()
        .zip(&config_index)
        .zip(surroundings)
        .map(|((file, &index), surroundings)| {
            check_file(file, surroundings, mode, caches[index].as_ref(), lines)
        })
        .collect();
    let mut report = CheckReport {
        files: files.len(),
        excluded,
        partial_charts,
        root,
        failures: bad_inputs,
        ..CheckReport::default()
    };
    let unreadable = unreadable.into_iter().map(|(path, message)| {
        let outcome = Outcome::Unreadable {
            path,
            message,
            folder: true,
        };
        (usize::MAX, outcome)
    });
    let mut fresh: Vec<Vec<Stored>> = vec![Vec::new(); configs.len()];
    let keep_fresh = !changed.is_some_and(|changed| changed.lines_only);
    for (index, outcome) in config_index.iter().copied().zip(outcomes).chain(unreadable) {
        // Findings kept for changed lines only are not the file's findings.
        let fresh = fresh.get_mut(index).filter(|_| keep_fresh);
        report.take(outcome, fresh);
    }
    report
        .diagnostics
        .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    report.notes = run_notes(&configs, caches, fresh);
    report
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

/// The charts the files belong to, each analysed once and in parallel before any
/// file is checked (the index every rule that needs a whole chart reads, never
/// written by a check): those tether could not read whole, with why, by folder.
fn partial_charts(surroundings: &[Surroundings], root: &Path) -> Vec<PartialChart> {
    let mut seen = std::collections::HashSet::new();
    let charts: Vec<&Arc<crate::analysis::charts::Chart>> = surroundings
        .iter()
        .filter_map(|surroundings| surroundings.chart.as_ref())
        .map(|(chart, _)| chart)
        .filter(|chart| seen.insert(chart.root.as_path()))
        .collect();
    let mut partial: Vec<PartialChart> = charts
        .par_iter()
        .filter_map(|chart| {
            let reasons = chart.partial();
            (!reasons.is_empty()).then(|| PartialChart {
                chart: crate::paths::relative_to(&chart.root, root),
                reasons,
            })
        })
        .collect();
    partial.sort_by(|a, b| a.chart.cmp(&b.chart));
    partial
}

impl CheckReport {
    /// Takes one file's outcome into the report; its fresh findings go to `fresh`
    /// (its configuration's cache) when given.
    fn take(&mut self, outcome: Outcome, fresh: Option<&mut Vec<Stored>>) {
        match outcome {
            Outcome::Checked {
                relative,
                source,
                diagnostics,
                hash,
                from_cache,
            } => {
                if from_cache {
                    self.cached += 1;
                } else if let Some(fresh) = fresh {
                    let stored = diagnostics
                        .iter()
                        .cloned()
                        .map(|mut diagnostic| {
                            diagnostic.path = relative.clone();
                            diagnostic
                        })
                        .collect();
                    fresh.push((relative, hash, stored));
                }
                if let Some(source) = source {
                    self.sources.insert(source.path.clone(), source);
                }
                self.diagnostics.extend(diagnostics);
            }
            Outcome::Unreadable {
                path,
                message,
                folder,
            } => {
                let what = if folder { "folder" } else { "file" };
                self.diagnostics.push(Diagnostic {
                    rule: RuleId::ReadError,
                    severity: Severity::Error,
                    path: path.clone(),
                    range: 0..0,
                    message: format!("cannot read this {what}: {message}"),
                    help: Some("check its permissions, or exclude it in tether.toml".into()),
                    labels: Vec::new(),
                    fix: None,
                });
                self.failures.push(format!("{}: {message}", path.display()));
            }
        }
    }
}

/// What the run says beside its findings: a nested configuration that drops the
/// entries of the one above it (on its first run), why a cache was not used (after
/// storing each configuration's fresh findings), and a limit that turned a rule off
/// (never taken for "no findings").
fn run_notes(
    configs: &[Resolved],
    caches: Vec<Option<Cache>>,
    fresh: Vec<Vec<Stored>>,
) -> Vec<String> {
    let shadowing: Vec<String> = configs
        .iter()
        .zip(&caches)
        .filter(|(_, cache)| cache.as_ref().is_none_or(Cache::is_new))
        .filter_map(|(resolved, _)| resolved.config.shadowing_note())
        .collect();
    let mut cache_notes = Vec::new();
    for (cache, fresh) in caches.into_iter().zip(fresh) {
        if let Some(cache) = cache {
            cache_notes.extend(cache.disabled.clone());
            cache_notes.extend(cache.store(fresh));
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

enum Outcome {
    Checked {
        /// Relative to the file's configuration: the cache's key.
        relative: PathBuf,
        /// Kept only when there are findings to render, so a run holds the text of
        /// the files with findings, not of the whole tree.
        source: Option<SourceFile>,
        diagnostics: Vec<Diagnostic>,
        hash: u64,
        from_cache: bool,
    },
    Unreadable {
        path: PathBuf,
        message: String,
        /// A folder that could not be listed, rather than a file.
        folder: bool,
    },
}

impl ConfigSource {
    /// What chooses each file's configuration, `--select` applied.
    pub(crate) fn resolver(self) -> Result<Resolver, crate::error::Error> {
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
                Resolver::discover(fallback, select, ignore)
            }
        })
    }
}

/// The configurations `tether check` finds for the files under `folder` (the
/// nearest `tether.toml` of every folder that holds a file, and those they extend),
/// each once, sorted by path; and why each broken one cannot be read. This is
/// where `tether idem` finds the `[[idem]]` entries of a monorepo.
///
/// ```
/// let (configs, broken) = helm_tether::configurations_under("examples/kubevirt");
/// assert!(broken.is_empty());
/// assert!(configs.iter().any(|config| !config.idem_targets().is_empty()));
/// ```
pub fn configurations_under(folder: impl AsRef<Path>) -> (Vec<Config>, Vec<String>) {
    let folder = crate::paths::absolute(folder.as_ref());
    let mut resolver =
        Resolver::discover(Config::default_for(folder.clone()), Vec::new(), Vec::new());
    let _ = walk::files(&mut resolver, std::slice::from_ref(&folder));
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
                if !broken.contains(error) {
                    broken.push(error.clone());
                }
            }
        }
    }
    configs.sort_by(|a, b| a.file.cmp(&b.file));
    broken.sort();
    (configs, broken)
}

/// [`crate::comment_map`] with a configuration's own tool directives (`directives =
/// […]` in `tether.toml`), which document no key.
///
/// ```
/// let config = helm_tether::Config::discover("examples/kubevirt").unwrap();
/// let map = helm_tether::comment_map_with(&config, "examples/kubevirt/templates/kubevirt-cr.yaml").unwrap();
/// assert!(map.to_string().contains("evictionStrategy"));
/// ```
pub fn comment_map_with(
    config: &Config,
    path: impl AsRef<Path>,
) -> Result<crate::yaml::model::FileModel, crate::error::Error> {
    crate::yaml::pipeline::comment_map_with_directives(path.as_ref(), &config.directives)
}

/// The comment maps of `paths` (files, or folders whose covered files are mapped),
/// each file modelled with the directives of its own configuration, found as
/// `tether check` finds it: the order of the paths never changes a model.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct CommentMaps {
    /// Each file as the caller named it (a folder's files below the folder as
    /// named), with its model or why it could not be read; sorted by folder walk.
    pub maps: Vec<(
        PathBuf,
        Result<crate::yaml::model::FileModel, crate::error::Error>,
    )>,
    /// Paths that could not be walked and configurations that could not be read,
    /// one sentence each.
    pub errors: Vec<String>,
}

/// Models every file under `paths` with its own configuration from `configs`.
///
/// ```
/// let fallback = helm_tether::Config::default_for(std::env::current_dir().unwrap());
/// let maps = helm_tether::comment_maps(
///     helm_tether::ConfigSource::Nearest { fallback, select: Vec::new(), ignore: Vec::new() },
///     &["examples/kubevirt/templates/kubevirt-cr.yaml"],
/// ).unwrap();
/// assert!(maps.errors.is_empty());
/// assert!(maps.maps[0].1.as_ref().unwrap().to_string().contains("evictionStrategy"));
/// ```
pub fn comment_maps<P: AsRef<Path>>(
    configs: ConfigSource,
    paths: &[P],
) -> Result<CommentMaps, crate::error::Error> {
    use rayon::prelude::*;
    let mut resolver = configs.resolver()?;
    let mut errors = Vec::new();
    let mut named: Vec<(PathBuf, Arc<Config>)> = Vec::new();
    for path in paths.iter().map(AsRef::as_ref) {
        if !path.is_dir() {
            match resolver.config_for(&crate::paths::absolute(path)) {
                Ok(resolved) => named.push((path.to_path_buf(), resolved.config)),
                Err(message) => errors.push(message),
            }
            continue;
        }
        let walked = walk::files(&mut resolver, &[path.to_path_buf()]);
        errors.extend(walked.bad_inputs);
        errors.extend(walked.unreadable.into_iter().map(|(folder, message)| {
            format!("cannot read folder {}: {message}", folder.display())
        }));
        let base = crate::paths::absolute(path);
        let mut found: Vec<walk::FileToCheck> = walked.files;
        found.sort_by(|a, b| a.absolute.cmp(&b.absolute));
        named.extend(found.into_iter().map(|file| {
            let shown = path.join(file.absolute.strip_prefix(&base).unwrap_or(&file.absolute));
            (shown, file.config)
        }));
    }
    let maps = named
        .into_par_iter()
        .map(|(path, config)| {
            let model = comment_map_with(&config, &path);
            (path, model)
        })
        .collect();
    Ok(CommentMaps { maps, errors })
}

/// The effective rule settings of one file and where each came from, as
/// `tether check --show-settings FILE` prints them: the rule defaults, then the
/// yamllint configuration, `[rules]`, `[[overrides]]` and `--select`.
///
/// ```
/// let text = helm_tether::show_settings(
///     helm_tether::ConfigSource::One(helm_tether::Config::from_toml("[rules]\ncomment-indentation = \"off\"\n").unwrap()),
///     "examples/kubevirt/templates/kubevirt-cr.yaml",
/// ).unwrap();
/// assert!(text.contains("comment-indentation = off"), "{text}");
/// ```
pub fn show_settings(
    configs: ConfigSource,
    file: impl AsRef<Path>,
) -> Result<String, crate::error::Error> {
    let file = file.as_ref();
    let mut resolver = configs.resolver()?;
    let absolute = crate::paths::absolute(file);
    if std::fs::symlink_metadata(&absolute).is_err() {
        return Err(crate::error::Error::NotFound {
            path: file.to_path_buf(),
        });
    }
    let config = resolver
        .config_for(&absolute)
        .map_err(crate::error::Error::Configuration)?
        .config;
    let relative = crate::paths::relative_to(&absolute, &config.root);
    let mut trace = crate::settings::yamllint::Trace::default();
    let settings = config.settings_traced(&relative, Some(&mut trace));
    let mut out = format!("Settings of {}\n", file.display());
    out.push_str(&format!(
        "  tether.toml: {}\n",
        config
            .file
            .as_ref()
            .map_or("none (tether's defaults)".to_string(), |path| {
                match config.extends() {
                    Some(extended) => {
                        format!("{} (extends {})", path.display(), extended.display())
                    }
                    None => path.display().to_string(),
                }
            })
    ));
    out.push_str(&format!(
        "  yamllint:    {}\n",
        config.yamllint.as_ref().map_or(
            "none found (no `yamllint-config`, `.yamllint*`, or chart-testing `lint-conf`)"
                .to_string(),
            |yamllint| format!("{} ({})", yamllint.path.display(), yamllint.found)
        )
    ));
    if !config.includes(&relative) {
        out.push_str("  (the configuration's `include`/`exclude` leave this file out: `tether check` skips it)\n");
    }
    out.push('\n');
    for (rule, level) in &settings.levels {
        let head = format!("{rule} = {}", level.as_str());
        out.push_str(&format!(
            "{head:<36} {}\n",
            trace.origin(rule, "level").unwrap_or_default()
        ));
        for (r, setting, value, origin) in &trace.entries {
            if r == rule && setting != "level" {
                let line = format!("  {setting} = {value}");
                out.push_str(&format!("{line:<36} {origin}\n"));
            }
        }
    }
    Ok(out)
}

/// `changed_lines`: keep only the findings on lines that changed (a finding counts when
/// any of its ranges, labels included, touches one: a required comment whose comment
/// line changed though its key did not).
fn check_file(
    file: &FileToCheck,
    surroundings: Surroundings,
    mode: Mode,
    cache: Option<&Cache>,
    changed_lines: Option<&Changes>,
) -> Outcome {
    // A template's chart index read it: its text is taken from there.
    let handed = surroundings
        .chart
        .as_ref()
        .and_then(|(chart, _)| chart.take_text(&file.absolute));
    let read = match handed {
        Some((text, hash)) => Ok((text.into_bytes(), hash)),
        None => crate::source::read_regular(&file.absolute, MAX_FILE_BYTES).map(|bytes| {
            let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
            (bytes, hash)
        }),
    };
    let (bytes, bytes_hash) = match read {
        Ok(read) => read,
        Err(error) => {
            return Outcome::Unreadable {
                path: file.display.clone(),
                message: error.to_string(),
                folder: false,
            };
        }
    };
    // A file's findings depend on its bytes; about its chart's values, on the
    // chart's other files and the charts its dependencies reach; for a values file,
    // on whether it is a chart's and whether helm-docs reads it.
    let hash = crate::cache_key::CacheKey::new("file")
        .part("bytes", bytes_hash)
        .optional(
            "chart",
            surroundings
                .chart
                .as_ref()
                .map(|(chart, _)| chart.content_fingerprint()),
        )
        .optional(
            "values-file",
            surroundings
                .values
                .map(|facts| u64::from(facts.in_chart) + u64::from(facts.helm_docs_reads) * 2),
        )
        .finish();
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
            diagnostic.path = file.display.clone();
        }
        diagnostics
    };
    if let Some(diagnostics) = cache.and_then(|cache| cache.get(&file.relative, hash)) {
        let source = (!diagnostics.is_empty())
            .then(|| SourceFile::from_bytes(file.display.clone(), bytes).0);
        let diagnostics = match &source {
            Some(source) => shown(diagnostics, source),
            None => diagnostics,
        };
        return Outcome::Checked {
            relative: file.relative.clone(),
            source,
            diagnostics,
            hash,
            from_cache: true,
        };
    }
    let (mut source, diagnostics) = check_source(
        &file.config,
        &file.project,
        &file.relative,
        (bytes, Some(bytes_hash)),
        mode,
        surroundings,
    );
    source.path = file.display.clone();
    let diagnostics = shown(diagnostics, &source);
    Outcome::Checked {
        relative: file.relative.clone(),
        source: (!diagnostics.is_empty()).then_some(source),
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
        (bytes, None),
        mode,
        surroundings,
    )
}

/// [`check_bytes`] with every finding, none held back by the per-file limit: what
/// `--fix` applies in one round.
pub(crate) fn check_bytes_uncapped(
    config: &Config,
    project: &Project,
    relative: &Path,
    bytes: Vec<u8>,
    mode: Mode,
) -> (SourceFile, Vec<Diagnostic>) {
    let mut surroundings = Surroundings::of(config, project, relative);
    surroundings.cap = false;
    check_source(config, project, relative, (bytes, None), mode, surroundings)
}

/// Checks an editor's unsaved text of the file `relative` as `check` would check the
/// file (`tether server`): `project`'s charts read the other unsaved texts.
pub(crate) fn check_buffer(
    config: &Config,
    project: &Project,
    relative: &Path,
    bytes: Vec<u8>,
) -> (SourceFile, Vec<Diagnostic>) {
    let surroundings = Surroundings::of(config, project, relative);
    check_source(
        config,
        project,
        relative,
        (bytes, None),
        Mode::Lazy,
        surroundings,
    )
}

/// What a file's findings depend on besides its bytes, looked up once per file.
struct Surroundings {
    /// What it is to Helm, by its path.
    kind: FileKind,
    /// Its chart, when a rule that reads the whole chart may run on the file.
    chart: Option<(
        std::sync::Arc<crate::analysis::charts::Chart>,
        crate::analysis::charts::Role,
    )>,
    /// What the documentation generators make of it, if it is named like a values
    /// file.
    values: Option<crate::rules::ValuesFile>,
    /// Report at most [`MAX_FINDINGS_PER_FILE`] findings (a report); the fixer sees
    /// them all, so its rounds do not grow with the file.
    cap: bool,
}

impl Surroundings {
    fn of(config: &Config, project: &Project, relative: &Path) -> Surroundings {
        let kind = FileKind::of(relative);
        Surroundings {
            kind,
            chart: chart_of(config, project, relative, kind),
            values: values_file(config, project, relative, kind),
            cap: true,
        }
    }
}

/// Checks one file's bytes (with their hash, when the caller has it) in the
/// surroundings looked up for it.
fn check_source(
    config: &Config,
    project: &Project,
    relative: &Path,
    (bytes, bytes_hash): (Vec<u8>, Option<u64>),
    mode: Mode,
    surroundings: Surroundings,
) -> (SourceFile, Vec<Diagnostic>) {
    let surroundings_cap = surroundings.cap;
    let settings = config.settings_for(relative);
    if let Some(offset) = binary_offset(&bytes) {
        return binary_file(relative, offset, &settings);
    }
    let (source, mut problems) = SourceFile::from_bytes(relative.to_path_buf(), bytes);
    if source.text.len() > MAX_FILE_BYTES {
        problems.push(Problem::new(
            0,
            format!(
                "file is larger than the {} MiB that tether reads; exclude it in tether.toml",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        ));
    }
    let pipeline::Reading { is_template, front } =
        pipeline::read(&source, surroundings.kind, &mut problems);
    let masked_text = front.masked_text(&source);
    let line_count = source.document_line_starts().len();
    let directive_lines = front.masked.as_ref().map_or_else(
        || vec![false; line_count + 1],
        |m| m.directive_lines.clone(),
    );
    let (block_scalar_lines, scanned) = scan_file(&source, masked_text, &front);
    let template_comments = template_comments(&source, &front.actions, &directive_lines);
    let scanned_comments = comment_infos(&source, scanned.iter(), &template_comments);

    let enabled = enabled_rules(&settings);
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
    // The chart's index read this template already: its reads are taken from
    // there when the index read these very bytes.
    if let Some((chart, crate::analysis::charts::Role::Template)) = &chart {
        let hash = bytes_hash.unwrap_or_else(|| xxhash_rust::xxh3::xxh3_64(source.text.as_bytes()));
        if let Some(found) = chart.template_reads(&config.root.join(relative), hash) {
            let _ = context.value_reads.set(found);
        }
    }
    let wants_model = source.text.len() <= MAX_FILE_BYTES
        && (mode == Mode::Full
            || enabled
                .iter()
                .any(|(registered, _)| registered.rule.needs_model(&context)));
    let model: Option<FileModel> =
        wants_model.then(|| model_front(&source, is_template, &front, &config.directives));
    // The file's comments are the scanner's in every mode, so a tree changes no
    // comment finding: tree-sitter takes a `#` line that opens a block scalar's
    // content for a comment, where YAML (and the scanner) read it as text, and a
    // document modelled from one branch of its if/else has lost the other's.
    context.model = model.as_ref();
    let (mut diagnostics, dropped) = lint(&context, enabled, surroundings_cap);
    drop(context);
    if surroundings_cap {
        cap_findings(&source, &mut diagnostics, dropped);
    }
    (source, diagnostics)
}

/// The rules `settings` turn on, with the severity of their findings.
fn enabled_rules(
    settings: &crate::rules::RuleSettings,
) -> Vec<(&'static crate::rules::Registered, Severity)> {
    RULES
        .iter()
        .zip(&settings.levels)
        .filter_map(|(registered, (_, level))| {
            level.severity().map(|severity| (registered, severity))
        })
        .collect()
}

/// The comments of a file as the scanner finds them, document by document, and
/// which lines are inside a block scalar.
fn scan_file(
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
fn lint(
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
fn rules_on(settings: &crate::rules::RuleSettings) -> bool {
    RULES
        .iter()
        .zip(&settings.levels)
        .any(|(registered, (_, level))| registered.rule.needs_chart() && level.severity().is_some())
}

/// Whether a rule that reads the whole chart may run on some file of `config`.
fn chart_rules_may_run(config: &Config) -> bool {
    RULES
        .iter()
        .any(|registered| registered.rule.needs_chart() && config.may_run(registered.id))
}

/// The chart of a template or `values.yaml` when a rule that reads the whole chart
/// may run on some file of the configuration (the file's own settings decide later).
fn chart_of(
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
fn values_file(
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
fn helm_docs_ignores(chart: &Path, top: &Path) -> bool {
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

/// At most this many findings are reported for one file; the rest are counted in one
/// closing finding, so one hostile file cannot flood a report (in every format).
pub const MAX_FINDINGS_PER_FILE: usize = 100;

fn cap_findings(
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
fn binary_file(
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
fn template_comments(
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
fn comment_infos<'a>(
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
