//! `tether snapshot`: comment-map snapshots of every template and values file,
//! written by `--update` and compared by `--check`, on copies of the example chart.

use crate::common;

use std::path::Path;
use std::process::Command;

/// A copy of `examples/kubevirt` in a fresh folder, without its snapshots.
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubevirt"),
        &dir.path().join("kubevirt"),
    );
    std::fs::remove_dir_all(dir.path().join("kubevirt/snapshots")).unwrap();
    dir
}

/// The example chart's committed snapshots are current, as `docs/src/snapshot.md` shows.
#[test]
fn the_example_chart_snapshots_are_current() {
    let output = snapshot(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["examples/kubevirt"],
    );
    assert!(output.starts_with("exit code: 0\n"), "{output}");
}

/// `tether snapshot ARGS` in `dir`, as CI runs it (no pending files): exit code,
/// stdout and stderr.
fn snapshot(dir: &Path, args: &[&str]) -> String {
    run_snapshot(dir, args, true, "")
}

/// `tether snapshot ARGS` in `dir`, in CI or as a person runs it, `answers` on its
/// standard input.
fn run_snapshot(dir: &Path, args: &[&str], ci: bool, answers: &str) -> String {
    use std::io::Write as _;
    let mut command = Command::new(env!("CARGO_BIN_EXE_tether"));
    command
        .arg("snapshot")
        .args(args)
        .current_dir(dir)
        .env("GITHUB_WORKSPACE", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if ci {
        command.env("CI", "true");
    } else {
        command.env_remove("CI");
    }
    let mut child = command.spawn().unwrap();
    // A run that asks nothing may end before reading its input: that is no failure.
    if let Err(error) = child.stdin.take().unwrap().write_all(answers.as_bytes()) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    let output = child.wait_with_output().unwrap();
    let text = format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.replace(&dir.display().to_string(), "[DIR]")
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn update_twice_then_check_passes() {
    let dir = example();
    let first = snapshot(dir.path(), &["--update", "kubevirt"]);
    let written = dir
        .path()
        .join("kubevirt/snapshots/templates/kubevirt-cr.yaml.snap");
    let modified = std::fs::metadata(&written).unwrap().modified().unwrap();
    let second = snapshot(dir.path(), &["--update", "kubevirt"]);
    let check = snapshot(dir.path(), &["kubevirt", "--check"]);
    common::assert_snapshot(
        "snapshot__update_twice_then_check",
        &format!("{first}\n{second}\n{check}"),
    );
    assert_eq!(
        std::fs::metadata(&written).unwrap().modified().unwrap(),
        modified,
        "a second --update rewrote an unchanged snapshot"
    );
    common::assert_snapshot(
        "snapshot__kubevirt_cr_snap",
        &std::fs::read_to_string(&written).unwrap(),
    );
}

/// The seed case: a block spliced in between a comment and its key makes the comment
/// document the block's key. The diff names both keys; the annotation points at the
/// key that now has the comment.
#[test]
fn a_comment_that_moves_to_another_key_fails_with_a_diff() {
    let dir = example();
    snapshot(dir.path(), &["--update", "kubevirt"]);
    edit(
        &dir.path().join("kubevirt/templates/kubevirt-cr.yaml"),
        "    {{- with .Values.resources }}\n",
        "    {{- with .Values.resources }}\n    {{- with .Values.extra }}\n    extra: {{ . }}\n    {{- end }}\n",
    );
    let human = snapshot(dir.path(), &["kubevirt"]);
    let github = snapshot(dir.path(), &["kubevirt", "--format", "github"]);
    common::assert_snapshot("snapshot__comment_moved", &format!("{human}\n{github}"));
    let json = snapshot(dir.path(), &["kubevirt", "--format", "json"]);
    common::assert_snapshot("snapshot__comment_moved_json", &json);
}

/// What the snapshot leaves out, lines and uncommented keys, may change freely; a
/// comment's text may not.
#[test]
fn inserted_lines_and_keys_pass_and_changed_text_fails() {
    let dir = example();
    snapshot(dir.path(), &["--update", "kubevirt"]);
    let template = dir.path().join("kubevirt/templates/kubevirt-cr.yaml");
    edit(
        &template,
        "spec:\n",
        "spec:\n  newKey: 1\n\n  anotherKey:\n    nested: true\n",
    );
    let inserted = snapshot(dir.path(), &["kubevirt"]);
    assert!(inserted.starts_with("exit code: 0\n"), "{inserted}");
    edit(&template, "Migrate first;", "Evict first;");
    let changed = snapshot(dir.path(), &["kubevirt"]);
    common::assert_snapshot("snapshot__changed_text", &changed);
}

/// A covered file without a snapshot and a snapshot without its file both fail the
/// check; `--update` writes the one and removes the other.
#[test]
fn missing_and_orphan_snapshots_fail() {
    let dir = example();
    snapshot(dir.path(), &["--update", "kubevirt"]);
    let chart = dir.path().join("kubevirt");
    std::fs::write(
        chart.join("templates/configmap.yaml"),
        "# Settings read by virt-handler.\ndata:\n  a: 1\n",
    )
    .unwrap();
    std::fs::remove_file(chart.join("templates/_helpers.tpl")).unwrap();
    let check = snapshot(dir.path(), &["kubevirt"]);
    let update = snapshot(dir.path(), &["kubevirt", "--update"]);
    let again = snapshot(dir.path(), &["kubevirt"]);
    common::assert_snapshot(
        "snapshot__missing_and_orphan",
        &format!("{check}\n{update}\n{again}"),
    );
    assert!(!chart.join("snapshots/templates/_helpers.tpl.snap").exists());
}

/// The snapshot folder is never reached through a symlink, and `[snapshot] dir`
/// stays inside the configuration's folder.
#[test]
fn snapshots_stay_inside_the_configuration_folder() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), chart.join("snapshots")).unwrap();
    let symlinked = snapshot(dir.path(), &["kubevirt", "--update"]);
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    std::fs::remove_file(chart.join("snapshots")).unwrap();
    // A snapshot that links elsewhere is never read (its diff would print the target).
    snapshot(dir.path(), &["kubevirt", "--update"]);
    let secret = elsewhere.path().join("secret");
    std::fs::write(&secret, "token: hunter2\n").unwrap();
    let values = chart.join("snapshots/values.yaml.snap");
    std::fs::remove_file(&values).unwrap();
    std::os::unix::fs::symlink(&secret, &values).unwrap();
    let linked = snapshot(dir.path(), &["kubevirt"]);
    assert!(!linked.contains("hunter2"), "{linked}");
    std::fs::remove_dir_all(chart.join("snapshots")).unwrap();
    let config = chart.join("tether.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\n[snapshot]\ndir = \"../outside\"\n"),
    )
    .unwrap();
    let outside = snapshot(dir.path(), &["kubevirt", "--update"]);
    assert!(!dir.path().join("outside").exists());
    common::assert_snapshot(
        "snapshot__refused_folders",
        &format!("{symlinked}\n{linked}\n{outside}"),
    );
}

