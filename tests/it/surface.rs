//! The command line as a ruff or rustc user expects it: paths from where you stand,
//! one snippet a line, concise output, colour control.

use std::path::Path;
use std::process::Command;

use crate::common::{self, run_in};

/// A repository with a root `tether.toml` and one chart two folders down whose
/// values file has findings.
fn monorepo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("packages/app");
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(dir.path().join("tether.toml"), "").unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "replicas: 1 #how many\n").unwrap();
    dir
}

/// Human and concise output name a file from the working directory, whichever
/// `tether.toml` configured it; JSON keeps paths relative to the configuration.
#[test]
fn paths_are_shown_from_the_working_directory() {
    let dir = monorepo();
    let root = dir.path();
    let concise = ["check", "--no-cache", "--output-format", "concise"];
    std::fs::create_dir_all(root.join("packages/other")).unwrap();
    let mut out = String::new();
    for (from, path) in [
        (root.to_path_buf(), "packages/app"),
        (root.join("packages"), "app"),
        (root.join("packages/app"), "."),
        (root.join("packages/app"), "values.yaml"),
        (root.join("packages/other"), "../app"),
    ] {
        let args: Vec<&str> = concise.iter().copied().chain([path]).collect();
        let shown = match from.strip_prefix(root).unwrap().display().to_string() {
            top if top.is_empty() => ".".to_string(),
            below => below,
        };
        out.push_str(&format!(
            "### from `{shown}`: tether check {path}\n{}\n",
            run_in(&from, &args)
        ));
    }
    out.push_str(&format!(
        "### from `packages/app`, human: tether check .\n{}\n",
        run_in(&root.join("packages/app"), &["check", "--no-cache", "."])
    ));
    let json = run_in(
        &root.join("packages"),
        &["check", "--no-cache", "--format", "json", "app"],
    );
    let path_line = json
        .lines()
        .find(|line| line.contains("\"path\""))
        .unwrap_or_default();
    out.push_str(&format!(
        "### from `packages`, JSON keeps the configuration's folder:\n{}\n",
        path_line.trim()
    ));
    common::assert_snapshot("surface__paths_from_the_working_directory", &out);
}

/// `tether check` with no path checks the working directory, as ruff and yamllint
/// do: in a chart folder under the repository's configuration, that chart, not the
/// repository (issue 35, surprise 4); and a `tether.toml` named as a path (a
/// pre-commit hook passing a staged configuration) checks the folder it configures.
#[test]
fn no_path_is_the_working_directory_and_a_configuration_is_its_folder() {
    let dir = monorepo();
    let root = dir.path();
    write_files(
        root,
        &[
            ("packages/other/values.yaml", "size: 2 #other\n"),
            (
                "packages/app/tether.toml",
                "extend = \"../../tether.toml\"\n",
            ),
        ],
    );
    let concise = ["check", "--no-cache", "--output-format", "concise"];
    let in_chart = run_in(&root.join("packages/app"), &concise);
    let at_top = run_in(root, &concise);
    let args: Vec<&str> = concise
        .iter()
        .copied()
        .chain(["packages/app/tether.toml"])
        .collect();
    let configuration = run_in(root, &args);
    common::assert_snapshot(
        "surface__no_path_and_configuration_paths",
        &format!(
            "### in packages/app: tether check\n{in_chart}\n### at the top: tether check\n{at_top}\n### tether check packages/app/tether.toml\n{configuration}"
        ),
    );
}

/// Two findings on one line are one snippet, a label each, every help below it.
#[test]
fn findings_of_one_line_share_a_snippet() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("values.yaml"),
        "a: 1 #x\nb: 2  # fine\nc:   3  #y\n",
    )
    .unwrap();
    common::assert_snapshot(
        "surface__findings_of_one_line_share_a_snippet",
        &run_in(dir.path(), &["check", "--no-cache"]),
    );
}

