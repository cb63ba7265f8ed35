//! `cargo xtask fuzz`: runs the cargo-fuzz targets in `fuzz/` under libFuzzer, each
//! for a while, seeded with the test fixtures, and fails on any crash.
//!
//! The targets need a nightly toolchain, installed when missing; a machine where it
//! cannot be installed fails the task rather than skipping it, so CI never passes a
//! campaign that did not run. The targets are built as `cargo fuzz build` builds them
//! (the same coverage instrumentation, AddressSanitizer, debug assertions), by cargo
//! itself: installing cargo-fuzz took a minute of every fresh CI run, for five
//! seconds of fuzzing per target. `fuzz/` stays a cargo-fuzz project: `cargo fuzz run NAME` works where it is
//! installed.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};

/// The fuzz targets, as named in `fuzz/Cargo.toml`.
pub const TARGETS: [&str; 8] = [
    "lex_mask",
    "model_bytes",
    "plain_walk",
    "config",
    "check_modes",
    "fix",
    "snapshot_writer",
    "lsp_messages",
];

/// The fixture files copied into every target's corpus as seeds.
const SEED_EXTENSIONS: [&str; 4] = ["yaml", "yml", "tpl", "toml"];

/// Prefixes of the files libFuzzer writes to the artifact folder when an input fails.
const FAILURE_PREFIXES: [&str; 4] = ["crash-", "leak-", "oom-", "timeout-"];

/// Seconds one input may take before libFuzzer calls it a hang: tether bounds its
/// work per input byte, and inputs are a few KiB, so seconds mean a super-linear scan.
const TIMEOUT_SECONDS: u64 = 10;

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [--target NAME]...";

/// What `fuzz` takes.
pub struct FuzzArgs {
    /// Seconds of fuzzing per target.
    pub seconds: u64,
    /// The targets to run, in order.
    pub targets: Vec<String>,
}

/// `[--seconds N] [--target NAME]...`: 60 seconds each, every target by default.
pub fn fuzz_args(args: &[String]) -> Result<FuzzArgs> {
    let mut seconds = 60;
    let mut targets = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = args.next().context(USAGE)?.parse().context(USAGE)?;
            }
            "--target" => {
                let target = args.next().context(USAGE)?;
                ensure!(
                    TARGETS.contains(&target.as_str()),
                    "unknown fuzz target `{target}`; the targets are {}",
                    TARGETS.join(", ")
                );
                if !targets.contains(target) {
                    targets.push(target.clone());
                }
            }
            _ => bail!("unexpected argument `{arg}`\n{USAGE}"),
        }
    }
    ensure!(seconds > 0, "--seconds must be at least 1");
    if targets.is_empty() {
        targets = TARGETS.map(String::from).to_vec();
    }
    Ok(FuzzArgs { seconds, targets })
}

pub fn fuzz(args: &FuzzArgs) -> Result<()> {
    let root = crate::project_root();
    let fuzz_dir = root.join("fuzz");
    ensure_nightly()?;
    let host = crate::dist::host_triple()?;

    let seeds = seed_corpora(&root.join("tests/fixtures"), &fuzz_dir, &args.targets)?;
    eprintln!(
        "seeded {} corpora in fuzz/corpus/ with {seeds} fixture files",
        args.targets.len()
    );

    // Build first, with cargo's own progress on the terminal: the first build takes
    // minutes, and each run's output then goes to its log.
    let started = Instant::now();
    let mut build = fuzz_build(&root, &host);
    for target in &args.targets {
        build.args(["--bin", target]);
    }
    let status = build
        .status()
        .context("cannot run cargo +nightly build for the fuzz targets")?;
    ensure!(
        status.success(),
        "building the fuzz targets failed; see cargo's output above"
    );
    eprintln!("built the fuzz targets in {:.0?}", started.elapsed());

    let logs = fuzz_dir.join("logs");
    fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let mut outcomes = Vec::new();
    for target in &args.targets {
        outcomes.push(run_target(&root, &host, target, args.seconds)?);
    }

    println!(
        "{:<12} {:>8} {:>12} {:>9} {:>8}",
        "target", "seconds", "executions", "exec/s", "crashes"
    );
    for outcome in &outcomes {
        println!(
            "{:<12} {:>8} {:>12} {:>9} {:>8}",
            outcome.target,
            or_unknown(outcome.seconds),
            or_unknown(outcome.executions),
            or_unknown(outcome.rate),
            outcome.failures.len()
        );
    }
    for outcome in &outcomes {
        if outcome.earlier_failures > 0 {
            println!(
                "note: fuzz/artifacts/{} holds {} failing input(s) from earlier runs",
                outcome.target, outcome.earlier_failures
            );
        }
    }

    let mut failed = Vec::new();
    for outcome in &outcomes {
        let log = outcome.log.strip_prefix(&root).unwrap_or(&outcome.log);
        for failure in &outcome.failures {
            let artifact = failure.strip_prefix(&root).unwrap_or(failure);
            println!("\n{} failed on {}", outcome.target, artifact.display());
            if let Some(panic) = &outcome.panic {
                println!("{panic}");
            }
            println!(
                "reproduce: {} {}",
                target_binary(Path::new(""), &host, &outcome.target).display(),
                artifact.display()
            );
            println!(
                "minimise:  {} -minimize_crash=1 -runs=10000 {}",
                target_binary(Path::new(""), &host, &outcome.target).display(),
                artifact.display()
            );
            println!("log:       {}", log.display());
        }
        if outcome.failures.is_empty() && !outcome.success {
            println!(
                "\n{} stopped with an error and left no failing input; see {}",
                outcome.target,
                log.display()
            );
        }
        if !outcome.failures.is_empty() || !outcome.success {
            failed.push(outcome.target.as_str());
        }
    }
    ensure!(
        failed.is_empty(),
        "fuzzing failed in {}; reproduce each failing input with the command above",
        failed.join(", ")
    );
    Ok(())
}

