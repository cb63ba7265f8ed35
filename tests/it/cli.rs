//! Tests of the real `tether` binary: exit code, stdout and stderr, snapshotted together.

use crate::common;

use std::path::Path;
use std::process::Command;

use crate::common::run_in;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn map_example_text() {
    common::assert_snapshot(
        "cli__map_example_text",
        &run_in(
            repo(),
            &["map", "examples/kubevirt/templates/kubevirt-cr.yaml"],
        ),
    );
}

#[test]
fn map_example_json() {
    common::assert_snapshot(
        "cli__map_example_json",
        &run_in(
            repo(),
            &[
                "map",
                "--format",
                "json",
                "examples/kubevirt/templates/kubevirt-cr.yaml",
            ],
        ),
    );
}

#[test]
fn map_values_and_helpers() {
    common::assert_snapshot(
        "cli__map_values_and_helpers",
        &run_in(
            repo(),
            &[
                "map",
                "examples/kubevirt/values.yaml",
                "examples/kubevirt/templates/_helpers.tpl",
            ],
        ),
    );
}

#[test]
fn unreadable_file_exits_2_and_the_others_are_still_modelled() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.yaml"), "# doc\nkey: 1\n").unwrap();
    std::fs::create_dir(dir.path().join("folder.yaml")).unwrap();
    common::assert_snapshot(
        "cli__map_unreadable",
        &run_in(
            dir.path(),
            &[
                "map",
                "--format",
                "json",
                "missing.yaml",
                "folder.yaml",
                "good.yaml",
            ],
        ),
    );
}

#[test]
fn map_requires_a_file() {
    common::assert_snapshot("cli__map_no_file", &run_in(repo(), &["map"]));
}

/// Each file is modelled with its own nearest configuration, whatever the order of
/// the paths: `b`'s directive is a directive in both runs, as `check` reads it.
#[test]
fn map_resolves_each_files_configuration() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "a/v.yaml", "x: 1
",
        ),
        ("b/tether.toml", "directives = [\"keepme\"]\n"),
        ("b/v.yaml", "# keepme: tool note\nkey: 1\n"),
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let alone = run_in(dir.path(), &["map", "b/v.yaml"]);
    let after_a = run_in(dir.path(), &["map", "a/v.yaml", "b/v.yaml"]);
    common::assert_snapshot(
        "cli__map_configuration_per_file",
        &format!("$ tether map b/v.yaml\n{alone}\n$ tether map a/v.yaml b/v.yaml\n{after_a}"),
    );
}

/// `--statistics` (a table, and JSON), `--ignore` (repeatable or comma-separated,
/// refused for a rule that cannot be off), `--select a,b`, and `--fix --diff`
/// (shows the fixes, writes nothing), as ruff users write them.
#[test]
fn statistics_ignore_and_fix_with_diff() {
    let dir = tempfile::tempdir().unwrap();
    let values = "#one\na: 1 #two\nb: 2 #three\n";
    std::fs::write(dir.path().join("values.yaml"), values).unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["check", "--no-cache"];
        all.extend_from_slice(args);
        format!("$ tether {}\n{}", args.join(" "), run_in(dir.path(), &all))
    };
    let outputs = [
        run(&["--statistics"]),
        run(&["--statistics", "--format", "json"]),
        run(&["--statistics", "--ignore", "inline-comment-spacing"]),
        run(&[
            "--statistics",
            "--select",
            "comment-starting-space,inline-comment-spacing",
            "--ignore",
            "comment-starting-space",
        ]),
        run(&["--ignore", "read-error"]),
        run(&["--fix", "--diff"]),
    ];
    assert_eq!(
        std::fs::read_to_string(dir.path().join("values.yaml")).unwrap(),
        values,
        "--fix --diff wrote"
    );
    common::assert_snapshot("cli__statistics_ignore_fix_diff", &outputs.join("\n"));
}

