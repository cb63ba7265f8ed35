//! `tether check` as a user runs it, against baselines given exactly the files it
//! checks: the part of `cargo xtask bench` whose figures BENCHMARKS.md quotes, and
//! all of `cargo xtask bench --repo PATH`.
//!
//! The file list is `tether check --show-files` of the repository (the default
//! configuration, or the repository's `tether.toml`). On that list, in paired and
//! interleaved rounds (each round runs every command once, in an order that turns
//! by one each round): `cat` of the files (the floor), tree-sitter parsing them on
//! all cores (`bench-parse-list`, a process of its own, reading included), `tether
//! check --no-cache`, and an unchanged re-run from the cache when the repository
//! has a `tether.toml` at its top (tether keeps no cache without one). Then `tether check`
//! with yamllint's three comment rules against yamllint, on the files of the list
//! yamllint can read (every one but the templates). Each ratio is taken within a
//! round, so load from elsewhere slows both sides of it alike; the medians and
//! ranges over the rounds are printed, with the load average before and after.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use rayon::prelude::*;

use crate::bench_check::{ensure_yamllint, peak_rss_kib, time};

/// A timed command of the bench: its name and how to make it.
type Runner<'a> = (&'a str, Box<dyn Fn() -> Command + 'a>);

/// Runs the paired comparison on the repository at `repo`, `rounds` rounds.
pub fn run(tether: &Path, repo: &Path, rounds: usize) -> Result<()> {
    let repo = repo
        .canonicalize()
        .with_context(|| format!("{} is not a folder", repo.display()))?;
    let files = show_files(tether, &repo)?;
    ensure!(
        !files.is_empty(),
        "`tether check --show-files` lists no file under {}",
        repo.display()
    );
    let bytes: u64 = files
        .iter()
        .map(|file| std::fs::metadata(repo.join(file)).map_or(0, |m| m.len()))
        .sum();
    let list = tempfile::NamedTempFile::new()?;
    std::fs::write(list.path(), nul_separated(&files))?;
    let xtask = std::env::current_exe()?;
    println!(
        "\n## `tether check` against baselines on the files it checks\n\n\
         `{}`: {} files, {:.1} MB (`tether check --show-files`); {} rounds; load average {} before",
        repo.display(),
        files.len(),
        bytes as f64 / 1e6,
        rounds,
        load()
    );
    // The cache the re-run reads, written by one run first (when there is one).
    let _ = time(Command::new(tether).arg("check").current_dir(&repo));
    let mut runners: Vec<Runner> = vec![
        (
            "`cat` of the files",
            Box::new(|| {
                let mut command = Command::new("xargs");
                command.args(["-0", "cat"]).current_dir(&repo);
                command.stdin(std::fs::File::open(list.path()).expect("the list was written"));
                command
            }),
        ),
        (
            "tree-sitter parse, all cores",
            Box::new(|| {
                let mut command = Command::new(&xtask);
                command
                    .arg("bench-parse-list")
                    .arg(list.path())
                    .current_dir(&repo);
                command
            }),
        ),
        (
            "`tether check --no-cache`",
            Box::new(|| {
                let mut command = Command::new(tether);
                command.args(["check", "--no-cache"]).current_dir(&repo);
                command
            }),
        ),
    ];
    // tether keeps a cache only beside a `tether.toml`: without one at the top the
    // re-run is a second run, not a cached one, and is not shown as one.
    let cached = repo.join("tether.toml").is_file();
    if cached {
        runners.push((
            "`tether check`, unchanged re-run from the cache",
            Box::new(|| {
                let mut command = Command::new(tether);
                command.arg("check").current_dir(&repo);
                command
            }),
        ));
    }
    let times = paired(&runners, rounds)?;
    let check = &times[2];
    println!("\n| command | median s | range s | `check --no-cache` ÷ it, median (range) |");
    println!("|---|---:|---:|---:|");
    for ((name, _), times) in runners.iter().zip(&times) {
        let (median, low, high) = spread(times);
        println!(
            "| {name} | {median:.3} | {low:.3}–{high:.3} | {} |",
            ratios(check, times)
        );
    }
    if !cached {
        println!(
            "\n(no `tether.toml` at the top: tether keeps no cache there, so a cached re-run is not measured)"
        );
    }
    if let Some(kib) = peak_rss_kib(tether, &["check", "--no-cache", &repo.to_string_lossy()]) {
        println!(
            "\npeak RSS of `tether check --no-cache`: {:.1} MB",
            kib as f64 * 1024.0 / 1e6
        );
    }
    against_yamllint(tether, &repo, &files, rounds)?;
    println!("\nload average after: {}", load());
    Ok(())
}

