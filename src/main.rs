//! The `tether` command: parse arguments, run the library, exit with its code.

use clap::Parser;

fn main() -> std::process::ExitCode {
    tether::run(tether::cli::Args::parse())
}