/// `[snapshot] dir` moves the folder.
#[test]
fn snapshot_dir_setting() {
    let dir = example();
    let config = dir.path().join("kubevirt/tether.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\n[snapshot]\ndir = \"tests/comment-maps\"\n"),
    )
    .unwrap();
    let update = snapshot(dir.path(), &["kubevirt", "--update"]);
    assert!(update.starts_with("exit code: 0\n"), "{update}");
    assert!(
        dir.path()
            .join("kubevirt/tests/comment-maps/values.yaml.snap")
            .is_file()
    );
}

/// `--update` rewrites and removes only the snapshots tether wrote: insta's `.snap`
/// files in the same folder, and (with `dir = "."`) a JavaScript test's
/// `__snapshots__/*.snap`, are neither removed nor compared, and a file of another
/// tool where a tether snapshot belongs is kept and said.
#[test]
fn update_touches_only_the_snapshots_tether_wrote() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let insta = "---\nsource: tests/render.rs\nexpression: render()\n---\nkind: ConfigMap\n";
    std::fs::create_dir_all(chart.join("snapshots")).unwrap();
    for name in ["render__configmap.snap", "render__deployment.snap"] {
        std::fs::write(chart.join("snapshots").join(name), insta).unwrap();
    }
    let update = snapshot(dir.path(), &["kubevirt", "--update"]);
    assert!(update.starts_with("exit code: 0\n"), "{update}");
    for name in ["render__configmap.snap", "render__deployment.snap"] {
        assert_eq!(
            std::fs::read_to_string(chart.join("snapshots").join(name)).unwrap(),
            insta
        );
    }
    let check = snapshot(dir.path(), &["kubevirt"]);
    assert!(check.starts_with("exit code: 0\n"), "{check}");

    // The snapshot folder is the chart's own folder.
    std::fs::remove_dir_all(chart.join("snapshots")).unwrap();
    let config = chart.join("tether.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\n[snapshot]\ndir = \".\"\n")).unwrap();
    std::fs::create_dir_all(chart.join("web/__snapshots__")).unwrap();
    let jest = "// Jest Snapshot v1, https://goo.gl/fbAQLP\n\nexports[`app 1`] = `<div />`;\n";
    std::fs::write(chart.join("web/__snapshots__/app.test.js.snap"), jest).unwrap();
    // Where the snapshot of values.yaml belongs, another tool's file.
    std::fs::write(chart.join("values.yaml.snap"), insta).unwrap();
    let update = snapshot(dir.path(), &["kubevirt", "--update"]);
    assert_eq!(
        std::fs::read_to_string(chart.join("web/__snapshots__/app.test.js.snap")).unwrap(),
        jest
    );
    assert_eq!(
        std::fs::read_to_string(chart.join("values.yaml.snap")).unwrap(),
        insta
    );
    assert!(
        update.contains("values.yaml.snap exists and is not a tether snapshot"),
        "{update}"
    );
}

