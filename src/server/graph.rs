//! The values graph as the editor asks it: the `.Values` read or `include` under
//! the cursor, the key of `values.yaml` a read names (in the chart, a dependency,
//! or for a library, the charts that include it), the templates that read a key,
//! and where a named template is defined. Everything is read through the batch,
//! so open buffers count.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::world::Batch;
pub(crate) use super::world::Modelled;
use crate::analysis::charts::Chart;
use crate::template::reads::Read;
use crate::yaml::model::{FileModel, Key};

/// Where a read's key is, or is not.
pub(crate) enum Site {
    /// The key, in the values file it is in; `over` is the parent chart whose
    /// values set it, over the chart's own.
    Found {
        file: Arc<Modelled>,
        key: Key,
        over: Option<Arc<Chart>>,
    },
    /// Not in the chart's `values.yaml`: the file, and the key nearest to the
    /// missing one, if any.
    Missing {
        values: PathBuf,
        nearest: Option<String>,
    },
}

/// The model of the file at `path`, from its open buffer or the disk; modelled once
/// for as long as its text stays the same, and shared with the worker's check of
/// the file (a values file's, or one a request modelled before).
pub(crate) fn model_of(batch: &Batch, path: &Path) -> Option<Arc<Modelled>> {
    modelled(batch, path, false)
}

/// The newest model of the file at `path` for a request that quotes it, not
/// waiting for the worker's check to model its latest text
/// ([`Batch::latest_model`]).
pub(crate) fn latest_model_of(batch: &Batch, path: &Path) -> Option<Arc<Modelled>> {
    modelled(batch, path, true)
}

fn modelled(batch: &Batch, path: &Path, latest: bool) -> Option<Arc<Modelled>> {
    let file = batch.file(path).ok()?;
    let (relative, text, config) = (file.relative, file.text, file.config);
    let bytes = text.clone();
    let make = move || {
        crate::yaml::pipeline::model_as_checked(
            relative.clone(),
            bytes.as_bytes().to_vec(),
            &config.directives,
        )
        .0
    };
    Some(Arc::new(if latest {
        batch.latest_model(path, &text, Arc::new(make))
    } else {
        batch.model(path, &text, &make)
    }))
}

