//! `[[idem]]` entries compiled into the targets `tether idem` runs: the command,
//! its folder (`dir`, or each folder `dirs` matches whose Makefile defines the make
//! target it calls), the files it regenerates, the blocks it must restore, its
//! timeout and environment. Portable: `idem/` runs them on Unix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use toml::Spanned;

use schemars::JsonSchema;
use serde::Deserialize;

use super::compile::{ErrorContext, compile_globs, inside, stays_inside};
use crate::error::ConfigError;

/// An `[[idem]]` entry: a command that regenerates files, and what it must keep.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct IdemEntry {
    /// The shell command (`sh -c`). Default: `make update`.
    pub run: Option<String>,
    /// Where it runs, relative to this file's folder and inside it. Default: this
    /// file's folder.
    #[schemars(with = "Option<String>")]
    pub dir: Option<Spanned<String>>,
    /// Instead of `dir`: globs of folders (`["packages/*/*"]`), one target each. When
    /// `run` is `make TARGET …`, only the folders whose Makefile (or a file it
    /// includes) defines TARGET are kept.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub dirs: Vec<Spanned<String>>,
    /// Globs of the files the command regenerates, relative to `dir` (required).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub files: Vec<Spanned<String>>,
    /// The opening lines of the blocks the command must restore when they are
    /// missing, as written (`"{{- with .Values.devices }}"`).
    #[serde(default)]
    pub self_heal: Vec<String>,
    /// How long one run may take: `"300s"`, `"5m"`. Default: `"300s"`.
    #[schemars(with = "Option<String>")]
    pub timeout: Option<Spanned<String>>,
    /// Extra environment variables for the command (`HOME` and `TMPDIR` are in the
    /// sandbox unless set here).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    pub env: BTreeMap<Spanned<String>, Spanned<String>>,
}

/// A compiled `[[idem]]` entry: a regeneration command, where it runs, the files it
/// regenerates and the blocks it must restore.
#[derive(Debug, Clone)]
// `files`, `timeout` and `env` are read where commands run, on Unix only.
#[cfg_attr(not(unix), allow(dead_code))]
pub struct IdemTarget {
    /// The command, run with `sh -c`.
    pub(crate) run: String,
    /// Absolute folder the command runs in.
    pub(crate) dir: PathBuf,
    /// The globs as written (shown in reports) and compiled.
    pub(crate) file_globs: Vec<String>,
    pub(crate) files: GlobSet,
    pub(crate) self_heal: Vec<String>,
    pub(crate) timeout: std::time::Duration,
    pub(crate) env: BTreeMap<String, String>,
}

impl IdemTarget {
    /// The command.
    pub fn run(&self) -> &str {
        &self.run
    }

    /// The folder it runs in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The globs of the files it regenerates, as written.
    pub fn files(&self) -> &[String] {
        &self.file_globs
    }

    /// The opening lines of the blocks it must restore.
    pub fn self_heal(&self) -> &[String] {
        &self.self_heal
    }

    /// A target from command-line flags, for a one-off run: `run` in `dir`, which
    /// regenerates the files `file_globs` (relative to `dir`) and must restore the
    /// blocks that open with the lines `self_heal`.
    pub fn new(
        run: String,
        dir: PathBuf,
        file_globs: Vec<String>,
        self_heal: Vec<String>,
        timeout: std::time::Duration,
    ) -> Result<IdemTarget, String> {
        let mut builder = GlobSetBuilder::new();
        for glob in &file_globs {
            builder.add(
                GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .map_err(|error| {
                        format!("invalid glob {glob:?} in --files: {}", error.kind())
                    })?,
            );
        }
        Ok(IdemTarget {
            run,
            dir,
            files: builder.build().map_err(|error| error.to_string())?,
            file_globs,
            self_heal,
            timeout,
            env: BTreeMap::new(),
        })
    }
}

