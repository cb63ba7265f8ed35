//! Overlays and copies (issue 11, part B): `tether idem` runs commands in an overlay
//! of the user's tree where the kernel allows one, and in copies otherwise. Both must
//! give the same verdict on every kind of change a command can make.

#![allow(clippy::print_stderr)]

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

fn tools_present() -> bool {
    common::tools_present(&["git", "sh"])
}

/// A committed repository with ignore rules at two levels, a link and a subfolder.
fn repository() -> tempfile::TempDir {
    let repo = common::repository(&[
        (".gitignore", "*.log\n"),
        ("a.yaml", "a: 1\n"),
        ("b.yaml", "b: 1\n"),
        ("sub/.gitignore", "!keep.log\ngenerated/\n"),
        ("sub/c.yaml", "c: 1\n"),
        ("sub/deep/d.yaml", "d: 1\n"),
    ]);
    std::os::unix::fs::symlink("a.yaml", repo.path().join("link.yaml")).unwrap();
    common::commit_all(repo.path(), "start");
    // Ignored by this clone only, as `git status` reads it.
    std::fs::write(repo.path().join(".git/info/exclude"), "scratch/\n").unwrap();
    repo
}

fn idem(dir: &Path, temporary: &Path, run: &str, sandbox: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tether"))
        .args([
            "idem", "--run", run, "--files", "*.yaml", "--format", "json",
        ])
        .args(["--sandbox", sandbox])
        .env("TMPDIR", temporary)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The report without what differs by design: the sandbox kind and durations.
fn verdict(output: &Output) -> serde_json::Value {
    let mut report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("not JSON ({error}): {output:?}"));
    let sandbox = report["sandbox"]["mode"].clone();
    report.as_object_mut().unwrap().remove("sandbox");
    for target in report["targets"].as_array_mut().unwrap() {
        for check in target["checks"].as_array_mut().unwrap() {
            check["duration_ms"] = 0.into();
        }
    }
    serde_json::json!({ "status": output.status.code(), "sandbox": sandbox, "report": report })
}

/// Whether this machine can make overlays; in CI it must.
fn overlays_here(dir: &Path, temporary: &Path) -> bool {
    let output = idem(dir, temporary, "true", "overlay");
    if output.status.code() == Some(0) {
        return true;
    }
    let why = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI machines allow overlays (unprivileged user namespaces): {why}"
    );
    eprintln!("skipping: no overlay here: {why}");
    false
}

