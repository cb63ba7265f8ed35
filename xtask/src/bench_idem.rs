//! The `tether idem` part of `cargo xtask bench`: how long a sandbox copy of the
//! corpus takes, and what `tether idem` costs over running the command by hand.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use helm_tether::internals::SandboxCopy;

use crate::bench_check::{copy_tree, time_expecting};
use crate::bench_paired::{load, ratios, spread};
use crate::BenchArgs;

pub fn run(args: &BenchArgs) -> Result<()> {
    // 1. The sandbox copy of a corpus-sized repository: list, read, write.
    let mut list = Duration::MAX;
    let mut read = Duration::MAX;
    let mut write = Duration::MAX;
    let mut files = 0;
    let mut bytes = 0;
    let mut reflinked = 0;
    for _ in 0..args.runs {
        let copy = SandboxCopy::of(&args.corpus)?;
        list = list.min(copy.list);
        read = read.min(copy.read);
        write = write.min(copy.write);
        files = copy.files;
        bytes = copy.bytes;
        reflinked = copy.reflinked;
    }
    println!("\n## tether idem\n");
    println!(
        "Sandbox copy of the corpus ({files} files, {:.1} MB), best of {}:\n",
        bytes as f64 / 1e6,
        args.runs
    );
    println!("| step | seconds |\n|---|---:|");
    println!("| list the files | {:.3} |", list.as_secs_f64());
    println!(
        "| read and hash them (the manifest) | {:.3} |",
        read.as_secs_f64()
    );
    println!("| write the copy | {:.3} |", write.as_secs_f64());
    println!("| total | {:.3} |", (list + read + write).as_secs_f64());
    println!(
        "\nFiles reflinked rather than copied: {reflinked} of {files} (reflinks need a filesystem that has them: btrfs, XFS, APFS)."
    );

    // 2. tether idem on the example chart against `make update` run by hand as many
    //    times as tether runs it (no-op, fixpoint, 7 self-heal mutants: 9 runs).
    let tether = std::env::current_exe()?
        .parent()
        .context("no folder for the xtask binary")?
        .join("tether");
    let example = crate::project_root().join("examples/kubevirt");
    let by_hand_copy = tempfile::tempdir()?;
    copy_tree(&example, by_hand_copy.path())?;
    let runs = 9;
    let mut idem_best = Duration::MAX;
    let mut idem_one_job = Duration::MAX;
    let mut by_hand = Duration::MAX;
    for _ in 0..args.runs {
        idem_best = idem_best.min(time_expecting(
            Command::new(&tether).arg("idem").arg(&example),
            &[0],
        )?);
        idem_one_job = idem_one_job.min(time_expecting(
            Command::new(&tether)
                .args(["idem", "--jobs", "1"])
                .arg(&example),
            &[0],
        )?);
        let start = Instant::now();
        for _ in 0..runs {
            let status = Command::new("make")
                .args(["-s", "update"])
                .current_dir(by_hand_copy.path())
                .stdout(Stdio::null())
                .status()?;
            ensure!(status.success(), "make update failed in the copy");
        }
        by_hand = by_hand.min(start.elapsed());
    }
    println!(
        "\n`tether idem examples/kubevirt` (9 runs of `make update`) against the same 9 runs by hand, best of {}:\n",
        args.runs
    );
    println!("| run | seconds | × by hand |\n|---|---:|---:|");
    for (name, time) in [
        ("`make update` × 9 by hand, one after the other", by_hand),
        ("`tether idem`, all cores", idem_best),
        ("`tether idem --jobs 1`", idem_one_job),
    ] {
        println!(
            "| {name} | {:.3} | {:.2} |",
            time.as_secs_f64(),
            time.as_secs_f64() / by_hand.as_secs_f64()
        );
    }
    monorepo(args)
}

/// Packages in the monorepo benchmark: copies of the example chart.
const PACKAGES: usize = 20;

