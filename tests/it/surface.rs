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