/// The segments of a key path in helm-unittest notation (`a.b["c.d"][0]`); items
/// of sequences are left out.
pub(crate) fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars().peekable();
    while let Some(character) = chars.next() {
        match character {
            '.' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            '[' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                let mut inside = String::new();
                for next in chars.by_ref() {
                    if next == ']' {
                        break;
                    }
                    inside.push(next);
                }
                if let Some(quoted) = inside
                    .strip_prefix('"')
                    .and_then(|rest| rest.strip_suffix('"'))
                {
                    out.push(quoted.to_string());
                }
            }
            _ => current.push(character),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The key whose line holds `offset`: the deepest one starting at or before it.
pub(crate) fn key_at(file: &Modelled, offset: usize) -> Option<&Key> {
    let index = super::documents::LineIndex::new(&file.text);
    let line = index.line_of(offset);
    let on_line: Vec<&Key> = file
        .model
        .keys()
        .map(|(_, key)| key)
        .filter(|key| key.line == line)
        .filter(|key| !key.path.ends_with(']') || key.path.ends_with("\"]"))
        .collect();
    on_line
        .iter()
        .rev()
        .find(|key| key.offset <= offset)
        .or(on_line.first())
        .copied()
}

/// The `.Values` read spelled at `offset` of a template's text, whose actions are
/// `actions` and whose action at `offset` spans `action`: the innermost read whose
/// span holds it, else the last read of its action that starts before it
/// (`(.Values.a).b` is spelled past the span of the read of `.Values.a`).
fn read_in(
    text: &str,
    actions: &[crate::template::lex::Action],
    action: &Range<usize>,
    offset: usize,
) -> Option<Read> {
    let found = crate::template::reads::reads(text, actions);
    let in_action: Vec<Read> = found
        .reads
        .into_iter()
        .filter(|read| action.start <= read.span.start && read.span.start <= offset)
        .collect();
    let holding = in_action
        .iter()
        .filter(|read| offset <= read.span.end)
        .min_by_key(|read| read.span.len())
        .cloned();
    holding.or_else(|| in_action.into_iter().max_by_key(|read| read.span.start))
}

/// What the cursor at `offset` of a template's text names.
pub(crate) enum Target {
    /// A `.Values` read.
    Read(Read),
    /// The named template an `include`, `template` or `block` calls.
    Include(String),
    /// A built-in object or field (`Chart.AppVersion`, `Release.Namespace`).
    Builtin(String),
    /// A function of Go's templates, Sprig or Helm.
    Function(&'static crate::template::functions::Function),
    /// A `$variable`, with every spelling of the template's variables (to find
    /// its declaration and its other uses).
    Variable {
        at: crate::template::scope::Use,
        all: Vec<crate::template::scope::Use>,
    },
}

/// What `offset` of a template's text names, the text lexed once: the named
/// template whose quoted name holds it; else a `$variable` spelled there; else a
/// built-in object; else the `.Values` read [`read_in`] finds; else the first
/// named template its action calls. (`{{ default .Values.name (include "x" .) }}` with the cursor on `x`
/// names the define, not the read before it.)
pub(crate) fn target_at(text: &str, offset: usize) -> Option<Target> {
    let (actions, _) = crate::template::lex::lex(text);
    let action = actions
        .iter()
        .find(|action| action.span.start <= offset && offset < action.span.end)?;
    let body = text.get(action.body.clone())?;
    let calls = calls_in(body, action.body.start);
    if let Some((_, name)) = calls
        .iter()
        .find(|(range, _)| range.start <= offset && offset <= range.end)
    {
        return Some(Target::Include(name.clone()));
    }
    if text[action.body.clone()].contains('$') {
        let all = crate::template::scope::uses(text, &actions);
        if let Some(at) = all
            .iter()
            .find(|used| used.span.start <= offset && offset <= used.span.end)
        {
            let at = at.clone();
            return Some(Target::Variable { at, all });
        }
    }
    // The word `include` of a call names what it calls, as its quoted name does.
    if let Some(function) = offset
        .checked_sub(action.body.start)
        .and_then(|at| function_in(body, at))
        .filter(|function| function.name != "include" || calls.is_empty())
    {
        return Some(Target::Function(function));
    }
    if let Some(builtin) = offset
        .checked_sub(action.body.start)
        .and_then(|at| super::builtins::builtin_in(body, at))
    {
        return Some(Target::Builtin(builtin));
    }
    if let Some(read) = read_in(text, &actions, &action.span, offset) {
        return Some(Target::Read(read));
    }
    calls
        .into_iter()
        .next()
        .map(|(_, name)| Target::Include(name))
}

/// The function whose name holds byte `at` of an action's `body`: a word that no
/// `.` or `$` starts, outside a string.
fn function_in(body: &str, at: usize) -> Option<&'static crate::template::functions::Function> {
    let word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let bytes = body.as_bytes();
    let at = at.min(body.len());
    let start = bytes[..at]
        .iter()
        .rposition(|byte| !word(*byte))
        .map_or(0, |found| found + 1);
    let end = bytes[at..]
        .iter()
        .position(|byte| !word(*byte))
        .map_or(body.len(), |found| at + found);
    if start == end || matches!(bytes.get(start.wrapping_sub(1)), Some(b'.' | b'$')) {
        return None;
    }
    if body[..start].bytes().filter(|byte| *byte == b'"').count() % 2 == 1 {
        return None;
    }
    crate::template::functions::lookup(&body[start..end])
}

/// The named templates the `include`, `template` and `block` calls (and the
/// `define`) of an action's `body` (starting at byte `start` of the text) name, in order, each with the span
/// of its name in the text.
fn calls_in(body: &str, body_start: usize) -> Vec<(Range<usize>, String)> {
    let mut names = Vec::new();
    for keyword in ["include", "template", "block", "define"] {
        let mut from = 0;
        while let Some(at) = body[from..].find(keyword) {
            let start = from + at + keyword.len();
            from = start;
            let rest = body[start..].trim_start();
            let Some(rest) = rest.strip_prefix('"') else {
                continue;
            };
            if let Some(end) = rest.find('"') {
                let name_start = body_start + (body.len() - rest.len());
                names.push((name_start..name_start + end, rest[..end].to_string()));
            }
        }
    }
    names.sort_by_key(|(range, _)| range.start);
    names
}

/// Where `path` is in the values of `chart`'s rendering, as Helm coalesces them:
/// a parent's values that override the chart's (`child.replicas`, `global.…`),
/// outermost first; the values of the dependency the first key names; its own
/// `values.yaml`; or for a library, the values of the open charts that depend on
/// it.
pub(crate) fn value_site(batch: &Batch, chart: &Arc<Chart>, path: &[String]) -> Option<Site> {
    for (parent, spelled) in chart.overriding_sources(path) {
        if let Some(Site::Found { file, key, .. }) = find_in(batch, &parent, &spelled) {
            let over = Some(parent);
            return Some(Site::Found { file, key, over });
        }
    }
    if let Some((first, rest)) = path.split_first() {
        if !rest.is_empty() {
            if let Some(dependency) = chart.dependency_keyed(first) {
                if let Some(found @ Site::Found { .. }) = find_in(batch, &dependency, rest) {
                    return Some(found);
                }
            }
        }
    }
    let own = find_in(batch, chart, path);
    if chart.library && !matches!(own, Some(Site::Found { .. })) {
        for includer in including_charts(batch, chart) {
            if let Some(found @ Site::Found { .. }) = find_in(batch, &includer, path) {
                return Some(found);
            }
        }
    }
    own
}

/// The open charts whose rendering reaches the library `chart`.
pub(crate) fn including_charts(batch: &Batch, chart: &Chart) -> Vec<Arc<Chart>> {
    let mut found: Vec<Arc<Chart>> = Vec::new();
    for path in batch.snapshot.documents.keys() {
        if let Some(other) = batch.chart_of(path) {
            if other.root != chart.root
                && other.depends_on(&chart.root)
                && !found.iter().any(|seen| seen.root == other.root)
            {
                found.push(other);
            }
        }
    }
    found.sort_by(|a, b| a.root.cmp(&b.root));
    found
}

fn find_in(batch: &Batch, chart: &Chart, path: &[String]) -> Option<Site> {
    let values = chart.root.join("values.yaml");
    let file = latest_model_of(batch, &values)?;
    match key_in(&file, path) {
        Some(key) => Some(Site::Found {
            file,
            key,
            over: None,
        }),
        None => {
            // A key only another values file of the chart sets (`values-prod.yaml`).
            for other in batch.snapshot.settings.other_values_files(&chart.root) {
                let Some(other) = model_of(batch, &other) else {
                    continue;
                };
                if let Some(key) = key_in(&other, path) {
                    return Some(Site::Found {
                        file: other,
                        key,
                        over: None,
                    });
                }
            }
            let nearest = nearest_key(&file.model, path);
            Some(Site::Missing { values, nearest })
        }
    }
}

/// The key of `file` at `path`.
fn key_in(file: &Modelled, path: &[String]) -> Option<Key> {
    file.model
        .keys()
        .map(|(_, key)| key)
        .find(|key| segments(&key.path) == path)
        .cloned()
}

/// The key of `model` nearest to `path`: among the keys beside the first missing
/// one, the most alike by name.
fn nearest_key(model: &FileModel, path: &[String]) -> Option<String> {
    let keys: Vec<Vec<String>> = model.keys().map(|(_, key)| segments(&key.path)).collect();
    // The deepest prefix of `path` that is there.
    let depth = (0..path.len())
        .rev()
        .find(|depth| *depth == 0 || keys.iter().any(|key| key.as_slice() == &path[..*depth]))?;
    let missing = &path[depth];
    keys.iter()
        .filter(|key| key.len() == depth + 1 && key.starts_with(&path[..depth]))
        .map(|key| (strsim::jaro_winkler(missing, &key[depth]), key))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, key)| key.join("."))
}

