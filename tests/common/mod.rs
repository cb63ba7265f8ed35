//! What several test files share.

use std::process::Command;

/// The `tether` binary as an unprivileged user: root reads and writes every folder,
/// so a test of file modes run as root runs the binary as `nobody` (util-linux's
/// `setpriv`); as anyone else, the binary as it is.
pub fn tether_unprivileged() -> Command {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_tether"));
        command
    } else {
        Command::new(env!("CARGO_BIN_EXE_tether"))
    }
}