/// The longest timeout a command may be given: a day.
pub const MAX_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// Reads `300s`, `5m`, `1h 30m`, `500ms` (humantime's forms) or a plain number of
/// seconds, up to a day.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let duration = match text.parse::<u64>() {
        Ok(seconds) => std::time::Duration::from_secs(seconds),
        Err(_) => humantime::parse_duration(text).map_err(|error| {
            format!("invalid duration {text:?} ({error}): write e.g. \"300s\", \"5m\" or \"500ms\"")
        })?,
    };
    if duration > MAX_TIMEOUT {
        return Err(format!(
            "duration {text:?} is longer than the maximum of 24h; write a shorter timeout"
        ));
    }
    Ok(duration)
}

/// An `[[idem]]` entry's targets: one for `dir`, or one per folder `dirs` matches.
pub(super) fn compile_idem(
    entry: &IdemEntry,
    root: &Path,
    errors: &ErrorContext,
) -> Result<Vec<IdemTarget>, ConfigError> {
    if entry.dirs.is_empty() {
        return Ok(vec![compile_idem_dir(
            entry,
            root,
            entry.dir.as_ref(),
            errors,
        )?]);
    }
    if let Some(dir) = &entry.dir {
        return Err(errors.at(
            dir.span(),
            "set `dir` or `dirs`, not both: `dirs` globs the folders, one target each".into(),
        ));
    }
    let globs = compile_globs(&entry.dirs, "idem.dirs", errors)?;
    let run = entry.run.as_deref().unwrap_or("make update");
    let make_target = make_target(run);
    let mut targets = Vec::new();
    let (folders, unread) = folders_under(root);
    // A folder tether cannot list may hold targets: said where the entry is
    // written, never a run that leaves them out unsaid.
    if let Some(unread) = unread.iter().find(|unread| {
        let relative = unread.path.strip_prefix(root).unwrap_or(&unread.path);
        entry
            .dirs
            .iter()
            .any(|glob| may_match_inside(glob.get_ref(), relative))
    }) {
        let span = entry.dirs[0].span().start..entry.dirs[entry.dirs.len() - 1].span().end;
        return Err(errors.at(
            span,
            format!(
                "`dirs` may match folders inside {}, which {}: make it readable, or write globs that cannot reach it",
                unread.path.display(),
                unread.why()
            ),
        ));
    }
    for folder in folders {
        let Ok(relative) = folder.strip_prefix(root) else {
            continue;
        };
        if !globs.is_match(relative) {
            continue;
        }
        if let Some(make_target) = &make_target {
            if !crate::settings::idem_targets::defines(&folder, make_target) {
                continue;
            }
        }
        let dir = Spanned::new(0..0, relative.to_string_lossy().into_owned());
        targets.push(compile_idem_dir(entry, root, Some(&dir), errors)?);
    }
    // An entry that proves nothing is a mistake to say where it is written, never a
    // run that passes for want of targets.
    if targets.is_empty() {
        let span = entry.dirs[0].span().start..entry.dirs[entry.dirs.len() - 1].span().end;
        let defining = make_target
            .map(|target| format!(" whose Makefile defines `{target}`"))
            .unwrap_or_default();
        return Err(errors.at(
            span,
            format!(
                "`dirs` matches no folder below {}{defining}: correct the globs (relative to this file's folder), or remove the entry",
                root.display()
            ),
        ));
    }
    Ok(targets)
}

/// `update` for `make update` or `make -s update V=1`; `None` for other commands.
fn make_target(run: &str) -> Option<String> {
    let mut words = run.split_whitespace();
    if words.next()? != "make" {
        return None;
    }
    words
        .find(|word| !word.starts_with('-') && !word.contains('='))
        .filter(|word| {
            word.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        })
        .map(str::to_string)
}

/// Every folder under `root`, hidden ones and `.git` left out, symlinks not
/// followed, in path order; and the folders that could not be listed.
fn folders_under(root: &Path) -> (Vec<PathBuf>, Vec<crate::folders::Unread>) {
    use crate::folders::Step;
    let mut found = Vec::new();
    let walked = crate::folders::walk(root, |entry| {
        if entry.is_hidden() || !entry.is_dir() {
            return Step::Over;
        }
        found.push(entry.path());
        Step::Into
    });
    found.sort();
    (found, walked.unread)
}

