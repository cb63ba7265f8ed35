//! Completion in a template: the keys of the values a `.Values.` path reaches (the
//! chart's own, its parents' overrides and `global`, a dependency's, or for a
//! library the including charts'), the built-in objects and their fields, the
//! named templates an `include "` or `template "` may call, the `$variables` in
//! scope, and the functions and keywords an action may start with. Lists are
//! short to build; what costs a read of another file (a key's documentation, a
//! define's first lines, a function's summary) is filled in on
//! `completionItem/resolve`.

use std::ops::Range;
use std::sync::Arc;

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionOptions, CompletionParams, CompletionResponse,
    CompletionTextEdit, Documentation, MarkupContent, MarkupKind, TextEdit,
};
use serde_json::json;

use super::documents::LineIndex;
use super::findings::{Failure, request_path};
use super::world::Batch;
use crate::analysis::charts::{Chart, Keys};
use crate::template::functions::{self, Origin};

/// What the server offers: completion on `.`, `$` and `"`, resolved lazily.
pub(crate) fn options() -> CompletionOptions {
    CompletionOptions {
        trigger_characters: Some(vec![".".into(), "$".into(), "\"".into()]),
        resolve_provider: Some(true),
        ..CompletionOptions::default()
    }
}

/// What the cursor completes.
#[derive(Debug, PartialEq, Eq)]
enum Context {
    /// A key of the values under `prefix` (`.Values.image.` is `["image"]`).
    Value { prefix: Vec<String> },
    /// A field of the built-in object `object` (`[]`: the objects after a `.`).
    Builtin { object: Vec<String> },
    /// A named template's name, in the quotes of an `include` or `template`.
    Define,
    /// A `$variable`.
    Variable,
    /// A function; a keyword too when `first` (the action's first word).
    Function { first: bool },
}

/// Where the cursor is and what it completes.
#[derive(Debug, PartialEq, Eq)]
struct At {
    context: Context,
    /// What is typed of the name: the bytes an item replaces.
    typed: Range<usize>,
    /// Where the path being typed starts (`.Values.a.b`): a key that is no Go
    /// identifier replaces the whole path with an `index` call.
    path_start: usize,
}