/// The monorepo benchmark: a git repository of the Cozystack corpus plus
/// [`PACKAGES`] copies of `examples/kubevirt` under `packages/bench/`, one
/// `[[idem]] dirs` entry for all of them. Times `tether idem` on it (wall, peak RSS)
/// against the baseline a careful script would take: one `cp -r` of the tree plus the
/// same `make update` runs by hand, spread over the cores. Then one target alone, on
/// the whole tree, against its own runs by hand.
pub fn monorepo(args: &BenchArgs) -> Result<()> {
    let tether = std::env::current_exe()?
        .parent()
        .context("no folder for the xtask binary")?
        .join("tether");
    let work = tempfile::tempdir()?;
    let repo = work.path().join("repo");
    copy_tree(&args.corpus.join("cozystack"), &repo)?;
    let example = crate::project_root().join("examples/kubevirt");
    for index in 0..PACKAGES {
        let package = repo.join(format!("packages/bench/kubevirt-{index:02}"));
        copy_tree(&example, &package)?;
        std::fs::remove_file(package.join("tether.toml"))?;
    }
    std::fs::write(
        repo.join("tether.toml"),
        "[[idem]]\ndirs = [\"packages/bench/*\"]\nfiles = [\"templates/kubevirt-cr.yaml\"]\ntimeout = \"60s\"\nself-heal = [\n  \"{{- if .Values.cpuAllocationRatio }}\",\n  \"{{- range .Values.extraFeatureGates }}\",\n  \"{{- with .Values.permittedHostDevices }}\",\n  \"{{- with .Values.mediatedDevicesConfiguration }}\",\n  \"{{- with .Values.migrations }}\",\n  \"{{- with .Values.resources }}\",\n]\n",
    )?;
    for git_args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@example.com",
            "commit",
            "-qm",
            "bench",
        ],
    ] {
        let status = Command::new("git")
            .args(git_args)
            .current_dir(&repo)
            .status()?;
        ensure!(status.success(), "git {git_args:?} failed");
    }
    let files = Command::new("git")
        .args(["ls-files"])
        .current_dir(&repo)
        .output()?;
    let file_count = String::from_utf8_lossy(&files.stdout).lines().count();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // 2 (no-op, fixpoint) + 6 blocks + all = 9 runs per package.
    let runs_per_package = 9;
    // Each round runs every command once; ratios are taken within a round, and the
    // medians and ranges over the rounds are printed.
    let (mut tether_all, mut tether_rss, mut baseline, mut one, mut one_by_hand) =
        (Vec::new(), 0, Vec::new(), Vec::new(), Vec::new());
    let (mut copies_all, mut copies_rss, mut one_copy) = (Vec::new(), 0, Vec::new());
    let sandbox = Command::new(&tether)
        .args([
            "idem",
            "--target",
            "packages/bench/kubevirt-00",
            "--format",
            "json",
        ])
        .current_dir(&repo)
        .output()?;
    let sandbox: serde_json::Value = serde_json::from_slice(&sandbox.stdout)?;
    let load_before = load();
    for _ in 0..args.runs {
        let (wall, rss) = time_and_rss(&tether, &["idem"], &repo)?;
        tether_all.push(wall);
        tether_rss = tether_rss.max(rss);
        let (wall, rss) = time_and_rss(&tether, &["idem", "--sandbox", "copy"], &repo)?;
        copies_all.push(wall);
        copies_rss = copies_rss.max(rss);
        let (wall, _) = time_and_rss(
            &tether,
            &[
                "idem",
                "--sandbox",
                "copy",
                "--target",
                "packages/bench/kubevirt-00",
            ],
            &repo,
        )?;
        one_copy.push(wall);
        // The baseline: one copy of the tree, then the runs over the cores.
        let copy = work.path().join("by-hand");
        let _ = std::fs::remove_dir_all(&copy);
        let start = Instant::now();
        let status = Command::new("cp")
            .arg("-r")
            .arg(&repo)
            .arg(&copy)
            .status()?;
        ensure!(status.success(), "cp -r failed");
        run_by_hand(&copy, PACKAGES, runs_per_package, cores)?;
        baseline.push(start.elapsed());
        let (wall, _) = time_and_rss(
            &tether,
            &["idem", "--target", "packages/bench/kubevirt-00"],
            &repo,
        )?;
        one.push(wall);
        let start = Instant::now();
        run_by_hand(&copy, 1, runs_per_package, 1)?;
        one_by_hand.push(start.elapsed());
    }
    println!(
        "\n## tether idem on a monorepo\n\nThe Cozystack corpus plus {PACKAGES} copies of `examples/kubevirt` as packages (a git repository of {file_count} files), one `[[idem]] dirs` entry: {} targets × {runs_per_package} runs of `make update`. {} paired rounds, load average {load_before} before and {} after (peak RSS: the largest):\n",
        PACKAGES,
        args.runs,
        load()
    );
    println!("| run | median s | range s | ÷ baseline, per round: median (range) |\n|---|---:|---:|---:|");
    for (name, times) in [
        (
            format!(
                "baseline: `cp -r` of the tree + the {} runs by hand over {cores} cores",
                PACKAGES * runs_per_package
            ),
            &baseline,
        ),
        ("`tether idem`, all targets".to_string(), &tether_all),
        (
            "`tether idem --sandbox copy`, all targets".to_string(),
            &copies_all,
        ),
    ] {
        let (median, low, high) = spread(times);
        println!(
            "| {name} | {median:.3} | {low:.3}–{high:.3} | {} |",
            ratios(times, &baseline)
        );
    }
    println!("\n`tether idem` ran in: {}", sandbox["sandbox"]);
    println!(
        "\npeak RSS of `tether idem`: {:.1} MB, with copies {:.1} MB (target < 150 MB)",
        tether_rss as f64 / 1024.0,
        copies_rss as f64 / 1024.0
    );
    let (one, one_by_hand, one_copy) =
        (spread(&one).0, spread(&one_by_hand).0, spread(&one_copy).0);
    // The floor no copy can beat: creating that many files where the copies go.
    let floor = {
        let folder = tempfile::tempdir()?;
        let start = Instant::now();
        for index in 0..file_count {
            std::fs::File::create(folder.path().join(index.to_string()))?;
        }
        start.elapsed()
    };
    println!(
        "creating {file_count} empty files in the temp folder (one copy's file creations, the floor of any copy here): {:.3} s",
        floor.as_secs_f64()
    );
    println!(
        "one target (`--target packages/bench/kubevirt-00`) on the whole tree, medians: {one:.3} s, of which its {runs_per_package} runs by hand take {one_by_hand:.3} s: {:.3} s of tether (target < 0.5 s)",
        one - one_by_hand
    );
    println!(
        "the same target with `--sandbox copy`: {one_copy:.3} s: {:.3} s of tether",
        one_copy - one_by_hand
    );
    Ok(())
}