#[test]
fn bad_inputs_are_problems_not_failures() {
    let dir = tempfile::tempdir().unwrap();
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    // 50 MB: over the size tether models.
    let big = "key: value\n".repeat(50 * 1024 * 1024 / 11);
    std::fs::write(templates.join("big.yaml"), big).unwrap();
    // 10,000 levels of nesting, block and flow, and 10,000 nested template blocks.
    std::fs::write(
        templates.join("deep-block.yaml"),
        format!("{}x\n", "- ".repeat(10_000)),
    )
    .unwrap();
    std::fs::write(
        templates.join("deep-flow.yaml"),
        format!("a: {}1{}\n", "{b: ".repeat(10_000), "}".repeat(10_000)),
    )
    .unwrap();
    let deep_mapping: String = (0..300)
        .map(|level| format!("{}k:\n", " ".repeat(level)))
        .collect();
    std::fs::write(templates.join("deep-mapping.yaml"), deep_mapping).unwrap();
    std::fs::write(
        templates.join("deep-if.yaml"),
        format!(
            "{}a: 1\n{}",
            "{{ if .x }}\n".repeat(10_000),
            "{{ end }}\n".repeat(10_000)
        ),
    )
    .unwrap();
    let long: String = (0..33_000).map(|n| format!("- item{n}\n")).collect();
    std::fs::write(templates.join("long.yaml"), format!("list:\n{long}")).unwrap();
    let output = run_in(
        dir.path(),
        &[
            "map",
            "templates/big.yaml",
            "templates/deep-block.yaml",
            "templates/deep-flow.yaml",
            "templates/deep-mapping.yaml",
            "templates/deep-if.yaml",
            "templates/long.yaml",
        ],
    );
    // Keep the snapshot small: the problems and document headers, not every key.
    let summary: String = output
        .lines()
        .filter(|line| !line.starts_with("    "))
        .map(|line| format!("{line}\n"))
        .collect();
    common::assert_snapshot("cli__map_bad_inputs", &summary);
}

#[test]
fn check_example_is_clean() {
    common::assert_snapshot(
        "cli__check_example",
        &run_in(repo(), &["check", "--no-cache", "examples/kubevirt"]),
    );
}

#[test]
fn check_broken_copy_fails_with_findings() {
    common::assert_snapshot(
        "cli__check_broken",
        &run_in(
            repo(),
            &[
                "check",
                "--no-cache",
                "tests/fixtures/check/kubevirt-broken",
            ],
        ),
    );
}

