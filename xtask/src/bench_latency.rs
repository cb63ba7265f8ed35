//! The editor's latency, part of `cargo xtask bench-server`: on the corpus chart
//! with the most templates, with 100 of its files open, how long a keystroke's
//! diagnostics take beyond the server's debounce, and how long hover and
//! completion take, on a quiet server, right after a keystroke, and while a check
//! of every open file runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::json;

use crate::bench_server::{uri, walk, Server};

/// The server's debounce after the last change (`server/diagnostics.rs`).
const DEBOUNCE: Duration = Duration::from_millis(60);
/// How many files are open.
const OPEN: usize = 100;
/// Timed requests of each kind.
const ROUNDS: usize = 30;

/// `cargo xtask bench-latency`: the latency alone, with the profiling build.
pub fn bench_latency(corpus: &Path) -> Result<()> {
    let tether = crate::build_profiling(&["--package", "helm-tether", "--bin", "tether"])?
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    println!("tether server ({}):", tether.display());
    run(&tether, corpus)
}

pub fn run(tether: &Path, corpus: &Path) -> Result<()> {
    let Some((repository, chart, files)) = largest_chart(corpus)? else {
        println!(
            "  (no chart under {}: latency is not measured)",
            corpus.display()
        );
        return Ok(());
    };
    let open: Vec<PathBuf> = files.into_iter().take(OPEN).collect();
    let values = chart.join("values.yaml");
    let (template, line, column) = open
        .iter()
        .filter(|file| **file != values)
        .find_map(|file| {
            let text = std::fs::read_to_string(file).ok()?;
            let at = text.find(".Values.")?;
            let line = text[..at].matches('\n').count();
            let column = at - text[..at].rfind('\n').map_or(0, |newline| newline + 1);
            Some((file.clone(), line, column))
        })
        .context("no open template reads .Values")?;
    let first_line = std::fs::read_to_string(&template)?
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    println!(
        "  {} ({} files open, {} typed in):",
        chart.display(),
        open.len(),
        template.strip_prefix(&chart).unwrap_or(&template).display()
    );
    let mut server = Server::start(tether, &repository)?;
    for file in &open {
        server.open(file)?;
    }
    for file in &open {
        server.wait_for(&uri(file), 1, Duration::from_secs(600))?;
    }
    let template_uri = uri(&template);
    // A keystroke: a space typed at the end of the first line, or taken away, so
    // every version's text differs from the one before (a template's reads and a
    // values file's model are kept while their text stays the same).
    let mut times = Vec::new();
    for version in 2..2 + ROUNDS as i64 {
        let started = Instant::now();
        server.change(&template_uri, version, 0, &typed(&first_line, version))?;
        server.wait_for(&template_uri, version, Duration::from_secs(60))?;
        times.push(started.elapsed().saturating_sub(DEBOUNCE));
    }
    percentiles(
        "keystroke -> its diagnostics, beyond the debounce",
        &mut times,
    );
    let hover = json!({ "textDocument": { "uri": template_uri },
        "position": { "line": line, "character": column + 9 } });
    let complete = json!({ "textDocument": { "uri": template_uri },
        "position": { "line": line, "character": column + 8 } });
    let (mut hovers, mut completions) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        hovers.push(server.request("textDocument/hover", hover.clone())?);
        completions.push(server.request("textDocument/completion", complete.clone())?);
    }
    percentiles("hover on a .Values read", &mut hovers);
    percentiles("completion after .Values.", &mut completions);
    // The first hover after each keystroke: a new generation of the chart.
    let mut hovers = Vec::new();
    for version in 2 + ROUNDS as i64..2 + 2 * ROUNDS as i64 {
        server.change(&template_uri, version, 0, &typed(&first_line, version))?;
        server.wait_for(&template_uri, version, Duration::from_secs(60))?;
        hovers.push(server.request("textDocument/hover", hover.clone())?);
    }
    percentiles("hover after a keystroke's diagnostics", &mut hovers);
    // The chart's values.yaml changed: every open file of the chart is checked again.
    let values_uri = uri(&values);
    let values_line = std::fs::read_to_string(&values)?
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let (mut hovers, mut completions) = (Vec::new(), Vec::new());
    for version in 2..2 + ROUNDS as i64 {
        server.change(&values_uri, version, 0, &typed(&values_line, version))?;
        std::thread::sleep(DEBOUNCE + Duration::from_millis(20));
        hovers.push(server.request("textDocument/hover", hover.clone())?);
        completions.push(server.request("textDocument/completion", complete.clone())?);
        server.wait_for(&values_uri, version, Duration::from_secs(60))?;
    }
    percentiles(
        "hover while the chart's open files are checked again",
        &mut hovers,
    );
    percentiles(
        "completion while the chart's open files are checked again",
        &mut completions,
    );
    server.stop()
}

/// `line` as the keystroke of `version` leaves it: with a space at its end when
/// the version is odd.
fn typed(line: &str, version: i64) -> String {
    if version % 2 == 1 {
        format!("{line} ")
    } else {
        line.to_string()
    }
}

/// The median, 95th percentile and worst of `times`.
fn percentiles(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |share: f64| times[((times.len() as f64 * share).ceil() as usize).saturating_sub(1)];
    println!(
        "    {what}: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms over {}",
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        at(1.0).as_secs_f64() * 1e3,
        times.len()
    );
}

/// The chart of the corpus with the most template files: the repository folder
/// holding it (the corpus's folder it is in), the chart, and its `values.yaml`
/// then its templates, in path order.
fn largest_chart(corpus: &Path) -> Result<Option<(PathBuf, PathBuf, Vec<PathBuf>)>> {
    if !corpus.is_dir() {
        return Ok(None);
    }
    let mut files = Vec::new();
    walk(corpus, &mut files)?;
    let mut best: Option<(usize, PathBuf)> = None;
    for chart_yaml in files.iter().filter(|file| file.ends_with("Chart.yaml")) {
        let Some(chart) = chart_yaml.parent() else {
            continue;
        };
        let templates = files
            .iter()
            .filter(|file| file.starts_with(chart.join("templates")))
            .count();
        if best.as_ref().is_none_or(|(most, _)| templates > *most) {
            best = Some((templates, chart.to_path_buf()));
        }
    }
    let Some((_, chart)) = best else {
        return Ok(None);
    };
    let repository = chart
        .strip_prefix(corpus)
        .ok()
        .and_then(|inside| inside.components().next())
        .map_or_else(|| corpus.to_path_buf(), |first| corpus.join(first));
    let mut open: Vec<PathBuf> = files
        .iter()
        .filter(|file| file.starts_with(chart.join("templates")))
        .cloned()
        .collect();
    open.sort();
    open.insert(0, chart.join("values.yaml"));
    Ok(Some((repository, chart, open)))
}
