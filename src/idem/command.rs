//! Runs the regeneration command in a sandbox: `sh -c`, its own session and process
//! group, a timeout that kills the whole group, output kept for the report.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::sys::{self, InChild};

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

/// Process groups of commands still running, for [`kill_all`]: each command's `sh`
/// leads its own group, so its pid is the group's id.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// At most this much of each stream is kept (its end).
const KEEP: usize = 64 * 1024;

/// After the command exits, how long its output may take to close before tether
/// stops waiting (a process it left behind may hold it open).
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// Set by an interrupt: copies in flight stop, and no command starts.
pub static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether an interrupt (`idem::interrupt`) has stopped the run: its commands were
/// killed, so what they did is not a verdict.
pub fn stopping() -> bool {
    STOPPING.load(std::sync::atomic::Ordering::SeqCst)
}

/// How an error starting the shell begins.
pub const SPAWN: &str = "cannot start sh";

/// What to run and how.
pub struct Spec<'a> {
    /// The command, for `sh -c`.
    pub run: &'a str,
    /// The folder it runs in, inside the sandbox.
    pub dir: &'a Path,
    /// `[[idem]] env`.
    pub env: &'a BTreeMap<String, String>,
    pub timeout: Duration,
    /// The sandbox's temporary folder: `HOME` and `TMPDIR` are made in it, and with
    /// `confine` it is the only place the command may write.
    pub sandbox: &'a Path,
    /// Confine the command with Landlock (checked to be available by the caller).
    pub confine: bool,
    /// The overlay the child enters first between fork and exec, before Landlock
    /// applies: `dir` is then inside it, and exists only in the child's own mount
    /// namespace, so the child changes to it itself.
    pub enter: Option<sys::Mount>,
}

/// Environment variables that point git at another repository or index: a command
/// inherits them from a hook (`GIT_DIR` in a linked worktree) and would commit to the
/// user's repository from inside the sandbox.
fn is_redirecting(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with("GIT_")
}

/// Runs `spec.run` with `sh -c` in `spec.dir`.
pub fn run(mut spec: Spec) -> std::io::Result<RunOutcome> {
    let start = Instant::now();
    let deadline = start + spec.timeout;
    let mut command = prepare(&mut spec)?;
    let mut child = spawn(&mut command)?;
    let group = child.id() as i32;
    let stdout = child.stdout.take().map(read_in_background);
    let stderr = child.stderr.take().map(read_in_background);
    let (status, timed_out) = wait(&mut child, group, deadline)?;
    // Whatever the command left running goes too: its group, and what it detached.
    kill_group(group);
    let mut left_running = None;
    if let Ok(mut running) = RUNNING.lock() {
        running.retain(|&g| g != group);
        left_running = super::contain::kill_orphans(&running).err();
    }
    // Once the command has ended, its output gets a short grace to close: a run never
    // takes more than its timeout plus that grace.
    let until = Instant::now() + OUTPUT_GRACE;
    let mut stderr = collect(stderr, until);
    // Processes tether could not end make the run a failure, never a pass.
    let status = match left_running {
        Some(message) => {
            stderr.push_str(&format!("\ntether: {message}\n"));
            None
        }
        None => status.code(),
    };
    Ok(RunOutcome {
        status,
        timed_out,
        stdout: collect(stdout, until),
        stderr,
        duration: start.elapsed(),
    })
}

/// The command of `spec`: `sh -c` in its folder, in a session of its own,
/// with `GIT_*` removed, `HOME` and `TMPDIR` made in the sandbox, and what the child
/// does before exec (enter the overlay, its own PID namespace, Landlock), in order.
fn prepare(spec: &mut Spec) -> std::io::Result<Command> {
    let home = spec.sandbox.join("home");
    let tmp = spec.sandbox.join("tmp");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&tmp)?;
    let mut command = Command::new("sh");
    command.arg("-c").arg(spec.run).current_dir(spec.dir);
    // A session of its own, which also makes it the leader of its process group.
    sys::before_exec(&mut command, InChild::NewSession);
    if let Some(mount) = spec.enter.take() {
        command.current_dir(spec.sandbox);
        sys::before_exec(&mut command, InChild::Overlay(mount));
    }
    for (name, _) in std::env::vars_os() {
        if is_redirecting(&name) {
            command.env_remove(&name);
        }
    }
    command
        .env("PWD", spec.dir)
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .envs(spec.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    sys::before_exec(&mut command, InChild::OwnPidNamespace);
    if spec.confine {
        let confinement =
            super::contain::confinement(spec.sandbox).map_err(std::io::Error::other)?;
        sys::before_exec(&mut command, confinement);
    }
    Ok(command)
}

/// Spawns the command, registered under the lock that orphan sweeps hold, so a
/// sweep never takes another worker's command, just started, for an orphan.
fn spawn(command: &mut Command) -> std::io::Result<Child> {
    let mut running = RUNNING
        .lock()
        .map_err(|_| std::io::Error::other("a worker panicked"))?;
    if STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "interrupted",
        ));
    }
    let child = command
        .spawn()
        .map_err(|error| std::io::Error::new(error.kind(), format!("{SPAWN}: {error}")))?;
    running.push(child.id() as i32);
    Ok(child)
}

