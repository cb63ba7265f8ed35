//! What every command of the binary shares: exit codes, printing (escape sequences
//! from files shown, never sent), paths, the configuration of the first path, and
//! writing a report file without following a link.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;
use crate::settings::config::Config;

/// Exit codes shared by every command (DESIGN §7).
pub mod exit {
    /// Clean.
    pub const OK: u8 = 0;
    /// Findings at error level; for `tether server`, an `exit` without `shutdown`
    /// before it (as the Language Server Protocol has it).
    pub const FINDINGS: u8 = 1;
    /// tether could not do its job: bad config, unreadable input.
    pub const TROUBLE: u8 = 2;
}

/// An absolute, normalised path (symlinks resolved when the path exists).
pub(super) fn absolute(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Loads `--config`, or discovers `tether.toml` from the first path (or the working
/// directory); without one, the defaults for the working directory.
pub(super) fn load_config(
    paths: &[PathBuf],
    explicit: Option<&Path>,
) -> Result<Config, ConfigError> {
    if let Some(path) = explicit {
        return Config::load(path);
    }
    let start = match paths.first() {
        Some(path) if path.is_file() => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        Some(path) => path.clone(),
        None => PathBuf::from("."),
    };
    match Config::find(&absolute(&start)) {
        Some(found) => Config::load(&found),
        None => Ok(Config::default_for(absolute(Path::new(".")))),
    }
}

/// Writes to standard output; false when it is closed.
pub(super) fn print_out(text: &str) -> bool {
    std::io::stdout().lock().write_all(text.as_bytes()).is_ok()
}

/// Prints `error: …` to stderr, a file's escape sequences shown, not sent.
pub(super) fn say_error(message: &dyn std::fmt::Display) {
    eprintln!(
        "error: {}",
        crate::report::human::escape_controls(&message.to_string())
    );
}

/// Prints text for people (a comment map, settings, an idem report): a file's escape
/// sequences are shown as `\x1b`, never sent to the terminal, wherever it goes.
pub(super) fn print_text(text: &str) -> bool {
    print_out(&crate::report::human::escape_controls(text))
}

/// After an interrupt, the handler removes the sandboxes and exits 130: what the
/// killed commands left is no verdict, and an "interrupted" error from the run is
/// not one either (exit 2 would race the handler's 130), so the main thread waits
/// for the handler. `None` when no interrupt came.
pub(super) fn left_to_the_interrupt_handler() -> Option<u8> {
    if !interrupted() {
        return None;
    }
    std::thread::sleep(std::time::Duration::from_secs(60));
    Some(130)
}

/// Whether Ctrl-C stopped the run: the handler is removing the sandboxes and exits.
pub(super) fn interrupted() -> bool {
    #[cfg(unix)]
    return crate::idem::stopping();
    #[cfg(not(unix))]
    return false;
}

/// Whether this run is in CI, by the variable CI services set (`CI=true`); `CI=0`
/// or `CI=false` says it is not.
pub(super) fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}

/// Writes `bytes` to `path`, replacing a regular file there but never following a
/// link (a report file named by the caller).
#[cfg(unix)]
pub(super) fn write_new_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // Only a regular file is replaced: never a link, and never a FIFO or device,
    // whose open would block or write elsewhere.
    if let Ok(metadata) = path.symlink_metadata() {
        if metadata.file_type().is_symlink() {
            return Err(std::io::Error::other(
                "it is a symlink; tether does not write through one",
            ));
        }
        if !metadata.is_file() {
            return Err(std::io::Error::other(
                "it is not a regular file; tether writes only regular files",
            ));
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)
}
