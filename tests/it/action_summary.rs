//! The Action's job summary (`.github/action/summary.py`) as a maintainer reads it
//! after a failed step: the error that failed it comes first, counts are words, and
//! `tether idem`'s comment moves and reasons are there, not only in the log.

use std::path::Path;
use std::process::Command;

use crate::common;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A finding in SARIF's shape.
fn result(level: &str, rule: &str, path: &str, line: usize) -> serde_json::Value {
    serde_json::json!({
        "ruleId": rule,
        "level": level,
        "message": {"text": format!("a {level} of {rule}")},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": path},
            "region": {"startLine": line}
        }}]
    })
}

/// The summary `summary.py` writes for this SARIF and idem report.
fn summary(results: Vec<serde_json::Value>, idem: serde_json::Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("tether.sarif");
    let document = serde_json::json!({"runs": [{"results": results}]});
    std::fs::write(&sarif, document.to_string()).unwrap();
    let report = dir.path().join("idem.json");
    std::fs::write(&report, idem.to_string()).unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg("python3 \"$0\" \"$1\" \"$2\" 3>/dev/null")
        .arg(repo().join(".github/action/summary.py"))
        .arg(&sarif)
        .arg(&report)
        .env_remove("GITHUB_REPOSITORY")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// 56 findings in path order, the one error last: the summary lists it first and
/// says the counts in words (issue 35, surprise 3).
#[test]
fn the_summary_lists_errors_first_and_counts_in_words() {
    if !common::tools_present(&["python3"]) {
        return;
    }
    let mut results: Vec<serde_json::Value> = (1..=55)
        .map(|line| {
            result(
                "warning",
                "inline-comment-spacing",
                "charts/a/values.yaml",
                line,
            )
        })
        .collect();
    results.push(result(
        "error",
        "required-comment",
        "charts/z/templates/cr.yaml",
        7,
    ));
    let summary = summary(results, serde_json::json!({"targets": []}));
    common::assert_snapshot("action_summary__errors_first", &summary);
}

/// A failed idem check's comment moves and reason reach the summary.
#[test]
fn the_summary_carries_idem_comment_moves() {
    if !common::tools_present(&["python3"]) {
        return;
    }
    let idem = serde_json::json!({"targets": [{
        "dir": "packages/system/kubevirt",
        "run": "make update",
        "checks": [
            {"kind": "no-op", "ok": false, "mutant": null, "diff": "-a\n+b",
             "comment_moves": [{"file": "templates/kubevirt-cr.yaml",
                                "text": "# a VMI that cannot live-migrate …",
                                "from": "spec.configuration.evictionStrategy",
                                "to": "spec.configuration.permittedHostDevices"}]},
            {"kind": "self-heal", "ok": false, "mutant": "{{- if .Values.cpuAllocationRatio }}",
             "diff": "", "comment_moves": [],
             "message": "the block is in none of the committed files"}
        ]
    }]});
    let summary = summary(vec![result("error", "required-comment", "a.yaml", 1)], idem);
    common::assert_snapshot("action_summary__idem_moves", &summary);
}