/// `textDocument/completion`.
pub(crate) fn completion(
    batch: &Batch,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>, Failure> {
    let position = params.text_document_position;
    let Some(path) = request_path(batch, &position.text_document.uri)? else {
        return Ok(None);
    };
    let Ok(file) = batch.file(&path) else {
        return Ok(None);
    };
    let Some(chart) = batch.chart_of(&path) else {
        return Ok(None);
    };
    let index = LineIndex::new(&file.text);
    let offset = index.offset(position.position);
    let Some(at) = context_at(&file.text, offset) else {
        return Ok(None);
    };
    let uri = position.text_document.uri.as_str();
    let items = match &at.context {
        Context::Value { prefix } => value_items(batch, &chart, prefix, &at, &file.text),
        Context::Builtin { object } => builtin_items(batch, &chart, object),
        Context::Define => define_items(&chart),
        Context::Variable => variable_items(&file.text, offset),
        Context::Function { first } => function_items(*first),
    };
    let range = index.range(&at.typed);
    let items = items
        .into_iter()
        .map(|mut item| {
            if item.text_edit.is_none() {
                let new_text = item
                    .insert_text
                    .take()
                    .unwrap_or_else(|| item.label.clone());
                item.text_edit = Some(CompletionTextEdit::Edit(TextEdit { range, new_text }));
            } else if let Some(CompletionTextEdit::Edit(edit)) = &mut item.text_edit {
                edit.range = index.range(&(at.path_start..at.typed.end));
            }
            if let Some(data) = item.data.as_mut().and_then(|data| data.as_object_mut()) {
                data.insert("uri".into(), json!(uri));
            }
            item
        })
        .collect();
    Ok(Some(CompletionResponse::Array(items)))
}

/// `completionItem/resolve`: the item with its documentation.
pub(crate) fn resolve(batch: &Batch, mut item: CompletionItem) -> Result<CompletionItem, Failure> {
    let Some(data) = item.data.clone() else {
        return Ok(item);
    };
    let markdown = if let Some(name) = data["function"].as_str() {
        functions::lookup(name).map(functions::Function::markdown)
    } else {
        let chart = data["uri"]
            .as_str()
            .and_then(|uri| uri.parse::<lsp_types::Uri>().ok())
            .and_then(|uri| request_path(batch, &uri).ok().flatten())
            .and_then(|path| batch.chart_of(&path));
        chart.and_then(|chart| {
            if let Some(path) = data["value"].as_array() {
                let path: Vec<String> = path
                    .iter()
                    .filter_map(|segment| segment.as_str().map(str::to_string))
                    .collect();
                super::hover::read_markdown(batch, &chart, &path)
            } else {
                let name = data["define"].as_str()?;
                super::hover::define_markdown(batch, &chart, name)
            }
        })
    };
    if let Some(value) = markdown {
        item.documentation = Some(markdown_documentation(value));
    }
    Ok(item)
}

/// What the cursor at `offset` of a template's `text` completes, if it is in an
/// action.
fn context_at(text: &str, offset: usize) -> Option<At> {
    let before = text.get(..offset)?;
    let open = before.rfind("{{")?;
    if before[open..].contains("}}") {
        return None;
    }
    let mut body_start = open + 2;
    if before[body_start..].starts_with('-') {
        body_start += 1;
    }
    let body = &before[body_start..];
    if body.trim_start().starts_with("/*") || body.matches('`').count() % 2 == 1 {
        return None;
    }
    if let Some(quote) = open_quote(body) {
        let head = body[..quote].trim_end();
        let calls = ["include", "template"].iter().any(|keyword| {
            head.strip_suffix(keyword).is_some_and(|rest| {
                rest.is_empty() || rest.ends_with(|c: char| c.is_whitespace() || c == '(')
            })
        });
        let start = body_start + quote + 1;
        return calls.then_some(At {
            context: Context::Define,
            typed: start..offset,
            path_start: start,
        });
    }
    let word_length = body
        .bytes()
        .rev()
        .take_while(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'$'))
        .count();
    let word_start = offset - word_length;
    let word = &before[word_start..];
    let ahead = &before[body_start..word_start];
    if let Some(path) = word.strip_prefix("$.") {
        return path_context(path, word_start, offset);
    }
    if word.starts_with('$') {
        return (!word.contains('.')).then_some(At {
            context: Context::Variable,
            typed: word_start..offset,
            path_start: word_start,
        });
    }
    if let Some(path) = word.strip_prefix('.') {
        if ahead.ends_with(')') {
            return group_context(ahead, body_start, path, offset);
        }
        return path_context(path, word_start, offset);
    }
    let follows_a_separator =
        ahead.is_empty() || ahead.ends_with(|c: char| c.is_whitespace() || c == '(' || c == '|');
    if word.contains('.') || !follows_a_separator || word.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    Some(At {
        context: Context::Function {
            first: ahead.trim().is_empty(),
        },
        typed: word_start..offset,
        path_start: word_start,
    })
}

/// The byte of `body` where a string that is still open at its end starts.
fn open_quote(body: &str) -> Option<usize> {
    let mut open = None;
    let mut escaped = false;
    for (at, character) in body.char_indices() {
        match character {
            '\\' if open.is_some() => {
                escaped = !escaped;
                continue;
            }
            '"' if !escaped => open = if open.is_some() { None } else { Some(at) },
            _ => {}
        }
        escaped = false;
    }
    open
}

/// What a path after `.` or `$.` completes: `path` is what follows the dot
/// (`Values.image.ta`), and starts at byte `start` (its dot) of the text.
fn path_context(path: &str, start: usize, offset: usize) -> Option<At> {
    let segments: Vec<String> = path.split('.').map(str::to_string).collect();
    let (typed, before) = segments.split_last()?;
    let context = match before.split_first() {
        Some((first, rest)) if first == "Values" => Context::Value {
            prefix: rest.to_vec(),
        },
        _ => Context::Builtin {
            object: before.to_vec(),
        },
    };
    Some(At {
        context,
        typed: offset - typed.len()..offset,
        path_start: start,
    })
}

