//! The `tether check` part of `cargo xtask bench`: the whole corpus with the default
//! rules (lazy and full), an unchanged re-run from the cache, and the values and
//! Chart files against yamllint's comment rules (yamllint installed from PyPI into
//! `target/bench-venv`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use crate::BenchArgs;

/// Runs the check benchmarks; `parse_all_cores` is tree-sitter's time to parse the
/// whole corpus on all cores, from the same run.
pub fn run(args: &BenchArgs, parse_all_cores: Duration) -> Result<()> {
    let tether = std::env::current_exe()?
        .parent()
        .context("no folder for the xtask binary")?
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    ensure!(
        tether.is_file(),
        "{} is missing: run `cargo build --profile profiling`",
        tether.display()
    );
    let corpus = args.corpus.canonicalize()?;
    let corpus_arg = corpus.to_string_lossy().to_string();
    let best = |arguments: &[&str], folder: &Path| -> Result<Duration> {
        let mut best = Duration::MAX;
        for _ in 0..args.runs {
            best = best.min(time(
                Command::new(&tether).args(arguments).current_dir(folder),
            )?);
        }
        Ok(best)
    };
    // Every file, as the parse reads every file: on a copy whose tether.toml turns
    // `default-exclude` off (vendored charts, test suites and ct values checked).
    let copy = std::env::temp_dir().join(format!("tether-bench-{}", std::process::id()));
    copy_tree(&corpus, &copy)?;
    std::fs::write(copy.join("tether.toml"), "default-exclude = false\n")?;
    let copy_arg = copy.to_string_lossy().to_string();
    let lazy = best(
        &["check", "--no-cache", "--format", "json", &copy_arg],
        &copy,
    )?;
    let full = best(
        &[
            "check",
            "--no-cache",
            "--full",
            "--format",
            "json",
            &copy_arg,
        ],
        &copy,
    )?;
    let peak = peak_rss_kib(
        &tether,
        &["check", "--no-cache", "--format", "json", &copy_arg],
    );
    // `map` prints each file's model as it comes: its memory is that of the
    // largest files, not of the tree.
    let map_peak = peak_rss_kib(&tether, &["map", "--format", "json", &copy_arg]);
    // The defaults, on the corpus as it is: what a user of each repository runs.
    let defaults = best(
        &["check", "--no-cache", "--format", "json", &corpus_arg],
        &corpus,
    )?;
    // An unchanged re-run from the cache (beside the copy's tether.toml).
    time(
        Command::new(&tether)
            .args(["check", "--format", "json", &copy_arg])
            .current_dir(&copy),
    )?;
    let cached = best(&["check", "--format", "json", &copy_arg], &copy)?;
    let read_only = best_read(&copy, args.runs)?;
    let _ = std::fs::remove_dir_all(&copy);

    println!("\n## tether check\n");
    println!("| run | seconds | vs tree-sitter parsing on all cores |");
    println!("|---|---:|---:|");
    let ratio = |time: Duration| time.as_secs_f64() / parse_all_cores.as_secs_f64();
    println!(
        "| tree-sitter parse, every file, all cores | {:.3} | 1.00 |",
        parse_all_cores.as_secs_f64()
    );
    for (name, time) in [
        ("check, every file, default rules, lazy trees", lazy),
        (
            "check, every file, default rules, `--full` (every tree)",
            full,
        ),
        (
            "check as configured by default (vendored charts, test suites and ct values left out)",
            defaults,
        ),
        ("check, unchanged re-run from the cache", cached),
        ("reading every file once (no tether)", read_only),
    ] {
        println!(
            "| {name} | {:.3} | {:.2} |",
            time.as_secs_f64(),
            ratio(time)
        );
    }
    if let Some(kib) = peak {
        println!(
            "\npeak RSS of `tether check` on the corpus: {:.1} MB (target < 150 MB)",
            kib as f64 * 1024.0 / 1e6
        );
    }
    if let Some(kib) = map_peak {
        println!(
            "peak RSS of `tether map --format json` on the corpus: {:.1} MB (target < 150 MB)",
            kib as f64 * 1024.0 / 1e6
        );
    }
    crate::bench_scale::run(&tether, &corpus)?;
    yamllint(&tether, &corpus, args.runs)?;
    crate::bench_idem::run(args)
}

/// tether's and yamllint's comment rules over the files both read: `values*.yaml`
/// and `Chart.yaml`.
fn yamllint(tether: &Path, corpus: &Path, runs: usize) -> Result<()> {
    let mut files = Vec::new();
    collect(corpus, &mut files)?;
    files.retain(|path| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        name == "Chart.yaml" || (name.starts_with("values") && name.ends_with(".yaml"))
    });
    files.sort();
    let bytes: u64 = files
        .iter()
        .map(|path| std::fs::metadata(path).map_or(0, |m| m.len()))
        .sum();
    let yamllint = ensure_yamllint()?;
    let config =
        std::env::temp_dir().join(format!("tether-bench-yamllint-{}.yaml", std::process::id()));
    std::fs::write(
        &config,
        "rules:\n  comments:\n    require-starting-space: true\n    min-spaces-from-content: 2\n  comments-indentation: enable\n",
    )?;
    let file_args: Vec<String> = files
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    let mut tether_best = Duration::MAX;
    let mut yamllint_best = Duration::MAX;
    for _ in 0..runs {
        let mut command = Command::new(tether);
        command
            .args(["check", "--no-cache", "--format", "json"])
            .args(["--select", "comment-starting-space"])
            .args(["--select", "inline-comment-spacing"])
            .args(["--select", "comment-indentation"])
            .args(&file_args)
            .current_dir(corpus);
        tether_best = tether_best.min(time(&mut command)?);
        let mut command = Command::new(&yamllint);
        command
            .arg("-c")
            .arg(&config)
            .args(["-f", "parsable"])
            .args(&file_args)
            .current_dir(corpus);
        yamllint_best = yamllint_best.min(time(&mut command)?);
    }
    let _ = std::fs::remove_file(&config);
    let mb = bytes as f64 / 1e6;
    println!(
        "\n## values and Chart files vs yamllint ({} files, {mb:.1} MB, comment rules only)\n",
        files.len()
    );
    println!("| tool | seconds | MB/s |");
    println!("|---|---:|---:|");
    for (name, time) in [("tether check", tether_best), ("yamllint", yamllint_best)] {
        println!(
            "| {name} | {:.3} | {:.1} |",
            time.as_secs_f64(),
            mb / time.as_secs_f64()
        );
    }
    println!(
        "\ntether's throughput is {:.0}× yamllint's (target ≥ 50×)",
        yamllint_best.as_secs_f64() / tether_best.as_secs_f64()
    );
    Ok(())
}

/// yamllint in a virtual environment under `target/`, installed from PyPI once.
fn ensure_yamllint() -> Result<PathBuf> {
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
fn time(command: &mut Command) -> Result<Duration> {
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

/// The time to read every chart file of `folder` once: the floor a cached run has.
fn best_read(folder: &Path, runs: usize) -> Result<Duration> {
    let mut files = Vec::new();
    collect(folder, &mut files)?;
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        for file in &files {
            std::hint::black_box(std::fs::read(file)?);
        }
        best = best.min(start.elapsed());
    }
    Ok(best)
}

fn collect(folder: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "tpl")
        {
            out.push(path);
        }
    }
    Ok(())
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
