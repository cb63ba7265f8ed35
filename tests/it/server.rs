//! `tether server`: the end-to-end tests in `tests/server/` (pytest-lsp driving the
//! binary over stdio, installed into `target/ci-venv` by `cargo xtask ci`), and the
//! protocol's error paths, driven here byte by byte.

use crate::common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// pytest-lsp's client against the binary cargo built.
#[test]
#[ignore = "pytest-lsp's suite takes 9 s in the edit loop: `cargo xtask ci` runs it"]
fn the_lsp_client_tests_pass() {
    let Some(pytest) = common::installed_tool("target/ci-venv/bin/pytest") else {
        return;
    };
    let output = Command::new(pytest)
        .args(["-q", "-p", "no:cacheprovider"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/server"))
        .env("TETHER", env!("CARGO_BIN_EXE_tether"))
        .output()
        .expect("pytest runs");
    assert!(
        output.status.success(),
        "pytest failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// The messages of a server's output, in order.
fn messages(output: &[u8]) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(output);
    let mut found = Vec::new();
    let mut rest = text.as_ref();
    while let Some(at) = rest.find("Content-Length: ") {
        let after = &rest[at + "Content-Length: ".len()..];
        let end = after.find("\r\n\r\n").unwrap();
        let length: usize = after[..end].parse().unwrap();
        let body = &after[end + 4..end + 4 + length];
        found.push(serde_json::from_str(body).unwrap());
        rest = &after[end + 4 + length..];
    }
    found
}

/// `tether server` started with its standard input and output piped.
fn start_server() -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_tether"))
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tether server starts")
}

/// Runs `tether server` on `input` (the client's whole byte stream, then its end):
/// the messages it answered, in order, and how it exited.
fn serve(input: &str) -> (Vec<serde_json::Value>, std::process::ExitStatus) {
    let mut child = start_server();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let mut output = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut output)
        .unwrap();
    let status = child.wait().unwrap();
    (messages(&output), status)
}

fn response(messages: &[serde_json::Value], id: serde_json::Value) -> &serde_json::Value {
    messages
        .iter()
        .find(|message| message["id"] == id && message.get("method").is_none())
        .unwrap_or_else(|| panic!("no response to {id}: {messages:#?}"))
}

/// The server sends no request before its answer to `initialize` (the
/// specification forbids it): the file watchers are registered, and a client that
/// answers `workspace/configuration` asked for its settings, once `initialized`
/// comes.
#[test]
fn the_server_asks_the_client_only_after_initialize_is_answered() {
    let root = tempfile::tempdir().unwrap();
    let mut input = frame(
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"rootUri": format!("file://{}", root.path().display()),
            "capabilities": {"workspace": {"configuration": true,
                "didChangeWatchedFiles": {"dynamicRegistration": true}}}}})
        .to_string(),
    );
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    let (found, status) = serve(&input);
    assert!(status.success(), "{status}");
    let methods: Vec<String> = found
        .iter()
        .map(|message| match message["method"].as_str() {
            Some(method) => method.to_string(),
            None => format!("answer {}", message["id"]),
        })
        .collect();
    assert_eq!(
        methods,
        [
            "answer 1",
            "client/registerCapability",
            "workspace/configuration",
            "answer 2"
        ],
        "{found:#?}"
    );
}

