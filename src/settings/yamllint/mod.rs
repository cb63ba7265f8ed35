//! The yamllint configuration a repository already has, read so that tether's three
//! comment rules agree with it: `comments` → `comment-starting-space` and
//! `inline-comment-spacing`, `comments-indentation` → `comment-indentation`.
//!
//! Which file: the one `tether.toml` names (`yamllint-config`), else the nearest
//! `.yamllint`, `.yamllint.yaml` or `.yamllint.yml` at or above the file's folder (up
//! to the repository's top), else chart-testing's: the `lint-conf` of a `ct.yaml`,
//! `ct.yml` or `.ct.yaml`, or the `lintconf.yaml` beside it or at the repository's
//! top. chart-testing's other places (`~/.ct`, `/etc/ct`) belong to a machine, not to
//! the repository, and are not read.
//!
//! What is read follows yamllint's own `config.py`: `extends` (`default`, `relaxed`
//! or a file), a rule set to `enable`, `disable` or a table merged onto the one it
//! extends, options it does not set taken from yamllint's defaults, a rule that no
//! file of the chain lists does not run, `ignore` patterns (gitignore syntax) at the
//! top and per rule. Rule levels are not mapped: tether keeps its own. Anything else
//! in the file is not tether's concern and is skipped.
//!
//! Also here: yamllint's suppression comments (`# yamllint disable-line rule:comments`
//! and the others), applied to the same three rules.

mod apply;
mod chain;
mod configuration;
mod directives;
mod discover;
mod inside;
mod trace;

pub use configuration::Yamllint;
pub use directives::Directives;
pub use discover::{CI_PLACES, decided_in, discover};
pub use trace::Trace;
