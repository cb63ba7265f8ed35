//! The integration tests, one binary: a change relinks one test program, not one
//! per file. `tests/memory.rs` stays a binary of its own, because it counts the
//! allocations of the whole process while it runs.
//!
//! Run one module's tests with `cargo test --test it MODULE::`, e.g.
//! `cargo test --test it rules::`.

mod common;

mod action;
mod action_summary;
mod cache;
mod cli;
mod codegen;
mod corpus;
mod docs;
mod fix;
mod fuzz_regressions;
mod growth;
mod growth_fix;
mod growth_values;
mod helm_docs;
mod hostile;
mod idem;
mod idem_contained;
mod idem_sandboxes;
mod idem_select;
mod imports;
mod library;
mod map;
mod outside;
mod pre_commit;
mod properties;
mod read_once;
mod readme_generator;
mod release;
mod rules;
mod sarif;
mod server;
mod snapshot;
mod surface;
mod tidy;
mod vscode;
mod yamllint;
mod yamllint_config;
