//! The system calls of `tether idem` that need `unsafe`, each behind a safe
//! function: the one module of the crate where `unsafe` is allowed (`lib.rs` denies
//! it everywhere else). What rustix wraps safely (files by
//! descriptor, extended attributes, locks, signals to other processes, waits, the
//! overlay mount) is called where it is used, not here.
//!
//! Most of this runs in a command's child between fork and exec ([`before_exec`]),
//! where only async-signal-safe functions may be called: nothing that allocates or
//! takes a lock, since another thread of tether may have held the lock at the fork.
//! Each step says what it calls. rustix's functions are system calls that allocate
//! nothing when their paths are `&CStr` (which are passed as they are), and libc's
//! `fork`, `signal`, `kill`, `getpid`, `close` and `_exit` are async-signal-safe
//! (POSIX); `io::Error`s made from an errno hold a number, not a box.
#![allow(unsafe_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

/// What a command's child does between fork and exec; steps run in the order they
/// are added to the command. Everything a step needs is prepared in the parent.
pub enum InChild {
    /// Starts a session of its own (`setsid`), so the command and everything it
    /// starts are in another session than tether: none of them can join tether's
    /// process group (`setpgid` stays within a session), and the orphan sweep tells
    /// them from tether's own helpers by their session. First, before anything else.
    NewSession,
    /// Enters an overlay: new user and mount namespaces, the mount, the command's
    /// folder in it. Before Landlock, which forbids mounting.
    Overlay(Mount),
    /// Makes the command the first process of a PID namespace of its own, where
    /// the kernel allows one (see [`own_pid_namespace`]). After entering an overlay,
    /// whose user namespace grants it, and before Landlock.
    OwnPidNamespace,
    /// Applies Landlock rules made in the parent (two system calls, `prctl` and
    /// `landlock_restrict_self`; nothing allocated on success).
    #[cfg(target_os = "linux")]
    Confine(Option<landlock::RulesetCreated>),
}

/// Has the child of `command` take `step` between fork and exec.
pub fn before_exec(command: &mut Command, mut step: InChild) {
    // SAFETY: the closure runs in the forked child, where only async-signal-safe
    // functions may be called; every step calls only those, allocates nothing and
    // takes no lock (see `InChild` and the functions below), and owns what it reads.
    unsafe {
        command.pre_exec(move || step.take());
    }
}

impl InChild {
    fn take(&mut self) -> std::io::Result<()> {
        match self {
            InChild::NewSession => rustix::process::setsid().map(|_| ()).map_err(Into::into),
            InChild::Overlay(mount) => mount.enter(),
            InChild::OwnPidNamespace => own_pid_namespace(),
            #[cfg(target_os = "linux")]
            InChild::Confine(ruleset) => confine(ruleset.take()),
        }
    }
}

/// What the child needs to enter an overlay, prepared in the parent: the mount
/// point, the mount options, the user and group maps of the new user namespace, and
/// the command's folder in the overlay.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone)]
pub struct Mount {
    /// Where the overlay is mounted.
    pub merged: std::ffi::CString,
    /// `lowerdir=…,upperdir=…,workdir=…,userxattr`.
    pub options: std::ffi::CString,
    /// `/proc/self/uid_map`'s line: tether's user, mapped to itself.
    pub uid_map: Vec<u8>,
    /// `/proc/self/gid_map`'s line: tether's group, mapped to itself.
    pub gid_map: Vec<u8>,
    /// The command's folder, inside `merged`.
    pub dir: std::ffi::CString,
}

#[cfg(target_os = "linux")]
impl Mount {
    /// Enters new user and mount namespaces, mounts the overlay and changes to the
    /// command's folder in it: `unshare`, `open`/`write`/`close` of three files of
    /// `/proc/self`, `mount`, `chdir`.
    fn enter(&self) -> std::io::Result<()> {
        use rustix::thread::UnshareFlags;
        // SAFETY: without CLONE_FILES (what makes `unshare` unsafe: a descriptor
        // table other threads no longer share), and the forked child has one thread.
        unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWUSER | UnshareFlags::NEWNS) }?;
        write_all(c"/proc/self/setgroups", b"deny")?;
        write_all(c"/proc/self/uid_map", &self.uid_map)?;
        write_all(c"/proc/self/gid_map", &self.gid_map)?;
        rustix::mount::mount(
            c"overlay",
            self.merged.as_c_str(),
            c"overlay",
            rustix::mount::MountFlags::empty(),
            self.options.as_c_str(),
        )?;
        rustix::process::chdir(self.dir.as_c_str())?;
        Ok(())
    }
}

