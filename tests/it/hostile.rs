//! A pull request's files cannot hurt the machine that checks them: the cache never
//! writes through a link or trusts a committed file, and tether writes nothing where
//! there is no `tether.toml`.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

fn tether(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the tether binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@e"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs (cargo xtask ci installs it)");
    assert!(output.status.success(), "git {args:?}: {output:?}");
}

/// A chart with a finding and a `tether.toml`.
fn chart(dir: &Path) {
    std::fs::write(dir.join("tether.toml"), "").unwrap();
    std::fs::write(dir.join("values.yaml"), "#bad\nkey: 1\n").unwrap();
}

#[test]
fn the_cache_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "precious\n").unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".tether_cache")).unwrap();
    chart(&repo);
    // A committed `.gitignore` link: the cache is written beside it, not through it.
    std::os::unix::fs::symlink(&outside, repo.join(".tether_cache/.gitignore")).unwrap();
    let output = tether(&repo, &["check"]);
    assert!(
        text(&output).contains("comment-starting-space"),
        "{}",
        text(&output)
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
    assert!(repo.join(".tether_cache/check.json").is_file());
    // A `check.json` link is neither read nor written through: the run goes on
    // without the cache and says so.
    std::fs::remove_file(repo.join(".tether_cache/check.json")).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join(".tether_cache/check.json")).unwrap();
    let output = tether(&repo, &["check"]);
    assert!(
        text(&output).contains("note: cache not used: cannot open .tether_cache/check.json"),
        "{}",
        text(&output)
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
}

#[test]
fn a_cache_folder_that_is_a_link_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    chart(&repo);
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    std::os::unix::fs::symlink(".", repo.join(".tether_cache")).unwrap();
    let output = tether(&repo, &["check"]);
    assert!(
        text(&output).contains("note: cache not used: .tether_cache is a symbolic link"),
        "{}",
        text(&output)
    );
    assert_eq!(
        std::fs::read_to_string(repo.join(".gitignore")).unwrap(),
        "target/\n"
    );
    assert!(!repo.join("check.json").exists());
}

#[test]
fn a_committed_or_edited_cache_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    chart(repo);
    let first = tether(repo, &["check"]);
    assert!(text(&first).contains("comment-starting-space"));
    // Edited to hide the finding: the checksum no longer matches.
    let cache = repo.join(".tether_cache/check.json");
    let edited = std::fs::read_to_string(&cache)
        .unwrap()
        .replace("comment-starting-space", "nothing-to-see");
    std::fs::write(&cache, edited).unwrap();
    let after_edit = tether(repo, &["check"]);
    assert!(
        text(&after_edit).contains("warning[comment-starting-space]"),
        "{}",
        text(&after_edit)
    );
    // Committed: it came with the checkout.
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-f", ".tether_cache/check.json"]);
    git(repo, &["commit", "-qm", "cache"]);
    let committed = tether(repo, &["check"]);
    assert!(
        text(&committed).contains("note: cache not used: .tether_cache/ is tracked by git"),
        "{}",
        text(&committed)
    );
    assert!(text(&committed).contains("warning[comment-starting-space]"));
}

#[test]
fn nothing_is_written_without_a_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("cwd");
    let chart = dir.path().join("chart");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(chart.join("values.yaml"), "#bad\nkey: 1\n").unwrap();
    let output = tether(&elsewhere, &["check", chart.to_str().unwrap()]);
    assert!(text(&output).contains("comment-starting-space"));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!chart.join(".tether_cache").exists());
}