fn or_unknown(number: Option<u64>) -> String {
    number.map_or_else(|| "?".to_string(), |number| number.to_string())
}

/// Checks that a nightly toolchain is installed, and installs a minimal one if not.
fn ensure_nightly() -> Result<()> {
    let list = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .context(
            "cannot run `rustup toolchain list`; install rustup: the fuzz targets need nightly",
        )?;
    ensure!(list.status.success(), "`rustup toolchain list` failed");
    // `nightly-x86_64-…` answers to `+nightly`; a dated `nightly-2025-01-01-…` does not.
    let installed = String::from_utf8_lossy(&list.stdout).lines().any(|line| {
        line.strip_prefix("nightly-")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    });
    if !installed {
        eprintln!(
            "no nightly toolchain: running rustup toolchain install nightly --profile minimal"
        );
        let status = Command::new("rustup")
            .args(["toolchain", "install", "nightly", "--profile", "minimal"])
            .status()
            .context("cannot run rustup toolchain install")?;
        ensure!(
            status.success(),
            "cannot install the nightly toolchain that libFuzzer builds need{}",
            ci_note()
        );
    }
    Ok(())
}

/// On CI a missing fuzzing tool is a failure, never a reason to skip.
fn ci_note() -> &'static str {
    if std::env::var("CI").is_ok_and(|value| value == "true") {
        " (CI=true: the fuzz campaign fails rather than being skipped)"
    } else {
        ""
    }
}

/// Copies every fixture file into `fuzz/corpus/<target>/`, named after its path so a
/// seed is recognisable; returns how many fixture files there are.
fn seed_corpora(fixtures: &Path, fuzz_dir: &Path, targets: &[String]) -> Result<usize> {
    let mut files = Vec::new();
    collect_fixtures(fixtures, &mut files)?;
    files.sort();
    for target in targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        fs::create_dir_all(&corpus)
            .with_context(|| format!("cannot create {}", corpus.display()))?;
        for file in &files {
            let relative = file.strip_prefix(fixtures).unwrap_or(file);
            let name = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("__");
            let seed = corpus.join(format!("fixture__{name}"));
            fs::copy(file, &seed)
                .with_context(|| format!("cannot copy {} to {}", file.display(), seed.display()))?;
        }
    }
    Ok(files.len())
}

/// The regular files under `folder` with a seed extension; symbolic links are not
/// followed (some fixtures are links on purpose).
fn collect_fixtures(folder: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        fs::read_dir(folder).with_context(|| format!("cannot read {}", folder.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", folder.display()))?;
        let path = entry.path();
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            collect_fixtures(&path, files)?;
        } else if file_type.is_file()
            && path
                .extension()
                .and_then(|extension| extension.to_str())
                .is_some_and(|extension| SEED_EXTENSIONS.contains(&extension))
        {
            files.push(path);
        }
    }
    Ok(())
}

/// What one target's run found.
///
/// The figures are libFuzzer's own, so they leave out the build; `None` where it
/// printed none.
struct Outcome {
    target: String,
    /// Seconds spent fuzzing.
    seconds: Option<u64>,
    executions: Option<u64>,
    /// Executions per second.
    rate: Option<u64>,
    /// Failing inputs written by this run.
    failures: Vec<PathBuf>,
    /// Failing inputs already in the artifact folder before this run.
    earlier_failures: usize,
    /// The panic message, when the target panicked.
    panic: Option<String>,
    /// libFuzzer exited 0.
    success: bool,
    log: PathBuf,
}

