//! Nothing outside the repository is read, or revealed: `extend`, `chart-paths`,
//! `file://` dependencies and chart files reached through a link give the same
//! answer whether or not what they name outside exists, and never its content; a
//! chart archive that cannot be read is named with what is wrong with it.

use std::path::{Path, PathBuf};

use crate::common;

/// A folder holding `repo/` (a git repository holding `files`) and `outside/`,
/// a sibling outside it. The folder is canonical, so paths print as written.
struct Machine {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Machine {
    fn new(files: &[(&str, &str)]) -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("repo")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        common::git(&base.join("repo"), &["init", "-q"]);
        let machine = Machine { _dir: dir, base };
        machine.write(files);
        machine
    }

    fn repo(&self) -> PathBuf {
        self.base.join("repo")
    }

    /// Writes files, their paths relative to the base (`repo/…`, `outside/…`).
    fn write(&self, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = self.base.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    /// A symbolic link at `at` (relative to the base) to `target`, as written.
    #[cfg(unix)]
    fn link(&self, target: &str, at: &str) {
        let at = self.base.join(at);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, at).unwrap();
    }

    /// `tether ARGS` in the repository, the repository shown as `[DIR]` and the
    /// folder around it as `[BASE]`.
    fn run(&self, args: &[&str]) -> String {
        common::run_in(&self.repo(), args).replace(&self.base.display().to_string(), "[BASE]")
    }

    /// `tether ARGS` once with `outside/` holding `files` and once with it empty:
    /// both outputs must be the same, and are returned once.
    fn same_either_way(&self, args: &[&str], files: &[(&str, &str)]) -> String {
        self.write(files);
        let present = self.run(args);
        std::fs::remove_dir_all(self.base.join("outside")).unwrap();
        std::fs::create_dir_all(self.base.join("outside")).unwrap();
        let absent = self.run(args);
        assert_eq!(
            present, absent,
            "the answer depends on whether a file outside the repository exists"
        );
        for (_, text) in files {
            for line in text.lines().filter(|line| line.contains("secret")) {
                assert!(!present.contains(line), "{line:?} leaked:\n{present}");
            }
        }
        present
    }
}

const CHART: &str = "apiVersion: v2\nname: app\nversion: 1.0.0\n";

/// `extend` naming a file outside the repository, by a relative path, an absolute
/// path, or a link inside the repository that points out, is refused with one
/// message whether or not the file exists, and never quotes it.
#[cfg(unix)]
#[test]
fn extend_outside_the_repository_is_refused_alike() {
    let machine = Machine::new(&[
        ("repo/app/Chart.yaml", CHART),
        ("repo/app/values.yaml", "a: 1\n"),
    ]);
    let base_toml = [("outside/base.toml", "include = \"secret-value\"\n")];
    let absolute = machine.base.join("outside/base.toml");
    machine.link("../outside/base.toml", "repo/linked.toml");
    let mut out = String::new();
    for extend in [
        "../outside/base.toml",
        absolute.to_str().unwrap(),
        "linked.toml",
    ] {
        machine.write(&[("repo/tether.toml", &format!("extend = {extend:?}\n"))]);
        let args = ["check", "--no-cache", "app"];
        let output = machine.same_either_way(&args, &base_toml);
        out.push_str(&format!("### extend = {extend:?}\n{output}\n"));
    }
    common::assert_snapshot(
        "outside__extend",
        &out.replace(absolute.to_str().unwrap(), "[ABSOLUTE]"),
    );
}

/// A mistake in an extended file inside the repository is shown as before, at its
/// own line, with the `extend` line that led there.
#[test]
fn an_error_in_an_extended_file_inside_names_both_files() {
    let machine = Machine::new(&[
        ("repo/base.toml", "[rules]\nrequired-coment = \"error\"\n"),
        (
            "repo/app/tether.toml",
            "# The shared settings:\nextend = \"../base.toml\"\n",
        ),
        ("repo/app/Chart.yaml", CHART),
        ("repo/app/values.yaml", "a: 1\n"),
    ]);
    common::assert_snapshot(
        "outside__extended_error",
        &machine.run(&["check", "--no-cache", "app"]),
    );
}

/// A `chart-paths` entry outside the repository is refused when `tether.toml` is
/// read, whether or not the folder exists; `/` is never walked.
#[test]
fn chart_paths_outside_the_repository_are_refused_alike() {
    let machine = Machine::new(&[
        ("repo/app/Chart.yaml", CHART),
        ("repo/app/values.yaml", "a: 1\n"),
    ]);
    let library = [(
        "outside/lib/Chart.yaml",
        "apiVersion: v2\nname: lib\nversion: 1.0.0\n",
    )];
    let mut out = String::new();
    for entry in ["../outside/lib", "/"] {
        machine.write(&[("repo/tether.toml", &format!("chart-paths = [{entry:?}]\n"))]);
        let output = machine.same_either_way(&["check", "--no-cache", "app"], &library);
        out.push_str(&format!("### chart-paths = [{entry:?}]\n{output}\n"));
    }
    common::assert_snapshot("outside__chart_paths", &out);
}

