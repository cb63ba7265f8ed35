//! `tether snapshot`: check or update the comment-map snapshots, and review,
//! accept or reject the pending ones.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::report::Format;
use crate::settings::config::Config;
use crate::snapshot;

use super::common::{exit, is_ci, left_to_the_interrupt_handler, print_out, say_error};

/// The arguments of `tether snapshot`.
#[derive(Debug, clap::Args)]
pub struct SnapshotArgs {
    /// Only the files at or below these paths. Default: every file the
    /// configuration covers. The configuration is the nearest `tether.toml` of the
    /// first path (or of the working directory).
    pub paths: Vec<PathBuf>,
    /// The configuration file. Default: the nearest `tether.toml` of the first path.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Write the snapshot of every file whose snapshot is missing or differs,
    /// remove snapshots of files that are gone, and drop pending snapshots.
    #[arg(long, group = "mode")]
    pub update: bool,
    /// Fail when a snapshot differs, is missing, or names no file (the default).
    /// Outside CI (`CI` unset), each changed snapshot is also written as a pending
    /// `.snap.new` beside the old one, as insta does.
    #[arg(long, group = "mode")]
    pub check: bool,
    /// Walk through the pending snapshots: show each diff and ask to accept,
    /// reject or skip it (answers are read from standard input).
    #[arg(long, group = "mode")]
    pub review: bool,
    /// Accept every pending snapshot.
    #[arg(long, group = "mode")]
    pub accept: bool,
    /// Reject (remove) every pending snapshot.
    #[arg(long, group = "mode")]
    pub reject: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SnapshotOutput::Human)]
    pub format: SnapshotOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SnapshotOutput {
    /// A sentence and a unified diff per snapshot.
    Human,
    /// The JSON documented in the book's `snapshot.md`.
    Json,
    /// GitHub Actions workflow commands: an annotation per changed entry.
    Github,
}

pub(super) fn snapshot(args: SnapshotArgs) -> Result<u8, String> {
    let start = match args.paths.first() {
        Some(path) if !path.is_dir() => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        Some(path) => path.clone(),
        None => PathBuf::from("."),
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    // Without a tether.toml, the folder itself is the root the snapshots go below.
    let loaded = match &args.config {
        Some(path) => Config::load(path).map_err(crate::error::Error::from),
        None => Config::discover(&start),
    };
    let config = loaded.map_err(|error| error.to_string())?;
    let options = snapshot::SnapshotOptions::default()
        .only(args.paths.iter().cloned())
        // CI never leaves pending files; a person's run does, for `--review`.
        .pending(!is_ci());
    if args.review || args.accept || args.reject {
        return review(&config, &options, &args);
    }
    let result = if args.update {
        snapshot::update(&config, &options)
    } else {
        snapshot::check(&config, &options)
    };
    if let Some(code) = left_to_the_interrupt_handler() {
        return Ok(code);
    }
    let report = result.map_err(|error| error.to_string())?;
    let output = match args.format {
        SnapshotOutput::Human => report.render(&Format::Human { color: false }),
        SnapshotOutput::Json => report.render(&Format::Json),
        SnapshotOutput::Github => report.render(&Format::Github {
            root: crate::report::machine_root(config.root()),
        }),
    };
    if !print_out(&output) {
        return Ok(exit::TROUBLE);
    }
    for failure in &report.failures {
        say_error(&failure);
    }
    Ok(if !report.failures.is_empty() {
        exit::TROUBLE
    } else if !report.passed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

/// `tether snapshot --review`, `--accept`, `--reject`: the pending snapshots.
fn review(
    config: &Config,
    options: &snapshot::SnapshotOptions,
    args: &SnapshotArgs,
) -> Result<u8, String> {
    let pending = snapshot::pending(config, options).map_err(|error| error.to_string())?;
    if pending.is_empty() {
        println!("no pending snapshots");
        return Ok(exit::OK);
    }
    let stdin = std::io::stdin();
    let mut answers = stdin.lock();
    let (mut accepted, mut rejected, mut skipped) = (0usize, 0usize, 0usize);
    for (index, one) in pending.iter().enumerate() {
        let decision = if args.accept {
            'a'
        } else if args.reject {
            'r'
        } else {
            print!(
                "{}: pending snapshot {} of {} ({})\n{}",
                one.source.display(),
                index + 1,
                pending.len(),
                one.file.display(),
                crate::report::human::escape_controls(&one.diff)
            );
            ask(&mut answers)
        };
        let done = match decision {
            'a' => snapshot::accept(config, one).map(|()| {
                accepted += 1;
                format!("accepted {}", one.snapshot.display())
            }),
            'r' => snapshot::reject(config, one).map(|()| {
                rejected += 1;
                format!("rejected {}", one.file.display())
            }),
            _ => {
                skipped += 1;
                Ok(format!("skipped {}", one.file.display()))
            }
        };
        match done {
            Ok(line) => println!("{line}"),
            Err(error) => {
                say_error(&error);
                return Ok(exit::TROUBLE);
            }
        }
    }
    println!("{accepted} accepted, {rejected} rejected, {skipped} skipped");
    Ok(exit::OK)
}

/// Asks `accept, reject or skip?` until an answer comes; the end of input skips.
fn ask(answers: &mut impl std::io::BufRead) -> char {
    loop {
        eprint!("accept (a), reject (r) or skip (s)? ");
        let mut line = String::new();
        match answers.read_line(&mut line) {
            Ok(0) | Err(_) => {
                eprintln!();
                return 's';
            }
            Ok(_) => {}
        }
        match line.trim() {
            "a" | "accept" => return 'a',
            "r" | "reject" => return 'r',
            "s" | "skip" | "" => return 's',
            _ => eprintln!("answer a, r or s"),
        }
    }
}
