//! A file's text with its line index, made safe to parse without moving any byte.
//!
//! Everything downstream addresses the file by byte offset. Bytes that YAML or the
//! parser cannot take (invalid UTF-8, NUL) are replaced one for one so that every
//! offset still points at the same place in the file on disk, and each replacement is
//! reported as a [`Problem`].

use std::ops::Range;
use std::path::{Path, PathBuf};

/// Something in a file that kept tether from modelling it exactly as written.
///
/// Problems are findings about the input, not failures of the tool: the file is still
/// modelled as far as it can be.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// 0-based line the problem starts on.
    pub line: usize,
    /// What is wrong, and what to do.
    pub message: String,
    /// The byte offset it points at, when it points at one spot of its line.
    pub offset: Option<usize>,
}

impl Problem {
    /// A problem on a line.
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        Problem {
            line,
            message: message.into(),
            offset: None,
        }
    }

    /// A problem at one byte of its line.
    pub fn at(line: usize, offset: usize, message: impl Into<String>) -> Self {
        Problem {
            offset: Some(offset),
            ..Problem::new(line, message)
        }
    }
}

/// Files larger than this are reported instead of modelled: the parse tree of a
/// 50 MB file alone would take gigabytes, and no chart file comes near it.
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// One input file: its display path, its text and where its lines start.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The file's text, with invalid UTF-8 and NUL bytes replaced one for one.
    pub text: String,
    /// Byte offset of the start of every line; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
    /// Length of a leading byte-order mark, 0 or 3.
    pub bom_len: usize,
}

impl SourceFile {
    /// Builds a source from raw bytes, returning the problems found in them.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> (SourceFile, Vec<Problem>) {
        let mut problems = Vec::new();
        let text = sanitize(bytes, &mut problems);
        let bom_len = if text.starts_with('\u{feff}') { 3 } else { 0 };
        // Sized once: a vector grown by doubling holds up to twice its lines.
        let mut line_starts =
            Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|offset| offset + 1));
        let source = SourceFile {
            path: path.into(),
            text,
            line_starts,
            bom_len,
        };
        (source, problems)
    }

    /// Builds a source from text that is already valid.
    pub fn from_text(path: impl Into<PathBuf>, text: &str) -> SourceFile {
        SourceFile::from_bytes(path, text.as_bytes().to_vec()).0
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Where each line of the file's documents starts: every line but the empty one
    /// after a final newline, which belongs to no document.
    pub fn document_line_starts(&self) -> &[usize] {
        let count = self.line_count() - usize::from(self.text.ends_with('\n'));
        &self.line_starts[..count]
    }

    /// 0-based line that holds `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// Byte range of `line` without its `\n` (and without a `\r` before it).
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let start = self.line_starts[line];
        let mut end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |next| next - 1);
        if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        start..end
    }

    pub fn line_text(&self, line: usize) -> &str {
        &self.text[self.line_range(line)]
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line]
    }

    /// Where a line's content starts: its start, after the byte-order mark on the
    /// first line (YAML readers drop it; it is no column and no indentation).
    pub fn content_start(&self, line: usize) -> usize {
        self.line_starts[line] + if line == 0 { self.bom_len } else { 0 }
    }

    /// 0-based column of `offset` on its line, in characters, not counting a
    /// byte-order mark.
    pub fn column_of(&self, offset: usize) -> usize {
        let line = self.line_of(offset);
        let mut start = self.line_starts[line];
        if line == 0 {
            start = start.max(self.bom_len.min(offset));
        }
        self.text[start..offset].chars().count()
    }
}

/// Reads a file that may come from a stranger: only a regular file (checked on the
/// open handle, so a file swapped for a FIFO between a check and the open cannot hang
/// the run), and at most `limit` bytes plus one, so `/dev/zero` or a 50 GB file cannot
/// exhaust memory. The result is longer than `limit` when the file is.
pub fn read_regular(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    read_regular_with_metadata(path, limit).map(|(bytes, _)| bytes)
}

