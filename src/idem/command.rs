//! Runs the regeneration command in a sandbox: `sh -c`, its own process group, a
//! timeout that kills the whole group, output kept for the report.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// The exit code; `None` when it was killed (by the timeout or a signal).
    pub status: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
}

impl RunOutcome {
    pub fn succeeded(&self) -> bool {
        self.status == Some(0) && !self.timed_out
    }
}

/// Process groups of commands still running, for [`kill_all`].
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// At most this much of each stream is kept (its end).
const KEEP: usize = 64 * 1024;

/// Runs `run` with `sh -c` in `dir`.
pub fn run(
    run: &str,
    dir: &Path,
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> std::io::Result<RunOutcome> {
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(run)
        .current_dir(dir)
        .env("PWD", dir)
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let group = child.id() as i32;
    if let Ok(mut running) = RUNNING.lock() {
        running.push(group);
    }
    let stdout = child.stdout.take().map(read_in_background);
    let stderr = child.stderr.take().map(read_in_background);
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() >= timeout {
            timed_out = true;
            kill_group(group);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Whatever the command left running in its group goes too.
    kill_group(group);
    if let Ok(mut running) = RUNNING.lock() {
        running.retain(|&g| g != group);
    }
    let collect = |handle: Option<std::thread::JoinHandle<Vec<u8>>>| {
        handle
            .and_then(|handle| handle.join().ok())
            .map(|bytes| String::from_utf8_lossy(tail(&bytes)).into_owned())
            .unwrap_or_default()
    };
    Ok(RunOutcome {
        status: status.code(),
        timed_out,
        stdout: collect(stdout),
        stderr: collect(stderr),
        duration: start.elapsed(),
    })
}

fn read_in_background(mut stream: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 8192];
        while let Ok(read) = stream.read(&mut buffer) {
            if read == 0 {
                break;
            }
            bytes.extend_from_slice(&buffer[..read]);
            if bytes.len() > 4 * KEEP {
                bytes.drain(..bytes.len() - KEEP);
            }
        }
        bytes
    })
}

fn tail(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.len().saturating_sub(KEEP)..]
}

fn kill_group(group: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; it has no memory
    // effects on this process.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Kills every command still running (for Ctrl-C).
pub fn kill_all() {
    let groups: Vec<i32> = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    for group in groups {
        kill_group(group);
    }
}

/// A tool the command needs that is missing or the wrong kind, said plainly.
pub fn missing_tool(run: &str, dir: &Path) -> Option<String> {
    let program = run.split_whitespace().next()?;
    if !program.contains('/') && !is_shell_word(program) && find_on_path(program).is_none() {
        return Some(format!(
            "`{program}` is not installed (not found on PATH); `{run}` needs it: install it and run tether idem again"
        ));
    }
    let makefile = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_default();
    let uses_sed_in_place =
        run.contains("sed -i") || (program == "make" && makefile.contains("sed -i"));
    if uses_sed_in_place && !is_gnu_sed() {
        return Some(
            "the command edits files with `sed -i '…'`, which needs GNU sed, and `sed` on PATH is not GNU sed (BSD sed reads the script as a backup suffix): install GNU sed (e.g. `gsed`) and put it first on PATH as `sed`".into(),
        );
    }
    None
}

fn is_shell_word(word: &str) -> bool {
    matches!(
        word,
        "cd" | "set"
            | "export"
            | "exec"
            | "true"
            | "false"
            | "test"
            | "["
            | "echo"
            | "exit"
            | "if"
            | "for"
            | "while"
            | "{"
            | "("
            | "!"
    ) || word.contains('=')
}

fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|folder| folder.join(program))
            .find(|candidate| candidate.is_file())
    })
}

fn is_gnu_sed() -> bool {
    Command::new("sed")
        .arg("--version")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).contains("GNU sed"))
        .unwrap_or(false)
}
