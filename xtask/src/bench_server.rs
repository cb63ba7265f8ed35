//! `cargo xtask bench-server` (and the last part of `cargo xtask bench`): `tether
//! server` driven over its pipes as an editor drives it. It times a `didChange` of
//! a generated 2 MB `values.yaml` until that file's diagnostics arrive, and a
//! template's change until the diagnostics of its chart's `values.yaml` (which
//! depend on what the templates read) arrive; then, on the corpus chart with the
//! most templates and 100 of its files open, the latency of a keystroke's
//! diagnostics beyond the debounce, of hover and of completion, also while a check
//! of every open file runs; then it opens every file of the Cozystack corpus and
//! reports the server's peak RSS.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use serde_json::{json, Value};

/// Timed edits of each kind.
const EDITS: usize = 20;

pub fn bench_server(corpus: &Path) -> Result<()> {
    let tether = crate::build_profiling(&["--package", "helm-tether", "--bin", "tether"])?
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    let chart = tempfile::tempdir()?;
    let (values, template) = generate_chart(chart.path())?;
    let values_bytes = std::fs::metadata(&values)?.len();
    println!("tether server ({}):", tether.display());
    let mut server = Server::start(&tether, chart.path())?;
    let values_uri = uri(&values);
    let template_uri = uri(&template);
    server.open(&values)?;
    server.open(&template)?;
    server.wait_for(&values_uri, 1, Duration::from_secs(120))?;
    server.wait_for(&template_uri, 1, Duration::from_secs(120))?;
    // Each edit changes one value's text on line 2 of values.yaml.
    let mut times = Vec::new();
    for version in 2..2 + EDITS as i64 {
        let started = Instant::now();
        server.change(&values_uri, version, 1, &format!("  replicas: {version}"))?;
        server.wait_for(&values_uri, version, Duration::from_secs(60))?;
        times.push(started.elapsed());
    }
    report(
        &format!(
            "didChange of values.yaml ({:.1} MB) -> its diagnostics",
            values_bytes as f64 / 1e6
        ),
        &mut times,
    );
    // Each edit adds a read to the template: values.yaml's findings depend on it.
    let mut times = Vec::new();
    for version in 2..2 + EDITS as i64 {
        let before = server.published_count(&values_uri);
        let started = Instant::now();
        server.change(
            &template_uri,
            version,
            3,
            &format!("  edited: {{{{ .Values.section{version}.name }}}}"),
        )?;
        server.wait_for(&template_uri, version, Duration::from_secs(60))?;
        // values.yaml is published again, with its own (unchanged) version.
        server.wait_for_count(&values_uri, before, Duration::from_secs(60))?;
        times.push(started.elapsed());
    }
    report(
        "template didChange -> the chart's values.yaml diagnostics",
        &mut times,
    );
    server.stop()?;
    crate::bench_latency::run(&tether, corpus)?;
    let cozystack = corpus.join("cozystack");
    if cozystack.is_dir() {
        memory_with_everything_open(&tether, &cozystack)?;
    } else {
        println!(
            "  (no {}: the memory of a server holding it is not measured)",
            cozystack.display()
        );
    }
    Ok(())
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let median = times[times.len() / 2];
    let worst = times[times.len() - 1];
    println!(
        "  {what}: median {:.0} ms, max {:.0} ms over {} edits (the server waits {} ms after the last change)",
        median.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
        times.len(),
        60
    );
}

/// Every YAML and template file of `folder` open at once; the server's peak RSS
/// once the diagnostics of all of them arrived.
fn memory_with_everything_open(tether: &Path, folder: &Path) -> Result<()> {
    let mut files = Vec::new();
    walk(folder, &mut files)?;
    files.sort();
    let started = Instant::now();
    let mut server = Server::start(tether, folder)?;
    let mut bytes = 0u64;
    for file in &files {
        bytes += std::fs::metadata(file)?.len();
        server.open(file)?;
    }
    for file in &files {
        server.wait_for(&uri(file), 1, Duration::from_secs(600))?;
    }
    let elapsed = started.elapsed();
    let peak = server.peak_rss_kib()?;
    server.stop()?;
    println!(
        "  every file of {} open ({} files, {:.1} MB): diagnostics of all in {:.1} s, peak RSS {:.0} MB",
        folder.display(),
        files.len(),
        bytes as f64 / 1e6,
        elapsed.as_secs_f64(),
        peak as f64 / 1024.0
    );
    Ok(())
}

/// A chart whose `values.yaml` is about 2 MB of documented sections, and a
/// template reading some of them. Returns both paths.
fn generate_chart(root: &Path) -> Result<(PathBuf, PathBuf)> {
    let chart = root.join("big");
    std::fs::create_dir_all(chart.join("templates"))?;
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: big\nversion: 0.1.0\n",
    )?;
    let mut values = String::from("app:\n  replicas: 1\n");
    let mut section = 0;
    while values.len() < 2_000_000 {
        values.push_str(&format!(
            "# Section {section}: what it configures, in a sentence or two of\n# documentation.\nsection{section}:\n  # Its name.\n  name: \"section-{section}\"\n  # Whether it is on.\n  enabled: true\n  # How many.\n  count: {section}\n"
        ));
        section += 1;
    }
    let template = chart.join("templates/deployment.yaml");
    let mut text = String::from(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  placeholder: x\n  replicas: {{ .Values.app.replicas }}\n",
    );
    for read in (0..section).step_by(97) {
        text.push_str(&format!(
            "  s{read}: {{{{ .Values.section{read}.name }}}}\n"
        ));
    }
    std::fs::write(chart.join("values.yaml"), values)?;
    std::fs::write(&template, text)?;
    Ok((chart.join("values.yaml"), template))
}

