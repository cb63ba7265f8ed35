//! Which `tether idem` targets run in a monorepo: `[[idem]] dirs` globs folders and
//! keeps those whose Makefile defines the make target `run` calls; `--list` prints
//! them; `--target` and `--changed-since` select, and the report says why the others
//! were skipped.

#![allow(clippy::print_stderr)]

use std::path::Path;
use std::process::Command;

use crate::common;

/// `packages/a` has its own `update`, `packages/b` has no `update`, `packages/c`
/// gets it from `hack/common.mk`.
fn monorepo() -> tempfile::TempDir {
    let files = [
        (
            "tether.toml",
            "[[idem]]\ndirs = [\"packages/*\"]\nfiles = [\"*.yaml\"]\n",
        ),
        ("hack/common.mk", "update:\n\tcp in.txt out.yaml\n"),
        ("packages/a/Makefile", "update:\n\tcp in.txt out.yaml\n"),
        ("packages/a/in.txt", "a: 1\n"),
        ("packages/a/out.yaml", "a: 1\n"),
        ("packages/b/Makefile", "build:\n\ttrue\n"),
        ("packages/b/out.yaml", "b: 1\n"),
        ("packages/c/Makefile", "include ../../hack/common.mk\n"),
        ("packages/c/in.txt", "c: 1\n"),
        ("packages/c/out.yaml", "c: 1\n"),
    ];
    common::repository(&files)
}

fn idem(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .arg("idem")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let durations = regex::Regex::new(r"\((\d+ms|\d+s|\d+m\d+s)\)").unwrap();
    let note = regex::Regex::new(r"\nnote: (not|partly) contained .*\n").unwrap();
    let text = durations.replace_all(&text, "(…)");
    note.replace_all(&text, "").into_owned()
}

#[test]
fn dirs_list_target_and_changed_since() {
    if !common::tools_present(&["git", "make"]) {
        return;
    }
    let repo = monorepo();
    let root = repo.path();
    let list = idem(root, &["--list"]);
    let one = idem(root, &["--target", "packages/c"]);
    std::fs::write(root.join("packages/a/in.txt"), "a: 1\n").unwrap();
    std::fs::write(root.join("packages/a/notes.txt"), "untracked\n").unwrap();
    let changed_a = idem(root, &["--changed-since", "HEAD"]);
    std::fs::remove_file(root.join("packages/a/notes.txt")).unwrap();
    std::fs::write(
        root.join("hack/common.mk"),
        "update:\n\tcp in.txt out.yaml\n\n",
    )
    .unwrap();
    let changed_include = idem(root, &["--changed-since", "HEAD"]);
    common::assert_snapshot(
        "idem__select",
        &format!(
            "$ tether idem --list\n{list}\n$ tether idem --target packages/c\n{one}\n$ (packages/a changed) tether idem --changed-since HEAD\n{changed_a}\n$ (hack/common.mk changed) tether idem --changed-since HEAD\n{changed_include}"
        ),
    );
}

/// An `[[idem]]` whose `dirs` match no folder (or none whose Makefile defines the
/// target) proves nothing: it is an error at its line, exit 2, never "nothing to
/// prove" and exit 0 (issue 35, surprise 6). `--format human` is the default
/// format's name, as `check` has it (`text` still works).
#[test]
fn dirs_that_match_no_folder_are_an_error_at_their_line() {
    if !common::tools_present(&["git", "make"]) {
        return;
    }
    let repo = monorepo();
    let root = repo.path();
    std::fs::write(
        root.join("tether.toml"),
        "[[idem]]\ndirs = [\"pakages/*\"]\nfiles = [\"*.yaml\"]\n",
    )
    .unwrap();
    let typo = idem(root, &["--list"]);
    std::fs::write(
        root.join("tether.toml"),
        "[[idem]]\ndirs = [\"packages/b\"]\nfiles = [\"*.yaml\"]\n",
    )
    .unwrap();
    let no_target = idem(root, &["--format", "human"]);
    std::fs::write(
        root.join("tether.toml"),
        "[[idem]]\ndirs = [\"packages/a\"]\nfiles = [\"*.yaml\"]\n",
    )
    .unwrap();
    let human = idem(root, &["--format", "human"]);
    let text = idem(root, &["--format", "text"]);
    assert_eq!(human, text, "`--format text` is `--format human`");
    let root_shown = root.display().to_string();
    common::assert_snapshot(
        "idem__dirs_match_nothing",
        &format!(
            "$ (dirs = [\"pakages/*\"]) tether idem --list\n{typo}\n$ (dirs = [\"packages/b\"], no update target) tether idem --format human\n{no_target}\n$ (dirs = [\"packages/a\"]) tether idem --format human\n{human}"
        )
        .replace(&root_shown, "[REPO]"),
    );
}

/// A folder that cannot be listed may hold targets: when `dirs` may reach inside
/// it, the entry is an error at its line naming the folder (the folders listed
/// around it were once taken as every target, silently); globs that cannot reach
/// inside it list the targets as before. Run as `nobody`: root lists any folder.
#[test]
fn dirs_that_may_reach_an_unlistable_folder_are_an_error() {
    use std::os::unix::fs::PermissionsExt;
    if !common::tools_present(&["git", "make", "setpriv"]) {
        return;
    }
    let repo = monorepo();
    let root = repo.path();
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let locked = root.join("packages/locked");
    std::fs::create_dir_all(locked.join("d")).unwrap();
    std::fs::write(locked.join("d/Makefile"), "update:\n\ttrue\n").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let run = |dirs: &str| {
        std::fs::write(
            root.join("tether.toml"),
            format!("[[idem]]\ndirs = [{dirs}]\nfiles = [\"*.yaml\"]\n"),
        )
        .unwrap();
        let output = common::tether_unprivileged()
            .args(["idem", "--list"])
            .current_dir(root)
            .output()
            .unwrap();
        format!(
            "$ (dirs = [{dirs}]) tether idem --list\nexit code: {}\n{}{}",
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let reaching = run("\"packages/*/*\"");
    let beside = run("\"packages/a\", \"hack/*/*\"");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    common::assert_snapshot(
        "idem__dirs_reach_an_unlistable_folder",
        &format!("{reaching}\n{beside}").replace(&root.display().to_string(), "[REPO]"),
    );
}
