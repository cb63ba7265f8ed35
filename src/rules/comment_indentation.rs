//! `comment-indentation`: comment lines indented like the content around them.

use super::rule::{declare_rule, FileContext, NoOptions, Reporter, Rule};
use crate::diagnostic::{Edit, Fix};
use crate::lines::{code_before_comment, count_spaces};
use crate::yaml::model::CommentStyle;

declare_rule! {
    /// ## What it does
    /// Reports a comment line whose `#` is not at a column the surrounding YAML content
    /// uses, with yamllint's `comments-indentation` semantics: a comment line may be
    /// indented like the next content line, like the previous one when that is deeper, or
    /// like the comment line directly above it.
    ///
    /// Where `tether.toml` sets nothing for this rule, the repository's yamllint
    /// configuration decides (`yamllint-config`, the nearest `.yamllint`, or
    /// chart-testing's `lint-conf`; docs/src/configuration.md, "Next to yamllint and chart-testing"), and
    /// yamllint's `# yamllint disable…` comments for its rule apply.
    ///
    /// `tether check --fix` moves the comment to the column of the next content line,
/// with the comment lines directly below it at the same column. A fix that would
/// change which key a comment documents (the comment map) is not applied: that
/// finding needs a person.
///
/// Differences from yamllint, all deliberate, to avoid the false positives its users
    /// report:
    /// - template lines (`{{- if … }}`, `{{- end }}`, `{{- include … | nindent 4 }}`) are
    ///   not content: the comment is compared with the YAML lines around them, and a
    ///   comment directly above or below a template line, indented like it, documents
    ///   that line;
    /// - `- name: x` opens a mapping at `name`'s column, where a comment may sit;
    /// - a comment at the end of a block may be indented like any block that is still
    ///   open, not only the innermost one (yamllint issues #141 and #384: a trailing note
    ///   at an outer level, a commented-out list item after a mapping item); in a run of
    ///   comment lines only outwards, since a comment at an outer level closes the
    ///   blocks inside it; a comment line may come back to any column its run used;
    /// - a comment below a key with no value on its line (`resources:`) or an empty
    ///   one (`env: {}`, `extraVolumes: []`, `~`, `null`, `""`, `''`), and no content
    ///   of its own below, may be indented deeper, as the
    ///   commented-out content of that key (yamllint issue #375; the usual way values
    ///   files show an example);
    /// - the content of block scalars is text, not indentation to match.
    ///
    /// ## Why it matters
    /// A comment's indentation says which block it belongs to. A comment indented like
    /// nothing around it was usually left behind when the content it described moved.
    ///
    /// ## Example
    /// ```yaml
    /// spec:
    ///   replicas: 3
    ///       # scaled by the HPA
    ///   strategy: {}
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// spec:
    ///   replicas: 3
    ///   # scaled by the HPA
    ///   strategy: {}
    /// ```
    pub struct CommentIndentation {
        name: "comment-indentation",
        level: Warn,
        fix: Always,
        yamllint: "comments-indentation",
        options: NoOptions,
    }
}

