//! What compiling every part of a configuration file shares: its errors, placed at
//! their line and column ([`ErrorContext`]), its globs, and the tests that keep a
//! pull request's paths inside its repository. A leaf of `settings/`.

use std::ops::Range;
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use toml::Spanned;

use crate::error::ConfigError;

/// Turns byte spans of the configuration into `path:line:column` messages.
pub(super) struct ErrorContext<'a> {
    text: &'a str,
    pub(super) path: &'a Path,
    /// Offset of every line's start, so naming a line costs a binary search (64k
    /// `[[require]]` entries must not cost 64k scans of the file).
    line_starts: Vec<usize>,
}

impl ErrorContext<'_> {
    pub(super) fn new<'a>(text: &'a str, path: &'a Path) -> ErrorContext<'a> {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|n| n + 1))
            .collect();
        ErrorContext {
            text,
            path,
            line_starts,
        }
    }

    pub(super) fn at(&self, span: Range<usize>, message: String) -> ConfigError {
        let offset = span.start.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let line_start = self.line_starts[line - 1];
        let column = self
            .text
            .get(line_start..offset)
            .map_or(0, |l| l.chars().count())
            + 1;
        ConfigError::Invalid {
            path: self.path.display().to_string(),
            line,
            column,
            message,
        }
    }

    pub(super) fn line_of(&self, span: &Range<usize>) -> usize {
        let offset = span.start.min(self.text.len());
        self.line_starts.partition_point(|&start| start <= offset)
    }
}

/// Compiles the globs of the setting `field`; a bad one is an error at its place.
pub(super) fn compile_globs(
    globs: &[Spanned<String>],
    field: &str,
    errors: &ErrorContext,
) -> Result<GlobSet, ConfigError> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let compiled = GlobBuilder::new(glob.get_ref())
            .literal_separator(true)
            .build()
            .map_err(|error| {
                errors.at(
                    glob.span(),
                    format!(
                        "invalid glob {:?} in `{field}`: {}; write a glob such as \"templates/*.yaml\" or \"**/values.yaml\"",
                        glob.get_ref(),
                        error.kind()
                    ),
                )
            })?;
        builder.add(compiled);
    }
    builder.build().map_err(|error| {
        errors.at(
            globs.first().map_or(0..0, Spanned::span),
            format!("invalid globs in `{field}`: {error}"),
        )
    })
}

/// Whether `path`, links resolved, lies in `top` (links resolved): a pull request's
/// `tether.toml` may make tether read files of its repository, and nothing else.
pub(super) fn inside(path: &Path, top: &Path) -> bool {
    crate::paths::absolute(path).starts_with(crate::paths::absolute(top))
}

/// The error of a setting that names a file outside the repository (`top`).
pub(super) fn outside_message(key: &str, given: &str, top: &Path) -> String {
    format!(
        "`{key}` names {given:?}, which is outside {}; tether reads only files of the repository it checks",
        top.display()
    )
}

/// Whether a relative path stays in the folder it is relative to (no `..`, not
/// absolute), whether or not it exists.
pub(super) fn stays_inside(relative: &Path) -> bool {
    relative.components().all(|component| {
        matches!(
            component,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    })
}
