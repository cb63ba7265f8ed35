//! Nothing outside the repository is read, or revealed: `extend` gives the same
//! answer whether or not what it names outside exists, and never its content.

use std::path::PathBuf;

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
