//! Tests of the reads of `.Values`: scopes and keys, the forms of a read, calls
//! of named templates, values passed whole, bounds.

use super::*;

fn paths(text: &str) -> Vec<(String, Use, bool)> {
    let (actions, _) = super::super::lex::lex(text);
    reads(text, &actions)
        .reads
        .into_iter()
        .map(|read| (read.path.join("."), read.use_, read.plain))
        .collect()
}

#[test]
fn scopes_and_keys_are_followed() {
    let text = "{{ .Values.a.b }}\n{{- with .Values.devices }}{{ .x | quote }}{{ toYaml . }}{{ end }}\n{{ $v := .Values.img }}{{ $v.tag }}\n{{ index .Values \"c\" \"d\" }}{{ dig \"e\" \"f\" 1 .Values }}\n{{ if .Values.on }}{{ $.Values.g }}{{ end }}{{ range .Values.list }}{{ .name }}{{ end }}";
    assert_eq!(
        paths(text),
        vec![
            ("a.b".into(), Use::Whole, true),
            ("devices".into(), Use::Touch, false),
            ("devices.x".into(), Use::Whole, true),
            ("devices".into(), Use::Whole, true),
            ("img".into(), Use::Touch, false),
            ("img.tag".into(), Use::Whole, true),
            ("c.d".into(), Use::Whole, true),
            ("e.f".into(), Use::Whole, false),
            ("on".into(), Use::Touch, false),
            ("g".into(), Use::Whole, true),
            ("list".into(), Use::Whole, false),
        ]
    );
}

/// Nesting and guards are bounded: 5,000 nested `if`s each testing a value, then
/// 5,000 printed reads, keep at most `MAX_GUARDS` guards per read.
#[test]
fn deep_nesting_keeps_guards_bounded() {
    let depth = 5_000;
    let mut text = String::new();
    for index in 0..depth {
        text.push_str(&format!("{{{{ if .Values.g{index} }}}}"));
    }
    for index in 0..depth {
        text.push_str(&format!("{{{{ .Values.r{index} }}}}"));
    }
    text.push_str(&"{{ end }}".repeat(depth));
    let (actions, _) = super::super::lex::lex(&text);
    let found = reads(&text, &actions);
    let kept: usize = found.reads.iter().map(|read| read.guards.len()).sum();
    assert!(kept <= MAX_GUARDS * found.reads.len());
    assert!(
        found
            .reads
            .iter()
            .filter(|read| read.path[0].starts_with('r'))
            .all(|read| !read.plain)
    );
}

/// The read forms of Helm charts, each followed as Helm evaluates it.
#[test]
fn read_forms_are_followed() {
    let text = concat!(
        "{{ if (.Values.gateway).enabled }}{{ end }}",
        "{{ range $port := .Values.ports }}{{ $port.containerPort }}{{ end }}",
        "{{ range $k, $v := .Values.env }}{{ $v.value }}{{ end }}",
        "{{ $x := .Values.a }}{{ if .Values.on }}{{ $x = .Values.b }}{{ end }}{{ $x.c }}",
        "{{ pluck \"key\" .Values.p .Values.q }}",
        "{{ $user := deepCopy (omit .Values \"common\") }}{{ $_ := set . \"Values\" (deepCopy $user) }}",
    );
    let (actions, _) = super::super::lex::lex(text);
    let found = reads(text, &actions);
    let paths: Vec<String> = found.reads.iter().map(|read| read.path.join(".")).collect();
    assert!(paths.contains(&"gateway.enabled".to_string()), "{paths:?}");
    assert!(
        !paths.iter().any(|path| path.starts_with("ports.")),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|path| path.starts_with("env.")),
        "{paths:?}"
    );
    assert!(paths.contains(&"b.c".to_string()), "{paths:?}");
    assert!(paths.contains(&"p.key".to_string()) && paths.contains(&"q.key".to_string()));
    assert!(
        found.opaque.is_none(),
        "a copy of .Values bound and set back is no opaque use"
    );
    assert_eq!(found.sets_values, [None]);
}

/// Calls of named templates, with whether they hand on the root context.
#[test]
fn calls_say_whether_they_carry_the_root() {
    let text = concat!(
        "{{ define \"a\" }}{{ include \"b\" . }}{{ end }}",
        "{{ include \"c\" (dict \"context\" $ \"key\" \"auth.password\") }}",
        "{{ template \"d\" .Values.x }}",
        "{{ with .Values.y }}{{ include \"e\" . }}{{ end }}",
    );
    let (actions, _) = super::super::lex::lex(text);
    let found = reads(text, &actions);
    let calls: Vec<(&str, Option<u32>, bool)> = found
        .includes
        .iter()
        .map(|call| (call.name.as_str(), call.define, call.root))
        .collect();
    assert_eq!(
        calls,
        [
            ("b", Some(0), true),
            ("c", None, true),
            ("d", None, false),
            ("e", None, false)
        ]
    );
    assert_eq!(found.defines, ["a"]);
    assert_eq!(
        found.includes[1].literals,
        ["context", "key", "auth.password"]
    );
    // Each call with how it is made and where its name is spelled.
    let spelled: Vec<(Call, &str)> = found
        .includes
        .iter()
        .map(|call| (call.call, &text[call.span.clone()]))
        .collect();
    assert_eq!(
        spelled,
        [
            (Call::Include, "\"b\""),
            (Call::Include, "\"c\""),
            (Call::Template, "\"d\""),
            (Call::Include, "\"e\"")
        ]
    );
    // A name computed at render time is no call of a named template.
    let text = "{{ include (printf \"%s.x\" .Chart.Name) . }}{{ block \"f\" . }}{{ end }}";
    let (actions, _) = super::super::lex::lex(text);
    let found = reads(text, &actions);
    let calls: Vec<(&str, Call)> = found
        .includes
        .iter()
        .map(|call| (call.name.as_str(), call.call))
        .collect();
    assert_eq!(calls, [("f", Call::Block)]);
}

#[test]
fn values_passed_whole_are_opaque() {
    let text = "{{ include \"x\" (dict \"v\" .Values) }}";
    let (actions, _) = super::super::lex::lex(text);
    assert!(reads(text, &actions).opaque.is_some());
    let text = "{{ index .Values $key }}";
    let (actions, _) = super::super::lex::lex(text);
    assert!(reads(text, &actions).opaque.is_some());
}
