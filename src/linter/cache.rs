//! The content-hash cache of `tether check`: findings per file, keyed by the file's
//! hash, the configuration's, the mode's and tether's build, kept in `.tether_cache/`
//! beside `tether.toml` (and nowhere without one), and what the run says of each
//! chart by the chart's fingerprint. An unchanged re-run reads and hashes the
//! files and each chart's `Chart.yaml` (where its dependencies lie), and lexes no
//! template and parses no values file of an unchanged chart.
//!
//! The folder may come from a stranger's pull request, so nothing in it is trusted
//! or followed: the folder must be a real directory owned by the user, the cache file
//! a regular file owned by the user, not tracked by git, and its checksum must match;
//! files are opened without following symlinks and written atomically. When anything
//! is off the run goes on without the cache and says why once.

use crate::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::linter::project::Project;
use crate::settings::config::Config;

/// The folder, relative to the configuration's.
pub const FOLDER: &str = ".tether_cache";

/// A cache file larger than this is not read.
const MAX_CACHE_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    /// tether's build, the configuration's fingerprint and the mode the entries were
    /// made with.
    key: String,
    /// xxh3 of the serialised entries: a damaged or edited file is not read.
    checksum: u64,
    files: HashMap<PathBuf, Entry>,
    /// What the run says of each chart (read in part, or every value read), by
    /// its folder.
    #[serde(default)]
    charts: HashMap<PathBuf, ChartEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    hash: u64,
    diagnostics: Vec<Diagnostic>,
}

/// What a run said of one chart, by the fingerprint of everything its analysis
/// depends on (`Chart::content_fingerprint`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ChartEntry {
    hash: u64,
    notes: ChartNotes,
}

/// What the run says of a chart: why it could not be read whole, and, read whole,
/// why every value counts as read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChartNotes {
    pub partial: Vec<String>,
    pub whole: Vec<String>,
}

/// A chart's notes made by this run, for its configuration's cache: its folder
/// relative to the configuration's, its fingerprint and the notes.
pub type FreshChart = (PathBuf, u64, ChartNotes);

/// The cache as loaded at the start of a run.
#[derive(Debug)]
pub struct Cache {
    folder: PathBuf,
    stored: Stored,
    /// Without a `tether.toml` there is no cache, silently.
    enabled: bool,
    /// Why the cache is not used, said once by the caller.
    pub disabled: Option<String>,
}

impl Cache {
    /// Loads the cache for this configuration and mode (`mode` is part of the key).
    /// An absent or outdated cache is an empty one; an untrusted one disables the
    /// cache for the run.
    pub fn load(config: &Config, project: &Project, mode: &str) -> Cache {
        let folder = config.root.join(FOLDER);
        let key = cache_key(config, project, mode);
        let empty = Stored {
            key: key.clone(),
            checksum: 0,
            files: HashMap::default(),
            charts: HashMap::default(),
        };
        let mut cache = Cache {
            folder,
            stored: empty,
            enabled: config.file.is_some(),
            disabled: None,
        };
        if !cache.enabled {
            return cache;
        }
        match cache.read(&key) {
            Ok(Some(stored)) => cache.stored = stored,
            Ok(None) => {}
            Err(reason) => cache.disabled = Some(reason),
        }
        cache
    }

