//! `unused-suppression`: a `tether: ignore[…]` comment that suppresses nothing. The
//! suppression pass itself is the engine's (`suppress.rs`).

use super::rule::{FileContext, NoOptions, Reporter, Rule, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a suppression comment that suppresses no finding: the rule it names
    /// reported nothing on the comment's line or the line below, the rule is off for the
    /// file, or no rule has that name.
    ///
    /// A finding is suppressed by a comment on its line or on the line above it:
    /// `# tether: ignore[rule-name] reason`, or in a template
    /// `{{/* tether: ignore[rule-name] reason */}}`. Several rules may be named,
    /// separated by commas. Suppressions do not apply to this rule.
    ///
    /// ## Why it matters
    /// A suppression outlives the finding it was written for; left behind, it hides the
    /// next real finding on that line.
    ///
    /// ## Example
    /// ```yaml
    /// # tether: ignore[detached-comment] moved below the block in #123
    /// replicas: 3
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// replicas: 3
    /// ```
    pub struct UnusedSuppression {
        name: "unused-suppression",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for UnusedSuppression {
    /// Nothing per rule: which suppressions the other rules' findings used is known
    /// only after they all ran, so the engine's suppression pass (`suppress.rs`)
    /// makes this rule's findings.
    fn check(&self, _context: &FileContext, _reporter: &mut Reporter) {}
}
