//! Generated files are up to date: each is compared with what its generator returns.
//!
//! With `TETHER_CODEGEN=write` a stale or missing file is rewritten and the test
//! passes; that is what `cargo xtask codegen` runs. Otherwise, and always in CI, a
//! difference fails the test with a unified diff and the command that fixes it.

use std::path::Path;

#[test]
fn rules_reference_is_up_to_date() {
    ensure_file_contents("docs/src/rules.md", helm_tether::internals::rules_markdown);
}

#[test]
fn config_schema_is_up_to_date() {
    ensure_file_contents(
        "schemas/tether.schema.json",
        helm_tether::Config::json_schema,
    );
}

/// Compares `relative_path` (from the repository root) with `generate()`, and writes
/// it or fails when they differ.
fn ensure_file_contents(relative_path: &str, generate: fn() -> String) {
    let expected = generate();
    // A generator that depends on hash order or the clock would make the check flaky
    // and `cargo xtask codegen` never reach a fixed point.
    assert_eq!(
        expected,
        generate(),
        "the generator of {relative_path} gives a different text on each call"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative_path);
    // Git may have checked the file out with `\r\n` line endings on Windows.
    let on_disk = std::fs::read_to_string(&path)
        .ok()
        .map(|text| text.replace("\r\n", "\n"));
    if on_disk.as_deref() == Some(expected.as_str()) {
        return;
    }
    let write_requested = std::env::var("TETHER_CODEGEN").is_ok_and(|mode| mode == "write");
    if write_requested && !in_ci() {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)
                .unwrap_or_else(|error| panic!("cannot create {}: {error}", folder.display()));
        }
        std::fs::write(&path, &expected)
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        return;
    }
    let ci_note = if write_requested {
        " (CI is set, so TETHER_CODEGEN=write does not write)"
    } else {
        ""
    };
    match on_disk {
        None => {
            panic!("{relative_path} is missing{ci_note}; run `cargo xtask codegen` to update")
        }
        Some(on_disk) => panic!(
            "{relative_path} is stale{ci_note}; run `cargo xtask codegen` to update\n\n{}",
            unified_diff(relative_path, &on_disk, &expected)
        ),
    }
}

/// `CI` is set by GitHub Actions, GitLab and most other runners; generated files are
/// checked there, never written.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0")
}

/// A unified diff from `old` (on disk) to `new` (generated), by `similar`.
fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{path} (on disk)"), &format!("{path} (generated)"))
        .to_string()
}
