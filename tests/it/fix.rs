//! `tether check --fix` and `--diff` (issue 12): per fixable rule, a fixture's
//! fixes (the diff), the text after, and a second pass that changes nothing; line
//! endings kept; and over a copy of each corpus, a fixpoint that changes only the
//! whitespace of the fixed comments' lines and keeps every comment map.

#![allow(clippy::print_stderr)]

use crate::common;

use std::path::Path;

use helm_tether::{Config, ConfigSource, FixOptions, fix_paths};

/// Fixes `text` as `values.yaml` (or `templates/x.yaml`) with only `rules` on; the
/// diff, the text after, and the fixes per rule.
fn fix(name: &str, text: &str, rules: &[&str], toml: &str) -> String {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join(name);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("created");
    std::fs::write(&path, text).expect("written");
    let mut config = Config::from_toml_in(toml, dir.path()).expect("a valid tether.toml");
    let selected: Vec<String> = rules.iter().map(|rule| rule.to_string()).collect();
    config.select(&selected).expect("the rules exist");
    let report = fix_paths(
        ConfigSource::One(config.clone()),
        &[dir.path()],
        FixOptions::default().write(true),
    )
    .expect("it runs");
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let after = std::fs::read_to_string(&path).expect("read back");
    let again = fix_paths(
        ConfigSource::One(config),
        &[dir.path()],
        FixOptions::default(),
    )
    .expect("it runs");
    assert!(
        again.files.is_empty(),
        "a second pass changes:\n{}",
        again.diff()
    );
    let fixes: Vec<String> = report
        .files
        .iter()
        .flat_map(|file| file.fixes.iter().map(|(rule, n)| format!("{rule}: {n}")))
        .collect();
    format!(
        "{}\n----- after -----\n{}----- fixes -----\n{}\n",
        report
            .diff()
            .replace(&dir.path().display().to_string(), "[DIR]"),
        after.replace('\r', "␍"),
        fixes.join("\n")
    )
}

#[test]
fn comment_starting_space() {
    common::assert_snapshot(
        "fix__comment_starting_space",
        &fix(
            "values.yaml",
            "#!/usr/bin/env shebang: kept\n#replicas of the app\nreplicas: 2 ##inline\n##doc\n#-- helm-docs, kept\nimage: {}\n",
            &["comment-starting-space"],
            "",
        ),
    );
}

/// A `#` that a trim marker glues to the value before it is part of that value:
/// `--fix` leaves it as it is (a space there would change what Helm renders), and
/// fixes the real comment beside it.
#[test]
fn text_a_trim_marker_glues_to_a_value_is_never_fixed() {
    common::assert_snapshot(
        "fix__glued_text_kept",
        &fix(
            "templates/config.yaml",
            "data:\n  image: {{ .Values.image -}} #pinned\n  {{- if .Values.ui }}\n  ui: \"1\"\n  {{- end -}}\n  #the title\n  title: a\n  #a real comment\n  b: c\n",
            &["comment-starting-space", "inline-comment-spacing"],
            "",
        ),
    );
}

#[test]
fn inline_comment_spacing() {
    common::assert_snapshot(
        "fix__inline_comment_spacing",
        &fix(
            "templates/cm.yaml",
            "data:\n  a: 1 # one\n  b: {{ .Values.b }}\t# tab\n  c: 3      # many: kept\n{{- end }} # after an action only: kept\n",
            &["inline-comment-spacing"],
            "[rules.inline-comment-spacing]\nmin-spaces = 3\n",
        ),
    );
}

#[test]
fn comment_indentation() {
    common::assert_snapshot(
        "fix__comment_indentation",
        &fix(
            "values.yaml",
            "spec:\n  replicas: 3\n # one space short\n # and its second line, moved with it\n  strategy: {}\n  list:\n    - a\n   # three\n    - b\n# a note at the top level: kept\nother:\n      # deeper: moving it would make it document `key`, so it stays\n  key: 1\n",
            &["comment-indentation"],
            "",
        ),
    );
}

