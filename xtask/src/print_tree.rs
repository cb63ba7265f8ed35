//! `cargo xtask print-tree FILE`: the masked text and the tree-sitter tree of each
//! document, for rule authors.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use tether::template::{lex::lex, mask::mask};
use tether::yaml::parse::{parse_tree, MAX_DOCUMENT_LINES};
use tether::SourceFile;
use tree_sitter::Node;

use crate::bench::DocumentInput;

pub fn print_tree(file: &Path) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let (source, problems) = SourceFile::from_bytes(file, bytes);
    for problem in &problems {
        eprintln!("line {}: {}", problem.line + 1, problem.message);
    }
    let is_template = tether::is_template_path(file);
    let (actions, masked) = if is_template {
        let (actions, errors) = lex(&source.text);
        for error in &errors {
            let line = source.line_of(error.offset) + 1;
            eprintln!("line {line}: {}", error.message);
        }
        let masked = mask(&source.text, &actions).text;
        (actions, masked)
    } else {
        (Vec::new(), source.text.clone())
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
    let documents = crate::bench::documents(&source, &masked, is_template, &actions);
    for (index, DocumentInput { segment, bytes }) in documents.into_iter().enumerate() {
        let lines = &segment.lines;
        write!(
            out,
            "=== document {index}, lines {}-{}",
            lines.start + 1,
            lines.end
        )?;
        match &segment.define {
            Some(name) => writeln!(out, ", define {name:?}")?,
            None => out.push('\n'),
        }
        if lines.len() > MAX_DOCUMENT_LINES {
            out.push_str("(too long for tree-sitter-yaml; tether recovers it from indentation)\n");
            continue;
        }
        match parse_tree(&masked[bytes]) {
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
