//! `cargo xtask bench`: times lex+mask, tree-sitter parsing and the whole model
//! pipeline over a corpus of charts, and reports peak memory and recovered templates.

use std::hint::black_box;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use rayon::prelude::*;
use tether::template::{lex::lex, mask::mask};
use tether::yaml::parse::{parse_tree, split_documents};

use crate::BenchArgs;

/// Builds xtask in release mode and runs its `bench-run` task: numbers from a debug
/// build would measure the debug build.
pub fn bench(args: &BenchArgs) -> Result<()> {
    if !cfg!(debug_assertions) {
        return bench_run(args);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--package", "xtask"])
        .current_dir(crate::project_root())
        .status()
        .context("cannot run cargo build --release")?;
    ensure!(
        status.success(),
        "cargo build --release --package xtask failed"
    );
    // This binary is `<target>/debug/xtask`; its release twin is `<target>/release/xtask`.
    let exe = std::env::current_exe()?;
    let release = exe
        .parent()
        .and_then(Path::parent)
        .context("unexpected location of the xtask binary")?
        .join("release")
        .join(format!("xtask{}", std::env::consts::EXE_SUFFIX));
    let status = Command::new(&release)
        .arg("bench-run")
        .arg("--corpus")
        .arg(&args.corpus)
        .arg("--runs")
        .arg(args.runs.to_string())
        .status()
        .with_context(|| format!("cannot run {}", release.display()))?;
    ensure!(status.success(), "{} bench-run failed", release.display());
    Ok(())
}

/// One corpus file, read before anything is timed.
struct CorpusFile {
    /// Path relative to the corpus: what `is_template_path` and the report see.
    path: PathBuf,
    text: String,
    is_template: bool,
}

/// Text to parse after masking, and the byte range of each of its documents.
struct Prepared<'a> {
    text: &'a str,
    documents: Vec<Range<usize>>,
}

/// The best wall time and, separately, the best CPU time (user + system, all threads)
/// of a phase's runs. CPU time does not grow when other processes take the cores.
#[derive(Clone, Copy)]
struct Best {
    wall: Duration,
    cpu: f64,
}

impl Best {
    const NONE: Best = Best {
        wall: Duration::MAX,
        cpu: f64::INFINITY,
    };

    /// Runs `run` once, keeps the better times, and returns its result.
    fn time<T>(&mut self, run: impl FnOnce() -> T) -> T {
        let (cpu, start) = (cpu_seconds(), Instant::now());
        let value = black_box(run());
        self.wall = self.wall.min(start.elapsed());
        self.cpu = self.cpu.min(cpu_seconds() - cpu);
        value
    }
}