/// Writes `bytes` to a file that exists, with system calls only.
#[cfg(target_os = "linux")]
fn write_all(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let file = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    match rustix::io::write(&file, bytes) {
        Ok(written) if written == bytes.len() => Ok(()),
        // The kernel takes these files whole or refuses them; a short write is an
        // error of its own (rustix leaves no errno to report).
        Ok(_) => Err(std::io::ErrorKind::WriteZero.into()),
        Err(error) => Err(error.into()),
    }
}

/// No overlay outside Linux: nothing to enter.
#[cfg(not(target_os = "linux"))]
pub enum Mount {}

#[cfg(not(target_os = "linux"))]
impl Mount {
    fn enter(&self) -> std::io::Result<()> {
        match *self {}
    }
}

/// Applies Landlock rules to the calling process: `prctl(PR_SET_NO_NEW_PRIVS)`
/// and `landlock_restrict_self`, nothing allocated when they succeed.
#[cfg(target_os = "linux")]
fn confine(ruleset: Option<landlock::RulesetCreated>) -> std::io::Result<()> {
    if let Some(ruleset) = ruleset {
        match ruleset.restrict_self() {
            Ok(status) if status.ruleset != landlock::RulesetStatus::NotEnforced => {}
            _ => return Err(rustix::io::Errno::PERM.into()),
        }
    }
    Ok(())
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
///
/// Calls `unshare`, `fork`, `prctl`, `setsid`, `close_range` (or `close`), `wait4`,
/// and in the shim `signal`, `kill`, `getpid`, `_exit`.
#[cfg(target_os = "linux")]
fn own_pid_namespace() -> std::io::Result<()> {
    use rustix::process::{Signal, WaitOptions, set_parent_process_death_signal};
    // SAFETY: without CLONE_FILES (see `Mount::enter`); the child has one thread.
    if unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWPID) }.is_err() {
        return Ok(());
    }
    // SAFETY: `fork` is async-signal-safe. The child returns to std's pre-exec path
    // and execs the command; the shim below never returns to Rust code that could
    // touch state the fork copied mid-change: it waits and exits.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // The command: dies with the shim, which dies with tether. (From inside
        // its namespace it cannot see the shim, so a shim that died before this
        // call is not noticed here; the shim's own death signal and tether's
        // process-group kill still end both.) In a session of its own, so the
        // shim shares no process group with it: `kill -STOP 0` stops the command,
        // never the shim that tether waits for.
        let _ = set_parent_process_death_signal(Some(Signal::KILL));
        let _ = rustix::process::setsid();
        return Ok(());
    }
    // The shim. Its descriptors above 2 (std's pipe that reports a failed exec
    // among them) are closed, so the spawn returns as if it had exec'd.
    let _ = set_parent_process_death_signal(Some(Signal::KILL));
    close_from_3();
    let command = rustix::process::Pid::from_raw(pid);
    let status = loop {
        match rustix::process::waitpid(command, WaitOptions::empty()) {
            Ok(Some((_, status))) => break status,
            Ok(None) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => exit_now(127),
        }
    };
    if let Some(signal) = status.terminating_signal() {
        // Ends as the command did: killed by the same signal.
        // SAFETY: `signal`, `getpid` and `kill` are async-signal-safe; the default
        // action of a signal that killed the command ends the shim too.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        exit_now(128 + signal);
    }
    exit_now(libc::WEXITSTATUS(status.as_raw()));
}

/// No PID namespaces outside Linux: the process group and the end of the run's
/// sweep are what end a command's processes.
#[cfg(not(target_os = "linux"))]
fn own_pid_namespace() -> std::io::Result<()> {
    Ok(())
}

/// Closes every descriptor above 2 of the shim (`close_range`, or one by one below
/// 4096 where the kernel has no `close_range`).
#[cfg(target_os = "linux")]
fn close_from_3() {
    // SAFETY: the shim only waits and exits; no object of its copy of tether's
    // memory uses a descriptor again, so closing them all invalidates nothing.
    // `close_range` and `close` are system calls on integers.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            for fd in 3..4096 {
                libc::close(fd);
            }
        }
    }
}

/// Ends the process at once with `code`, running nothing of the parent's (no
/// `atexit` handlers, no flushing): `_exit`.
#[cfg(target_os = "linux")]
fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` is async-signal-safe and takes an integer.
    unsafe { libc::_exit(code) }
}

/// Marks the descriptor numbered `fd` close-on-exec, whatever it is: a number this
/// process inherited, or one no descriptor has (then nothing happens). rustix takes
/// only descriptors the caller owns or borrows, which a bare number from
/// `/proc/self/fd` is not.
pub fn mark_close_on_exec(fd: std::os::fd::RawFd) {
    // SAFETY: `fcntl` on any number is harmless: a closed one fails with EBADF, and
    // F_SETFD only adds FD_CLOEXEC to the flags it read.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
        }
    }
}