/// Runs `tether check --no-cache ARGS` in `dir` with exactly the colour variables
/// `vars` set, and says whether the output holds an ANSI escape.
fn colored(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> bool {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tether"));
    command
        .args(["check", "--no-cache"])
        .args(args)
        .current_dir(dir);
    for name in ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
        command.env_remove(name);
    }
    for (name, value) in vars {
        command.env(name, value);
    }
    let output = command.output().expect("the tether binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8_lossy(&output.stdout).contains('\u{1b}')
}

/// `--color` wins over the environment; `NO_COLOR` over `FORCE_COLOR` and
/// `CLICOLOR_FORCE`; piped output is plain unless one of them forces colour.
#[test]
fn colour_follows_the_flag_then_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("values.yaml"), "a: 1 #x\n").unwrap();
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        (&[], &[]),
        (&["--color", "always"], &[]),
        (&["--color", "always", "--output-format", "concise"], &[]),
        (&["--color", "never"], &[("FORCE_COLOR", "1")]),
        (&["--color", "always"], &[("NO_COLOR", "1")]),
        (&[], &[("FORCE_COLOR", "1")]),
        (&[], &[("FORCE_COLOR", "")]),
        (&[], &[("CLICOLOR_FORCE", "1")]),
        (&[], &[("CLICOLOR_FORCE", "0")]),
        (&[], &[("NO_COLOR", "1"), ("FORCE_COLOR", "1")]),
        (&[], &[("NO_COLOR", ""), ("FORCE_COLOR", "1")]),
    ];
    let mut table = String::new();
    for (args, vars) in cases {
        let vars_shown: Vec<String> = vars
            .iter()
            .map(|(name, value)| format!("{name}={value:?}"))
            .collect();
        table.push_str(&format!(
            "{:<45} {:<36} {}\n",
            args.join(" "),
            vars_shown.join(" "),
            if colored(dir.path(), args, vars) {
                "colour"
            } else {
                "plain"
            }
        ));
    }
    common::assert_snapshot("surface__colour_choice", &table);
}

/// Writes `files` (path, text) under `root`.
fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `extend` builds a chart's configuration on the repository's: the root's
/// `[[require]]`, `exclude` and levels apply with their globs as written at the
/// root, the chart's own settings come after; a cycle and a missing file are
/// refused with their line.
#[test]
fn a_configuration_extends_another() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "tether.toml",
                "exclude = [\"charts/app/skip.yaml\"]\n\n[rules]\ncomment-starting-space = \"off\"\n\n[[require]]\nfiles = [\"charts/*/values.yaml\"]\nkey = \"replicas\"\nmessage = \"say why this many\"\n",
            ),
            (
                "charts/app/tether.toml",
                "extend = \"../../tether.toml\"\n\n[rules]\ninline-comment-spacing = \"error\"\n",
            ),
            (
                "charts/app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\n",
            ),
            ("charts/app/values.yaml", "replicas: 1\nimage: x #y\n"),
            ("charts/app/skip.yaml", "a: 1 #z\n"),
            ("cycle/a/tether.toml", "extend = \"../b/tether.toml\"\n"),
            ("cycle/b/tether.toml", "extend = \"../a/tether.toml\"\n"),
            ("cycle/a/values.yaml", "a: 1\n"),
            (
                "missing/tether.toml",
                "# A typo:\nextend = \"../tether.tml\"\n",
            ),
            ("missing/values.yaml", "a: 1\n"),
        ],
    );
    let check = run_in(root, &["check", "--no-cache", "charts/app"]);
    let settings = run_in(
        root,
        &["check", "--show-settings", "charts/app/values.yaml"],
    );
    let cycle = run_in(root, &["check", "--no-cache", "cycle/a"]);
    let missing = run_in(root, &["check", "--no-cache", "missing"]);
    common::assert_snapshot(
        "surface__extend",
        &format!(
            "### tether check charts/app\n{check}\n### --show-settings\n{settings}\n### a cycle\n{cycle}\n### a missing file\n{missing}"
        ),
    );
}

/// `--show-files` lists the files a check would check, each configuration's
/// `exclude` and the default excludes applied, relative to the working folder; a
/// folder it cannot list is said, with exit 2.
#[test]
fn show_files_lists_what_a_check_checks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            ("tether.toml", "exclude = [\"charts/app/skip.yaml\"]\n"),
            (
                "charts/app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\n",
            ),
            ("charts/app/values.yaml", "replicas: 1\n"),
            ("charts/app/skip.yaml", "a: 1\n"),
            ("charts/app/templates/a.yaml", "a: {{ .Values.replicas }}\n"),
            (
                "charts/app/templates/_helpers.tpl",
                "{{- define \"x\" }}{{ end }}\n",
            ),
            (
                "charts/app/charts/vendored/Chart.yaml",
                "apiVersion: v2\nname: vendored\nversion: 1.0.0\n",
            ),
            ("charts/app/charts/vendored/values.yaml", "a: 1\n"),
            ("charts/app/README.md", "# app\n"),
        ],
    );
    let all = run_in(root, &["check", "--show-files"]);
    let chart = run_in(
        &root.join("charts"),
        &["check", "--show-files", "app/templates"],
    );
    let both = run_in(root, &["check", "--show-files", "--fix"]);
    let mut out = format!(
        "### the repository\n{all}\n### from charts/, one folder\n{chart}\n### with --fix\n{both}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = root.join("charts/app/templates");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        // Root reads any folder: there is nothing to say then.
        if std::fs::read_dir(&locked).is_err() {
            let unreadable = run_in(root, &["check", "--show-files"]);
            out.push_str(&format!("\n### an unreadable folder\n{unreadable}"));
        } else {
            out.push_str("\n### an unreadable folder\n(read as root: not tried)\n");
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    common::assert_snapshot("surface__show_files", &out);
}

/// A nested configuration without `extend` under one with `[[require]]` or
/// `[[idem]]` entries gets a note on every run, the cached one too: a note said
/// once is missed by the next person to run it (issue 35, surprise 6).
#[test]
fn a_nested_configuration_that_drops_entries_is_noted_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "tether.toml",
                "[[require]]\nfiles = [\"**/values.yaml\"]\nkey = \"replicas\"\n\n[[idem]]\nrun = \"true\"\nfiles = [\"charts/**\"]\n",
            ),
            ("charts/app/tether.toml", "[rules]\n"),
            ("charts/app/values.yaml", "replicas: 1\n"),
        ],
    );
    let first = run_in(root, &["check", "charts/app"]);
    let second = run_in(root, &["check", "charts/app"]);
    common::assert_snapshot(
        "surface__shadowing_note",
        &format!("### first run\n{first}\n### second run\n{second}"),
    );
}