fn run_target(root: &Path, host: &str, target: &str, seconds: u64) -> Result<Outcome> {
    let fuzz_dir = root.join("fuzz");
    let artifacts = fuzz_dir.join("artifacts").join(target);
    let before = failing_inputs(&artifacts);
    let log = fuzz_dir.join("logs").join(format!("{target}.log"));
    let output =
        fs::File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
    eprintln!(
        "fuzzing {target} for {seconds} s (log: {})",
        log.strip_prefix(root).unwrap_or(&log).display()
    );
    fs::create_dir_all(&artifacts)
        .with_context(|| format!("cannot create {}", artifacts.display()))?;
    let mut command = Command::new(target_binary(root, host, target));
    // As `cargo fuzz run` sets them: failing inputs into the artifact folder.
    let mut prefix = artifacts.clone().into_os_string();
    prefix.push("/");
    let mut artifact_prefix = std::ffi::OsString::from("-artifact_prefix=");
    artifact_prefix.push(prefix);
    command
        .arg(artifact_prefix)
        .env("ASAN_OPTIONS", "detect_odr_violation=0")
        .current_dir(root);
    // In CI the campaign starts from the same seed every time, so a failure there is
    // one a developer can reproduce.
    if std::env::var("CI").as_deref() == Ok("true") {
        command.arg("-seed=1");
    }
    let status = command
        .arg(format!("-max_total_time={seconds}"))
        .arg("-rss_limit_mb=2048")
        .arg(format!("-timeout={TIMEOUT_SECONDS}"))
        .arg("-print_final_stats=1")
        .arg(fuzz_dir.join("corpus").join(target))
        .stdout(output.try_clone()?)
        .stderr(output)
        .status()
        .with_context(|| format!("cannot run the fuzz target {target}"))?;
    let text = fs::read(&log).with_context(|| format!("cannot read {}", log.display()))?;
    let text = String::from_utf8_lossy(&text);
    let after = failing_inputs(&artifacts);
    let executions = executions(&text);
    let rate = final_stat(&text, "average_exec_per_sec");
    Ok(Outcome {
        target: target.to_string(),
        seconds: fuzzing_seconds(&text).or_else(|| match (executions, rate) {
            (Some(count), Some(rate)) if rate > 0 => Some(count / rate),
            _ => None,
        }),
        executions,
        rate,
        failures: after.difference(&before).cloned().collect(),
        earlier_failures: before.len(),
        panic: panic_message(&text),
        success: status.success(),
        log,
    })
}

/// The flags `cargo fuzz build` (0.13) gives rustc for libFuzzer with
/// AddressSanitizer. One codegen unit per crate, as it has it (so that the coverage
/// passes leave inlining alone): sixteen took more CPU time to build, not less
/// (422 s against 360 s of user time, measured with `/usr/bin/time`).
const FUZZ_RUSTFLAGS: &str = " -Cpasses=sancov-module \
     -Cllvm-args=-sanitizer-coverage-level=4 \
     -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
     -Cllvm-args=-sanitizer-coverage-pc-table \
     -Cllvm-args=-sanitizer-coverage-trace-compares \
     --cfg fuzzing \
     -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
     -Zsanitizer=address";

/// What follows [`FUZZ_RUSTFLAGS`], in cargo-fuzz's order (the same flags in the same
/// order reuse a build `cargo fuzz build` made).
const FUZZ_RUSTFLAGS_LAST: &str = "-Cdebug-assertions -Ccodegen-units=1";

/// `cargo +nightly build` of the fuzz crate as `cargo fuzz build` does it: for the
/// host triple named (so the flags miss build scripts and proc macros), optimised,
/// with line tables for the stack traces.
fn fuzz_build(root: &Path, host: &str) -> Command {
    let mut flags = FUZZ_RUSTFLAGS.to_string();
    if host.contains("-linux-") {
        flags.push_str(" -Cllvm-args=-sanitizer-coverage-stack-depth");
    }
    flags.push(' ');
    flags.push_str(FUZZ_RUSTFLAGS_LAST);
    let mut command = Command::new("cargo");
    command
        .args(["+nightly", "build", "--manifest-path", "fuzz/Cargo.toml"])
        .args(["--target", host, "--release"])
        .args(["--config", "profile.release.debug=\"line-tables-only\""])
        .env("RUSTFLAGS", flags)
        .current_dir(root);
    command
}

/// Where `fuzz_build` puts a target, below `root`.
fn target_binary(root: &Path, host: &str, target: &str) -> PathBuf {
    root.join("fuzz/target")
        .join(host)
        .join("release")
        .join(target)
}