/// tether's comment rules that yamllint has against yamllint's, on the files of
/// the list that are not templates, both given them as arguments.
fn against_yamllint(tether: &Path, repo: &Path, files: &[PathBuf], rounds: usize) -> Result<()> {
    let plain: Vec<&PathBuf> = files
        .iter()
        .filter(|file| {
            !helm_tether::internals::is_template_path(file)
                && file
                    .extension()
                    .is_some_and(|ext| ext == "yaml" || ext == "yml")
        })
        .collect();
    if plain.is_empty() {
        return Ok(());
    }
    let bytes: u64 = plain
        .iter()
        .map(|file| std::fs::metadata(repo.join(file)).map_or(0, |m| m.len()))
        .sum();
    let yamllint = ensure_yamllint()?;
    let config = tempfile::NamedTempFile::new()?;
    std::fs::write(
        config.path(),
        "rules:\n  comments:\n    require-starting-space: true\n    min-spaces-from-content: 2\n  comments-indentation: enable\n",
    )?;
    let runners: Vec<Runner> = vec![
        (
            "`tether check --no-cache --select` the three rules",
            Box::new(|| {
                let mut command = Command::new(tether);
                command
                    .args(["check", "--no-cache", "--select"])
                    .arg("comment-starting-space,inline-comment-spacing,comment-indentation")
                    .args(&plain)
                    .current_dir(repo);
                command
            }),
        ),
        (
            "yamllint, `comments` and `comments-indentation`",
            Box::new(|| {
                let mut command = Command::new(&yamllint);
                command
                    .arg("-c")
                    .arg(config.path())
                    .args(["-f", "parsable"])
                    .args(&plain)
                    .current_dir(repo);
                command
            }),
        ),
    ];
    let times = paired(&runners, rounds)?;
    println!(
        "\nThe {} files of the list that are not templates ({:.1} MB), the comment rules both tools have:\n",
        plain.len(),
        bytes as f64 / 1e6
    );
    println!("| command | median s | range s |");
    println!("|---|---:|---:|");
    for ((name, _), times) in runners.iter().zip(&times) {
        let (median, low, high) = spread(times);
        println!("| {name} | {median:.3} | {low:.3}–{high:.3} |");
    }
    println!(
        "\nyamllint's time ÷ tether's, per round: {}",
        ratios(&times[1], &times[0])
    );
    Ok(())
}

/// `bench-parse-list LIST`: reads the files the NUL-separated `LIST` names
/// (relative to the working folder) and parses each with tree-sitter-yaml, on all
/// cores, a parser per thread: the parse baseline, as a process of its own.
pub fn parse_list(list: &Path) -> Result<()> {
    let names = std::fs::read(list).with_context(|| format!("cannot read {}", list.display()))?;
    let files: Vec<PathBuf> = names
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| PathBuf::from(String::from_utf8_lossy(name).into_owned()))
        .collect();
    let nodes: usize = files
        .par_iter()
        .map_init(
            || {
                let mut parser = tree_sitter::Parser::new();
                parser
                    .set_language(&tree_sitter_yaml::LANGUAGE.into())
                    .expect("tree-sitter-yaml loads");
                parser
            },
            |parser, file| {
                let bytes = std::fs::read(file).unwrap_or_default();
                parser
                    .parse(&bytes, None)
                    .map_or(0, |tree| tree.root_node().descendant_count())
            },
        )
        .sum();
    std::hint::black_box(nodes);
    Ok(())
}

/// Runs each of `runners` once per round, the order turned by one each round;
/// the times by runner.
fn paired(runners: &[Runner], rounds: usize) -> Result<Vec<Vec<Duration>>> {
    let mut times = vec![Vec::new(); runners.len()];
    for round in 0..rounds {
        for turn in 0..runners.len() {
            let at = (turn + round) % runners.len();
            let mut command = runners[at].1();
            times[at].push(time(command.stdout(Stdio::null()))?);
        }
    }
    Ok(times)
}

/// The files `tether check --show-files` lists under `repo`, relative to it.
fn show_files(tether: &Path, repo: &Path) -> Result<Vec<PathBuf>> {
    let output = Command::new(tether)
        .args(["check", "--show-files"])
        .current_dir(repo)
        .output()
        .context("cannot run tether check --show-files")?;
    ensure!(
        output.status.success(),
        "tether check --show-files failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(PathBuf::from)
        .collect())
}

fn nul_separated(files: &[PathBuf]) -> Vec<u8> {
    let mut out = Vec::new();
    for file in files {
        out.extend_from_slice(file.as_os_str().as_encoded_bytes());
        out.push(0);
    }
    out
}

/// `numerator[i] ÷ denominator[i]` for each round: the median and range.
pub(crate) fn ratios(numerator: &[Duration], denominator: &[Duration]) -> String {
    let mut each: Vec<f64> = numerator
        .iter()
        .zip(denominator)
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
        .collect();
    each.sort_by(f64::total_cmp);
    format!(
        "{:.2}× ({:.2}–{:.2})",
        each[each.len() / 2],
        each[0],
        each[each.len() - 1]
    )
}

/// The median, lowest and highest of `times`, in seconds.
pub(crate) fn spread(times: &[Duration]) -> (f64, f64, f64) {
    let mut sorted = times.to_vec();
    sorted.sort();
    (
        sorted[sorted.len() / 2].as_secs_f64(),
        sorted[0].as_secs_f64(),
        sorted[sorted.len() - 1].as_secs_f64(),
    )
}

/// The 1, 5 and 15 minute load averages.
pub(crate) fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}
