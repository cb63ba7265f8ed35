//! `cargo xtask print-tree FILE`: the masked text and the tree-sitter tree of each
//! document, for rule authors.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use tether::yaml::parse::{parse_tree, split_documents};
use tether::SourceFile;
use tree_sitter::Node;

pub fn print_tree(file: &Path) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let (source, problems) = SourceFile::from_bytes(file, bytes);
    for problem in &problems {
        eprintln!("line {}: {}", problem.line + 1, problem.message);
    }
    let is_template = tether::is_template_path(file);
    let masked = if is_template {
        let (actions, errors) = tether::template::lex::lex(&source.text);
        for error in &errors {
            eprintln!(
                "line {}: {}",
                source.line_of(error.offset) + 1,
                error.message
            );
        }
        tether::template::mask::mask(&source.text, &actions).text
    } else {
        source.text.clone()
    };

    let mut out = String::new();
    let kind = if is_template {
        "template, masked"
    } else {
        "plain YAML"
    };
    writeln!(out, "=== {} ({kind})", file.display())?;
    // Numbered, so the tree's `line:column` ranges can be looked up.
    for (number, line) in masked.lines().enumerate() {
        writeln!(out, "{:>5} | {}", number + 1, line.trim_end())?;
    }
    let line_starts = crate::bench::line_starts(&masked);
    for (index, lines) in split_documents(&masked, &line_starts, source.bom_len)
        .into_iter()
        .enumerate()
    {
        let range = crate::bench::document_bytes(&masked, &line_starts, source.bom_len, &lines);
        writeln!(
            out,
            "=== document {index}, lines {}-{}",
            lines.start + 1,
            lines.end
        )?;
        match parse_tree(&masked[range]) {
            Some(tree) => write_sexp(&mut out, tree.root_node(), None, 0, lines.start)?,
            None => out.push_str("(tree-sitter returned no tree)\n"),
        }
    }
    print!("{out}");
    Ok(())
}

/// `to_sexp`, one named node a line, indented, with 1-based `line:column` ranges in
/// the file (tree rows are relative to the document, hence `line_offset`).
fn write_sexp(
    out: &mut String,
    node: Node,
    field: Option<&str>,
    depth: usize,
    line_offset: usize,
) -> std::fmt::Result {
    let (start, end) = (node.start_position(), node.end_position());
    write!(out, "{:indent$}", "", indent = depth * 2)?;
    if let Some(field) = field {
        write!(out, "{field}: ")?;
    }
    if node.is_missing() {
        write!(out, "(MISSING {:?}", node.kind())?;
    } else {
        write!(
            out,
            "({}",
            if node.is_error() {
                "ERROR"
            } else {
                node.kind()
            }
        )?;
    }
    write!(
        out,
        " [{}:{}-{}:{}]",
        start.row + line_offset + 1,
        start.column + 1,
        end.row + line_offset + 1,
        end.column + 1
    )?;
    let mut cursor = node.walk();
    let mut children = Vec::new();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            // Like `to_sexp`: anonymous tokens are left out unless missing.
            if child.is_named() || child.is_missing() {
                children.push((child, cursor.field_name()));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    if children.is_empty() {
        return out.write_str(")\n");
    }
    out.push('\n');
    for (child, field) in children {
        write_sexp(out, child, field, depth + 1, line_offset)?;
    }
    // Lisp style: the closing parenthesis ends the last child's line.
    out.pop();
    out.write_str(")\n")
}
