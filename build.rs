//! Names the git commit the binary is built from in `tether --version`, when it is
//! built from a git checkout: `0.1.0 (3f2c1a9d0b7e 2026-12-01)`.

use std::path::Path;
use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let git_dir = Path::new(&manifest).join(".git");
    println!("cargo:rerun-if-changed=build.rs");
    if git_dir.exists() {
        // Only files that exist: cargo takes a missing one as changed, and would run
        // this script and rebuild the crate on every build.
        for watched in ["HEAD", "packed-refs", "refs/heads"] {
            let watched = git_dir.join(watched);
            if watched.exists() {
                println!("cargo:rerun-if-changed={}", watched.display());
            }
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
