//! One snapshot per (rule, fixture): `tether check --select RULE` on a small chart
//! in `tests/fixtures/rules/RULE/FIXTURE/`, rendered as a person sees it.

use std::path::{Path, PathBuf};

use helm_tether::{CheckOptions, Config, ConfigSource, Format, check_paths};

use crate::common;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

/// The human output of one rule (and `also`, the rules it needs beside it) on one
/// fixture folder, in lazy or full mode.
fn run(rule: &str, fixture: &str, also: &[&str], full: bool) -> String {
    let folder = fixtures().join(rule).join(fixture);
    let mut config = match Config::find(&folder).filter(|found| found.starts_with(&folder)) {
        Some(file) => Config::load(&file).expect("the fixture's tether.toml is valid"),
        None => Config::default_for(folder.clone()),
    };
    let selected: Vec<String> = std::iter::once(rule)
        .chain(also.iter().copied())
        .map(String::from)
        .collect();
    config.select(&selected).expect("the rules exist");
    let options = CheckOptions::default().full(full);
    let report = check_paths(ConfigSource::One(config), &[folder], &options).expect("it starts");
    let output = report.render(&Format::Human { color: false }) + &report.render_messages();
    // Paths are shown from the working directory (the crate's root); the snapshots
    // show them from the fixture's folder, as a maintainer standing in it sees them.
    let shown = format!("tests/fixtures/rules/{rule}/{fixture}");
    output
        .replace(&format!("{shown}/"), "")
        .replace(&shown, ".")
}

macro_rules! rule_fixtures {
    ($($name:ident => ($rule:literal, $fixture:literal $(, $also:literal)*),)*) => {
        $(
            #[test]
            fn $name() {
                let also: &[&str] = &[$($also),*];
                let lazy = run($rule, $fixture, also, false);
                assert_eq!(lazy, run($rule, $fixture, also, true), "lazy and full modes differ");
                insta::with_settings!({
                    snapshot_path => "../../snapshots",
                    prepend_module_to_snapshot => false,
                    omit_expression => true,
                }, {
                    insta::assert_snapshot!(concat!("rules__", stringify!($name)), lazy);
                });
            }
        )*

        const LISTED: &[(&str, &str)] = &[$(($rule, $fixture)),*];
    };
}

rule_fixtures! {
    required_comment_cases => ("required-comment", "cases"),
    detached_comment_blocks => ("detached-comment", "blocks"),
    detached_comment_directives => ("detached-comment", "directives"),
    detached_comment_else_branch => ("detached-comment", "else-branch"),
    comment_starting_space_styles => ("comment-starting-space", "styles"),
    comment_starting_space_ytt => ("comment-starting-space", "ytt", "comment-indentation"),
    comment_starting_space_blanks => ("comment-starting-space", "blanks"),
    comment_starting_space_embedded => (
        "comment-starting-space",
        "embedded",
        "recovered-template"
    ),
    comment_starting_space_embedded_checked => (
        "comment-starting-space",
        "embedded-checked",
        "recovered-template"
    ),
    comment_starting_space_block_scalars => (
        "comment-starting-space",
        "block-scalars",
        "comment-indentation"
    ),
    inline_comment_spacing_spacing => ("inline-comment-spacing", "spacing"),
    inline_comment_spacing_min_spaces_1 => ("inline-comment-spacing", "min-spaces-1"),
    inline_comment_spacing_complex_key => ("inline-comment-spacing", "complex-key"),
    comment_indentation_indentation => ("comment-indentation", "indentation"),
    comment_indentation_empty_values => ("comment-indentation", "empty-values"),
    comment_indentation_runs => ("comment-indentation", "runs"),
    comment_indentation_rendered => ("comment-indentation", "rendered", "comment-starting-space"),
    comment_indentation_rendered_checked => (
        "comment-indentation",
        "rendered-checked",
        "comment-starting-space"
    ),
    undocumented_value_conventions => ("undocumented-value", "conventions"),
    undocumented_value_readme_generator => ("undocumented-value", "readme-generator"),
    undocumented_value_helm_docs => ("undocumented-value", "helm-docs"),
    undocumented_value_overrides_and_lists => ("undocumented-value", "overrides-and-lists"),
    orphan_value_doc_orphans => ("orphan-value-doc", "orphans"),
    orphan_value_doc_helmdocsignore => ("orphan-value-doc", "helmdocsignore"),
    unused_suppression_suppressions => (
        "unused-suppression",
        "suppressions",
        "inline-comment-spacing",
        "comment-starting-space"
    ),
    parse_problem_inputs => ("parse-problem", "inputs"),
    stale_version_reference_basic => ("stale-version-reference", "basic"),
    undefined_value_basic => ("undefined-value", "basic"),
    undefined_value_library => ("undefined-value", "library"),
    unused_value_basic => ("unused-value", "basic"),
    unused_value_opaque => ("unused-value", "opaque"),
    unused_value_libraries => ("unused-value", "libraries", "undefined-value"),
    unused_value_flow_at_key_column => ("unused-value", "flow-at-key-column"),
    unused_value_flows => ("unused-value", "flows", "undefined-value"),
    recovered_template_block_continuation => ("recovered-template", "block-continuation"),
    recovered_template_conditional_empty_list => ("recovered-template", "conditional-empty-list"),
    recovered_template_glued_scalar => ("recovered-template", "glued-scalar"),
    recovered_template_indentation => ("recovered-template", "indentation"),
    recovered_template_stray_comment_end => ("recovered-template", "stray-comment-end"),
    recovered_template_text_define => ("recovered-template", "text-define"),
    undefined_template_basic => ("undefined-template", "basic"),
    undefined_template_dropped_dependency => (
        "undefined-template",
        "dropped-dependency",
        "unused-value"
    ),
    undefined_template_incomplete => ("undefined-template", "incomplete"),
    undefined_template_nearest_library => ("undefined-template", "nearest-library"),
    template_error_basic => ("template-error", "basic"),
    glued_comment_basic => ("glued-comment", "basic"),
}

