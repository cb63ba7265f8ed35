//! `cargo xtask print-tree FILE`: the masked text and the tree-sitter tree of each
//! document, for rule authors.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use tree_sitter::Node;

pub fn print_tree(file: &Path) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let view = helm_tether::internals::yaml_view(file, bytes);
    for problem in &view.problems {
        eprintln!("line {}: {}", problem.line + 1, problem.message);
    }
    let masked = &view.text;
    let mut out = String::new();
    let kind = if view.is_template {
        "template, masked"
    } else {
        "plain YAML"
    };
    writeln!(out, "=== {} ({kind})", file.display())?;
    // Numbered, so the tree's `line:column` ranges can be looked up.
    for (number, line) in masked.lines().enumerate() {
        writeln!(out, "{:>5} | {}", number + 1, line.trim_end())?;
    }
    for (index, document) in view.documents.iter().enumerate() {
        let lines = &document.lines;
        write!(
            out,
            "=== document {index}, lines {}-{}",
            lines.start + 1,
            lines.end
        )?;
        match &document.define {
            Some(name) => writeln!(out, ", define {name:?}")?,
            None => out.push('\n'),
        }
        if document.too_long {
            out.push_str("(too long for tree-sitter-yaml; tether recovers it from indentation)\n");
            continue;
        }
        match crate::bench::parse_tree(&masked[document.bytes.clone()]) {
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
