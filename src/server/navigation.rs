//! Navigation.
use super::findings::Failure;
use super::snapshot::Batch;
pub(crate) fn definition(
    _batch: &Batch,
    _params: lsp_types::GotoDefinitionParams,
) -> Result<Option<lsp_types::GotoDefinitionResponse>, Failure> {
    Ok(None)
}
pub(crate) fn references(
    _batch: &Batch,
    _params: lsp_types::ReferenceParams,
) -> Result<Option<Vec<lsp_types::Location>>, Failure> {
    Ok(None)
}
pub(crate) fn document_symbols(
    _batch: &Batch,
    _params: lsp_types::DocumentSymbolParams,
) -> Result<Option<lsp_types::DocumentSymbolResponse>, Failure> {
    Ok(None)
}