/// The failing inputs libFuzzer has written to an artifact folder.
fn failing_inputs(artifacts: &Path) -> BTreeSet<PathBuf> {
    let Ok(entries) = fs::read_dir(artifacts) else {
        return BTreeSet::new();
    };
    entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| {
                    FAILURE_PREFIXES
                        .iter()
                        .any(|prefix| name.starts_with(prefix))
                })
        })
        .collect()
}

/// Inputs run: `stat::number_of_executed_units: N` from `-print_final_stats=1`, or
/// else the count of the last `#N` status line.
fn executions(log: &str) -> Option<u64> {
    final_stat(log, "number_of_executed_units").or_else(|| {
        log.lines().rev().find_map(|line| {
            let rest = line.strip_prefix('#')?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let after = &rest[digits.len()..];
            if !after.starts_with(char::is_whitespace) {
                return None;
            }
            digits.parse().ok()
        })
    })
}

/// A number from `-print_final_stats=1`: `stat::NAME: N`.
fn final_stat(log: &str, name: &str) -> Option<u64> {
    log.lines().rev().find_map(|line| {
        line.strip_prefix("stat::")?
            .strip_prefix(name)?
            .strip_prefix(':')?
            .trim()
            .parse()
            .ok()
    })
}

/// `Done N runs in S second(s)`, which libFuzzer prints when time is up (not on a
/// crash).
fn fuzzing_seconds(log: &str) -> Option<u64> {
    log.lines().rev().find_map(|line| {
        let rest = line.strip_prefix("Done ")?;
        let (_, seconds) = rest.split_once(" runs in ")?;
        seconds.strip_suffix(" second(s)")?.trim().parse().ok()
    })
}

/// The Rust panic in a log: from `panicked at` to its backtrace or libFuzzer's report.
fn panic_message(log: &str) -> Option<String> {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.iter().position(|line| line.contains("panicked at"))?;
    let message: Vec<&str> = lines[start..]
        .iter()
        .take_while(|line| {
            !["note:", "stack backtrace:", "=="]
                .iter()
                .any(|end| line.starts_with(end))
        })
        .take(20)
        .copied()
        .collect();
    Some(message.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FINISHED: &str = "\
#22850\tDONE   cov: 4241 ft: 20638 corp: 1686/1305Kb lim: 4247 exec/s: 374 rss: 504Mb
Done 22850 runs in 61 second(s)
stat::number_of_executed_units: 22850
stat::average_exec_per_sec:     374
stat::peak_rss_mb:              504
";

    const CRASHED: &str = "\
#3585\tNEW    cov: 1 ft: 2 corp: 3/4b lim: 4 exec/s: 1793 rss: 377Mb L: 2/2 MS: 1 CrossOver-
thread '<unnamed>' (17896) panicked at fuzz_targets/lex_mask.rs:65:9:
assertion `left == right` failed: moved a carriage return at byte 194
  left: true
 right: false
stack backtrace:
   0: __rustc::rust_begin_unwind
==17896== ERROR: libFuzzer: deadly signal
";

    #[test]
    fn final_statistics_are_read() {
        assert_eq!(executions(FINISHED), Some(22850));
        assert_eq!(final_stat(FINISHED, "average_exec_per_sec"), Some(374));
        assert_eq!(fuzzing_seconds(FINISHED), Some(61));
        assert_eq!(panic_message(FINISHED), None);
    }

    #[test]
    fn a_crash_log_gives_the_last_count_and_the_panic() {
        assert_eq!(executions(CRASHED), Some(3585));
        assert_eq!(fuzzing_seconds(CRASHED), None);
        assert_eq!(
            panic_message(CRASHED).as_deref(),
            Some(
                "thread '<unnamed>' (17896) panicked at fuzz_targets/lex_mask.rs:65:9:\n\
                 assertion `left == right` failed: moved a carriage return at byte 194\n  \
                 left: true\n right: false"
            )
        );
    }

    #[test]
    fn arguments_default_to_every_target_for_a_minute() {
        let args = fuzz_args(&[]).unwrap();
        assert_eq!(args.seconds, 60);
        assert_eq!(args.targets, TARGETS.map(String::from));
        let args = fuzz_args(&["--seconds", "5", "--target", "config"].map(String::from)).unwrap();
        assert_eq!(
            (args.seconds, args.targets),
            (5, vec!["config".to_string()])
        );
        assert!(fuzz_args(&["--target", "nope"].map(String::from)).is_err());
        assert!(fuzz_args(&["--seconds", "0"].map(String::from)).is_err());
    }
}
