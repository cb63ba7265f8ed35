//! The command line's arguments: `tether` and its subcommands, as clap parses them.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::check::{CheckFormat, ColorChoice, FailOn};
use super::idem::IdemArgs;
use super::map::MapFormat;
use super::snapshot::SnapshotArgs;

/// Keeps the comments of Helm chart templates tied to the keys they explain.
#[derive(Debug, Parser)]
#[command(name = "tether", version = env!("TETHER_VERSION"), about)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint comments and docs in templates and values.yaml: required comments on keys,
    /// detached comments, template-aware comment style, values documentation.
    Check {
        /// Chart folders or files to check. Default: the working directory.
        paths: Vec<PathBuf>,
        /// One configuration file for every file checked. Default: each file's nearest
        /// `tether.toml` (in its folder or above); files with none get the defaults.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output format (also spelled `--output-format`, as ruff spells it).
        #[arg(long, alias = "output-format", value_enum, default_value_t = CheckFormat::Human)]
        format: CheckFormat,
        /// Colour the human and concise output: `auto` (default) colours on a
        /// terminal unless `NO_COLOR` is set, or off one when `FORCE_COLOR` or
        /// `CLICOLOR_FORCE` is.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Do not read or write the cache in `.tether_cache/`.
        #[arg(long)]
        no_cache: bool,
        /// Parse every file, not only those a rule needs a tree for (slower; the
        /// findings are the same).
        #[arg(long)]
        full: bool,
        /// Run only these rules (repeatable, or comma-separated); a rule that is off
        /// runs as `warn`.
        #[arg(long, value_name = "RULE", value_delimiter = ',')]
        select: Vec<String>,
        /// Turn these rules off (repeatable, or comma-separated), after `--select`.
        #[arg(long, value_name = "RULE", value_delimiter = ',')]
        ignore: Vec<String>,
        /// Print how many findings each rule has instead of the findings (as a table,
        /// or with `--format json` as a JSON array).
        #[arg(long)]
        statistics: bool,
        /// Which findings make the exit code 1: `error` (default), `warning` (any
        /// finding), or `never`. Exit 2 (bad configuration, unreadable input) stays.
        #[arg(long, value_enum, default_value_t = FailOn::Error)]
        fail_on: FailOn,
        /// Check only the files added, modified, renamed or copied since REV's merge
        /// base with HEAD, untracked files included (git does the listing).
        #[arg(long, value_name = "REV")]
        changed_since: Option<String>,
        /// With --changed-since: report only findings on changed lines.
        #[arg(long, requires = "changed_since")]
        changed_lines: bool,
        /// Print the effective rule settings of FILE and where each came from
        /// (defaults, yamllint or chart-testing configuration, `tether.toml`), then
        /// exit without checking.
        #[arg(long, value_name = "FILE")]
        show_settings: Option<PathBuf>,
        /// Print the files a check of PATHS would check, one a line, then exit
        /// without checking: each configuration's `include`, `exclude` and
        /// `default-exclude` applied.
        #[arg(long, conflicts_with_all = ["show_settings", "fix", "diff", "statistics"])]
        show_files: bool,
        /// Fix what needs no judgement (comment-starting-space, inline-comment-spacing,
        /// comment-indentation) in place, then report what is left. Only whitespace
        /// in the fixed comments' lines changes; line endings stay.
        #[arg(long)]
        fix: bool,
        /// Print what --fix would change, as a unified diff, without writing (with
        /// --fix too: nothing is written); exit 1 when it would change anything.
        #[arg(long)]
        diff: bool,
        /// With --fix or --diff: apply the unsafe fixes too, those tether cannot
        /// prove keep what Helm renders (a file a chart may embed with .Files.Get, a
        /// line a trim marker reaches).
        #[arg(long)]
        unsafe_fixes: bool,
    },
    /// Prove that a regeneration command (`make update`) is a no-op on the committed
    /// files, a fixpoint, restores every configured block byte for byte, and keeps
    /// comments on their keys; in sandboxes (an overlay of your tree, or copies where
    /// no overlay can be had), never in your tree.
    Idem(IdemArgs),
    /// List the rules, or print one rule's documentation.
    Rules {
        /// A rule's name.
        name: Option<String>,
    },
    /// Write a commented starter `tether.toml`.
    Init {
        /// The folder to write it in.
        #[arg(default_value = ".")]
        folder: PathBuf,
        /// Overwrite an existing `tether.toml`.
        #[arg(long)]
        force: bool,
        /// In a chart folder, add tether's files (`tether.toml`, `.tether_cache/`,
        /// `snapshots/`) to its `.helmignore` without asking, so `helm package`
        /// leaves them out.
        #[arg(long)]
        helmignore: bool,
    },
    /// Pin which comment documents which key: compare every template and values
    /// file with its snapshot (`--check`, the default), or write the snapshots
    /// (`--update`).
    Snapshot(SnapshotArgs),
    /// Serve the Language Server Protocol on stdin and stdout, for editors: the
    /// findings of `check` as you type, its fixes as code actions, hover and
    /// navigation over `.Values` and named templates.
    Server,
    /// Print a shell completion script: `tether completions bash > /etc/bash_completion.d/tether`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff) on standard output: `tether man > tether.1`, or one
    /// subcommand's with its options: `tether man check > tether-check.1`.
    Man {
        /// The subcommand whose page to print (each `tether-NAME(1)` that
        /// `tether man` lists).
        subcommand: Option<String>,
    },
    /// Print the comment-anchored model of files: every key path and the comments
    /// that document it, which are detached, which are free-standing.
    Map {
        /// Output format.
        #[arg(long, value_enum, default_value_t = MapFormat::Text)]
        format: MapFormat,
        /// Files or chart folders to model (a folder's files are chosen as `check`
        /// chooses them). Files under a `templates/` folder and `*.tpl` files are read
        /// as Helm templates; everything else as plain YAML.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}
