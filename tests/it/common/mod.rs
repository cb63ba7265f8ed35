//! What several test files share.

#![allow(dead_code, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `tether` binary as an unprivileged user: root reads and writes every folder,
/// so a test of file modes run as root runs the binary as `nobody` (util-linux's
/// `setpriv`); as anyone else, the binary as it is.
pub fn tether_unprivileged() -> Command {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_tether"));
        command
    } else {
        Command::new(env!("CARGO_BIN_EXE_tether"))
    }
}

/// The real-chart corpus beside the checkout (`../shared/corpus`). Absent outside CI,
/// the caller skips with the printed reason; in CI (`CI=true`) the corpus is always
/// laid out there, so its absence is a failure.
pub fn corpus_dir(what: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        // Canonical, as the binary makes every path it is given: written through
        // `..`, the checkout's repository would be the corpus' (a repository's top
        // is the nearest ancestor of the path as written), and its charts would be
        // looked for there.
        return Some(dir.canonicalize().unwrap_or(dir));
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the corpus is missing at {}: CI lays it out beside the checkout",
        dir.display()
    );
    eprintln!("skipping {what}: {} is absent", dir.display());
    None
}

/// A tool `cargo xtask ci` installs under the checkout (`target/…`). Absent outside
/// CI, the caller skips with the printed reason; with `CI=true` its absence fails.
pub fn installed_tool(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing: `cargo xtask ci` installs it",
        path.display()
    );
    eprintln!(
        "skipping: {} is absent (cargo xtask ci installs it)",
        path.display()
    );
    None
}

/// Copies a folder's regular files and folders (symlinks left out) into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs git in `dir`, failing the test if it fails; returns what it printed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A new folder holding `files` (path, text).
pub fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A new git repository holding `files` (path, text), committed.
pub fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tree(files);
    git(dir.path(), &["init", "-q"]);
    commit_all(dir.path(), "fixture");
    dir
}

/// Commits everything in the repository at `dir`.
pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            message,
        ],
    );
}

/// Whether every one of `tools` runs; without one a test is skipped with the reason
/// printed, except in CI (`CI=true`), where it fails.
pub fn tools_present(tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| {
            Command::new("sh")
                .arg("-c")
                .arg(format!("command -v {tool}"))
                .output()
                .map_or(true, |output| !output.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "tools missing in CI: {missing:?}; .ci/run (cargo xtask ci) installs them"
    );
    eprintln!("skipping: {missing:?} not installed");
    false
}

/// What a run of a program did, as the snapshots show it: exit code, stdout, stderr.
pub fn render_output(output: &std::process::Output) -> String {
    format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output
            .status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    )
}

/// Runs `tether` with `args` in `dir` and renders what it did, `dir` shown as `[DIR]`.
pub fn run_in(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the tether binary runs");
    render_output(&output).replace(&dir.display().to_string(), "[DIR]")
}

/// Asserts `value` against `snapshots/NAME.snap`, as every test of this crate keeps
/// its snapshots: in the top-level `snapshots/` folder, named without the module,
/// without the expression.
pub fn assert_snapshot(name: &str, value: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, value));
}
