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
        None => Ok(None),
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

/// `textDocument/documentSymbol`: every key of the file, named by its path.
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
    let index = LineIndex::new(&modelled.text);
    let symbols = modelled
        .model
        .keys()
        .map(|(_, key)| {
            let line_end = modelled.text[key.offset..]
                .find('\n')
                .map_or(modelled.text.len(), |at| key.offset + at);
            #[allow(deprecated)]
            DocumentSymbol {
                name: key.path.clone(),
                detail: None,
                kind: SymbolKind::KEY,
                tags: None,
                deprecated: None,
                range: index.range(&(key.offset..line_end)),
                selection_range: index.range(&(key.offset..key.offset)),
                children: None,
            }
        })
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}