/// [`read_regular`], with the metadata of the file read (of its open handle).
pub fn read_regular_with_metadata(
    path: &Path,
    limit: usize,
) -> std::io::Result<(Vec<u8>, std::fs::Metadata)> {
    let (file, metadata) = open_regular(path)?;
    read_open(file, metadata, limit)
}

/// [`read_regular`] of a file that must lie inside the folder `top` (a repository):
/// the path is resolved inside `top` first ([`crate::paths::confine`]), and one
/// that leads out of it, through `..` or a link, is refused before anything
/// outside is looked at, with the same error whether or not its target exists.
pub fn read_inside(path: &Path, top: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    match read_confined(path, top, limit) {
        Ok((bytes, _)) => Ok(bytes),
        Err(Unconfined::Io(error)) => Err(error),
        Err(Unconfined::Outside) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{} leads outside the repository ({}); tether reads only files inside it",
                path.display(),
                top.display()
            ),
        )),
        Err(Unconfined::Loop) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is a loop of symbolic links", path.display()),
        )),
    }
}

/// Why a file confined to a folder was not read.
#[derive(Debug)]
pub enum Unconfined {
    /// It leads out of the folder ([`crate::paths::Confined::Outside`]).
    Outside,
    /// Too many links ([`crate::paths::Confined::Loop`]).
    Loop,
    /// Inside, but not read: absent, not a regular file, refused.
    Io(std::io::Error),
}

/// [`read_regular_with_metadata`] of `path`, resolved inside `top` as
/// [`crate::paths::confine`] resolves it. A path with no link and no `..` in it
/// below `top`, and no link above it either, is opened by the kernel in one step
/// that refuses any link (Linux's `openat2`); every other path, and every kernel
/// without it, takes `confine`'s walk, one look per folder. The answers are the
/// same, messages included.
pub fn read_confined(
    path: &Path,
    top: &Path,
    limit: usize,
) -> Result<(Vec<u8>, std::fs::Metadata), Unconfined> {
    let opened = match beneath::open(path, top) {
        Some(opened) => opened,
        None => match crate::paths::confine(path, top) {
            crate::paths::Confined::Inside(resolved) => open_regular(&resolved),
            crate::paths::Confined::Outside => return Err(Unconfined::Outside),
            crate::paths::Confined::Loop => return Err(Unconfined::Loop),
        },
    };
    let (file, metadata) = opened.map_err(Unconfined::Io)?;
    read_open(file, metadata, limit).map_err(Unconfined::Io)
}

/// Reads at most `limit` bytes plus one of an open regular file.
fn read_open(
    file: std::fs::File,
    metadata: std::fs::Metadata,
    limit: usize,
) -> std::io::Result<(Vec<u8>, std::fs::Metadata)> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity((metadata.len() as usize).min(limit) + 1);
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok((bytes, metadata))
}

/// Opening a file below a folder in one system call, links refused.
mod beneath {
    use std::path::Path;