/// What `(.Values.a).b` completes: the group closing at the end of `ahead` (the
/// action's text before the word, starting at byte `body_start`) must be a path of
/// `.Values`, and `path` follows it.
fn group_context(ahead: &str, body_start: usize, path: &str, offset: usize) -> Option<At> {
    let mut depth = 0usize;
    let mut open = None;
    for (at, byte) in ahead.bytes().enumerate().rev() {
        match byte {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(at);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let inner = ahead[open + 1..ahead.len() - 1].trim();
    let inner = inner.strip_prefix('$').unwrap_or(inner);
    let read = inner.strip_prefix(".Values")?;
    if !read
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.'))
    {
        return None;
    }
    let mut prefix: Vec<String> = read
        .split('.')
        .filter(|segment| !segment.is_empty())
        .map(str::to_string)
        .collect();
    let mut segments: Vec<&str> = path.split('.').collect();
    let typed = segments.pop().unwrap_or_default();
    prefix.extend(segments.into_iter().map(str::to_string));
    Some(At {
        context: Context::Value { prefix },
        typed: offset - typed.len()..offset,
        path_start: body_start + open,
    })
}

/// Whether `name` may follow a `.` in a template (else `index` reaches it).
fn is_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

/// The keys under `prefix` in the values a template of `chart` reads: the keys of
/// the values that win first (a parent's override), then the chart's own in file
/// order, then those only a dependency or an including chart has.
fn value_items(
    batch: &Batch,
    chart: &Arc<Chart>,
    prefix: &[String],
    at: &At,
    text: &str,
) -> Vec<CompletionItem> {
    let mut sources: Vec<(Arc<Chart>, Vec<String>)> = chart.overriding_sources(prefix);
    sources.push((chart.clone(), prefix.to_vec()));
    if let Some((first, rest)) = prefix.split_first() {
        if let Some(dependency) = chart.dependency_keyed(first) {
            sources.push((dependency, rest.to_vec()));
        }
    }
    if chart.library {
        for includer in super::graph::including_charts(batch, chart) {
            sources.push((includer, prefix.to_vec()));
        }
    }
    let mut items: Vec<CompletionItem> = Vec::new();
    for (source, spelled) in &sources {
        let Some(keys) = source.values().at(spelled) else {
            continue;
        };
        for (name, line, under) in keys.entries_in_file_order() {
            if items.iter().any(|item| item.label == *name) {
                continue;
            }
            let values = source.root.join("values.yaml");
            let mut path = prefix.to_vec();
            path.push(name.clone());
            let mut item = key_item(name, path, at, text);
            item.kind = Some(match under {
                Keys::Map(_) => CompletionItemKind::MODULE,
                Keys::Open => CompletionItemKind::FIELD,
            });
            item.detail = Some(format!(
                "{}:{}",
                super::hover::shown_path(&values, &source.root),
                line
            ));
            item.sort_text = Some(format!("{:04}", items.len()));
            items.push(item);
        }
    }
    push_other_files_keys(batch, chart, prefix, at, text, &mut items);
    if prefix.is_empty() && !items.iter().any(|item| item.label == "global") {
        // Helm copies a parent's `global` into every subchart's values.
        let global = ["global".to_string()];
        if let Some((parent, line)) =
            chart
                .overriding_sources(&global)
                .into_iter()
                .find_map(|(parent, spelled)| {
                    let line = parent
                        .values()
                        .entries_in_file_order()
                        .into_iter()
                        .find(|(name, _, _)| *name == spelled[0])
                        .map(|(_, line, _)| *line)?;
                    Some((parent, line))
                })
        {
            items.push(CompletionItem {
                label: "global".into(),
                kind: Some(CompletionItemKind::MODULE),
                detail: Some(format!(
                    "{}:{}",
                    super::hover::shown_path(&parent.root.join("values.yaml"), &parent.root),
                    line
                )),
                sort_text: Some(format!("{:04}", items.len())),
                data: Some(json!({ "value": global })),
                ..CompletionItem::default()
            });
        }
    }
    items
}

/// The keys under `prefix` only another values file of the chart sets
/// (`values-prod.yaml`), after `items`.
fn push_other_files_keys(
    batch: &Batch,
    chart: &Chart,
    prefix: &[String],
    at: &At,
    text: &str,
    items: &mut Vec<CompletionItem>,
) {
    for other in batch.snapshot.settings.other_values_files(&chart.root) {
        let Some(file) = super::graph::model_of(batch, &other) else {
            continue;
        };
        for (_, key) in file.model.keys() {
            let segments = super::graph::segments(&key.path);
            let Some((name, above)) = segments.split_last() else {
                continue;
            };
            if above != prefix || items.iter().any(|item| item.label == *name) {
                continue;
            }
            let mut path = prefix.to_vec();
            path.push(name.clone());
            let mut item = key_item(name, path, at, text);
            item.detail = Some(format!(
                "{}:{}",
                super::hover::shown_path(&other, &chart.root),
                key.line + 1
            ));
            item.sort_text = Some(format!("{:04}", items.len()));
            items.push(item);
        }
    }
}

/// The item of the values key `name` at `path`: a key that is no identifier is
/// reached by `index`, replacing the path typed.
fn key_item(name: &str, path: Vec<String>, at: &At, text: &str) -> CompletionItem {
    let mut item = CompletionItem {
        label: name.to_string(),
        kind: Some(CompletionItemKind::FIELD),
        data: Some(json!({ "value": path })),
        ..CompletionItem::default()
    };
    if !is_identifier(name) {
        let whole = &text[at.path_start..at.typed.start];
        let base = whole.trim_end_matches('.');
        let new_text = format!("(index {base} {})", quoted(name));
        item.filter_text = Some(format!("{whole}{name}"));
        item.text_edit = Some(CompletionTextEdit::Edit(TextEdit {
            range: lsp_types::Range::default(),
            new_text,
        }));
    }
    item
}

/// `name` as a Go string literal.
fn quoted(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_else(|_| format!("\"{name}\""))
}

/// The fields of the built-in `object`, each with what it holds (for `.Chart`,
/// its line of `Chart.yaml`).
fn builtin_items(batch: &Batch, chart: &Chart, object: &[String]) -> Vec<CompletionItem> {
    let chart_yaml = batch.file(&chart.root.join("Chart.yaml")).ok();
    let chart_yaml = chart_yaml.as_ref().map(|file| &*file.text);
    super::builtins::fields_of(object)
        .into_iter()
        .enumerate()
        .map(|(rank, (name, path))| CompletionItem {
            label: name,
            kind: Some(CompletionItemKind::PROPERTY),
            sort_text: Some(format!("{rank:04}")),
            documentation: Some(markdown_documentation(super::builtins::hover(
                &path, chart_yaml,
            ))),
            ..CompletionItem::default()
        })
        .collect()
}

/// The named templates a template of `chart` may call: the chart's own first.
fn define_items(chart: &Chart) -> Vec<CompletionItem> {
    let own = chart.define_names();
    let index = chart.define_index();
    let mut names: Vec<&str> = index.names().collect();
    names.sort_unstable();
    names
        .into_iter()
        .map(|name| CompletionItem {
            label: name.to_string(),
            kind: Some(CompletionItemKind::MODULE),
            detail: Some("named template".into()),
            sort_text: Some(format!(
                "{}{name}",
                if own.iter().any(|mine| mine == name) {
                    0
                } else {
                    1
                }
            )),
            data: Some(json!({ "define": name })),
            ..CompletionItem::default()
        })
        .collect()
}

/// The variables in scope at `offset`, the nearest declaration first.
fn variable_items(text: &str, offset: usize) -> Vec<CompletionItem> {
    let (actions, _) = crate::template::lex::lex(text);
    let mut items = vec![CompletionItem {
        label: "$".into(),
        kind: Some(CompletionItemKind::VARIABLE),
        detail: Some(
            "the data the template was given: the top scope, or what a define was passed".into(),
        ),
        sort_text: Some("9999".into()),
        ..CompletionItem::default()
    }];
    for (rank, variable) in crate::template::scope::in_scope_at(text, &actions, offset)
        .into_iter()
        .enumerate()
    {
        let declared: String = text[variable.declared.clone()].chars().take(80).collect();
        items.push(CompletionItem {
            label: variable.name,
            kind: Some(CompletionItemKind::VARIABLE),
            detail: Some(declared),
            sort_text: Some(format!("{rank:04}")),
            ..CompletionItem::default()
        });
    }
    items
}

/// The keywords an action may start with.
const KEYWORDS: &[&str] = &[
    "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue",
];

/// Every function a template may call, Helm's first; the keywords too when the
/// word starts the action.
fn function_items(first: bool) -> Vec<CompletionItem> {
    let keywords = KEYWORDS
        .iter()
        .filter(|_| first)
        .map(|keyword| CompletionItem {
            label: (*keyword).to_string(),
            kind: Some(CompletionItemKind::KEYWORD),
            sort_text: Some(format!("0{keyword}")),
            ..CompletionItem::default()
        });
    let functions = functions::FUNCTIONS.iter().map(|function| {
        let rank = match function.origin {
            Origin::Helm | Origin::HelmSince(_) => 1,
            Origin::Go => 2,
            Origin::Sprig => 3,
        };
        CompletionItem {
            label: function.name.to_string(),
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some(function.signature.to_string()),
            sort_text: Some(format!("{rank}{}", function.name)),
            data: Some(json!({ "function": function.name })),
            ..CompletionItem::default()
        }
    });
    keywords.chain(functions).collect()
}

fn markdown_documentation(value: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Option<(Context, String)> {
        let offset = text.find('@').unwrap();
        let clean = text.replacen('@', "", 1);
        context_at(&clean, offset).map(|at| (at.context, clean[at.typed].to_string()))
    }

    fn value(prefix: &[&str]) -> Context {
        Context::Value {
            prefix: prefix.iter().map(|segment| segment.to_string()).collect(),
        }
    }

    #[test]
    fn the_cursor_completes_what_it_follows() {
        assert_eq!(at("{{ .Values.@ }}"), Some((value(&[]), String::new())));
        assert_eq!(
            at("{{ .Values.image.ta@ }}"),
            Some((value(&["image"]), "ta".into()))
        );
        assert_eq!(at("{{- $.Values.a.@"), Some((value(&["a"]), String::new())));
        assert_eq!(
            at("{{ (.Values.image).t@ }}"),
            Some((value(&["image"]), "t".into()))
        );
        assert_eq!(
            at("{{ .Cha@ }}"),
            Some((Context::Builtin { object: vec![] }, "Cha".into()))
        );
        assert_eq!(
            at("{{ .Chart.@ }}"),
            Some((
                Context::Builtin {
                    object: vec!["Chart".into()]
                },
                String::new()
            ))
        );
        assert_eq!(
            at("{{ include \"common.@ }}"),
            Some((Context::Define, "common.".into()))
        );
        assert_eq!(at("{{ $na@ }}"), Some((Context::Variable, "$na".into())));
        assert_eq!(
            at("{{ tr@ }}"),
            Some((Context::Function { first: true }, "tr".into()))
        );
        assert_eq!(
            at("{{ .Values.a | tr@ }}"),
            Some((Context::Function { first: false }, "tr".into()))
        );
        // Outside an action, in a comment, in another string: nothing.
        assert_eq!(at("name: .Values.@"), None);
        assert_eq!(at("{{ .Values.a }} .Values.@"), None);
        assert_eq!(at("{{/* .Values.@ */}}"), None);
        assert_eq!(at("{{ printf \"%s.@\" }}"), None);
        assert_eq!(at("{{ $var.field.@ }}"), None);
    }

    #[test]
    fn keys_that_are_no_identifier_are_reached_by_index() {
        assert!(is_identifier("replicaCount"));
        assert!(is_identifier("_private"));
        assert!(!is_identifier("my-key"));
        assert!(!is_identifier("1st"));
        assert_eq!(quoted("my-key"), "\"my-key\"");
    }
}