/// The rules whose findings the engine makes, and the test that shows each: a
/// fixture folder cannot hold an unreadable file (git keeps no such mode, and root
/// reads anything).
const ENGINE_RULES: &[(&str, &str)] = &[
    (
        "read-error",
        "cli::unreadable_file_is_a_finding_and_the_run_goes_on",
    ),
    (
        "finding-limit",
        "rules::finding_limit_closes_a_flooded_file",
    ),
];

#[test]
fn every_rule_has_a_fixture_and_every_fixture_a_test() {
    for rule in helm_tether::RuleInfo::all() {
        let name = rule.name;
        assert!(
            LISTED.iter().any(|(rule, _)| *rule == name)
                || ENGINE_RULES.iter().any(|(rule, _)| *rule == name),
            "rule {name} has no fixture"
        );
    }
    for rule in std::fs::read_dir(fixtures()).unwrap().flatten() {
        for fixture in std::fs::read_dir(rule.path()).unwrap().flatten() {
            let pair = (
                rule.file_name().to_string_lossy().into_owned(),
                fixture.file_name().to_string_lossy().into_owned(),
            );
            assert!(
                LISTED.iter().any(|(r, f)| *r == pair.0 && *f == pair.1),
                "fixture {pair:?} has no test"
            );
        }
    }
}

