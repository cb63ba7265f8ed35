//! Tests of the reads of `.Values`: scopes and keys, the forms of a read, calls
//! of named templates, values passed whole, bounds.

use super::*;

/// What `text` reads, lexed as the check lexes it.
fn reads_of(text: &str) -> Reads {
    let (actions, _) = super::super::lex::lex(text);
    reads(text, &actions)
}

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
    let found = reads_of(text);
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
        found.opaque_uses.is_empty(),
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
    let found = reads_of(text);
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
    let found = reads_of(text);
    let calls: Vec<(&str, Call)> = found
        .includes
        .iter()
        .map(|call| (call.name.as_str(), call.call))
        .collect();
    assert_eq!(calls, [("f", Call::Block)]);
}

#[test]
fn values_used_whole_or_by_a_computed_key_are_opaque() {
    let kinds = |text: &str| {
        let (actions, _) = super::super::lex::lex(text);
        let found = reads(text, &actions);
        found
            .opaque_uses
            .iter()
            .map(|used| used.kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds("{{ .Values | toYaml }}"), [Opacity::Whole]);
    assert_eq!(
        kinds("{{ $.Values | toJson | sha256sum }}"),
        [Opacity::Whole]
    );
    assert_eq!(kinds("{{ index .Values $key }}"), [Opacity::Computed]);
    // Handed to a named template, whole or in a `dict` or copy: followed there.
    assert_eq!(kinds("{{ include \"x\" (dict \"v\" .Values) }}"), []);
    assert_eq!(kinds("{{ include \"x\" .Values }}"), []);
    assert_eq!(kinds("{{ template \"x\" (deepCopy .Values) }}"), []);
    // Printed inside the argument, it is used whole all the same.
    assert_eq!(
        kinds("{{ include \"x\" (dict \"v\" (toYaml .Values)) }}"),
        [Opacity::Whole]
    );
}

#[test]
fn handed_values_are_followed() {
    let text = concat!(
        "{{ define \"a\" }}{{ .values.env.name }}{{ with .image }}{{ .tag }}{{ end }}",
        "{{ $ctx := .context }}{{ include \"b\" (dict \"root\" $ctx \"v\" .values.env) }}",
        "{{ $ctx.Values.direct }}{{ toYaml .extra }}{{ end }}",
        "{{ include \"a\" (dict \"values\" .Values \"context\" $ \"image\" .Values.server.image) }}",
        "{{ include \"c\" .Values.only }}",
    );
    let found = reads_of(text);
    let handed: Vec<(String, Use)> = found
        .handed
        .iter()
        .map(|read| (read.path.join("."), read.use_))
        .collect();
    assert_eq!(
        handed,
        [
            ("values.env.name".into(), Use::Whole),
            ("image".into(), Use::Touch),
            ("image.tag".into(), Use::Whole),
            ("context".into(), Use::Touch),
            ("extra".into(), Use::Whole),
        ]
    );
    let arguments: Vec<Arg> = found
        .includes
        .iter()
        .map(|call| call.argument.clone())
        .collect();
    let path = |text: &str| text.split('.').map(String::from).collect::<Vec<_>>();
    assert_eq!(
        arguments,
        [
            Arg::Dict(vec![
                ("root".into(), Arg::Param(path("context"))),
                ("v".into(), Arg::Param(path("values.env"))),
            ]),
            Arg::Dict(vec![
                ("values".into(), Arg::Values(Vec::new())),
                ("context".into(), Arg::Root),
                ("image".into(), Arg::Values(path("server.image"))),
            ]),
            Arg::Values(path("only")),
        ]
    );
    // The values handed are references at the call, read where the define reads
    // them; `.Values` through the define's context is read as before.
    let values: Vec<(String, Use)> = found
        .reads
        .iter()
        .map(|read| (read.path.join("."), read.use_))
        .collect();
    assert_eq!(
        values,
        [
            ("direct".into(), Use::Whole),
            ("server.image".into(), Use::Touch),
            ("only".into(), Use::Touch),
        ]
    );
}

#[test]
fn a_merge_reads_each_of_its_values() {
    let text =
        "{{ with (merge .Values.server.image .Values.global.image) }}{{ .registry }}{{ end }}";
    let found = reads_of(text);
    let paths: Vec<(String, bool)> = found
        .reads
        .iter()
        .filter(|read| read.use_ == Use::Whole)
        .map(|read| (read.path.join("."), read.plain))
        .collect();
    assert_eq!(
        paths,
        [
            ("global.image.registry".into(), false),
            ("server.image.registry".into(), false)
        ]
    );
}

#[test]
fn files_are_rendered_only_through_tpl() {
    let text = concat!(
        "{{ .Files.Get \"data.json\" | fromJson }}",
        "{{ tpl (.Files.Get \"conf.tpl\") . }}",
        "{{ $f := .Files.Get \"later.tpl\" }}{{ tpl $f . }}",
    );
    let found = reads_of(text);
    assert_eq!(found.files, ["data.json", "conf.tpl", "later.tpl"]);
    assert_eq!(found.rendered, ["conf.tpl", "later.tpl"]);
}
