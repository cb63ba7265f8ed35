//! The `tether idem` part of `cargo xtask bench`: how long a sandbox copy of the
//! corpus takes, and what `tether idem` costs over running the command by hand.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use tether::idem::SandboxCopy;

use crate::bench_check::{copy_tree, time_expecting};
use crate::BenchArgs;

pub fn run(args: &BenchArgs) -> Result<()> {
    // 1. The sandbox copy of a corpus-sized repository: list, read, write.
    let mut list = Duration::MAX;
    let mut read = Duration::MAX;
    let mut write = Duration::MAX;
    let mut files = 0;
    let mut bytes = 0;
    for _ in 0..args.runs {
        let copy = SandboxCopy::of(&args.corpus)?;
        list = list.min(copy.list);
        read = read.min(copy.read);
        write = write.min(copy.write);
        files = copy.files;
        bytes = copy.bytes;
    }
    println!("\n## tether idem\n");
    println!(
        "Sandbox copy of the corpus ({files} files, {:.1} MB), best of {}:\n",
        bytes as f64 / 1e6,
        args.runs
    );
    println!("| step | seconds |\n|---|---:|");
    println!("| list the files | {:.3} |", list.as_secs_f64());
    println!("| read them | {:.3} |", read.as_secs_f64());
    println!("| write the copy | {:.3} |", write.as_secs_f64());
    println!("| total | {:.3} |", (list + read + write).as_secs_f64());

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
    Ok(())
}
