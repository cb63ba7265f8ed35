//! `cargo xtask docs`: builds the site (the mdBook in `docs/`, into `target/book/`)
//! with no warning, then checks the pages: every relative link and anchor resolves,
//! every page is in `SUMMARY.md`, and the examples marked runnable run and print
//! what they show. Those checks are `tests/it/docs.rs`, which `cargo test` runs too;
//! this task runs them as `cargo xtask codegen` runs its test.
//!
//! mdBook is pinned ([`MDBOOK_VERSION`]) and installed with `cargo install` into
//! `target/tools/` when it is missing; `MDBOOK=/path/to/mdbook` uses another.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{ensure, Context, Result};

/// The mdBook that builds the site (`docs/book.toml` is written for it).
pub const MDBOOK_VERSION: &str = "0.5.4";

/// `cargo xtask docs`: the test binary as `cargo test --test it` builds it in the
/// edit loop.
pub fn docs() -> Result<()> {
    build_and_check(false)
}

/// The `docs` step of `cargo xtask ci`: the test binary as its `cargo test
/// --workspace` built it, so nothing is built again.
pub fn ci_step() -> Result<()> {
    build_and_check(true)
}

fn build_and_check(workspace: bool) -> Result<()> {
    let book = build()?;
    check(workspace)?;
    println!(
        "docs: {} built with no warning; links, anchors and examples check out",
        book.display()
    );
    Ok(())
}

/// `mdbook build docs`: the site in `target/book/`, failing on a warning.
fn build() -> Result<PathBuf> {
    let mdbook = mdbook()?;
    let root = crate::project_root();
    let output = Command::new(&mdbook)
        .args(["build", "docs"])
        .current_dir(&root)
        .output()
        .with_context(|| format!("cannot run {}", mdbook.display()))?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    ensure!(output.status.success(), "mdbook build docs failed:\n{said}");
    let warnings: Vec<&str> = said
        .lines()
        .filter(|line| line.contains("WARN") || line.contains("ERROR"))
        .collect();
    ensure!(
        warnings.is_empty(),
        "mdbook build docs warned:\n{}",
        warnings.join("\n")
    );
    let book = root.join("target/book");
    ensure!(
        book.join("index.html").is_file(),
        "mdbook build docs wrote no {}",
        book.join("index.html").display()
    );
    Ok(book)
}

/// The link check and the runnable examples: `cargo test --test it docs::`
/// (`--workspace` unifies the dependencies' features as `cargo xtask ci`'s test run
/// does, another build of the test binary than the one without it).
fn check(workspace: bool) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["test", "--quiet", "--locked"]);
    if workspace {
        command.arg("--workspace");
    }
    let status = command
        .args(["--test", "it", "docs::", "--", "--skip", "helm_docs::"])
        .current_dir(crate::project_root())
        .status()
        .context("cannot run `cargo test --test it docs::`")?;
    ensure!(
        status.success(),
        "the docs' links or examples do not check out (cargo test --test it docs::)"
    );
    Ok(())
}

/// The pinned mdBook: `MDBOOK` when set, else `target/tools/bin/mdbook`, installed
/// there (`cargo install --locked --no-default-features`) when it is missing or
/// another version.
pub fn mdbook() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("MDBOOK") {
        return Ok(path.into());
    }
    let root = crate::project_root().join("target/tools");
    let bin = root
        .join("bin")
        .join(format!("mdbook{}", std::env::consts::EXE_SUFFIX));
    let version = Command::new(&bin).arg("--version").output();
    if version.is_ok_and(|output| {
        String::from_utf8_lossy(&output.stdout).trim() == format!("mdbook v{MDBOOK_VERSION}")
    }) {
        return Ok(bin);
    }
    eprintln!("xtask: installing mdbook {MDBOOK_VERSION} with cargo install into target/tools");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "install",
            "--quiet",
            "--locked",
            "--no-default-features",
            "mdbook",
            "--version",
            &format!("={MDBOOK_VERSION}"),
            "--root",
        ])
        .arg(&root)
        .status()
        .context("cannot run cargo install")?;
    ensure!(
        status.success(),
        "cargo install mdbook {MDBOOK_VERSION} failed"
    );
    Ok(bin)
}
