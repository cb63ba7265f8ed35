//! Checks `rules::helm_docs::simulate` against the READMEs that helm-docs generated in
//! the corpus (`../shared/corpus`): every README row whose key the simulation
//! describes must carry the same description, and no key of values.yaml may have a
//! README description that the simulation misses.
//!
//! helm-docs writes a description into its table as it is (it escapes nothing), so a
//! cell is compared as written, whitespace normalised; only the cell boundaries need
//! care: `\|` and a `|` inside a code span do not end a cell, and a row whose
//! description spans lines (`@raw`) runs until a line ends with `|`.
//!
//! Outside CI the check is skipped with a printed reason when the corpus is absent;
//! in CI (`CI=true`) the corpus is always laid out beside the checkout, so its
//! absence is a failure.

#![allow(clippy::print_stderr)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use helm_tether::internals::{helm_docs_path, simulate};

fn readmes(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            readmes(&path, out);
        } else if path.file_name().is_some_and(|name| name == "README.md") {
            out.push(path);
        }
    }
}

/// Whether helm-docs generated the README: its footer names helm-docs, or a
/// `README.md.gotmpl` beside it is the template helm-docs renders into it.
fn generated_by_helm_docs(readme: &str, folder: &Path) -> bool {
    let footer_start = readme
        .char_indices()
        .rev()
        .nth(2000)
        .map_or(0, |(index, _)| index);
    readme[footer_start..].contains("helm-docs") || folder.join("README.md.gotmpl").is_file()
}

/// One row of a values table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    key: String,
    description: String,
    /// 1-based line of the README.
    line: usize,
}

/// The rows of every `| Key | Type | Default | Description |` table. Rows that the
/// README's template holds word for word were written by hand, not generated from
/// values.yaml: they are left out, and counted.
fn value_rows(readme: &str, template: Option<&str>) -> (Vec<Row>, usize) {
    let hand_written: HashSet<&str> = template
        .map(|template| template.lines().map(str::trim).collect())
        .unwrap_or_default();
    let lines: Vec<&str> = readme.lines().collect();
    let mut rows = Vec::new();
    let mut skipped = 0;
    let mut index = 0;
    while index < lines.len() {
        let header = split_cells(lines[index]);
        let is_header = header.len() == 4
            && header
                .iter()
                .map(|cell| cell.trim())
                .eq(["Key", "Type", "Default", "Description"]);
        index += 1;
        if !is_header {
            continue;
        }
        // The `|---|---|` line.
        index += 1;
        while index < lines.len() && lines[index].trim_start().starts_with('|') {
            let first = index;
            let mut text = lines[index].trim().to_string();
            // A description with line breaks (`@raw`) continues the row.
            while !text.ends_with('|') && index + 1 < lines.len() {
                index += 1;
                text.push('\n');
                text.push_str(lines[index].trim());
            }
            index += 1;
            if hand_written.contains(lines[first].trim()) {
                skipped += 1;
                continue;
            }
            let cells = split_cells(&text);
            if cells.len() < 4 {
                continue;
            }
            rows.push(Row {
                key: cells[0].trim().trim_matches('`').to_string(),
                // A `|` the description holds outside a code span splits it further.
                description: cells[3..].join("|").trim().to_string(),
                line: first + 1,
            });
        }
    }
    (rows, skipped)
}

/// The cells of a table row, without the outer pipes. A `|` ends a cell unless it is
/// escaped (`\|`) or inside a code span; if the row's backticks do not pair up, code
/// spans are not considered.
fn split_cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let Some(inner) = row.strip_prefix('|') else {
        return Vec::new();
    };
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    split_inner(inner, true).unwrap_or_else(|| split_inner(inner, false).unwrap_or_default())
}

/// Splits on unescaped pipes, outside code spans when `code_spans`; `None` when a
/// code span is left open.
fn split_inner(inner: &str, code_spans: bool) -> Option<Vec<String>> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    // The length of the backtick run that opened the current code span.
    let mut open_span: Option<usize> = None;
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push(c);
                cell.extend(chars.next());
            }
            '`' if code_spans => {
                let mut run = 1;
                while chars.peek() == Some(&'`') {
                    chars.next();
                    run += 1;
                }
                cell.extend(std::iter::repeat_n('`', run));
                open_span = match open_span {
                    None => Some(run),
                    Some(open) if open == run => None,
                    other => other,
                };
            }
            '|' if open_span.is_none() => cells.push(std::mem::take(&mut cell)),
            other => cell.push(other),
        }
    }
    cells.push(cell);
    open_span.is_none().then_some(cells)
}

fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the comparison found for one chart.
#[derive(Default)]
struct Outcome {
    rows: usize,
    compared: usize,
    agreeing: usize,
    /// Rows with no description that the simulation does not describe either.
    undescribed: usize,
    /// Rows with a description whose key values.yaml holds, but the simulation does
    /// not describe: failures.
    missed: Vec<String>,
    /// Rows with a description whose key is not in values.yaml (a subchart's, an
    /// alias's expansion, a stale row).
    readme_only: Vec<String>,
    /// Described keys that no generated row shows (a template that filters rows, or a
    /// stale README).
    simulation_only: Vec<String>,
    hand_written: usize,
    disagreements: Vec<String>,
}

fn compare(chart: &str, readme: &str, template: Option<&str>, values: &[u8]) -> Outcome {
    let (source, _) =
        helm_tether::internals::SourceFile::from_bytes("values.yaml", values.to_vec());
    let model = helm_tether::FileModel::from_bytes("values.yaml", values.to_vec());
    let docs = simulate(&source, &model);
    let keys: HashSet<String> = model
        .keys()
        .map(|(_, key)| helm_docs_path(&key.path))
        .collect();
    let (rows, hand_written) = value_rows(readme, template);
    let mut outcome = Outcome {
        rows: rows.len(),
        hand_written,
        ..Outcome::default()
    };
    let mut shown = BTreeSet::new();
    for row in &rows {
        shown.insert(row.key.as_str());
        let expected = normalise(&row.description);
        match docs.descriptions.get(&row.key) {
            Some(description) => {
                outcome.compared += 1;
                let simulated = normalise(&description.text);
                if simulated == expected {
                    outcome.agreeing += 1;
                } else {
                    outcome.disagreements.push(format!(
                        "{chart}: README.md:{} `{}`\n    README:     {expected}\n    simulation: {simulated} (values.yaml lines {}-{})",
                        row.line,
                        row.key,
                        description.lines.start + 1,
                        description.lines.end
                    ));
                }
            }
            None if expected.is_empty() => outcome.undescribed += 1,
            None if keys.contains(&row.key) => outcome.missed.push(format!(
                "{chart}: README.md:{} `{}` says {expected:?}, the simulation gives it no description",
                row.line, row.key
            )),
            None => outcome.readme_only.push(row.key.clone()),
        }
    }
    outcome.simulation_only = docs
        .descriptions
        .keys()
        .filter(|key| !shown.contains(key.as_str()))
        .cloned()
        .collect();
    outcome
}

