//! `cargo xtask lint-charts`: checks every chart of a Cozystack-shaped monorepo with
//! tether, proves the `update` targets that work offline honest with `tether idem`,
//! prints a summary, and exits 1 when anything failed (2 when it could not run).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;

use monorepo_xtask::{lint_charts, Options};

const USAGE: &str =
    "usage: cargo xtask lint-charts [--root DIR] [--package NAME]... [--no-idem] [--jobs N]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() != Some("lint-charts") {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let mut options = Options::new(PathBuf::from("."));
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--root", Some(root)) => options.root = PathBuf::from(root),
            ("--package", Some(name)) => options.packages.push(name),
            ("--jobs", Some(jobs)) => match jobs.parse() {
                Ok(jobs) => options.jobs = Some(jobs),
                Err(_) => {
                    eprintln!("error: --jobs takes a number, not {jobs:?}\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            ("--no-idem", next) => {
                options.idem = false;
                if let Some(next) = next {
                    eprintln!("error: unexpected {next:?}\n{USAGE}");
                    return ExitCode::from(2);
                }
            }
            _ => {
                eprintln!("error: unexpected {arg:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    match lint_charts(&options) {
        Ok(summary) => {
            print!("{}", summary.render());
            ExitCode::from(if summary.failed() { 1 } else { 0 })
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
