//! `cargo xtask`: the project's developer tasks (bench, codegen, print-tree), run
//! through the alias in `.cargo/config.toml`.
//!
//! Arguments are parsed by hand, rust-analyzer style; paths are resolved from
//! `CARGO_MANIFEST_DIR` so the tasks work from any directory in the workspace.

#[cfg(feature = "library")]
mod bench;
#[cfg(feature = "library")]
mod bench_check;
#[cfg(feature = "library")]
mod bench_idem;
#[cfg(feature = "library")]
mod bench_latency;
#[cfg(feature = "library")]
mod bench_paired;
#[cfg(feature = "library")]
mod bench_scale;
#[cfg(feature = "library")]
mod bench_server;
#[cfg(test)]
mod build_profile;
mod ci;
mod codegen;
pub mod dist;
mod docs;
mod fuzz;
mod new_rule;
mod precision;
#[cfg(feature = "library")]
mod print_tree;
mod vscode;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, ensure, Context, Result};

// The same allocator as the `tether` binary, so the benchmark measures the tool.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const HELP: &str = "\
cargo xtask <task>

Tasks:
  bench [--corpus DIR] [--runs N]
                         build xtask in release mode and time the pipeline phases
                         over a corpus (default: ../shared/corpus next to the repo),
                         best of N runs (default 3); then `tether check` against
                         `cat`, a tree-sitter parse and yamllint on the files it
                         checks, N paired rounds (medians, ranges, the load)
  bench --repo PATH [--runs N]
                         only that paired comparison, on any repository
  bench-server [--corpus DIR]
                         only the language server part of the benchmark: a
                         didChange of a 2 MB values.yaml and of a template until
                         the diagnostics that depend on it arrive, and the peak
                         RSS of a server with every Cozystack file open
  bench-latency [--corpus DIR]
                         only the editor's latency: keystroke to diagnostics,
                         hover and completion on the corpus's largest chart
  bench-scale [--corpus DIR]
                         only check's peak memory on 1, 4 and 16 copies of the
                         corpus side by side
  bench-idem [--corpus DIR] [--runs N]
                         only the monorepo part of the idem benchmark: the
                         Cozystack corpus plus 20 example packages, against a cp -r
                         and the same runs by hand
  bench-instructions [--corpus DIR]
                         count instructions (valgrind) of parsing alone and of the
                         whole pipeline over the corpus: steadier than time
  ci                     install the tools the tests drive (git, make, GNU sed) if
                         missing, then run the whole test suite
  ci-step NAME           one step of ci after the tests: doc, docs (the site),
                         dist (archive, wheel, checksums, the wheel in a venv and
                         under pre-commit), publish (cargo publish --dry-run),
                         install, portable
  codegen [--check]      write docs/src/rules.md and schemas/tether.schema.json from
                         the code; with --check, fail with a diff if they are stale
                         (both run `cargo test --test it codegen::`)
  dist [--target TRIPLE] [--no-wheel] [--no-vsix]
                         build the release binary as a tag builds it (on Linux
                         x86_64 the static musl one; or for TRIPLE) and
                         package it into target/dist: tether-TRIPLE/ (binary,
                         completions, man page, README, LICENSE, CHANGELOG), its
                         .tar.gz (.zip on Windows), the Python wheel (maturin),
                         a .sha256 beside each and SHA256SUMS
  docs                   build the site (mdBook, docs/ into target/book; installs
                         the pinned mdbook into target/tools if missing), then
                         check its links, anchors and runnable examples
                         (`cargo test --test it docs::`)
  fuzz [--seconds N] [--target NAME]...
                         run the cargo-fuzz targets in fuzz/ (lex_mask, model_bytes,
                         plain_walk, config, check_modes, …; default all) for N seconds each
                         (default 60), seeded with tests/fixtures; installs nightly
                         if missing; fails on any crash
  new-rule NAME          write a new rule's file (src/rules/NAME.rs, a
                         declare_rule! to fill in), its fixture folder, and its
                         lines in the registry and in tests/it/rules.rs
  precision [--corpus DIR] [--per-rule N] [--seed S] [--check]
                         run the release tether over the three corpora, print the
                         findings per rule, and write docs/src/precision.md: a
                         sample of N findings (default 20, seed 7) per corpus and
                         rule to judge, keeping the verdicts already written; with --check,
                         fail if it is stale, a finding is unjudged, or a rule has
                         more than one false finding in a corpus
  print-tree FILE        print FILE masked (if a template) and the tree-sitter tree
                         of each of its documents
  help                   print this message
";