/// Where the templates of `chart` (and the libraries it reaches, whose defines
/// read its values) read `path`.
pub(crate) fn readers(chart: &Chart, path: &[String]) -> Vec<(PathBuf, Range<usize>)> {
    let mut found = chart.readers_of(path);
    for reached in chart.reached() {
        if reached.library {
            found.extend(reached.readers_of(path));
        }
    }
    found
}

/// Where the named template `name` is defined, among the templates of `chart` and
/// the charts it reaches: the file, the `define` action's range, and the file's
/// text.
pub(crate) fn define_site(
    batch: &Batch,
    chart: &Chart,
    name: &str,
) -> Option<(PathBuf, Range<usize>, Arc<str>)> {
    let files = chart.template_files().into_iter().chain(
        chart
            .reached()
            .into_iter()
            .flat_map(|reached| reached.template_files()),
    );
    for file in files {
        let Ok(state) = batch.file(&file) else {
            continue;
        };
        let text = state.text;
        let (actions, _) = crate::template::lex::lex(&text);
        for action in &actions {
            let body = text.get(action.body.clone()).unwrap_or_default().trim();
            for keyword in ["define", "block"] {
                let Some(rest) = body.strip_prefix(keyword) else {
                    continue;
                };
                let rest = rest.trim_start();
                if rest
                    .strip_prefix('"')
                    .and_then(|rest| rest.split('"').next())
                    == Some(name)
                {
                    return Some((file, action.span.clone(), text.clone()));
                }
            }
        }
    }
    None
}

/// Every call of the named template `name` (an `include`, `template` or `block`
/// naming it) in the templates that may call it from `chart`'s: the chart's, the
/// charts it reaches, its parents, and the open charts that reach it. Each file
/// with the range of the name in it and its text.
pub(crate) fn calls_of(
    batch: &Batch,
    chart: &Arc<Chart>,
    name: &str,
) -> Vec<(PathBuf, Range<usize>, Arc<str>)> {
    let mut charts: Vec<Arc<Chart>> = vec![chart.clone()];
    charts.extend(chart.reached());
    charts.extend(chart.ancestors());
    charts.extend(including_charts(batch, chart));
    let mut seen = std::collections::HashSet::new();
    let mut found = Vec::new();
    for chart in charts {
        if !seen.insert(chart.root.clone()) {
            continue;
        }
        for file in chart.template_files() {
            let Ok(state) = batch.file(&file) else {
                continue;
            };
            let text = state.text;
            if !text.contains(name) {
                continue;
            }
            let (actions, _) = crate::template::lex::lex(&text);
            for action in &actions {
                let body = &text[action.body.clone()];
                let is_define = body.trim_start().starts_with("define");
                for (range, called) in calls_in(body, action.body.start) {
                    if called == name && !is_define {
                        found.push((file.clone(), range, text.clone()));
                    }
                }
            }
        }
    }
    found
}