#[test]
fn check_broken_copy_json_and_github() {
    common::assert_snapshot(
        "cli__check_broken_json",
        &run_in(
            repo(),
            &[
                "check",
                "--no-cache",
                "--format",
                "json",
                "tests/fixtures/check/kubevirt-broken",
            ],
        ),
    );
    let sarif = run_in(
        repo(),
        &[
            "check",
            "--no-cache",
            "--format",
            "sarif",
            "tests/fixtures/check/kubevirt-broken",
        ],
    );
    let document: serde_json::Value = serde_json::from_str(
        sarif
            .split("----- stdout -----\n")
            .nth(1)
            .unwrap()
            .split("----- stderr -----")
            .next()
            .unwrap(),
    )
    .expect("SARIF output is JSON");
    assert_eq!(document["version"], "2.1.0");
    let results = document["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[2]["ruleId"], "required-comment");
    assert_eq!(
        results[2]["locations"][0]["physicalLocation"]["region"]["startLine"],
        72
    );
    // One SARIF file, whole; rules' long documentation cut to keep it readable, and
    // the checkout's folder replaced.
    let mut document = document;
    for rule in document["runs"][0]["tool"]["driver"]["rules"]
        .as_array_mut()
        .unwrap()
    {
        for field in ["fullDescription", "help"] {
            rule[field] = serde_json::json!("…");
        }
    }
    // `run_in` already put [DIR] for the checkout's folder.
    assert_eq!(
        document["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        "file://[DIR]/"
    );
    document["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] = serde_json::json!("[REPO]");
    common::assert_snapshot(
        "cli__check_broken_sarif",
        &serde_json::to_string_pretty(&document).unwrap(),
    );
    common::assert_snapshot(
        "cli__check_broken_github",
        &run_in(
            repo(),
            &[
                "check",
                "--no-cache",
                "--format",
                "github",
                "tests/fixtures/check/kubevirt-broken",
            ],
        ),
    );
}

/// The README shows the output for the broken copy; it must be the real output.
#[test]
fn readme_shows_the_real_output_for_the_broken_copy() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let marker = "<!-- output of: tether check tests/fixtures/check/kubevirt-broken -->";
    let after = readme
        .split(marker)
        .nth(1)
        .expect("README has the marker before the broken copy's output");
    let block = after
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("a ```text block follows the marker");
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args([
            "check",
            "--no-cache",
            "tests/fixtures/check/kubevirt-broken",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(
        block.trim_end(),
        String::from_utf8_lossy(&output.stdout).trim_end()
    );
}

/// The nesting limit the docs state (`tether map`'s problems) is the one the binary uses.
#[test]
fn docs_state_the_nesting_limit_of_the_binary() {
    let page = std::fs::read_to_string(repo().join("docs/src/map.md")).unwrap();
    let stated = format!(
        "nesting deeper than {} levels",
        helm_tether::internals::MAX_DEPTH
    );
    assert!(
        page.contains(&stated),
        "docs/src/map.md must say {stated:?}"
    );
}

#[test]
fn rules_list_and_pages() {
    common::assert_snapshot("cli__rules_list", &run_in(repo(), &["rules"]));
    common::assert_snapshot(
        "cli__rules_page",
        &run_in(repo(), &["rules", "detached-comment"]),
    );
    common::assert_snapshot(
        "cli__rules_unknown",
        &run_in(repo(), &["rules", "detached"]),
    );
}

#[test]
fn init_writes_a_starter_that_checks_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let first = run_in(dir.path(), &["init"]);
    let second = run_in(dir.path(), &["init"]);
    std::fs::write(
        dir.path().join("values.yaml"),
        "# -- Replicas.\nreplicas: 1\n",
    )
    .unwrap();
    let checked = run_in(dir.path(), &["check", "--no-cache"]);
    common::assert_snapshot("cli__init", &format!("{first}\n{second}\n{checked}"));
    let written = std::fs::read_to_string(dir.path().join("tether.toml")).unwrap();
    assert_eq!(written, helm_tether::Config::starter_toml());
}

#[test]
fn unreadable_file_is_a_finding_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.yaml"), "#bad\nkey: 1\n").unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("nowhere.yaml"),
        dir.path().join("dangling.yaml"),
    )
    .unwrap();
    common::assert_snapshot(
        "cli__check_unreadable",
        &run_in(
            dir.path(),
            &[
                "check",
                "--no-cache",
                "good.yaml",
                "dangling.yaml",
                "missing-folder",
            ],
        ),
    );
}

/// Inside git, a tracked name is checked only when it is a regular file in the work
/// tree: a tracked link, a tracked file deleted (with its folder) and a file the
/// configuration leaves out are not checked, and the run says nothing about them.
/// (The work tree is looked at only for the files the configuration keeps.)
#[cfg(unix)]
#[test]
fn git_names_that_are_not_files_are_not_checked() {
    let repo = common::repository(&[
        ("charts/a/values.yaml", "# The replicas.\nreplicas: 1\n"),
        ("charts/gone/values.yaml", "replicas: 1\n"),
        ("notes.md", "not checked\n"),
    ]);
    std::os::unix::fs::symlink("charts/a/values.yaml", repo.path().join("link.yaml")).unwrap();
    common::commit_all(repo.path(), "a link");
    std::fs::remove_dir_all(repo.path().join("charts/gone")).unwrap();
    let listed = common::git(repo.path(), &["ls-files"]);
    assert!(listed.contains("link.yaml") && listed.contains("charts/gone/values.yaml"));
    common::assert_snapshot(
        "cli__git_names_that_are_not_files",
        &format!(
            "{}\n{}",
            run_in(repo.path(), &["check", "--show-files", "."]),
            run_in(repo.path(), &["check", "--no-cache", "."])
        ),
    );
}

/// Every mistake in tether.toml: exit 2, naming the file, line and what to write.
#[test]
fn bad_configurations() {
    let cases: &[(&str, &str)] = &[
        ("unknown-key", "includes = [\"**/*.yaml\"]\n"),
        ("wrong-type", "exclude = \"charts/**\"\n"),
        ("bad-level", "[rules]\ndetached-comment = \"warning\"\n"),
        ("unknown-rule", "[rules]\ndetached-comments = \"off\"\n"),
        ("bad-option", "[rules.detached-comment]\nmin-spaces = 3\n"),
        (
            "bad-option-type",
            "[rules.inline-comment-spacing]\nmin-spaces = \"two\"\n",
        ),
        (
            "unknown-option",
            "[rules.inline-comment-spacing]\nminimum = 1\n",
        ),
        ("bad-glob", "exclude = [\"charts/[\"]\n"),
        (
            "bad-regex",
            "[[require]]\nfiles = [\"templates/*.yaml\"]\nkey = \"spec.replicas\"\nmatches = [\"(unclosed\"]\n",
        ),
        (
            "bad-key",
            "[[require]]\nfiles = [\"templates/*.yaml\"]\nkey = \"spec..replicas\"\n",
        ),
        (
            "no-files",
            "[[require]]\nfiles = []\nkey = \"spec.replicas\"\n",
        ),
        (
            "unknown-require-key",
            "[[require]]\nfiles = [\"a.yaml\"]\nkey = \"a\"\nplacement = \"above\"\n",
        ),
        ("not-toml", "[rules\n"),
        (
            "chart-paths-missing",
            "chart-paths = [\"no-such-library\"]\n",
        ),
        (
            "huge-regex",
            "[[require]]\nfiles = [\"a.yaml\"]\nkey = \"a\"\nmatches = [\"(\\\\w{1000}){1000}\"]\n",
        ),
        (
            "huge-timeout",
            "[[idem]]\nfiles = [\"a.yaml\"]\ntimeout = \"999999999999999999h\"\n",
        ),
        (
            "level-and-table",
            "[rules]\ninline-comment-spacing = \"warn\"\n[rules.inline-comment-spacing]\nmin-spaces = 1\n",
        ),
    ];
    let mut out = String::new();
    for (name, text) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tether.toml"), text).unwrap();
        out.push_str(&format!(
            "### {name}\n{}\n",
            run_in(dir.path(), &["check", "--no-cache"])
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    out.push_str(&format!(
        "### missing --config\n{}\n",
        run_in(dir.path(), &["check", "--config", "nope.toml"])
    ));
    out.push_str(&format!(
        "### idem --timeout too large\n{}\n",
        run_in(
            dir.path(),
            &[
                "idem",
                "--run",
                "true",
                "--timeout",
                "100000000000000000000"
            ]
        )
    ));
    out.push_str(&format!(
        "### missing --config, json\n{}\n",
        run_in(
            dir.path(),
            &["check", "--format", "json", "--config", "nope.toml"]
        )
    ));
    out.push_str(&format!(
        "### unknown --select\n{}\n",
        run_in(dir.path(), &["check", "--select", "detached"])
    ));
    common::assert_snapshot("cli__check_bad_configs", &out);
}

/// The cache serves an unchanged file and never a changed one.
#[test]
fn cache_follows_file_contents() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tether.toml"), "").unwrap();
    std::fs::write(dir.path().join("values.yaml"), "#bad\nkey: 1\n").unwrap();
    let first = run_in(dir.path(), &["check"]);
    assert!(dir.path().join(".tether_cache/check.json").is_file());
    let cached = run_in(dir.path(), &["check"]);
    assert_eq!(first, cached);
    assert!(first.contains("comment-starting-space"), "{first}");
    std::fs::write(dir.path().join("values.yaml"), "# good\nkey: 1\n").unwrap();
    let changed = run_in(dir.path(), &["check"]);
    assert!(changed.contains("no findings"), "{changed}");
}

/// What a new user meets on the command line: a path that does not exist, a folder
/// with nothing to check, a binary file, `map` on a folder.
#[test]
fn inputs_that_check_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    std::fs::create_dir_all(dir.path().join("chart/templates")).unwrap();
    std::fs::write(
        dir.path().join("chart/values.yaml"),
        "# -- Replicas\nreplicas: 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("chart/templates/cm.yaml"),
        "kind: ConfigMap\ndata:\n  a: \"1\" # one\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("chart/files")).unwrap();
    std::fs::write(
        dir.path().join("chart/files/extra.yaml"),
        "data:\n  {{- if .Values.tls }}\n  tls: on\n  # the port of the listener\n  {{- end }}\n  port: 8080\n",
    )
    .unwrap();
    let mut binary = b"\x7fELF\x02\x01\x01\0\0\0".to_vec();
    binary.extend(std::iter::repeat_n(b"#x\n{{ {{ \xff".as_slice(), 500).flatten());
    std::fs::write(dir.path().join("chart/templates/blob.yaml"), binary).unwrap();
    let mut out = String::new();
    for args in [
        &["check", "--no-cache", "no-such-chart"][..],
        &["check", "--no-cache", "empty"],
        &["check", "--no-cache", "chart"],
        &["map", "chart"],
    ] {
        out.push_str(&format!(
            "### tether {}\n{}\n",
            args.join(" "),
            run_in(dir.path(), args)
        ));
    }
    common::assert_snapshot("cli__inputs_that_check_nothing", &out);
}

/// Files are chosen as git chooses them: tracked files always (even when a
/// `.gitignore` pattern matches them), untracked ones unless git ignores them; outside
/// a repository no `.gitignore` applies.
#[test]
fn files_are_chosen_as_git_chooses_them() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    for folder in ["crds", "build", "templates"] {
        std::fs::create_dir_all(repo.join(folder)).unwrap();
    }
    std::fs::write(repo.join(".gitignore"), "crds/\nbuild/\n").unwrap();
    std::fs::write(repo.join("crds/tracked.yaml"), "#tracked\n").unwrap();
    std::fs::write(repo.join("build/untracked.yaml"), "#ignored\n").unwrap();
    std::fs::write(repo.join("templates/new.yaml"), "#untracked\n").unwrap();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@e"])
            .args(args)
            .current_dir(&repo)
            .output()
            .expect("git runs (cargo xtask ci installs it)");
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-f", ".gitignore", "crds/tracked.yaml"]);
    git(&["commit", "-qm", "crds"]);
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(plain.join("build")).unwrap();
    std::fs::write(plain.join(".gitignore"), "build/\n").unwrap();
    std::fs::write(plain.join("build/kept.yaml"), "#outside-git\n").unwrap();
    let mut out = run_in(
        dir.path(),
        &["check", "--no-cache", "--format", "json", "repo", "plain"],
    );
    out = out.replace(&dir.path().display().to_string(), "[DIR]");
    let paths: Vec<&str> = out
        .lines()
        .filter_map(|line| line.trim().strip_prefix("\"path\": "))
        .collect();
    assert_eq!(
        paths,
        [
            "\"plain/build/kept.yaml\",",
            "\"repo/crds/tracked.yaml\",",
            "\"repo/templates/new.yaml\","
        ],
        "{out}"
    );
}

/// `tether check --no-cache chart` as `nobody` (root reads every folder) in a new
/// folder holding `files` under `chart/`, with the folder `locked` below `chart/`
/// unreadable while it runs: the exit code, standard output and standard error.
fn check_with_a_locked_folder(
    files: &[(&str, &str)],
    locked: &str,
) -> (Option<i32>, String, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let chart = dir.path().join("chart");
    std::fs::create_dir_all(chart.join(locked)).unwrap();
    for (path, text) in files {
        let path = chart.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let locked = chart.join(locked);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let output = common::tether_unprivileged()
        .args(["check", "--no-cache", "chart"])
        .current_dir(dir.path())
        .output()
        .expect("setpriv (util-linux) runs the binary as nobody");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A folder that cannot be read is a `read-error` finding and exit 2, never a silent
/// pass.
#[test]
fn unreadable_folder_is_a_finding() {
    let (code, stdout, stderr) = check_with_a_locked_folder(
        &[
            ("values.yaml", "# good\nkey: 1\n"),
            ("locked/values.yaml", "#hidden\n"),
        ],
        "locked",
    );
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stdout.contains("error[read-error]: cannot read this folder: Permission denied"),
        "{stdout}"
    );
    assert!(stdout.contains("--> chart/locked"), "{stdout}");
    // The listing of the repository's charts says it is partial too (it skipped
    // the folder silently): a chart there is unknown to the dependency rules.
    assert!(
        stderr.contains("chart/locked: Permission denied (os error 13); the pins of the `Chart.yaml` files there are not read"),
        "{stderr}"
    );
}

/// A template folder that cannot be listed may hold templates reading any value:
/// the chart's values are not called unused for it (they were: the chart's own
/// listing skipped the folder as if it were empty), and the run says why. A folder
/// outside `templates/` that no template reads through `.Files` changes nothing.
#[test]
fn an_unreadable_template_folder_makes_no_value_unused() {
    let chart = (
        "Chart.yaml",
        "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    );
    let values = ("values.yaml", "# Read by the locked template.\nextra: 1\n");
    let template = (
        "templates/locked/cm.yaml",
        "data:\n  extra: {{ .Values.extra }}\n",
    );
    let (_, stdout, stderr) =
        check_with_a_locked_folder(&[chart, values, template], "templates/locked");
    assert!(!stdout.contains("unused-value"), "{stdout}{stderr}");
    assert!(
        stderr.contains("templates/locked cannot be listed (Permission denied"),
        "{stdout}{stderr}"
    );
    assert!(stdout.contains("--> chart/templates/locked"), "{stdout}");
    let readable = ("templates/cm.yaml", "data: {}\n");
    let (_, stdout, stderr) = check_with_a_locked_folder(
        &[chart, values, readable, ("files/locked/a.conf", "")],
        "files/locked",
    );
    assert!(stdout.contains("unused-value"), "{stdout}{stderr}");
    assert!(!stderr.contains("cannot be listed"), "{stdout}{stderr}");
}

/// Annotation and SARIF paths are relative to the repository (or GITHUB_WORKSPACE),
/// whether tether runs from the top, from the chart, or with --config; and
/// `--fail-on` decides which findings fail the run.
#[test]
fn machine_paths_and_fail_on() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let chart = repo.join("charts/web");
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(chart.join("tether.toml"), "").unwrap();
    std::fs::write(chart.join("values.yaml"), "#bad\nkey: 1\n").unwrap();
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .expect("git runs");
    assert!(status.success());
    let github = |dir: &Path, args: &[&str]| {
        let mut all = vec!["check", "--no-cache", "--format", "github"];
        all.extend_from_slice(args);
        let output = Command::new(env!("CARGO_BIN_EXE_tether"))
            .args(&all)
            .current_dir(dir)
            .env_remove("GITHUB_WORKSPACE")
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let from_top = github(&repo, &["charts/web"]);
    assert!(
        from_top.starts_with("::warning file=charts/web/values.yaml,line=1,endLine=1,col=2,"),
        "{from_top}"
    );
    assert_eq!(github(&chart, &[]), from_top);
    assert_eq!(
        github(
            dir.path(),
            &["--config", "repo/charts/web/tether.toml", "repo/charts/web"]
        ),
        from_top
    );
    let exit = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tether"))
            .args(["check", "--no-cache"])
            .args(args)
            .current_dir(&chart)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(exit(&[]), Some(0));
    assert_eq!(exit(&["--fail-on", "warning"]), Some(1));
    // As levels are spelled in tether.toml.
    assert_eq!(exit(&["--fail-on", "warn"]), Some(1));
    assert_eq!(exit(&["--fail-on", "never", "missing"]), Some(2));
}

/// Each file is checked with its nearest tether.toml, whatever the order of the paths;
/// a named file follows `exclude`; `--config` applies one file to all.
#[test]
fn configuration_per_file() {
    let dir = tempfile::tempdir().unwrap();
    for chart in ["a", "b"] {
        std::fs::create_dir_all(dir.path().join(chart)).unwrap();
        std::fs::write(
            dir.path().join(chart).join("values.yaml"),
            "#bad\nkey: 1 # x\n",
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("a/tether.toml"),
        "[rules]\ncomment-starting-space = \"off\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b/tether.toml"),
        "exclude = [\"skip.yaml\"]\n[rules]\ninline-comment-spacing = \"off\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b/skip.yaml"), "#bad\n").unwrap();
    let one_way = run_in(dir.path(), &["check", "--no-cache", "a", "b"]);
    assert_eq!(
        one_way,
        run_in(dir.path(), &["check", "--no-cache", "b", "a"])
    );
    let named = run_in(
        dir.path(),
        &["check", "--no-cache", "b/skip.yaml", "b/values.yaml"],
    );
    let explicit = run_in(
        dir.path(),
        &["check", "--no-cache", "--config", "b/tether.toml", "a", "b"],
    );
    // The summary names the setting that left each named file out: `exclude` in
    // b's tether.toml; in a, which has none there, chart-testing's values by
    // `default-exclude`, and a README by the default `include`.
    std::fs::create_dir_all(dir.path().join("c/ci")).unwrap();
    std::fs::write(dir.path().join("c/Chart.yaml"), "name: c\n").unwrap();
    std::fs::write(dir.path().join("c/ci/lint-values.yaml"), "#bad\n").unwrap();
    std::fs::write(dir.path().join("c/README.md"), "# c\n").unwrap();
    let settings = run_in(
        dir.path(),
        &[
            "check",
            "--no-cache",
            "b/skip.yaml",
            "c/ci/lint-values.yaml",
            "c/README.md",
            "c/Chart.yaml",
        ],
    );
    common::assert_snapshot(
        "cli__configuration_per_file",
        &format!(
            "### a b (and b a)\n{one_way}\n### b/skip.yaml b/values.yaml\n{named}\n### --config b/tether.toml a b\n{explicit}\n### b/skip.yaml c/ci/lint-values.yaml c/README.md c/Chart.yaml\n{settings}"
        ),
    );
}

/// `--changed-since REV` checks what changed since REV's merge base (renames, new and
/// untracked files in; deleted and unchanged files out); `--changed-lines` keeps the
/// findings on changed lines.
#[test]
fn changed_files_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let write = |name: &str, text: &str| std::fs::write(repo.join(name), text).unwrap();
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(repo)
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
    };
    git(&["init", "-q"]);
    write("tether.toml", "");
    write("a.yaml", "#old\nk: 1\n");
    write("b.yaml", "#unchanged\nk: 1\n");
    write("gone.yaml", "#deleted\n");
    write("moved.yaml", "#moved\nk: 1\n");
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    git(&["checkout", "-qb", "topic"]);
    write("a.yaml", "#old\nk: 1\nk2: 2 # new line\n");
    git(&["mv", "moved.yaml", "renamed.yaml"]);
    git(&["rm", "-q", "gone.yaml"]);
    git(&["commit", "-qam", "change"]);
    write("new.yaml", "#committed later\n");
    git(&["add", "new.yaml"]);
    git(&["commit", "-qm", "new"]);
    write("untracked.yaml", "#untracked\n");
    let files = run_in(
        repo,
        &[
            "check",
            "--no-cache",
            "--format",
            "json",
            "--changed-since",
            "main",
        ],
    );
    let lines = run_in(
        repo,
        &[
            "check",
            "--no-cache",
            "--changed-since",
            "main",
            "--changed-lines",
        ],
    );
    // With the cache on, a --changed-lines run must not store its filtered findings
    // as the file's.
    run_in(
        repo,
        &["check", "--changed-since", "main", "--changed-lines"],
    );
    let later = run_in(repo, &["check", "a.yaml"]);
    assert!(later.contains("a.yaml:1:2"), "{later}");
    let findings: Vec<String> = files
        .lines()
        // A finding's path and line, not its fix's edits' lines.
        .filter(|line| line.starts_with("      \"path\"") || line.starts_with("      \"line\""))
        .map(|line| line.trim().trim_end_matches(',').to_string())
        .collect();
    common::assert_snapshot(
        "cli__changed_files_and_lines",
        &format!(
            "### --changed-since main\n{}\n\n### --changed-lines\n{lines}",
            findings.join("\n")
        ),
    );
}

