//! The documentation conventions of `values.yaml` that the value rules recognise:
//! helm-docs (`# -- text`, `# path -- text`), bitnami's readme-generator
//! (`## @param full.path [modifiers] text`, `@skip`, `@extra`, `@section`,
//! `@descriptionStart`/`@descriptionEnd`) and cozyvalues-gen
//! (`## @param {type} name=default - text`, with `@typedef`/`@field`/`@enum`).

use crate::collections::HashSet;
use std::ops::Range;

use super::rule::FileContext;
use crate::yaml::model::{CommentStyle, FileModel};

/// One annotation found in a comment line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Annotation {
    /// readme-generator `## @param full.path …`; `modifiers` when `[array]`,
    /// `[object]`, `[string]`, `[nullable]` or `[default: …]` follows the path, which
    /// documents everything under it.
    Param { path: String, modifiers: bool },
    /// cozyvalues-gen `## @param {type} name …`: `name` is a top-level key; an
    /// optional one (`[name]`) may be left out of the file on purpose.
    TypedParam { name: String, optional: bool },
    /// readme-generator `## @skip path`: the path and everything under it need no
    /// `@param`.
    Skip { path: String },
    /// readme-generator `## @extra path`: a parameter documented without a key.
    Extra { path: String },
    /// readme-generator `## @section`, `@descriptionStart`, `@descriptionEnd`: the
    /// README's structure, documenting no key.
    Section,
    /// helm-docs' older `# full.path -- text`.
    HelmDocsPath { path: String },
}

/// An annotation and where it is.
#[derive(Debug, Clone)]
pub struct Found {
    pub annotation: Annotation,
    pub span: Range<usize>,
}

/// Every annotation in the file's `#` comments.
pub fn annotations(context: &FileContext) -> Vec<Found> {
    context
        .comments
        .iter()
        .filter(|comment| comment.style == CommentStyle::Yaml)
        .filter_map(|comment| {
            let text = &context.source.text[comment.span.clone()];
            parse(text).map(|annotation| Found {
                annotation,
                span: comment.span.clone(),
            })
        })
        .collect()
}

/// Whether any comment line of the file is a documentation annotation (`@param`,
/// `@skip`, `@extra`, `# path -- text`) or a helm-docs description (`# --`): what
/// the rules that read annotations need a tree for. A `# ------` rule line is
/// neither.
pub fn has_annotations(context: &FileContext) -> bool {
    context.comments.iter().any(|comment| {
        let text = &context.source.text[comment.span.clone()];
        text.contains("@param")
            || text.contains("@skip")
            || text.contains("@extra")
            || text.contains("@section")
            || text.lines().any(|line| {
                let line = line.trim_start();
                crate::analysis::helm_docs::is_marker(line) || parse(line).is_some()
            })
    })
}

fn parse(comment: &str) -> Option<Annotation> {
    let body = comment.trim_start_matches('#').trim();
    if let Some(rest) = body.strip_prefix("@param") {
        let rest = rest.trim_start();
        if let Some(typed) = rest.strip_prefix('{') {
            let close = typed.find('}')?;
            let after = typed[close + 1..].trim_start();
            let optional = after.starts_with('[');
            let name: String = after
                .trim_start_matches('[')
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            return (!name.is_empty()).then_some(Annotation::TypedParam { name, optional });
        }
        let path = rest.split_whitespace().next()?;
        let modifiers = rest[path.len()..].trim_start().starts_with('[');
        return Some(Annotation::Param {
            path: path.to_string(),
            modifiers,
        });
    }
    if let Some(rest) = body.strip_prefix("@skip") {
        let path = rest.split_whitespace().next()?;
        return Some(Annotation::Skip {
            path: path.to_string(),
        });
    }
    if let Some(rest) = body.strip_prefix("@extra") {
        let path = rest.split_whitespace().next()?;
        return Some(Annotation::Extra {
            path: path.to_string(),
        });
    }
    for tag in ["@section", "@descriptionStart", "@descriptionEnd"] {
        if body.starts_with(tag) {
            return Some(Annotation::Section);
        }
    }
    // `# some.path -- text`: one token that reads as a dotted path, then ` -- `.
    if comment.starts_with('#') && !comment.starts_with("##") {
        let (path, _) = body.split_once(" -- ")?;
        let looks_like_path = path.contains('.')
            && !path.ends_with('.')
            && !path.starts_with('.')
            && !path.contains("..")
            && path
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'));
        if looks_like_path {
            return Some(Annotation::HelmDocsPath {
                path: path.to_string(),
            });
        }
    }
    None
}

