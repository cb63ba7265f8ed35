//! Finds the files to check, as git chooses them, sorted.
//!
//! Inside a git work tree, git lists the files (`git ls-files --cached --others
//! --exclude-standard`): every tracked file, even one a `.gitignore` pattern matches,
//! and the untracked files git does not ignore. Outside a repository every file is
//! walked and no `.gitignore` applies. Hidden files and folders (`.github/`) below a
//! folder are skipped either way; a file named on the command line is always checked.
//! Folders that cannot be read are reported, never dropped.

use crate::git::{Listed, git_ls_files};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use ignore::{WalkBuilder, WalkState};
use rayon::prelude::*;

use std::sync::Arc;

use crate::linter::project::{Project, Resolved};
use crate::linter::resolve::Resolver;
use crate::paths::{absolute, relative_to};
use crate::settings::config::Config;

/// A file to check: where it is, its configuration, its path relative to that
/// configuration's folder (what globs match) and its path as output shows it.
#[derive(Debug, Clone)]
pub struct FileToCheck {
    pub absolute: PathBuf,
    pub config: Arc<Config>,
    /// The run's state of its configuration's repository (pins, charts).
    pub project: Arc<Project>,
    /// [`Walked::root`], shared by every file of the walk.
    root: Arc<Path>,
}

impl FileToCheck {
    /// Relative to `config.root`: what globs match, and the cache's key.
    pub fn relative(&self) -> &Path {
        self.absolute
            .strip_prefix(&self.config.root)
            .unwrap_or(&self.absolute)
    }

    /// Relative to [`Walked::root`]: the path findings show.
    pub fn display(&self) -> &Path {
        self.absolute
            .strip_prefix(&self.root)
            .unwrap_or(&self.absolute)
    }
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// Sorted by path.
    pub files: Vec<FileToCheck>,
    /// The folder output paths are relative to: the configurations' folder, or the
    /// folder above all of them when files of several are checked.
    pub root: PathBuf,
    /// Inputs that cannot be checked at all (missing, holding no file to check, or
    /// configured by a broken `tether.toml`), with a message that says what to do.
    pub bad_inputs: Vec<String>,
    /// Folders that could not be listed, with the reason (paths relative to `root`).
    pub unreadable: Vec<(PathBuf, String)>,
    /// Files named on the command line that their configuration excludes, counted
    /// by the setting that left them out.
    pub excluded: std::collections::BTreeMap<String, usize>,
}

/// The files under `inputs` that their configurations include. A file named on the
/// command line follows `include` and `exclude` too (pre-commit and CI pass every
/// changed file); the ones left out are counted.
pub fn files(resolver: &mut Resolver, inputs: &[PathBuf]) -> Walked {
    files_listed(resolver, inputs, None)
}

/// [`files`], the folders inside the repository `listed` names taken from that
/// listing rather than listed again.
pub(crate) fn files_listed(
    resolver: &mut Resolver,
    inputs: &[PathBuf],
    listed: Option<&Listed>,
) -> Walked {
    let mut walked = Walked::default();
    let mut collected = Collected::default();
    let mut unreadable: Vec<(PathBuf, String)> = Vec::new();
    let folders = input_folders(inputs);
    // A configuration's pins come from a walk of its repository: the input folders
    // are resolved while the inputs are listed, not after.
    let listings: Vec<Option<Result<Listing, PathBuf>>> = std::thread::scope(|scope| {
        let inputs_resolved = scope.spawn(|| resolver.resolve(&folders));
        let listings = inputs
            .iter()
            .map(|input| list_input(input, listed, &mut walked))
            .collect();
        // A panic in the resolution is the bug it is, not a silent default.
        if let Err(panic) = inputs_resolved.join() {
            std::panic::resume_unwind(panic);
        }
        listings
    });
    // Then every folder that holds a file to check, in one batch: looking a file's
    // configuration up afterwards reads a table, in parallel, without a lock.
    resolver.resolve(&folders_holding(&listings));
    let resolver = &*resolver;
    for (input, listing) in inputs.iter().zip(listings) {
        let listing = match listing {
            None => continue,
            Some(Err(file)) => {
                let config = resolver.resolved(&file);
                let kept = collected.kept(&file, &config, false);
                if let Kept::Excluded(setting) = collected.take(file, config, kept) {
                    *walked.excluded.entry(setting).or_default() += 1;
                }
                continue;
            }
            Some(Ok(listing)) => listing,
        };
        // Each file's configuration is looked up, and whether it keeps the file
        // decided, in parallel; the files are kept in order.
        let unverified = listing.unverified;
        let decided: Vec<_> = listing
            .files
            .par_iter()
            .map(|path| {
                let config = resolver.resolved(path);
                let kept = collected.kept(path, &config, unverified);
                (config, kept)
            })
            .collect();
        let mut included = 0;
        for (path, (config, kept)) in listing.files.into_iter().zip(decided) {
            included += usize::from(collected.take(path, config, kept) == Kept::Included);
        }
        if included == 0 && listing.unreadable.is_empty() && collected.config_errors.is_empty() {
            walked.bad_inputs.push(format!(
                "{}: no file to check in this folder (by default tether reads **/*.yaml, **/*.yml and **/*.tpl; `include` in tether.toml changes that); pass a chart folder",
                input.display()
            ));
        }
        unreadable.extend(listing.unreadable);
    }
    let Collected {
        found,
        config_errors,
        ..
    } = collected;
    walked.bad_inputs.extend(config_errors);
    walked.root = output_root(resolver, &found);
    let root = walked.root.clone();
    walked.unreadable = unreadable
        .into_iter()
        .map(|(path, error)| (relative_to(&path, &root), error))
        .collect();
    let shared_root: Arc<Path> = Arc::from(root.as_path());
    walked.files = found
        .into_iter()
        .map(|(mut absolute, Resolved { config, project })| FileToCheck {
            // A walked path grew by doubling as its name was joined on: held for
            // the whole run, it keeps only its bytes.
            absolute: {
                absolute.shrink_to_fit();
                absolute
            },
            config,
            project,
            root: shared_root.clone(),
        })
        .collect();
    sort_as_shown(&mut walked.files, &root);
    walked.files.dedup_by(|a, b| a.absolute == b.absolute);
    walked
}