/// Special files and hostile configurations: a message that names what is wrong and
/// exit 2, never a hang, never memory exhaustion, never "no such file".
#[test]
fn special_files_and_hostile_configurations() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fifo = root.join("pipe.yaml");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("loop-b.yaml", root.join("loop-a.yaml")).unwrap();
    std::os::unix::fs::symlink("loop-a.yaml", root.join("loop-b.yaml")).unwrap();
    let configs: &[(&str, &[u8])] = &[
        ("not-utf8.toml", b"exclude = [\"a\"]\n# caf\xe9\n"),
        ("nul-in-string.toml", b"exclude = [\"a\0b\"]\n"),
        ("nul-in-comment.toml", b"# a comment\0 with a NUL\n"),
    ];
    for (name, bytes) in configs {
        std::fs::write(root.join(name), bytes).unwrap();
    }
    std::fs::write(
        root.join("huge.toml"),
        format!("# {}\n", "x".repeat(1024 * 1024)),
    )
    .unwrap();
    let folder_config = root.join("folder-config");
    std::fs::create_dir_all(folder_config.join("tether.toml")).unwrap();
    std::fs::write(folder_config.join("values.yaml"), "key: 1\n").unwrap();
    let mut out = String::new();
    let mut run = |dir: &Path, args: &[&str]| {
        let output = tether(dir, args);
        out.push_str(&format!(
            "### tether {}\nexit code: {:?}\n{}\n",
            args.join(" "),
            output.status.code(),
            text(&output).replace(&root.display().to_string(), "[DIR]")
        ));
    };
    run(root, &["map", "pipe.yaml"]);
    run(root, &["check", "--no-cache", "pipe.yaml"]);
    run(root, &["check", "--no-cache", "loop-a.yaml"]);
    run(root, &["map", "/dev/zero"]);
    run(root, &["check", "--config", "pipe.yaml"]);
    run(root, &["check", "--config", "/dev/zero"]);
    for (name, _) in configs {
        run(root, &["check", "--config", name]);
    }
    run(root, &["check", "--config", "huge.toml"]);
    run(&folder_config, &["check"]);
    common::assert_snapshot("hostile__special_files", &out);
}

#[test]
fn a_fifo_in_the_cache_does_not_hang_the_run() {
    let dir = tempfile::tempdir().unwrap();
    chart(dir.path());
    std::fs::create_dir_all(dir.path().join(".tether_cache")).unwrap();
    let fifo = dir.path().join(".tether_cache/check.json");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let output = tether(dir.path(), &["check"]);
    assert!(
        text(&output)
            .contains("note: cache not used: .tether_cache/check.json is not a regular file"),
        "{}",
        text(&output)
    );
}

/// Terminal escape sequences in a file are shown, never sent to the terminal.
#[test]
fn control_characters_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("values.yaml"),
        "key: 1 #\u{1b}]0;owned\u{7}\u{1b}[2J title\n",
    )
    .unwrap();
    let output = tether(dir.path(), &["check", "--no-cache", "values.yaml"]);
    let shown = text(&output);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    assert!(shown.contains(r"#\x1b]0;owned\x07\x1b[2J title"), "{shown}");
}

/// A read-only checkout is checked; the cache says once why it was not written.
#[test]
fn a_read_only_checkout_is_checked() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    chart(dir.path());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let mut command = common::tether_unprivileged();
    let output = command
        .arg("check")
        .current_dir(dir.path())
        .output()
        .expect("setpriv (util-linux) runs the binary as nobody");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}");
    assert!(shown.contains("warning[comment-starting-space]"), "{shown}");
    assert!(
        shown.contains("note: cache not used: cannot create .tether_cache/: Permission denied"),
        "{shown}"
    );
}

/// 20,000 pinned dependencies (about 600 KB of `Chart.yaml`) made the one regular
/// expression of every pinned name exceed its size limit, and the error turned
/// `stale-version-reference` into "no findings" for the whole repository. The names
/// are now matched by an automaton that grows with their length: the stale comment
/// is found.
#[test]
fn many_pinned_names_keep_the_version_rule_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("umbrella/templates")).unwrap();
    let mut chart = String::from("apiVersion: v2\nname: umbrella\nversion: 1.0.0\ndependencies:\n");
    for index in 0..20_000 {
        chart.push_str(&format!(
            "  - name: component-number-{index}\n    version: 1.2.{}\n    repository: https://charts.example.com\n",
            index % 10
        ));
    }
    std::fs::write(root.join("umbrella/Chart.yaml"), &chart).unwrap();
    std::fs::write(
        root.join("umbrella/values.yaml"),
        "# component-number-17 (1.0.0) needs the flag below.\nflag: true\n",
    )
    .unwrap();
    let output = tether(root, &["check", "--select", "stale-version-reference", "."]);
    let shown = text(&output);
    assert!(
        shown.contains("this comment says component-number-17 1.0.0, but it is pinned at 1.2.7"),
        "{shown}"
    );
}

