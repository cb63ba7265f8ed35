//! tether's three comment rules against yamllint's own semantics: every case of
//! yamllint's `test_comments.py` and `test_comments_indentation.py`, rewritten for this
//! project in `tests/fixtures/yamllint/` with yamllint 1.38.0's output beside it.
//!
//! tether reads each case's yamllint settings from a `.yamllint` (issue 13) and must
//! report exactly what yamllint reports on each. The differences the
//! rules' docs state (template lines, `#` inside actions, helm-docs' `#--`, comments at
//! the end of a block) concern inputs yamllint's tests do not have; they are covered by
//! the rule fixtures in `tests/fixtures/rules/`.

#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use helm_tether::{CheckOptions, Config, ConfigSource, check_paths};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yamllint")
}

/// What tether reports on a case, in the form of `expected.txt`.
///
/// tether reads the case's settings itself: they are written as the `.yamllint` of a
/// copy of the case, the way yamllint was run to make `expected.txt` (`extends:
/// default` and the case's rules), so the mapping of yamllint's configuration onto
/// tether's rules is checked along with the rules.
fn tether_findings(case: &Path) -> String {
    let yamllint = std::fs::read_to_string(case.join("yamllint.yaml")).expect("yamllint.yaml");
    let copy = tempfile::tempdir().expect("a temp folder");
    std::fs::copy(case.join("input.yaml"), copy.path().join("input.yaml")).expect("copied");
    let indented: String = yamllint.lines().map(|line| format!("  {line}\n")).collect();
    std::fs::write(
        copy.path().join(".yamllint"),
        format!("extends: default\nrules:\n{indented}"),
    )
    .expect("written");
    let config = Config::from_toml_in("", copy.path()).expect("an empty tether.toml");
    let report = check_paths(
        ConfigSource::One(config),
        &[copy.path().join("input.yaml")],
        &CheckOptions::default().full(true).cache(false),
    )
    .expect("the check starts");
    let mut lines: Vec<(usize, usize, String)> = report
        .diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let rule = match diagnostic.rule.name() {
                "comment-starting-space" | "inline-comment-spacing" => "comments",
                "comment-indentation" => "comments-indentation",
                _ => return None,
            };
            let (line, column, _, _) = report.region(diagnostic);
            Some((line, column, rule.to_string()))
        })
        .collect();
    lines.sort();
    if lines.is_empty() {
        return "none".into();
    }
    lines
        .iter()
        .map(|(line, column, rule)| format!("{line}:{column} {rule}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn tether_agrees_with_yamllint_on_its_own_test_cases() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("tests/fixtures/yamllint exists")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 48, "only {} yamllint cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy();
        let expected = std::fs::read_to_string(case.join("expected.txt"))
            .expect("expected.txt")
            .trim()
            .to_string();
        let found = tether_findings(case);
        if found != expected {
            wrong.push(format!(
                "{name}: tether says\n{found}\nyamllint says\n{expected}"
            ));
        }
    }
    eprintln!(
        "yamllint cases: {} in all, {} agree, {} disagree",
        cases.len(),
        cases.len() - wrong.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
