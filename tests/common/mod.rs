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
        return Some(dir);
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