/// A byte-order mark is no indentation: a comment after it on the first line is at
/// column 1, and no fix removes the mark (found by the `fix` fuzz target).
#[test]
fn a_byte_order_mark_is_kept() {
    common::assert_snapshot(
        "fix__byte_order_mark",
        &fix(
            "values.yaml",
            "\u{feff}# lead\nkey   #t1: \n  # deeper\nother: 1\n",
            &["comment-indentation", "comment-starting-space"],
            "",
        ),
    );
}

/// CRLF stays CRLF, a missing final newline stays missing, and every rule's fixes
/// meet in one file.
#[test]
fn line_endings_and_all_rules_together() {
    common::assert_snapshot(
        "fix__line_endings",
        &fix(
            "values.yaml",
            "a: 1 #one\r\nb:\r\n      #deep\r\n  c: 2\t# tab",
            &[
                "comment-starting-space",
                "inline-comment-spacing",
                "comment-indentation",
            ],
            "",
        ),
    );
}

/// `--fix` never writes through a link, and `--diff` writes nothing.
#[test]
fn the_cli_writes_only_regular_files_and_diff_writes_nothing() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let outside = tempfile::tempdir().expect("another folder");
    std::fs::write(outside.path().join("target.yaml"), "a: 1 #x\n").expect("written");
    std::fs::write(dir.path().join("values.yaml"), "a: 1 #x\n").expect("written");
    let diff = common::run_in(dir.path(), &["check", "--diff", "--no-cache", "."]);
    assert!(diff.starts_with("exit code: 1\n"), "{diff}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("values.yaml")).expect("read"),
        "a: 1 #x\n"
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            outside.path().join("target.yaml"),
            dir.path().join("link.yaml"),
        )
        .expect("a link");
        let _ = common::run_in(dir.path(), &["check", "--fix", "--no-cache", "link.yaml"]);
        assert_eq!(
            std::fs::read_to_string(outside.path().join("target.yaml")).expect("read"),
            "a: 1 #x\n",
            "written through a link"
        );
    }
    let fixed = common::run_in(dir.path(), &["check", "--fix", "--no-cache", "values.yaml"]);
    assert!(
        fixed.contains("tether: fixed 2 findings in 1 file"),
        "{fixed}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("values.yaml")).expect("read"),
        "a: 1  # x\n"
    );
}