    /// `path` opened as [`crate::source::open_regular`] opens it, when it lies
    /// below `top` by its text (no `..` there) and the kernel finds it with no link
    /// anywhere on the way; `NotFound` when a component is missing, every one
    /// before it there and no link. `None` when the kernel cannot tell (a link on
    /// the way, `..`, a file taken for a folder, no `openat2`):
    /// [`crate::paths::confine`] decides.
    #[cfg(target_os = "linux")]
    pub(super) fn open(
        path: &Path,
        top: &Path,
    ) -> Option<std::io::Result<(std::fs::File, std::fs::Metadata)>> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use std::path::Component;
        if !path.is_absolute() || !top.is_absolute() {
            return None;
        }
        let rest = path.strip_prefix(top).ok()?;
        let mut parts = rest.components().peekable();
        parts.peek()?;
        if !parts.all(|part| matches!(part, Component::Normal(_))) {
            return None;
        }
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let no_links = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        // With no link anywhere on the whole path, and none of `rest` `..`, the
        // path is where its text says: below `top`. A link anywhere, above `top`
        // too (where `confine` compares with `top`'s canonical name), is the walk's.
        let opened =
            match rustix::fs::openat2(rustix::fs::CWD, path, flags, Mode::empty(), no_links) {
                Ok(fd) => Ok(std::fs::File::from(fd)),
                // Every folder on the way is there and no link: `confine` would find
                // the same path, and no file at its end.
                Err(error @ rustix::io::Errno::NOENT) => Err(std::io::Error::from(error)),
                // A link (ELOOP), a file taken for a folder, an old kernel, a
                // sandbox's refusal: the walk decides.
                Err(_) => return None,
            };
        // No link on the way: the path `confine` would resolve to is the text's,
        // `.` dropped and `..` taken, named as the walk names it.
        let resolved = lexical(path);
        // Counted as `open_regular` counts: each path it answers for, there or not.
        #[cfg(feature = "internals")]
        crate::source::opens::note(&resolved);
        Some(opened.and_then(|file| crate::source::regular(&resolved, file)))
    }

    /// `path` with `.` dropped and `..` taken from the text: where it leads when
    /// no link is on the way.
    #[cfg(target_os = "linux")]
    fn lexical(path: &Path) -> std::path::PathBuf {
        use std::path::Component;
        let mut resolved = std::path::PathBuf::new();
        for component in path.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    resolved.pop();
                }
                other => resolved.push(other),
            }
        }
        resolved
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn open(
        _path: &Path,
        _top: &Path,
    ) -> Option<std::io::Result<(std::fs::File, std::fs::Metadata)>> {
        None
    }
}

/// The size and xxh3 hash of a regular file, read in chunks: memory stays constant
/// whatever the file's size. Anything but a regular file is refused, on the handle.
#[cfg_attr(not(unix), allow(dead_code))] // Only `idem`, which is Unix-only, asks.
pub fn hash_regular(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::io::Read;
    let (mut file, _) = open_regular(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        size += read as u64;
        hasher.update(&buffer[..read]);
    }
    Ok((size, hasher.digest()))
}

/// Opens a file that may come from a stranger for reading: only a regular file,
/// checked on the open handle, so a file swapped for a FIFO or a device between a
/// check and the open is refused without blocking.
pub fn open_regular(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    #[cfg(feature = "internals")]
    opens::note(path);
    let file = open_for_reading(path).map_err(|error| explain_open_error(path, error))?;
    regular(path, file)
}

/// `file`, opened at `path`, with its metadata, when it is a regular file.
fn regular(
    path: &Path,
    file: std::fs::File,
) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, not a regular file",
                path.display(),
                file_kind(&metadata)
            ),
        ));
    }
    Ok((file, metadata))
}

#[cfg(unix)]
fn open_for_reading(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking, so opening a FIFO with no writer returns at once.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_for_reading(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

fn explain_open_error(path: &Path, error: std::io::Error) -> std::io::Error {
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        return std::io::Error::new(
            error.kind(),
            format!("{} is a loop of symbolic links", path.display()),
        );
    }
    let _ = path;
    error
}

/// What a file that is not a regular file is, for messages.
pub fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    if metadata.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Where bytes show they are binary, not text: the offset of a NUL byte in the first
/// 8,000 bytes, as git and ripgrep decide.
pub fn binary_offset(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, &bytes[..bytes.len().min(8000)])
}