/// A template's `undefined-value` findings depend on `values.yaml`, and
/// `values.yaml`'s `unused-value` findings on the templates: a cached run sees an
/// edit of the other file.
#[test]
fn chart_findings_follow_the_other_files_of_the_chart() {
    let repo = common::repository(&[
        ("tether.toml", ""),
        ("Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n"),
        ("values.yaml", "image:\n  repository: nginx\n"),
        (
            "templates/pod.yaml",
            "image: {{ .Values.image.repository }}:{{ .Values.image.tag }}\n",
        ),
    ]);
    let run = || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_tether"))
            .args(["check", "."])
            .current_dir(repo.path())
            .output()
            .expect("the tether binary runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|line| line.starts_with("warning") || line.starts_with("tether:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = run();
    assert!(
        repo.path().join(".tether_cache").exists(),
        "the run wrote its cache"
    );
    std::fs::write(
        repo.path().join("values.yaml"),
        "image:\n  repository: nginx\n  tag: \"1.27\"\n",
    )
    .expect("written");
    let second = run();
    std::fs::write(
        repo.path().join("templates/pod.yaml"),
        "image: {{ .Values.image.repository }}\n",
    )
    .expect("written");
    let third = run();
    common::assert_snapshot(
        "rules__chart_findings_follow_the_chart",
        &format!("{first}\n---\n{second}\n---\n{third}\n"),
    );
}

/// A stranger's chart: a `values.yaml` whose aliases expand beyond reason, and one
/// that is a FIFO. The chart analysis refuses both (bounded nodes, regular files
/// only), the value rules stay silent, and the run ends.
#[test]
fn hostile_values_files_end_the_run() {
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..12 {
        let previous = level - 1;
        bomb.push_str(&format!(
            "l{level}: &l{level} [*{}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}]\n",
            if previous == 0 {
                "a".to_string()
            } else {
                format!("l{previous}")
            }
        ));
    }
    let repo = common::repository(&[
        (
            "bomb/Chart.yaml",
            "apiVersion: v2\nname: bomb\nversion: 1.0.0\n",
        ),
        ("bomb/values.yaml", &bomb),
        ("bomb/templates/cm.yaml", "x: {{ .Values.missing }}\n"),
        (
            "fifo/Chart.yaml",
            "apiVersion: v2\nname: fifo\nversion: 1.0.0\n",
        ),
        ("fifo/templates/cm.yaml", "x: {{ .Values.missing }}\n"),
    ]);
    let status = std::process::Command::new("mkfifo")
        .arg(repo.path().join("fifo/values.yaml"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tether"))
        .args([
            "check",
            "--no-cache",
            "--select",
            "undefined-value",
            "--select",
            "unused-value",
            ".",
        ])
        .current_dir(repo.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the tether binary runs");
    let start = std::time::Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("tether check hung on a hostile values.yaml");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains("undefined-value") && !stdout.contains("unused-value"),
        "{stdout}"
    );
    assert_ne!(output.status.code(), Some(101), "tether panicked: {stdout}");
}

/// A file with more findings than a report shows: the first 100, then one
/// `finding-limit` finding that counts the rest; with `--select` of another rule,
/// `finding-limit` stays on, and `off` is refused.
#[test]
fn finding_limit_closes_a_flooded_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("values.yaml"), "#a\n".repeat(130)).unwrap();
    let mut config = Config::default_for(dir.path().to_path_buf());
    config
        .select(&["comment-starting-space".to_string()])
        .expect("the rule exists");
    let report = check_paths(
        ConfigSource::One(config),
        &[dir.path().to_path_buf()],
        &CheckOptions::default(),
    )
    .expect("it starts");
    let rules: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.name()).collect();
    assert_eq!(rules.len(), 101, "{rules:?}");
    assert!(
        rules[..100]
            .iter()
            .all(|rule| *rule == "comment-starting-space")
    );
    let last = report.diagnostics.last().unwrap();
    assert_eq!(last.rule, helm_tether::RuleId::FindingLimit);
    assert_eq!(
        last.message,
        "and 30 more findings in this file, not shown: tether reports at most 100 a file"
    );
    for rule in ["finding-limit", "read-error"] {
        let refused = Config::from_toml(&format!("[rules]\n{rule} = \"off\"\n"))
            .expect_err("off is refused")
            .to_string();
        assert!(
            refused.contains(&format!("rule `{rule}` cannot be off")),
            "{refused}"
        );
    }
}

/// Rules whose page illustrates a case that one chart's text cannot hold, and why;
/// every other rule's examples are run below.
const ILLUSTRATED: [(&str, &str); 5] = [
    (
        "required-comment",
        "its example needs a `[[require]]` entry of tether.toml beside the template",
    ),
    (
        "unused-value",
        "its example shows the one key no template reads, not the templates that read the others",
    ),
    (
        "stale-version-reference",
        "its example needs the vendored chart whose version the comment names",
    ),
    (
        "read-error",
        "its example is a file mode, not a file's text",
    ),
    ("finding-limit", "its example needs more than 100 findings"),
];

