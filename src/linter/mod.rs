//! The linter: the walk of the inputs, the check of each file (`check.rs`: per-file
//! facts and rules, the suppression pass, the findings cap), the cache, `--fix`, and
//! what changed since a git revision.

pub(crate) mod cache;
pub(crate) mod changes;
pub(crate) mod check;
pub(crate) mod fix;
pub(crate) mod suppress;
pub(crate) mod walk;
