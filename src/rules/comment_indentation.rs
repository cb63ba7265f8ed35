//! `comment-indentation`: comment lines indented like the content around them.

use super::rule::{
    CommentInfo, FileContext, NoOptions, Reporter, Rule, YamllintMapping, declare_rule,
};
use crate::diagnostic::{Edit, Fix};
use crate::lines::{code_before_comment, count_spaces};
use crate::yaml::directives::is_ytt_annotation;
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
    /// chart-testing's `lint-conf`; <https://cozystack.github.io/tether/configuration.html#next-to-yamllint-and-chart-testing>), and
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
        yamllint: &YAMLLINT,
        options: NoOptions,
    }
}

/// yamllint's `comments-indentation` rule, which has no options.
static YAMLLINT: YamllintMapping = YamllintMapping {
    rule: "comments-indentation",
    options: &[],
};

impl Rule for CommentIndentation {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        let line_count = context
            .directive_lines
            .len()
            .max(context.source.line_count());
        // Lines below the last comment alone on its line are never reported: the
        // shapes go down to the first content line below it, whose indentation that
        // comment is compared with. Most files (templates) have no such comment.
        let Some(last) = context
            .comments
            .iter()
            .filter(|comment| comment.style == CommentStyle::Yaml && comment.own_line)
            .map(|comment| comment.line)
            .filter(|&line| line < line_count)
            .max()
        else {
            return;
        };
        let comments = CommentLines::new(context.comments, line_count);
        let mut shape: Vec<LineShape> = (0..=last)
            .map(|line| line_shape(context, line, comments.column(line).is_some()))
            .collect();
        for line in last + 1..line_count {
            let below = line_shape(context, line, comments.column(line).is_some());
            shape.push(below);
            if matches!(below, LineShape::Content { .. } | LineShape::DocumentMarker) {
                break;
            }
        }
        let next_indent = next_indents(&shape);
        let mut open = OpenBlocks::default();
        for line in 0..shape.len() {
            match shape[line] {
                LineShape::Content {
                    indent,
                    opens,
                    inner,
                } => open.content(indent as usize, inner as usize, opens),
                LineShape::DocumentMarker => open.document_marker(),
                LineShape::Blank => open.blank(),
                LineShape::Other => {}
                LineShape::Comment if comments.continues_trailing[line] => {}
                // ytt's annotations are code at the column ytt reads them at.
                LineShape::Comment
                    if is_ytt_annotation(&context.source.text[comments.on(line).span.clone()]) => {}
                LineShape::Comment => {
                    let column = comments.column(line).unwrap_or(0);
                    let next = next_indent[line] as usize;
                    if !open.allows(column, next) && !directive_next_to(context, line, column) {
                        let comment = comments.on(line);
                        reporter
                            .report(
                                comment.span.start..comment.span.start + 1,
                                format!(
                                    "comment not indented like the content around it: column {}, expected {}",
                                    column + 1,
                                    open.expected(next)
                                ),
                            )
                            .with_help("indent the comment like the key it documents")
                            .with_fix(
                                Fix::safe(comments.fix(context, line, column, next))
                                    .moving_comments(),
                            );
                    }
                    // The next comment of the run may line up with this one.
                    open.comment(column);
                }
            }
        }
    }
}

/// The comments alone on their lines, by line.
struct CommentLines<'a> {
    comments: &'a [CommentInfo],
    /// Per line (a few bytes each: a file may hold millions of lines): the index of
    /// the comment alone on it, if any (`NONE` else).
    index: Vec<u32>,
    /// Lines that continue a trailing comment: comment lines right below a line
    /// with an inline comment, their `#` under its `#`.
    continues_trailing: Vec<bool>,
}

impl<'a> CommentLines<'a> {
    /// No comment on the line.
    const NONE: u32 = u32::MAX;

