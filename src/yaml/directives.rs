//! Comments that speak to a tool, not to a reader: `# yamllint disable-line`,
//! `# tether: ignore[…]`, `# prettier-ignore`, `# renovate: datasource=…`.
//!
//! A directive documents no key. Anchoring sets them aside (they are neither leading,
//! trailing, detached nor free), and comment lines around them are joined as if the
//! directive were not there. The style rules still read them: yamllint checks the
//! spacing of its own directives too.

/// The directives every run knows, matched at the start of a comment's text (after
/// `#`s, `{{/*` and spaces). `tether.toml`'s `directives = […]` adds more.
pub const DEFAULT_DIRECTIVES: &[&str] = &[
    "yamllint disable",
    "yamllint enable",
    "tether:",
    "prettier-ignore",
    "@schema",
    "kics-scan",
    "checkov:skip",
    "trivy:ignore",
    "tfsec:ignore",
    "nolint",
    "nosec",
    "nosemgrep",
    "NOSONAR",
    "noqa",
    "renovate:",
    "codespell:ignore",
    "shellcheck disable",
    "hadolint ignore",
    "editorconfig-checker-disable",
    "editorconfig-checker-enable",
    "x-release-please-",
    "trunk-ignore",
];

/// Whether a `#` comment (its text from the `#`) is a ytt annotation: `#@` with no
/// space (`#@ load(…)`, `#@overlay/match by=…`, `#@ end`), which Carvel ytt executes.
/// It is code, not a comment: it documents no key, and no style rule reports or
/// rewrites it (`# @` would turn it off). helm-docs' and readme-generator's markers
/// are written `# @param` and `## @param`, with the space.
pub fn is_ytt_annotation(comment: &str) -> bool {
    comment.starts_with("#@")
}

/// The directive prefixes in force: the defaults and a configuration's own.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Directives {
    extra: Vec<String>,
}

impl Directives {
    /// The defaults and `extra`.
    pub fn with_extra(extra: Vec<String>) -> Self {
        Directives { extra }
    }

    /// These directives and `more`'s extra ones.
    pub fn extended(&self, more: &Directives) -> Self {
        let mut extra = self.extra.clone();
        extra.extend(more.extra.iter().cloned());
        Directives { extra }
    }

    /// Whether a comment's text (without its markers) is a directive: it starts with
    /// one of the prefixes, followed by the end of the text or a character that is not
    /// part of a word (`nolint` matches `nolint:lll`, not `nolinting`).
    pub fn is_directive(&self, text: &str) -> bool {
        let text = text.trim_start_matches(['#', ' ', '\t']);
        // Most comments are prose: their first byte starts no default directive.
        let default = text
            .as_bytes()
            .first()
            .is_some_and(|&first| STARTS_A_DEFAULT[usize::from(first)])
            && DEFAULT_DIRECTIVES
                .iter()
                .any(|prefix| starts_with_word(text, prefix));
        default
            || self
                .extra
                .iter()
                .any(|prefix| starts_with_word(text, prefix))
    }
}

/// The first bytes of [`DEFAULT_DIRECTIVES`].
const STARTS_A_DEFAULT: [bool; 256] = {
    let mut table = [false; 256];
    let mut index = 0;
    while index < DEFAULT_DIRECTIVES.len() {
        table[DEFAULT_DIRECTIVES[index].as_bytes()[0] as usize] = true;
        index += 1;
    }
    table
};

fn starts_with_word(text: &str, prefix: &str) -> bool {
    let Some(rest) = text.strip_prefix(prefix) else {
        return false;
    };
    let prefix_ends_word = prefix
        .chars()
        .last()
        .is_some_and(|c| !(c.is_alphanumeric() || c == '_'));
    prefix_ends_word
        || rest
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
}

/// Whether a comment's text opens or closes a multi-line `# @schema` block
/// (helm-schema): the lines between two such markers are directives too.
pub fn is_schema_fence(text: &str) -> bool {
    text.trim_start_matches(['#', ' ', '\t']).trim_end() == "@schema"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_match_whole_words() {
        let directives = Directives::default();
        assert!(directives.is_directive("yamllint disable-line rule:comments"));
        assert!(directives.is_directive("# yamllint enable"));
        assert!(directives.is_directive("tether: ignore[detached-comment] moved on purpose"));
        assert!(directives.is_directive("nolint:lll"));
        assert!(directives.is_directive("renovate: datasource=docker depName=nginx"));
        assert!(!directives.is_directive("nolinting here"));
        assert!(!directives.is_directive("The yamllint configuration lives in ct.yaml"));
        assert!(!directives.is_directive("-- Enable prettier"));
        let extended = Directives::with_extra(vec!["kubeconform:".into()]);
        assert!(extended.is_directive("kubeconform: skip"));
        assert!(!directives.is_directive("kubeconform: skip"));
        assert!(is_schema_fence("@schema"));
        assert!(!is_schema_fence("@schema type:string"));
    }
}
