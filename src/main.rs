//! The `tether` command: parse arguments, run the library, exit with its code.

use clap::Parser;

// mimalloc: the model allocates a string per key path; glibc's malloc made that a
// tenth of the run time on the corpus.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    tether::run(tether::cli::Args::parse())
}
