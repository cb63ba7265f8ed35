//! Line-level facts about YAML text, shared by the masker and the comment scanner:
//! where a block scalar starts and how deep its content must be indented.

/// If the line ends with a block scalar header (`key: |`, `- >-`), the column its
/// content must be indented past.
pub fn block_scalar_parent(line: &[u8]) -> Option<usize> {
    // Most lines hold neither indicator: reject them before any string work.
    memchr::memchr2(b'|', b'>', line)?;
    let text = std::str::from_utf8(line).ok()?;
    let code = match text.find(" #") {
        Some(comment) => &text[..comment],
        None => text,
    };
    let code = code.trim_end();
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
    Some(structure_column(text))
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
