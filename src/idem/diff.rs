//! The unified diff of a file a check found changed: what it must be against what
//! it is, bounded in size and time.

use std::time::Duration;

use super::report::{MAX_DIFF_INPUT, MAX_DIFF_LINES};
use super::sandbox::Entry;

/// `what must be` → `what is`, with `a/` and `b/` headers; `/dev/null` for a file
/// that must not exist or is missing. Bounded: a binary or large file is summarised,
/// the diff has a deadline, and it is cut after [`MAX_DIFF_LINES`] lines.
pub(super) fn unified_diff(
    path: &str,
    before: Option<&Entry>,
    after: Option<&Entry>,
    budget: Duration,
) -> String {
    let old_header = if before.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".to_string()
    };
    let new_header = if after.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".to_string()
    };
    let text = |entry: Option<&Entry>| -> Option<String> {
        match entry {
            None => Some(String::new()),
            Some(Entry::File { bytes, .. }) if bytes.len() <= MAX_DIFF_INPUT => {
                std::str::from_utf8(bytes).ok().map(str::to_string)
            }
            Some(Entry::File { .. } | Entry::Large { .. }) => None,
            Some(Entry::Link(target)) => Some(format!("symlink to {}\n", target.display())),
            Some(Entry::Unreadable(why)) => Some(format!("(cannot be read back: {why})\n")),
        }
    };
    let (Some(old), Some(new)) = (text(before), text(after)) else {
        let summary = |entry: Option<&Entry>| match entry {
            None => "absent".to_string(),
            Some(Entry::File { bytes, .. }) => format!(
                "{} bytes, xxh3 {:016x}",
                bytes.len(),
                xxhash_rust::xxh3::xxh3_64(bytes)
            ),
            Some(Entry::Large { size, hash, .. }) => format!("{size} bytes, xxh3 {hash:016x}"),
            Some(Entry::Link(target)) => format!("symlink to {}", target.display()),
            Some(Entry::Unreadable(why)) => format!("unreadable: {why}"),
        };
        return format!(
            "--- {old_header}\n+++ {new_header}\n(binary or larger than {} KiB, not diffed: {} → {})\n",
            MAX_DIFF_INPUT / 1024,
            summary(before),
            summary(after)
        );
    };
    if old.is_empty() && new.is_empty() {
        let what = if before.is_none() {
            "new empty file"
        } else {
            "empty file deleted"
        };
        return format!("--- {old_header}\n+++ {new_header}\n({what})\n");
    }
    let diff = similar::TextDiff::configure()
        .timeout(budget)
        .diff_lines(&old, &new);
    let mut out = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_header, &new_header)
        .to_string();
    if out.is_empty() {
        // Same lines, other bytes: only the executable bit or a final newline.
        out = format!("--- {old_header}\n+++ {new_header}\n(file mode or symlink differs)\n");
    }
    let lines = out.lines().count();
    if lines > MAX_DIFF_LINES {
        let mut cut: String = out
            .lines()
            .take(MAX_DIFF_LINES)
            .flat_map(|line| [line, "\n"])
            .collect();
        cut.push_str(&format!("… {} more lines\n", lines - MAX_DIFF_LINES));
        out = cut;
    }
    out
}
