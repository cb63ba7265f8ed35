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
    /// What the child does first between fork and exec, before Landlock applies
    /// (entering an overlay: `dir` is then inside it, and exists only in the child's
    /// own mount namespace, so the child changes to it itself). It must make system
    /// calls only, nothing that allocates or locks.
    pub enter: Option<Enter>,
}

/// See [`Spec::enter`].
pub type Enter = Box<dyn FnMut() -> std::io::Result<()> + Send + Sync>;

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
    let home = spec.sandbox.join("home");
    let tmp = spec.sandbox.join("tmp");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&tmp)?;
    let mut command = Command::new("sh");
    command.arg("-c").arg(spec.run).current_dir(spec.dir);
    if let Some(enter) = spec.enter.take() {
        command.current_dir(spec.sandbox);
        // SAFETY: `enter` makes system calls only (the contract of `Spec::enter`),
        // so it is safe between fork and exec. It runs before Landlock's rules apply,
        // which forbid mounting.
        unsafe {
            command.pre_exec(enter);
        }
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
        .stderr(Stdio::piped())
        .process_group(0);
    // SAFETY: `own_pid_namespace` makes system calls only (unshare, fork, prctl,
    // close_range, waitpid, signal, kill, _exit), allocating nothing, so it is safe
    // between fork and exec. It runs after entering an overlay (whose user namespace
    // grants it) and before Landlock.
    unsafe {
        command.pre_exec(own_pid_namespace);
    }
    if spec.confine {
        let mut confinement =
            super::contain::Confinement::new(spec.sandbox).map_err(std::io::Error::other)?;
        // SAFETY: `apply` makes two system calls (prctl, landlock_restrict_self) and
        // allocates nothing when it succeeds, so it is safe between fork and exec.
        unsafe {
            command.pre_exec(move || confinement.apply());
        }
    }
    // Spawned and registered under the lock that orphan sweeps hold, so a sweep never
    // takes another worker's command, just started, for an orphan.
    let mut child = {
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
        child
    };
    let group = child.id() as i32;
    let stdout = child.stdout.take().map(read_in_background);
    let stderr = child.stderr.take().map(read_in_background);
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            kill_group(group);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Whatever the command left running goes too: its group, and what it detached.
    kill_group(group);
    if let Ok(mut running) = RUNNING.lock() {
        running.retain(|&g| g != group);
        super::contain::kill_orphans(&running);
    }
    // Once the command has ended, its output gets a short grace to close: a run never
    // takes more than its timeout plus that grace.
    let until = Instant::now() + OUTPUT_GRACE;
    let collect = |receiver: Option<std::sync::mpsc::Receiver<Vec<u8>>>| {
        let wait = until.saturating_duration_since(Instant::now());
        match receiver.map(|receiver| receiver.recv_timeout(wait)) {
            Some(Ok(bytes)) => String::from_utf8_lossy(tail(&bytes)).into_owned(),
            Some(Err(_)) => {
                "(tether stopped reading: a process the command left behind kept its output open)"
                    .into()
            }
            None => String::new(),
        }
    };
    Ok(RunOutcome {
        status: status.code(),
        timed_out,
        stdout: collect(stdout),
        stderr: collect(stderr),
        duration: start.elapsed(),
    })
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

/// Between fork and exec: makes the command the first process of a PID namespace of
/// its own, where the kernel allows one (root, or inside an overlay's user
/// namespace). When that first process ends, the kernel kills every process left in
/// the namespace, however it detached (`setsid` chains, another process group); the
/// command cannot see or signal any process outside it, tether included; and with
/// `PR_SET_PDEATHSIG` the namespace ends when tether dies, even by SIGKILL. The
/// process std spawned stays outside as a shim: it waits for the command and exits as
/// it did. Where no namespace can be made, the command runs as before (its process
/// group and the orphan sweep end what it leaves).
fn own_pid_namespace() -> std::io::Result<()> {
    // SAFETY: system calls on integers and a local status word; no memory is shared
    // or allocated.
    unsafe {
        if libc::unshare(libc::CLONE_NEWPID) != 0 {
            return Ok(());
        }
        let pid = libc::fork();
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            // The command: dies with the shim, which dies with tether. (From inside
            // its namespace it cannot see the shim, so a shim that died before this
            // call is not noticed here; the shim's own death signal and tether's
            // process-group kill still end both.)
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            );
            return Ok(());
        }
        // The shim. Its descriptors above 2 (std's pipe that reports a failed exec
        // among them) are closed, so the spawn returns as if it had exec'd.
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            for fd in 3..4096 {
                libc::close(fd);
            }
        }
        let mut status = 0;
        loop {
            let waited = libc::waitpid(pid, &mut status, 0);
            if waited == pid {
                break;
            }
            if waited < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(127);
            }
        }
        if libc::WIFSIGNALED(status) {
            // Ends as the command did: killed by the same signal.
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(libc::WEXITSTATUS(status));
    }
}

fn kill_group(group: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; it has no memory
    // effects on this process.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Kills every command still running (for Ctrl-C).
/// Marks every descriptor above 2 that this process holds close-on-exec, so the
/// commands start with stdin, stdout and stderr only: a descriptor tether inherited
/// (`exec 7>>/outside.log; tether idem …`) would let a command write outside every
/// sandbox. Descriptors Rust opens are close-on-exec already.
pub fn keep_inherited_descriptors_from_commands() {
    let mark = |fd: libc::c_int| {
        // SAFETY: fcntl on any number is harmless: a closed one fails with EBADF.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    };
    match std::fs::read_dir("/proc/self/fd") {
        Ok(entries) => {
            let open: Vec<libc::c_int> = entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
                .filter(|&fd| fd > 2)
                .collect();
            open.into_iter().for_each(mark);
        }
        Err(_) => {
            // No /proc: every number up to the limit of open files (bounded).
            // SAFETY: getrlimit writes into the struct it is given.
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            let highest = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
                limit.rlim_cur.min(65_536) as libc::c_int
            } else {
                1024
            };
            (3..highest).for_each(mark);
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