fn main() -> ExitCode {
    // Errors are printed plainly: no backtrace, even when RUST_BACKTRACE is set.
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    if LIBRARY_TASKS.contains(&task.as_str()) && !cfg!(feature = "library") {
        return with_library(&task, &rest);
    }
    #[cfg(feature = "library")]
    if LIBRARY_TASKS.contains(&task.as_str()) {
        return library_task(&task, &rest);
    }
    match task.as_str() {
        "codegen" => match rest.as_slice() {
            [] => codegen::codegen(false),
            [check] if check == "--check" => codegen::codegen(true),
            _ => bail!("usage: cargo xtask codegen [--check]"),
        },
        "ci" => ci::ci(),
        "ci-step" => match rest.as_slice() {
            [name] => ci::step(name),
            _ => bail!("usage: cargo xtask ci-step tools|doc|docs|dist|publish|install|portable"),
        },
        "dist" => dist::dist_args(&rest).map(|_| ()),
        "docs" => match rest.as_slice() {
            [] => docs::docs(),
            _ => bail!("usage: cargo xtask docs"),
        },
        "fuzz" => fuzz::fuzz(&fuzz::fuzz_args(&rest)?),
        "precision" => precision::precision(&rest),
        "new-rule" => match rest.as_slice() {
            [name] => {
                for path in new_rule::new_rule(&project_root(), name)? {
                    println!("wrote {}", path.display());
                }
                println!("next: write the rule's check and doc, its fixture, then `cargo test --test it rules::` and `cargo xtask codegen`");
                Ok(())
            }
            _ => bail!("usage: cargo xtask new-rule NAME (kebab-case)"),
        },
        "" | "help" | "-h" | "--help" => {
            print!("{HELP}");
            Ok(())
        }
        other => bail!("unknown task `{other}`\n\n{HELP}"),
    }
}

/// What `bench` and its internal tasks take.
/// The tasks that need tether's library in this process (feature `library`).
const LIBRARY_TASKS: &[&str] = &[
    "bench",
    "bench-run",
    "bench-idem",
    "bench-server",
    "bench-latency",
    "bench-parse-list",
    "bench-scale",
    "bench-rss",
    "bench-instructions",
    "bench-phase",
    "print-tree",
];

/// Runs a library task in xtask built with the `library` feature.
fn with_library(task: &str, rest: &[String]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args([
            "run",
            "--quiet",
            "--package",
            "xtask",
            "--features",
            "library",
            "--",
        ])
        .arg(task)
        .args(rest)
        .current_dir(project_root())
        .status()
        .context("cannot run cargo run")?;
    ensure!(status.success(), "cargo xtask {task} failed");
    Ok(())
}

/// The tasks of [`LIBRARY_TASKS`].
#[cfg(feature = "library")]
fn library_task(task: &str, rest: &[String]) -> Result<()> {
    let rest = rest.to_vec();
    match task {
        "bench" => bench::bench(&bench_args(&rest)?),
        // Internal: what `bench` runs in the release binary.
        "bench-run" => bench::bench_run(&bench_args(&rest)?),
        // Internal: what `bench-run` runs in a fresh process to measure memory.
        "bench-idem" => {
            let args = bench_args(&rest)?;
            if cfg!(debug_assertions) {
                let release = profiling_xtask()?;
                let status = std::process::Command::new(release)
                    .arg("bench-idem")
                    .arg("--corpus")
                    .arg(&args.corpus)
                    .arg("--runs")
                    .arg(args.runs.to_string())
                    .status()?;
                ensure!(status.success(), "bench-idem failed");
                Ok(())
            } else {
                bench_idem::monorepo(&args)
            }
        }
        "bench-rss" => bench::bench_rss(&bench_args(&rest)?.corpus),
        // `tether server` driven over its pipes: edit-to-diagnostics times, memory.
        "bench-server" => bench_server::bench_server(&bench_args(&rest)?.corpus),
        "bench-latency" => bench_latency::bench_latency(&bench_args(&rest)?.corpus),
        // Internal: the parse baseline of the paired bench, a process of its own.
        "bench-parse-list" => match rest.as_slice() {
            [list] => bench_paired::parse_list(Path::new(list)),
            _ => bail!("usage: cargo xtask bench-parse-list LIST"),
        },
        // `check`'s peak memory on 1, 4 and 16 copies of the corpus.
        "bench-scale" => bench_scale::bench_scale(&bench_args(&rest)?.corpus),
        // Instruction counts under valgrind, immune to the machine's noise.
        "bench-instructions" => bench::bench_instructions(&bench_args(&rest)?),
        // Internal: one phase, once, for `bench-instructions`.
        "bench-phase" => match rest.split_first() {
            Some((phase, rest)) => bench::bench_phase(phase, &bench_args(rest)?),
            None => bail!("usage: xtask bench-phase none|parse|pipeline [--corpus DIR]"),
        },
        "print-tree" => match rest.as_slice() {
            [file] => print_tree::print_tree(Path::new(file)),
            _ => bail!("usage: cargo xtask print-tree FILE"),
        },
        other => bail!("`{other}` is not a task of tether's library"),
    }
}