/// Every rule's page (`tether rules NAME`) has its four sections in order, and its
/// example does what the page says: `tether check --select RULE` finds the rule in
/// the `Example` and not in the `Instead`, each written into a chart (as
/// `values.yaml`, or as a template when it holds `{{`, or as the files its
/// `# values.yaml` / `# templates/….yaml` lines name).
#[test]
fn every_rule_page_has_its_sections_and_its_examples_behave_as_stated() {
    let mut ran = 0;
    for rule in helm_tether::RuleInfo::all() {
        let page = &rule.page;
        let headings = ["What it does", "Why it matters", "Example", "Instead"]
            .map(|heading| page.find(&format!("### {heading}\n")));
        assert!(
            headings.iter().all(Option::is_some) && headings.is_sorted(),
            "{}: the page lacks a section or has them out of order: {headings:?}",
            rule.name
        );
        if ILLUSTRATED.iter().any(|(name, _)| *name == rule.name) {
            continue;
        }
        let example = first_yaml_block(&page[headings[2].unwrap()..headings[3].unwrap()]);
        let instead = first_yaml_block(&page[headings[3].unwrap()..]);
        let (Some(example), Some(instead)) = (example, instead) else {
            panic!("{}: its Example or Instead has no ```yaml block", rule.name);
        };
        let found = findings_in_chart(rule.name, &example);
        assert!(
            found > 0,
            "{}: nothing found in its Example:\n{example}",
            rule.name
        );
        let found = findings_in_chart(rule.name, &instead);
        assert_eq!(found, 0, "{}: found in its Instead:\n{instead}", rule.name);
        ran += 1;
    }
    assert_eq!(ran + ILLUSTRATED.len(), helm_tether::RuleInfo::all().len());
}

/// The text of the first ```yaml block of `section`.
fn first_yaml_block(section: &str) -> Option<String> {
    let start = section.find("```yaml\n")? + "```yaml\n".len();
    let length = section[start..].find("```")?;
    Some(section[start..start + length].to_string())
}

/// How many findings of `rule` alone `tether check` reports on `text` written into
/// a chart: split into files where a line names one (`# values.yaml`,
/// `# templates/deployment.yaml`), else one file.
fn findings_in_chart(rule: &str, text: &str) -> usize {
    let chart = tempfile::tempdir().unwrap();
    std::fs::write(
        chart.path().join("Chart.yaml"),
        "apiVersion: v2\nname: example\nversion: 0.1.0\n",
    )
    .unwrap();
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let named = line
            .strip_prefix("# ")
            .filter(|name| !name.contains(' ') && name.ends_with(".yaml"));
        match (named, files.last_mut()) {
            (Some(name), _) => files.push((name.to_string(), String::new())),
            (None, Some((_, body))) => body.push_str(&format!("{line}\n")),
            (None, None) => {
                let name = if text.contains("{{") {
                    "templates/example.yaml"
                } else {
                    "values.yaml"
                };
                files.push((name.to_string(), format!("{line}\n")));
            }
        }
    }
    for (name, body) in &files {
        let path = chart.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    let mut config = Config::default_for(chart.path().to_path_buf());
    config.select(&[rule.to_string()]).unwrap();
    let report = check_paths(
        ConfigSource::One(config),
        &[chart.path().to_path_buf()],
        &CheckOptions::default(),
    )
    .unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    report
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule == rule)
        .count()
}

/// A `Chart.yaml` past tether's limits (one annotation nested 70 levels deep, past
/// 64) still makes its folder a chart: the note names the file, the line and the
/// limit, and the values rules skip the chart instead of passing it in silence. Built
/// in a temporary folder: a committed one would be read by every fixture's pins.
#[test]
fn a_chart_yaml_past_the_limits_is_a_chart_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path();
    let mut chart_yaml = String::from("apiVersion: v2\nname: deep\nversion: 0.1.0\nannotations:\n");
    for depth in 1..=70 {
        chart_yaml.push_str(&format!("{}a:\n", "  ".repeat(depth)));
    }
    chart_yaml.push_str(&format!("{}end\n", "  ".repeat(71)));
    std::fs::write(chart.join("Chart.yaml"), chart_yaml).unwrap();
    std::fs::write(chart.join("values.yaml"), "replicas: 1\nunused: 2\n").unwrap();
    std::fs::create_dir(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("templates/deployment.yaml"),
        "replicas: {{ .Values.replicas }}\n",
    )
    .unwrap();
    let mut config = Config::default_for(chart.to_path_buf());
    config.select(&["unused-value".to_string()]).unwrap();
    let report = check_paths(config, &[chart], &CheckOptions::default()).expect("it starts");
    let output = report.render(&Format::Human { color: false }) + &report.render_messages();
    // The note names the chart as the working directory shows it, which depends on
    // where the tests run.
    let output = regex::Regex::new(r"note: chart [^:]+:")
        .unwrap()
        .replace_all(&output, "note: chart CHART:")
        .into_owned();
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("rules__chart_yaml_past_the_limits", output);
    });
}
