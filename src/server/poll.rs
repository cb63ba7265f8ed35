//! Watching the files that change a check, for a client that cannot watch them for
//! the server (no dynamic `workspace/didChangeWatchedFiles` registration, as
//! Neovim 0.7): every [`PERIOD`], the configuration and chart files of the folders
//! holding open documents, and the templates of their charts, are looked at
//! (metadata only, never read), and what changed is handed to the message loop as
//! the client's watcher would have told it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use crossbeam_channel::Sender;

/// How often the files are looked at.
pub(super) const PERIOD: Duration = Duration::from_secs(2);

/// The files of a folder that configure or make up a check of others.
const NAMES: [&str; 8] = [
    "tether.toml",
    ".yamllint",
    ".yamllint.yaml",
    ".yamllint.yml",
    "ct.yaml",
    "Chart.yaml",
    "requirements.yaml",
    "values.yaml",
];

/// At most this many folders are watched, and this many files in one chart's
/// `templates/`: a poll stays cheap whatever is open.
const MAX_FOLDERS: usize = 1_000;
const MAX_TEMPLATES: usize = 5_000;

/// The folders whose files are watched (those holding an open document, and every
/// folder above it up to its workspace folder) and how their files looked last.
/// Shared with the message loop, which adds folders as documents open: a folder's
/// files are looked at when it is added, so a change right after is a change.
#[derive(Debug, Clone, Default)]
pub(super) struct Folders(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    folders: BTreeSet<PathBuf>,
    seen: BTreeMap<PathBuf, Seen>,
}

impl Folders {
    /// Adds the folders from `path`'s own up to `top`.
    pub(super) fn add(&self, path: &Path, top: &Path) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut new = Vec::new();
        for folder in path.ancestors().skip(1) {
            if !folder.starts_with(top) || state.folders.len() >= MAX_FOLDERS {
                break;
            }
            if state.folders.insert(folder.to_path_buf()) {
                new.push(folder.to_path_buf());
            }
        }
        let seen = look(&new);
        state.seen.extend(seen);
    }

    /// Looks at every watched folder's files and returns those that changed, were
    /// made or were removed since the last look.
    fn changes(&self) -> Vec<PathBuf> {
        let folders: Vec<PathBuf> = {
            let state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            state.folders.iter().cloned().collect()
        };
        let now = look(&folders);
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut paths: Vec<PathBuf> = now
            .iter()
            .filter(|(path, seen)| match state.seen.get(*path) {
                Some(was) => was != *seen,
                None => seen.is_some(),
            })
            .map(|(path, _)| path.clone())
            .collect();
        // Listed before and not now (a template removed, or no longer under a
        // chart): no longer watched, and said once.
        let folders: BTreeSet<&Path> = folders.iter().map(PathBuf::as_path).collect();
        let under = |path: &Path| {
            path.ancestors()
                .skip(1)
                .any(|folder| folders.contains(folder))
        };
        let gone: Vec<PathBuf> = state
            .seen
            .keys()
            .filter(|path| !now.contains_key(*path) && under(path))
            .cloned()
            .collect();
        for path in gone {
            if state.seen.remove(&path).is_some_and(|seen| seen.is_some()) {
                paths.push(path);
            }
        }
        state.seen.extend(now);
        paths
    }
}

/// What a file looked like: its modification time and size, or absent.
type Seen = Option<(SystemTime, u64)>;

/// Looks at the watched files every [`PERIOD`] and sends the paths that changed
/// since the last look, until the loop stops listening.
pub(super) fn watch(folders: Folders, changed: Sender<Vec<PathBuf>>) {
    loop {
        std::thread::sleep(PERIOD);
        let paths = folders.changes();
        if !paths.is_empty() && changed.send(paths).is_err() {
            return;
        }
    }
}

/// The watched files of `folders` as they are now, absent ones included (so that a
/// file made later is seen as a change).
fn look(folders: &[PathBuf]) -> BTreeMap<PathBuf, Seen> {
    let mut seen = BTreeMap::new();
    for folder in folders {
        for name in NAMES {
            let path = folder.join(name);
            let now = seen_now(&path);
            seen.insert(path, now);
        }
        if seen
            .get(&folder.join("Chart.yaml"))
            .is_some_and(Option::is_some)
        {
            templates(&folder.join("templates"), &mut seen);
        }
    }
    seen
}

/// The files under a chart's `templates/` (links not followed), up to
/// [`MAX_TEMPLATES`] entries. A folder that cannot be listed is watched as
/// absent, so the look after it becomes readable sees its files as new.
fn templates(folder: &Path, seen: &mut BTreeMap<PathBuf, Seen>) {
    let mut count = 0;
    let walked = crate::folders::walk(folder, |entry| {
        count += 1;
        if count > MAX_TEMPLATES {
            return crate::folders::Step::Stop;
        }
        if entry.is_file() {
            let path = entry.path();
            let now = seen_now(&path);
            seen.insert(path, now);
        }
        crate::folders::Step::Into
    });
    for unread in walked.unread {
        seen.entry(unread.path).or_insert(None);
    }
}

fn seen_now(path: &Path) -> Seen {
    std::fs::symlink_metadata(path).ok().map(|metadata| {
        (
            metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            metadata.len(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template made, a `tether.toml` changed, then a template and a
    /// `Chart.yaml` removed are each seen; a file no watched folder holds is not.
    #[test]
    fn changes_are_seen_between_looks() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("app");
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::write(chart.join("Chart.yaml"), "name: app\n").unwrap();
        std::fs::write(dir.path().join("tether.toml"), "").unwrap();
        std::fs::write(dir.path().join("other.yaml"), "").unwrap();
        let folders = Folders::default();
        folders.add(&chart.join("values.yaml"), dir.path());
        std::fs::write(chart.join("templates/a.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.path().join("tether.toml"), "[rules]\n").unwrap();
        std::fs::write(dir.path().join("other.yaml"), "b: 1\n").unwrap();
        assert_eq!(
            folders.changes(),
            [
                chart.join("templates/a.yaml"),
                dir.path().join("tether.toml")
            ]
        );
        assert!(folders.changes().is_empty());
        std::fs::remove_file(chart.join("templates/a.yaml")).unwrap();
        std::fs::remove_file(chart.join("Chart.yaml")).unwrap();
        let mut gone = folders.changes();
        gone.sort();
        assert_eq!(
            gone,
            [chart.join("Chart.yaml"), chart.join("templates/a.yaml")]
        );
        assert!(folders.changes().is_empty());
    }
}
