//! `cargo xtask bench`: times lex+mask, tree-sitter parsing and the whole model
//! pipeline over a corpus of charts, and reports peak memory and recovered templates.

use std::hint::black_box;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use helm_tether::internals::YamlView;
use rayon::prelude::*;

use crate::BenchArgs;

/// Builds xtask and tether with the `profiling` profile (the release code with line
/// tables) and runs its `bench-run` task: numbers from a debug build would measure
/// the debug build.
pub fn bench(args: &BenchArgs) -> Result<()> {
    if !cfg!(debug_assertions) {
        if let Some(repo) = &args.repo {
            return crate::bench_paired::run(&crate::bench_check::tether()?, repo, args.runs);
        }
        bench_run(args)?;
        return crate::bench_server::bench_server(&args.corpus);
    }
    let release = crate::profiling_xtask()?;
    let status = Command::new(&release)
        .arg("bench-run")
        .args(match &args.repo {
            Some(repo) => ["--repo", &repo.to_string_lossy()].map(String::from),
            None => ["--corpus", &args.corpus.to_string_lossy()].map(String::from),
        })
        .arg("--runs")
        .arg(args.runs.to_string())
        .status()
        .with_context(|| format!("cannot run {}", release.display()))?;
    ensure!(status.success(), "{} bench-run failed", release.display());
    if args.repo.is_some() {
        return Ok(());
    }
    // The language server, driven as an editor drives it.
    crate::bench_server::bench_server(&args.corpus)
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

pub fn bench_run(args: &BenchArgs) -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build, numbers are meaningless; use `cargo xtask bench`");
    }
    if let Some(repo) = &args.repo {
        return crate::bench_paired::run(&crate::bench_check::tether()?, repo, args.runs);
    }
    let corpus = &args.corpus;
    let files = read_corpus(corpus)?;
    let total_bytes: usize = files.iter().map(|f| f.text.len()).sum();
    let templates = || files.iter().filter(|f| f.is_template);
    let template_bytes: usize = templates().map(|f| f.text.len()).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = rayon::current_num_threads();

    // Inputs of (b), prepared untimed: the masked text and its documents' bytes.
    let views = view_corpus(&files);
    let masked_bytes: usize = views
        .iter()
        .filter(|view| view.is_template)
        .map(|view| view.text.len())
        .sum();
    let prepared = prepare(&views);
    let baseline_rss = status_kib("VmRSS:");

    // (a) lex + mask, templates only.
    let lex_mask_one = |f: &CorpusFile| -> usize {
        helm_tether::internals::yaml_view(&f.path, f.text.as_bytes().to_vec())
            .text
            .len()
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
        let model = helm_tether::FileModel::from_bytes(&f.path, f.text.as_bytes().to_vec());
        model.documents.iter().any(|d| d.recovered)
    };

    // Rounds interleave the phases, so a burst of load on a shared machine does not
    // land on one phase's runs only; each phase keeps its best run.
    let [mut lex_mask, mut parse_1, mut parse_n, mut model_1, mut model_n] = [Duration::MAX; 5];
    let mut recovered_flags = Vec::new();
    for _ in 0..args.runs {
        lex_mask = lex_mask.min(time(|| templates().map(lex_mask_one).sum::<usize>()));
        // Single-threaded, parsing and the pipeline take turns file by file (which
        // goes first alternates), so load from elsewhere slows both alike and the
        // overhead of one over the other stays meaningful.
        let (mut parse, mut model) = (Duration::ZERO, Duration::ZERO);
        recovered_flags.clear();
        for (index, (file, prepared)) in files.iter().zip(&prepared).enumerate() {
            let parse_first = index % 2 == 0;
            if parse_first {
                parse += time(|| parse_one(prepared));
            }
            let start = Instant::now();
            recovered_flags.push(black_box(model_one(file)));
            model += start.elapsed();
            if !parse_first {
                parse += time(|| parse_one(prepared));
            }
        }
        (parse_1, model_1) = (parse_1.min(parse), model_1.min(model));
        parse_n = parse_n.min(time(|| prepared.par_iter().map(parse_one).sum::<usize>()));
        model_n = model_n.min(time(|| {
            files.par_iter().map(model_one).filter(|&r| r).count()
        }));
    }
    drop(prepared);
    drop(views);
    let peak_rss = status_kib("VmHWM:");
    let streaming_rss = streaming_peak_rss(corpus);

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
        templates().count(),
        mb(total_bytes),
        mb(template_bytes)
    );
    println!("- cores: {cores} (rayon threads: {threads})");
    println!(
        "- best of {} runs; MB/s is the whole corpus's bytes over the time\n",
        args.runs
    );
    println!("| phase | threads | seconds | MB/s |");
    println!("|---|---:|---:|---:|");
    row(
        "lex + mask + split (templates only, `yaml_view`)",
        1,
        lex_mask,
    );
    row("tree-sitter parse (masked, per document)", 1, parse_1);
    row("tree-sitter parse (masked, per document)", threads, parse_n);
    row("full pipeline (`model_bytes`)", 1, model_1);
    row("full pipeline (`model_bytes`)", threads, model_n);
    let (model_secs, parse_secs) = (model_1.as_secs_f64(), parse_1.as_secs_f64());
    println!(
        "\noverhead of lex+mask+anchor over tree-sitter parsing, single thread: {:.1}% \
         (target <= 25%)",
        (model_secs - parse_secs) / parse_secs * 100.0
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
    crate::bench_check::run(args)
}