/// A `file://` dependency that leads outside the repository, by its path or
/// through a link inside it, is missing with the same reason whether or not the
/// folder exists.
#[cfg(unix)]
#[test]
fn file_dependencies_outside_the_repository_get_one_answer() {
    let machine = Machine::new(&[
        ("repo/app/values.yaml", "a: 1\n"),
        (
            "repo/app/templates/x.yaml",
            "x: {{ include \"lib.x\" . }}\ny: {{ .Values.a }}\n",
        ),
    ]);
    machine.link("../../outside/lib", "repo/libs/lib");
    let library = [
        (
            "outside/lib/Chart.yaml",
            "apiVersion: v2\nname: lib\nversion: 1.0.0\n",
        ),
        (
            "outside/lib/templates/_x.tpl",
            "{{ define \"lib.x\" }}{{ .Values.secret }}{{ end }}\n",
        ),
    ];
    let mut out = String::new();
    for repository in ["file://../../outside/lib", "file://../libs/lib"] {
        machine.write(&[(
            "repo/app/Chart.yaml",
            &format!("{CHART}dependencies:\n  - name: lib\n    version: 1.0.0\n    repository: {repository}\n"),
        )]);
        let output = machine.same_either_way(&["check", "--no-cache", "app"], &library);
        out.push_str(&format!("### repository: {repository}\n{output}\n"));
    }
    common::assert_snapshot("outside__file_dependencies", &out);
}

/// A committed `values.yaml` (or a subchart's `Chart.yaml`) that is a link out of
/// the repository is not read: the run says so, naming the file, and the value
/// rules tell nothing of what the target holds or whether it exists.
#[cfg(unix)]
#[test]
fn chart_files_linked_outside_the_repository_are_not_read() {
    let machine = Machine::new(&[
        (
            "repo/app/Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: sub\n    version: 1.0.0\n",
        ),
        (
            "repo/app/templates/x.yaml",
            "a: {{ .Values.a }}\nb: {{ .Values.secretKey }}\nc: {{ include \"sub.x\" . }}\n",
        ),
        (
            "repo/app/charts/sub/templates/_x.tpl",
            "{{ define \"sub.x\" }}x{{ end }}\n",
        ),
    ]);
    machine.link("../../outside/values.yaml", "repo/app/values.yaml");
    machine.link(
        "../../../../outside/Chart.yaml",
        "repo/app/charts/sub/Chart.yaml",
    );
    let targets = [
        ("outside/values.yaml", "a: 1\nsecretKey: 2\n"),
        (
            "outside/Chart.yaml",
            "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        ),
    ];
    let output = machine.same_either_way(&["check", "--no-cache", "app"], &targets);
    common::assert_snapshot("outside__linked_chart_files", &output);
}

/// Makes a bad archive at a path.
type MakeArchive = fn(&Path);

/// An archive under `charts/` that cannot be read is named, with what is wrong
/// with it; a FIFO is not opened (the run does not block).
#[cfg(unix)]
#[test]
fn an_unreadable_archive_is_named() {
    let machine = Machine::new(&[
        (
            "repo/app/Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 1.0.0\n",
        ),
        ("repo/app/values.yaml", "a: 1\n"),
        (
            "repo/app/templates/x.yaml",
            "x: {{ include \"common.name\" . }}\ny: {{ .Values.a }}\n",
        ),
        ("outside/common-1.0.0.tgz", "secret"),
    ]);
    let archive = machine.repo().join("app/charts/common-1.0.0.tgz");
    let mut out = String::new();
    let cases: [(&str, MakeArchive); 4] = [
        ("not gzip", |path| std::fs::write(path, "garbage").unwrap()),
        ("a FIFO", |path| {
            let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: `name` is a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
        }),
        ("a link", |path| {
            std::os::unix::fs::symlink("../../../outside/common-1.0.0.tgz", path).unwrap();
        }),
        ("too large", |path| {
            let file = std::fs::File::create(path).unwrap();
            file.set_len(17 << 20).unwrap();
        }),
    ];
    for (what, make) in cases {
        let _ = std::fs::remove_file(&archive);
        std::fs::create_dir_all(archive.parent().unwrap()).unwrap();
        make(&archive);
        let output = machine.run(&["check", "--no-cache", "app"]);
        out.push_str(&format!("### {what}\n{output}\n"));
    }
    common::assert_snapshot("outside__unreadable_archives", &out);
}

/// A chart's `charts/` folder that is a link (out of the repository here) is not
/// followed: nothing in it is listed, named or unpacked, whether or not the folder
/// it leads to holds anything, and the dependency it would hold is said unread.
#[cfg(unix)]
#[test]
fn a_linked_charts_folder_is_not_followed() {
    let machine = Machine::new(&[
        (
            "repo/app/Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 1.0.0\n",
        ),
        ("repo/app/values.yaml", "a: 1\n"),
        (
            "repo/app/templates/x.yaml",
            "x: {{ include \"common.name\" . }}\ny: {{ .Values.a }}\n",
        ),
    ]);
    machine.link("../../outside/charts", "repo/app/charts");
    let targets = [
        ("outside/charts/secret-folder/Chart.yaml", "name: secret\n"),
        ("outside/charts/common-1.0.0.tgz", "secret"),
    ];
    let output = machine.same_either_way(&["check", "--no-cache", "app"], &targets);
    assert!(!output.contains("secret-folder"), "{output}");
    common::assert_snapshot("outside__linked_charts_folder", &output);
}