/// Replaces every byte that is not valid UTF-8, and every NUL, by a single ASCII byte,
/// so the text keeps its length and every offset stays valid.
fn sanitize(bytes: Vec<u8>, problems: &mut Vec<Problem>) -> String {
    let mut bytes = bytes;
    let mut invalid_reported = false;
    let mut position = 0;
    loop {
        match std::str::from_utf8(&bytes[position..]) {
            Ok(_) => break,
            Err(error) => {
                let bad_start = position + error.valid_up_to();
                let bad_len = error.error_len().unwrap_or(bytes.len() - bad_start);
                if !invalid_reported {
                    let line = bytes[..bad_start].iter().filter(|&&b| b == b'\n').count();
                    problems.push(Problem::new(
                        line,
                        format!(
                            "invalid UTF-8 (byte 0x{:02x}); each invalid byte is read as `?`; save the file as UTF-8",
                            bytes[bad_start]
                        ),
                    ));
                    invalid_reported = true;
                }
                for byte in &mut bytes[bad_start..bad_start + bad_len] {
                    *byte = b'?';
                }
                position = bad_start + bad_len;
            }
        }
    }
    // YAML reads a carriage return alone as a line break, and so does tree-sitter:
    // the line index must too, or a comment after it would sit on two different lines.
    let lone_crs: Vec<usize> = memchr::memchr_iter(b'\r', &bytes)
        .filter(|&position| bytes.get(position + 1) != Some(&b'\n'))
        .collect();
    if let Some(&first) = lone_crs.first() {
        let line = memchr::memchr_iter(b'\n', &bytes[..first]).count();
        problems.push(Problem::at(
            line,
            first,
            "a carriage return without a line feed; it is read as a line break; save the file with LF or CRLF line ends",
        ));
        for position in lone_crs {
            bytes[position] = b'\n';
        }
    }
    if let Some(first_nul) = memchr::memchr(0, &bytes) {
        let line = memchr::memchr_iter(b'\n', &bytes[..first_nul]).count();
        problems.push(Problem::new(
            line,
            "NUL byte in a text file; NUL bytes are read as spaces; is this file binary?",
        ));
        for byte in &mut bytes[first_nul..] {
            if *byte == 0 {
                *byte = b' ';
            }
        }
    }
    // Every byte was checked above, so this cannot fail; fall back to a lossy copy
    // rather than panic if it ever did.
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths below a repository's folder, to read confined to it.
    #[cfg(unix)]
    const CONFINED_PATHS: [&str; 24] = [
        "a/b/x.yaml",
        "a/y.yaml",
        "a/missing.yaml",
        "missing/x.yaml",
        "a/y.yaml/z",
        "a",
        "fifo",
        "to-b/x.yaml",
        "to-y",
        "to-b/../y.yaml",
        "a/b/../y.yaml",
        "a/../../elsewhere/secret.yaml",
        "missing/../a/y.yaml",
        "out/secret.yaml",
        "out-file",
        "out-missing/x",
        "loop/x",
        "absolute-in/y.yaml",
        "through-missing/secret.yaml",
        "../elsewhere/secret.yaml",
        "./a/./y.yaml",
        "a//b/x.yaml",
        "./fifo",
        "itself/a/y.yaml",
    ];

    /// The kernel's one-step open and `confine`'s walk give every path the same
    /// answer, error messages included: files, folders, links inside and out,
    /// absolute links, `..`, `.`, a loop, missing folders, a FIFO, a repository
    /// folder reached through a link or holding a link back to itself. The
    /// one-step open answers alone for the paths with no link anywhere and no
    /// `..` below the repository, which are what a chart's files are.
    #[cfg(unix)]
    #[test]
    fn a_confined_read_answers_as_the_walk_does() {
        let (_dir, [top, linked, itself]) = crate::paths::confinement_fixture();
        let walked = |path: &Path, top: &Path| match crate::paths::confine(path, top) {
            crate::paths::Confined::Inside(resolved) => match read_regular(&resolved, 100) {
                Ok(bytes) => format!("read {:?}", String::from_utf8(bytes).unwrap()),
                Err(error) => format!("io {:?} {error}", error.kind()),
            },
            crate::paths::Confined::Outside => "outside".to_string(),
            crate::paths::Confined::Loop => "loop".to_string(),
        };
        let read = |path: &Path, top: &Path| match read_confined(path, top, 100) {
            Ok((bytes, _)) => format!("read {:?}", String::from_utf8(bytes).unwrap()),
            Err(Unconfined::Io(error)) => format!("io {:?} {error}", error.kind()),
            Err(Unconfined::Outside) => "outside".to_string(),
            Err(Unconfined::Loop) => "loop".to_string(),
        };
        let paths = CONFINED_PATHS;
        let mut answers = Vec::new();
        for top in [&top, &linked, &itself] {
            for path in paths {
                let path = top.join(path);
                assert_eq!(read(&path, top), walked(&path, top), "{}", path.display());
                answers.push(read(&path, top));
            }
        }
        assert_eq!(read(Path::new("/etc/passwd"), &top), "outside");
        assert_eq!(answers[0], "read \"x: 1\\n\"");
        assert!(
            answers[2].starts_with("io NotFound No such file"),
            "{}",
            answers[2]
        );
        assert!(
            answers[6].ends_with("repo/fifo is a FIFO (named pipe), not a regular file"),
            "{}",
            answers[6]
        );
        assert_eq!(answers[13], "outside");
        #[cfg(target_os = "linux")]
        for (path, one_step) in [
            ("a/b/x.yaml", true),
            ("a/missing.yaml", true),
            ("fifo", true),
            ("to-b/x.yaml", false),
            ("a/b/../y.yaml", false),
            ("out-file", false),
        ] {
            assert_eq!(
                beneath::open(&top.join(path), &top).is_some(),
                one_step,
                "{path}"
            );
            for top in [&linked, &itself] {
                assert!(beneath::open(&top.join(path), top).is_none(), "{path}");
            }
        }
    }

    #[test]
    fn invalid_bytes_keep_offsets() {
        let (source, problems) = SourceFile::from_bytes("x", b"a: \xff\xfe\nb: \0c\n".to_vec());
        assert_eq!(source.text, "a: ??\nb:  c\n");
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[1].line, 1);
    }

    #[test]
    fn lines_and_columns() {
        let source = SourceFile::from_text("x", "\u{feff}ab\r\ncd\n");
        assert_eq!(source.line_text(0), "\u{feff}ab");
        assert_eq!(source.column_of(4), 1);
        assert_eq!(source.line_of(7), 1);
        assert_eq!(source.line_text(1), "cd");
        assert_eq!(source.line_count(), 3);
    }
}