impl Rule for CommentIndentation {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let line_count = context
            .directive_lines
            .len()
            .max(context.source.line_count());
        // Per line (a few bytes each: a file may hold millions of lines): the comment
        // alone on it, if any (`NONE` else).
        const NONE: u32 = u32::MAX;
        let mut comment_index: Vec<u32> = vec![NONE; line_count];
        // Lines that continue a trailing comment: comment lines right below a line
        // with an inline comment, their `#` under its `#`.
        let mut continues_trailing = vec![false; line_count];
        let mut trailing_indent: Vec<Option<u32>> = vec![None; line_count];
        for (index, comment) in context.comments.iter().enumerate() {
            if comment.style != CommentStyle::Yaml || comment.line >= line_count {
                continue;
            }
            if comment.own_line {
                comment_index[comment.line] = u32::try_from(index).unwrap_or(NONE);
                let above = comment
                    .line
                    .checked_sub(1)
                    .and_then(|line| trailing_indent[line]);
                if let Some(column) = above.filter(|&column| comment.column == column as usize) {
                    continues_trailing[comment.line] = true;
                    trailing_indent[comment.line] = Some(column);
                }
            } else {
                trailing_indent[comment.line] = u32::try_from(comment.column).ok();
            }
        }
        let comment_at = |line: usize| -> Option<usize> {
            let index = *comment_index.get(line)?;
            (index != NONE).then(|| context.comments[index as usize].column)
        };
        let shape: Vec<LineShape> = (0..line_count)
            .map(|line| line_shape(context, line, comment_at(line).is_some()))
            .collect();
        // Indentation of the next content line below each line, 0 at a document's end.
        let mut next_indent: Vec<u32> = vec![0; line_count];
        let mut next = 0;
        for line in (0..line_count).rev() {
            next_indent[line] = u32::try_from(next).unwrap_or(u32::MAX);
            match shape[line] {
                LineShape::Content { indent, .. } => next = indent as usize,
                LineShape::DocumentMarker => next = 0,
                _ => {}
            }
        }

        let mut levels: Vec<usize> = Vec::new();
        let mut opens_block = false;
        let mut comment_above: Option<usize> = None;
        // The columns of the comment lines of the current run, so a line may come
        // back to a column the run used (a deeper example line inside a run does not
        // make the next line wrong).
        // A set: a run of thousands of lines at a few columns must not compare each
        // line with every line above it.
        let mut run_columns: std::collections::HashSet<usize> = Default::default();
        for line in 0..line_count {
            match shape[line] {
                LineShape::Content {
                    indent,
                    opens,
                    inner,
                } => {
                    let (indent, inner) = (indent as usize, inner as usize);
                    while levels.last().is_some_and(|&top| top > indent) {
                        levels.pop();
                    }
                    if levels.last().is_none_or(|&top| top < indent) {
                        levels.push(indent);
                    }
                    // `- key: value` opens a mapping at the key's column too.
                    if inner > indent {
                        levels.push(inner);
                    }
                    opens_block = opens;
                    comment_above = None;
                    run_columns = Default::default();
                }
                LineShape::DocumentMarker => {
                    levels.clear();
                    opens_block = false;
                    comment_above = None;
                    run_columns = Default::default();
                }
                LineShape::Blank => {
                    comment_above = None;
                    run_columns = Default::default();
                }
                LineShape::Other => {}
                LineShape::Comment if continues_trailing[line] => {}
                LineShape::Comment => {
                    let column = comment_at(line).unwrap_or(0);
                    let next = next_indent[line] as usize;
                    let previous = levels.last().copied().unwrap_or(0);
                    // In a run, an open block's level may follow only outwards (a
                    // comment at column 0 closes the blocks deeper than it), and
                    // commented-out content only inwards.
                    let outwards = comment_above.is_none_or(|above| column <= above);
                    let inwards = comment_above.is_none_or(|above| column >= above);
                    let allowed = column == next
                        || run_columns.contains(&column)
                        || (outwards && column >= next && levels.contains(&column))
                        || (inwards && opens_block && column > previous && next <= previous)
                        || directive_next_to(context, line, column);
                    if !allowed {
                        let comment = &context.comments[comment_index[line] as usize];
                        let expected = if previous > next && comment_above.is_none() {
                            format!("column {} or {}", next + 1, previous + 1)
                        } else {
                            format!("column {}", next + 1)
                        };
                        // The fix moves the comment to the next content line's column,
                        // with the comment lines directly below it at the same column
                        // (a run written at the wrong column moves as one).
                        let mut edits = Vec::new();
                        let mut below = line;
                        while below < line_count
                            && (below == line
                                || (comment_at(below) == Some(column)
                                    && !continues_trailing[below]))
                        {
                            let start = context.source.content_start(below);
                            edits.push(Edit::replace(start..start + column, " ".repeat(next)));
                            below += 1;
                        }
                        reporter
                            .report(
                                comment.span.start..comment.span.start + 1,
                                format!(
                                    "comment not indented like the content around it: column {}, expected {expected}",
                                    column + 1
                                ),
                            )
                            .with_help("indent the comment like the key it documents")
                            .with_fix(Fix::safe(edits));
                    }
                    // The next comment of the run may line up with this one.
                    comment_above = Some(column);
                    run_columns.insert(column);
                }
            }
        }
    }
}