/// `tether init` under a configuration writes `extend`; in a chart folder it says
/// which of tether's files `.helmignore` lacks, and `--helmignore` adds them.
#[test]
fn init_extends_and_minds_the_helmignore() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            ("tether.toml", "[rules]\n"),
            (
                "charts/app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\n",
            ),
            (
                "charts/app/.helmignore",
                "# Patterns to ignore\n.git/\nsnapshots\n",
            ),
        ],
    );
    let init = run_in(root, &["init", "charts/app"]);
    let written = std::fs::read_to_string(root.join("charts/app/tether.toml")).unwrap();
    let head: String = written.lines().take(8).collect::<Vec<_>>().join("\n");
    let again = run_in(root, &["init", "charts/app", "--force", "--helmignore"]);
    let helmignore = std::fs::read_to_string(root.join("charts/app/.helmignore")).unwrap();
    let third = run_in(root, &["init", "charts/app", "--force"]);
    let check = run_in(root, &["check", "--no-cache", "charts/app"]);
    common::assert_snapshot(
        "surface__init_extend_helmignore",
        &format!(
            "### tether init charts/app\n{init}\n### its first lines\n{head}\n### --force --helmignore\n{again}\n### .helmignore\n{helmignore}\n### once more: nothing to add\n{third}\n### the new file checks\n{check}"
        ),
    );
}

/// By default tether leaves out what chart tools leave out: a chart vendored
/// under another's `charts/`, helm-unittest suites, chart-testing's value
/// overrides; `default-exclude = false` checks them.
#[test]
fn chart_tools_defaults_leave_out_vendored_charts_and_test_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bad = "a: 1 #x\n";
    write_files(
        root,
        &[
            ("tether.toml", "[rules]\n"),
            (
                "charts/app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\n",
            ),
            ("charts/app/values.yaml", bad),
            (
                "charts/app/charts/dep/Chart.yaml",
                "apiVersion: v2\nname: dep\nversion: 1.0.0\n",
            ),
            ("charts/app/charts/dep/values.yaml", bad),
            ("charts/app/tests/deployment_test.yaml", bad),
            ("charts/app/ci/ha-values.yaml", bad),
            ("charts/app/templates/cm.yaml", "data:\n  a: 1 #x\n"),
        ],
    );
    let concise = [
        "check",
        "--no-cache",
        "--output-format",
        "concise",
        "--select",
        "comment-starting-space",
    ];
    let defaults = run_in(root, &concise);
    std::fs::write(root.join("tether.toml"), "default-exclude = false\n").unwrap();
    let everything = run_in(root, &concise);
    common::assert_snapshot(
        "surface__default_exclude",
        &format!("### defaults\n{defaults}\n### default-exclude = false\n{everything}"),
    );
}

/// A chart's `.helmignore` that is a link (to a file outside the chart) is never
/// written through, even with `--helmignore`.
#[test]
fn init_never_writes_through_a_linked_helmignore() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: c\nversion: 1.0.0\n",
            ),
            ("outside", "kept\n"),
        ],
    );
    std::os::unix::fs::symlink(root.join("outside"), root.join("chart/.helmignore")).unwrap();
    let output = run_in(root, &["init", "chart", "--helmignore"]);
    assert!(output.contains("is not a regular file"), "{output}");
    assert_eq!(
        std::fs::read_to_string(root.join("outside")).unwrap(),
        "kept\n"
    );
}