/// `--changed-lines` in a repository that fights the diff: a committed
/// `.gitattributes` marks YAML as binary (`-diff`), the user's configuration drops the
/// `a/` `b/` prefixes and names an external diff program, and a file changed from a
/// symlink to a file. The changed lines are still found, the program never runs, and
/// a shallow clone that lacks the merge base is told to fetch more.
#[test]
fn changed_lines_hold_against_hostile_git_settings() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let write = |name: &str, text: &str| std::fs::write(repo.join(name), text).unwrap();
    let ran = repo.join("external-diff-ran");
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@e"])
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(repo)
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
    };
    git(&["init", "-q"]);
    write("tether.toml", "");
    write("a.yaml", "k: 1\n");
    write("target.yaml", "#link target\nk: 1\n");
    std::os::unix::fs::symlink("target.yaml", repo.join("link.yaml")).unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    git(&["checkout", "-qb", "topic"]);
    write(".gitattributes", "*.yaml -diff\n");
    write("a.yaml", "k: 1\nk2: 2 #new\n");
    std::fs::remove_file(repo.join("link.yaml")).unwrap();
    write("link.yaml", "#now a file\nk: 1\n");
    git(&["add", "."]);
    git(&["commit", "-qm", "change"]);
    git(&["config", "diff.noprefix", "true"]);
    git(&["config", "diff.mnemonicPrefix", "true"]);
    git(&[
        "config",
        "diff.external",
        &format!("sh -c 'touch {}'", ran.display()),
    ]);
    let found = run_in(
        repo,
        &[
            "check",
            "--no-cache",
            "--changed-since",
            "main",
            "--changed-lines",
        ],
    );
    assert!(found.contains("a.yaml:2:7"), "{found}");
    assert!(found.contains("link.yaml:1:2"), "{found}");
    assert!(!ran.exists(), "git ran the configured external diff");

    // A shallow clone of the topic branch alone has no merge base with `main`.
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", repo.display());
    let output = Command::new("git")
        .args(["clone", "-q", "--depth", "1", "--branch", "topic", &url])
        .arg(clone.path().join("c"))
        .output()
        .expect("git runs");
    assert!(output.status.success(), "{output:?}");
    let shallow = run_in(
        &clone.path().join("c"),
        &["check", "--changed-since", "origin/main"],
    );
    assert!(shallow.contains("fetch more"), "{shallow}");
}

