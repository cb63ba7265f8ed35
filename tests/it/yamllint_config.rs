//! The lint configuration a chart repository already has (issue 13): yamllint and
//! chart-testing files read onto tether's comment rules, and yamllint's suppression
//! comments honoured.
//!
//! `tests/fixtures/yamllint-repo/` is a repository with a chart-testing `ct.yaml`
//! naming `lintconf.yaml` (`min-spaces-from-content: 1`, `comments` ignored under one
//! folder), a chart with its own `.yamllint` (extends `lintconf.yaml`, disables
//! `comments-indentation`, ignores `crds/`), and a chart whose `tether.toml` asks for
//! two spaces. Each comment in it says whether it is reported, and why.

use crate::common;

use std::path::Path;
use std::process::Command;

/// The fixture, copied into a new git repository (chart-testing's files count at a
/// repository's top).
fn fixture_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp folder");
    common::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yamllint-repo"),
        dir.path(),
    );
    common::git(dir.path(), &["init", "-q"]);
    dir
}

use crate::common::run_in;

/// The comment findings of `tether check --format json` as `path:line:column rule`.
fn comment_findings(dir: &Path, args: &[&str]) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(["check", "--no-cache", "--format", "json"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the tether binary runs");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("tether prints JSON");
    let mut found: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|diagnostic| {
            let rule = match diagnostic["rule"].as_str()? {
                "comment-starting-space" | "inline-comment-spacing" => "comments",
                "comment-indentation" => "comments-indentation",
                _ => return None,
            };
            Some(format!(
                "{}:{}:{} {rule}",
                diagnostic["path"].as_str()?,
                diagnostic["line"],
                diagnostic["column"]
            ))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_fixture_repository_gets_exactly_the_findings_its_settings_allow() {
    let repo = fixture_repository();
    common::assert_snapshot(
        "yamllint_config__fixture_check",
        &run_in(repo.path(), &["check", "--no-cache", "charts"]),
    );
}

#[test]
fn show_settings_says_where_each_setting_came_from() {
    let repo = fixture_repository();
    let mut out = String::new();
    for file in [
        "charts/app/values.yaml",
        "charts/app/generated/values-generated.yaml",
        "charts/legacy/values.yaml",
        "charts/legacy/crds/crd.yaml",
        "charts/strict/values.yaml",
    ] {
        out.push_str(&run_in(repo.path(), &["check", "--show-settings", file]));
        out.push('\n');
    }
    common::assert_snapshot("yamllint_config__show_settings", &out);
}

/// yamllint itself, run as chart-testing runs it (`-c lintconf.yaml` at the top) and
/// as a developer runs it in the legacy chart (its `.yamllint` found from there),
/// reports what tether reports; the one difference is the line `tether.toml` decides.
#[test]
fn yamllint_reports_what_tether_reports_on_the_fixture() {
    let Some(yamllint) = common::installed_tool("target/ci-venv/bin/yamllint") else {
        return;
    };
    let repo = fixture_repository();
    let parsable = |dir: &Path, args: &[&str], prefix: &str| -> Vec<String> {
        let output = Command::new(&yamllint)
            .args(["-f", "parsable"])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("yamllint runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                // path:line:column: [level] message (rule)
                let (place, rest) = line.split_once(": [")?;
                let rule = rest.rsplit_once('(')?.1.trim_end_matches(')');
                (rule == "comments" || rule == "comments-indentation")
                    .then(|| format!("{prefix}{place} {rule}"))
            })
            .collect()
    };
    let mut by_yamllint = parsable(
        repo.path(),
        &["-c", "lintconf.yaml", "charts/app", "charts/strict"],
        "",
    );
    by_yamllint.extend(parsable(
        &repo.path().join("charts/legacy"),
        &["."],
        "charts/legacy/",
    ));
    let by_yamllint: Vec<String> = {
        let mut lines: Vec<String> = by_yamllint
            .into_iter()
            .map(|line| line.replace("charts/legacy/./", "charts/legacy/"))
            .collect();
        lines.sort();
        lines
    };
    let mut by_tether = comment_findings(repo.path(), &["charts"]);
    // tether.toml wins where both speak: two spaces in the strict chart.
    let decided_by_tether_toml = "charts/strict/values.yaml:1:13 comments".to_string();
    assert!(
        by_tether.contains(&decided_by_tether_toml),
        "{by_tether:#?}"
    );
    by_tether.retain(|line| *line != decided_by_tether_toml);
    assert_eq!(by_tether, by_yamllint);
}

/// Each mapped option and form, one small repository each: what `.yamllint` says,
/// one file, and what tether reports on it.
#[test]
fn each_mapped_option() {
    let values = "replicas: 2 # one space\n#no space\nimage:\n  tag: x\n      # misindented\n";
    let cases: &[(&str, &str)] = &[
        ("no configuration: tether's defaults", ""),
        ("extends default", "extends: default\n"),
        (
            "extends relaxed: comments and comments-indentation off",
            "extends: relaxed\n",
        ),
        (
            "no extends: rules not listed do not run",
            "rules:\n  comments: enable\n",
        ),
        (
            "comments.require-starting-space false",
            "extends: default\nrules:\n  comments:\n    require-starting-space: false\n",
        ),
        (
            "comments.min-spaces-from-content 1",
            "extends: default\nrules:\n  comments:\n    min-spaces-from-content: 1\n",
        ),
        (
            "comments disable",
            "extends: default\nrules:\n  comments: disable\n",
        ),
        (
            "comments-indentation disable",
            "extends: default\nrules:\n  comments-indentation: disable\n",
        ),
        (
            "per-rule ignore, a list",
            "extends: default\nrules:\n  comments-indentation:\n    ignore: [\"values.yaml\"]\n",
        ),
        (
            "top-level ignore, a block",
            "extends: default\nignore: |\n  *.yaml\n",
        ),
        (
            "options merge onto the extended file's",
            "extends: base.yaml\nrules:\n  comments:\n    require-starting-space: false\n",
        ),
    ];
    let mut out = String::new();
    for (name, yamllint) in cases {
        let dir = tempfile::tempdir().expect("a temp folder");
        common::git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("values.yaml"), values).expect("written");
        std::fs::write(
            dir.path().join("base.yaml"),
            "extends: default\nrules:\n  comments:\n    min-spaces-from-content: 1\n",
        )
        .expect("written");
        if !yamllint.is_empty() {
            std::fs::write(dir.path().join(".yamllint"), yamllint).expect("written");
        }
        out.push_str(&format!(
            "## {name}\n{yamllint}=> {:?}\n\n",
            comment_findings(dir.path(), &["values.yaml"])
        ));
    }
    common::assert_snapshot("yamllint_config__each_mapped_option", &out);
}

/// The `--show-settings` of a chart's file when `.ct.yaml`, a `lintconf.yaml` beside
/// it, or only `lintconf.yaml` sits at the top; and a `.yamllint.yaml` wins over them.
#[test]
fn chart_testing_files_are_found_as_ct_finds_them() {
    let lintconf = "extends: default\nrules:\n  comments:\n    min-spaces-from-content: 1\n";
    let layouts: &[(&str, &[(&str, &str)])] = &[
        (
            "ct.yaml with lint-conf",
            &[
                ("ct.yaml", "lint-conf: ci/lint.yaml\n"),
                ("ci/lint.yaml", lintconf),
            ],
        ),
        (
            ".ct.yaml without lint-conf: lintconf.yaml beside it",
            &[
                (".ct.yaml", "chart-dirs: [charts]\n"),
                ("lintconf.yaml", lintconf),
            ],
        ),
        (
            "lintconf.yaml alone at the top",
            &[("lintconf.yaml", lintconf)],
        ),
        (
            "a .yamllint.yaml in the chart wins",
            &[
                ("lintconf.yaml", lintconf),
                ("charts/a/.yamllint.yaml", "extends: relaxed\n"),
            ],
        ),
    ];
    let mut out = String::new();
    for (name, files) in layouts {
        let mut all: Vec<(&str, &str)> = files.to_vec();
        all.push(("charts/a/values.yaml", "a: 1 # one\n"));
        let repo = common::repository(&all);
        let settings = run_in(
            repo.path(),
            &["check", "--show-settings", "charts/a/values.yaml"],
        );
        let interesting: Vec<&str> = settings
            .lines()
            .filter(|line| {
                line.contains("yamllint:")
                    || line.contains("comment")
                    || line.contains("min-spaces")
            })
            .collect();
        out.push_str(&format!("## {name}\n{}\n\n", interesting.join("\n")));
    }
    common::assert_snapshot("yamllint_config__chart_testing_files", &out);
}

/// Every suppression form, on `comment-starting-space` findings.
#[test]
fn each_suppression_form() {
    let cases: &[(&str, &str)] = &[
        (
            "disable-line, inline",
            "a: 1 # yamllint disable-line rule:comments\n#x: 1\n",
        ),
        (
            "disable-line on its own line: the next line only",
            "# yamllint disable-line rule:comments\n#x: 1\n#y: 2\n",
        ),
        (
            "disable-line with no rule: every rule",
            "# yamllint disable-line\n#x: 1\n",
        ),
        (
            "disable … enable, one rule",
            "# yamllint disable rule:comments\n#x: 1\n# yamllint enable rule:comments\n#y: 2\n",
        ),
        (
            "disable … enable, every rule",
            "# yamllint disable\n#x: 1\n# yamllint enable\n#y: 2\n",
        ),
        ("disable-file", "# yamllint disable-file\n#x: 1\n#y: 2\n"),
        (
            "another rule's directive covers nothing here",
            "# yamllint disable-line rule:line-length\n#x: 1\n",
        ),
        (
            "misspelt directive: not one, as for yamllint",
            "#  yamllint disable-line rule:comments\n#x: 1\n",
        ),
    ];
    let mut out = String::new();
    for (name, text) in cases {
        let dir = tempfile::tempdir().expect("a temp folder");
        std::fs::write(dir.path().join("values.yaml"), text).expect("written");
        out.push_str(&format!(
            "## {name}\n{text}=> {:?}\n\n",
            comment_findings(dir.path(), &["values.yaml"])
        ));
    }
    common::assert_snapshot("yamllint_config__each_suppression_form", &out);
}

/// A broken yamllint or chart-testing file is a configuration error naming its line
/// (exit 2), for `yamllint-config` and for one found.
#[test]
fn broken_files_are_configuration_errors_naming_the_line() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "not YAML",
            &[(
                ".yamllint",
                "rules:\n  comments: {min-spaces-from-content: 1\n",
            )],
        ),
        (
            "a wrong type",
            &[(
                ".yamllint",
                "extends: default\nrules:\n  comments:\n    min-spaces-from-content: two\n",
            )],
        ),
        (
            "a rule neither enable, disable nor a mapping",
            &[(".yamllint", "rules:\n  comments-indentation: maybe\n")],
        ),
        (
            "extends that loops",
            &[
                (".yamllint", "extends: a.yaml\n"),
                ("a.yaml", "extends: .yamllint\n"),
            ],
        ),
        (
            "extends a missing file",
            &[(".yamllint", "extends: nowhere.yaml\n")],
        ),
        (
            "extends a file outside the repository: the same answer whether it exists",
            &[(".yamllint", "extends: /proc/self/environ\n")],
        ),
        (
            "extends a missing file outside the repository",
            &[(".yamllint", "extends: /root/.ssh/no_such_key\n")],
        ),
        (
            "extends up and out of the repository",
            &[(
                ".yamllint",
                "extends: ../../../../../../../../etc/hostname\n",
            )],
        ),
        ("a .yamllint that is a link out of the repository", &[]),
        (
            "lint-conf of ct.yaml outside the repository",
            &[("ct.yaml", "lint-conf: /proc/self/environ\n")],
        ),
        (
            "yamllint-config naming nothing",
            &[("tether.toml", "yamllint-config = \"ci/lint.yaml\"\n")],
        ),
        (
            "yamllint-config outside the repository (a link out)",
            &[("tether.toml", "yamllint-config = \"lint.yaml\"\n")],
        ),
        (
            "[[pin]] file outside the repository",
            &[(
                "tether.toml",
                "[[pin]]\nname = \"kubevirt\"\nfile = \"/etc/hostname\"\nregex = '(.*)'\n",
            )],
        ),
        ("a .yamllint that is a FIFO: refused, never waited on", &[]),
        (
            "nesting beyond reason",
            &[(
                ".yamllint",
                "rules: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
            )],
        ),
        (
            "aliases that expand beyond reason",
            &[(
                ".yamllint",
                "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
            )],
        ),
    ];
    let mut out = String::new();
    for (name, files) in cases {
        let mut all: Vec<(&str, &str)> = files.to_vec();
        all.push(("values.yaml", "a: 1\n"));
        let repo = common::repository(&all);
        #[cfg(unix)]
        if name.contains("a link out") {
            std::os::unix::fs::symlink("/etc/hostname", repo.path().join("lint.yaml"))
                .expect("a link");
        }
        #[cfg(unix)]
        if name.contains("a .yamllint that is a link out") {
            std::os::unix::fs::symlink("/etc/hostname", repo.path().join(".yamllint"))
                .expect("a link");
        }
        #[cfg(unix)]
        if name.contains("a FIFO") {
            let fifo = std::ffi::CString::new(
                repo.path()
                    .join(".yamllint")
                    .into_os_string()
                    .into_encoded_bytes(),
            )
            .expect("no NUL");
            // SAFETY: a valid C string; mkfifo has no other precondition.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
        }
        out.push_str(&format!(
            "## {name}\n{}\n",
            run_in(repo.path(), &["check", "--no-cache", "values.yaml"])
        ));
    }
    common::assert_snapshot("yamllint_config__broken_files", &out);
}