pub fn bench_run(args: &BenchArgs) -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build, numbers are meaningless; use `cargo xtask bench`");
    }
    let corpus = &args.corpus;
    let files = read_corpus(corpus)?;
    let total_bytes: usize = files.iter().map(|f| f.text.len()).sum();
    let templates = || files.iter().filter(|f| f.is_template);
    let template_bytes: usize = templates().map(|f| f.text.len()).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = rayon::current_num_threads();

    // Inputs of (b), prepared untimed: the masked text and its documents' bytes.
    let masked: Vec<Option<String>> = files
        .iter()
        .map(|f| f.is_template.then(|| mask(&f.text, &lex(&f.text).0).text))
        .collect();
    let masked_bytes: usize = masked.iter().flatten().map(String::len).sum();
    let prepared: Vec<Prepared> = files
        .iter()
        .zip(&masked)
        .map(|(file, masked)| {
            let text = masked.as_deref().unwrap_or(&file.text);
            let starts = line_starts(text);
            let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
            let documents = split_documents(text, &starts, bom)
                .iter()
                .map(|lines| document_bytes(text, &starts, bom, lines))
                .collect();
            Prepared { text, documents }
        })
        .collect();
    let baseline_rss = status_kib("VmRSS:");

    // (a) lex + mask, templates only.
    let lex_mask_one = |f: &CorpusFile| -> usize {
        let (actions, _errors) = lex(&f.text);
        mask(&f.text, &actions).text.len()
    };
    // (b) tree-sitter alone, on the masked text, document by document.
    let parse_one = |p: &Prepared| -> usize {
        p.documents
            .iter()
            .filter(|range| parse_tree(&p.text[(*range).clone()]).is_some())
            .count()
    };
    // (c) the whole pipeline. The copy into an owned buffer, which `model_bytes`
    // takes, is timed too: a memcpy, noise next to the rest.
    let model_one = |f: &CorpusFile| -> bool {
        let model = tether::model_bytes(&f.path, f.text.as_bytes().to_vec());
        model.documents.iter().any(|d| d.recovered)
    };

    // Rounds interleave the phases, so a burst of load on a shared machine does not
    // land on one phase's runs only.
    let [mut lex_mask, mut parse_1, mut parse_n, mut model_1, mut model_n] = [Best::NONE; 5];
    let mut recovered_flags = Vec::new();
    for _ in 0..args.runs {
        lex_mask.time(|| templates().map(lex_mask_one).sum::<usize>());
        parse_1.time(|| prepared.iter().map(parse_one).sum::<usize>());
        parse_n.time(|| prepared.par_iter().map(parse_one).sum::<usize>());
        recovered_flags = model_1.time(|| files.iter().map(model_one).collect::<Vec<_>>());
        model_n.time(|| files.par_iter().map(model_one).filter(|&r| r).count());
    }
    drop(prepared);
    drop(masked);
    let peak_rss = status_kib("VmHWM:");
    let streaming_rss = streaming_peak_rss(corpus);

    // Report.
    let mb = |bytes: usize| bytes as f64 / 1e6;
    let row = |phase: &str, threads: usize, best: Best| {
        let secs = best.wall.as_secs_f64();
        println!(
            "| {phase} | {threads} | {secs:.3} | {:.1} | {:.2} |",
            mb(total_bytes) / secs,
            best.cpu
        );
    };
    println!("# tether benchmark\n");
    println!("- corpus: {}", corpus.display());
    println!(
        "- files: {} ({} templates), {:.1} MB ({:.1} MB templates)",
        files.len(),
        templates().count(),
        mb(total_bytes),
        mb(template_bytes)
    );
    println!("- cores: {cores} (rayon threads: {threads})");
    println!(
        "- best of {} runs; MB/s is the whole corpus's bytes over the wall time; CPU is \
         user + system time of all threads, in 10 ms ticks\n",
        args.runs
    );
    println!("| phase | threads | seconds | MB/s | CPU seconds |");
    println!("|---|---:|---:|---:|---:|");
    row("lex + mask (templates only)", 1, lex_mask);
    row("tree-sitter parse (masked, per document)", 1, parse_1);
    row("tree-sitter parse (masked, per document)", threads, parse_n);
    row("full pipeline (`model_bytes`)", 1, model_1);
    row("full pipeline (`model_bytes`)", threads, model_n);
    let wall_1 = |best: Best| best.wall.as_secs_f64();
    let overhead = |c: f64, b: f64| (c - b) / b * 100.0;
    println!(
        "\noverhead of lex+mask+anchor over tree-sitter parsing, single thread (target <= 25%): \
         {:.1}% by wall time, {:.1}% by CPU time",
        overhead(wall_1(model_1), wall_1(parse_1)),
        overhead(model_1.cpu, parse_1.cpu)
    );
    let kib_mb = |kib: u64| kib as f64 * 1024.0 / 1e6;
    match (peak_rss, baseline_rss) {
        (Some(peak), Some(baseline)) => println!(
            "peak RSS (VmHWM, target < 150 MB): {:.1} MB; {:.1} MB of it was resident before \
             the timed runs: the corpus held in memory ({:.1} MB text + {:.1} MB masked) \
             and the process",
            kib_mb(peak),
            kib_mb(baseline),
            mb(total_bytes),
            mb(masked_bytes)
        ),
        _ => println!("peak RSS: unavailable (no /proc/self/status)"),
    }
    match streaming_rss {
        Ok(kib) => println!(
            "peak RSS of the pipeline alone, in a fresh process reading and modelling one \
             file at a time on {threads} threads, as the tool does: {:.1} MB",
            kib_mb(kib)
        ),
        Err(error) => println!("peak RSS of the pipeline alone: unavailable ({error:#})"),
    }

    let templates_yaml: Vec<(&CorpusFile, bool)> = files
        .iter()
        .zip(recovered_flags)
        .filter(|(f, _)| {
            in_templates_dir(&f.path) && f.path.extension().is_some_and(|e| e == "yaml")
        })
        .collect();
    let recovered: Vec<&Path> = templates_yaml
        .iter()
        .filter(|(_, recovered)| *recovered)
        .map(|(f, _)| f.path.as_path())
        .collect();
    println!(
        "\ntemplates/*.yaml files: {}, with a recovered document: {} ({:.1}%)",
        templates_yaml.len(),
        recovered.len(),
        recovered.len() as f64 * 100.0 / templates_yaml.len().max(1) as f64
    );
    if !recovered.is_empty() {
        println!("\nRecovered template files:\n");
        for path in recovered {
            println!("- {}", path.display());
        }
    }
    Ok(())
}

