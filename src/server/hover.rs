//! Hover.
use super::findings::Failure;
use super::snapshot::Batch;
pub(crate) fn hover(
    _batch: &Batch,
    _params: lsp_types::HoverParams,
) -> Result<Option<lsp_types::Hover>, Failure> {
    Ok(None)
}
