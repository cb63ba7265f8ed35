//! `undocumented-value` on files written for bitnami's readme-generator claims
//! readme-generator's own check ("Missing metadata for key"). This runs
//! readme-generator (installed by `cargo xtask ci` from npm) on the rule's fixture,
//! on the corpus' readme-generator files, and on copies of them with `## @param`
//! lines deleted, and requires the same keys from both tools.

#![allow(clippy::print_stderr)]

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The keys readme-generator says have no metadata.
fn readme_generator(tool: &Path, values: &str) -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("values.yaml"), values).unwrap();
    std::fs::write(dir.path().join("README.md"), "# chart\n\n## Parameters\n").unwrap();
    let output = Command::new(tool)
        .args(["--values", "values.yaml", "--readme", "README.md"])
        .current_dir(dir.path())
        .output()
        .expect("readme-generator runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let missing: BTreeSet<String> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("ERROR: Missing metadata for key: "))
        .map(str::to_string)
        .collect();
    // It fails only on wrong metadata; anything else is a broken comparison.
    assert!(
        output.status.success() || stdout.contains("ERROR:"),
        "readme-generator failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    missing
}

/// The keys `undocumented-value` reports in a chart's `values.yaml`.
fn tether(values: &str) -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .unwrap();
    let config =
        helm_tether::Config::from_toml_in("[rules]\nundocumented-value = \"warn\"\n", dir.path())
            .expect("the configuration is valid");
    let (_, diagnostics) = helm_tether::internals::check_bytes(
        &config,
        Path::new("values.yaml"),
        values.as_bytes().to_vec(),
        helm_tether::internals::Mode::Lazy,
    );
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule == "undocumented-value")
        .map(|diagnostic| {
            diagnostic
                .message
                .split('`')
                .nth(1)
                .expect("the message names the key")
                .to_string()
        })
        .collect()
}

#[test]
fn undocumented_value_finds_what_readme_generator_finds() {
    let Some(tool) =
        common::installed_tool("target/readme-generator/node_modules/.bin/readme-generator")
    else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<(String, String)> = vec![(
        "fixture".into(),
        std::fs::read_to_string(
            root.join("tests/fixtures/rules/undocumented-value/readme-generator/values.yaml"),
        )
        .unwrap(),
    )];
    if let Some(corpus) = common::corpus_dir("the corpus' readme-generator files") {
        for relative in [
            "cozystack/packages/system/vertical-pod-autoscaler/charts/vertical-pod-autoscaler/values.yaml",
            "cozystack/packages/system/linstor-gui/values.yaml",
        ] {
            let text = std::fs::read_to_string(corpus.join(relative)).unwrap();
            // Every seventh `## @param` line deleted, as a bad merge drops them.
            let mut params = 0;
            let deleted: String = text
                .lines()
                .filter(|line| {
                    if line.trim_start().starts_with("## @param") {
                        params += 1;
                        return params % 7 != 3;
                    }
                    true
                })
                .map(|line| format!("{line}\n"))
                .collect();
            cases.push((relative.to_string(), text));
            cases.push((
                format!("{relative}, a seventh of its @param lines deleted"),
                deleted,
            ));
        }
    }
    let mut agreeing = 0;
    let mut disagreements = Vec::new();
    for (name, values) in &cases {
        let expected = readme_generator(&tool, values);
        let found = tether(values);
        eprintln!(
            "{name}: readme-generator finds {} keys without metadata, tether {}",
            expected.len(),
            found.len()
        );
        if expected == found {
            agreeing += 1;
        } else {
            disagreements.push(format!(
                "{name}:\n  only readme-generator: {:?}\n  only tether: {:?}",
                expected.difference(&found).collect::<Vec<_>>(),
                found.difference(&expected).collect::<Vec<_>>()
            ));
        }
    }
    eprintln!("{agreeing} of {} files agree", cases.len());
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
