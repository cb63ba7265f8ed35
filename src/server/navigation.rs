//! Navigation: from a `.Values` read to its key in `values.yaml` (the chart's or a
//! dependency's), from an `include` or `template` to the `define`; from a key of
//! `values.yaml` to every template that reads it; a file's keys as its symbols.

use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams,
    GotoDefinitionResponse, Location, ReferenceParams, SymbolKind,
};

use super::documents::{LineIndex, uri_of};
use super::findings::{Failure, request_path};
use super::graph::{self, Site, Target};
use super::snapshot::Batch;

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
        Some(Target::Builtin(_)) | None => Ok(None),
    }
}

/// `textDocument/references`: on a key of a chart's `values.yaml`, every read of
/// it in the chart's templates (and the libraries it reaches).
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
    if chart.root.join("values.yaml") != path {
        return Ok(None);
    }
    let Some(modelled) = graph::model_of(batch, &path) else {
        return Ok(None);
    };
    let offset = LineIndex::new(&modelled.text).offset(position.position);
    let Some(key) = graph::key_at(&modelled, offset) else {
        return Ok(None);
    };
    let mut locations = Vec::new();
    for (file, range) in graph::readers(&chart, &graph::segments(&key.path)) {
        let (Ok(state), Some(uri)) = (batch.file(&file), uri_of(&file)) else {
            continue;
        };
        locations.push(Location::new(
            uri,
            LineIndex::new(&state.text).range(&range),
        ));
    }
    if params.context.include_declaration {
        if let Some(uri) = uri_of(&path) {
            let range = LineIndex::new(&modelled.text).range(&(key.offset..key.offset));
            locations.insert(0, Location::new(uri, range));
        }
    }
    Ok(Some(locations))
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
