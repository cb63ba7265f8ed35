//! The command line: arguments, dispatch, and the only place that prints.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use crate::report;

/// Keeps the comments of Helm chart templates tied to the keys they explain.
#[derive(Debug, Parser)]
#[command(name = "tether", version, about)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the comment-anchored model of files: every key path and the comments
    /// that document it, which are detached, which are free-standing.
    Map {
        /// Output format.
        #[arg(long, value_enum, default_value_t = MapFormat::Text)]
        format: MapFormat,
        /// Files to model. Files under a `templates/` folder and `*.tpl` files are read
        /// as Helm templates; everything else as plain YAML.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MapFormat {
    Text,
    Json,
}

/// Exit codes shared by every command (DESIGN §7).
pub mod exit {
    /// Clean.
    pub const OK: u8 = 0;
    /// Findings at error level.
    pub const FINDINGS: u8 = 1;
    /// tether could not do its job: bad config, unreadable input.
    pub const TROUBLE: u8 = 2;
}

/// Runs a parsed command line and returns the process exit code.
pub fn run(args: Args) -> ExitCode {
    let code = match args.command {
        Command::Map { format, files } => map(format, &files),
    };
    ExitCode::from(code)
}

fn map(format: MapFormat, files: &[PathBuf]) -> u8 {
    let results: Vec<_> = files
        .par_iter()
        .map(|path| crate::model_path(path))
        .collect();
    let mut models = Vec::new();
    let mut code = exit::OK;
    for (path, result) in files.iter().zip(results) {
        match result {
            Ok(model) => models.push(model),
            Err(error) => {
                eprintln!(
                    "error: cannot read {}: {error}; check the path and its permissions",
                    path.display()
                );
                code = exit::TROUBLE;
            }
        }
    }
    let output = match format {
        MapFormat::Text => models
            .iter()
            .map(report::map::text)
            .collect::<Vec<_>>()
            .join("\n"),
        MapFormat::Json => report::map::json(&models) + "\n",
    };
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(output.as_bytes()).is_err() {
        return exit::TROUBLE;
    }
    code
}
