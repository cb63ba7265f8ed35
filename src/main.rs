//! The `tether` command: parse arguments, run the library, exit with its code.

#![deny(unsafe_code)]

mod cli;

use clap::Parser;

// mimalloc: the model allocates a string per key path; glibc's malloc made that a
// tenth of the run time on the corpus. Its v2 line (the `v2` feature): v3 committed
// twice the memory on the three chart corpora (peak RSS 120 MB against 63 MB), and
// the kernel zeroing those pages on first touch was a sixth of a check's samples.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run(cli::Args::parse())
}
