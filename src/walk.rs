//! Finds the files to check, as git chooses them, sorted.
//!
//! Inside a git work tree, git lists the files (`git ls-files --cached --others
//! --exclude-standard`): every tracked file, even one a `.gitignore` pattern matches,
//! and the untracked files git does not ignore. Outside a repository every file is
//! walked and no `.gitignore` applies. Hidden files and folders (`.github/`) below a
//! folder are skipped either way; a file named on the command line is always checked.
//! Folders that cannot be read are reported, never dropped.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

use crate::config::Config;

/// A file to check: where it is, and its path relative to the configuration's folder.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FileToCheck {
    pub relative: PathBuf,
    pub absolute: PathBuf,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// Sorted by relative path.
    pub files: Vec<FileToCheck>,
    /// Inputs that cannot be checked at all (missing, or holding no file to check),
    /// with a message that says what to do.
    pub bad_inputs: Vec<String>,
    /// Folders that could not be listed, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
}

/// The files under `inputs` that the configuration includes. A file named on the
/// command line is checked even if no `include` glob matches it.
pub fn files(config: &Config, inputs: &[PathBuf]) -> Walked {
    let mut walked = Walked::default();
    for input in inputs {
        let absolute = absolute(input);
        let metadata = match std::fs::metadata(&absolute) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                walked.bad_inputs.push(format!(
                    "{}: no such file or folder; pass a chart folder or a file",
                    input.display()
                ));
                continue;
            }
            Err(error) => {
                walked
                    .bad_inputs
                    .push(format!("{}: {}", input.display(), describe_error(&error)));
                continue;
            }
        };
        if !metadata.is_dir() {
            walked.files.push(FileToCheck {
                relative: relative_to(&absolute, &config.root),
                absolute,
            });
            continue;
        }
        let (files_before, unreadable_before) = (walked.files.len(), walked.unreadable.len());
        let found = match git_listing(&absolute) {
            Some(listing) => listing,
            None => walk_folder(&absolute),
        };
        for (path, error) in found.unreadable {
            walked
                .unreadable
                .push((relative_to(&path, &config.root), error));
        }
        for path in found.files {
            let relative = relative_to(&path, &config.root);
            if config.includes(&relative) {
                walked.files.push(FileToCheck {
                    relative,
                    absolute: path,
                });
            }
        }
        if walked.files.len() == files_before && walked.unreadable.len() == unreadable_before {
            walked.bad_inputs.push(format!(
                "{}: no file to check in this folder (tether reads {}); pass a chart folder, or change `include` in tether.toml",
                input.display(),
                config.include_description()
            ));
        }
    }
    walked.files.sort();
    walked.files.dedup();
    walked
}

/// Regular files found below a folder, and the folders that could not be read.
#[derive(Debug, Default)]
struct Listing {
    files: Vec<PathBuf>,
    unreadable: Vec<(PathBuf, String)>,
}

/// Lists `folder` with git when it is inside a work tree; `None` outside one, or when
/// git cannot be run (then the folder is walked instead).
fn git_listing(folder: &Path) -> Option<Listing> {
    folder
        .ancestors()
        .find(|ancestor| ancestor.join(".git").exists())?;
    let output = git(folder)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let mut listing = Listing::default();
    for name in output.stdout.split(|&byte| byte == 0) {
        if name.is_empty() || name.ends_with(b"/") {
            continue;
        }
        let relative = Path::new(os_str(name));
        if relative
            .components()
            .any(|part| is_hidden(part.as_os_str()))
        {
            continue;
        }
        let path = folder.join(relative);
        // Tracked files deleted from the work tree, submodules and symlinks are not
        // files to check.
        if std::fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.is_file()) {
            listing.files.push(path);
        }
    }
    // git warns and goes on when it cannot open a folder.
    for line in String::from_utf8_lossy(&output.stderr).lines() {
        if let Some(rest) = line.strip_prefix("warning: could not open directory '") {
            if let Some((name, reason)) = rest.split_once("': ") {
                listing
                    .unreadable
                    .push((folder.join(name), reason.to_string()));
            }
        }
    }
    Some(listing)
}

/// `git` run in `folder` on that folder's repository, whatever the environment says
/// (a hook exports `GIT_DIR`), and without running programs the repository's own
/// configuration names (`core.fsmonitor`).
pub(crate) fn git(folder: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotePath=false"])
        .current_dir(folder)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null());
    command
}

#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> &OsStr {
    OsStr::new(std::str::from_utf8(bytes).unwrap_or_default())
}

fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.') && name != "." && name != ".."
}

/// Walks a folder outside git: every regular file that is not hidden, no ignore files.
fn walk_folder(folder: &Path) -> Listing {
    let listing = Mutex::new(Listing::default());
    WalkBuilder::new(folder)
        .standard_filters(false)
        .hidden(true)
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                let Ok(mut listing) = listing.lock() else {
                    return WalkState::Quit;
                };
                match entry {
                    Ok(entry) => {
                        if entry.file_type().is_some_and(|kind| kind.is_file()) {
                            listing.files.push(entry.into_path());
                        }
                    }
                    Err(error) => {
                        let path = error_path(&error).unwrap_or(folder).to_path_buf();
                        let reason = io_reason(&error);
                        listing.unreadable.push((path, reason));
                    }
                }
                WalkState::Continue
            })
        });
    listing.into_inner().unwrap_or_default()
}

/// The path an error of the walk is about.
fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// The reason of a walk error, without the path it names.
fn io_reason(error: &ignore::Error) -> String {
    match error {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => io_reason(err),
        ignore::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}

/// An error of a named input, in words: a loop of symbolic links is named as one.
fn describe_error(error: &std::io::Error) -> String {
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        return "a loop of symbolic links; pass the file it should point to".into();
    }
    error.to_string()
}

/// `path` relative to `root`, or as it is when it is not under `root`.
pub fn relative_to(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

/// An absolute, normalised path (symlinks resolved when the path exists).
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
