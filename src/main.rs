//! The `tether` command: parse arguments, run the library, exit with its code.

mod cli;

use clap::Parser;

// mimalloc: the model allocates a string per key path; glibc's malloc made that a
// tenth of the run time on the corpus.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run(cli::Args::parse())
}