/// SARIF fingerprints stay the same when unrelated lines move.
#[test]
fn sarif_fingerprints_survive_moved_lines() {
    let dir = tempfile::tempdir().unwrap();
    let fingerprint = |text: &str| {
        std::fs::write(dir.path().join("values.yaml"), text).unwrap();
        let out = run_in(
            dir.path(),
            &["check", "--no-cache", "--format", "sarif", "values.yaml"],
        );
        let json = out
            .split("----- stdout -----\n")
            .nth(1)
            .and_then(|rest| rest.split("----- stderr -----").next())
            .unwrap()
            .to_string();
        let document: serde_json::Value = serde_json::from_str(&json).unwrap();
        document["runs"][0]["results"][0]["partialFingerprints"]["tether/v1"].clone()
    };
    let before = fingerprint("a: 1\n#bad\nb: 2\n");
    assert!(before.is_string());
    assert_eq!(fingerprint("z: 0\ny: 0\na: 1\n#bad\nb: 2\n"), before);
    assert_ne!(fingerprint("a: 1\n#other\nb: 2\n"), before);
}

/// `tether --version` names the version, and in a git checkout the commit it was
/// built from.
#[test]
fn version_names_the_commit() {
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8(output.stdout).unwrap();
    let expected = format!("tether {}", env!("CARGO_PKG_VERSION"));
    assert!(version.starts_with(&expected), "{version}");
    if repo().join(".git").exists() {
        let head = Command::new("git")
            .args(["log", "-1", "--format=%h %cs", "--abbrev=12"])
            .current_dir(repo())
            .output()
            .unwrap();
        let head = String::from_utf8(head.stdout).unwrap();
        assert_eq!(version, format!("{expected} ({})\n", head.trim()));
    }
}

