//! Navigation: from a `.Values` read to its key in `values.yaml` (the chart's or a
//! dependency's), from an `include` or `template` to the `define`, from a
//! `$variable` to its declaration; references from a key of `values.yaml` or any
//! read of it (every template that reads it), from a `define` or any call of it
//! (every call), from a variable (its every use); a file's keys as its symbols.

use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams,
    GotoDefinitionResponse, Location, ReferenceParams, SymbolKind,
};

use std::path::Path;
use std::sync::Arc;

use super::documents::{LineIndex, uri_of};
use super::findings::{Failure, request_path};
use super::graph::{self, Site, Target};
use super::world::Batch;
use crate::analysis::charts::Chart;

/// `textDocument/definition`.
pub(crate) fn definition(
    batch: &Batch,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, Failure> {
    let position = params.text_document_position_params;
    let Some(path) = request_path(batch, &position.text_document.uri)? else {
        return Ok(None);
    };
    let (Ok(file), Some(chart)) = (batch.file(&path), batch.chart_of(&path)) else {
        return Ok(None);
    };
    let offset = LineIndex::new(&file.text).offset(position.position);
    match graph::target_at(&file.text, offset) {
        Some(Target::Read(read)) => {
            let Some(Site::Found { file, key, .. }) = graph::value_site(batch, &chart, &read.path)
            else {
                return Ok(None);
            };
            let index = LineIndex::new(&file.text);
            let range = index.range(&(key.offset..key.offset));
            Ok(uri_of(&file.path)
                .map(|uri| GotoDefinitionResponse::Scalar(Location::new(uri, range))))
        }
        Some(Target::Include(name)) => {
            let Some((define_file, range, text)) = graph::define_site(batch, &chart, &name) else {
                return Ok(None);
            };
            let range = LineIndex::new(&text).range(&range);
            Ok(uri_of(&define_file)
                .map(|uri| GotoDefinitionResponse::Scalar(Location::new(uri, range))))
        }
        Some(Target::Variable { at, all }) => {
            let declaration = all
                .iter()
                .find(|used| used.declaration && used.same_variable(&at));
            let index = LineIndex::new(&file.text);
            Ok(declaration.and_then(|declaration| {
                let range = index.range(&declaration.span);
                uri_of(&path).map(|uri| GotoDefinitionResponse::Scalar(Location::new(uri, range)))
            }))
        }
        Some(Target::Builtin(path)) => {
            // `.Chart.Version`: the field's line of the chart's Chart.yaml.
            let Some(field) = path.strip_prefix("Chart.") else {
                return Ok(None);
            };
            let chart_yaml = chart.root.join("Chart.yaml");
            let Ok(state) = batch.file(&chart_yaml) else {
                return Ok(None);
            };
            let key = super::builtins::chart_key(field);
            let found = state.text.lines().enumerate().find(|(_, line)| {
                line.strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            });
            Ok(found.and_then(|(line, _)| {
                let start = LineIndex::new(&state.text).line_start(line);
                let range = LineIndex::new(&state.text).range(&(start..start));
                uri_of(&chart_yaml)
                    .map(|uri| GotoDefinitionResponse::Scalar(Location::new(uri, range)))
            }))
        }
        Some(Target::Function(_)) | None => Ok(None),
    }
}

/// `textDocument/references`: on a key of a chart's `values.yaml` or a read of it,
/// every read of it in the chart's templates (and the libraries it reaches); on a
/// `define` or a call of it, every call; on a `$variable`, its every use.
pub(crate) fn references(
    batch: &Batch,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>, Failure> {
    let position = params.text_document_position;
    let Some(path) = request_path(batch, &position.text_document.uri)? else {
        return Ok(None);
    };
    let Some(chart) = batch.chart_of(&path) else {
        return Ok(None);
    };
    let declaration = params.context.include_declaration;
    if chart.root.join("values.yaml") != path {
        let Ok(file) = batch.file(&path) else {
            return Ok(None);
        };
        let offset = LineIndex::new(&file.text).offset(position.position);
        let target = graph::target_at(&file.text, offset);
        return Ok(target.map(|target| {
            template_references(batch, &chart, &path, &file.text, target, declaration)
        }));
    }
    let Some(modelled) = graph::model_of(batch, &path) else {
        return Ok(None);
    };
    let offset = LineIndex::new(&modelled.text).offset(position.position);
    let Some(key) = graph::key_at(&modelled, offset) else {
        return Ok(None);
    };
    let mut locations = reader_locations(batch, &chart, &graph::segments(&key.path));
    if declaration {
        if let Some(uri) = uri_of(&path) {
            let range = LineIndex::new(&modelled.text).range(&(key.offset..key.offset));
            locations.insert(0, Location::new(uri, range));
        }
    }
    Ok(Some(locations))
}

/// Where the templates of `chart` read the values key at `path`.
fn reader_locations(batch: &Batch, chart: &Chart, path: &[String]) -> Vec<Location> {
    let mut locations = Vec::new();
    for (file, range) in graph::readers(chart, path) {
        let (Ok(state), Some(uri)) = (batch.file(&file), uri_of(&file)) else {
            continue;
        };
        locations.push(Location::new(
            uri,
            LineIndex::new(&state.text).range(&range),
        ));
    }
    locations
}

/// The references of what the cursor names in a template at `path`: a read's key
/// and its every read, a named template's `define` and its every call, a
/// variable's declaration and its every use (the declaration when `declaration`).
fn template_references(
    batch: &Batch,
    chart: &Arc<Chart>,
    path: &Path,
    text: &str,
    target: Target,
    declaration: bool,
) -> Vec<Location> {
    let mut locations = Vec::new();
    match target {
        Target::Read(read) => {
            if declaration {
                if let Some(Site::Found { file, key, .. }) =
                    graph::value_site(batch, chart, &read.path)
                {
                    let range = LineIndex::new(&file.text).range(&(key.offset..key.offset));
                    locations.extend(uri_of(&file.path).map(|uri| Location::new(uri, range)));
                }
            }
            locations.extend(reader_locations(batch, chart, &read.path));
        }
        Target::Include(name) => {
            if declaration {
                if let Some((file, range, text)) = graph::define_site(batch, chart, &name) {
                    let range = LineIndex::new(&text).range(&range);
                    locations.extend(uri_of(&file).map(|uri| Location::new(uri, range)));
                }
            }
            for (file, range, text) in graph::calls_of(batch, chart, &name) {
                let range = LineIndex::new(&text).range(&range);
                locations.extend(uri_of(&file).map(|uri| Location::new(uri, range)));
            }
        }
        Target::Variable { at, all } => {
            let index = LineIndex::new(text);
            let uri = uri_of(path);
            for used in all.iter().filter(|used| used.same_variable(&at)) {
                if used.declaration && !declaration {
                    continue;
                }
                let range = index.range(&used.span);
                locations.extend(uri.clone().map(|uri| Location::new(uri, range)));
            }
        }
        Target::Builtin(_) | Target::Function(_) => {}
    }
    locations
}

/// `textDocument/documentSymbol`: every key of the file, as a tree: each key under
/// the key whose path its own extends, named by what it adds (`port` under
/// `service`), its range reaching to the end of its last descendant's line.
pub(crate) fn document_symbols(
    batch: &Batch,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, Failure> {
    let Some(path) = request_path(batch, &params.text_document.uri)? else {
        return Ok(None);
    };
    let Some(modelled) = graph::model_of(batch, &path) else {
        return Ok(None);
    };
    let text = &modelled.text;
    let keys: Vec<&crate::yaml::model::Key> = modelled.model.keys().map(|(_, key)| key).collect();
    let tree = outline(&keys);
    let index = LineIndex::new(text);
    let line_end = |offset: usize| {
        text[offset..]
            .find('\n')
            .map_or(text.len(), |at| offset + at)
    };
    // Built from the last key back: a key's children come after it, so theirs are
    // built when it is; each range grows to its last descendant's line.
    let mut built: Vec<Option<(DocumentSymbol, usize)>> = vec![None; keys.len()];
    for at in (0..keys.len()).rev() {
        let key = keys[at];
        let mut end = line_end(key.offset);
        let mut children = Vec::new();
        for &child in &tree[at].children {
            if let Some((symbol, child_end)) = built[child].take() {
                end = end.max(child_end);
                children.push(symbol);
            }
        }
        #[allow(deprecated)]
        let symbol = DocumentSymbol {
            name: tree[at].name.clone(),
            detail: None,
            kind: SymbolKind::KEY,
            tags: None,
            deprecated: None,
            range: index.range(&(key.offset..end)),
            selection_range: index.range(&(key.offset..key.offset)),
            children: (!children.is_empty()).then_some(children),
        };
        built[at] = Some((symbol, end));
    }
    let symbols = built
        .into_iter()
        .flatten()
        .map(|(symbol, _)| symbol)
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}

/// Nesting deeper than this is shown flat under the last level, so that no answer
/// nests without bound.
const MAX_OUTLINE_DEPTH: usize = 64;

/// A key's place in the outline: its name there and its children, by index.
#[derive(Debug, Default)]
struct OutlineNode {
    name: String,
    children: Vec<usize>,
}

/// The outline of `keys` (in document order): each key under the nearest key before
/// it whose path its own path extends (by `.` or `[`), named by the rest of its
/// path. The roots are the nodes no other node holds.
fn outline(keys: &[&crate::yaml::model::Key]) -> Vec<OutlineNode> {
    let mut nodes: Vec<OutlineNode> = Vec::with_capacity(keys.len());
    let mut open: Vec<usize> = Vec::new();
    for (at, key) in keys.iter().enumerate() {
        let extends = |parent: &str| {
            key.path.len() > parent.len()
                && key.path.starts_with(parent)
                && matches!(key.path.as_bytes()[parent.len()], b'.' | b'[')
        };
        while open.last().is_some_and(|&top| !extends(&keys[top].path)) {
            open.pop();
        }
        let name = match open.last() {
            Some(&parent) => {
                let rest = &key.path[keys[parent].path.len()..];
                rest.strip_prefix('.').unwrap_or(rest).to_string()
            }
            None => key.path.clone(),
        };
        nodes.push(OutlineNode {
            name,
            children: Vec::new(),
        });
        if let Some(&parent) = open.last() {
            nodes[parent].children.push(at);
        }
        if open.len() < MAX_OUTLINE_DEPTH {
            open.push(at);
        }
    }
    nodes
}
