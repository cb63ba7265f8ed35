//! `read-error`: a file or folder tether could not read.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a file or folder of the run that tether could not read: no
    /// permission, a folder that vanished while it was walked, or a file named on the
    /// command line that is a link or a special file (a FIFO, a device; a folder's
    /// walk leaves those out). The finding is on the path, and the run exits with
    /// trouble (2), whatever the findings.
    ///
    /// The engine makes these findings; this rule cannot be turned off (`off` is
    /// refused, and `--select` keeps it), because a file tether cannot read would
    /// otherwise pass unseen.
    ///
    /// ## Why it matters
    /// A check that silently skips what it cannot read passes files it never looked
    /// at: a chart made unreadable by a bad `chmod` would stop being linted without a
    /// word.
    ///
    /// ## Example
    /// ```yaml
    /// # templates/deployment.yaml, mode 000: tether cannot open it
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # chmod 644 templates/deployment.yaml, or exclude it in tether.toml
    /// ```
    pub struct ReadError {
        name: "read-error",
        level: Error,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for ReadError {
    /// Nothing to do on a file that was read: the engine reports the others.
    fn check(&self, _context: &FileContext, _reporter: &mut Reporter) {}
}