#[test]
fn simulation_agrees_with_the_readmes_helm_docs_generated() {
    let Some(dir) = common::corpus_dir("the helm-docs comparison") else {
        return;
    };
    let mut paths = Vec::new();
    readmes(&dir, &mut paths);
    paths.sort();
    let mut outcomes = BTreeMap::new();
    for path in &paths {
        let folder = path.parent().expect("a README has a folder");
        let values = folder.join("values.yaml");
        let readme = std::fs::read_to_string(path).expect("corpus READMEs are UTF-8");
        if !values.is_file() || !generated_by_helm_docs(&readme, folder) {
            continue;
        }
        let template = std::fs::read_to_string(folder.join("README.md.gotmpl")).ok();
        let chart = folder
            .strip_prefix(&dir)
            .unwrap_or(folder)
            .display()
            .to_string();
        let values = std::fs::read(&values).expect("corpus files are readable");
        let outcome = compare(&chart, &readme, template.as_deref(), &values);
        outcomes.insert(chart, outcome);
    }

    let mut total = Outcome::default();
    for (chart, outcome) in &outcomes {
        eprintln!(
            "{chart}: {} rows, {} compared, {} agreeing, {} undescribed on both sides; {} README descriptions missed, {} README-only keys, {} simulation-only keys, {} hand-written rows skipped",
            outcome.rows,
            outcome.compared,
            outcome.agreeing,
            outcome.undescribed,
            outcome.missed.len(),
            outcome.readme_only.len(),
            outcome.simulation_only.len(),
            outcome.hand_written
        );
        if !outcome.readme_only.is_empty() {
            eprintln!("    README-only: {}", outcome.readme_only.join(", "));
        }
        if !outcome.simulation_only.is_empty() {
            eprintln!(
                "    simulation-only: {}",
                outcome.simulation_only.join(", ")
            );
        }
        total.rows += outcome.rows;
        total.compared += outcome.compared;
        total.agreeing += outcome.agreeing;
        total.undescribed += outcome.undescribed;
        total.hand_written += outcome.hand_written;
        total.missed.extend(outcome.missed.iter().cloned());
        total
            .readme_only
            .extend(outcome.readme_only.iter().cloned());
        total
            .simulation_only
            .extend(outcome.simulation_only.iter().cloned());
        total
            .disagreements
            .extend(outcome.disagreements.iter().cloned());
    }
    eprintln!(
        "total: {} charts, {} rows, {} compared, {} agreeing, {} undescribed on both sides; {} README descriptions missed, {} README-only keys, {} simulation-only keys, {} hand-written rows skipped",
        outcomes.len(),
        total.rows,
        total.compared,
        total.agreeing,
        total.undescribed,
        total.missed.len(),
        total.readme_only.len(),
        total.simulation_only.len(),
        total.hand_written
    );

    assert!(
        total.compared > 1000,
        "only {} README rows compared: the README tables were not found",
        total.compared
    );
    let failures: Vec<&String> = total.disagreements.iter().chain(&total.missed).collect();
    assert!(
        failures.is_empty(),
        "{} README rows disagree with the simulation:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|failure| failure.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// `undocumented-value` against the same READMEs: a key it reports (the outermost
/// undocumented one) must have no description in the README, nor any key below it.
/// This holds tether's reading of a values file (which comment documents which key,
/// an empty `#` line documenting nothing, a `# --` over-indented above its key
/// documenting it) to what helm-docs printed.
#[test]
fn undocumented_value_reports_no_key_that_helm_docs_describes() {
    let Some(dir) = common::corpus_dir("the helm-docs comparison") else {
        return;
    };
    let mut paths = Vec::new();
    readmes(&dir, &mut paths);
    paths.sort();
    let (mut charts, mut findings, mut described_keys) = (0, 0, 0);
    let mut wrong = Vec::new();
    for path in &paths {
        let folder = path.parent().expect("a README has a folder");
        let values = folder.join("values.yaml");
        let readme = std::fs::read_to_string(path).expect("corpus READMEs are UTF-8");
        if !values.is_file()
            || !folder.join("Chart.yaml").is_file()
            || !generated_by_helm_docs(&readme, folder)
        {
            continue;
        }
        charts += 1;
        let template = std::fs::read_to_string(folder.join("README.md.gotmpl")).ok();
        let (rows, _) = value_rows(&readme, template.as_deref());
        let described: Vec<String> = rows
            .iter()
            .filter(|row| !normalise(&row.description).is_empty())
            .map(|row| row.key.replace('"', ""))
            .collect();
        described_keys += described.len();
        let config =
            helm_tether::Config::from_toml_in("[rules]\nundocumented-value = \"warn\"\n", folder)
                .expect("the configuration is valid");
        let bytes = std::fs::read(&values).expect("corpus files are readable");
        let (_, diagnostics) = helm_tether::internals::check_bytes(
            &config,
            Path::new("values.yaml"),
            bytes,
            helm_tether::internals::Mode::Lazy,
        );
        for diagnostic in diagnostics
            .iter()
            .filter(|d| d.rule == "undocumented-value")
        {
            findings += 1;
            let key = diagnostic
                .message
                .split('`')
                .nth(1)
                .expect("the message names the key")
                .to_string();
            let below = |described: &String| {
                described
                    .strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
            };
            if let Some(found) = described.iter().find(|d| below(d)) {
                wrong.push(format!(
                    "{}: `{key}` reported undocumented, but the README describes `{found}`",
                    folder.strip_prefix(&dir).unwrap_or(folder).display()
                ));
            }
        }
    }
    eprintln!(
        "undocumented-value on {charts} charts with a helm-docs README: {findings} findings, \
         {} on a key the README describes (of {described_keys} described keys)",
        wrong.len()
    );
    assert!(charts >= 5, "only {charts} charts compared");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn cells_split_on_unescaped_pipes_outside_code_spans() {
    assert_eq!(
        split_cells("| a.b | string | `\"x|y\"` | Use `a | b` or c \\| d |"),
        [
            " a.b ",
            " string ",
            " `\"x|y\"` ",
            " Use `a | b` or c \\| d "
        ]
    );
    assert_eq!(
        split_cells("| a | string | `x` | odd ` tick | here |"),
        [" a ", " string ", " `x` ", " odd ` tick ", " here "]
    );
    assert_eq!(split_cells("no table"), Vec::<String>::new());
}

#[test]
fn rows_span_lines_and_hand_written_rows_are_skipped() {
    let readme = "\
## Values

| Key | Type | Default | Description |
|-----|------|---------|-------------|
| a | string | `\"\"` | first
second |
| b | int | `1` | Hand written |
| c | int | `2` | plain |

after
";
    let template = "| b | int | `1` | Hand written |\n";
    let (rows, skipped) = value_rows(readme, Some(template));
    assert_eq!(skipped, 1);
    let found: Vec<(&str, &str, usize)> = rows
        .iter()
        .map(|row| (row.key.as_str(), row.description.as_str(), row.line))
        .collect();
    assert_eq!(found, [("a", "first\nsecond", 5), ("c", "plain", 8)]);
}
