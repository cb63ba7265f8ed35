//! The command line: arguments, dispatch, and the only place that prints. `args.rs`
//! holds the arguments, `common.rs` what every command shares, and each command has
//! a file of its own.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::CommandFactory;

mod args;
mod check;
mod common;
mod idem;
mod init;
mod map;
mod pages;
mod snapshot;

pub(crate) use args::Args;
use args::Command;
use check::{CheckFlags, RuleChoice};
use common::{exit, print_out, say_error};

/// Runs a parsed command line and returns the process exit code.
pub fn run(args: Args) -> ExitCode {
    let code = match args.command {
        Command::Map { format, files } => map::map(format, &files),
        Command::Check {
            config,
            select,
            ignore,
            show_settings: Some(file),
            ..
        } => or_trouble(
            check::settings(&file, config.as_deref(), &RuleChoice { select, ignore })
                .map_err(|error| error.to_string()),
        ),
        Command::Check {
            paths,
            config,
            select,
            ignore,
            show_files: true,
            ..
        } => or_trouble(
            check::show_files(&paths, config.as_deref(), &RuleChoice { select, ignore })
                .map_err(|error| error.to_string()),
        ),
        Command::Check {
            paths,
            config,
            format,
            color,
            no_cache,
            full,
            select,
            ignore,
            statistics,
            fail_on,
            changed_since,
            changed_lines,
            show_settings: None,
            show_files: false,
            fix,
            diff,
            unsafe_fixes,
        } => check::check(
            &paths,
            config.as_deref(),
            format,
            CheckFlags {
                no_cache,
                full,
                fail_on,
                changed_since,
                changed_lines,
                fix,
                diff,
                unsafe_fixes,
                statistics,
                color: color.colors(std::io::stdout().is_terminal(), |name| {
                    std::env::var(name).ok()
                }),
            },
            &RuleChoice { select, ignore },
        ),
        Command::Rules { name } => or_trouble(pages::rules(name.as_deref())),
        #[cfg(unix)]
        Command::Idem(args) => or_trouble(idem::idem(args)),
        #[cfg(not(unix))]
        Command::Idem(_) => {
            eprintln!("error: {}", crate::idem::IdemError::NeedsUnix);
            exit::TROUBLE
        }
        Command::Init {
            folder,
            force,
            helmignore,
        } => or_trouble(init::init(&folder, force, helmignore)),
        Command::Snapshot(args) => or_trouble(snapshot::snapshot(args)),
        Command::Server => or_trouble(
            crate::server::serve()
                .map(|clean| if clean { exit::OK } else { exit::FINDINGS })
                .map_err(|error| format!("the language server stopped: {error}")),
        ),
        Command::Completions { shell } => {
            let mut command = Args::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "tether", &mut script);
            // Printed as every output is: a closed pipe (`| head`) is an exit, not a
            // panic.
            if print_out(&String::from_utf8_lossy(&script)) {
                exit::OK
            } else {
                exit::TROUBLE
            }
        }
        Command::Man { subcommand } => or_trouble(pages::man(subcommand.as_deref())),
    };
    ExitCode::from(code)
}

/// A command's exit code, or exit 2 with its error printed.
fn or_trouble(result: Result<u8, String>) -> u8 {
    result.unwrap_or_else(|message| {
        say_error(&message);
        exit::TROUBLE
    })
}
