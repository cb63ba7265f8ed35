//! Settings as data: `tether.toml` as written (`config_file.rs`) and compiled
//! (`config.rs`, with `compile.rs`; `extend.rs` reads the files it extends), its
//! schema and starter, the yamllint configuration it follows, key patterns and idem
//! targets. Which configuration applies to each file of a run, and what the run
//! knows of each configuration's repository (its pins, the charts), is the run's:
//! `linter/resolve.rs` and `linter/project.rs`.

pub(crate) mod compile;
pub(crate) mod config;
pub(crate) mod config_file;
pub(crate) mod extend;
pub(crate) mod idem;
pub(crate) mod idem_targets;
pub(crate) mod schema;
pub(crate) mod starter;
pub(crate) mod tables;
pub(crate) mod yamllint;
