//! What keeps a regeneration command inside its sandbox, on top of detection.
//!
//! On Linux, the command runs under Landlock: every file is readable, and only its
//! sandbox folder (the copy, its `HOME` and `TMPDIR`) and a few harmless devices are
//! writable, for it and every process it starts. tether is also a child subreaper, so
//! a process the command detaches (`setsid … &`) is re-parented to tether, which kills
//! it, with everything it started, when the command ends and again before the user's
//! tree is compared for the last time. Elsewhere, or on a kernel without Landlock, the command runs
//! unconfined and the fingerprint of the user's tree before and after is the only
//! guard; the report says which.

use std::path::Path;

use super::sys::InChild;

/// Whether Landlock can confine commands here, with its scopes or without (`Ok`
/// of whether they are there), and why not.
pub fn available() -> Result<bool, String> {
    #[cfg(target_os = "linux")]
    {
        linux::ruleset(Path::new("/")).map(|(_, scoped)| scoped)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err("Landlock is a Linux feature".into())
    }
}

/// What the child does to confine the command, between fork and exec: only
/// `writable` (and harmless devices) may be written. The rules are made here, in the
/// parent (they open files and allocate), so the child only applies them.
pub fn confinement(writable: &Path) -> Result<InChild, String> {
    #[cfg(target_os = "linux")]
    {
        Ok(InChild::Confine(Some(linux::ruleset(writable)?.0)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = writable;
        Err("Landlock is a Linux feature".into())
    }
}

/// Makes this process the reaper of its orphaned descendants, so a command's
/// detached processes come back to it to be killed. Linux only; elsewhere a no-op.
pub fn become_subreaper() {
    // The kernel reads the argument as a flag (set when not zero): rustix passes the
    // pid it is given, and 1 was passed before.
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
}

/// How long the sweep of what commands left running may take before tether gives
/// up and says so.
const SWEEP_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Kills what commands left running when they ended (`setsid … &` chains, double
/// forks, a process that joined another group): every process re-parented to this
/// one from another session than tether's (tether's own helpers, such as git, share
/// its session; every command starts a session of its own) that is not one of the
/// commands still running (`keep`), with all of its descendants, at once, again
/// until none is left. An error says how many were still running after
/// [`SWEEP_LIMIT`]. Linux only (elsewhere nothing is re-parented to tether).
pub fn kill_orphans(keep: &[i32]) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        let until = std::time::Instant::now() + SWEEP_LIMIT;
        loop {
            let strays = linux::strays(keep)?;
            if strays.is_empty() {
                return Ok(());
            }
            if std::time::Instant::now() >= until {
                return Err(format!(
                    "{} processes the command started were still running after {}; they were not ended",
                    strays.len(),
                    humantime::format_duration(SWEEP_LIMIT)
                ));
            }
            linux::kill_and_reap(&strays);
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = keep;
        Ok(())
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::path::Path;

    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreated,
        RulesetCreatedAttr, Scope, path_beneath_rules,
    };

    /// Devices a command may write to.
    const DEVICES: [&str; 5] = [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
    ];

    /// Read everywhere, write only under `writable` and to harmless devices, and
    /// (ABI 6) signal and connect to abstract unix sockets only within the command's
    /// own processes; whether those scopes are set. The newest rights this crate knows
    /// are required where the kernel has them: the ABI levels are tried from V6
    /// (scopes) and V5 (truncate, ioctl on devices) down to V1.
    pub fn ruleset(writable: &Path) -> Result<(RulesetCreated, bool), String> {
        let mut last = String::new();
        for abi in [ABI::V6, ABI::V5, ABI::V3, ABI::V2, ABI::V1] {
            let scoped = abi == ABI::V6;
            let attempt = || -> Result<RulesetCreated, landlock::RulesetError> {
                let mut ruleset = Ruleset::default()
                    .set_compatibility(CompatLevel::HardRequirement)
                    .handle_access(AccessFs::from_all(abi))?;
                if scoped {
                    ruleset = ruleset.scope(Scope::from_all(abi))?;
                }
                ruleset
                    .create()?
                    .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
                    .add_rules(path_beneath_rules([writable], AccessFs::from_all(abi)))?
                    .add_rules(path_beneath_rules(DEVICES, AccessFs::from_all(abi)))
            };
            match attempt() {
                Ok(ruleset) => return Ok((ruleset, scoped)),
                Err(error) => last = error.to_string(),
            }
        }
        Err(format!("Landlock is not available on this kernel: {last}"))
    }

    /// A process as `/proc/PID/stat` gives it.
    struct Process {
        pid: i32,
        parent: i32,
        session: i32,
        zombie: bool,
    }

    /// One process as its `/proc/<name>/stat` gives it, `name` being a pid or `self`.
    fn process(name: &str) -> Option<Process> {
        let stat = std::fs::read_to_string(format!("/proc/{name}/stat")).ok()?;
        // `pid (comm) state ppid pgrp session …`; comm may hold spaces. A session
        // (or group) whose leader lies outside this PID namespace reads as 0.
        let pid = stat.split_whitespace().next()?.parse().ok()?;
        let after = &stat[stat.rfind(')')? + 1..];
        let fields: Vec<&str> = after.split_whitespace().collect();
        Some(Process {
            pid,
            zombie: fields.first() == Some(&"Z"),
            parent: fields.get(1)?.parse().ok()?,
            session: fields.get(3)?.parse().ok()?,
        })
    }

    /// Every process `/proc` lists now.
    fn processes() -> Vec<Process> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name();
                let name = name.to_str()?;
                name.parse::<i32>().ok()?;
                process(name)
            })
            .collect()
    }

    /// The processes to end, with whether each is a child of this process: its
    /// children from another session than its own, except `keep`, and all their
    /// descendants.
    ///
    /// This process's own entry gives its session, as every other entry gives
    /// theirs (`getsid` has no answer for a session led from outside this PID
    /// namespace, as in many containers). An error says why `/proc` cannot be read
    /// for it: not mounted, or mounted for another PID namespace, where its pids are
    /// not the ones `kill` takes.
    pub fn strays(keep: &[i32]) -> Result<Vec<(i32, bool)>, String> {
        let me = std::process::id() as i32;
        let Some(own) = process("self") else {
            return Err("/proc cannot be read, so what the command left running cannot be found; mount /proc".into());
        };
        if own.pid != me {
            return Err(format!(
                "/proc is mounted for another PID namespace (it names this process {}, not {me}), so what the command left running cannot be found; mount /proc for this namespace",
                own.pid
            ));
        }
        let session = own.session;
        let table = processes();
        let mut children: std::collections::HashMap<i32, Vec<&Process>> = Default::default();
        for process in &table {
            children.entry(process.parent).or_default().push(process);
        }
        let mut found: Vec<(i32, bool)> = Vec::new();
        let mut stack: Vec<&Process> = children
            .get(&me)
            .into_iter()
            .flatten()
            .filter(|child| child.session != session && !keep.contains(&child.pid))
            .copied()
            .collect();
        while let Some(process) = stack.pop() {
            found.push((process.pid, process.parent == me));
            if !process.zombie {
                stack.extend(children.get(&process.pid).into_iter().flatten().copied());
            }
        }
        Ok(found)
    }

    /// Kills every process of `strays` and reaps those that are this process's
    /// children (the others come back to it as they die, for the next round).
    pub fn kill_and_reap(strays: &[(i32, bool)]) {
        use rustix::process::{Pid, Signal, WaitOptions, kill_process, waitpid};
        for pid in strays.iter().filter_map(|&(pid, _)| Pid::from_raw(pid)) {
            let _ = kill_process(pid, Signal::KILL);
        }
        for pid in strays
            .iter()
            .filter(|(_, child)| *child)
            .filter_map(|&(pid, _)| Pid::from_raw(pid))
        {
            let _ = waitpid(Some(pid), WaitOptions::empty());
        }
        // Their children, re-parented here as they died, are the next round's; a
        // process the kernel holds (in uninterruptible sleep) is not spun on.
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