/// `tether init` states what the comment rules inherit, and names a lintconf kept
/// where chart-testing setups keep it.
#[test]
fn init_states_what_is_inherited() {
    let lintconf = "rules:\n  comments:\n    min-spaces-from-content: 1\n";
    let named = common::repository(&[(".github/configs/lintconf.yaml", lintconf)]);
    let found = common::repository(&[(
        ".yamllint.yml",
        "extends: default\nrules:\n  comments-indentation: disable\n",
    )]);
    let mut out = String::new();
    for (name, repo) in [("named", &named), ("found", &found)] {
        let chart = repo.path().join("charts/a");
        std::fs::create_dir_all(&chart).expect("a chart folder");
        let printed = run_in(&chart, &["init"]);
        let written = std::fs::read_to_string(chart.join("tether.toml")).expect("written");
        let header: String = written
            .lines()
            .take_while(|line| !line.starts_with("# Files to check"))
            .map(|line| format!("{line}\n"))
            .collect();
        out.push_str(&format!("## {name}\n{printed}{header}\n"));
        // What it wrote is a working configuration.
        std::fs::write(chart.join("values.yaml"), "a: 1 # one\n").expect("written");
        out.push_str(&run_in(&chart, &["check", "--no-cache", "."]));
        out.push('\n');
    }
    common::assert_snapshot("yamllint_config__init", &out);
}

