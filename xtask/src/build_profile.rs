//! The edit loop's profile (`[profile.dev]` in the root `Cargo.toml`) optimises every
//! dependency, and `[profile.dev.package."*"]` takes precedence over
//! `build-override`: without a line of their own, the procedural macros and the
//! crates only they use would be optimised too, for code that runs once per build.
//! This module finds those crates with `cargo tree` and the test below holds
//! that `Cargo.toml` names each of them at `opt-level = 0`.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

/// The crates built for the host only (procedural macros and their dependencies)
/// that no workspace member links, on the platform `triple`: what `cargo tree`
/// lists under a procedural macro, less what it lists without them.
pub fn host_only_crates(root: &Path, triple: &str) -> Result<BTreeSet<String>> {
    let tree = |edges: &str| -> Result<String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args(["tree", "--locked", "--workspace", "--no-dedupe"])
            .args(["--prefix", "depth", "--format", "{p}", "--edges", edges])
            .args(["--target", triple])
            .current_dir(root)
            .output()
            .context("cannot run cargo tree")?;
        ensure!(
            output.status.success(),
            "cargo tree failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    // Each line is the depth, the package's name, its version and notes:
    // `2clap_derive v4.6.9 (proc-macro)`.
    let name = |line: &str| -> Option<(usize, String)> {
        let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let depth = line[..digits].parse().ok()?;
        Some((depth, line[digits..].split(' ').next()?.to_string()))
    };
    let mut under_macros = BTreeSet::new();
    let mut macro_depth: Option<usize> = None;
    for line in tree("normal,dev")?.lines() {
        let Some((depth, package)) = name(line) else {
            continue;
        };
        if macro_depth.is_some_and(|macro_depth| depth <= macro_depth) {
            macro_depth = None;
        }
        if macro_depth.is_none() && line.ends_with("(proc-macro)") {
            macro_depth = Some(depth);
        }
        if macro_depth.is_some() {
            under_macros.insert(package);
        }
    }
    let linked: HashSet<String> = tree("normal,dev,no-proc-macro")?
        .lines()
        .filter_map(|line| name(line).map(|(_, package)| package))
        .collect();
    Ok(under_macros
        .into_iter()
        .filter(|package| !linked.contains(package))
        .collect())
}

/// The packages `Cargo.toml` gives `opt-level = 0` in the dev profile.
pub fn unoptimised_in_dev(manifest: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let mut current: Option<&str> = None;
    for line in manifest.lines().map(str::trim) {
        if let Some(table) = line.strip_prefix('[') {
            current = table
                .strip_suffix(']')
                .and_then(|table| table.strip_prefix("profile.dev.package."));
        } else if line.replace(' ', "") == "opt-level=0" {
            if let Some(name) = current {
                named.insert(name.trim_matches('"').to_string());
            }
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_crate_only_macros_use_is_unoptimised_in_the_dev_profile() -> Result<()> {
        let root = crate::project_root();
        let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
        let listed = unoptimised_in_dev(&manifest);
        let host = crate::dist::host_triple()?;
        let needed = host_only_crates(&root, &host)?;
        ensure!(
            needed.contains("syn"),
            "syn is no macro-only crate: {needed:?}"
        );
        let missing: Vec<&String> = needed.difference(&listed).collect();
        let extra: Vec<&String> = listed.difference(&needed).collect();
        ensure!(
            missing.is_empty() && extra.is_empty(),
            "Cargo.toml's [profile.dev.package.NAME] opt-level = 0 lines: add {missing:?}, \
             remove {extra:?}"
        );
        Ok(())
    }

    #[test]
    fn unoptimised_packages_are_read_from_their_tables() {
        let manifest = "[profile.dev.package.\"*\"]\nopt-level = 2\n\n\
                        [profile.dev.package.syn]\nopt-level = 0\n\n\
                        [profile.release.package.quote]\nopt-level = 0\n";
        assert_eq!(
            unoptimised_in_dev(manifest).into_iter().collect::<Vec<_>>(),
            ["syn"]
        );
    }
}