/// Every template and values file of the Cozystack corpus (its own charts), copied: `--update` then
/// `--check` passes, and a second `--update` writes nothing.
#[test]
fn cozystack_corpus_round_trips() {
    let Some(corpus) = common::corpus_dir("the corpus snapshot round trip") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus.join("cozystack"), &dir.path().join("cozystack"));
    let update = snapshot(dir.path(), &["cozystack", "--update"]);
    assert!(update.starts_with("exit code: 0\n"), "{update}");
    let again = snapshot(dir.path(), &["cozystack", "--update"]);
    assert!(again.contains(" files, 0 snapshots updated"), "{again}");
    let check = snapshot(dir.path(), &["cozystack"]);
    assert!(check.starts_with("exit code: 0\n"), "{check}");
    let files: usize = check
        .split("----- stdout -----\n")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or(0);
    // Cozystack's own templates and values files; the upstream charts vendored under
    // its charts' `charts/` folders are left out by default.
    assert!(files > 700, "only {files} files snapshotted: {check}");
}

/// Paths filter, as in `tether check`: `--update templates/x.yaml` writes that
/// file's snapshot only; a file that gets no snapshot, or a path that does not
/// exist, is an error.
#[test]
fn paths_filter_the_files() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let one = snapshot(&chart, &["--update", "templates/kubevirt-cr.yaml"]);
    let check_one = snapshot(&chart, &["templates/kubevirt-cr.yaml"]);
    let check_all = snapshot(&chart, &[]);
    let not_snapshotted = snapshot(&chart, &["Chart.yaml"]);
    let absent = snapshot(&chart, &["templates/nope.yaml"]);
    common::assert_snapshot(
        "snapshot__paths_filter",
        &format!(
            "### --update templates/kubevirt-cr.yaml\n{one}\n### templates/kubevirt-cr.yaml\n{check_one}\n### (all)\n{check_all}\n### Chart.yaml\n{not_snapshotted}\n### templates/nope.yaml\n{absent}"
        ),
    );
}