/// Runs `bench-rss` in a fresh process and returns its peak RSS in KiB.
fn streaming_peak_rss(corpus: &Path) -> Result<u64> {
    let output = Command::new(std::env::current_exe()?)
        .arg("bench-rss")
        .arg("--corpus")
        .arg(corpus)
        .output()?;
    ensure!(output.status.success(), "bench-rss failed");
    Ok(String::from_utf8(output.stdout)?.trim().parse()?)
}

/// Models every corpus file, read one at a time on all cores as the tool would, and
/// prints the process's peak RSS in KiB: the memory the pipeline itself needs.
pub fn bench_rss(corpus: &Path) -> Result<()> {
    let mut paths = Vec::new();
    walk(corpus, &mut paths)?;
    paths.par_iter().try_for_each(|path| -> Result<()> {
        let bytes = std::fs::read(path)?;
        black_box(tether::model_bytes(path.strip_prefix(corpus)?, bytes));
        Ok(())
    })?;
    println!(
        "{}",
        status_kib("VmHWM:").context("no VmHWM in /proc/self/status")?
    );
    Ok(())
}

fn in_templates_dir(path: &Path) -> bool {
    path.parent()
        .is_some_and(|p| p.components().any(|c| c.as_os_str() == "templates"))
}

/// Every `*.yaml`, `*.yml` and `*.tpl` file under `corpus`, sorted by path, read.
fn read_corpus(corpus: &Path) -> Result<Vec<CorpusFile>> {
    let mut paths = Vec::new();
    walk(corpus, &mut paths)?;
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let text = String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            let path = path.strip_prefix(corpus)?.to_path_buf();
            let is_template = tether::is_template_path(&path);
            Ok(CorpusFile {
                path,
                text,
                is_template,
            })
        })
        .collect()
}

/// Recursion without following symbolic links.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "tpl")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Offset of every line start: 0, then every offset after a `\n`.
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(offset, _)| offset + 1))
        .collect()
}

/// Byte range of a document's lines, as the library slices it: the first document
/// starts after a byte-order mark.
pub(crate) fn document_bytes(
    text: &str,
    line_starts: &[usize],
    content_start: usize,
    lines: &Range<usize>,
) -> Range<usize> {
    let start = line_starts[lines.start].max(if lines.start == 0 { content_start } else { 0 });
    let end = line_starts.get(lines.end).map_or(text.len(), |&n| n);
    start..end
}

/// User + system CPU time of the whole process, from `/proc/self/stat` (fields 14
/// and 15, in ticks of 1/100 s, Linux's `USER_HZ`); 0 where there is no procfs.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name, which is in parentheses and may hold spaces;
    // the first of them is field 3.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|field| field.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// A size in KiB from `/proc/self/status`: `VmHWM:` is the peak resident set size,
/// `VmRSS:` the current one.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
