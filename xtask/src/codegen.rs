//! `cargo xtask codegen [--check]`: writes or checks the generated files
//! (`docs/src/rules.md`, `schemas/tether.schema.json`).
//!
//! The work is done by `tests/it/codegen.rs`, so `cargo test` checks exactly what this
//! task writes; the task only runs that test with or without `TETHER_CODEGEN=write`.

use std::process::Command;

use anyhow::{Context, Result};

pub fn codegen(check: bool) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .args(["test", "--quiet", "--test", "it", "codegen::"])
        .current_dir(crate::project_root());
    if check {
        command.env_remove("TETHER_CODEGEN");
    } else {
        command.env("TETHER_CODEGEN", "write");
    }
    let status = command
        .status()
        .context("cannot run `cargo test --test it codegen::`")?;
    if !status.success() {
        // The test has printed the diff and what to run; pass its exit code on.
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}