/// Outside CI a changed snapshot is written beside the old one as `.snap.new`;
/// `--review` walks through them (accept, reject, skip), `--accept` and
/// `--reject` do all at once, and CI never writes one. A file without a snapshot
/// gets no pending one (`--update` writes it).
#[test]
fn pending_snapshots_are_reviewed() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let configmap = chart.join("templates/configmap.yaml");
    std::fs::write(
        &configmap,
        "# Settings read by virt-handler.\ndata:\n  a: 1\n",
    )
    .unwrap();
    snapshot(&chart, &["--update"]);
    let template = chart.join("templates/kubevirt-cr.yaml");
    edit(&template, "Migrate first;", "Evict first;");
    edit(
        &configmap,
        "# Settings read by virt-handler.\ndata:",
        "data:\n  # Settings read by virt-handler.",
    );
    std::fs::write(
        chart.join("templates/secret.yaml"),
        "# A new file.\nstringData: {}\n",
    )
    .unwrap();
    let pending = chart.join("snapshots/templates/kubevirt-cr.yaml.snap.new");
    let in_ci = run_snapshot(&chart, &[], true, "");
    assert!(!pending.exists(), "CI wrote a pending snapshot");
    let by_hand = run_snapshot(&chart, &[], false, "");
    assert!(pending.exists(), "{by_hand}");
    assert!(
        !chart
            .join("snapshots/templates/secret.yaml.snap.new")
            .exists(),
        "a file without a snapshot got a pending one: {by_hand}"
    );
    let again = run_snapshot(&chart, &[], false, "");
    let review = run_snapshot(&chart, &["--review"], false, "x\na\ns\n");
    let after_review = run_snapshot(&chart, &[], true, "");
    let reject = run_snapshot(&chart, &["--reject"], false, "");
    let none = run_snapshot(&chart, &["--review"], false, "");
    // A file changed back: its pending snapshot is dropped by the next check.
    run_snapshot(&chart, &[], false, "");
    assert!(pending.exists());
    edit(&template, "Evict first;", "Migrate first;");
    let changed_back = run_snapshot(&chart, &[], false, "");
    assert!(!pending.exists(), "{changed_back}");
    edit(&template, "Migrate first;", "Evict first;");
    run_snapshot(&chart, &[], false, "");
    let accept = run_snapshot(&chart, &["--accept"], false, "");
    let clean = run_snapshot(&chart, &[], false, "");
    common::assert_snapshot(
        "snapshot__pending_review",
        &format!(
            "### in CI\n{in_ci}\n### by hand\n{by_hand}\n### again (nothing rewritten)\n{again}\n### --review: x, a, s\n{review}\n### after the review\n{after_review}\n### --reject\n{reject}\n### --review with none\n{none}\n### the file changed back\n{changed_back}\n### --accept\n{accept}\n### then\n{clean}"
        ),
    );
    let leftovers: Vec<_> = std::fs::read_dir(chart.join("snapshots/templates"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "new"))
        .map(|entry| entry.path().display().to_string())
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A pending snapshot planted by a stranger's pull request is never followed:
/// a `.snap.new` that is a link to a file outside, or a file without tether's
/// mark, is not listed, accepted or rejected, and what it points at is untouched.
#[test]
fn planted_pending_files_are_left_alone() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    snapshot(&chart, &["--update"]);
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "# tether snapshot of secrets\n").unwrap();
    let templates = chart.join("snapshots/templates");
    // A file without tether's mark alone: nothing is pending.
    std::fs::write(
        templates.join("_helpers.tpl.snap.new"),
        "another tool's file\n",
    )
    .unwrap();
    for args in [&["--accept"][..], &["--reject"], &["--review"]] {
        let output = run_snapshot(&chart, args, false, "a\n");
        assert!(output.contains("no pending snapshots"), "{output}");
    }
    // A link beside it: refused, with the link named, and never followed.
    std::os::unix::fs::symlink(&outside, templates.join("kubevirt-cr.yaml.snap.new")).unwrap();
    for args in [&["--accept"][..], &["--reject"], &["--review"]] {
        let output = run_snapshot(&chart, args, false, "a\n");
        assert!(
            output.starts_with("exit code: 2") && output.contains("kubevirt-cr.yaml.snap.new"),
            "{output}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "# tether snapshot of secrets\n"
    );
    assert!(
        templates
            .join("kubevirt-cr.yaml.snap.new")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(templates.join("_helpers.tpl.snap.new")).unwrap(),
        "another tool's file\n"
    );
}

/// A repository that keeps no snapshots: a check writes nothing (no pending file
/// for a file without a snapshot), and removing the snapshot of a file that is gone
/// leaves no empty folder behind (issue 35, surprise 5).
#[test]
fn a_check_without_snapshots_writes_nothing_and_removals_leave_no_empty_folders() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let check = run_snapshot(&chart, &[], false, "");
    assert!(
        !chart.join("snapshots").exists(),
        "a check wrote snapshots: {check}"
    );
    let nested = chart.join("templates/extra/cm.yaml");
    std::fs::create_dir_all(nested.parent().unwrap()).unwrap();
    std::fs::write(&nested, "# Read by the app.\ndata:\n  a: 1\n").unwrap();
    snapshot(&chart, &["--update"]);
    assert!(
        chart
            .join("snapshots/templates/extra/cm.yaml.snap")
            .is_file()
    );
    std::fs::remove_dir_all(nested.parent().unwrap()).unwrap();
    snapshot(&chart, &["--update"]);
    assert!(
        !chart.join("snapshots/templates/extra").exists(),
        "the emptied folder of a removed snapshot is left"
    );
    assert!(chart.join("snapshots/templates").is_dir());
}

