//! SARIF that code scanning accepts: real output validated by Microsoft's SARIF
//! validator (`@microsoft/sarif-multitool`, which carries the SARIF 2.1.0 schema and
//! its rules), installed into `target/sarif-validator` by `cargo xtask ci`.
//!
//! Outside CI the test says so and passes when the validator is absent; with
//! `CI=true` an absent validator is a failure.

#![allow(clippy::print_stderr)]

use crate::common;

use std::path::Path;
use std::process::Command;

/// Runs tether with `args` in `dir`, writes its SARIF and validates it; returns the
/// validator's problems (errors and warnings).
fn problems(validator: &Path, dir: &Path, args: &[&str]) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(["check", "--no-cache", "--format", "sarif"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("tether runs");
    let file = tempfile::Builder::new()
        .suffix(".sarif")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), &output.stdout).unwrap();
    let validated = Command::new(validator)
        .arg("validate")
        .arg(file.path())
        .output()
        .expect("the validator runs");
    let text = String::from_utf8_lossy(&validated.stdout).into_owned();
    assert!(
        text.contains("Analysis completed successfully"),
        "the validator did not finish: {text}{}",
        String::from_utf8_lossy(&validated.stderr)
    );
    text.lines()
        .filter(|line| line.contains("): error ") || line.contains("): warning "))
        .map(String::from)
        .collect()
}

#[test]
fn sarif_output_passes_the_validator() {
    let Some(validator) =
        common::installed_tool("target/sarif-validator/node_modules/.bin/sarif-multitool")
    else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = problems(&validator, repo, &["tests/fixtures/check/kubevirt-broken"]);
    assert!(found.is_empty(), "{found:#?}");
    // A run that could not check (a broken tether.toml): its notification, located.
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(
        broken.path().join("tether.toml"),
        "[rules]\nnope = \"warn\"\n",
    )
    .unwrap();
    std::fs::write(broken.path().join("values.yaml"), "a: 1\n").unwrap();
    let found = problems(&validator, broken.path(), &[]);
    assert!(found.is_empty(), "{found:#?}");
    let corpus = repo.join("../shared/corpus");
    if corpus.is_dir() {
        let found = problems(&validator, &corpus, &["cozystack"]);
        assert!(found.is_empty(), "{found:#?}");
    }
}

/// The same corpus run with `--format github`: one line per finding, then the count.
#[test]
fn github_output_has_one_line_per_finding_and_a_count() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.is_dir() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the corpus is missing"
        );
        return;
    }
    let run = |format: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_tether"))
            .args(["check", "--no-cache", "--format", format, "cozystack"])
            .current_dir(&corpus)
            .output()
            .expect("tether runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let findings = json["diagnostics"].as_array().unwrap().len();
    let github = run("github");
    let lines: Vec<&str> = github.lines().collect();
    assert_eq!(lines.len(), findings + 1);
    assert!(
        lines[..findings]
            .iter()
            .all(|line| line.starts_with("::warning ") || line.starts_with("::error "))
    );
    assert!(
        lines[findings].starts_with("tether: "),
        "{}",
        lines[findings]
    );
}
