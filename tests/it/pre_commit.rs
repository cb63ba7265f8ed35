//! The pre-commit hooks of `.pre-commit-hooks.yaml`, run by real pre-commit (PyPI,
//! installed into `target/ci-venv` by `cargo xtask ci`) from this checkout as the hook
//! repository at its HEAD: a commit that moves a required comment off its key is
//! refused, with the finding printed.
//!
//! Outside CI the test says so and passes when pre-commit is absent; with `CI=true`
//! an absent pre-commit is a failure.

#![allow(clippy::print_stderr)]

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

fn checkout() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn git(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new("git");
    command
        .args(["-c", "user.name=t", "-c", "user.email=t@e"])
        .args(args)
        .current_dir(dir)
        .env("PRE_COMMIT_HOME", checkout().join("target/pre-commit-home"))
        // The hook's `cargo install` builds in this checkout's target folder, so
        // it reuses the dependencies of `cargo xtask ci`'s release build instead of
        // building them a second time; the newest versions, as the lock file has them, not the oldest a Rust 1.85
        // would take (which `cargo install` without `--locked` prefers).
        .env("CARGO_TARGET_DIR", checkout().join("target"))
        .env("CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS", "allow");
    // `cargo xtask ci` builds the shipped binary (the static musl build on Linux)
    // before the tests and names its target here, with the compiler it needs in the
    // environment: the hook builds for it too and reuses every dependency.
    if let Some(target) = std::env::var_os("TETHER_RELEASE_TARGET") {
        command.env("CARGO_BUILD_TARGET", target);
    }
    command.output().expect("git runs")
}

#[test]
#[ignore = "pre-commit builds tether in release from a clone (minutes): `cargo xtask ci` runs it"]
fn a_commit_that_moves_a_required_comment_is_refused() {
    let Some(pre_commit) = common::installed_tool("target/ci-venv/bin/pre-commit") else {
        return;
    };
    // The hook's `cargo install` runs in pre-commit's clone under PRE_COMMIT_HOME, so
    // cargo reads this configuration: the clone's crate (a new package to cargo, its
    // path differs) is built unoptimised, the dependencies as the release build has
    // them. The test holds the hook's wiring, not the optimiser; at opt-level 3 this
    // one compile was the test suite's longest step.
    let home = checkout().join("target/pre-commit-home/.cargo");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        "[profile.release.package.helm-tether]\nopt-level = 0\n",
    )
    .unwrap();
    let head = git(checkout(), &["rev-parse", "HEAD"]);
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir_all(repo.join("templates")).unwrap();
    std::fs::write(
        repo.join("tether.toml"),
        "[[require]]\nfiles = [\"templates/*.yaml\"]\nkey = \"spec.strategy\"\nplacement = \"trailing\"\nmatches = [\"VMIs\"]\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("templates/cr.yaml"),
        "spec:\n  strategy: LiveMigrate  # applies to VMIs created after the switch\n",
    )
    .unwrap();
    std::fs::write(
        repo.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {head}\n    hooks:\n      - id: tether-check\n",
            checkout().display()
        ),
    )
    .unwrap();
    assert!(git(repo, &["init", "-q"]).status.success());
    let install = Command::new(&pre_commit)
        .arg("install")
        .current_dir(repo)
        .output()
        .expect("pre-commit runs");
    assert!(install.status.success(), "{install:?}");
    assert!(git(repo, &["add", "."]).status.success());
    let first = git(repo, &["commit", "-qm", "chart"]);
    assert!(
        first.status.success(),
        "the first commit has its comment: {}{}",
        String::from_utf8_lossy(&first.stdout),
        String::from_utf8_lossy(&first.stderr)
    );
    // A hand-merge moves the comment above its key.
    std::fs::write(
        repo.join("templates/cr.yaml"),
        "spec:\n  # applies to VMIs created after the switch\n  strategy: LiveMigrate\n",
    )
    .unwrap();
    assert!(git(repo, &["add", "."]).status.success());
    let refused = git(repo, &["commit", "-qm", "hand-merge"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(!refused.status.success(), "the commit went through: {said}");
    assert!(said.contains("tether check"), "{said}");
    assert!(
        said.contains(
            "error[required-comment]: the comment on `spec.strategy` is leading (line 2) but must be trailing"
        ),
        "{said}"
    );
    // Files named like options, committed beside it, stay file names: without the
    // hook's `--`, `--config=evil.yml` loads `evil.yml` as the configuration, which
    // excludes everything, and pre-commit says "Passed".
    std::fs::write(repo.join("evil.yml"), "exclude = [\"**\"]\n").unwrap();
    std::fs::write(repo.join("--config=evil.yml"), "").unwrap();
    assert!(git(repo, &["add", "--", "."]).status.success());
    let still = git(
        repo,
        &["commit", "-qm", "hand-merge, with options for names"],
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&still.stdout),
        String::from_utf8_lossy(&still.stderr)
    );
    assert!(!still.status.success(), "the commit went through: {said}");
    assert!(said.contains("error[required-comment]"), "{said}");
}

/// The wheel-based hook repository (`pre-commit/`, published as
/// `cozystack/tether-pre-commit`) has the crate's version and pins the wheel of that
/// version, so a release tags a hook repository that installs its own tether.
/// (`cargo xtask ci` runs its hooks from the wheel under real pre-commit.)
#[test]
fn the_wheel_hook_repository_pins_this_version() {
    let pyproject = std::fs::read_to_string(checkout().join("pre-commit/pyproject.toml")).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        pyproject.contains(&format!("\nversion = \"{version}\"\n")),
        "pre-commit/pyproject.toml: version must be {version}"
    );
    assert!(
        pyproject.contains(&format!("dependencies = [\"helm-tether=={version}\"]")),
        "pre-commit/pyproject.toml must pin helm-tether=={version}"
    );
    let readme = std::fs::read_to_string(checkout().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("rev: v{version}")),
        "the README pins the hooks to v{version}"
    );
}

/// Both hook files (built from source, and from the wheel) check a staged
/// `tether.toml` and run only the idem targets the commit touches (issue 35,
/// surprise 7).
#[test]
fn the_hooks_see_a_staged_configuration_and_run_only_changed_targets() {
    for file in [
        ".pre-commit-hooks.yaml",
        "pre-commit/.pre-commit-hooks.yaml",
    ] {
        let text = std::fs::read_to_string(checkout().join(file)).unwrap();
        let hook = |id: &str| -> String {
            let start = text.find(&format!("\n- id: {id}\n")).unwrap() + 1;
            let rest = &text[start + 1..];
            rest[..rest.find("\n- id:").unwrap_or(rest.len())].to_string()
        };
        let field = |hook: &str, name: &str| -> String {
            hook.lines()
                .find_map(|line| line.trim().strip_prefix(&format!("{name}: ")))
                .unwrap()
                .to_string()
        };
        let check = hook("tether-check");
        let files = regex::Regex::new(&field(&check, "files")).unwrap();
        for staged in [
            "tether.toml",
            "charts/app/tether.toml",
            "charts/app/values.yaml",
            "a/_helpers.tpl",
        ] {
            assert!(
                files.is_match(staged),
                "{file}: tether-check skips {staged}"
            );
        }
        assert!(!files.is_match("charts/app/not-tether.toml"), "{file}");
        let idem = hook("tether-idem");
        assert_eq!(
            field(&idem, "entry"),
            "tether idem --changed-since HEAD",
            "{file}"
        );
    }
}
