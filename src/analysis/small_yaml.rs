//! Small YAML files of strangers (yamllint and chart-testing configurations,
//! `Chart.yaml`), read with yaml-rust2's event parser into a tree of scalars,
//! sequences and mappings with their lines: bounded in bytes, nodes (aliases expanded
//! by copy are counted) and depth, so no file can exhaust memory or the stack.

use std::path::Path;

use crate::error::ConfigError;

/// No such file needs more; a bigger file is refused, not read.
const MAX_BYTES: usize = 256 * 1024;
/// YAML nodes one file may make once aliases are expanded.
const MAX_NODES: usize = 100_000;
/// Collections nested deeper than this are refused: the tree is walked and dropped
/// recursively, and no configuration nests more than a few levels.
const MAX_DEPTH: usize = 64;

/// A scalar of a yamllint configuration, resolved as PyYAML's `safe_load` does for
/// the types yamllint's options take.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
}

impl Scalar {
    /// The scalar as text, as Helm reads `version: 1` or `name: true`; `None` for
    /// a null.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Scalar::Null => None,
            Scalar::Bool(value) => Some(value.to_string()),
            Scalar::Int(value) => Some(value.to_string()),
            Scalar::Str(value) => Some(value.clone()),
        }
    }

    /// A plain scalar's value; `text` is kept, not copied, when it is a string.
    fn plain(text: String) -> Scalar {
        match text.as_str() {
            "" | "~" | "null" | "Null" | "NULL" => Scalar::Null,
            "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                Scalar::Bool(true)
            }
            "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                Scalar::Bool(false)
            }
            number => match number.parse::<i64>() {
                Ok(value) => Scalar::Int(value),
                Err(_) => Scalar::Str(text),
            },
        }
    }
}

/// A node of a yamllint configuration, with its 1-based line.
#[derive(Debug, Clone)]
pub struct Node {
    pub value: Value,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub enum Value {
    Scalar(Scalar),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| matches!(&k.value, Value::Scalar(Scalar::Str(s)) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar(Scalar::Str(s)) => Some(s),
            _ => None,
        }
    }
}

/// Builds [`Node`]s from yaml-rust2's events: anchors expanded by copy, the total
/// bounded, so `&a [*b, *b, …]` chains cannot exhaust memory.
struct Loader {
    stack: Vec<(Node, Option<Node>, usize)>,
    anchors: crate::collections::HashMap<usize, Node>,
    document: Option<Node>,
    nodes: usize,
    error: Option<(usize, String)>,
    max_nodes: usize,
    max_depth: usize,
}

impl Loader {
    fn new(max_nodes: usize, max_depth: usize) -> Loader {
        Loader {
            stack: Vec::new(),
            anchors: crate::collections::HashMap::default(),
            document: None,
            nodes: 0,
            error: None,
            max_nodes,
            max_depth,
        }
    }

    fn add(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => {
                if self.document.is_none() {
                    self.document = Some(node);
                }
            }
            Some((parent, pending_key, _)) => match &mut parent.value {
                Value::Seq(items) => items.push(node),
                Value::Map(entries) => match pending_key.take() {
                    Some(key) => entries.push((key, node)),
                    None => *pending_key = Some(node),
                },
                Value::Scalar(_) => {}
            },
        }
    }

    fn size(node: &Node) -> usize {
        match &node.value {
            Value::Scalar(_) => 1,
            Value::Seq(items) => 1 + items.iter().map(Loader::size).sum::<usize>(),
            Value::Map(entries) => {
                1 + entries
                    .iter()
                    .map(|(k, v)| Loader::size(k) + Loader::size(v))
                    .sum::<usize>()
            }
        }
    }
}

