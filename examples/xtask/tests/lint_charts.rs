//! `monorepo-xtask lint-charts` on a small Cozystack-shaped monorepo
//! (`tests/fixtures/monorepo`, copied into a fresh git repository): a chart with a
//! missing required comment fails the run, the KubeVirt package's offline `update`
//! target passes `tether idem`, and the package whose target pulls from a registry is
//! skipped with the reason.

use std::path::Path;
use std::process::Command;

/// Whether `tool` runs; without it the test is skipped, except in CI, where it fails.
fn have(tool: &str) -> bool {
    let found = Command::new(tool).arg("--version").output().is_ok();
    assert!(
        found || std::env::var("CI").as_deref() != Ok("true"),
        "{tool} is missing: `cargo xtask ci` installs it"
    );
    if !found {
        eprintln!("skipping: {tool} is not installed");
    }
    found
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The fixture in a new git repository, committed.
fn monorepo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/monorepo"),
        dir.path(),
    );
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "fixture",
        ],
    ] {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }
    dir
}

fn lint(root: &Path, extra: &[&str]) -> String {
    // Run from the repository's root, as `cargo xtask lint-charts` is: findings are
    // shown from there.
    let mut command = Command::new(env!("CARGO_BIN_EXE_monorepo-xtask"));
    command.arg("lint-charts").arg("--root");
    if root.is_dir() {
        command.arg(".").current_dir(root);
    } else {
        command.arg(root);
    }
    let output = command.args(extra).output().unwrap();
    format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn lint_charts_on_a_monorepo() {
    if !have("git") || !have("make") {
        return;
    }
    let repo = monorepo();
    insta::assert_snapshot!("whole_monorepo", lint(repo.path(), &["--jobs", "2"]));
    insta::assert_snapshot!("one_package", lint(repo.path(), &["--package", "kubevirt"]));
}

#[test]
fn a_regeneration_that_drops_a_block_fails() {
    if !have("git") || !have("make") {
        return;
    }
    let repo = monorepo();
    // The update target now forgets the eviction patch.
    std::fs::write(repo.path().join("hack/regenerate.sh"), "#!/bin/sh\nset -eu\nfor upstream in upstream/*.yaml; do cp \"$upstream\" \"templates/$(basename \"$upstream\")\"; done\n").unwrap();
    let output = lint(repo.path(), &["--package", "kubevirt"]);
    assert!(output.starts_with("exit code: 1\n"), "{output}");
    assert!(
        output.contains("| packages/system/kubevirt | 5 | 0 | 0 | FAILED |"),
        "{output}"
    );
}

#[test]
fn bad_arguments_exit_2() {
    let output = lint(Path::new("/nonexistent"), &[]);
    assert!(output.starts_with("exit code: 2\n"), "{output}");
    assert!(
        output.contains("/nonexistent: no such file or folder"),
        "{output}"
    );
}