    fn read(&self, key: &str) -> Result<Option<Stored>, String> {
        match std::fs::symlink_metadata(&self.folder) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("cannot inspect {FOLDER}: {error}")),
            Ok(metadata) => trusted_folder(&metadata)?,
        }
        let path = self.folder.join("check.json");
        let mut file = match open_no_follow(&path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("cannot open {FOLDER}/check.json: {error}")),
            Ok(file) => file,
        };
        let metadata = file
            .metadata()
            .map_err(|error| format!("cannot inspect {FOLDER}/check.json: {error}"))?;
        if !metadata.is_file() {
            return Err(format!("{FOLDER}/check.json is not a regular file"));
        }
        owned_by_user(&metadata, "check.json")?;
        if tracked_by_git(&self.folder) {
            return Err(format!(
                "{FOLDER}/ is tracked by git, so it came with the checkout; remove it from the repository"
            ));
        }
        let mut bytes = Vec::new();
        Read::by_ref(&mut file)
            .take(MAX_CACHE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot read {FOLDER}/check.json: {error}"))?;
        if bytes.len() as u64 > MAX_CACHE_BYTES {
            return Ok(None);
        }
        let Ok(stored) = serde_json::from_slice::<Stored>(&bytes) else {
            return Ok(None);
        };
        if stored.key != key || stored.checksum != checksum(&stored.files, &stored.charts) {
            return Ok(None);
        }
        Ok(Some(stored))
    }

    /// What was stored, when the cache is used.
    fn usable(&self) -> Option<&Stored> {
        (self.enabled && self.disabled.is_none()).then_some(&self.stored)
    }

    /// The cached findings of a file, if its content is unchanged.
    pub fn get(&self, relative: &Path, hash: u64) -> Option<Vec<Diagnostic>> {
        self.usable()?
            .files
            .get(relative)
            .filter(|entry| entry.hash == hash)
            .map(|entry| entry.diagnostics.clone())
    }

    /// The notes kept for the chart in the folder `relative`, if its fingerprint is
    /// unchanged.
    pub fn chart(&self, relative: &Path, hash: u64) -> Option<ChartNotes> {
        self.usable()?
            .charts
            .get(relative)
            .filter(|entry| entry.hash == hash)
            .map(|entry| entry.notes.clone())
    }

    /// Adds this run's fresh results and writes the cache. A cache that cannot be
    /// written is skipped (the next run is slower, not wrong); the reason is returned.
    pub fn store(
        mut self,
        fresh: Vec<(PathBuf, u64, Vec<Diagnostic>)>,
        charts: Vec<FreshChart>,
    ) -> Option<String> {
        if !self.enabled || self.disabled.is_some() || (fresh.is_empty() && charts.is_empty()) {
            return None;
        }
        for (path, hash, diagnostics) in fresh {
            self.stored.files.insert(path, Entry { hash, diagnostics });
        }
        for (path, hash, notes) in charts {
            self.stored.charts.insert(path, ChartEntry { hash, notes });
        }
        self.stored.checksum = checksum(&self.stored.files, &self.stored.charts);
        self.write().err()
    }

    fn write(&self) -> Result<(), String> {
        match std::fs::create_dir(&self.folder) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(format!("cannot create {FOLDER}/: {error}")),
        }
        let metadata = std::fs::symlink_metadata(&self.folder)
            .map_err(|error| format!("cannot inspect {FOLDER}: {error}"))?;
        trusted_folder(&metadata)?;
        // Created once, never rewritten, never through a link.
        let ignore = self.folder.join(".gitignore");
        match create_new_no_follow(&ignore) {
            Ok(mut file) => {
                let _ = file.write_all(b"# created by tether\n*\n");
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(format!("cannot write {FOLDER}/.gitignore: {error}")),
        }
        let bytes = serde_json::to_vec(&self.stored).map_err(|error| error.to_string())?;
        // A new file in the folder, renamed over check.json: a rename replaces a link
        // named check.json instead of writing through it, and a concurrent run never
        // reads half a file.
        let mut temporary = tempfile::NamedTempFile::new_in(&self.folder)
            .map_err(|error| format!("cannot write in {FOLDER}/: {error}"))?;
        temporary
            .write_all(&bytes)
            .map_err(|error| format!("cannot write in {FOLDER}/: {error}"))?;
        temporary
            .persist(self.folder.join("check.json"))
            .map_err(|error| format!("cannot write {FOLDER}/check.json: {}", error.error))?;
        Ok(())
    }
}

fn checksum(files: &HashMap<PathBuf, Entry>, charts: &HashMap<PathBuf, ChartEntry>) -> u64 {
    let mut sorted: Vec<_> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut sorted_charts: Vec<_> = charts.iter().collect();
    sorted_charts.sort_by(|a, b| a.0.cmp(b.0));
    serde_json::to_vec(&(sorted, sorted_charts))
        .map_or(0, |bytes| xxhash_rust::xxh3::xxh3_64(&bytes))
}

/// The folder must be a real directory (not a link to one) owned by the user.
fn trusted_folder(metadata: &std::fs::Metadata) -> Result<(), String> {
    if metadata.file_type().is_symlink() {
        return Err(format!("{FOLDER} is a symbolic link; remove it"));
    }
    if !metadata.is_dir() {
        return Err(format!("{FOLDER} is not a folder; remove it"));
    }
    owned_by_user(metadata, FOLDER)
}

#[cfg(unix)]
fn owned_by_user(metadata: &std::fs::Metadata, what: &str) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let user = crate::sys::effective_uid();
    if metadata.uid() == user {
        Ok(())
    } else {
        Err(format!(
            "{what} in the cache belongs to another user (uid {}); remove {FOLDER}/",
            metadata.uid()
        ))
    }
}

#[cfg(not(unix))]
fn owned_by_user(_metadata: &std::fs::Metadata, _what: &str) -> Result<(), String> {
    Ok(())
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn create_new_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_EXCL with O_CREAT never follows a link, and fails on an existing one.
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn create_new_no_follow(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Whether git tracks anything in the cache folder: then it came with the checkout
/// (a pull request can commit a crafted cache) and must not be trusted.
fn tracked_by_git(folder: &Path) -> bool {
    let Some(parent) = folder.parent() else {
        return false;
    };
    if crate::paths::repository_top(parent).is_none() {
        return false;
    }
    crate::git::git(parent)
        .args(["ls-files", "-z", "--", FOLDER])
        .stderr(std::process::Stdio::null())
        .output()
        .is_ok_and(|output| !output.stdout.is_empty())
}

/// tether's version, the running build (a rebuilt binary may check differently
/// under the same version), the configuration and the mode.
fn cache_key(config: &Config, project: &Project, mode: &str) -> String {
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|metadata| {
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            format!("{}.{modified}", metadata.len())
        })
        .unwrap_or_default();
    format!(
        "{}-{build}-{:016x}-{mode}",
        env!("CARGO_PKG_VERSION"),
        project.cache_fingerprint(config)
    )
}
