//! Line-level facts about YAML text, shared by the masker and the comment scanner:
//! where a block scalar starts and how deep its content must be indented.

/// How many spaces `bytes` starts with, eight bytes at a time: masked template lines
/// are long runs of spaces, and every pass over a file's lines asks this.
pub fn count_spaces(bytes: &[u8]) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let mut count = 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let different = u64::from_le_bytes(word) ^ SPACES;
        if different != 0 {
            return count + (different.trailing_zeros() / 8) as usize;
        }
        count += 8;
    }
    count
        + chunks
            .remainder()
            .iter()
            .take_while(|&&b| b == b' ')
            .count()
}

/// A line up to its inline comment (a `#` after a space).
pub fn code_before_comment(line: &str) -> &str {
    line.match_indices('#')
        .find(|&(at, _)| at > 0 && line.as_bytes()[at - 1] == b' ')
        .map_or(line, |(at, _)| &line[..at - 1])
}

/// A block scalar header at the end of a line (`key: |`, `- >-`, `key: |2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockScalarHeader {
    /// The column the content must be indented past.
    pub parent: usize,
    /// The content's indentation when the header gives it (`|2`: the parent's
    /// column plus 2); otherwise the first non-empty line's sets it.
    pub indent: Option<usize>,
}

/// If the line ends with a block scalar header (`key: |`, `- >-`, `key: |2`), what it
/// says about the content's indentation.
pub fn block_scalar_header(line: &[u8]) -> Option<BlockScalarHeader> {
    // Most lines hold neither indicator, and most that do hold it in a template
    // pipeline (`{{ .x | quote }}`): a header ends the line, or comes before a
    // comment. Reject the rest before any string work.
    memchr::memchr2(b'|', b'>', line)?;
    let trimmed = line.trim_ascii_end();
    let last_token = trimmed
        .iter()
        .rposition(|&b| b == b' ' || b == b'\t')
        .map_or(trimmed, |at| &trimmed[at + 1..]);
    if !matches!(last_token.first(), Some(b'|' | b'>')) && memchr::memchr(b'#', line).is_none() {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    let code = code_before_comment(text).trim_end();
    let header_start = code.rfind([' ', '\t'])? + 1;
    let header = &code[header_start..];
    let mut chars = header.chars();
    if !matches!(chars.next(), Some('|') | Some('>'))
        || !chars.all(|c| c == '-' || c == '+' || c.is_ascii_digit())
    {
        return None;
    }
    let before = code[..header_start].trim_end();
    if !(before.ends_with(':') || before.ends_with('-')) {
        return None;
    }
    let parent = structure_column(text);
    let indicator = header
        .bytes()
        .find(|b| matches!(b, b'1'..=b'9'))
        .map(|digit| usize::from(digit - b'0'));
    Some(BlockScalarHeader {
        parent,
        indent: indicator.map(|indicator| parent + indicator),
    })
}

/// The column that a nested value must be indented past: the key's column, or the
/// last dash's column for a bare sequence item.
pub fn structure_column(line: &str) -> usize {
    let indent = line.len() - line.trim_start().len();
    let mut column = indent;
    let mut rest = &line[indent..];
    while let Some(after) = rest.strip_prefix("- ") {
        let trimmed = after.trim_start();
        let next = column + (rest.len() - trimmed.len());
        if trimmed.starts_with(['|', '>']) || trimmed.is_empty() || trimmed.starts_with("{{") {
            return column;
        }
        column = next;
        rest = trimmed;
    }
    column
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_scalar_header_gives_its_indentation_from_the_parent_column() {
        let header = |line: &str| block_scalar_header(line.as_bytes());
        assert_eq!(header("key: value"), None);
        assert_eq!(
            header("  key: |"),
            Some(BlockScalarHeader {
                parent: 2,
                indent: None
            })
        );
        // As PyYAML reads them: the key's column, or the last dash's, plus the digit.
        assert_eq!(
            header("  key: |2-"),
            Some(BlockScalarHeader {
                parent: 2,
                indent: Some(4)
            })
        );
        assert_eq!(
            header("- - >+1  # folded"),
            Some(BlockScalarHeader {
                parent: 2,
                indent: Some(3)
            })
        );
    }

    proptest::proptest! {
        #[test]
        fn count_spaces_counts_the_leading_spaces(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![b' ', b' ', b' ', b'\t', b'\n', b'a', 0xe9]),
                0..40,
            )
        ) {
            let expected = bytes.iter().take_while(|&&b| b == b' ').count();
            proptest::prop_assert_eq!(count_spaces(&bytes), expected);
        }
    }
}