/// `--fix` keeps what a rename would lose and refuses what it must not write: a file
/// with two names is fixed under both, a file of another owner keeps its owner, a
/// read-only file is left as it is, and a folder link out of the repository is not
/// followed. Each refusal is said and makes the run exit 2.
#[cfg(unix)]
#[test]
fn fix_keeps_links_owner_and_refuses_read_only_and_outside_files() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().expect("a temp folder");
    let root = dir.path();
    common::git(root, &["init", "-q"]);
    std::fs::write(root.join("values.yaml"), "a: 1 #x\n").unwrap();
    std::fs::hard_link(root.join("values.yaml"), root.join("values-copy.yaml")).unwrap();
    std::fs::create_dir(root.join("own")).unwrap();
    std::fs::write(root.join("own/values.yaml"), "a: 1 #x\n").unwrap();
    // SAFETY: a valid C string; chown has no other precondition. As root only.
    let root_user = unsafe { libc::geteuid() } == 0;
    if root_user {
        let path = std::ffi::CString::new(root.join("own/values.yaml").to_str().unwrap()).unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { libc::chown(path.as_ptr(), 65534, 65534) }, 0);
    }
    std::fs::create_dir(root.join("ro")).unwrap();
    std::fs::write(root.join("ro/values.yaml"), "a: 1 #x\n").unwrap();
    std::fs::set_permissions(
        root.join("ro/values.yaml"),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    let outside = tempfile::tempdir().expect("another folder");
    std::fs::write(outside.path().join("values.yaml"), "a: 1 #x\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();

    let fixed = common::run_in(
        root,
        &[
            "check",
            "--fix",
            "--no-cache",
            "values.yaml",
            "own",
            "ro",
            "linked/values.yaml",
        ],
    );
    let read = |path: &Path| std::fs::read_to_string(path).unwrap();
    assert_eq!(read(&root.join("values.yaml")), "a: 1  # x\n", "{fixed}");
    assert_eq!(
        read(&root.join("values-copy.yaml")),
        "a: 1  # x\n",
        "{fixed}"
    );
    assert_eq!(
        read(&root.join("own/values.yaml")),
        "a: 1  # x\n",
        "{fixed}"
    );
    if root_user {
        assert_eq!(
            std::fs::metadata(root.join("own/values.yaml"))
                .unwrap()
                .uid(),
            65534
        );
    }
    assert_eq!(read(&root.join("ro/values.yaml")), "a: 1 #x\n", "{fixed}");
    assert_eq!(
        read(&outside.path().join("values.yaml")),
        "a: 1 #x\n",
        "{fixed}"
    );
    assert!(fixed.starts_with("exit code: 2\n"), "{fixed}");
    assert!(
        fixed.contains("ro/values.yaml: read-only; not written"),
        "{fixed}"
    );
    assert!(fixed.contains("leaves"), "{fixed}");
}

/// A file with 5,000 fixable lines (10,000 findings, a hundred times the per-file
/// report limit) is fixed in a few rounds: every fix of a round is applied at once,
/// so rounds do not grow with the file. It gave up ("did not converge after 50
/// rounds") at about 2,500 lines when the fixer saw only the first 100 findings.
#[test]
fn thousands_of_fixable_lines_converge() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let text: String = (0..5000)
        .map(|index| format!("key{index}: 1 #x\n"))
        .collect();
    std::fs::write(dir.path().join("values.yaml"), &text).unwrap();
    let config = Config::default_for(dir.path().to_path_buf());
    let report = fix_paths(
        ConfigSource::One(config),
        &[dir.path()],
        FixOptions::default().write(true),
    )
    .expect("it runs");
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.count(), 10_000);
    let fixed = std::fs::read_to_string(dir.path().join("values.yaml")).unwrap();
    assert!(
        fixed.lines().all(|line| line.ends_with(": 1  # x")),
        "{}",
        &fixed[..200]
    );
}

/// The way docs/src/fix.md gives to leave a generator's lines alone: an
/// `[[overrides]]` entry turns the rule off for the generated files, and `--fix`
/// then changes none of them while another file keeps the rule (issue 35,
/// surprise 1).
#[test]
fn an_override_leaves_the_lines_a_generator_writes_alone() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let chart = "apiVersion: v2\nname: web\nversion: 0.0.0 # Placeholder, the CI sets it\n";
    let values = "replicas: 1 # one\n";
    std::fs::write(dir.path().join("Chart.yaml"), chart).expect("written");
    std::fs::write(dir.path().join("values.yaml"), values).expect("written");
    let with = |toml: &str| {
        let config = Config::from_toml_in(toml, dir.path()).expect("a valid tether.toml");
        fix_paths(
            ConfigSource::One(config),
            &[dir.path()],
            FixOptions::default(),
        )
        .expect("it runs")
    };
    let fixed: Vec<String> = with("")
        .files
        .iter()
        .map(|file| file.path.display().to_string())
        .collect();
    assert_eq!(fixed, ["Chart.yaml", "values.yaml"]);
    let documented = "[[overrides]]\nfiles = [\"**/Chart.yaml\"]\nrules = { inline-comment-spacing = \"off\" }\n";
    let fixed: Vec<String> = with(documented)
        .files
        .iter()
        .map(|file| file.path.display().to_string())
        .collect();
    assert_eq!(fixed, ["values.yaml"]);
}

