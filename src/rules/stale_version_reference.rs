//! `stale-version-reference`: a comment that names a pinned component at another
//! version than the pin.

use std::ops::Range;

use super::rule::{CommentInfo, FileContext, NoOptions, Reporter, Rule, declare_rule};
use crate::analysis::pins::{Pin, exact_version};
use crate::yaml::model::CommentStyle;

declare_rule! {
    /// ## What it does
    /// Reports a comment that names a pinned component with a version other than the
    /// one pinned: "the vendored ouroboros chart (0.8.0)" while
    /// `charts/ouroboros/Chart.yaml` says `version: 0.8.1`.
    ///
    /// The pins are the repository's (its git top, or the configuration's folder
    /// outside one): every vendored chart, `charts/NAME/Chart.yaml`, at its `version`
    /// and its `appVersion`; every `dependencies:` entry of a `Chart.yaml` with an exact
    /// version; and each `[[pin]]` of `tether.toml`, a version read from a file:
    ///
    /// ```toml
    /// [[pin]]
    /// name = "kubevirt"
    /// file = "packages/system/kubevirt-operator/Makefile"
    /// regex = 'RELEASE=v(\S+)'
    /// ```
    ///
    /// A comment claims a version when the version follows the name closely: in the
    /// same comment block (consecutive comment lines), within six words, with only
    /// words such as `chart`, `version`, `image`, `tag`, `at`, `is`, `vendored`,
    /// `pinned` or a path between (`KubeVirt v1.9.0`, `CAPK v0.1.10`, `the ouroboros
    /// chart (0.8.0)`, `charts/ouroboros/…yaml, vendored at 0.8.0`, `ouroboros@0.8.0`).
    /// Any other word stops the search (`Prometheus Operator 0.30` names another
    /// component). In a path the name must be a whole segment, and a name that starts
    /// a longer hyphenated one (`seaweedfs-cosi-driver`) is that other name.
    ///
    /// History and requirements are not claims, and are never reported: a name
    /// within three words after `since`, `before`, `after`, `until`, `fixed`,
    /// `introduced`, `added`, `from`, `skipping`, `requires`, `supported`, `minimum`
    /// and their like (`introduced in Cilium 1.4`, `requires Prometheus v2.45`), a
    /// version followed by `and later`, `or newer`, `+`, and anything not an exact
    /// version (`1.7.x`, `>=1.2`). A version matches a pin when it is the pin or a
    /// prefix of it (`0.8` matches `0.8.1`). Names shorter than three letters and
    /// common words (`common`, `app`, `operator`, …) are not matched.
    ///
    /// A deliberate mention of another version is silenced with
    /// `# tether: ignore[stale-version-reference] why` on its line or the line above,
    /// or written as history (`as of 0.8.0`, `since 0.8.0`).
    ///
    /// ## Why it matters
    /// When the pin moves, the comment silently lies: it explains a hook, a default or
    /// a workaround of a version that is no longer the one deployed.
    ///
    /// ## Example
    /// ```yaml
    /// # The vendored ouroboros chart (0.8.0) ships a pre-delete hook.
    /// ouroboros:
    ///   enabled: true
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # The vendored ouroboros chart (0.8.1) ships a pre-delete hook.
    /// ouroboros:
    ///   enabled: true
    /// ```
    pub struct StaleVersionReference {
        name: "stale-version-reference",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

/// Words that may stand between a name and the version it claims.
const CONNECTORS: &[&str] = &[
    "chart",
    "charts",
    "subchart",
    "helm",
    "version",
    "ver",
    "release",
    "app",
    "appversion",
    "image",
    "tag",
    "at",
    "is",
    "=",
    ":",
    "@",
    "-",
    "vendored",
    "pinned",
    "currently",
    "now",
    "upstream",
    "the",
];

/// Words that make what follows history, not a claim about the current version.
const HISTORY: &[&str] = &[
    "since",
    "before",
    "after",
    "until",
    "till",
    "prior",
    "fixed",
    "skipping",
    "skip",
    "from",
    "older",
    "earlier",
    "upgrade",
    "upgrading",
    "upgraded",
    "migrate",
    "migrating",
    "introduced",
    "deprecated",
    "removed",
    "added",
    "pre",
    "post",
    "below",
    "above",
    "through",
    "between",
    "than",
    "old",
    "previous",
    "previously",
    "legacy",
    "was",
    "were",
    "to",
    "<",
    ">",
    "<=",
    ">=",
    "~",
    "^",
    "requires",
    "require",
    "required",
    "requiring",
    "needs",
    "need",
    "minimum",
    "min",
    "least",
    "compatible",
    "compatibility",
    "supported",
    "supports",
    "support",
    "tested",
    "targets",
];

/// After a version: it is a range, not the current version.
const RANGE_AFTER: &[&str] = &[
    "later", "newer", "above", "up", "higher", "older", "earlier", "below", "onwards", "onward",
    "era", "series", "line", "branch", "lts",
];

impl Rule for StaleVersionReference {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let Some(pins) = context.pins else {
            return;
        };
        let Some(names) = &pins.names else {
            return;
        };
        let text = context.source.text.as_str();
        for block in blocks(context) {
            let block = &context.comments[block];
            // Most comments name no pinned component: one search of each, and words
            // only for the blocks that do.
            if !block.iter().any(|comment| {
                text.get(comment.span.clone())
                    .is_some_and(|body| names.is_match(body))
            }) {
                continue;
            }
            let tokens = tokens(text, block);
            for (index, (token, _)) in tokens.iter().enumerate() {
                for name in names.find_iter(token) {
                    let name = Found {
                        text: &token[name.clone()],
                        range: name,
                    };
                    // `introduced in Cilium 1.4`, `requires Prometheus v2.45`.
                    let history = tokens[index.saturating_sub(3)..index]
                        .iter()
                        .any(|(word, _)| {
                            HISTORY.contains(&bare(word).to_ascii_lowercase().as_str())
                        });
                    if history || !whole_name(token, name.start(), name.end()) {
                        continue;
                    }
                    let rest = &token[name.end()..];
                    let Some((version, range)) = claimed(&tokens, index, rest, name.end()) else {
                        continue;
                    };
                    let matching: Vec<&Pin> = pins.of(name.as_str()).collect();
                    if matching.iter().any(|pin| agrees(&version, &pin.version)) {
                        continue;
                    }
                    let mut versions: Vec<(&str, Vec<&str>)> = Vec::new();
                    for pin in &matching {
                        match versions
                            .iter_mut()
                            .find(|(version, _)| *version == pin.version)
                        {
                            Some((_, sources)) => sources.push(&pin.source),
                            None => versions.push((&pin.version, vec![&pin.source])),
                        }
                    }
                    let pinned = versions
                        .iter()
                        .map(|(version, sources)| match sources.len() {
                            1 => format!("{version} ({})", sources[0]),
                            n => format!("{version} ({}, and {} more)", sources[0], n - 1),
                        })
                        .collect::<Vec<_>>()
                        .join(" and ");
                    reporter
                        .report(
                            range,
                            format!(
                                "this comment says {} {version}, but it is pinned at {pinned}",
                                name.as_str()
                            ),
                        )
                        .with_help(
                            "update the version, write it as history (`as of`, `since`), or silence it with `# tether: ignore[stale-version-reference] why`",
                        );
                }
            }
        }
    }
}

/// Whether a comment's version agrees with a pin: the same, or a prefix of it.
fn agrees(claimed: &str, pinned: &str) -> bool {
    claimed == pinned
        || pinned
            .strip_prefix(claimed)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Whether `token[start..end]` names the component itself: in a path, a whole
/// segment (`charts/ouroboros/…`, not `…/coredns-cleanup-hook.yaml`); elsewhere not
/// the start of a longer hyphenated name (`seaweedfs-cosi-driver`), though it may end
/// one (`cozy-ouroboros`).
fn whole_name(token: &str, start: usize, end: usize) -> bool {
    let rest = &token[end..];
    if token.contains('/') {
        let segment_start = token[..start].rfind('/').map_or(0, |at| at + 1);
        let segment_end = rest.find('/').map_or(token.len(), |at| end + at);
        let segment = bare(&token[segment_start..segment_end]);
        return segment.eq_ignore_ascii_case(&token[start..end]);
    }
    !(rest.starts_with('-') && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// A word without the punctuation around it.
fn bare(token: &str) -> &str {
    token
        .trim_matches(|c: char| "()[]{},;\"'`*".contains(c))
        .trim_end_matches('.')
}

/// The version the name at `tokens[index]` claims, and its bytes in the source.
fn claimed(
    tokens: &[(&str, Range<usize>)],
    index: usize,
    rest: &str,
    name_end: usize,
) -> Option<(String, Range<usize>)> {
    let (_, range) = &tokens[index];
    // `ouroboros@0.8.0`, `kubevirt:v1.9.0` in one word.
    let attached = rest.trim_start_matches(['@', ':', '=']);
    if attached.len() < rest.len() {
        let core = bare(attached);
        if let Some(version) = exact_version(core) {
            let start = range.start + name_end + (rest.len() - attached.len());
            return Some((version, start..start + core.len()))
                .filter(|_| !ranged(tokens, index, core));
        }
        return None;
    }
    // What follows the name in its word: nothing, punctuation, or a path.
    let rest_bare = bare(rest);
    if !(rest_bare.is_empty() || rest_bare.starts_with('/') || rest_bare.starts_with('-')) {
        return None;
    }
    for next in index + 1..tokens.len().min(index + 7) {
        let (token, range) = &tokens[next];
        let word = bare(token);
        if let Some(version) = exact_version(word) {
            let start = range.start + token.find(word).unwrap_or(0);
            if ranged(tokens, next, word) {
                return None;
            }
            return Some((version, start..start + word.len()));
        }
        let lower = word.to_ascii_lowercase();
        if word.is_empty() || word.contains('/') || CONNECTORS.contains(&lower.as_str()) {
            continue;
        }
        return None;
    }
    None
}

/// Whether the version at `tokens[index]` is the start of a range: `1.2+`,
/// `1.2 and later`, `1.2 or newer`.
fn ranged(tokens: &[(&str, Range<usize>)], index: usize, version: &str) -> bool {
    let token = tokens[index].0;
    let after_version = token
        .find(version)
        .map_or("", |at| &token[at + version.len()..]);
    if after_version.starts_with('+') || after_version.starts_with(".x") {
        return true;
    }
    let next = |offset: usize| {
        tokens
            .get(index + offset)
            .map(|(token, _)| bare(token).to_ascii_lowercase())
    };
    match (next(1), next(2)) {
        (Some(first), _) if RANGE_AFTER.contains(&first.as_str()) || first == "+" => true,
        (Some(first), Some(second)) => {
            (first == "and" || first == "or") && RANGE_AFTER.contains(&second.as_str())
        }
        _ => false,
    }
}

/// The file's comments in blocks: consecutive own-line `#` comments, each inline
/// `#` comment, each template comment.
fn blocks(context: &FileContext) -> Vec<Range<usize>> {
    let comments = context.comments;
    let mut blocks: Vec<Range<usize>> = Vec::new();
    for (index, comment) in comments.iter().enumerate() {
        let joins = comment.style == CommentStyle::Yaml
            && comment.own_line
            && index > 0
            && blocks.last().is_some_and(|block| block.end == index)
            && {
                let last = &comments[index - 1];
                last.style == CommentStyle::Yaml && last.own_line && last.line + 1 == comment.line
            };
        match blocks.last_mut() {
            Some(block) if joins => block.end = index + 1,
            _ => blocks.push(index..index + 1),
        }
    }
    blocks
}

/// `word` without each of `markers` in turn, as often as it repeats at that end
/// (what `trim_start_matches` does, without building a substring searcher for every
/// word of every comment).
fn strip_all<'a>(
    mut word: &'a str,
    strip: impl Fn(&'a str, &str) -> Option<&'a str>,
    markers: &[&str],
) -> &'a str {
    for marker in markers {
        while let Some(rest) = strip(word, marker) {
            word = rest;
        }
    }
    word
}

/// A pinned name found in a token.
struct Found<'a> {
    text: &'a str,
    range: Range<usize>,
}

impl Found<'_> {
    fn start(&self) -> usize {
        self.range.start
    }
    fn end(&self) -> usize {
        self.range.end
    }
    fn as_str(&self) -> &str {
        self.text
    }
}

/// The words of a comment block, with their bytes in the source: `#` and template
/// comment markers left out.
fn tokens<'a>(text: &'a str, block: &[CommentInfo]) -> Vec<(&'a str, Range<usize>)> {
    let mut tokens = Vec::new();
    for comment in block {
        let Some(body) = text.get(comment.span.clone()) else {
            continue;
        };
        let mut offset = comment.span.start;
        let mut body = body;
        if comment.style == CommentStyle::Yaml {
            let hashes = body.len() - body.trim_start_matches('#').len();
            offset += hashes;
            body = &body[hashes..];
        }
        let mut start = None;
        for (at, c) in body
            .char_indices()
            .chain(std::iter::once((body.len(), ' ')))
        {
            match (c.is_whitespace(), start) {
                (true, Some(from)) => {
                    let word = &body[from..at];
                    if !matches!(
                        word,
                        "{{/*" | "{{-" | "/*" | "*/" | "*/}}" | "-}}" | "}}" | "{{"
                    ) {
                        let word = strip_all(
                            word,
                            |word, marker| word.strip_prefix(marker),
                            &["{{-", "{{", "/*"],
                        );
                        let skipped = body[from..at].len() - word.len();
                        let word = strip_all(
                            word,
                            |word, marker| word.strip_suffix(marker),
                            &["}}", "-", "*/"],
                        );
                        if !word.is_empty() {
                            let begin = offset + from + skipped;
                            tokens.push((word, begin..begin + word.len()));
                        }
                    }
                    start = None;
                }
                (false, None) => start = Some(at),
                _ => {}
            }
        }
    }
    tokens
}
