//! What keeps a regeneration command inside its sandbox, on top of detection.
//!
//! On Linux, the command runs under Landlock: every file is readable, and only its
//! sandbox folder (the copy, its `HOME` and `TMPDIR`) and a few harmless devices are
//! writable, for it and every process it starts. tether is also a child subreaper, so
//! a process the command detaches (`setsid … &`) is re-parented to tether, which kills
//! it when the run ends. Elsewhere, or on a kernel without Landlock, the command runs
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

/// Kills the processes re-parented to this one that are not `keep` and not in this
/// process's own process group (tether's own helpers, such as git, are): what
/// commands left running when they ended (`setsid … &`, double forks). Repeats while
/// killing them orphans more. Linux only.
pub fn kill_orphans(keep: &[i32]) {
    #[cfg(target_os = "linux")]
    for _ in 0..20 {
        let orphans = linux::orphans(keep);
        if orphans.is_empty() {
            return;
        }
        for pid in orphans
            .into_iter()
            .filter_map(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = keep;
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

    /// Children of this process in another process group, except `keep`.
    pub fn orphans(keep: &[i32]) -> Vec<i32> {
        let me = std::process::id() as i32;
        let group = rustix::process::getpgrp().as_raw_nonzero().get();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| !keep.contains(pid))
            .filter(|&pid| {
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                    return false;
                };
                // `pid (comm) state ppid pgrp session …`; comm may hold spaces.
                let Some(after) = stat.rfind(')').map(|end| &stat[end + 1..]) else {
                    return false;
                };
                let fields: Vec<&str> = after.split_whitespace().collect();
                let ppid = fields.get(1).and_then(|f| f.parse::<i32>().ok());
                let pgrp = fields.get(2).and_then(|f| f.parse::<i32>().ok());
                ppid == Some(me) && pgrp != Some(group)
            })
            .collect()
    }
}
