//! `finding-limit`: a file had more findings than a report shows.

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};

declare_rule! {
    /// ## What it does
    /// Closes the findings of a file that had more than 100: the first 100 are shown,
    /// and this finding at the end of the file says how many more there were. It is an
    /// error when any finding left out was an error, a warning otherwise.
    ///
    /// The engine makes these findings; this rule cannot be turned off (`off` is
    /// refused, and `--select` keeps it), because a report that drops findings must
    /// say so.
    ///
    /// ## Why it matters
    /// One hostile or generated file could otherwise flood a report (and its memory)
    /// with millions of findings; cutting them without a word would hide errors.
    ///
    /// ## Example
    /// ```yaml
    /// # a generated file with 5,000 comments and no space after their `#`
    /// #a
    /// #b
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # run `tether check --fix`, or exclude generated files in tether.toml
    /// # a
    /// # b
    /// ```
    pub struct FindingLimit {
        name: "finding-limit",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for FindingLimit {
    /// Nothing to do per file: the engine adds the finding when it cuts a report.
    fn check(&self, _context: &FileContext, _reporter: &mut Reporter) {}
}
