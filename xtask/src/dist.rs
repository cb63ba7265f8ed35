//! `cargo xtask dist`: what a release ships, in `target/dist`: the release binary,
//! shell completions and the man page, the latter two written by the binary itself
//! (`tether completions SHELL`, `tether man`), so they always match it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

/// The shells `tether completions` knows, and each one's file name.
const SHELLS: [(&str, &str); 5] = [
    ("bash", "tether.bash"),
    ("zsh", "_tether"),
    ("fish", "tether.fish"),
    ("elvish", "tether.elv"),
    ("powershell", "_tether.ps1"),
];

pub fn dist() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--locked",
            "--quiet",
            "--package",
            "helm-tether",
            "--bin",
            "tether",
        ])
        .args(["--profile", "distribution"])
        .current_dir(crate::project_root())
        .status()
        .context("cannot run cargo build")?;
    ensure!(
        status.success(),
        "cargo build --profile distribution failed"
    );
    // This binary is `<target>/<profile>/xtask`.
    let target = std::env::current_exe()?
        .parent()
        .and_then(Path::parent)
        .context("unexpected location of the xtask binary")?
        .to_path_buf();
    let binary = target
        .join("distribution")
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    let dist = target.join("dist");
    if dist.exists() {
        std::fs::remove_dir_all(&dist)
            .with_context(|| format!("cannot clear {}", dist.display()))?;
    }
    for folder in ["bin", "completions", "man/man1"] {
        std::fs::create_dir_all(dist.join(folder))?;
    }
    let shipped = dist
        .join("bin")
        .join(binary.file_name().context("no binary name")?);
    std::fs::copy(&binary, &shipped)
        .with_context(|| format!("cannot copy {}", binary.display()))?;
    for (shell, name) in SHELLS {
        write_output(
            &shipped,
            &["completions", shell],
            &dist.join("completions").join(name),
        )?;
    }
    write_output(&shipped, &["man"], &dist.join("man/man1/tether.1"))?;
    let version = Command::new(&shipped).arg("--version").output()?;
    println!(
        "{} in {}",
        String::from_utf8_lossy(&version.stdout).trim(),
        dist.display()
    );
    Ok(dist)
}

/// Runs the binary and writes what it prints; fails on an error or no output.
fn write_output(binary: &Path, args: &[&str], to: &Path) -> Result<()> {
    let output = Command::new(binary)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    ensure!(
        output.status.success() && !output.stdout.is_empty(),
        "`tether {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(to, &output.stdout).with_context(|| format!("cannot write {}", to.display()))
}
