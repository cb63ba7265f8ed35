//! What the rules read beyond one file's comments: the chart graph and its values
//! reads (`charts/`), the repository's version pins, helm-docs simulated, and the
//! small YAML reader for strangers' files; a memo of what was made of each file's
//! bytes, kept across an editor's changes.

pub(crate) mod by_hash;
pub(crate) mod chart_yamls;
pub(crate) mod charts;
pub(crate) mod helm_docs;
pub(crate) mod pins;
pub(crate) mod small_yaml;