/// A stranger's pull request links a folder of the snapshot folder to a folder
/// outside, holding a file with tether's mark: `--update` removes no snapshot
/// through the link and no folder it leaves behind, and the link stays.
#[cfg(unix)]
#[test]
fn removals_never_reach_through_a_linked_snapshot_folder() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    snapshot(&chart, &["--update"]);
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let planted = outside.join("gone.yaml.snap");
    std::fs::write(
        &planted,
        "# tether snapshot of templates/linked/gone.yaml\n",
    )
    .unwrap();
    let link = chart.join("snapshots/templates/linked");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let update = snapshot(&chart, &["--update"]);
    assert!(planted.is_file(), "a file outside was removed: {update}");
    assert!(outside.is_dir(), "a folder outside was removed: {update}");
    assert!(
        link.symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink()),
        "the link was removed: {update}"
    );
}

/// The files under `folder`, relative to it, sorted: what a run left on disk.
fn files_under(folder: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![folder.to_path_buf()];
    while let Some(next) = todo.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                todo.push(entry.path());
            } else {
                let relative = entry.path().strip_prefix(folder).unwrap().to_path_buf();
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// `--update` says exactly what it wrote. A failure that stops every write (here a
/// link in the snapshot folder) writes nothing, and every line and the summary say
/// so; a snapshot that cannot be written (a folder where it belongs) is a failure of
/// its own while the others are written and said. Either way the run exits 2 naming
/// the failure.
#[cfg(unix)]
#[test]
fn update_says_what_it_wrote_when_a_failure_stops_it() {
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let snapshots = chart.join("snapshots");
    std::fs::create_dir_all(&snapshots).unwrap();
    std::fs::write(dir.path().join("outside"), "token: hunter2\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), snapshots.join("link.snap")).unwrap();
    let stopped = snapshot(&chart, &["--update"]);
    let stopped_github = snapshot(&chart, &["--update", "--format", "github"]);
    let stopped_json = snapshot(&chart, &["--update", "--format", "json"]);
    assert_eq!(files_under(&snapshots), ["link.snap"], "{stopped}");

    std::fs::remove_file(snapshots.join("link.snap")).unwrap();
    std::fs::create_dir_all(snapshots.join("values.yaml.snap")).unwrap();
    let one_failed = snapshot(&chart, &["--update"]);
    assert_eq!(
        files_under(&snapshots),
        [
            "templates/_helpers.tpl.snap",
            "templates/kubevirt-cr.yaml.snap"
        ],
        "{one_failed}"
    );
    common::assert_snapshot(
        "snapshot__update_stopped_by_a_failure",
        &format!("{stopped}\n{stopped_github}\n{stopped_json}\n{one_failed}"),
    );
}

/// Snapshots are written with the mode a new file gets, 0666 less the umask, as
/// `touch` or an editor would create them (not tempfile's 0600), whether new or
/// replacing an older snapshot.
#[cfg(unix)]
#[test]
fn snapshots_get_the_mode_of_a_new_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = example();
    let chart = dir.path().join("kubevirt");
    let update = |umask: &str| {
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" snapshot --update"))
            .arg(env!("CARGO_BIN_EXE_tether"))
            .current_dir(&chart)
            .env("CI", "true")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    };
    let modes = || -> Vec<(String, u32)> {
        files_under(&chart.join("snapshots"))
            .into_iter()
            .map(|file| {
                let metadata = std::fs::metadata(chart.join("snapshots").join(&file)).unwrap();
                (file, metadata.permissions().mode() & 0o777)
            })
            .collect()
    };
    update("022");
    let written = modes();
    assert_eq!(written.len(), 3, "{written:?}");
    for (file, mode) in &written {
        assert_eq!(*mode, 0o644, "{file}: {mode:o}");
    }
    // A replaced snapshot gets the mode of the run that wrote it.
    edit(
        &chart.join("templates/kubevirt-cr.yaml"),
        "Migrate first;",
        "Evict first;",
    );
    update("002");
    let replaced = modes();
    assert!(
        replaced.contains(&("templates/kubevirt-cr.yaml.snap".to_string(), 0o664)),
        "{replaced:?}"
    );
    assert!(
        replaced.contains(&("values.yaml.snap".to_string(), 0o644)),
        "an unchanged snapshot was rewritten: {replaced:?}"
    );
}