/// Whether the glob `glob` (slashed, relative, `*` within one component) may
/// match a folder inside `folder`: each of the folder's components may match the
/// glob's component there (a wildcard may, a literal must be equal), and the glob
/// goes on below it. `**` or `{…}` may match anything from where they stand.
fn may_match_inside(glob: &str, folder: &Path) -> bool {
    let mut parts = glob.split('/').filter(|part| !part.is_empty());
    for component in folder.components() {
        let Some(part) = parts.next() else {
            return false;
        };
        if part.contains("**") || part.contains('{') {
            return true;
        }
        let wildcard = part.contains(['*', '?', '[', '\\']);
        if !wildcard && component.as_os_str() != part {
            return false;
        }
    }
    parts.next().is_some()
}

fn compile_idem_dir(
    entry: &IdemEntry,
    root: &Path,
    dir: Option<&Spanned<String>>,
    errors: &ErrorContext,
) -> Result<IdemTarget, ConfigError> {
    let files = compile_globs(&entry.files, "idem.files", errors)?;
    let timeout = match &entry.timeout {
        Some(text) => {
            parse_duration(text.get_ref()).map_err(|message| errors.at(text.span(), message))?
        }
        None => std::time::Duration::from_secs(300),
    };
    let dir = match dir {
        Some(dir) => {
            let relative = Path::new(dir.get_ref());
            if !stays_inside(relative) {
                return Err(errors.at(
                    dir.span(),
                    format!(
                        "idem `dir` {:?} is not a folder inside this file's folder; write a relative path without `..`, or put the [[idem]] entry in a tether.toml above the folder",
                        dir.get_ref()
                    ),
                ));
            }
            // A committed link (`dir = "outlink"`, `outlink -> /`) would take the
            // command, and the walk of its folder, out of the repository.
            let joined = root.join(relative);
            if joined.exists() && !inside(&joined, root) {
                return Err(errors.at(
                    dir.span(),
                    format!(
                        "idem `dir` {:?} leads outside this file's folder through a link; name the folder itself",
                        dir.get_ref()
                    ),
                ));
            }
            // `dir = "."` is the folder itself, never `…/./templates/…` in output.
            joined.components().collect()
        }
        None => root.to_path_buf(),
    };
    let mut env = BTreeMap::new();
    for (name, value) in &entry.env {
        if name.get_ref().is_empty() || name.get_ref().contains(['=', '\0']) {
            return Err(errors.at(
                name.span(),
                format!(
                    "{:?} is not an environment variable name: it is empty or holds `=` or a NUL",
                    name.get_ref()
                ),
            ));
        }
        if value.get_ref().contains('\0') {
            return Err(errors.at(
                value.span(),
                format!(
                    "the value of `{}` holds a NUL byte, which no environment variable can carry",
                    name.get_ref()
                ),
            ));
        }
        env.insert(name.get_ref().clone(), value.get_ref().clone());
    }
    Ok(IdemTarget {
        run: entry.run.clone().unwrap_or_else(|| "make update".into()),
        dir,
        file_globs: entry
            .files
            .iter()
            .map(|glob| glob.get_ref().clone())
            .collect(),
        files,
        self_heal: entry.self_heal.clone(),
        timeout,
        env,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a glob that goes on below the folder, through components that may
    /// match its own, may match inside it.
    #[test]
    fn a_glob_may_match_inside_a_folder_only_through_it() {
        let inside = |glob: &str, folder: &str| may_match_inside(glob, Path::new(folder));
        assert!(inside("packages/*/*", "packages/locked"));
        assert!(inside("packages/**", "packages/locked/deep"));
        assert!(inside("**/charts", "anything"));
        assert!(inside("{a,b}/c", "x"));
        assert!(inside("p?ckages/x", "packages"));
        assert!(!inside("packages/*", "packages/locked"));
        assert!(!inside("apps/*/*", "packages/locked"));
        assert!(!inside("packages/a", "packages/a"));
        assert!(!inside("packages/a/b", "packages/c"));
    }
}