/// A `.helmdocsignore` that is a FIFO (or a link to `/dev/zero`) is never opened for
/// reading: the check ends, and the helm-docs finding it would not suppress stays.
#[cfg(unix)]
#[test]
fn a_hostile_helmdocsignore_does_not_hang_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("chart")).unwrap();
    std::fs::write(
        root.join("chart/Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        root.join("chart/values.yaml"),
        "# -- First.\n# -- Second.\nnodeSelector: {}\n",
    )
    .unwrap();
    let fifo = std::ffi::CString::new(root.join(".helmdocsignore").to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo has no other precondition.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("/dev/zero", root.join("chart/.helmdocsignore")).unwrap();
    let output = tether(
        root,
        &["check", "--no-cache", "--select", "orphan-value-doc", "."],
    );
    let shown = text(&output);
    assert!(shown.contains("keeps only the last one"), "{shown}");
}

/// On Unix `a\b.yaml` is one file in the chart's folder, not `b.yaml` in `a/`: every
/// format names it as it is, and a diff with an escape sequence reaches no terminal
/// raw (piped, it stays what `git apply` reads).
#[cfg(unix)]
#[test]
fn a_backslash_in_a_name_is_shown_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tether.toml"), "").unwrap();
    std::fs::write(dir.path().join("a\\b.yaml"), "#bad\n").unwrap();
    let human = text(&tether(dir.path(), &["check", "--no-cache", "."]));
    assert!(human.contains("a\\b.yaml:1:2"), "{human}");
    let json = text(&tether(
        dir.path(),
        &["check", "--no-cache", "--format", "json", "."],
    ));
    assert!(json.contains(r#""path": "a\\b.yaml""#), "{json}");
    let sarif = text(&tether(
        dir.path(),
        &["check", "--no-cache", "--format", "sarif", "."],
    ));
    assert!(sarif.contains("a%5Cb.yaml"), "{sarif}");
}

/// A file's escape sequences (`ESC ]0;title BEL` sets a terminal's title, `ESC [2J`
/// clears it) reach no terminal from `map`, `--show-settings`, `--show-files` or an
/// error: they are shown as `\x1b`.
#[cfg(unix)]
#[test]
fn escape_sequences_of_a_file_are_shown_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tether.toml"), "").unwrap();
    let name = "v\u{1b}]0;owned\u{7}.yaml";
    std::fs::write(
        dir.path().join(name),
        "# \u{1b}[2J cleared\nkey: 1 # \u{1b}[31m red\n",
    )
    .unwrap();
    for args in [
        vec!["map", name],
        vec!["check", "--show-settings", name],
        vec!["check", "--show-files", "."],
    ] {
        let output = tether(dir.path(), &args);
        let shown = text(&output);
        assert!(!shown.contains('\u{1b}'), "{args:?}: {shown:?}");
        assert!(!shown.contains('\u{7}'), "{args:?}: {shown:?}");
        assert!(shown.contains("\\x1b"), "{args:?}: {shown:?}");
    }
    // An error naming a file that is not there.
    let missing = "gone\u{1b}[2J.yaml";
    for args in [vec!["map", missing], vec!["check", "--show-files", missing]] {
        let shown = text(&tether(dir.path(), &args));
        assert!(!shown.contains('\u{1b}'), "{args:?}: {shown:?}");
        assert!(shown.contains("\\x1b"), "{args:?}: {shown:?}");
    }
}