/// Waits for the command until `deadline`, then kills its group; whether it timed
/// out.
fn wait(child: &mut Child, group: i32, deadline: Instant) -> std::io::Result<(ExitStatus, bool)> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, false));
        }
        if Instant::now() >= deadline {
            kill_group(group);
            return Ok((child.wait()?, true));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What a stream's reader got by `until`, its end kept; a note when the stream is
/// still open then.
fn collect(receiver: Option<std::sync::mpsc::Receiver<Vec<u8>>>, until: Instant) -> String {
    let wait = until.saturating_duration_since(Instant::now());
    match receiver.map(|receiver| receiver.recv_timeout(wait)) {
        Some(Ok(bytes)) => String::from_utf8_lossy(tail(&bytes)).into_owned(),
        Some(Err(_)) => {
            "(tether stopped reading: a process the command left behind kept its output open)"
                .into()
        }
        None => String::new(),
    }
}

/// Reads a stream to its end on a thread of its own; the bytes arrive on the channel.
fn read_in_background(
    mut stream: impl Read + Send + 'static,
) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = std::sync::mpsc::channel();
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
        let _ = sender.send(bytes);
    });
    receiver
}

fn tail(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.len().saturating_sub(KEEP)..]
}

/// Kills every process of the process group `group`.
fn kill_group(group: i32) {
    if let Some(group) = rustix::process::Pid::from_raw(group) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// Kills every command still running (for Ctrl-C).
/// Marks every descriptor above 2 that this process holds close-on-exec, so the
/// commands start with stdin, stdout and stderr only: a descriptor tether inherited
/// (`exec 7>>/outside.log; tether idem …`) would let a command write outside every
/// sandbox. Descriptors Rust opens are close-on-exec already.
pub fn keep_inherited_descriptors_from_commands() {
    match std::fs::read_dir("/proc/self/fd") {
        Ok(entries) => {
            let open: Vec<std::os::fd::RawFd> = entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
                .filter(|&fd| fd > 2)
                .collect();
            open.into_iter().for_each(sys::mark_close_on_exec);
        }
        Err(_) => {
            // No /proc: every number up to the limit of open files (bounded; no
            // limit is 65,536).
            let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
            let highest = limit.current.unwrap_or(u64::MAX).min(65_536) as std::os::fd::RawFd;
            (3..highest).for_each(sys::mark_close_on_exec);
        }
    }
}

pub fn kill_all() {
    let groups: Vec<i32> = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    for group in groups {
        kill_group(group);
    }
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

/// A tool the command needs that is missing or the wrong kind, said plainly. Only a
/// command that starts with a plain program name is looked up on PATH: anything else
/// (`. ./env.sh && …`, `(…)`, `umask 022; …`, a `# comment` line) is shell, and the
/// shell says what it cannot find (see [`not_found`]).
pub fn missing_tool(run: &str, dir: &Path) -> Option<String> {
    let program = plain_program(run);
    if let Some(program) = program {
        if find_on_path(program).is_none() {
            return Some(format!(
                "`{program}` is not installed (not found on PATH); `{run}` needs it: install it and run tether idem again"
            ));
        }
    }
    let makefile = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_default();
    let uses_sed_in_place =
        run.contains("sed -i") || (program == Some("make") && makefile.contains("sed -i"));
    if uses_sed_in_place && !is_gnu_sed() {
        return Some(
            "the command edits files with `sed -i '…'`, which needs GNU sed, and `sed` on PATH is not GNU sed (BSD sed reads the script as a backup suffix): install GNU sed (e.g. `gsed`) and put it first on PATH as `sed`".into(),
        );
    }
    None
}

/// The program a command starts with, when it is a plain name that is not a shell
/// builtin or keyword: `make` in `make update`, nothing in `. ./env && make`.
fn plain_program(run: &str) -> Option<&str> {
    let first = run.split_whitespace().next()?;
    let plain = first
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+'));
    (plain && !SHELL_WORDS.contains(&first)).then_some(first)
}

/// POSIX shell builtins and reserved words, and the common ones of dash and bash.
const SHELL_WORDS: &[&str] = &[
    "alias", "bg", "break", "case", "cd", "command", "continue", "do", "done", "echo", "elif",
    "else", "esac", "eval", "exec", "exit", "export", "false", "fc", "fg", "fi", "for", "function",
    "getopts", "hash", "if", "in", "jobs", "kill", "local", "printf", "pwd", "read", "readonly",
    "return", "select", "set", "shift", "source", "test", "then", "time", "times", "trap", "true",
    "type", "ulimit", "umask", "unalias", "unset", "until", "wait", "while",
];

/// The word the shell could not find, from the standard error of a command that
/// exited with 127: dash's `sh: 1: helm: not found`, bash's `helm: command not found`.
pub fn not_found(stderr: &str) -> Option<String> {
    stderr.lines().rev().find_map(|line| {
        let before = line
            .strip_suffix(": command not found")
            .or_else(|| line.strip_suffix(": not found"))?;
        let word = before.rsplit(": ").next()?.trim();
        (!word.is_empty()).then(|| word.to_string())
    })
}
