//! tether keeps the comments of Helm chart templates tied to the keys they explain,
//! and regeneration targets (`make update`) honest.
//!
//! This is the library the `tether` command is built on, for a monorepo's own
//! `cargo xtask` and for snapshot tests. Everything public is listed here; the
//! pipeline behind it (lex, mask, parse, anchor, rules, reports) is private and free
//! to change.
//!
//! - [`comment_map`] and [`comment_maps`]: which comment documents which key
//!   ([`FileModel`]; its `Display` is the text `tether map` prints;
//!   [`FileModel::from_bytes`] models text that is not in a file).
//! - [`check_paths`] and [`fix_paths`]: the rules over chart folders
//!   ([`CheckReport`], [`FixReport`]), with one [`Config`] or each file's nearest
//!   `tether.toml` ([`ConfigSource`]).
//! - [`snapshot`]: pinned comment maps, `tether snapshot`.
//! - [`idem`]: prove a regeneration command is a no-op, a fixpoint, and restores
//!   what it must, in sandboxes of the repository (`tether idem`). Its options,
//!   reports and targets compile everywhere; running commands needs Unix (elsewhere
//!   [`idem::run`] returns [`idem::IdemError::NeedsUnix`]).
//! - [`RuleInfo::all`]: the rules and their documentation, `tether rules`.
//! - [`main`]: the `tether` command itself.
//!
//! Every entry point returns `Result<Report, Error>`: an [`Error`] is what keeps a
//! call from doing its job at all (a broken `tether.toml`, a path that does not
//! exist, git failing); a file that cannot be read is one of the report's failures,
//! so one bad file never stops a run. Every report renders in the [`Format`]s the
//! command line prints.
//!
//! # Stability
//!
//! tether follows Semantic Versioning. Before 1.0, a minor release (0.1 → 0.2) may
//! change this surface and says how in the changelog; a patch release never does.
//! Types marked `#[non_exhaustive]` may gain fields and variants in any minor
//! release, so match them with `..` and build them through their constructors.
//! Only what this page lists is API: the `internals` feature exists for this
//! repository's tests, fuzz targets and benchmarks and changes without notice.
//!
//! ```
//! # fn main() -> Result<(), helm_tether::Error> {
//! let config = helm_tether::Config::from_toml("[rules]\nrequired-comment = \"error\"\n")?;
//! let options = helm_tether::CheckOptions::default();
//! let report = helm_tether::check_paths(&config, &["examples/kubevirt"], &options)?;
//! assert!(report.failures.is_empty());
//! for diagnostic in &report.diagnostics {
//!     println!("{}: {}", diagnostic.path.display(), diagnostic.message);
//! }
//! # Ok(())
//! # }
//! ```

// A new way to panic needs a written reason (`#[allow(…)]` with a comment): tether
// runs on hostile input and one bad file must never stop a run.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]
// Every public item is documented; `helm_tether::internals` (tests only) is exempt.
#![cfg_attr(not(feature = "internals"), deny(missing_docs))]
// `unsafe` lives in one module, `idem/sys.rs` (the system calls of a forked child
// that no maintained crate wraps safely); everywhere else it is an error.
#![deny(unsafe_code)]

mod analysis;
mod cache_key;
mod cli;
mod collections;
mod diagnostic;
mod error;
mod excerpt;
mod folders;
mod git;
mod globs;
pub mod idem;
mod key_pattern;
mod lines;
mod linter;
mod paths;
mod report;
mod rule_id;
mod rule_list;
mod rules;
mod server;
mod settings;
pub mod snapshot;
mod source;
mod sys;
mod template;
mod yaml;

pub use diagnostic::{Applicability, Diagnostic, Edit, Fix, Label, Severity};
pub use error::{
    ChangesError, ConfigError, ConfigurationError, Error, RuleNameError, SnapshotError,
    SnapshotStep,
};
pub use linter::check::{
    ChangedSince, CheckOptions, CheckReport, ConfigSource, PartialChart, check_paths,
};
pub use linter::fix::{FixOptions, FixReport, FixedFile, HeldFix, fix_paths};
pub use linter::maps::{CommentMaps, comment_maps};
pub use report::Format;
pub use rules::{Level, RuleId, RuleInfo};
pub use settings::config::Config;
pub use source::Problem;
pub use template::mask::Branch;
pub use yaml::model::{
    Attached, Comment, CommentStyle, Detached, Document, FileModel, Key, Placement,
};
pub use yaml::pipeline::comment_map;

/// The `tether` command: parses this process's arguments, runs the command they
/// name, prints, and returns the exit code (`docs/src/check.md` lists the codes).
/// The `tether` binary is this one call and its allocator.
pub fn main() -> std::process::ExitCode {
    use clap::Parser;
    cli::run(cli::Args::parse())
}

/// What this repository's tests and fuzz targets reach below the public surface.
/// Not part of the API: it changes without notice, and only the `internals`
/// feature (which nothing but this repository enables) compiles it.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::analysis::charts::scan::{ChartWork, chart_work};
    pub use crate::analysis::charts::values::KEY_COMPARISONS;
    pub use crate::analysis::helm_docs::{helm_docs_path, simulate};
    pub use crate::idem::SandboxCopy;
    pub use crate::key_pattern::KeyPattern;
    pub use crate::linter::file::Mode;
    pub use crate::linter::file::check_bytes;
    pub use crate::linter::fix::{FixedText, fix_text, fix_work};
    pub use crate::rules::rules_markdown;
    pub use crate::server::serve_bytes;
    pub use crate::source::SourceFile;
    pub use crate::source::opens;
    pub use crate::template::lex::{Action, lex, lex_counting, lexes};
    pub use crate::template::mask::{Masked, PLACEHOLDER, mask, mask_branch};
    pub use crate::template::reads::reads as value_reads;
    pub use crate::template::render::trimmed as render_trimmed;
    pub use crate::yaml::data::{Data, Part, data_of};
    pub use crate::yaml::parse::{QUERIES, both_walks, language};
    pub use crate::yaml::pipeline::{ViewDocument, YamlView, is_template_path, yaml_view};
    pub use crate::yaml::syntax::{MAX_DEPTH, ParsedDocument};

    /// The rule levels and options `config` gives the file `relative`, for the
    /// configuration fuzz target.
    pub fn settings_for(
        config: &crate::Config,
        relative: &std::path::Path,
    ) -> impl std::fmt::Debug + use<> {
        config.settings_for(relative)
    }
}
