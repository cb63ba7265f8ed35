//! The VS Code extension of `editors/vscode`, packaged as a `.vsix` by `cargo xtask
//! dist` with Microsoft's `vsce` (from npm, pinned, installed into `target/vsce`
//! when missing): its own files, the LICENSE, and its one dependency
//! (`vscode-languageclient`) as `package-lock.json` pins it. Without npm the
//! extension is skipped and said; with `CI=true` that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

/// The `vsce` that packages the extension; 3.9 is the last that runs on Node.js 20.
pub const VSCE: &str = "@vscode/vsce@3.9.1";

/// The files of `editors/vscode` the package is made of.
const FILES: [&str; 4] = [
    "package.json",
    "package-lock.json",
    "extension.js",
    "README.md",
];

/// `vsce`, installed into `target/vsce` when it is not there.
pub fn vsce(root: &Path) -> Result<PathBuf> {
    let prefix = root.join("target/vsce");
    let bin = prefix.join("node_modules/.bin/vsce");
    if bin.exists() {
        return Ok(bin);
    }
    std::fs::create_dir_all(&prefix)?;
    eprintln!("xtask: installing {VSCE} with npm into target/vsce");
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(VSCE)
        .status()
        .context("cannot run npm (install Node.js and npm)")?;
    ensure!(status.success(), "npm install {VSCE} failed");
    Ok(bin)
}

/// Packages the extension into `folder/tether-vscode-VERSION.vsix`; `None` (said)
/// where npm is missing outside CI.
pub fn package(root: &Path, folder: &Path) -> Result<Option<PathBuf>> {
    let npm = Command::new("npm").arg("--version").output();
    if !npm.is_ok_and(|output| output.status.success()) {
        if std::env::var("CI").as_deref() == Ok("true") {
            bail!("npm is missing: the VS Code extension cannot be packaged (CI=true)");
        }
        eprintln!("dist: npm is missing, so the VS Code extension is not packaged");
        return Ok(None);
    }
    let vsce = vsce(root)?;
    let stage = root.join("target/vscode-stage");
    if stage.exists() {
        std::fs::remove_dir_all(&stage)
            .with_context(|| format!("cannot clear {}", stage.display()))?;
    }
    std::fs::create_dir_all(&stage)?;
    let source = root.join("editors/vscode");
    for file in FILES {
        std::fs::copy(source.join(file), stage.join(file))
            .with_context(|| format!("cannot copy editors/vscode/{file}"))?;
    }
    std::fs::copy(root.join("LICENSE"), stage.join("LICENSE"))?;
    let status = Command::new("npm")
        .args(["ci", "--omit=dev", "--no-audit", "--no-fund", "--quiet"])
        .current_dir(&stage)
        .status()
        .context("cannot run npm ci")?;
    ensure!(
        status.success(),
        "npm ci in the staged extension failed (is editors/vscode/package-lock.json current?)"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(source.join("package.json"))?)?;
    let version = manifest["version"]
        .as_str()
        .context("editors/vscode/package.json has no version")?;
    let vsix = folder.join(crate::dist::names::vsix(version));
    let output = Command::new(&vsce)
        .args(["package", "--out"])
        .arg(&vsix)
        .current_dir(&stage)
        .output()
        .context("cannot run vsce")?;
    ensure!(
        output.status.success() && vsix.is_file(),
        "vsce package failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(Some(vsix))
}