#[cfg(feature = "library")]
pub struct BenchArgs {
    pub corpus: PathBuf,
    /// `--repo PATH`: only the paired comparison of `check`, on that repository.
    pub repo: Option<PathBuf>,
    /// Runs per phase; the best is kept.
    pub runs: usize,
}

/// `[--corpus DIR] [--runs N]`; the corpus defaults to `<repo>/../shared/corpus`.
#[cfg(feature = "library")]
fn bench_args(args: &[String]) -> Result<BenchArgs> {
    const USAGE: &str = "usage: cargo xtask bench [--corpus DIR | --repo PATH] [--runs N]";
    let mut corpus = project_root().join("../shared/corpus");
    let mut repo = None;
    let mut runs = 3;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--corpus" => corpus = args.next().context(USAGE)?.into(),
            "--repo" => {
                let path: PathBuf = args.next().context(USAGE)?.into();
                corpus = path.clone();
                repo = Some(path);
            }
            "--runs" => runs = args.next().context(USAGE)?.parse().context(USAGE)?,
            _ => bail!("unexpected argument `{arg}`\n{USAGE}"),
        }
    }
    ensure!(runs > 0, "--runs must be at least 1");
    ensure!(
        corpus.is_dir(),
        "corpus directory not found: {} (pass --corpus DIR)",
        corpus.display()
    );
    Ok(BenchArgs { corpus, repo, runs })
}

/// The workspace root: the parent of this crate's directory.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// Builds `packages` (and `extra` cargo arguments) in release mode and returns the
/// release folder, `<target>/release`, where tether is.
pub fn build_release(what: &[&str]) -> Result<PathBuf> {
    build_profile("release", what)
}

/// Builds `what` with the `profiling` profile (the release code with line tables)
/// and returns `<target>/profiling`, where this xtask's twin and tether are: what
/// `bench` measures.
/// xtask with the library, built in the profiling profile (the release code with
/// line tables): what the benchmarks run in, never a debug build.
#[cfg(feature = "library")]
pub fn profiling_xtask() -> Result<PathBuf> {
    Ok(build_profiling(&[
        "--package",
        "xtask",
        "--features",
        "xtask/library",
        "--package",
        "helm-tether",
    ])?
    .join(format!("xtask{}", std::env::consts::EXE_SUFFIX)))
}

pub fn build_profiling(what: &[&str]) -> Result<PathBuf> {
    build_profile("profiling", what)
}

fn build_profile(profile: &str, what: &[&str]) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--quiet", "--profile", profile])
        .args(what)
        .current_dir(project_root())
        .status()
        .context("cannot run cargo build")?;
    ensure!(
        status.success(),
        "cargo build --profile {profile} {} failed",
        what.join(" ")
    );
    Ok(target_dir()?.join(profile))
}

/// The cargo target folder this xtask was built in: it is
/// `<target>/<profile>/xtask`.
pub fn target_dir() -> Result<PathBuf> {
    Ok(std::env::current_exe()?
        .parent()
        .and_then(Path::parent)
        .context("unexpected location of the xtask binary")?
        .to_path_buf())
}

/// `NAME` from PyPI in the project's virtual environment (`target/ci-venv`, made on
/// first use), installed as `requirement` when it is not there yet.
pub fn python_tool(root: &Path, name: &str, requirement: &str) -> Result<PathBuf> {
    let venv = root.join("target/ci-venv");
    let bin = venv.join("bin");
    let tool = bin.join(name);
    if tool.exists() {
        return Ok(tool);
    }
    if !bin.join("pip").exists() {
        let status = std::process::Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .context("cannot run python3 -m venv (install python3 and python3-venv)")?;
        ensure!(
            status.success(),
            "python3 -m venv failed (apt-get install python3-venv)"
        );
    }
    eprintln!("xtask: installing {requirement} with pip into target/ci-venv");
    let status = std::process::Command::new(bin.join("pip"))
        .args(["install", "--quiet", requirement])
        .status()
        .context("cannot run pip")?;
    ensure!(status.success(), "pip install {requirement} failed");
    Ok(tool)
}
