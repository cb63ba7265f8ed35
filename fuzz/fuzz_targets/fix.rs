//! Fuzz target: `--fix` (with `--unsafe-fixes`) never changes what a file means.
//! Every fixable rule is on; whatever the fixer returns for a file, read again, is
//! the same data: for a plain YAML file as yaml-rust2's loader builds it (a parser
//! the fixer's own guard does not use); for a template, as its masked documents'
//! events (`helm_tether::internals::data_of`) and as yaml-rust2 loads the text it
//! renders with Go-template trim semantics (`render_trimmed`: `{{-`/`-}}` remove the
//! whitespace beside them, a printing action stands for one word). A file the fixer
//! refuses is left as it was.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use helm_tether::internals::{data_of, fix_text, lex, render_trimmed};
use helm_tether::Config;

fuzz_target!(|data: &[u8]| {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    let config = CONFIG.get_or_init(|| {
        let every_rule: String = helm_tether::RuleInfo::all()
            .iter()
            .filter(|rule| rule.name != "required-comment")
            .map(|rule| format!("{} = \"warn\"\n", rule.name))
            .collect();
        Config::from_toml_in(&format!("[rules]\n{every_rule}"), PathBuf::from("/tmp"))
            .expect("every rule as a warning is a valid configuration")
    });
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for path in ["values.yaml", "templates/x.yaml"] {
        let path = Path::new(path);
        let Ok(fixed) = fix_text(config, path, text, true) else {
            continue;
        };
        if fixed.text == text {
            continue;
        }
        if helm_tether::internals::is_template_path(path) {
            assert!(
                data_of(path, text) == data_of(path, &fixed.text),
                "--fix changed the data of a template:\n{text:?}\n→\n{:?}",
                fixed.text
            );
            let rendered = |text: &str| {
                let (actions, _) = lex(text);
                yaml_rust2::YamlLoader::load_from_str(&render_trimmed(text, &actions)).ok()
            };
            if let Some(before) = rendered(text) {
                assert_eq!(
                    Some(before),
                    rendered(&fixed.text),
                    "--fix changed what a template renders:\n{text:?}\n→\n{:?}",
                    fixed.text
                );
            }
        } else {
            // A byte-order mark at the start of a stream is no content (YAML 1.2,
            // 5.2; go-yaml and PyYAML skip it), but yaml-rust2 reads it as a
            // character, which would make a comment behind it text.
            let load = |text: &str| {
                let text = text.strip_prefix('\u{feff}').unwrap_or(text);
                yaml_rust2::YamlLoader::load_from_str(text).ok()
            };
            // Only YAML the loader reads has data to keep.
            if let Some(before) = load(text) {
                assert_eq!(
                    Some(before),
                    load(&fixed.text),
                    "--fix changed the data of a values file:\n{text:?}\n→\n{:?}",
                    fixed.text
                );
            }
        }
    }
});
