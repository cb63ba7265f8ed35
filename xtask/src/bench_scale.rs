//! `cargo xtask bench-scale`: the peak memory of `tether check` on 1, 4 and 16
//! copies of the corpus side by side in one folder, each a tree of its own: a run
//! holds the chart trees it is checking, not the repository, so the peak should
//! follow the largest tree, not the number of copies (issue 39's target: the 16×
//! peak at most 1.5× the 1× peak). Each size is run three times; the largest peak
//! of the three is kept.

use std::path::Path;

use anyhow::{ensure, Context, Result};

use crate::bench_check::{copy_tree, peak_rss_kib};

/// The numbers of copies measured.
const COPIES: [usize; 3] = [1, 4, 16];

/// Runs the scale measure with the profiling build's `tether`.
pub fn bench_scale(corpus: &Path) -> Result<()> {
    let tether = crate::build_profiling(&["--package", "helm-tether", "--bin", "tether"])?
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    run(&tether, corpus)
}

/// Measures `tether` on copies of `corpus`, in a folder of the system's temporary
/// folder that it removes after.
pub fn run(tether: &Path, corpus: &Path) -> Result<()> {
    let corpus = corpus.canonicalize()?;
    let top = std::env::temp_dir().join(format!("tether-scale-{}", std::process::id()));
    let mut peaks = Vec::new();
    for copies in COPIES {
        let folder = top.join(format!("x{copies}"));
        for copy in 0..copies {
            copy_tree(&corpus, &folder.join(format!("copy{copy}")))?;
        }
        let folder_arg = folder.to_string_lossy().to_string();
        let arguments = ["check", "--no-cache", "--format", "json", &folder_arg];
        let peak = (0..3)
            .map(|_| peak_rss_kib(tether, &arguments).context("GNU time (/usr/bin/time) is needed"))
            .collect::<Result<Vec<u64>>>()?
            .into_iter()
            .max()
            .unwrap_or_default();
        peaks.push((copies, peak));
        std::fs::remove_dir_all(&folder)?;
    }
    let _ = std::fs::remove_dir_all(&top);
    let (_, one) = peaks[0];
    ensure!(one > 0, "no peak measured for one copy");
    println!("\n## tether check at 1×, 4× and 16× the corpus\n");
    println!("| copies | peak RSS | against 1× |");
    println!("|---:|---:|---:|");
    for (copies, peak) in &peaks {
        println!(
            "| {copies} | {:.1} MB | {:.2}× |",
            *peak as f64 / 1024.0,
            *peak as f64 / one as f64
        );
    }
    Ok(())
}