/// Sorts `files` by the path output shows. Below `root`, that is the order of the
/// whole paths (the root's components are the same in each), compared without
/// taking the root off at every comparison.
fn sort_as_shown(files: &mut [FileToCheck], root: &Path) {
    let below = |file: &FileToCheck| file.absolute.starts_with(root);
    if files
        .par_iter()
        .all(|file| below(file) && crate::paths::is_plain(&file.absolute))
    {
        files.par_sort_by(|a, b| crate::paths::cmp_plain(&a.absolute, &b.absolute));
    } else if files.iter().all(below) {
        files.par_sort_by(|a, b| a.absolute.cmp(&b.absolute));
    } else {
        files.par_sort_by(|a, b| {
            a.display()
                .cmp(b.display())
                .then(a.absolute.cmp(&b.absolute))
        });
    }
}

/// The folders that hold a file of `listings`, each once.
fn folders_holding(listings: &[Option<Result<Listing, PathBuf>>]) -> Vec<PathBuf> {
    let mut holding: Vec<&Path> = listings
        .iter()
        .flat_map(|listing| match listing {
            None => Vec::new(),
            Some(Err(file)) => vec![file.as_path()],
            Some(Ok(listing)) => listing.files.iter().map(PathBuf::as_path).collect(),
        })
        .filter_map(Path::parent)
        .collect();
    // A folder's files come one after another in a listing: most repeats go before
    // the sort, which compares bytes (the order does not matter, only that each
    // folder comes once), not path components.
    holding.dedup();
    holding.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    holding.dedup();
    holding.into_iter().map(Path::to_path_buf).collect()
}

/// What the run covers: each input folder, and the folder of each input file.
/// The folder a run over `inputs` covers: their folders' common folder; `None`
/// without inputs. Outside a repository, the pins of the files are read from there
/// (`stale-version-reference`), not from the working directory.
pub(crate) fn covered(inputs: &[PathBuf]) -> Option<PathBuf> {
    let folders = input_folders(inputs);
    let first = folders.first()?;
    Some(
        folders
            .iter()
            .skip(1)
            .fold(first.clone(), |common, folder| {
                common_ancestor(&common, folder)
            }),
    )
}

fn input_folders(inputs: &[PathBuf]) -> Vec<PathBuf> {
    inputs
        .iter()
        .map(|input| absolute(input))
        .map(|path| {
            if path.is_dir() {
                path
            } else {
                path.parent().map(Path::to_path_buf).unwrap_or(path)
            }
        })
        .collect()
}

/// The folder output paths are relative to: the one configuration's folder, or the
/// folder above all of them (and a file's own folder when `--config` names a file
/// it is not below); the resolver's fallback when nothing was found.
fn output_root(resolver: &Resolver, found: &[(PathBuf, Resolved)]) -> PathBuf {
    let mut roots = found.iter().map(|(path, Resolved { config, .. })| {
        if path.starts_with(&config.root) {
            config.root.as_path()
        } else {
            path.parent().unwrap_or(path)
        }
    });
    match roots.next() {
        // Most files share their configuration's folder: the common folder is
        // looked for only where a root is not below the one so far, and written
        // from its components once, as each look writes it.
        Some(first) => {
            let mut many = false;
            let common = roots.fold(first.to_path_buf(), |common, root| {
                many = true;
                if root.starts_with(&common) {
                    common
                } else {
                    common_ancestor(&common, root)
                }
            });
            if many {
                common.components().collect()
            } else {
                common
            }
        }
        None => resolver.fallback_root().to_path_buf(),
    }
}