/// A malformed message gets an error response and the server reads on (a body that
/// is no object, and an id that is neither a number nor a string, are invalid
/// requests answered under a null id; an id lsp-server cannot hold is given back as
/// it came); a request with bad parameters or an unknown method gets an error;
/// `exit` ends it cleanly.
#[test]
fn malformed_messages_get_errors_not_an_exit() {
    let mut input = String::new();
    input.push_str(&frame("{not json"));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{}}}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","method":"made/up","params":[1]}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":7}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"x":1}}"#,
    ));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":4,"method":"made/up","params":{}}"#,
    ));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","id":5}"#));
    input.push_str(&frame("[0,0,0]"));
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}"#,
    ));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#));
    input.push_str("Content-Length: x\r\n\r\n");
    input.push_str(&frame(r#"{"jsonrpc":"2.0","id":6,"method":"shutdown"}"#));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    let (found, status) = serve(&input);
    assert!(status.success(), "the server exited with {status}");
    let nulls: Vec<_> = found
        .iter()
        .filter(|message| message["id"].is_null())
        .map(|message| message["error"]["code"].clone())
        .collect();
    assert_eq!(nulls, [-32700, -32600, -32600, -32700]);
    assert_eq!(response(&found, 1.5.into())["error"]["code"], -32600);
    assert_eq!(response(&found, 1.into())["error"]["code"], -32002);
    assert!(response(&found, 2.into())["result"]["capabilities"].is_object());
    assert_eq!(response(&found, 3.into())["error"]["code"], -32602);
    assert_eq!(response(&found, 4.into())["error"]["code"], -32601);
    assert_eq!(response(&found, 5.into())["error"]["code"], -32600);
    assert!(response(&found, 6.into())["result"].is_null());
    assert_eq!(response(&found, 7.into())["error"]["code"], -32600);
}

/// A real editor: Neovim 0.7 (Debian 12's) headless, attached with
/// `vim.lsp.start_client`, gets the required-comment diagnostic of
/// `examples/kubevirt` once the required comment is gone, the chart's values keys
/// as completion after `.Values.`, and a key's hover (its helm-docs comment
/// without the `--` marker).
#[test]
fn neovim_shows_the_required_comment_diagnostic() {
    if !common::tools_present(&["nvim"]) {
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let copy = tempfile::tempdir().unwrap();
    let chart = copy.path().join("kubevirt");
    common::copy_tree(&repo.join("examples/kubevirt"), &chart);
    let template = chart.join("templates/kubevirt-cr.yaml");
    let text = std::fs::read_to_string(&template).unwrap();
    let comment = "  # applies only to VMIs created after the switch;";
    assert!(text.contains(comment));
    std::fs::write(&template, text.replacen(comment, "", 1)).unwrap();
    let out = copy.path().join("diagnostics.txt");
    let status = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            repo.join("tests/server/nvim/attach.lua").display()
        ))
        .env("TETHER", env!("CARGO_BIN_EXE_tether"))
        .env("TETHER_FILE", &template)
        .env("TETHER_ROOT", &chart)
        .env("TETHER_OUT", &out)
        .env("HOME", copy.path())
        .stdin(Stdio::null())
        .status()
        .expect("nvim runs");
    assert!(status.success(), "nvim exited with {status}");
    let found = std::fs::read_to_string(&out).unwrap();
    assert!(
        found
            .lines()
            .any(|line| line.starts_with("required-comment\t70\t")),
        "{found}"
    );
    // Completion after `.Values.` offers the chart's keys, and hover on the key
    // read shows where it is set and its comment.
    for key in [
        "cpuAllocationRatio",
        "extraFeatureGates",
        "permittedHostDevices",
    ] {
        assert!(
            found
                .lines()
                .any(|line| line == format!("completion\t{key}")),
            "{found}"
        );
    }
    assert!(
        found.contains("hover\t`.Values.cpuAllocationRatio`: kubevirt/values.yaml:6"),
        "{found}"
    );
    // helm-docs' `# --` marker is not shown as the comment's text.
    assert!(
        found.contains("hover\tCPU oversubscription: how many vCPUs KubeVirt schedules"),
        "{found}"
    );
}

/// A burst of keystrokes is one check: twenty changes sent at once are published
/// once or twice (a loaded machine may split the burst: fewer than ten is
/// asserted), the last with the last version, never one per change.
#[test]
fn a_burst_of_changes_is_checked_once() {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().canonicalize().unwrap();
    common::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/server"),
        &root,
    );
    let template = root.join("app/templates/deployment.yaml");
    let uri = format!("file://{}", template.display());
    let text = std::fs::read_to_string(&template).unwrap();
    let mut child = start_server();
    let mut stdin = child.stdin.take().unwrap();
    let send = |stdin: &mut std::process::ChildStdin, message: serde_json::Value| {
        stdin
            .write_all(frame(&message.to_string()).as_bytes())
            .unwrap();
    };
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": format!("file://{}", root.display())}}),
    );
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    for version in 2..=21 {
        send(
            &mut stdin,
            serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                    "end": {"line": 0, "character": 0}}, "text": "#\n"}]}}),
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    );
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "exit"}),
    );
    drop(stdin);
    let mut output = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut output)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let published: Vec<serde_json::Value> = messages(&output)
        .into_iter()
        .filter(|message| message["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert!(
        !published.is_empty() && published.len() < 10,
        "{published:#?}"
    );
    let last = published.last().unwrap();
    assert_eq!(last["params"]["version"], 21);
    assert!(last["params"]["diagnostics"].is_array());
}