/// Counts instructions (valgrind's callgrind) of a fresh process running one phase
/// once, single-threaded: a number that, unlike time, does not depend on what else
/// the machine is doing. Returns the overhead of the pipeline over parsing.
pub fn bench_instructions(args: &BenchArgs) -> Result<()> {
    let exe = std::env::current_exe()?;
    let count = |phase: &str| -> Result<u64> {
        let output = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(&exe)
            .args(["bench-phase", phase, "--corpus"])
            .arg(&args.corpus)
            .env("RAYON_NUM_THREADS", "1")
            .output()
            .context("cannot run valgrind: install it (apt-get install valgrind)")?;
        ensure!(
            output.status.success(),
            "valgrind on bench-phase {phase} failed"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        stderr
            .lines()
            .find_map(|line| line.split("Collected :").nth(1))
            .and_then(|number| number.trim().parse().ok())
            .context("valgrind printed no instruction count")
    };
    let none = count("none")?;
    let parse = count("parse")? - none;
    let pipeline = count("pipeline")? - none;
    println!("| phase | instructions (10^9) |");
    println!("|---|---:|");
    println!(
        "| tree-sitter parse (masked, per document) | {:.2} |",
        parse as f64 / 1e9
    );
    println!(
        "| full pipeline (`model_bytes`) | {:.2} |",
        pipeline as f64 / 1e9
    );
    println!(
        "
overhead of lex+mask+anchor over tree-sitter parsing, in instructions: {:.1}% \
         (target <= 25%)",
        (pipeline as f64 - parse as f64) / parse as f64 * 100.0
    );
    Ok(())
}

/// Runs one phase once over the corpus, for `bench_instructions`: `none` only reads
/// and prepares the corpus, which every phase does first.
pub fn bench_phase(phase: &str, args: &BenchArgs) -> Result<()> {
    let files = read_corpus(&args.corpus)?;
    let views = view_corpus(&files);
    let prepared = prepare(&views);
    let copies: Vec<Vec<u8>> = files.iter().map(|f| f.text.as_bytes().to_vec()).collect();
    match phase {
        "none" => {}
        "parse" => {
            for p in &prepared {
                for range in &p.documents {
                    black_box(parse_tree(&p.text[range.clone()]));
                }
            }
        }
        "pipeline" => {
            for (file, bytes) in files.iter().zip(copies) {
                black_box(helm_tether::FileModel::from_bytes(&file.path, bytes));
            }
        }
        other => anyhow::bail!("unknown phase `{other}`: none, parse or pipeline"),
    }
    Ok(())
}

/// What tree-sitter is given of every file of the corpus.
fn view_corpus(files: &[CorpusFile]) -> Vec<YamlView> {
    files
        .iter()
        .map(|f| helm_tether::internals::yaml_view(&f.path, f.text.as_bytes().to_vec()))
        .collect()
}

/// The inputs of the parse phase: each file's masked text and the byte ranges of the
/// documents the library parses (longer ones are recovered, never parsed).
fn prepare(views: &[YamlView]) -> Vec<Prepared<'_>> {
    views
        .iter()
        .map(|view| Prepared {
            text: &view.text,
            documents: view
                .documents
                .iter()
                .filter(|document| !document.too_long)
                .map(|document| document.bytes.clone())
                .collect(),
        })
        .collect()
}

thread_local! {
    static PARSER: std::cell::RefCell<Option<tree_sitter::Parser>> = const { std::cell::RefCell::new(None) };
}

/// tree-sitter-yaml alone on one document, a parser per thread as the library keeps.
pub(crate) fn parse_tree(text: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut parser = cell.borrow_mut();
        let parser = parser.get_or_insert_with(|| {
            let mut parser = tree_sitter::Parser::new();
            let language: tree_sitter::Language = tree_sitter_yaml::LANGUAGE.into();
            parser
                .set_language(&language)
                .expect("tree-sitter-yaml matches tree-sitter");
            parser
        });
        parser.reset();
        parser.parse(text, None)
    })
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
        black_box(helm_tether::FileModel::from_bytes(
            path.strip_prefix(corpus)?,
            bytes,
        ));
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
            let is_template = helm_tether::internals::is_template_path(&path);
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

/// Wall time of one run; the result goes through `black_box` so it is computed.
fn time<T>(run: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    black_box(run());
    start.elapsed()
}

/// A size in KiB from `/proc/self/status`: `VmHWM:` is the peak resident set size,
/// `VmRSS:` the current one.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