#[test]
fn overlay_and_copy_agree_on_every_kind_of_change() {
    if !tools_present() {
        return;
    }
    let temporary = tempfile::tempdir().unwrap();
    let repo = repository();
    if !overlays_here(repo.path(), temporary.path()) {
        return;
    }
    // A folder outside with the names of the repository's: a report that follows a
    // link the command made would show its bytes.
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join("deep")).unwrap();
    std::fs::write(outside.path().join("c.yaml"), "secret: 1\n").unwrap();
    std::fs::write(outside.path().join("deep/d.yaml"), "secret: 2\n").unwrap();
    let link_out = format!("rm -rf sub && ln -s {} sub", outside.path().display());
    let cases = [
        ("nothing", "true"),
        (
            "a folder replaced by a link out of the tree",
            link_out.as_str(),
        ),
        (
            "a file rewritten with the same bytes",
            "echo 'a: 1' > a.yaml",
        ),
        ("a file changed", "echo 'a: 2' > a.yaml"),
        ("a file deleted", "rm b.yaml"),
        ("a folder deleted", "rm -rf sub"),
        (
            "a folder emptied and made again",
            "rm -rf sub && mkdir sub && echo 'c: 2' > sub/c.yaml",
        ),
        ("a file made a folder", "rm sub/c.yaml && mkdir sub/c.yaml"),
        (
            "a folder made a file",
            "rm -rf sub/deep && echo x > sub/deep",
        ),
        (
            "new files, ignored and not",
            "echo 1 > new.log; echo 2 > new.yaml; echo 3 > sub/keep.log; mkdir -p sub/generated; echo 4 > sub/generated/x.yaml",
        ),
        (
            "a new file under a folder .git/info/exclude names",
            "mkdir -p scratch sub/scratch && echo 1 > scratch/n.yaml && echo 2 > sub/scratch/m.yaml",
        ),
        ("a mode changed", "chmod +x a.yaml"),
        ("a link retargeted", "ln -sf b.yaml link.yaml"),
        (
            "a link made a file",
            "rm link.yaml && echo 'a: 1' > link.yaml",
        ),
        // A copy has no `.git`: the writes fail there, silently.
        (
            "writes under .git",
            "{ echo x > .git/description; git tag t; } 2>/dev/null; true",
        ),
    ];
    let mut failures = Vec::new();
    for (name, run) in cases {
        let overlay = verdict(&idem(repo.path(), temporary.path(), run, "overlay"));
        let copy = verdict(&idem(repo.path(), temporary.path(), run, "copy"));
        assert_eq!(overlay["sandbox"], "overlay", "{name}: {overlay:#}");
        assert_eq!(copy["sandbox"], "copies", "{name}: {copy:#}");
        if overlay["status"] != copy["status"] || overlay["report"] != copy["report"] {
            failures.push(format!("{name}:\noverlay {overlay:#}\ncopy {copy:#}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let left: Vec<_> = std::fs::read_dir(temporary.path())
        .unwrap()
        .flatten()
        .collect();
    assert!(left.is_empty(), "sandboxes left behind: {left:?}");
}

/// A command deletes the folder it runs in: the next run (the fixpoint) still
/// starts there, in an empty folder, in overlays as in copies.
#[test]
fn a_command_that_deletes_its_own_folder_runs_again() {
    if !tools_present() {
        return;
    }
    let temporary = tempfile::tempdir().unwrap();
    let repo = repository();
    if !overlays_here(repo.path(), temporary.path()) {
        return;
    }
    let sub = repo.path().join("sub");
    let run = "test ! -e c.yaml || { cd .. && rm -rf sub; }";
    let overlay = verdict(&idem(&sub, temporary.path(), run, "overlay"));
    let copy = verdict(&idem(&sub, temporary.path(), run, "copy"));
    assert_eq!(overlay["report"], copy["report"]);
    assert_eq!(overlay["status"], 1, "{overlay:#}");
    assert_eq!(
        overlay["report"]["targets"][0]["checks"][1]["ok"], true,
        "{overlay:#}"
    );
}

/// A repository with a file another user owns cannot be mapped into an overlay:
/// `auto` copies and says why; `--sandbox overlay` is an error naming the file.
#[test]
fn files_of_another_user_mean_copies() {
    if !tools_present() {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipping: only root can give a file to another user");
        return;
    }
    let temporary = tempfile::tempdir().unwrap();
    let repo = repository();
    if !overlays_here(repo.path(), temporary.path()) {
        return;
    }
    let status = Command::new("chown")
        .args(["65534:65534"])
        .arg(repo.path().join("b.yaml"))
        .status()
        .unwrap();
    assert!(status.success());
    let auto = idem(repo.path(), temporary.path(), "true", "auto");
    let report = verdict(&auto);
    assert_eq!(report["status"], 0, "{auto:?}");
    assert_eq!(report["sandbox"], "copies");
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(["idem", "--run", "true", "--files", "*.yaml"])
        .env("TMPDIR", temporary.path())
        .current_dir(repo.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).replace(
        &repo.path().canonicalize().unwrap().display().to_string(),
        "[REPO]",
    );
    let text = regex::Regex::new(r"\((\d+ms|\d+s)\)")
        .unwrap()
        .replace_all(&text, "(…)")
        .into_owned();
    common::assert_snapshot("idem_sandboxes__foreign_owner", &text);
    let forced = idem(repo.path(), temporary.path(), "true", "overlay");
    assert_eq!(forced.status.code(), Some(2), "{forced:?}");
    let stderr = String::from_utf8_lossy(&forced.stderr);
    assert!(
        stderr.contains("--sandbox overlay:") && stderr.contains("b.yaml belongs to another user"),
        "{stderr}"
    );
}