pub(crate) fn walk(folder: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_file()
            && path.extension().is_some_and(|extension| {
                extension == "yaml" || extension == "yml" || extension == "tpl"
            })
        {
            out.push(path);
        }
    }
    Ok(())
}

pub(crate) fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A `tether server` and what it sent.
pub(crate) struct Server {
    child: Child,
    input: ChildStdin,
    published: Receiver<(String, Option<i64>)>,
    /// The answers to requests: their id, and when they were read.
    answers: Receiver<(i64, Instant)>,
    /// Per URI: the newest version published, and how many times.
    seen: HashMap<String, (i64, usize)>,
    next_id: i64,
}

impl Server {
    pub(crate) fn start(tether: &Path, root: &Path) -> Result<Server> {
        let mut child = Command::new(tether)
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start {} server", tether.display()))?;
        let input = child.stdin.take().context("no stdin")?;
        let output = child.stdout.take().context("no stdout")?;
        let (sender, published) = std::sync::mpsc::channel();
        let (answered, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            while let Some(message) = read_message(&mut reader) {
                if message.get("method").is_none() {
                    if let Some(id) = message["id"].as_i64() {
                        let _ = answered.send((id, Instant::now()));
                    }
                    continue;
                }
                if message["method"] == "textDocument/publishDiagnostics" {
                    let uri = message["params"]["uri"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string();
                    let version = message["params"]["version"].as_i64();
                    if sender.send((uri, version)).is_err() {
                        break;
                    }
                }
            }
        });
        let mut server = Server {
            child,
            input,
            published,
            answers,
            seen: HashMap::new(),
            next_id: 1,
        };
        server.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "capabilities": {}, "rootUri": uri(root) },
        }))?;
        server.send(&json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }))?;
        Ok(server)
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        let text = message.to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{text}", text.len())?;
        self.input.flush()?;
        Ok(())
    }

    pub(crate) fn open(&mut self, path: &Path) -> Result<()> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        self.send(&json!({
            "jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": { "textDocument": {
                "uri": uri(path), "languageId": "yaml", "version": 1, "text": text,
            }},
        }))
    }

    /// Replaces line `line` (0-based) of the document with `text`.
    pub(crate) fn change(&mut self, uri: &str, version: i64, line: u32, text: &str) -> Result<()> {
        self.send(&json!({
            "jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{
                    "range": {
                        "start": { "line": line, "character": 0 },
                        "end": { "line": line + 1, "character": 0 },
                    },
                    "text": format!("{text}\n"),
                }],
            },
        }))
    }

    /// Takes the next publication, waiting at most until `deadline`.
    fn take(&mut self, deadline: Instant) -> Result<()> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.published.recv_timeout(left) {
            Ok((uri, version)) => {
                let entry = self.seen.entry(uri).or_insert((0, 0));
                entry.0 = entry.0.max(version.unwrap_or(0));
                entry.1 += 1;
                Ok(())
            }
            Err(RecvTimeoutError::Timeout) => bail!("timed out waiting for diagnostics"),
            Err(RecvTimeoutError::Disconnected) => bail!("the server stopped"),
        }
    }

    /// Waits for diagnostics of `uri` at `version` or later.
    pub(crate) fn wait_for(&mut self, uri: &str, version: i64, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        while self.seen.get(uri).is_none_or(|seen| seen.0 < version) {
            self.take(deadline)
                .with_context(|| format!("diagnostics of {uri} v{version}"))?;
        }
        Ok(())
    }

    /// How many times diagnostics of `uri` were published so far.
    fn published_count(&self, uri: &str) -> usize {
        self.seen.get(uri).map_or(0, |seen| seen.1)
    }

    /// Waits until diagnostics of `uri` were published more than `count` times.
    fn wait_for_count(&mut self, uri: &str, count: usize, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        while self.published_count(uri) <= count {
            self.take(deadline)
                .with_context(|| format!("diagnostics of {uri}"))?;
        }
        Ok(())
    }

    /// The server's peak resident memory so far (Linux).
    fn peak_rss_kib(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .context("reading the server's /proc status (Linux only)")?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmHWM")
    }

    /// Sends the request `method` with `params` and waits for its answer: how
    /// long it took.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Result<Duration> {
        let id = self.next_id;
        self.next_id += 1;
        let started = Instant::now();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        loop {
            let (answered, at) = self
                .answers
                .recv_timeout(Duration::from_secs(60))
                .with_context(|| format!("no answer to {method}"))?;
            if answered == id {
                return Ok(at - started);
            }
        }
    }

    pub(crate) fn stop(mut self) -> Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": "shutdown" }))?;
        self.send(&json!({ "jsonrpc": "2.0", "method": "exit" }))?;
        let status = self.child.wait()?;
        ensure!(status.success(), "the server exited with {status}");
        Ok(())
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some(value) = trimmed.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