impl yaml_rust2::parser::MarkedEventReceiver for Loader {
    fn on_event(&mut self, event: yaml_rust2::Event, mark: yaml_rust2::scanner::Marker) {
        use yaml_rust2::Event;
        use yaml_rust2::scanner::TScalarStyle;
        if self.error.is_some() {
            return;
        }
        let line = mark.line();
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            self.error = Some((
                line,
                format!(
                    "more than {} YAML nodes once aliases are expanded, tether's limit for one file",
                    self.max_nodes
                ),
            ));
            return;
        }
        if self.stack.len() >= self.max_depth
            && matches!(event, Event::SequenceStart(..) | Event::MappingStart(..))
        {
            self.error = Some((
                line,
                format!(
                    "nested deeper than {} levels, tether's limit for one file",
                    self.max_depth
                ),
            ));
            return;
        }
        match event {
            Event::Scalar(text, style, anchor, _) => {
                let scalar = if style == TScalarStyle::Plain {
                    Scalar::plain(text)
                } else {
                    Scalar::Str(text)
                };
                self.add(
                    Node {
                        value: Value::Scalar(scalar),
                        line,
                    },
                    anchor,
                );
            }
            Event::SequenceStart(anchor, _) => self.stack.push((
                Node {
                    value: Value::Seq(Vec::new()),
                    line,
                },
                None,
                anchor,
            )),
            Event::MappingStart(anchor, _) => self.stack.push((
                Node {
                    value: Value::Map(Vec::new()),
                    line,
                },
                None,
                anchor,
            )),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((node, _, anchor)) = self.stack.pop() {
                    self.add(node, anchor);
                }
            }
            Event::Alias(anchor) => match self.anchors.get(&anchor).cloned() {
                Some(node) => {
                    self.nodes += Loader::size(&node);
                    if self.nodes > self.max_nodes {
                        self.error = Some((
                            line,
                            format!(
                                "aliases expand to more than {} YAML nodes; no yamllint configuration needs that many",
                                self.max_nodes
                            ),
                        ));
                        return;
                    }
                    self.add(node, 0);
                }
                None => self.error = Some((line, "an alias to an unknown anchor".into())),
            },
            _ => {}
        }
    }
}

/// Reads a yamllint or chart-testing file into its first document.
/// Reads a small YAML file of a stranger (a yamllint, chart-testing or `Chart.yaml`
/// file) into its first document, bounded in size, nodes and depth.
pub fn load(path: &Path) -> Result<(Node, u64), ConfigError> {
    let bytes =
        crate::source::read_regular(path, MAX_BYTES).map_err(|error| ConfigError::Unreadable {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
    let invalid = |line: usize, column: usize, message: String| ConfigError::Invalid {
        path: path.display().to_string(),
        line: line.max(1),
        column: column.max(1),
        message,
    };
    if bytes.len() > MAX_BYTES {
        return Err(invalid(
            1,
            1,
            format!(
                "larger than {} KiB, which no yamllint configuration needs; is this the right file?",
                MAX_BYTES / 1024
            ),
        ));
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let text = String::from_utf8(bytes)
        .map_err(|error| invalid(1, 1, format!("not UTF-8 ({error}); save it as UTF-8")))?;
    let mut loader = Loader::new(MAX_NODES, MAX_DEPTH);
    let parsed = yaml_rust2::parser::Parser::new_from_str(&text).load(&mut loader, false);
    // What the loader refused came first in the file: the parser stopped after it.
    if let Some((line, message)) = loader.error {
        return Err(invalid(line, 1, message));
    }
    parsed.map_err(|error| {
        invalid(
            error.marker().line(),
            error.marker().col() + 1,
            format!("not valid YAML: {}; fix it, or point tether at another file with `yamllint-config`", error.info()),
        )
    })?;
    let document = loader.document.unwrap_or(Node {
        value: Value::Scalar(Scalar::Null),
        line: 1,
    });
    Ok((document, hash))
}

/// Reads YAML text (a chart's `values.yaml`) into its first document with the given
/// bounds; the error is the line and why.
///
/// Helm reads YAML with go-yaml, which ignores indentation inside a flow collection,
/// as PyYAML does: `args: [` … `]` with the `]` at the key's column loads there,
/// while YAML 1.2 (and yaml-rust2) refuse it. A text the strict parser refuses is
/// read again with those lines indented past the line the collection opened on
/// ([`flow_lines_indented`]): whitespace is not content in a flow collection, so the
/// data is what go-yaml reads.
pub fn parse_bounded(
    text: &str,
    max_nodes: usize,
    max_depth: usize,
) -> Result<Node, (usize, String)> {
    parse_counted(text, max_nodes, max_depth).map(|(node, _)| node)
}

/// [`parse_bounded`], with the nodes the document made (events, and aliases
/// expanded): a parse bounded by fewer nodes succeeds exactly when these are no
/// more than its bound.
pub fn parse_counted(
    text: &str,
    max_nodes: usize,
    max_depth: usize,
) -> Result<(Node, usize), (usize, String)> {
    let strict = parse_strict(text, max_nodes, max_depth);
    match strict {
        Err(_) => match flow_lines_indented(text) {
            Some(lenient) => parse_strict(&lenient, max_nodes, max_depth).or(strict),
            None => strict,
        },
        parsed => parsed,
    }
}

/// `text` with every line that starts inside a flow collection (`[` … `]`,
/// `{` … `}`) indented past the line the outermost collection opened on; `None`
/// when no line needs it. Quotes and comments are followed, so a `[` in a quoted or
/// plain scalar or a comment opens nothing.
fn flow_lines_indented(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut changed = false;
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut opened_at = 0usize;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let continues = depth > 0 || quote.is_some();
        if continues && indent <= opened_at && !line.trim().is_empty() {
            // Bounded per input byte: a hostile file opening a collection after a
            // megabyte of spaces must not pad every line below by as much.
            if out.len() + opened_at + 1 - indent > 2 * text.len() + 4096 {
                return None;
            }
            out.extend(std::iter::repeat_n(' ', opened_at + 1 - indent));
            changed = true;
        }
        out.push_str(line);
        // Where a node may start: the line's start, or after `:`, `-`, `,`, `[`, `{`
        // and the spaces that follow them.
        let mut at_node_start = true;
        let mut previous = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match quote {
                Some('"') => match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => quote = None,
                    _ => {}
                },
                Some(_) => {
                    if c == '\'' {
                        if chars.peek() == Some(&'\'') {
                            chars.next();
                        } else {
                            quote = None;
                        }
                    }
                }
                None => match c {
                    '#' if previous == ' ' || previous == '\t' => break,
                    '"' | '\'' if at_node_start => quote = Some(c),
                    '[' | '{' if depth > 0 || at_node_start => {
                        if depth == 0 {
                            opened_at = indent;
                        }
                        depth += 1;
                    }
                    ']' | '}' if depth > 0 => depth -= 1,
                    _ => {}
                },
            }
            at_node_start = match c {
                ' ' | '\t' => at_node_start,
                ':' | '-' | ',' | '[' | '{' => true,
                _ => false,
            };
            previous = c;
        }
    }
    changed.then_some(out)
}

