//! `tether idem` on fixture repositories built in temporary folders with `git init`:
//! healthy and broken regeneration targets, commands that misbehave, Ctrl-C. Each
//! test also proves the user's tree is left byte-identical.

#![allow(clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

use crate::common::repository;

/// `git`, `make` and GNU `sed` are needed; without them a test fails in CI and is
/// skipped with a printed reason elsewhere.
fn tools_present() -> bool {
    common::tools_present(&["git", "make", "sed"])
}

/// A copy of a fixture folder of this repository, as its own git repository.
fn repository_from(fixture: &str) -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture);
    let mut files = Vec::new();
    collect(&source, &source, &mut files);
    let owned: Vec<(String, String)> = files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(source.join(&path)).unwrap();
            (path.display().to_string(), text)
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    repository(&borrowed)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
}

/// Every file under `dir` (`.git` included) with its bytes.
fn fingerprint(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = Vec::new();
    collect(dir, dir, &mut files);
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(dir.join(&path)).unwrap();
            (path, bytes)
        })
        .collect()
}

/// Runs `tether idem ARGS` in `dir` in overlays (where this machine has them) and in
/// copies, asserting both give the same report and leave the tree byte-identical;
/// renders exit code and output with temporary paths and durations filtered.
fn idem(dir: &Path, args: &[&str]) -> String {
    let auto = idem_once(dir, args);
    let copies = idem_once(dir, &[args, &["--sandbox", "copy"]].concat());
    assert_eq!(auto, copies, "overlays and copies disagree on {args:?}");
    auto
}

/// [`idem`] in one kind of sandbox only.
fn idem_once(dir: &Path, args: &[&str]) -> String {
    let before = fingerprint(dir);
    // Sandboxes go to a folder of the test's own, which must be empty afterwards.
    let temporary = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .arg("idem")
        .args(args)
        .env("TMPDIR", temporary.path())
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        before,
        fingerprint(dir),
        "tether idem changed the user's tree"
    );
    let left: Vec<_> = std::fs::read_dir(temporary.path())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .filter(|name| name.to_string_lossy().starts_with("tether-idem-"))
        .collect();
    assert!(left.is_empty(), "sandbox copies left behind: {left:?}");
    let render = common::render_output(&output);
    filter(&render.replace(&dir.display().to_string(), "[REPO]"))
}

