//! Tests of the real `tether` binary: exit code, stdout and stderr, snapshotted together.

use std::path::Path;
use std::process::Command;

/// Runs `tether` with `args` in `dir` and renders what it did, temp paths filtered.
fn run_in(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the tether binary runs");
    let render = format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output
            .status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    render.replace(&dir.display().to_string(), "[DIR]")
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

macro_rules! assert_cli_snapshot {
    ($name:literal, $value:expr) => {
        insta::with_settings!({
            snapshot_path => "../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(concat!("cli__", $name), $value);
        });
    };
}

#[test]
fn map_example_text() {
    assert_cli_snapshot!(
        "map_example_text",
        run_in(
            repo(),
            &["map", "examples/kubevirt/templates/kubevirt-cr.yaml"]
        )
    );
}

#[test]
fn map_example_json() {
    assert_cli_snapshot!(
        "map_example_json",
        run_in(
            repo(),
            &[
                "map",
                "--format",
                "json",
                "examples/kubevirt/templates/kubevirt-cr.yaml"
            ]
        )
    );
}

#[test]
fn map_values_and_helpers() {
    assert_cli_snapshot!(
        "map_values_and_helpers",
        run_in(
            repo(),
            &[
                "map",
                "examples/kubevirt/values.yaml",
                "examples/kubevirt/templates/_helpers.tpl"
            ]
        )
    );
}

#[test]
fn unreadable_file_exits_2_and_the_others_are_still_modelled() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.yaml"), "# doc\nkey: 1\n").unwrap();
    std::fs::create_dir(dir.path().join("folder.yaml")).unwrap();
    assert_cli_snapshot!(
        "map_unreadable",
        run_in(
            dir.path(),
            &[
                "map",
                "--format",
                "json",
                "missing.yaml",
                "folder.yaml",
                "good.yaml"
            ]
        )
    );
}

#[test]
fn map_requires_a_file() {
    assert_cli_snapshot!("map_no_file", run_in(repo(), &["map"]));
}

#[test]
fn bad_inputs_are_problems_not_failures() {
    let dir = tempfile::tempdir().unwrap();
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    // 50 MB: over the size tether models.
    let big = "key: value\n".repeat(50 * 1024 * 1024 / 11);
    std::fs::write(templates.join("big.yaml"), big).unwrap();
    // 10,000 levels of nesting, block and flow, and 10,000 nested template blocks.
    std::fs::write(
        templates.join("deep-block.yaml"),
        format!("{}x\n", "- ".repeat(10_000)),
    )
    .unwrap();
    std::fs::write(
        templates.join("deep-flow.yaml"),
        format!("a: {}1{}\n", "{b: ".repeat(10_000), "}".repeat(10_000)),
    )
    .unwrap();
    let deep_mapping: String = (0..300)
        .map(|level| format!("{}k:\n", " ".repeat(level)))
        .collect();
    std::fs::write(templates.join("deep-mapping.yaml"), deep_mapping).unwrap();
    std::fs::write(
        templates.join("deep-if.yaml"),
        format!(
            "{}a: 1\n{}",
            "{{ if .x }}\n".repeat(10_000),
            "{{ end }}\n".repeat(10_000)
        ),
    )
    .unwrap();
    let long: String = (0..33_000).map(|n| format!("- item{n}\n")).collect();
    std::fs::write(templates.join("long.yaml"), format!("list:\n{long}")).unwrap();
    let output = run_in(
        dir.path(),
        &[
            "map",
            "templates/big.yaml",
            "templates/deep-block.yaml",
            "templates/deep-flow.yaml",
            "templates/deep-mapping.yaml",
            "templates/deep-if.yaml",
            "templates/long.yaml",
        ],
    );
    // Keep the snapshot small: the problems and document headers, not every key.
    let summary: String = output
        .lines()
        .filter(|line| !line.starts_with("    "))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_cli_snapshot!("map_bad_inputs", summary);
}