/// Whether the comment run that holds `line` sits directly above or below a template
/// line indented like it: such a comment documents that template logic.
fn directive_next_to(context: &FileContext, line: usize, column: usize) -> bool {
    let is_comment = |line: usize| context.line_text(line).trim_start().starts_with('#');
    let directive_at = |line: usize| {
        let text = context.line_text(line);
        context.directive_lines.get(line).copied().unwrap_or(false)
            && text.len() - text.trim_start().len() == column
    };
    let below = (line + 1..context.source.line_count()).find(|&next| !is_comment(next));
    let above = (0..line).rev().find(|&previous| !is_comment(previous));
    below.is_some_and(directive_at) || above.is_some_and(directive_at)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineShape {
    Blank,
    DocumentMarker,
    /// A `#` comment alone on its line.
    Comment,
    /// YAML content: its indentation, and whether it ends with a key that has no
    /// value, or an empty one, on the line (`resources:`, `env: {}`).
    /// `inner` is the column of the key after a sequence item's dashes
    /// (`- name: x`), else `indent`.
    /// Columns as `u32` (a file is at most 16 MiB): a file may hold millions of
    /// lines, each with a shape.
    Content {
        indent: u32,
        opens: bool,
        inner: u32,
    },
    /// Template lines and block scalar text: neither content nor comment.
    Other,
}

fn line_shape(context: &FileContext, line: usize, is_comment: bool) -> LineShape {
    if is_comment {
        return LineShape::Comment;
    }
    if context.directive_lines.get(line).copied().unwrap_or(false)
        || context
            .block_scalar_lines
            .get(line)
            .copied()
            .unwrap_or(false)
    {
        return LineShape::Other;
    }
    if line >= context.source.line_count() {
        return LineShape::Blank;
    }
    let range = context.source.line_range(line);
    let text = &context.masked[range];
    let text = if line == 0 {
        text.trim_start_matches('\u{feff}')
    } else {
        text
    };
    let indent = count_spaces(text.as_bytes());
    let trimmed = &text[indent..];
    if trimmed.trim().is_empty() {
        return LineShape::Blank;
    }
    if trimmed.starts_with("---") || trimmed.starts_with("...") {
        return LineShape::DocumentMarker;
    }
    if trimmed.starts_with('#') {
        // A `#` line the scanner did not take for a comment (inside a multi-line
        // scalar): text.
        return LineShape::Other;
    }
    let code = code_before_comment(trimmed).trim_end();
    let mut inner = indent;
    let mut rest = trimmed;
    while let Some(after) = rest.strip_prefix("- ") {
        let spaces = count_spaces(after.as_bytes());
        inner += 2 + spaces;
        rest = &after[spaces..];
    }
    if rest.is_empty() {
        inner = indent;
    }
    LineShape::Content {
        indent: u32::try_from(indent).unwrap_or(u32::MAX),
        inner: u32::try_from(inner).unwrap_or(u32::MAX),
        opens: code.ends_with(':') || EMPTY_VALUES.iter().any(|empty| code.ends_with(empty)),
    }
}

/// The ends of a line whose key has an empty value: the key opens a block as much as
/// one with no value does.
const EMPTY_VALUES: [&str; 8] = [
    ": {}", ": { }", ": []", ": [ ]", ": ~", ": null", ": \"\"", ": ''",
];
