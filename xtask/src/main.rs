//! `cargo xtask`: the project's developer tasks (bench, print-tree), run through the
//! alias in `.cargo/config.toml`.
//!
//! Arguments are parsed by hand, rust-analyzer style; paths are resolved from
//! `CARGO_MANIFEST_DIR` so the tasks work from any directory in the workspace.

mod bench;
mod print_tree;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

const HELP: &str = "\
cargo xtask <task>

Tasks:
  bench [--corpus DIR]   build xtask in release mode and time the pipeline phases
                         over a corpus (default: ../shared/corpus next to the repo)
  print-tree FILE        print FILE masked (if a template) and the tree-sitter tree
                         of each of its documents
  help                   print this message
";

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    match task.as_str() {
        "bench" => bench::bench(corpus_arg(&rest)?),
        // Internal: what `bench` runs in the release binary.
        "bench-run" => bench::bench_run(&corpus_arg(&rest)?),
        "print-tree" => match rest.as_slice() {
            [file] => print_tree::print_tree(Path::new(file)),
            _ => bail!("usage: cargo xtask print-tree FILE"),
        },
        "" | "help" | "-h" | "--help" => {
            print!("{HELP}");
            Ok(())
        }
        other => bail!("unknown task `{other}`\n\n{HELP}"),
    }
}

/// The corpus directory: `--corpus DIR`, or `<repo>/../shared/corpus`.
fn corpus_arg(args: &[String]) -> Result<PathBuf> {
    match args {
        [] => Ok(project_root().join("../shared/corpus")),
        [flag, dir] if flag == "--corpus" => Ok(PathBuf::from(dir)),
        [flag] if flag == "--corpus" => bail!("--corpus needs a directory"),
        _ => bail!("usage: cargo xtask bench [--corpus DIR]"),
    }
    .and_then(|dir| {
        if dir.is_dir() {
            Ok(dir)
        } else {
            bail!("corpus directory not found: {}", dir.display())
        }
    })
    .with_context(|| "cannot start the benchmark")
}

/// The workspace root: the parent of this crate's directory.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}
