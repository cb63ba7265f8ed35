//! Properties of the parts that see hostile input: the lexer, the masker, anchoring,
//! and the fixer, which never changes what a template renders.

use helm_tether::internals::{fix_text, lex, mask, render_trimmed};
use proptest::prelude::*;

/// Lines that look like Helm templates, with the hard parts over-represented.
fn template_line() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("key: value".to_string()),
        Just("key:".to_string()),
        Just("- item".to_string()),
        Just("- name: x".to_string()),
        Just("# a comment".to_string()),
        Just("key: value  # trailing".to_string()),
        Just("{{- if .Values.x }}".to_string()),
        Just("{{- else }}".to_string()),
        Just("{{- end }}".to_string()),
        Just("{{- with .Values.y }}".to_string()),
        Just("{{- range .Values.z }}".to_string()),
        Just("{{- $v := .Values.v }}".to_string()),
        Just("{{- /* a template comment */}}".to_string()),
        Just("{{/* multi\nline */}}".to_string()),
        Just("{{- include \"x\" . | nindent 4 }}".to_string()),
        Just("labels: {{ toYaml .Values.l | nindent 4 }}".to_string()),
        Just("name: {{ .Release.Name }}-cm".to_string()),
        Just("{{ .Values.k }}: {{ .Values.v | quote }}".to_string()),
        Just("text: {{ \"}}\" }} and {{ `raw }}` }}".to_string()),
        Just("script: |".to_string()),
        Just("flow: {a: 1{{ if .x }}, b: 2{{ end }}}".to_string()),
        Just("---".to_string()),
        Just("{{ unterminated".to_string()),
        Just("{{/* unterminated".to_string()),
        Just("\tkey: tab".to_string()),
        Just("ключ: значение # комментарий".to_string()),
        "[ -~]{0,20}".prop_map(|s| s),
        "[{}\"`#:\\- ]{0,12}".prop_map(|s| s),
    ];
    (0usize..8, fragment, any::<bool>()).prop_map(|(indent, fragment, crlf)| {
        let line = format!("{}{}", " ".repeat(indent), fragment);
        if crlf { format!("{line}\r") } else { line }
    })
}

/// 400 cases, or `PROPTEST_CASES` for a longer hunt.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(400)
}

