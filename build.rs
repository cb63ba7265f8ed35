//! Names the git commit the binary is built from in `tether --version`, when it is
//! built from a git checkout: `0.1.0 (3f2c1a9d0b7e 2026-12-01)`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let git_dir = Path::new(&manifest).join(".git");
    println!("cargo:rerun-if-changed=build.rs");
    if git_dir.exists() {
        // In a linked worktree `.git` is a file: git says where the worktree's own
        // folder (its `HEAD`) and the shared one (the branches) are.
        let (own, common) =
            git_folders(&manifest).unwrap_or_else(|| (git_dir.clone(), git_dir.clone()));
        // Only files that exist: cargo takes a missing one as changed, and would run
        // this script and rebuild the crate on every build.
        let watched = [
            own.join("HEAD"),
            common.join("packed-refs"),
            common.join("refs/heads"),
        ];
        for watched in watched.iter().filter(|path| path.exists()) {
            println!("cargo:rerun-if-changed={}", watched.display());
        }
    }
    let commit = Command::new("git")
        .args(["log", "-1", "--format=%h %cs", "--abbrev=12"])
        .current_dir(&manifest)
        .output()
        .ok()
        .filter(|output| output.status.success() && git_dir.exists())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|commit| !commit.is_empty());
    let full = match commit {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=TETHER_VERSION={full}");
}

/// The checkout's git folder and the folder it shares with its other worktrees
/// (the same folder in a plain clone), absolute.
fn git_folders(manifest: &str) -> Option<(PathBuf, PathBuf)> {
    let output = Command::new("git")
        .args([
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
        ])
        .current_dir(manifest)
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    let text = String::from_utf8(output.stdout).ok()?;
    let mut lines = text.lines();
    let own = PathBuf::from(lines.next()?);
    let common = PathBuf::from(lines.next()?);
    Some((own, common))
}
