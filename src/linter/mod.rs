//! The linter: the run's configurations and what it knows of their repositories
//! (`resolve.rs`, `project.rs`), the walk of the inputs, the run over them (`check.rs`: its phases,
//! configurations and notes), the check of one file (`file.rs`: per-file facts and
//! rules, the suppression pass, the findings cap) and what it needs from around it
//! (`surroundings.rs`), the run's files in chart trees whose charts are let go
//! once checked (`groups.rs`), the comment maps (`maps.rs`), the cache, `--fix`, and what
//! changed since a git revision.

mod applicability;
pub(crate) mod cache;
pub(crate) mod changes;
pub(crate) mod check;
pub(crate) mod file;
pub(crate) mod fix;
mod groups;
pub(crate) mod maps;
pub(crate) mod project;
pub(crate) mod resolve;
pub(crate) mod suppress;
pub(crate) mod surroundings;
pub(crate) mod walk;
