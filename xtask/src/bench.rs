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

const RUNS: usize = 3;

/// Builds xtask in release mode and runs its `bench-run` task: numbers from a debug
/// build would measure the debug build.
pub fn bench(corpus: PathBuf) -> Result<()> {
    if !cfg!(debug_assertions) {
        return bench_run(&corpus);
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
        .arg(&corpus)
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

pub fn bench_run(corpus: &Path) -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build, numbers are meaningless; use `cargo xtask bench`");
    }
    let files = read_corpus(corpus)?;
    let total_bytes: usize = files.iter().map(|f| f.text.len()).sum();
    let template_bytes: usize = files
        .iter()
        .filter(|f| f.is_template)
        .map(|f| f.text.len())
        .sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = rayon::current_num_threads();

    // (a) lex + mask, templates only.
    let lex_mask = best_of(|| {
        files
            .iter()
            .filter(|f| f.is_template)
            .map(|f| {
                let (actions, _errors) = lex(&f.text);
                mask(&f.text, &actions).text.len()
            })
            .sum::<usize>()
    });

    // (b) tree-sitter alone, on the masked text, document by document.
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
    let parse_one = |p: &Prepared| -> usize {
        p.documents
            .iter()
            .filter(|range| parse_tree(&p.text[(*range).clone()]).is_some())
            .count()
    };
    let parse_single = best_of(|| prepared.iter().map(parse_one).sum::<usize>());
    let parse_parallel = best_of(|| prepared.par_iter().map(parse_one).sum::<usize>());
    drop(prepared);
    drop(masked);

    // (c) the whole pipeline. The copy into an owned buffer, which `model_bytes`
    // takes, is timed too: a memcpy, noise next to the rest.
    let model_one = |f: &CorpusFile| -> bool {
        let model = tether::model_bytes(&f.path, f.text.as_bytes().to_vec());
        model.documents.iter().any(|d| d.recovered)
    };
    let (model_single, recovered_flags) =
        best_of_with(|| files.iter().map(model_one).collect::<Vec<bool>>());
    let model_parallel = best_of(|| files.par_iter().map(model_one).filter(|&r| r).count());

    let peak_rss = peak_rss_kib();

    // Report.
    let mb = |bytes: usize| bytes as f64 / 1e6;
    let row = |phase: &str, threads: usize, time: Duration| {
        let secs = time.as_secs_f64();
        println!(
            "| {phase} | {threads} | {secs:.3} | {:.1} |",
            mb(total_bytes) / secs
        );
    };
    println!("# tether benchmark\n");
    println!("- corpus: {}", corpus.display());
    println!(
        "- files: {} ({} templates), {:.1} MB ({:.1} MB templates)",
        files.len(),
        files.iter().filter(|f| f.is_template).count(),
        mb(total_bytes),
        mb(template_bytes)
    );
    println!("- cores: {cores} (rayon threads: {threads})");
    println!("- best of {RUNS} runs; MB/s is the whole corpus's bytes over the time\n");
    println!("| phase | threads | seconds | MB/s |");
    println!("|---|---:|---:|---:|");
    row("lex + mask (templates only)", 1, lex_mask);
    row("tree-sitter parse (masked, per document)", 1, parse_single);
    row(
        "tree-sitter parse (masked, per document)",
        threads,
        parse_parallel,
    );
    row("full pipeline (`model_bytes`)", 1, model_single);
    row("full pipeline (`model_bytes`)", threads, model_parallel);
    let overhead =
        (model_single.as_secs_f64() - parse_single.as_secs_f64()) / parse_single.as_secs_f64();
    println!(
        "\noverhead of lex+mask+anchor over tree-sitter parsing (single thread): {:.1}% (target <= 25%)",
        overhead * 100.0
    );
    match peak_rss {
        Some(kib) => println!(
            "peak RSS (VmHWM): {:.1} MB (target < 150 MB); includes the corpus held in memory, {:.1} MB text + {:.1} MB masked",
            kib as f64 * 1024.0 / 1e6,
            mb(total_bytes),
            mb(masked_bytes)
        ),
        None => println!("peak RSS: unavailable (no /proc/self/status)"),
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

fn best_of<T>(run: impl FnMut() -> T) -> Duration {
    best_of_with(run).0
}

/// The fastest of [`RUNS`] runs, and the last run's result.
fn best_of_with<T>(mut run: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut result = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let value = black_box(run());
        best = best.min(start.elapsed());
        result = Some(value);
    }
    (best, result.expect("RUNS > 0"))
}

/// Peak resident set size in KiB, from `VmHWM` in `/proc/self/status`.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
