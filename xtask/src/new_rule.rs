//! `cargo xtask new-rule NAME`: the files a new rule needs, so that adding one is
//! writing one file. It writes `src/rules/NAME.rs` (a `declare_rule!` with the four
//! documentation headings, a `check` that reports nothing yet), a fixture chart in
//! `tests/fixtures/rules/NAME/basic/`, the `mod` line in `src/rules/mod.rs`, the
//! rule's line in the registry's list (`src/rule_list.rs`) and the fixture's line in
//! `tests/it/rules.rs`. Then
//! `cargo test --test it rules::` shows the rule's first snapshot, and `cargo xtask
//! codegen` puts it in `docs/src/rules.md` and the schema.

use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

const TEMPLATE: &str = r#"//! `{name}`: {summary}

use super::rule::{declare_rule, FileContext, NoOptions, Reporter, Rule};

declare_rule! {
    /// ## What it does
    /// {summary}
    ///
    /// ## Why it matters
    /// Say what goes wrong for a chart maintainer when this is not reported.
    ///
    /// ## Example
    /// ```yaml
    /// # a values file or template this rule reports
    /// ```
    ///
    /// ## Instead
    /// ```yaml
    /// # the same, written so that the rule is satisfied
    /// ```
    pub struct {type_name} {
        name: "{name}",
        level: Warn,
        fix: No,
        options: NoOptions,
    }
}

impl Rule for {type_name} {
    fn check(&self, context: &FileContext, reporter: &mut Reporter) {
        // Report with `reporter.report(byte_range, message).with_help(…)`; the
        // comments are in `context.comments`, the text in `context.source`, the
        // parse tree (ask for it in `needs_model`) in `context.model`.
        let _ = (context, reporter);
    }
}
"#;

const FIXTURE: &str =
    "# The first case of {name}: write what it must report, and what it must not.\nreplicas: 2\n";

/// Writes the files of a new rule named `name` (kebab-case) under `root`; returns
/// the paths written or changed.
pub fn new_rule(root: &Path, name: &str) -> Result<Vec<PathBuf>> {
    ensure!(
        !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !name.ends_with('-')
            && !name.contains("--"),
        "a rule name is kebab-case, such as `stale-version-reference`; got `{name}`"
    );
    let module = name.replace('-', "_");
    let type_name: String = name
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    let rule_file = root.join("src/rules").join(format!("{module}.rs"));
    if rule_file.exists() {
        bail!("{} exists already", rule_file.display());
    }
    let registry_file = root.join("src/rules/mod.rs");
    let registry = std::fs::read_to_string(&registry_file)
        .with_context(|| format!("cannot read {}", registry_file.display()))?;
    let list_file = root.join("src/rule_list.rs");
    let list = std::fs::read_to_string(&list_file)
        .with_context(|| format!("cannot read {}", list_file.display()))?;
    let tests_file = root.join("tests/it/rules.rs");
    let tests = std::fs::read_to_string(&tests_file)
        .with_context(|| format!("cannot read {}", tests_file.display()))?;

    // `mod NAME;` among the rule modules, in order.
    let mod_line = format!("mod {module};");
    let mut lines: Vec<String> = registry.lines().map(str::to_string).collect();
    let mods: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| {
            (line.starts_with("mod ") || line.starts_with("pub mod "))
                && !line.contains("options")
                && !line.contains("rule;")
                && !line.contains(" id;")
                && !line.contains(" list;")
        })
        .map(|(index, _)| index)
        .collect();
    let (&first, &last) = mods
        .first()
        .zip(mods.last())
        .context("no `mod` lines in src/rules/mod.rs")?;
    let position = (first..=last)
        .find(|&index| {
            let existing = lines[index].trim_start_matches("pub ");
            existing > mod_line.as_str()
        })
        .unwrap_or(last + 1);
    lines.insert(position, mod_line);
    let registry = lines.join("\n") + "\n";
    // The list's line, at its end (before a rule that says it must stay last).
    let mut lines: Vec<String> = list.lines().map(str::to_string).collect();
    let open = lines
        .iter()
        .position(|line| line.trim_start().starts_with("$then!("))
        .context("no `$then!(` in src/rule_list.rs")?;
    let end = (open..lines.len())
        .find(|&index| lines[index].trim_start().starts_with(");"))
        .context("`$then!(` is not closed in src/rule_list.rs")?;
    let at = (open..end)
        .find(|&index| lines[index].trim_start().starts_with("// Last"))
        .unwrap_or(end);
    lines.insert(at, format!("            {module}::{type_name},"));
    let list = lines.join("\n") + "\n";

    // The fixture's test, at the end of `rule_fixtures!`.
    let marker = "rule_fixtures! {\n";
    let start = tests
        .find(marker)
        .context("no `rule_fixtures! {` in tests/it/rules.rs")?;
    let close = tests[start..]
        .find("\n}\n")
        .map(|offset| start + offset + 1)
        .context("`rule_fixtures! {` is not closed in tests/it/rules.rs")?;
    let tests = format!(
        "{}    {module}_basic => (\"{name}\", \"basic\"),\n{}",
        &tests[..close],
        &tests[close..]
    );

    let summary = "Reports … (say what, in one sentence).";
    let text = TEMPLATE
        .replace("{name}", name)
        .replace("{type_name}", &type_name)
        .replace("{summary}", summary);
    let fixture_dir = root.join("tests/fixtures/rules").join(name).join("basic");
    std::fs::create_dir_all(&fixture_dir)?;
    let fixture = fixture_dir.join("values.yaml");
    std::fs::write(&fixture, FIXTURE.replace("{name}", name))?;
    std::fs::write(&rule_file, text)?;
    std::fs::write(&registry_file, registry)?;
    std::fs::write(&list_file, list)?;
    std::fs::write(&tests_file, tests)?;
    Ok(vec![
        rule_file,
        fixture,
        registry_file,
        list_file,
        tests_file,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator on copies of the real registry and fixture list: the lines go
    /// where they belong, and a second run refuses to overwrite.
    #[test]
    fn writes_the_rule_its_fixture_and_both_registry_lines() {
        let project = crate::project_root();
        let root = tempfile::tempdir().unwrap();
        for file in ["src/rules/mod.rs", "src/rule_list.rs", "tests/it/rules.rs"] {
            let target = root.path().join(file);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(project.join(file), target).unwrap();
        }
        let written = new_rule(root.path(), "stale-widget").unwrap();
        assert_eq!(written.len(), 5);
        let registry = std::fs::read_to_string(root.path().join("src/rules/mod.rs")).unwrap();
        assert!(registry.contains("\nmod stale_widget;\n"), "{registry}");
        let list = std::fs::read_to_string(root.path().join("src/rule_list.rs")).unwrap();
        let register = &list[list.find("$then!(").unwrap()..];
        let line = register.find("stale_widget::StaleWidget,").unwrap();
        let close = register.find(");").unwrap();
        assert!(line < close, "{register}");
        let tests = std::fs::read_to_string(root.path().join("tests/it/rules.rs")).unwrap();
        assert!(tests.contains("    stale_widget_basic => (\"stale-widget\", \"basic\"),\n}\n"));
        let rule = std::fs::read_to_string(root.path().join("src/rules/stale_widget.rs")).unwrap();
        assert!(rule.contains("pub struct StaleWidget {\n        name: \"stale-widget\","));
        assert!(root
            .path()
            .join("tests/fixtures/rules/stale-widget/basic/values.yaml")
            .is_file());
        assert!(new_rule(root.path(), "stale-widget").is_err());
        assert!(new_rule(root.path(), "Stale_Widget").is_err());
    }
}
