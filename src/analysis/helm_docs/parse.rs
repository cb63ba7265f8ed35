//! helm-docs' reading of comment text: `ParseComment` on a group, its regexes, and
//! the older line scanner for `# key.path -- text`.

use crate::collections::HashMap;
use std::ops::Range;

/// helm-docs' reading of one comment group.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// The text before ` -- ` on the first line: a key path (old style), or a keyed
    /// new-style line that helm-docs drops.
    pub(super) key: String,
    pub(super) description: String,
}

/// helm-docs' `ParseComment` on the lines of one comment (head comment lines, or the
/// file's lines for the old style). Returns the result and the index of the line the
/// group starts on.
pub(super) fn parse_comment(lines: &[&str]) -> (Parsed, usize) {
    let last = lines
        .iter()
        .rposition(|line| line.starts_with("# --"))
        .unwrap_or(0);
    let lines = &lines[last..];
    let mut parsed = Parsed::default();
    let mut start = 0;
    for (index, line) in lines.iter().enumerate() {
        if let Some((key, description)) = description_match(line) {
            parsed.key = key.to_string();
            parsed.description = description.to_string();
            start = index;
            break;
        }
    }
    if let Some(rest) = parsed.description.strip_prefix('(') {
        if let Some(close) = rest.find(')') {
            if close > 0 {
                parsed.description = trim_re2_space(&rest[close + 1..]).to_string();
            }
        }
    }
    let mut raw = false;
    for line in &lines[start + 1..] {
        let trimmed = trim_re2_space(line);
        if trimmed.starts_with("##") {
            continue;
        }
        if !raw {
            if let Some(after) = trimmed.strip_prefix('#') {
                if after.starts_with(is_re2_space) && trim_re2_space(after).starts_with("@raw") {
                    raw = true;
                    continue;
                }
            }
        }
        if trimmed.starts_with("# @default -- ")
            || trimmed.starts_with("# @section -- ")
            || is_notation_type(trimmed)
        {
            continue;
        }
        if let Some(after) = trimmed.strip_prefix('#') {
            let mut chars = after.chars();
            let text = match chars.next() {
                Some(c) if is_re2_space(c) => chars.as_str(),
                _ => after,
            };
            parsed.description.push(if raw { '\n' } else { ' ' });
            parsed.description.push_str(text);
        }
    }
    (parsed, last + start)
}

/// `^\s*#\s*(.*)\s+--\s*(.*)$`: the key before the last ` --` that follows
/// whitespace, and the text after it.
pub(super) fn description_match(line: &str) -> Option<(&str, &str)> {
    let after_hash = trim_re2_space(line).strip_prefix('#')?;
    let bytes = after_hash.as_bytes();
    let leading = after_hash.len() - trim_re2_space(after_hash).len();
    let dashes = (1..bytes.len().saturating_sub(1))
        .rev()
        .find(|&i| bytes[i] == b'-' && bytes[i + 1] == b'-' && is_re2_space_byte(bytes[i - 1]))?;
    let key = if dashes > leading {
        &after_hash[leading..dashes - 1]
    } else {
        ""
    };
    Some((key, trim_re2_space(&after_hash[dashes + 2..])))
}

/// `^\s*#\s+@notationType\s+--\s+(.*)$`.
fn is_notation_type(trimmed: &str) -> bool {
    let Some(after) = trimmed.strip_prefix('#') else {
        return false;
    };
    let rest = trim_re2_space(after);
    if rest.len() == after.len() {
        return false;
    }
    let Some(rest) = rest.strip_prefix("@notationType") else {
        return false;
    };
    let after_name = trim_re2_space(rest);
    if after_name.len() == rest.len() {
        return false;
    }
    after_name
        .strip_prefix("--")
        .is_some_and(|after| after.starts_with(is_re2_space))
}

/// RE2's `\s`: `[\t\n\f\r ]`.
fn is_re2_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

fn is_re2_space_byte(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn trim_re2_space(text: &str) -> &str {
    text.trim_start_matches(is_re2_space)
}

/// An old-style description, `# key.path -- text`.
pub(super) struct OldStyle {
    pub(super) parsed: Parsed,
    pub(super) lines: Range<usize>,
}

/// helm-docs' `parseChartValuesFileComments`: a scan of the raw lines for
/// `# key.path -- text` blocks, whatever the YAML around them. A block runs over the
/// comment lines that follow; a later block for the same key replaces an earlier one.
pub(super) fn old_style_descriptions(text: &str) -> HashMap<String, OldStyle> {
    // Go's bufio.Scanner stops at a line longer than its 64 KiB buffer.
    const MAX_LINE: usize = 64 * 1024;
    let mut out = HashMap::default();
    let mut block: Vec<&str> = Vec::new();
    let mut block_start = 0;
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return out;
    }
    for (number, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.len() >= MAX_LINE {
            break;
        }
        if block.is_empty() {
            if line.contains("--") {
                if let Some((key, _)) = description_match(line) {
                    if !key.is_empty() {
                        block.push(line);
                        block_start = number;
                    }
                }
            }
            continue;
        }
        if trim_re2_space(line).starts_with('#') {
            block.push(line);
            continue;
        }
        let (parsed, _) = parse_comment(&block);
        if !parsed.key.is_empty() {
            out.insert(
                parsed.key.clone(),
                OldStyle {
                    parsed,
                    lines: block_start..block_start + block.len(),
                },
            );
        }
        block.clear();
    }
    out
}

/// A comment helm-docs' users write as a description: `# -- text` or `# --`.
pub(crate) fn is_marker(comment: &str) -> bool {
    comment
        .strip_prefix("# --")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' ') || rest.trim().is_empty())
}