/// Durations and numbers that change from run to run.
fn filter(text: &str) -> String {
    let durations = regex::Regex::new(r"\((\d+ms|\d+s|\d+m\d+s)\)").unwrap();
    let millis = regex::Regex::new(r#""duration_ms": \d+"#).unwrap();
    let stamp = regex::Regex::new(r"\b\d{15,}\b").unwrap();
    // Landlock or not depends on the kernel; `containment.rs` tests both.
    let containment =
        regex::Regex::new(r#"(?s)"containment": \{.*?\n  \},\n  "contained": "[^"\n]*""#).unwrap();
    let note = regex::Regex::new(
        r"\nnote: (not|partly) contained .*\n|::warning title=tether idem::(not|partly) contained .*\n",
    )
    .unwrap();
    // Overlays or copies depend on the kernel too; `overlay_and_copy_agree` tests both.
    let sandbox = regex::Regex::new(r#"(?s)"sandbox": \{.*?\}"#).unwrap();
    let sandbox_note = regex::Regex::new(r"\nnote: sandboxes: .*\n").unwrap();
    let text = containment.replace_all(text, r#""containment": [CONTAINMENT]"#);
    let text = sandbox.replace_all(&text, r#""sandbox": [SANDBOX]"#);
    let text = sandbox_note.replace_all(&text, "");
    let text = note.replace_all(&text, "");
    let text = durations.replace_all(&text, "(…)");
    let text = millis.replace_all(&text, r#""duration_ms": 0"#);
    stamp.replace_all(&text, "[STAMP]").into_owned()
}

const CONFIGMAP: &str = "\
data:
  first: 1
  {{- with .Values.extra }}
  extra: {{ . }}
  {{- end }}
  {{- with .Values.more }}
  more: {{ . }}
  {{- end }}
  last: 2
";

/// Inserts each block before `last:` when it is missing. With `reversed`, the
/// second block is inserted first, so they come back in the wrong order.
fn makefile(reversed: bool) -> String {
    let extra = "\tgrep -qxF '  {{- with .Values.extra }}' templates/cm.yaml || sed -i '/^  last:/i\\  {{- with .Values.extra }}\\n  extra: {{ . }}\\n  {{- end }}' templates/cm.yaml\n";
    let more = "\tgrep -qxF '  {{- with .Values.more }}' templates/cm.yaml || sed -i '/^  last:/i\\  {{- with .Values.more }}\\n  more: {{ . }}\\n  {{- end }}' templates/cm.yaml\n";
    // Restored bottom-up: `more` above `last:`, then `extra` above `more`'s block.
    let extra_above_more = "\tgrep -qxF '  {{- with .Values.extra }}' templates/cm.yaml || sed -i '/^  {{- with \\.Values\\.more }}$$/i\\  {{- with .Values.extra }}\\n  extra: {{ . }}\\n  {{- end }}' templates/cm.yaml\n";
    let body = if reversed {
        format!("{more}{extra}")
    } else {
        format!("{more}{extra_above_more}")
    };
    format!(".PHONY: update\nupdate:\n{body}")
}

const IDEM_TOML: &str = "\
[[idem]]
run = \"make -s update\"
files = [\"templates/*.yaml\"]
self-heal = [\"{{- with .Values.extra }}\", \"{{- with .Values.more }}\"]
timeout = \"20s\"
";

#[test]
fn healthy_target_passes() {
    if !tools_present() {
        return;
    }
    // The chart's Makefile includes a file two levels up, as monorepos do: the copy
    // keeps the layout, so the include still resolves.
    let with_include = format!("include ../hack/common.mk\n{}", makefile(false));
    let repo = repository(&[
        ("hack/common.mk", "MAKEFLAGS += --no-print-directory\n"),
        ("chart/Makefile", &with_include),
        ("chart/templates/cm.yaml", CONFIGMAP),
        ("chart/tether.toml", IDEM_TOML),
    ]);
    let chart = repo.path().join("chart");
    common::assert_snapshot("idem__healthy", &idem(&chart, &[]));
    common::assert_snapshot("idem__healthy_json", &idem(&chart, &["--format", "json"]));
}

#[test]
fn blocks_restored_in_another_order_fail_with_a_diff() {
    if !tools_present() {
        return;
    }
    let repo = repository(&[
        ("Makefile", &makefile(true)),
        ("templates/cm.yaml", CONFIGMAP),
        ("tether.toml", IDEM_TOML),
    ]);
    common::assert_snapshot("idem__wrong_order", &idem(repo.path(), &[]));
}

/// A hand-merge that dropped a configured block is a failed check with the no-op
/// check's diff, not a configuration error (issue 35, surprise 2).
#[test]
fn a_configured_block_the_files_lack_fails_the_check_with_its_diff() {
    if !tools_present() {
        return;
    }
    let dropped = CONFIGMAP.replace(
        "  {{- with .Values.extra }}\n  extra: {{ . }}\n  {{- end }}\n",
        "",
    );
    assert_ne!(dropped, CONFIGMAP);
    let repo = repository(&[
        ("Makefile", &makefile(false)),
        ("templates/cm.yaml", &dropped),
        ("tether.toml", IDEM_TOML),
    ]);
    common::assert_snapshot("idem__dropped_block", &idem(repo.path(), &[]));
}

#[test]
fn discover_lists_the_blocks_that_heal() {
    if !tools_present() {
        return;
    }
    let repo = repository(&[
        ("Makefile", &makefile(true)),
        ("templates/cm.yaml", CONFIGMAP),
    ]);
    common::assert_snapshot(
        "idem__discover",
        &idem(
            repo.path(),
            &[
                "--run",
                "make -s update",
                "--files",
                "templates/*.yaml",
                "--discover",
            ],
        ),
    );
}

#[test]
fn naive_kubevirt_update_moves_the_eviction_comment() {
    if !tools_present() {
        return;
    }
    let repo = repository_from("tests/fixtures/idem/kubevirt-naive");
    let output = idem(repo.path(), &["--format", "json"]);
    let moved = regex::Regex::new(
        r#""from": "spec.configuration.evictionStrategy",\s*"to": "spec.configuration.permittedHostDevices""#,
    )
    .unwrap();
    assert!(moved.is_match(&output), "{output}");
    common::assert_snapshot("idem__kubevirt_naive", &idem(repo.path(), &[]));
    common::assert_snapshot(
        "idem__kubevirt_naive_github",
        &idem(repo.path(), &["--format", "github"]),
    );
}

#[test]
fn example_chart_heals_byte_for_byte() {
    if !tools_present() {
        return;
    }
    let repo = repository_from("examples/kubevirt");
    common::assert_snapshot("idem__kubevirt_example", &idem(repo.path(), &[]));
}

#[test]
fn nondeterministic_output_and_new_files_fail_no_op() {
    if !tools_present() {
        return;
    }
    let repo = repository(&[("templates/stamp.yaml", "stamp: 0\n")]);
    let stamp = idem(
        repo.path(),
        &[
            "--run",
            "echo \"stamp: $(date +%s%N)\" > templates/stamp.yaml",
            "--files",
            "templates/*.yaml",
        ],
    );
    let created = idem(
        repo.path(),
        &[
            "--run",
            "touch templates/new.yaml",
            "--files",
            "templates/*.yaml",
        ],
    );
    common::assert_snapshot(
        "idem__nondeterministic_and_new_file",
        &format!("{stamp}\n{created}"),
    );
}

#[test]
fn misbehaving_commands_leave_the_tree_alone() {
    if !tools_present() {
        return;
    }
    let repo = repository(&[("templates/cm.yaml", CONFIGMAP), ("README.md", "keep me\n")]);
    let cases: &[(&str, &[&str])] = &[
        (
            "destructive",
            &["--run", "rm -rf ./* ./.git", "--files", "templates/*.yaml"],
        ),
        (
            "escaping",
            &[
                "--run",
                "echo escaped > ../escaped.txt; echo deeper > ../../../../escaped.txt; cd .. && rm -rf repo",
                "--files",
                "templates/*.yaml",
            ],
        ),
        (
            "hanging",
            &[
                "--run",
                "sleep 30",
                "--files",
                "templates/*.yaml",
                "--timeout",
                "1s",
            ],
        ),
        (
            "missing",
            &[
                "--run",
                "nosuchcommand --update",
                "--files",
                "templates/*.yaml",
            ],
        ),
        (
            "failing",
            &[
                "--run",
                "echo broken >&2; exit 3",
                "--files",
                "templates/*.yaml",
            ],
        ),
        ("no-files", &["--run", "true", "--files", "charts/*.yaml"]),
    ];
    let mut out = String::new();
    for (name, args) in cases {
        // A copy's root can be deleted; an overlay's is a mount point, and `rm` fails.
        let render = if *name == "escaping" {
            idem_once(repo.path(), args)
        } else {
            idem(repo.path(), args)
        };
        out.push_str(&format!("### {name}\n{render}\n"));
    }
    common::assert_snapshot("idem__misbehaving", &out);
}

#[test]
fn bsd_sed_is_named_not_passed() {
    if !tools_present() {
        return;
    }
    let repo = repository(&[
        ("Makefile", &makefile(false)),
        ("templates/cm.yaml", CONFIGMAP),
        ("tether.toml", IDEM_TOML),
    ]);
    // A `sed` first on PATH that answers like BSD sed.
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("sed");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'usage: sed script [-Ealnru] [-i extension] [file ...]' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let before = fingerprint(repo.path());
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .arg("idem")
        .env("PATH", path)
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert_eq!(before, fingerprint(repo.path()));
    assert_eq!(output.status.code(), Some(2));
    common::assert_snapshot("idem__bsd_sed", &String::from_utf8_lossy(&output.stderr));
}

/// Ctrl-C while a command runs: the commands are killed and no sandbox copy is left.
#[test]
fn interrupt_leaves_no_temporary_folder() {
    if !tools_present() {
        return;
    }
    let repo = repository(&[("templates/cm.yaml", CONFIGMAP)]);
    let temporary = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args([
            "idem",
            "--run",
            "touch started; sleep 60",
            "--files",
            "templates/*.yaml",
        ])
        .env("TMPDIR", temporary.path())
        .current_dir(repo.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = || {
        let mut found = Vec::new();
        collect(temporary.path(), temporary.path(), &mut found);
        found.iter().any(|path| path.ends_with("started"))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !started() {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: sends SIGINT to the child we spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let left: Vec<_> = std::fs::read_dir(temporary.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A repository without any `[[idem]]` entry (no `tether.toml` at all, or one
/// without the entry) has nothing to prove: a note, exit 0, and in JSON an empty
/// report that says so, so a hook or the Action passes in any chart repository.
#[test]
fn no_idem_entry_is_a_note_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("chart/templates")).unwrap();
    std::fs::write(dir.path().join("chart/values.yaml"), "a: 1\n").unwrap();
    let text = idem_once(dir.path(), &[]);
    std::fs::write(dir.path().join("chart/tether.toml"), "[rules]\n").unwrap();
    let json = idem_once(dir.path(), &["--format", "json"]);
    common::assert_snapshot(
        "idem_no_entry",
        &format!("without tether.toml:\n{text}\nwith one without [[idem]], JSON:\n{json}"),
    );
}

/// `tether idem` at a monorepo's top finds each package's `tether.toml`, as
/// `tether check` does; a broken one is said while the others still run.
#[test]
fn idem_finds_the_configurations_of_the_packages_below() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let entry = |name: &str| format!("[[idem]]\nrun = \"true {name}\"\nfiles = [\"*.yaml\"]\n");
    for package in ["packages/a", "packages/b", "tools/gen"] {
        write(&format!("{package}/tether.toml"), &entry(package));
        write(&format!("{package}/values.yaml"), "a: 1\n");
    }
    // Another project's files: a chart vendored under a chart's `charts/`, and a
    // tracked `node_modules`; never run, even where `idem-packages` names them.
    write(
        "packages/a/Chart.yaml",
        "apiVersion: v2\nname: a\nversion: 1.0.0\n",
    );
    write("packages/a/charts/upstream/tether.toml", &entry("upstream"));
    write("packages/a/charts/upstream/values.yaml", "a: 1\n");
    write("node_modules/pkg/tether.toml", &entry("node_modules"));
    write("node_modules/pkg/values.yaml", "a: 1\n");
    // Ignored by git: not a package of the repository (found as `tether check`
    // finds files: through git in a repository; outside one, every file is seen).
    common::git(dir.path(), &["init", "-q"]);
    write(".gitignore", "build/\n");
    write(
        "build/tether.toml",
        "[[idem]]\nrun = \"true build\"\nfiles = [\"*.yaml\"]\n",
    );
    let unnamed = idem_once(dir.path(), &["--list"]);
    write(
        "tether.toml",
        "idem-packages = [\"packages/*\", \"packages/a/charts/*\", \"node_modules/*\"]\n",
    );
    let named = idem_once(dir.path(), &["--list"]);
    write("packages/c/tether.toml", "[[idem]\n");
    let with_broken = idem_once(dir.path(), &["--list"]);
    let from_a_package = idem_once(&dir.path().join("packages/a"), &["--list"]);
    common::assert_snapshot(
        "idem_monorepo_packages",
        &format!(
            "no configuration at the top:\n{unnamed}\nthe top names packages/*:\n{named}\nwith a broken package:\n{with_broken}\nfrom packages/a:\n{from_a_package}"
        ),
    );
}

/// `--report-json FILE` writes a regular file only: a link there (to a file the
/// run must not touch) or a FIFO is refused, and neither is written through.
#[test]
fn report_json_never_writes_through_a_link_or_into_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "keep\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("report.json")).unwrap();
    let linked = idem_once(dir.path(), &["--report-json", "report.json"]);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep\n");
    // The FIFO lies outside the folder (the helper reads every file there).
    let elsewhere = tempfile::tempdir().unwrap();
    let fifo = elsewhere.path().join("fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let piped = idem_once(dir.path(), &["--report-json", fifo.to_str().unwrap()])
        .replace(&elsewhere.path().display().to_string(), "[ELSEWHERE]");
    // A regular file is replaced.
    let plain = elsewhere.path().join("plain.json");
    std::fs::write(&plain, "old\n").unwrap();
    idem_once(dir.path(), &["--report-json", plain.to_str().unwrap()]);
    let plain = std::fs::read_to_string(&plain).unwrap();
    assert!(plain.contains("\"targets\":[]"), "{plain}");
    common::assert_snapshot(
        "idem_report_json_refuses_links_and_fifos",
        &format!("a link:\n{linked}\na FIFO:\n{piped}"),
    );
}

/// What `tether idem` says about its targets: `--target` applies to `--list`, many
/// targets skipped for one reason are one line, a `--target` that names no target
/// and an entry without `files` are errors saying what to write, and `dir = "."`
/// is shown as the folder.
#[test]
fn targets_are_named_and_skipped_plainly() {
    let dir = tempfile::tempdir().unwrap();
    for package in ["a", "b", "c", "d", "e", "f"] {
        let folder = dir.path().join("packages").join(package);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("tether.toml"),
            format!("[[idem]]\nrun = \"true {package}\"\ndir = \".\"\nfiles = [\"*.yaml\"]\n"),
        )
        .unwrap();
        std::fs::write(folder.join("values.yaml"), "a: 1\n").unwrap();
    }
    std::fs::write(
        dir.path().join("tether.toml"),
        "idem-packages = [\"packages/*\"]\n",
    )
    .unwrap();
    let list = idem_once(dir.path(), &["--list", "--target", "packages/a"]);
    let run = idem_once(dir.path(), &["--target", "packages/a"]);
    let nowhere = idem_once(dir.path(), &["--list", "--target", "packages/z"]);
    std::fs::write(
        dir.path().join("packages/f/tether.toml"),
        "# make update rewrites the chart\n[[idem]]\nrun = \"make update\"\n",
    )
    .unwrap();
    let no_files = idem_once(dir.path(), &["--list"]);
    common::assert_snapshot(
        "idem_targets_named_and_skipped",
        &format!(
            "### --list --target packages/a\n{list}\n### --target packages/a\n{run}\n### --list --target packages/z\n{nowhere}\n### an entry without files\n{no_files}"
        ),
    );
}

/// `tether idem` lists a repository's files once per run, whatever the number of
/// its targets: git is run through a wrapper that logs every call, and the one
/// listing that finds the twelve targets' configurations makes their sandboxes.
#[test]
fn the_repository_is_listed_once_for_all_its_targets() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let packages: Vec<String> = (0..12).map(|n| format!("packages/p{n}")).collect();
    for package in &packages {
        write(
            &format!("{package}/tether.toml"),
            "[[idem]]\nrun = \"true\"\nfiles = [\"*.yaml\"]\n",
        );
        write(&format!("{package}/values.yaml"), "a: 1\n");
    }
    write("tether.toml", "idem-packages = [\"packages/*\"]\n");
    common::git(dir.path(), &["init", "-q"]);
    let real = Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let wrapper = tempfile::tempdir().unwrap();
    let log = wrapper.path().join("calls");
    let script = wrapper.path().join("git");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{real}' \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(std::iter::once(wrapper.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let temporary = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tether"))
        .args(["idem", "--sandbox", "copy"])
        .env("PATH", path)
        .env("TMPDIR", temporary.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    let said = common::render_output(&output);
    assert!(output.status.success(), "{said}");
    for package in &packages {
        assert!(
            said.contains(package.as_str()),
            "{package} did not run: {said}"
        );
    }
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let listings: Vec<&str> = calls
        .lines()
        .filter(|call| call.contains("ls-files") && call.contains("--cached"))
        .collect();
    assert_eq!(
        listings.len(),
        1,
        "one listing finds the targets and makes the sandboxes:\n{calls}"
    );
}