/// What one input holds: a folder's listing, the input itself when it is a file
/// (`Err`), or `None` when it cannot be checked (said in `walked`).
fn list_input(
    input: &Path,
    listed: Option<&Listed>,
    walked: &mut Walked,
) -> Option<Result<Listing, PathBuf>> {
    let absolute = absolute(input);
    let metadata = match std::fs::metadata(&absolute) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            walked.bad_inputs.push(format!(
                "{}: no such file or folder; pass a chart folder or a file",
                input.display()
            ));
            return None;
        }
        Err(error) => {
            walked
                .bad_inputs
                .push(format!("{}: {}", input.display(), describe_error(&error)));
            return None;
        }
    };
    if !metadata.is_dir() {
        return Some(Err(absolute));
    }
    let from_listed = listed.and_then(|listed| listed_under(listed, &absolute));
    Some(Ok(from_listed
        .or_else(|| git_listing(&absolute))
        .unwrap_or_else(|| walk_folder(&absolute))))
}

/// What [`Collected::kept`] decides for a file.
#[derive(Debug, PartialEq, Eq)]
enum Kept {
    /// Kept to be checked, or its configuration is broken (which is reported).
    Included,
    /// Left out by its configuration: the setting that left it out.
    Excluded(String),
    /// Listed by git, but not a regular file in the work tree.
    NotAFile,
}

/// The files a walk keeps, and the errors of the configurations it met.
#[derive(Default)]
struct Collected {
    found: Vec<(PathBuf, Resolved)>,
    config_errors: Vec<String>,
    /// Whether a folder holds a `Chart.yaml`, looked at once per folder: every
    /// file below a `charts/` folder asks of the folder above it.
    charts: Mutex<crate::collections::HashMap<PathBuf, bool>>,
}

impl Collected {
    /// Whether the file's configuration includes it, else the setting that left it
    /// out; asked of every file in parallel. When `verify`, the path is a name git
    /// listed, kept only if it is a regular file: looked at once its configuration
    /// includes it, not for every file of the repository.
    fn kept(
        &self,
        path: &Path,
        resolved: &Result<Resolved, crate::error::ConfigurationError>,
        verify: bool,
    ) -> Kept {
        // A broken configuration is not an exclusion: it is reported.
        let Ok(resolved) = resolved else {
            return Kept::Included;
        };
        let relative = relative_to(path, &resolved.config.root);
        let exclusion = resolved.config.exclusion_probing(&relative, &mut |folder| {
            let known = self
                .charts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(folder)
                .copied();
            known.unwrap_or_else(|| {
                let holds = crate::settings::tables::holds_chart_yaml(folder);
                self.charts
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(folder.to_path_buf(), holds);
                holds
            })
        });
        if let Some(setting) = exclusion {
            return Kept::Excluded(setting);
        }
        // Tracked files deleted from the work tree, submodules and symlinks are not
        // files to check.
        if verify && !std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_file()) {
            return Kept::NotAFile;
        }
        Kept::Included
    }

    /// Keeps the file when [`Collected::kept`] said so; a broken configuration is
    /// an error, said once.
    fn take(
        &mut self,
        path: PathBuf,
        resolved: Result<Resolved, crate::error::ConfigurationError>,
        kept: Kept,
    ) -> Kept {
        match resolved {
            Ok(resolved) if kept == Kept::Included => self.found.push((path, resolved)),
            Ok(_) => {}
            Err(error) => {
                let error = error.to_string();
                if !self.config_errors.contains(&error) {
                    self.config_errors.push(error);
                }
            }
        }
        kept
    }
}