fn template_text() -> impl Strategy<Value = String> {
    prop::collection::vec(template_line(), 0..40).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn lexer_spans_are_ordered_and_delimited(text in template_text()) {
        let (actions, errors) = lex(&text);
        let mut previous_end = 0;
        for action in &actions {
            prop_assert!(action.span.start >= previous_end);
            prop_assert!(text[action.span.clone()].starts_with("{{"));
            if action.terminated {
                prop_assert!(text[action.span.clone()].ends_with("}}"));
            }
            prop_assert!(action.body.start >= action.span.start && action.body.end <= action.span.end);
            previous_end = action.span.end;
        }
        prop_assert_eq!(errors.len(), actions.iter().filter(|a| !a.terminated).count());
    }

    #[test]
    fn masking_keeps_length_newlines_and_every_byte_outside_actions(text in template_text()) {
        let (actions, _) = lex(&text);
        let masked = mask(&text, &actions);
        let original = text.as_bytes();
        let output = masked.text.as_bytes();
        prop_assert_eq!(output.len(), original.len());
        let mut inside = vec![false; original.len()];
        for action in &actions {
            for slot in &mut inside[action.span.clone()] {
                *slot = true;
            }
        }
        let mut line = 0;
        for (position, (&before, &after)) in original.iter().zip(output).enumerate() {
            prop_assert_eq!(before == b'\n', after == b'\n', "newline moved at {}", position);
            prop_assert_eq!(before == b'\r', after == b'\r', "carriage return moved at {}", position);
            if !inside[position] && before != after {
                let whitespace_on_directive_line = masked.directive_lines[line]
                    && (before == b' ' || before == b'\t')
                    && (after == b' ' || after == b'_');
                prop_assert!(
                    whitespace_on_directive_line,
                    "byte {} changed outside an action: {:?} -> {:?}", position, before as char, after as char
                );
            }
            if before == b'\n' {
                line += 1;
            }
        }
    }

    #[test]
    fn anchoring_hands_out_every_comment_exactly_once(text in template_text()) {
        let model = helm_tether::FileModel::from_bytes("templates/t.yaml", text.clone().into_bytes());
        let mut spans = Vec::new();
        for document in &model.documents {
            for key in &document.keys {
                for attached in &key.comments {
                    spans.extend(attached.comment.spans.iter().cloned());
                }
            }
            for detached in &document.detached {
                spans.extend(detached.comment.spans.iter().cloned());
            }
            for comment in &document.free {
                spans.extend(comment.spans.iter().cloned());
            }
        }
        let count = spans.len();
        spans.sort_by_key(|span| (span.start, span.end));
        spans.dedup();
        prop_assert_eq!(spans.len(), count, "a comment was handed out twice");
        for span in &spans {
            let piece = &text[span.clone()];
            prop_assert!(piece.starts_with('#') || piece.starts_with("{{"), "not a comment: {:?}", piece);
        }
    }

    #[test]
    fn models_never_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = helm_tether::FileModel::from_bytes("templates/bytes.yaml", bytes.clone());
        let _ = helm_tether::FileModel::from_bytes("values.yaml", bytes);
    }

    #[test]
    fn fixes_keep_what_a_template_renders(text in trimmed_template_text()) {
        let path = std::path::Path::new("templates/x.yaml");
        // Unsafe fixes too: the guard holds whatever would change the rendered data.
        let Ok(fixed) = fix_text(fixing_config(), path, &text, true) else {
            return Ok(());
        };
        let rendered = |text: &str| {
            let (actions, _) = lex(text);
            let rendered = render_trimmed(text, &actions);
            yaml_rust2::YamlLoader::load_from_str(&rendered).ok()
        };
        if let Some(before) = rendered(&text) {
            prop_assert_eq!(Some(before), rendered(&fixed.text), "{:?} → {:?}", text, fixed.text);
        }
    }
}

/// Template lines where trim markers glue text to values and comments sit beside
/// them, with comments the fixable rules find.
fn trimmed_template_line() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("key: value".to_string()),
        Just("key: value #x".to_string()),
        Just("key:".to_string()),
        Just("- item #y".to_string()),
        Just("#comment".to_string()),
        Just("# comment".to_string()),
        Just("image: {{ .Values.image -}} #pinned".to_string()),
        Just("image: {{ .Values.image }} #pinned".to_string()),
        Just("{{- if .Values.x }}".to_string()),
        Just("{{- if .Values.x -}}".to_string()),
        Just("{{- end }}".to_string()),
        Just("{{- end -}}".to_string()),
        Just("{{ end -}}".to_string()),
        Just("{{- /* note */ -}}".to_string()),
        Just("name: {{ .Release.Name -}}".to_string()),
    ];
    (0usize..5, fragment)
        .prop_map(|(indent, fragment)| format!("{}{}", " ".repeat(indent), fragment))
}

fn trimmed_template_text() -> impl Strategy<Value = String> {
    prop::collection::vec(trimmed_template_line(), 0..16).prop_map(|lines| lines.join("\n") + "\n")
}

/// The rules that fix, each as a warning.
fn fixing_config() -> &'static helm_tether::Config {
    static CONFIG: std::sync::OnceLock<helm_tether::Config> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        helm_tether::Config::from_toml_in(
            "[rules]\ncomment-starting-space = \"warn\"\ninline-comment-spacing = \"warn\"\ncomment-indentation = \"warn\"\n",
            std::path::PathBuf::from("/nonexistent"),
        )
        .expect("a valid configuration")
    })
}