/// Runs `make update` `runs` times in each of the first `packages` packages of the
/// copy, the packages spread over `workers` threads.
fn run_by_hand(copy: &std::path::Path, packages: usize, runs: usize, workers: usize) -> Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if index >= packages {
                    break;
                }
                let dir = copy.join(format!("packages/bench/kubevirt-{index:02}"));
                for _ in 0..runs {
                    let ok = Command::new("make")
                        .args(["-s", "update"])
                        .current_dir(&dir)
                        .stdout(Stdio::null())
                        .status()
                        .is_ok_and(|status| status.success());
                    if !ok {
                        failed.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            });
        }
    });
    ensure!(!failed.into_inner(), "make update failed in the copy");
    Ok(())
}

/// Wall time and peak RSS (KiB) of one run, with GNU time.
fn time_and_rss(
    program: &std::path::Path,
    arguments: &[&str],
    dir: &std::path::Path,
) -> Result<(Duration, u64)> {
    let start = Instant::now();
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(arguments)
        .current_dir(dir)
        .stdout(Stdio::null())
        .output()
        .context("cannot run /usr/bin/time (GNU time): apt-get install time")?;
    let wall = start.elapsed();
    ensure!(
        output.status.success(),
        "{} {arguments:?} failed: {}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let rss = String::from_utf8_lossy(&output.stderr)
        .lines()
        .last()
        .and_then(|line| line.trim().parse().ok())
        .context("GNU time printed no peak RSS")?;
    Ok((wall, rss))
}
