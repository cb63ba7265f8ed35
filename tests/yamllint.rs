//! tether's three comment rules against yamllint's own semantics: every case of
//! yamllint's `test_comments.py` and `test_comments_indentation.py`, rewritten for this
//! project in `tests/fixtures/yamllint/` with yamllint 1.38.0's output beside it.
//!
//! tether must report exactly what yamllint reports on each. The differences the
//! rules' docs state (template lines, `#` inside actions, helm-docs' `#--`, comments at
//! the end of a block) concern inputs yamllint's tests do not have; they are covered by
//! the rule fixtures in `tests/fixtures/rules/`.

#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use tether::{check_with, CheckOptions, Config, ConfigSource};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yamllint")
}

/// The `tether.toml` that says what a case's yamllint settings say.
fn tether_toml(yamllint: &str) -> String {
    let setting = |name: &str| {
        yamllint.lines().find_map(|line| {
            line.trim()
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(':'))
                .map(|value| value.trim().to_string())
        })
    };
    let mut rules = Vec::new();
    let comments_off = setting("comments").as_deref() == Some("disable");
    if comments_off || setting("require-starting-space").as_deref() == Some("false") {
        rules.push("comment-starting-space = \"off\"".to_string());
    } else if setting("ignore-shebangs").as_deref() == Some("false") {
        rules.push(
            "comment-starting-space = { level = \"warn\", ignore-shebangs = false }".to_string(),
        );
    }
    match setting("min-spaces-from-content") {
        _ if comments_off => rules.push("inline-comment-spacing = \"off\"".to_string()),
        Some(spaces) if spaces == "-1" => {
            rules.push("inline-comment-spacing = \"off\"".to_string())
        }
        Some(spaces) => rules.push(format!(
            "inline-comment-spacing = {{ level = \"warn\", min-spaces = {spaces} }}"
        )),
        None => {}
    }
    if setting("comments-indentation").as_deref() == Some("disable") {
        rules.push("comment-indentation = \"off\"".to_string());
    }
    format!("[rules]\n{}\n", rules.join("\n"))
}

/// What tether reports on a case, in the form of `expected.txt`.
fn tether_findings(case: &Path) -> String {
    let yamllint = std::fs::read_to_string(case.join("yamllint.yaml")).expect("yamllint.yaml");
    let toml = tether_toml(&yamllint);
    let config =
        Config::from_toml_in(&toml, case).unwrap_or_else(|error| panic!("{toml}: {error}"));
    let report = check_with(
        ConfigSource::One(config),
        &[case.join("input.yaml")],
        &CheckOptions::default().full(true),
    )
    .expect("the check starts");
    let mut lines: Vec<(usize, usize, String)> = report
        .diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let rule = match diagnostic.rule.as_str() {
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