/// A key path as the conventions write it: `a["b.c"][0]` becomes `a.b.c[0]`.
pub fn plain_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '[' && chars.peek() == Some(&'"') {
            chars.next();
            if !out.is_empty() {
                out.push('.');
            }
            while let Some(inner) = chars.next() {
                match inner {
                    '\\' => out.extend(chars.next()),
                    '"' => break,
                    other => out.push(other),
                }
            }
            if chars.peek() == Some(&']') {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Every key path of the model's documents, in plain form, and its top-level keys.
pub fn key_paths(model: &FileModel) -> (HashSet<String>, HashSet<String>) {
    let mut paths = HashSet::default();
    let mut top = HashSet::default();
    for (_, key) in model.keys() {
        let plain = plain_path(&key.path);
        if !plain.contains(['.', '[']) {
            top.insert(plain.clone());
        }
        paths.insert(plain);
    }
    (paths, top)
}

/// Whether a comment documents anything: some text beyond `#`s, a helm-docs `--`
/// marker and spaces. An empty `#` or `##` line, or a bare `# --`, documents nothing.
pub fn has_words(comment: &str) -> bool {
    comment.lines().any(|line| {
        !line
            .trim_matches(|c: char| c == '#' || c == '-' || c.is_whitespace())
            .is_empty()
    })
}

/// A value readme-generator wants a `## @param` for, and the line of its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// `a.b`, `list[0].name`: readme-generator's path (dot-object's flattening).
    pub path: String,
    /// 1-based line of the key (or item) in the file.
    pub line: usize,
}

/// The values readme-generator checks for metadata, as its `createValuesObject`
/// flattens the file: every scalar, empty map and empty list; a list of strings
/// only as a whole; the items of any other list one by one (`list[0].name`).
pub fn readme_leaves(node: &crate::analysis::small_yaml::Node) -> Vec<Leaf> {
    let mut out = Vec::new();
    flatten(node, String::new(), node.line, &mut out);
    out
}

fn flatten(
    node: &crate::analysis::small_yaml::Node,
    path: String,
    line: usize,
    out: &mut Vec<Leaf>,
) {
    use crate::analysis::small_yaml::{Scalar, Value};
    match &node.value {
        Value::Map(entries) if !entries.is_empty() => {
            for (key, value) in entries {
                let name = match &key.value {
                    Value::Scalar(scalar) => scalar.as_text().unwrap_or_else(|| "null".into()),
                    _ => continue,
                };
                let child = if path.is_empty() {
                    name
                } else {
                    format!("{path}.{name}")
                };
                flatten(value, child, key.line, out);
            }
        }
        Value::Seq(items)
            if !items.is_empty()
                && !items
                    .iter()
                    .all(|item| matches!(item.value, Value::Scalar(Scalar::Str(_)))) =>
        {
            for (index, item) in items.iter().enumerate() {
                flatten(item, format!("{path}[{index}]"), item.line, out);
            }
        }
        _ if path.is_empty() => {}
        _ => out.push(Leaf { path, line }),
    }
}

/// Whether `path` is `under` or below it, as readme-generator's `@skip` and
/// modifiers cover it.
pub fn is_under(path: &str, under: &str) -> bool {
    path.strip_prefix(under)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// Whether the text of a comment line (without `# `) is a commented-out key
/// (`targetPort: 80`, `resources:`) or item (`- name: x`) at the comment's own
/// indentation. Prose (`Note: see below`, `here: the operator owns it`) is not: keys
/// start lower-case and their value, if any, is one token.
pub fn is_commented_out_key(line: &str) -> bool {
    if line.starts_with([' ', '\t']) {
        return false;
    }
    let line = line.strip_prefix("- ").unwrap_or(line);
    let name_end = line
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
        .unwrap_or(line.len());
    let value = match line[name_end..].strip_prefix(':') {
        Some(value) if value.is_empty() || value.starts_with(' ') => value.trim(),
        _ => return false,
    };
    name_end > 0
        && line[..name_end]
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase())
        && !value.contains("://")
        && (value.is_empty()
            || !value.contains(char::is_whitespace)
            || value.starts_with(['"', '\'', '{', '[']))
}

/// What the conventions write about the key at `path` (a plain key path) anywhere
/// in a values file's `text`, with its 0-based line: a readme-generator
/// `## @param path text` or a helm-docs `# path -- text` naming it, else
/// cozyvalues-gen's `## @param {Type} name - text` for a top-level key and, below
/// it, the `## @field {Type} name - text` of the `## @typedef {struct} Type` block
/// its parent's type names (`map[string]T` stands for any key, `[]T` for an item).
pub fn documentation_of(text: &str, path: &str) -> Option<(usize, String)> {
    let mut named: Option<(usize, String)> = None;
    let mut params: crate::collections::HashMap<&str, (&str, usize, &str)> = Default::default();
    let mut fields: crate::collections::HashMap<(&str, &str), (&str, usize, &str)> =
        Default::default();
    let mut typedef: Option<&str> = None;
    for (line, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if !trimmed.starts_with('#') {
            typedef = None;
            continue;
        }
        let body = trimmed.trim_start_matches('#').trim();
        if let Some(rest) = body.strip_prefix("@typedef") {
            typedef = typed_entry(rest).map(|(_, name, _)| name);
        } else if let Some(rest) = body.strip_prefix("@field") {
            if let (Some(owner), Some((kind, name, doc))) = (typedef, typed_entry(rest)) {
                fields.insert((owner, name), (kind, line, doc));
            }
        } else if let Some(rest) = body.strip_prefix("@param") {
            typedef = None;
            if let Some((kind, name, doc)) = typed_entry(rest) {
                params.insert(name, (kind, line, doc));
            } else if let Some((written, doc)) = rest.trim().split_once(char::is_whitespace) {
                if plain_path(written) == path && named.is_none() {
                    named = Some((line, doc.trim().to_string()));
                }
            }
        } else if let Some((written, doc)) = body.split_once(" -- ") {
            if trimmed.starts_with('#') && !trimmed.starts_with("##") && written == path {
                named = named.or(Some((line, doc.trim().to_string())));
            }
        }
    }
    if named.is_some() {
        return named;
    }
    let mut segments = path.split('.');
    let (mut kind, mut line, mut doc) = *params.get(segments.next()?)?;
    for segment in segments {
        let (name, items) = match segment.find('[') {
            Some(at) => (&segment[..at], segment[at..].matches('[').count()),
            None => (segment, 0),
        };
        // A map's key stands for any name.
        if let Some(inner) = kind.strip_prefix("map[string]") {
            kind = inner;
            continue;
        }
        (kind, line, doc) = *fields.get(&(kind, name))?;
        for _ in 0..items {
            kind = kind.strip_prefix("[]")?;
        }
    }
    Some((line, doc.to_string()))
}

/// `{Type} name=default - text` or `{Type} [name] - text`: the type, the name and
/// the text.
fn typed_entry(rest: &str) -> Option<(&str, &str, &str)> {
    let rest = rest.trim_start().strip_prefix('{')?;
    let close = rest.find('}')?;
    let kind = rest[..close].trim();
    let after = rest[close + 1..].trim_start();
    let after = after.strip_prefix('[').unwrap_or(after);
    let end = after
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(after.len());
    let name = &after[..end];
    let doc = after[end..]
        .split_once(" - ")
        .map_or("", |(_, doc)| doc.trim());
    (!name.is_empty()).then_some((kind, name, doc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_conventions() {
        assert_eq!(
            parse("## @param image.tag Image tag"),
            Some(Annotation::Param {
                path: "image.tag".into(),
                modifiers: false
            })
        );
        assert_eq!(
            parse("## @param image.pullSecrets [array] Pull secrets"),
            Some(Annotation::Param {
                path: "image.pullSecrets".into(),
                modifiers: true
            })
        );
        assert_eq!(
            parse("## @skip image.digest"),
            Some(Annotation::Skip {
                path: "image.digest".into()
            })
        );
        assert_eq!(
            parse("## @section Common parameters"),
            Some(Annotation::Section)
        );
        assert_eq!(
            parse("## @param {ResourcesPreset} resourcesPreset=\"t1.micro\" - Preset"),
            Some(Annotation::TypedParam {
                name: "resourcesPreset".into(),
                optional: false
            })
        );
        assert_eq!(
            parse("## @param {Resources} [resources] - Explicit"),
            Some(Annotation::TypedParam {
                name: "resources".into(),
                optional: true
            })
        );
        assert_eq!(
            parse("# image.tag -- overrides the tag"),
            Some(Annotation::HelmDocsPath {
                path: "image.tag".into()
            })
        );
        assert_eq!(parse("# e.g. -- not a path"), None);
        let cozy = "## @typedef {struct} Resources - CPU and memory.\n## @field {quantity} [cpu] - CPU available.\n\n## @typedef {struct} Group - A group.\n## @field {Resources} [resources] - Its resources.\n## @field {[]string} roles - Its roles.\n\n## @param {map[string]Group} groups - The groups.\ngroups: {}\n## @param {Resources} [resources] - Explicit.\nresources: {}\n";
        assert_eq!(
            documentation_of(cozy, "groups.md0.resources.cpu"),
            Some((1, "CPU available.".into()))
        );
        assert_eq!(
            documentation_of(cozy, "groups.md0.roles[0]"),
            Some((5, "Its roles.".into()))
        );
        assert_eq!(
            documentation_of(cozy, "resources"),
            Some((9, "Explicit.".into()))
        );
        assert_eq!(documentation_of(cozy, "groups.md0.memory"), None);
        assert_eq!(
            documentation_of(
                "## @param image.tag The tag\nimage:\n  tag: 1\n",
                "image.tag"
            ),
            Some((0, "The tag".into()))
        );
        assert_eq!(
            documentation_of("# image.tag -- The tag\nimage:\n  tag: 1\n", "image.tag"),
            Some((0, "The tag".into()))
        );
        assert_eq!(parse("# -- a new-style description"), None);
        assert_eq!(plain_path("a[\"b.c\"][0].d"), "a.b.c[0].d");
        assert!(is_commented_out_key("targetPort: 80"));
        assert!(is_commented_out_key("- name: x"));
        assert!(!is_commented_out_key("  cpuAllocationRatio: 4"));
        assert!(!is_commented_out_key("Note: see below"));
        assert!(!is_commented_out_key(
            "here: the operator owns that DaemonSet"
        ));
        assert!(!is_commented_out_key("ref: https://kubernetes.io/docs/"));
    }
}
