//! `git`, run as tether runs it everywhere, and its listing of a folder's files.
//! A leaf: imports nothing of the crate.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What `git ls-files --cached --others --exclude-standard` lists in `folder`: the
/// tracked files and the untracked ones git does not ignore, relative to `folder`
/// (names that are not UTF-8 kept as they are; a nested repository as `name/`), and
/// git's warnings. `None` when git cannot list the folder.
pub(crate) fn git_ls_files(folder: &Path) -> Option<(Vec<PathBuf>, String)> {
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
    let names = output
        .stdout
        .split(|&byte| byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| PathBuf::from(os_str(name)))
        .collect();
    Some((names, String::from_utf8_lossy(&output.stderr).into_owned()))
}

/// A repository's files as `git ls-files` lists them at its top level, once for a
/// run that reads them twice (`tether idem`: the configurations below its folder,
/// then the files its sandboxes copy).
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    /// The repository's top level, as git names it.
    pub root: PathBuf,
    /// Relative to `root`, as [`git_ls_files`] lists them.
    pub names: Vec<PathBuf>,
    /// git's warnings (a folder it could not open).
    pub warnings: String,
}

impl Listed {
    /// The repository around `folder`, listed; `None` outside a work tree, or when
    /// git cannot list it.
    #[cfg_attr(not(unix), allow(dead_code))] // `tether idem` is a Unix command
    pub(crate) fn around(folder: &Path) -> Option<Listed> {
        let root = top_level(folder)?;
        let (names, warnings) = git_ls_files(&root)?;
        Some(Listed {
            root,
            names,
            warnings,
        })
    }
}

/// The top level of the work tree holding `folder`, as git names it.
#[cfg_attr(not(unix), allow(dead_code))] // `tether idem` is a Unix command
pub(crate) fn top_level(folder: &Path) -> Option<PathBuf> {
    let output = git(folder)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
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