/// Fixes tether cannot prove keep what Helm renders are unsafe, as ruff has them:
/// every fix of a file a chart may embed with `.Files.Get` (`files/`; not one its
/// `.helmignore` leaves out, nor chart-testing's `ci/*-values.yaml`), and a fix on a
/// line a trim marker reaches. `--fix` leaves them and says how many;
/// `--fix --unsafe-fixes` applies them; the check's summary counts both kinds and the
/// JSON output says which is which.
#[test]
fn unsafe_fixes_wait_for_unsafe_fixes() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("created");
        std::fs::write(path, text).expect("written");
    };
    write(
        "tether.toml",
        "[rules]\ninline-comment-spacing = \"warn\"\ncomment-starting-space = \"warn\"\n",
    );
    write(
        "chart/Chart.yaml",
        "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    );
    write("chart/values.yaml", "replicas: 2 #safe\nheadless: false\n");
    let template = "spec:\n  {{- if .Values.headless }}\n  clusterIP: None # trimmed next\n  {{- end }}\n  replicas: {{ .Values.replicas }} # safe\n";
    write("chart/templates/service.yaml", template);
    write("chart/files/config.yaml", "a: 1 #embedded\n");
    // Kept out of the package by `.helmignore`, or read by chart-testing: safe.
    write("chart/.helmignore", "# not packaged\nnotes/\n");
    write("chart/notes/plan.yaml", "a: 1 # ignored\n");
    write("chart/ci/ha-values.yaml", "replicas: 3 # chart-testing\n");
    let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).expect("read");
    let mut transcript = String::new();
    for args in [
        &["check", "--no-cache", "."][..],
        &["check", "--no-cache", "--unsafe-fixes", "."],
        &["check", "--no-cache", "--fix", "."],
    ] {
        transcript.push_str(&format!("$ tether {}\n", args.join(" ")));
        transcript.push_str(&common::run_in(dir.path(), args));
    }
    assert_eq!(read("chart/files/config.yaml"), "a: 1 #embedded\n");
    assert_eq!(
        read("chart/templates/service.yaml").lines().nth(2),
        Some("  clusterIP: None # trimmed next")
    );
    let json = common::run_in(
        dir.path(),
        &["check", "--no-cache", "--format", "json", "chart/files"],
    );
    assert!(json.contains("\"applicability\": \"unsafe\""), "{json}");
    let args = ["check", "--no-cache", "--fix", "--unsafe-fixes", "."];
    transcript.push_str(&format!("$ tether {}\n", args.join(" ")));
    transcript.push_str(&common::run_in(dir.path(), &args));
    transcript.push_str(&format!(
        "----- files/config.yaml -----\n{}----- templates/service.yaml -----\n{}",
        read("chart/files/config.yaml"),
        read("chart/templates/service.yaml")
    ));
    common::assert_snapshot("fix__unsafe_fixes", &transcript);
}

/// A folder link in the repository that leads out of it, under a `tether.toml` above
/// the repository (whose folder holds both): what it leads to is not written,
/// whether the file or the link's folder is named.
#[cfg(unix)]
#[test]
fn a_link_out_of_the_repository_is_not_written_under_a_configuration_above_it() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let top = dir.path();
    std::fs::write(top.join("tether.toml"), "[rules]\n").unwrap();
    std::fs::create_dir_all(top.join("outside")).unwrap();
    std::fs::write(top.join("outside/values.yaml"), "a: 1 #x\n").unwrap();
    let repo = top.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    common::git(&repo, &["init", "-q"]);
    std::os::unix::fs::symlink("../outside", repo.join("linked")).unwrap();
    for input in ["linked/values.yaml", "linked"] {
        let fixed = common::run_in(&repo, &["check", "--fix", "--no-cache", input]);
        assert_eq!(
            std::fs::read_to_string(top.join("outside/values.yaml")).unwrap(),
            "a: 1 #x\n",
            "{fixed}"
        );
        assert!(fixed.starts_with("exit code: 2\n"), "{fixed}");
        assert!(
            fixed.contains("reached through a link that leaves"),
            "{fixed}"
        );
    }
}
