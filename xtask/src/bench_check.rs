//! The `tether check` part of `cargo xtask bench`: the paired comparison on the
//! files `check` checks (`bench_paired.rs`; yamllint installed from PyPI into
//! `target/bench-venv`), `map`'s memory, the growth with copies, and `idem`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use crate::BenchArgs;

/// The `tether` of the profiling build, beside this xtask.
pub fn tether() -> Result<PathBuf> {
    let tether = std::env::current_exe()?
        .parent()
        .context("no folder for the xtask binary")?
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    ensure!(
        tether.is_file(),
        "{} is missing: run `cargo build --profile profiling`",
        tether.display()
    );
    Ok(tether)
}

/// Runs the check benchmarks on the corpus: the paired comparison on the files
/// `check` checks, the memory of `map`, the growth with copies, and `idem`.
pub fn run(args: &BenchArgs) -> Result<()> {
    let tether = tether()?;
    let corpus = args.corpus.canonicalize()?;
    crate::bench_paired::run(&tether, &corpus, args.runs)?;
    // `map` prints each file's model as it comes: its memory is that of the
    // largest files, not of the tree.
    if let Some(kib) = peak_rss_kib(
        &tether,
        &["map", "--format", "json", &corpus.to_string_lossy()],
    ) {
        println!(
            "\npeak RSS of `tether map --format json` on the corpus: {:.1} MB (target < 150 MB)",
            kib as f64 * 1024.0 / 1e6
        );
    }
    crate::bench_scale::run(&tether, &corpus)?;
    crate::bench_idem::run(args)
}

/// yamllint in a virtual environment under `target/`, installed from PyPI once.
pub(crate) fn ensure_yamllint() -> Result<PathBuf> {
    let venv = crate::project_root().join("target/bench-venv");
    let yamllint = venv.join("bin/yamllint");
    if yamllint.is_file() {
        return Ok(yamllint);
    }
    let status = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .context("python3 is needed to install yamllint for the comparison")?;
    ensure!(
        status.success(),
        "python3 -m venv {} failed",
        venv.display()
    );
    let status = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "yamllint"])
        .status()
        .context("cannot run pip")?;
    ensure!(status.success(), "pip install yamllint failed");
    Ok(yamllint)
}

/// Wall time of a command run to completion, its output discarded. Exit codes 0 and 1
/// (findings) are fine; anything else is a failure.
pub(crate) fn time(command: &mut Command) -> Result<Duration> {
    time_expecting(command, &[0, 1])
}

/// Wall time of a command run to completion, its output discarded; an exit code not
/// in `expected` is a failure.
pub(crate) fn time_expecting(command: &mut Command, expected: &[i32]) -> Result<Duration> {
    let start = Instant::now();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {command:?}"))?;
    let elapsed = start.elapsed();
    match status.code() {
        Some(code) if expected.contains(&code) => Ok(elapsed),
        _ => bail!("{command:?} failed: {status}"),
    }
}

/// Peak RSS of one run, from GNU time when it is installed.
pub(crate) fn peak_rss_kib(program: &Path, arguments: &[&str]) -> Option<u64> {
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(arguments)
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
            let mut permissions = std::fs::metadata(&target)?.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            std::fs::set_permissions(&target, permissions)?;
        }
    }
    Ok(())
}