/// argo-helm's own lintconf (issue 13): with a `tether.toml` naming it, tether's
/// `inline-comment-spacing` reports nothing on the repository's charts; without it,
/// the 32 one-space comments the maintainers chose (10 more are in chart-testing's
/// `ci/*-values.yaml` files, which tether leaves out by default, as chart-testing
/// does).
#[test]
fn argo_helm_with_its_lintconf_gets_no_inline_spacing_findings() {
    let Some(corpus) = common::corpus_dir("the argo-helm lintconf test") else {
        return;
    };
    let copy = tempfile::tempdir().expect("a temp folder");
    common::copy_tree(&corpus.join("argo-helm"), copy.path());
    common::git(copy.path(), &["init", "-q"]);
    let count =
        |dir: &Path| comment_findings(dir, &["--select", "inline-comment-spacing", "charts"]).len();
    let before = count(copy.path());
    std::fs::write(
        copy.path().join("tether.toml"),
        "yamllint-config = \".github/configs/lintconf.yaml\"\n",
    )
    .expect("written");
    let after = count(copy.path());
    assert_eq!((before, after), (32, 0));
}

/// A yamllint directive that silences nothing of tether's is yamllint's business:
/// never an `unused-suppression` finding, and never documentation of a key.
#[test]
fn yamllint_directives_that_silence_nothing_are_not_reported() {
    let dir = tempfile::tempdir().expect("a temp folder");
    std::fs::write(
        dir.path().join("values.yaml"),
        "# yamllint disable rule:line-length\n# -- replicas of the app\nreplicas: 2  # yamllint disable-line rule:comments\n# yamllint enable\n",
    )
    .expect("written");
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(["check", "--no-cache", "--format", "json", "values.yaml"])
        .arg("--select")
        .arg("unused-suppression")
        .args([
            "--select",
            "detached-comment",
            "--select",
            "orphan-value-doc",
        ])
        .current_dir(dir.path())
        .output()
        .expect("the tether binary runs");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("tether prints JSON");
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report:#}");
    let map = run_in(dir.path(), &["map", "values.yaml"]);
    assert!(
        map.contains("replicas  leading@2 \"-- replicas of the app\"")
            && map.contains("directive@1 \"yamllint disable rule:line-length\""),
        "{map}"
    );
}

/// The findings cache is keyed by the yamllint file too: editing `.yamllint` changes
/// the findings of the next run, though no checked file changed.
#[test]
fn editing_the_yamllint_file_invalidates_cached_findings() {
    let repo = common::repository(&[
        ("tether.toml", ""),
        (
            ".yamllint",
            "extends: default\nrules:\n  comments:\n    min-spaces-from-content: 1\n",
        ),
        ("values.yaml", "replicas: 2 # one space\n"),
    ]);
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_tether"))
            .args(["check", "values.yaml"])
            .current_dir(repo.path())
            .output()
            .expect("the tether binary runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_string()
    };
    let first = run();
    assert!(
        repo.path().join(".tether_cache").exists(),
        "the run wrote its cache"
    );
    std::fs::write(repo.path().join(".yamllint"), "extends: default\n").expect("written");
    let second = run();
    assert_eq!(
        (first.as_str(), second.as_str()),
        (
            "tether: no findings in 1 file",
            "tether: 1 warning in 1 file, 1 fixable with --fix"
        )
    );
}