    /// Indexes the YAML comments of a file of `line_count` lines.
    fn new(comments: &'a [CommentInfo], line_count: usize) -> Self {
        let mut index: Vec<u32> = vec![Self::NONE; line_count];
        let mut continues_trailing = vec![false; line_count];
        let mut trailing_indent: Vec<Option<u32>> = vec![None; line_count];
        for (position, comment) in comments.iter().enumerate() {
            if comment.style != CommentStyle::Yaml || comment.line >= line_count {
                continue;
            }
            if comment.own_line {
                index[comment.line] = u32::try_from(position).unwrap_or(Self::NONE);
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
        CommentLines {
            comments,
            index,
            continues_trailing,
        }
    }

    /// The column of the comment alone on `line`, if any.
    fn column(&self, line: usize) -> Option<usize> {
        let index = *self.index.get(line)?;
        (index != Self::NONE).then(|| self.comments[index as usize].column)
    }

    /// The comment alone on `line`, which has one.
    fn on(&self, line: usize) -> &'a CommentInfo {
        &self.comments[self.index[line] as usize]
    }

    /// The fix of the comment on `line` at `column`: it moves to `next`, the next
    /// content line's column, with the comment lines directly below it at the same
    /// column (a run written at the wrong column moves as one).
    fn fix(&self, context: &FileContext, line: usize, column: usize, next: usize) -> Vec<Edit> {
        let mut edits = Vec::new();
        let mut below = line;
        while below < self.index.len()
            && (below == line
                || (self.column(below) == Some(column) && !self.continues_trailing[below]))
        {
            let start = context.source.content_start(below);
            edits.push(Edit::replace(start..start + column, " ".repeat(next)));
            below += 1;
        }
        edits
    }
}

/// Per line: the indentation of the next content line below it, 0 at a document's
/// end.
fn next_indents(shape: &[LineShape]) -> Vec<u32> {
    let mut next_indent: Vec<u32> = vec![0; shape.len()];
    let mut next = 0;
    for line in (0..shape.len()).rev() {
        next_indent[line] = u32::try_from(next).unwrap_or(u32::MAX);
        match shape[line] {
            LineShape::Content { indent, .. } => next = indent as usize,
            LineShape::DocumentMarker => next = 0,
            _ => {}
        }
    }
    next_indent
}

/// What a comment line's indentation is compared with: the blocks still open above
/// it, and the run of comment lines it is in.
#[derive(Default)]
struct OpenBlocks {
    /// The columns of the open blocks, outermost first.
    levels: Vec<usize>,
    /// The last content line ends with a key with no value, or an empty one.
    opens_block: bool,
    /// The column of the comment line directly above, in the run.
    comment_above: Option<usize>,
    /// The columns of the comment lines of the current run, so a line may come
    /// back to a column the run used (a deeper example line inside a run does not
    /// make the next line wrong).
    /// A set: a run of thousands of lines at a few columns must not compare each
    /// line with every line above it.
    run_columns: crate::collections::HashSet<usize>,
}

impl OpenBlocks {
    /// A content line at `indent` (its key after the dashes of items at `inner`)
    /// closes the blocks deeper than it and opens its own; it ends the run.
    fn content(&mut self, indent: usize, inner: usize, opens: bool) {
        let levels = &mut self.levels;
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
        self.opens_block = opens;
        self.comment_above = None;
        self.run_columns = Default::default();
    }

    /// A document marker closes every block and ends the run.
    fn document_marker(&mut self) {
        self.levels.clear();
        self.opens_block = false;
        self.comment_above = None;
        self.run_columns = Default::default();
    }

    /// A blank line ends the run.
    fn blank(&mut self) {
        self.comment_above = None;
        self.run_columns = Default::default();
    }

    /// Whether a comment line may sit at `column` when the next content line is at
    /// `next`: like it, like a line of its run, like an open block, or deeper than
    /// the content above as its commented-out content.
    fn allows(&self, column: usize, next: usize) -> bool {
        let previous = self.previous();
        // In a run, an open block's level may follow only outwards (a
        // comment at column 0 closes the blocks deeper than it), and
        // commented-out content only inwards.
        let outwards = self.comment_above.is_none_or(|above| column <= above);
        let inwards = self.comment_above.is_none_or(|above| column >= above);
        column == next
            || self.run_columns.contains(&column)
            || (outwards && column >= next && self.levels.contains(&column))
            || (inwards && self.opens_block && column > previous && next <= previous)
    }

    /// The columns a misplaced comment line is told to use, 1-based.
    fn expected(&self, next: usize) -> String {
        let previous = self.previous();
        if previous > next && self.comment_above.is_none() {
            format!("column {} or {}", next + 1, previous + 1)
        } else {
            format!("column {}", next + 1)
        }
    }

    /// The innermost open block's column, 0 when none is open.
    fn previous(&self) -> usize {
        self.levels.last().copied().unwrap_or(0)
    }

    /// A comment line at `column`: the next line of the run may line up with it.
    fn comment(&mut self, column: usize) {
        self.comment_above = Some(column);
        self.run_columns.insert(column);
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