/// The files opened under the folders a test watches ([`opens::watch`]): a run
/// reads each file once. Built only for the tests.
#[cfg(feature = "internals")]
pub mod opens {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, PoisonError};

    static WATCHING: AtomicBool = AtomicBool::new(false);
    static WATCHED: Mutex<Vec<(PathBuf, Vec<PathBuf>)>> = Mutex::new(Vec::new());

    /// Notes that `path` was opened, if it is under a watched folder.
    pub(super) fn note(path: &Path) {
        if !WATCHING.load(Ordering::Relaxed) {
            return;
        }
        let mut watched = WATCHED.lock().unwrap_or_else(PoisonError::into_inner);
        for (folder, opened) in watched.iter_mut() {
            if path.starts_with(folder) {
                opened.push(path.to_path_buf());
            }
        }
    }

    /// Watches the files opened under `folder` until the guard is dropped.
    pub fn watch(folder: &Path) -> Watch {
        WATCHED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((folder.to_path_buf(), Vec::new()));
        WATCHING.store(true, Ordering::Relaxed);
        Watch(folder.to_path_buf())
    }

    /// The watch of one folder.
    pub struct Watch(PathBuf);

    impl Watch {
        /// The files opened under the folder so far, in order.
        pub fn opened(&self) -> Vec<PathBuf> {
            let watched = WATCHED.lock().unwrap_or_else(PoisonError::into_inner);
            let found = watched.iter().find(|(folder, _)| *folder == self.0);
            found.map(|(_, opened)| opened.clone()).unwrap_or_default()
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            let mut watched = WATCHED.lock().unwrap_or_else(PoisonError::into_inner);
            watched.retain(|(folder, _)| *folder != self.0);
        }
    }
}
