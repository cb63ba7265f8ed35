//! Which targets a run runs: `--target` (a folder named) and `--changed-since`
//! (something the target reads changed since a revision), and why the others do
//! not. Portable code, though only Unix runs it: `tether idem` (and its `--list`)
//! is a Unix command.
#![cfg_attr(not(unix), allow(dead_code))]

use std::path::{Path, PathBuf};

use super::options::IdemOptions;
use super::report::Skipped;
use crate::error::IdemError;
use crate::settings::config::IdemTarget;

/// The targets `--target` (`options.only`) and `--changed-since` keep, as [`run`](super::run)
/// would run them (what `tether idem --list` prints); a `--target` that names no
/// target is an error.
pub fn selected(
    targets: &[IdemTarget],
    options: &IdemOptions,
) -> Result<Vec<IdemTarget>, IdemError> {
    select(targets, options, &display_root(options)).map(|(selected, _)| selected)
}

/// The targets `--target` and `--changed-since` keep, and the others with why.
pub(super) fn select(
    targets: &[IdemTarget],
    options: &IdemOptions,
    display_root: &Path,
) -> Result<(Vec<IdemTarget>, Vec<Skipped>), IdemError> {
    let only: Vec<PathBuf> = options
        .only
        .iter()
        .map(|folder| crate::paths::absolute(folder))
        .collect();
    let changed = match (&options.changed_since, targets.first()) {
        (Some(revision), Some(first)) => Some((
            revision,
            crate::linter::changes::Changes::paths_since(&first.dir, revision)
                .map_err(IdemError::Changes)?,
        )),
        _ => None,
    };
    let (mut selected, mut skipped) = (Vec::new(), Vec::new());
    for target in targets {
        let dir = crate::paths::absolute(&target.dir);
        let skip = |reason: String| Skipped {
            dir: display(display_root, &target.dir),
            run: target.run.clone(),
            reason,
        };
        if !only.is_empty() && !only.contains(&dir) {
            skipped.push(skip("not a folder named by --target".into()));
            continue;
        }
        if let Some((revision, paths)) = &changed {
            if !affected(&dir, paths) {
                skipped.push(skip(format!(
                    "nothing in its folder, its Makefile's includes or a tether.toml changed since {revision}"
                )));
                continue;
            }
        }
        selected.push(target.clone());
    }
    // A `--target` that names no target is a mistake to say, not an empty run.
    for (folder, named) in only.iter().zip(&options.only) {
        let matched = targets
            .iter()
            .any(|target| crate::paths::absolute(&target.dir) == *folder);
        if !matched {
            let mut folders: Vec<String> = targets
                .iter()
                .map(|target| display(display_root, &target.dir))
                .collect();
            folders.dedup();
            let shown = match folders.len() {
                0 => "none".to_string(),
                1..=5 => folders.join(", "),
                n => format!(
                    "{}, … ({n} in all; `tether idem --list` lists them)",
                    folders[..5].join(", ")
                ),
            };
            return Err(IdemError::NoSuchTarget(format!(
                "--target {} names no target; the targets' folders are: {shown}",
                named.display()
            )));
        }
    }
    Ok((selected, skipped))
}

/// Whether a change can affect the target in `dir`: a path under it, a file its
/// Makefile includes, any `tether.toml`; when its includes cannot be read for sure,
/// yes.
fn affected(dir: &Path, paths: &[PathBuf]) -> bool {
    let Some(makefiles) = crate::settings::idem_targets::makefiles(dir).or_else(|| {
        (!dir.join("Makefile").exists() && !dir.join("makefile").exists()).then(Vec::new)
    }) else {
        return true;
    };
    paths.iter().any(|path| {
        let path = path.canonicalize().unwrap_or_else(|_| path.clone());
        path.starts_with(dir)
            || makefiles.contains(&path)
            || path.file_name().is_some_and(|name| name == "tether.toml")
    })
}

/// `path` as shown: relative to `root` when inside it (`.` for `root` itself).
pub(super) fn display(root: &Path, path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match path.strip_prefix(&root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".into(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// What the targets' folders are shown relative to: `options.display_root`, else
/// the working directory.
pub(super) fn display_root(options: &IdemOptions) -> PathBuf {
    options
        .display_root
        .clone()
        .unwrap_or_else(|| crate::paths::absolute(Path::new(".")))
}