/// Completions and the man page come from the binary itself.
#[test]
fn completions_and_man_page() {
    let bash = run_in(repo(), &["completions", "bash"]);
    assert!(bash.starts_with("exit code: 0\n"), "{bash}");
    for subcommand in ["check", "idem", "map", "snapshot", "rules", "init"] {
        assert!(
            bash.contains(&format!("tether__subcmd__{subcommand}\"")),
            "no {subcommand} in {bash}"
        );
    }
    let man = run_in(repo(), &["man"]);
    assert!(man.contains(".TH tether 1"), "{man}");
    assert!(man.contains("snapshot"), "{man}");
    // Every page the top page names exists, with the subcommand's options.
    let named: Vec<&str> = man
        .lines()
        .filter_map(|line| line.strip_prefix("tether\\-")?.strip_suffix("(1)"))
        .collect();
    assert!(named.contains(&"check"), "{man}");
    for name in named {
        let page = run_in(repo(), &["man", name]);
        assert!(page.starts_with("exit code: 0\n"), "{page}");
        assert!(page.contains(&format!(".TH tether-{name} 1")), "{page}");
    }
    let check = run_in(repo(), &["man", "check"]);
    assert!(check.contains("\\-\\-select"), "{check}");
    let unknown = run_in(repo(), &["man", "nope"]);
    assert!(unknown.starts_with("exit code: 2\n"), "{unknown}");
}

/// `tether init` never writes through a `tether.toml` that is a symlink, dangling or
/// not, even with `--force`.
#[test]
fn init_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.toml");
    std::os::unix::fs::symlink(&target, dir.path().join("tether.toml")).unwrap();
    for args in [&["init", "."][..], &["init", ".", "--force"]] {
        let output = run_in(dir.path(), args);
        assert!(output.starts_with("exit code: 2\n"), "{output}");
        assert!(output.contains("is a symlink"), "{output}");
    }
    assert!(!target.exists());
}
