//! Settings as data: `tether.toml` as written (`config_file.rs`) and compiled
//! (`config.rs`, with `compile.rs`; `extend.rs` reads the files it extends), its
//! schema and starter, the yamllint configuration it follows, key patterns, idem
//! targets, and the resolver that finds each file's configuration. The run's state
//! of a configuration's repository (its pins, the charts) is apart, in `project.rs`.

pub(crate) mod compile;
pub(crate) mod config;
pub(crate) mod config_file;
pub(crate) mod extend;
pub(crate) mod idem;
pub(crate) mod idem_targets;
pub(crate) mod project;
pub(crate) mod resolve;
pub(crate) mod schema;
pub(crate) mod starter;
pub(crate) mod tables;
pub(crate) mod yamllint;