/// A header line of 100 KB is an error answered, not memory taken (the rest of the
/// line is skipped unread), and the server reads on; an `exit` that no `shutdown`
/// came before ends the server with 1, as the protocol has it.
#[test]
fn an_overlong_header_is_an_error_and_exit_without_shutdown_is_1() {
    let mut input = format!(
        "X-Padding: {}\r\nContent-Length: 2\r\n\r\n{{}}",
        "a".repeat(100_000)
    );
    input.push_str(&frame(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    ));
    input.push_str(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    let (found, status) = serve(&input);
    let header = found
        .iter()
        .find(|message| message["id"].is_null())
        .unwrap_or_else(|| panic!("no error for the long header: {found:#?}"));
    assert!(
        header["error"]["message"]
            .as_str()
            .unwrap()
            .contains("a header line longer than 8192 bytes"),
        "{header:#?}"
    );
    assert!(response(&found, 1.into())["result"]["capabilities"].is_object());
    assert_eq!(status.code(), Some(1), "{status}");
}

/// `exit` ends the server within a second or so while its worker is busy with a
/// fix-all of a 3 MB file (which takes far longer): the answers already queued are
/// written, the running check is not waited for.
#[test]
fn exit_ends_the_server_while_a_fix_all_runs() {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().canonicalize().unwrap();
    let (mut child, mut send, _output, _) = server_busy_with_a_fix_all(&root);
    std::thread::sleep(std::time::Duration::from_millis(500));
    send(serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
    let asked = std::time::Instant::now();
    drop(send);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        if asked.elapsed() > std::time::Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the server was still running 10 s after exit, behind its worker");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The next message of a server's output stream, if it did not end.
fn next_message(output: &mut impl std::io::BufRead) -> Option<serde_json::Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if output.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    output.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A server serving a 250,000-line values file whose fix-all (a `codeAction`, id 2)
/// it is busy with: the child, its input, and its output.
fn server_busy_with_a_fix_all(
    root: &Path,
) -> (
    std::process::Child,
    impl FnMut(serde_json::Value),
    std::io::BufReader<std::process::ChildStdout>,
    String,
) {
    let values = root.join("values.yaml");
    let text: String = (0..250_000).map(|n| format!("k{n}: 1 #x\n")).collect();
    std::fs::write(&values, &text).unwrap();
    let uri = format!("file://{}", values.display());
    let mut child = start_server();
    let mut stdin = child.stdin.take().unwrap();
    let output = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut send = move |message: serde_json::Value| {
        stdin
            .write_all(frame(&message.to_string()).as_bytes())
            .unwrap();
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": format!("file://{}", root.display())}}),
    );
    send(serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction",
        "params": {"textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]}}}),
    );
    (child, send, output, uri)
}

/// The messages of `output` up to the answer to request `id`.
fn until_answer(
    output: &mut impl std::io::BufRead,
    id: serde_json::Value,
) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    while let Some(message) = next_message(output) {
        let done = message["id"] == id && message.get("method").is_none();
        seen.push(message);
        if done {
            return seen;
        }
    }
    panic!("the server ended before answering {id}: {seen:?}");
}

/// A hover is answered while the worker is busy with a fix-all of a 3 MB file: it
/// does not wait behind the fix, which is answered after it.
#[test]
fn a_hover_is_answered_while_a_fix_all_runs() {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().canonicalize().unwrap();
    let (mut child, mut send, mut output, uri) = server_busy_with_a_fix_all(&root);
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": {"line": 10, "character": 1}}}),
    );
    let seen = until_answer(&mut output, serde_json::json!(3));
    let hover = seen.last().unwrap();
    let shown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.starts_with("`k10`"), "{shown}");
    assert!(
        !seen.iter().any(|message| message["id"] == 2),
        "the fix-all was answered before the hover"
    );
    send(serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(send);
    assert!(child.wait().unwrap().success());
}

/// A fix-all the client cancels while it runs stops at its next round and is
/// answered `RequestCancelled` (a cancel used to reach only requests still queued,
/// so the fix ran to its end and was answered in full); the worker goes on.
#[test]
fn a_running_fix_all_is_cancelled() {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().canonicalize().unwrap();
    let (mut child, mut send, mut output, uri) = server_busy_with_a_fix_all(&root);
    // The fix of 250,000 lines runs for seconds; the worker started it at once.
    std::thread::sleep(std::time::Duration::from_millis(500));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}}));
    let seen = until_answer(&mut output, serde_json::json!(2));
    let fix_all = seen.last().unwrap();
    assert_eq!(fix_all["error"]["code"], -32800, "{fix_all:#}");
    assert!(fix_all.get("result").is_none(), "{fix_all:#}");
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/diagnostic",
        "params": {"textDocument": {"uri": uri}}}),
    );
    let seen = until_answer(&mut output, serde_json::json!(3));
    assert!(
        seen.last().unwrap()["result"]["items"].is_array(),
        "{seen:?}"
    );
    send(serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(send);
    assert!(child.wait().unwrap().success());
}

/// A burst of 1,000 edits of a 3 MB file while the worker is busy keeps one copy
/// of the text per holder, not one per edit: the server's peak memory stays far
/// below the 3 GB that 1,000 copies would take (443 MiB here with the fix-all
/// running, 2,263 MiB when each queued change held its own text).
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_flat_over_a_burst_of_edits_to_a_large_file() {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().canonicalize().unwrap();
    let (mut child, mut send, mut output, uri) = server_busy_with_a_fix_all(&root);
    for version in 2..1_002 {
        send(
            serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                    "end": {"line": 0, "character": 0}}, "text": "x"}]}}),
        );
    }
    // Answered after the message loop took in every change.
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": {"line": 10, "character": 1}}}),
    );
    until_answer(&mut output, serde_json::json!(3));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap();
    send(serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(send);
    assert!(child.wait().unwrap().success());
    assert!(
        peak_kib < 1024 * 1024,
        "the server's peak memory was {} MiB over 1,000 edits of a 3 MB file",
        peak_kib / 1024
    );
}