fn parse_strict(
    text: &str,
    max_nodes: usize,
    max_depth: usize,
) -> Result<(Node, usize), (usize, String)> {
    let mut loader = Loader::new(max_nodes, max_depth);
    let parsed = yaml_rust2::parser::Parser::new_from_str(text).load(&mut loader, false);
    if let Some(error) = loader.error {
        return Err(error);
    }
    parsed.map_err(|error| (error.marker().line(), error.info().to_string()))?;
    let document = loader.document.unwrap_or(Node {
        value: Value::Scalar(Scalar::Null),
        line: 1,
    });
    Ok((document, loader.nodes))
}

#[cfg(test)]
mod tests {
    use super::{Scalar, Value, flow_lines_indented, parse_bounded};

    #[test]
    fn a_flow_collection_closed_at_its_keys_column_reads_as_helm_reads_it() {
        let text = "args: [\n  \"--a\",\n  \"--b\"\n]\nnested:\n  c: {\n  x: 1\n  }\nother: 1\n";
        let node = parse_bounded(text, 100, 8).expect("go-yaml reads it");
        let Some(Value::Seq(args)) = node.get("args").map(|n| &n.value) else {
            panic!("args is a sequence: {node:?}");
        };
        assert_eq!(args.len(), 2);
        let c = node
            .get("nested")
            .and_then(|n| n.get("c"))
            .expect("nested.c");
        assert_eq!(c.get("x").map(|n| n.line), Some(7));
        assert!(matches!(
            node.get("other").map(|n| &n.value),
            Some(Value::Scalar(Scalar::Int(1)))
        ));
    }

    #[test]
    fn brackets_in_scalars_and_comments_open_nothing() {
        for text in [
            "key: a[0]\nnext: 1\n",
            "# see [the docs\nkey: 1\n",
            "key: \"[not a list\"\nnext: 1\n",
            "key: it's [x\nnext: 1\n",
            "list: [a, b]\nnext: 1\n",
        ] {
            assert_eq!(flow_lines_indented(text), None, "{text}");
        }
    }

    #[test]
    fn padding_is_bounded_by_the_input() {
        // A collection opened after 100,000 spaces, then 100,000 lines at column 0:
        // padded in full that is 10^10 bytes; the reading gives up instead.
        let mut text = " ".repeat(100_000) + "- [\n";
        text.push_str(&"1,\n".repeat(100_000));
        text.push_str("]\n");
        assert_eq!(flow_lines_indented(&text), None);
        assert!(parse_bounded(&text, 1_000_000, 8).is_err());
    }

    #[test]
    fn what_go_yaml_refuses_too_stays_an_error_at_its_line() {
        let error = parse_bounded("a: [\n1,\nb: : :\n", 100, 8).expect_err("broken");
        assert!(error.0 >= 1, "{error:?}");
    }
}