fn common_ancestor(a: &Path, b: &Path) -> PathBuf {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// `folder` joined with `relative`, holding only its bytes (`Path::join` leaves the
/// room it grew by; a listing holds every file of the tree).
fn joined(folder: &Path, relative: &Path) -> PathBuf {
    let mut path =
        PathBuf::with_capacity(folder.as_os_str().len() + 1 + relative.as_os_str().len());
    path.push(folder);
    path.push(relative);
    path
}

/// Regular files found below a folder, and the folders that could not be read.
#[derive(Debug, Default)]
struct Listing {
    files: Vec<PathBuf>,
    /// The files are names git listed, not yet known to be regular files in the
    /// work tree ([`Collected::kept`] looks, for the files it keeps).
    unverified: bool,
    unreadable: Vec<(PathBuf, String)>,
}

/// Lists `folder` with git when it is inside a work tree; `None` outside one, or when
/// git cannot be run (then the folder is walked instead).
fn git_listing(folder: &Path) -> Option<Listing> {
    crate::paths::repository_top(folder)?;
    let (names, stderr) = git_ls_files(folder)?;
    Some(listing_of(
        folder,
        names.iter().map(PathBuf::as_path),
        warned_folders(&stderr).map(|(name, reason)| (folder.join(name), reason)),
    ))
}

/// The part of a repository's listing under `folder` (a folder inside it), as
/// [`git_listing`] lists it; `None` when `folder` is not inside.
fn listed_under(listed: &Listed, folder: &Path) -> Option<Listing> {
    let inside = folder.strip_prefix(&listed.root).ok()?;
    let names = listed
        .names
        .iter()
        .filter_map(|name| name.strip_prefix(inside).ok());
    let unreadable = warned_folders(&listed.warnings)
        .map(|(name, reason)| (listed.root.join(name), reason))
        .filter(|(path, _)| path.starts_with(folder));
    Some(listing_of(folder, names, unreadable))
}

/// The files to check among `names` (relative to `folder`) and the folders git
/// could not open.
fn listing_of<'a>(
    folder: &Path,
    names: impl Iterator<Item = &'a Path>,
    unreadable: impl Iterator<Item = (PathBuf, String)>,
) -> Listing {
    let mut listing = Listing {
        unverified: true,
        ..Listing::default()
    };
    for relative in names {
        // A nested repository is listed as a folder.
        if relative.as_os_str().as_encoded_bytes().ends_with(b"/") {
            continue;
        }
        if relative
            .components()
            .any(|part| is_hidden(part.as_os_str()))
        {
            continue;
        }
        listing.files.push(joined(folder, relative));
    }
    listing.unreadable.extend(unreadable);
    listing
}

/// The folders git warned it could not open (it goes on without them), as it
/// names them, with the reason.
fn warned_folders(stderr: &str) -> impl Iterator<Item = (&str, String)> {
    stderr.lines().filter_map(|line| {
        let rest = line.strip_prefix("warning: could not open directory '")?;
        let (name, reason) = rest.split_once("': ")?;
        Some((name, reason.to_string()))
    })
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
                            // A copy of its bytes only: the walk's own path grew by
                            // doubling as the name was joined on, and every file of
                            // the tree is held until the configurations choose.
                            listing.files.push(entry.path().to_path_buf());
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

/// The files a configuration covers under some paths, as `tether check` and
/// `tether map` choose them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Files {
    /// Absolute paths, sorted.
    pub files: Vec<PathBuf>,
    /// Paths that could not be walked, one sentence each, saying what to do.
    pub errors: Vec<String>,
}

/// The files under `paths` (files or folders) that `config` covers: git's listing
/// of a folder when it is in a repository (ignored files left out), else a walk;
/// hidden folders, symlinks and special files are never followed.
pub(crate) fn covered_files<P: AsRef<Path>>(config: &Config, paths: &[P]) -> Files {
    let inputs: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let walked = files(&mut Resolver::one(config.clone()), &inputs);
    let mut errors = walked.bad_inputs;
    errors.extend(
        walked
            .unreadable
            .into_iter()
            .map(|(folder, message)| format!("cannot read folder {}: {message}", folder.display())),
    );
    let mut files: Vec<PathBuf> = walked.files.into_iter().map(|file| file.absolute).collect();
    files.sort();
    Files { files, errors }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of a tree is held until the configurations choose: a listed path
    /// holds its bytes and no room to grow, walked or named by git.
    #[test]
    fn a_listed_path_holds_only_its_bytes() {
        let folder = tempfile::tempdir().unwrap();
        let deep = folder.path().join("charts/app/templates/sub");
        std::fs::create_dir_all(&deep).unwrap();
        for name in ["a.yaml", "a-longer-name-than-its-folder.yaml", "b.tpl"] {
            std::fs::write(deep.join(name), "a: 1\n").unwrap();
        }
        std::fs::write(folder.path().join("top.yaml"), "a: 1\n").unwrap();
        let walked = walk_folder(folder.path());
        let names: Vec<PathBuf> = walked
            .files
            .iter()
            .map(|path| path.strip_prefix(folder.path()).unwrap().to_path_buf())
            .collect();
        let listed = listing_of(
            folder.path(),
            names.iter().map(PathBuf::as_path),
            std::iter::empty(),
        );
        assert_eq!(walked.files.len(), 4);
        assert_eq!(listed.files.len(), 4);
        for path in walked.files.iter().chain(&listed.files) {
            assert_eq!(
                path.capacity(),
                path.as_os_str().len(),
                "{} holds spare room",
                path.display()
            );
        }
    }
}
