//! `cargo xtask precision`: runs the release `tether check` over the three corpora,
//! counts findings per corpus and rule, and keeps `docs/src/precision.md`, a seeded sample
//! of findings per corpus and rule with a verdict (real, debatable, false) written by
//! hand for each. Regenerating the file keeps the verdicts; `--check` fails while the
//! file is stale, a sampled finding has no verdict, or a rule has more than one false
//! positive in a corpus.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

/// The corpora under the corpus directory, in the order of the report.
const CORPORA: [&str; 5] = [
    "cozystack",
    "prometheus-community",
    "argo-helm",
    "k8s-at-home-charts",
    "k8s-at-home-library-charts",
];

/// The generated file, relative to the workspace root.
const OUTPUT: &str = "docs/src/precision.md";

const USAGE: &str =
    "usage: cargo xtask precision [--corpus DIR] [--per-rule N] [--seed S] [--check]";

/// More `false` verdicts than this in one (corpus, rule) sample fails `--check`.
const MAX_FALSE: usize = 1;

/// Longest source line shown in the file, in characters; the identity uses all of it.
const MAX_SOURCE_CHARS: usize = 80;

pub fn precision(args: &[String]) -> Result<()> {
    precision_of(args, None)
}

/// [`precision`] with a release binary built already (`cargo xtask ci` builds the
/// shipped one once for every step that runs it), else the host's release build.
pub fn precision_of(args: &[String], tether: Option<&Path>) -> Result<()> {
    let args = parse_args(args)?;
    let tether = match tether {
        Some(tether) => tether.to_path_buf(),
        None => build_tether()?,
    };

    // Keyed by corpus index then rule, so the report follows `CORPORA` and then the
    // rules' names.
    let mut groups: BTreeMap<(usize, String), Vec<Finding>> = BTreeMap::new();
    for (corpus_index, corpus) in CORPORA.iter().enumerate() {
        for finding in run_tether(&tether, &args.corpus, corpus)? {
            groups
                .entry((corpus_index, finding.rule.clone()))
                .or_default()
                .push(finding);
        }
    }
    print_counts(&groups);

    let output = crate::project_root().join(OUTPUT);
    let old = match std::fs::read_to_string(&output) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(error).with_context(|| format!("cannot read {}", output.display()))
        }
    };
    let judgements = match &old {
        Some(text) => parse_judgements(text)?,
        None => HashMap::new(),
    };

    let mut sources = SourceLines::default();
    let mut sections = Vec::new();
    for ((corpus_index, rule), mut findings) in groups {
        let corpus = CORPORA[corpus_index];
        findings.sort();
        let seed = args
            .seed
            .wrapping_add(fnv1a(format!("{corpus}|{rule}").as_bytes()));
        // Identities of all the findings, not only the sampled ones, so that the
        // occurrence number of a repeated identity does not depend on the draw.
        let mut occurrences: HashMap<String, usize> = HashMap::new();
        let mut identities = Vec::with_capacity(findings.len());
        for finding in &findings {
            let (path, source_line) = sources.line(&args.corpus, corpus, finding)?;
            let identity = format!("{corpus}|{rule}|{path}|{source_line}");
            let occurrence = occurrences.entry(identity.clone()).or_default();
            *occurrence += 1;
            let id = match *occurrence {
                1 => fnv1a(identity.as_bytes()),
                n => fnv1a(format!("{identity}|#{n}").as_bytes()),
            };
            identities.push((path, source_line, id));
        }
        let mut rows = Vec::new();
        for index in sample(findings.len(), args.per_rule, seed) {
            let finding = findings[index].clone();
            let (path, source_line, id) = identities[index].clone();
            let judgement = judgements
                .get(&id)
                .map(|old| old.judgement.clone())
                .unwrap_or_default();
            rows.push(Row {
                finding,
                path,
                source_line,
                id,
                judgement,
            });
        }
        sections.push(Section {
            corpus,
            rule,
            findings: findings.len(),
            rows,
        });
    }

    let new = render(&sections, &args);
    let stale = old.as_deref() != Some(new.as_str());
    report_dropped(&judgements, &sections);
    let unjudged = report_unjudged(&sections);
    let too_false = report_false(&sections);

    if !args.check {
        if stale {
            std::fs::write(&output, &new)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!("wrote {OUTPUT}");
        } else {
            println!("{OUTPUT} is up to date");
        }
        return Ok(());
    }
    let mut problems = Vec::new();
    if stale {
        match &old {
            Some(old) => print_diff(old, &new),
            None => println!("{OUTPUT} does not exist"),
        }
        problems.push(format!(
            "{OUTPUT} is not what `cargo xtask precision` writes; run it and review the changes"
        ));
    }
    if unjudged > 0 {
        problems.push(format!(
            "{unjudged} sampled findings have no verdict; write real, debatable or false in their rows of {OUTPUT}"
        ));
    }
    if too_false > 0 {
        problems.push(format!(
            "{too_false} (corpus, rule) samples have more than {MAX_FALSE} false verdict; fix the rules or their options"
        ));
    }
    if !problems.is_empty() {
        bail!("precision check failed:\n  - {}", problems.join("\n  - "));
    }
    println!("{OUTPUT} is up to date and every sampled finding is judged");
    Ok(())
}

struct PrecisionArgs {
    corpus: PathBuf,
    per_rule: usize,
    seed: u64,
    check: bool,
}

/// `[--corpus DIR] [--per-rule N] [--seed S] [--check]`; the corpus defaults to
/// `<repo>/../shared/corpus`, as for `bench`.
fn parse_args(args: &[String]) -> Result<PrecisionArgs> {
    let mut parsed = PrecisionArgs {
        corpus: crate::project_root().join("../shared/corpus"),
        per_rule: 20,
        seed: 7,
        check: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--corpus" => parsed.corpus = args.next().context(USAGE)?.into(),
            "--per-rule" => parsed.per_rule = args.next().context(USAGE)?.parse().context(USAGE)?,
            "--seed" => parsed.seed = args.next().context(USAGE)?.parse().context(USAGE)?,
            "--check" => parsed.check = true,
            _ => bail!("unexpected argument `{arg}`\n{USAGE}"),
        }
    }
    ensure!(parsed.per_rule > 0, "--per-rule must be at least 1");
    ensure!(
        parsed.corpus.is_dir(),
        "corpus directory not found: {} (pass --corpus DIR)",
        parsed.corpus.display()
    );
    for corpus in CORPORA {
        let dir = parsed.corpus.join(corpus);
        ensure!(
            dir.is_dir(),
            "corpus `{corpus}` not found: {} is not a directory (the corpus directory must hold {})",
            dir.display(),
            CORPORA.join(", ")
        );
    }
    Ok(parsed)
}

/// Builds the release `tether` binary and returns its path.
fn build_tether() -> Result<PathBuf> {
    let tether = crate::build_release(&["--package", "helm-tether", "--bin", "tether"])?
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    ensure!(
        tether.is_file(),
        "cargo built tether but {} does not exist",
        tether.display()
    );
    Ok(tether)
}

/// One diagnostic of `tether check --format json`. Fields are in sort order: the
/// sample is drawn from findings sorted by path, line, column and message.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    path: String,
    line: usize,
    column: usize,
    message: String,
    rule: String,
}

/// Every rule's name, from the first column of `tether rules`.
fn every_rule(tether: &Path) -> Result<Vec<String>> {
    let output = Command::new(tether)
        .arg("rules")
        .output()
        .with_context(|| format!("cannot run {} rules", tether.display()))?;
    ensure!(
        output.status.success(),
        "tether rules failed ({})",
        output.status
    );
    let names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(String::from)
        .collect();
    ensure!(!names.is_empty(), "tether rules listed no rule");
    Ok(names)
}

/// Runs `tether check --no-cache --format json --select EVERY-RULE <corpus>` in the
/// corpus directory, so paths in the output start with the corpus's name: every
/// rule, the opt-in ones too, is judged.
fn run_tether(tether: &Path, corpus_dir: &Path, corpus: &str) -> Result<Vec<Finding>> {
    let every_rule = every_rule(tether)?;
    let output = Command::new(tether)
        .args(["check", "--no-cache", "--format", "json", "--select"])
        .arg(every_rule.join(","))
        .arg(corpus)
        .current_dir(corpus_dir)
        .output()
        .with_context(|| format!("cannot run {}", tether.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 0: no errors, 1: errors found, 2: a failure, which still prints the findings.
    ensure!(
        matches!(output.status.code(), Some(0..=2)),
        "tether check {corpus} failed ({}):\n{stderr}",
        output.status
    );
    let json: Value = serde_json::from_slice(&output.stdout).with_context(|| {
        format!(
            "tether check {corpus} ({}) printed no JSON report; its stderr:\n{stderr}",
            output.status
        )
    })?;
    if output.status.code() == Some(2) {
        eprintln!("warning: tether check {corpus} reported a failure:\n{stderr}");
    }
    let diagnostics = json
        .get("diagnostics")
        .and_then(Value::as_array)
        .with_context(|| format!("tether check {corpus}: no `diagnostics` array in the JSON"))?;
    diagnostics
        .iter()
        .enumerate()
        .map(|(index, diagnostic)| {
            let text = |field: &str| {
                diagnostic
                    .get(field)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .with_context(|| {
                        format!("tether check {corpus}: diagnostic {index} has no string `{field}`")
                    })
            };
            let number = |field: &str| {
                diagnostic
                    .get(field)
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
                    .with_context(|| {
                        format!("tether check {corpus}: diagnostic {index} has no number `{field}`")
                    })
            };
            Ok(Finding {
                path: text("path")?,
                line: number("line")?,
                column: number("column")?,
                message: text("message")?,
                rule: text("rule")?,
            })
        })
        .collect()
}

/// The counts table: one row per rule, one column per corpus, and totals.
fn print_counts(groups: &BTreeMap<(usize, String), Vec<Finding>>) {
    let mut counts: BTreeMap<&str, [usize; CORPORA.len()]> = BTreeMap::new();
    for ((corpus_index, rule), findings) in groups {
        counts.entry(rule).or_default()[*corpus_index] = findings.len();
    }
    let rule_width = counts.keys().map(|r| r.len()).chain([5]).max().unwrap_or(5);
    let mut header = format!("{:rule_width$}", "rule");
    for corpus in CORPORA {
        write!(header, "  {corpus:>8}").unwrap();
    }
    println!("{header}  {:>8}", "total");
    let mut totals = [0; CORPORA.len()];
    let row = |name: &str, per_corpus: &[usize; CORPORA.len()]| {
        let mut line = format!("{name:rule_width$}");
        for (corpus, count) in CORPORA.iter().zip(per_corpus) {
            write!(line, "  {count:>width$}", width = corpus.len().max(8)).unwrap();
        }
        println!("{line}  {:>8}", per_corpus.iter().sum::<usize>());
    };
    for (rule, per_corpus) in &counts {
        row(rule, per_corpus);
        for (total, count) in totals.iter_mut().zip(per_corpus) {
            *total += count;
        }
    }
    row("total", &totals);
    println!();
}

/// The indices of `count` items, at most `per_rule` of them, drawn by a partial
/// Fisher–Yates shuffle driven by splitmix64, then sorted: the same for the same seed
/// and the same findings, on every machine.
fn sample(count: usize, per_rule: usize, seed: u64) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..count).collect();
    if count > per_rule {
        let mut random = SplitMix64(seed);
        for i in 0..per_rule {
            let j = i + random.below(count - i);
            indices.swap(i, j);
        }
        indices.truncate(per_rule);
        indices.sort_unstable();
    }
    indices
}

/// Steele, Lea and Flood's splitmix64: tiny, and good enough to draw a sample.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound`, by Lemire's multiply-and-shift (no division).
    fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next()) * bound as u128) >> 64) as usize
    }
}

/// 64-bit FNV-1a: the hash of a finding's identity, written in the file.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The lines of the corpus files that findings point at, each file read once.
#[derive(Default)]
struct SourceLines {
    files: HashMap<PathBuf, Vec<String>>,
}

impl SourceLines {
    /// The finding's path as the identity names it (relative to the corpus
    /// directory) and the trimmed text of its line, empty past the end of the file.
    fn line(
        &mut self,
        corpus_dir: &Path,
        corpus: &str,
        finding: &Finding,
    ) -> Result<(String, String)> {
        // Paths are relative to the folder of the `tether.toml` in use; with none, to
        // the corpus directory. A configuration at the top of a corpus makes them
        // relative to that corpus, so put its name back.
        let path = if corpus_dir.join(&finding.path).is_file() {
            finding.path.clone()
        } else if corpus_dir.join(corpus).join(&finding.path).is_file() {
            format!("{corpus}/{}", finding.path)
        } else {
            bail!(
                "tether reported {} in {corpus}, but {} is not a file",
                finding.path,
                corpus_dir.join(&finding.path).display()
            );
        };
        let full = corpus_dir.join(&path);
        if !self.files.contains_key(&full) {
            let bytes =
                std::fs::read(&full).with_context(|| format!("cannot read {}", full.display()))?;
            let lines = String::from_utf8_lossy(&bytes)
                .lines()
                .map(|line| line.trim().to_owned())
                .collect();
            self.files.insert(full.clone(), lines);
        }
        let text = finding
            .line
            .checked_sub(1)
            .and_then(|index| self.files[&full].get(index))
            .cloned()
            .unwrap_or_default();
        Ok((path, text))
    }
}

/// One (corpus, rule): how many findings, and the sampled ones.
struct Section {
    corpus: &'static str,
    rule: String,
    findings: usize,
    rows: Vec<Row>,
}

/// A sampled finding and what was said of it.
struct Row {
    finding: Finding,
    /// The finding's path relative to the corpus directory.
    path: String,
    source_line: String,
    /// FNV-1a of `corpus|rule|path|source_line`, with `|#n` after it for the n-th
    /// finding (n ≥ 2) of the same rule on the same text in the same file.
    id: u64,
    judgement: Judgement,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Real,
    Debatable,
    False,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Real => "real",
            Verdict::Debatable => "debatable",
            Verdict::False => "false",
        }
    }
}

#[derive(Clone, Default)]
struct Judgement {
    verdict: Option<Verdict>,
    /// As written in the file, Markdown escapes included.
    reason: String,
}

/// A judgement read back from the file, with the row's first cell to name it.
struct OldRow {
    finding: String,
    judgement: Judgement,
}

/// The verdicts and reasons of the rows of an existing `docs/src/precision.md`, by id.
/// A row is a table line holding `<!-- id:HEX -->`; other lines are ignored.
fn parse_judgements(text: &str) -> Result<HashMap<u64, OldRow>> {
    let mut judgements: HashMap<u64, OldRow> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let line = line.trim();
        let Some(start) = line.find("<!-- id:") else {
            continue;
        };
        if !line.starts_with('|') {
            continue;
        }
        let hex = &line[start + "<!-- id:".len()..];
        let hex = hex.split(" -->").next().unwrap_or_default().trim();
        let id = u64::from_str_radix(hex, 16).with_context(|| {
            format!("{OUTPUT}:{line_number}: `{hex}` is not a hexadecimal id; restore the `<!-- id:HEX -->` the command wrote")
        })?;
        let cells = split_cells(line);
        ensure!(
            cells.len() == 5,
            "{OUTPUT}:{line_number}: expected 5 cells (finding, source line, message, verdict, reason), found {}; write a `|` in a reason as `\\|`",
            cells.len()
        );
        let verdict = match cells[3].trim() {
            "" => None,
            "real" => Some(Verdict::Real),
            "debatable" => Some(Verdict::Debatable),
            "false" => Some(Verdict::False),
            other => bail!(
                "{OUTPUT}:{line_number}: verdict `{other}` is not `real`, `debatable` or `false` (or empty)"
            ),
        };
        let judgement = Judgement {
            verdict,
            reason: cells[4].trim().to_owned(),
        };
        let finding = cells[0].split("<!--").next().unwrap_or_default().trim();
        // The same identity can appear twice (the same text twice in a file); the
        // first row that says something wins.
        let judged = judgement.verdict.is_some() || !judgement.reason.is_empty();
        let replace = judgements.get(&id).is_none_or(|old| {
            old.judgement.verdict.is_none() && old.judgement.reason.is_empty() && judged
        });
        if replace {
            judgements.insert(
                id,
                OldRow {
                    finding: finding.to_owned(),
                    judgement,
                },
            );
        }
    }
    Ok(judgements)
}

/// The cells of a Markdown table row, split on `|` not escaped by a backslash (a
/// backslash escapes the character after it, as in GitHub's table parser).
fn split_cells(row: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut chars = row.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let cell = cells.last_mut().expect("never empty");
                cell.push(c);
                cell.extend(chars.next());
            }
            '|' => cells.push(String::new()),
            _ => cells.last_mut().expect("never empty").push(c),
        }
    }
    // Drop what is before the leading pipe and after the trailing one.
    if cells.first().is_some_and(|cell| cell.trim().is_empty()) {
        cells.remove(0);
    }
    if cells.last().is_some_and(|cell| cell.trim().is_empty()) {
        cells.pop();
    }
    cells
}

/// The whole of `docs/src/precision.md`.
fn render(sections: &[Section], args: &PrecisionArgs) -> String {
    let mut out = String::new();
    let per_rule = args.per_rule;
    let seed = args.seed;
    let corpora = CORPORA.map(|c| format!("`{c}`")).join(", ");
    writeln!(
        out,
        "# Precision of tether's rules on the corpus

generated by `cargo xtask precision`; fill in verdicts, the command keeps them.

`cargo xtask precision` runs `tether check` (release build) with every rule on, the
opt-in ones too, over the corpora
{corpora} in `../shared/corpus` (or `--corpus DIR`), and for
each corpus and rule draws a seeded sample of up to {per_rule} findings (seed {seed}). Judge each
sampled finding in its row:

- **verdict**: `real` (the comment is wrong as the message says), `debatable`, or
  `false` (a false positive), nothing else; empty while unjudged.
- **reason**: one line; write a `|` as `\\|`.

Edit only those two cells: the command rewrites the rest. A row is identified by the
hidden `<!-- id:HEX -->` after its finding: HEX is the 64-bit FNV-1a hash, in 16
lowercase hexadecimal digits, of `corpus|rule|path|text`, where `text` is the whole
line the finding points at, trimmed (the table shows at most {MAX_SOURCE_CHARS} characters of it).
When the same rule finds the same text more than once in a file, the n-th finding
from the top (n ≥ 2) hashes `corpus|rule|path|text|#n`. A verdict thus survives a
new draw and a finding that moves to another line; it is dropped when the line's
text changes or the finding leaves the sample. `cargo xtask precision --check` fails
while this file is stale, a sampled finding has no verdict, or a corpus and rule
have more than {MAX_FALSE} `false` verdict.

## Summary

| corpus | rule | findings | sampled | real | debatable | false | unjudged |
|---|---|--:|--:|--:|--:|--:|--:|"
    )
    .unwrap();
    let mut totals = [0; 6];
    for section in sections {
        let numbers = section_numbers(section);
        for (total, number) in totals.iter_mut().zip(numbers) {
            *total += number;
        }
        let [findings, sampled, real, debatable, false_, unjudged] = numbers;
        writeln!(
            out,
            "| {} | `{}` | {findings} | {sampled} | {real} | {debatable} | {false_} | {unjudged} |",
            section.corpus, section.rule
        )
        .unwrap();
    }
    let [findings, sampled, real, debatable, false_, unjudged] = totals;
    writeln!(
        out,
        "| **total** | | {findings} | {sampled} | {real} | {debatable} | {false_} | {unjudged} |"
    )
    .unwrap();

    for section in sections {
        let findings = section.findings;
        let sampled = section.rows.len();
        let plural = if findings == 1 { "" } else { "s" };
        writeln!(
            out,
            "\n## {}: `{}`\n\n{findings} finding{plural}, {sampled} sampled.\n\n\
             | finding | source line | message | verdict | reason |\n|---|---|---|---|---|",
            section.corpus, section.rule
        )
        .unwrap();
        for row in &section.rows {
            writeln!(
                out,
                "| {}:{}:{} <!-- id:{:016x} --> | {} | {} | {} | {} |",
                escape_cell(&row.path),
                row.finding.line,
                row.finding.column,
                row.id,
                escape_cell(&code_span(&shorten(&visible(&row.source_line)))),
                escape_cell(&visible(&row.finding.message)),
                row.judgement.verdict.map_or("", Verdict::as_str),
                row.judgement.reason,
            )
            .unwrap();
        }
    }
    out
}

/// Findings, sampled, real, debatable, false and unjudged, for the summary.
fn section_numbers(section: &Section) -> [usize; 6] {
    let count = |verdict: Option<Verdict>| {
        section
            .rows
            .iter()
            .filter(|row| row.judgement.verdict == verdict)
            .count()
    };
    [
        section.findings,
        section.rows.len(),
        count(Some(Verdict::Real)),
        count(Some(Verdict::Debatable)),
        count(Some(Verdict::False)),
        count(None),
    ]
}

/// Text with control characters shown: a tab as a space, the others as `�`, so a
/// stray byte in a corpus file cannot break a table row.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// At most `MAX_SOURCE_CHARS` characters, the last one `…` when cut.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_SOURCE_CHARS {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(MAX_SOURCE_CHARS - 1).collect();
    short.push('…');
    short
}

/// `text` as a Markdown code span: fenced by one backtick more than its longest run of
/// backticks, with spaces inside the fence when it starts or ends with one (the
/// CommonMark way to put backticks in code). Empty text stays empty.
fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` safe in a table cell: a `|` becomes `\|`, and backslashes right before it
/// are doubled, so no backslash in the text escapes the cell's end. GitHub removes
/// the escape inside code spans too.
fn escape_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut backslashes = 0;
    for c in text.chars() {
        match c {
            '\\' => backslashes += 1,
            '|' => {
                out.push_str(&"\\".repeat(2 * backslashes + 1));
                out.push('|');
                backslashes = 0;
            }
            _ => {
                out.push_str(&"\\".repeat(backslashes));
                out.push(c);
                backslashes = 0;
            }
        }
    }
    out.push_str(&"\\".repeat(backslashes));
    out
}

/// Judged rows of the old file whose finding is no longer sampled: their verdicts
/// go away with this run, so say which.
fn report_dropped(judgements: &HashMap<u64, OldRow>, sections: &[Section]) {
    let kept: std::collections::HashSet<u64> = sections
        .iter()
        .flat_map(|section| section.rows.iter().map(|row| row.id))
        .collect();
    let mut dropped: Vec<&OldRow> = judgements
        .iter()
        .filter(|(id, old)| !kept.contains(id) && old.judgement.verdict.is_some())
        .map(|(_, old)| old)
        .collect();
    if dropped.is_empty() {
        return;
    }
    dropped.sort_by(|a, b| a.finding.cmp(&b.finding));
    println!(
        "{} verdicts dropped: their finding is gone, its line changed, or it is no longer sampled:",
        dropped.len()
    );
    for old in dropped {
        let verdict = old.judgement.verdict.map_or("", Verdict::as_str);
        println!("  {} ({verdict}: {})", old.finding, old.judgement.reason);
    }
    println!();
}

/// Prints the sampled findings without a verdict and returns how many there are.
fn report_unjudged(sections: &[Section]) -> usize {
    let unjudged: Vec<(&Section, &Row)> = sections
        .iter()
        .flat_map(|section| section.rows.iter().map(move |row| (section, row)))
        .filter(|(_, row)| row.judgement.verdict.is_none())
        .collect();
    if !unjudged.is_empty() {
        println!(
            "{} sampled findings need a verdict in {OUTPUT}:",
            unjudged.len()
        );
        for (section, row) in &unjudged {
            println!(
                "  {}:{}:{} {}: {}",
                row.path, row.finding.line, row.finding.column, section.rule, row.finding.message
            );
        }
        println!();
    }
    unjudged.len()
}

/// Prints the (corpus, rule) samples with more than `MAX_FALSE` false verdicts and
/// returns how many there are.
fn report_false(sections: &[Section]) -> usize {
    let mut count = 0;
    for section in sections {
        let false_ = section_numbers(section)[4];
        if false_ > MAX_FALSE {
            println!(
                "{} `{}`: {false_} of {} sampled findings are false (more than {MAX_FALSE})",
                section.corpus,
                section.rule,
                section.rows.len()
            );
            count += 1;
        }
    }
    count
}

/// What differs between the file and what the command would write, line by line
/// (a longest-common-subsequence diff), at most `MAX_LINES` changed lines.
fn print_diff(old: &str, new: &str) {
    const MAX_LINES: usize = 40;
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    // Lines around the changes are left out of the table, which keeps it small.
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_middle, new_middle) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    println!("{OUTPUT} differs from what `cargo xtask precision` writes:");
    let mut printed = 0;
    let mut print = |sign: char, line_number: usize, line: &str| {
        if printed < MAX_LINES {
            println!("{sign}{line_number:>5} {line}");
        }
        printed += 1;
    };
    if old_middle.len().saturating_mul(new_middle.len()) > 4_000_000 {
        // Too big to compare line by line: show both sides of the changed region.
        for (index, line) in old_middle.iter().enumerate() {
            print('-', prefix + index + 1, line);
        }
        for (index, line) in new_middle.iter().enumerate() {
            print('+', prefix + index + 1, line);
        }
    } else {
        // common[i][j]: the longest common subsequence of old_middle[i..] and
        // new_middle[j..].
        let (n, m) = (old_middle.len(), new_middle.len());
        let mut common = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                common[i][j] = if old_middle[i] == new_middle[j] {
                    common[i + 1][j + 1] + 1
                } else {
                    common[i + 1][j].max(common[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && old_middle[i] == new_middle[j] {
                (i, j) = (i + 1, j + 1);
            } else if j == m || (i < n && common[i + 1][j] >= common[i][j + 1]) {
                print('-', prefix + i + 1, old_middle[i]);
                i += 1;
            } else {
                print('+', prefix + j + 1, new_middle[j]);
                j += 1;
            }
        }
    }
    if printed > MAX_LINES {
        println!("… and {} more changed lines", printed - MAX_LINES);
    }
    println!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_cells_split_back() {
        for text in ["a | b", r"a \| b", r"ends \", r"\\|", "`x` | y"] {
            let cell = escape_cell(text);
            let row = format!("| {cell} | verdict |");
            assert_eq!(split_cells(&row).len(), 2, "{text:?} as {row:?}");
        }
    }

    #[test]
    fn code_spans_hold_backticks() {
        assert_eq!(code_span("a"), "`a`");
        assert_eq!(code_span("a `b` c"), "``a `b` c``");
        assert_eq!(code_span("`b`"), "`` `b` ``");
        assert_eq!(code_span(""), "");
    }

    #[test]
    fn samples_are_deterministic_sorted_and_distinct() {
        let first = sample(100, 20, 7);
        assert_eq!(first, sample(100, 20, 7));
        assert_ne!(first, sample(100, 20, 8));
        assert!(first.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(first.len(), 20);
        assert_eq!(sample(5, 20, 7), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn judgements_are_read_by_id() {
        let text = "| f:1:1 <!-- id:00000000000000ff --> | `x \\| y` | m | false | a \\| b |\n";
        let judgements = parse_judgements(text).unwrap();
        let old = &judgements[&0xff];
        assert!(old.judgement.verdict == Some(Verdict::False));
        assert_eq!(old.judgement.reason, r"a \| b");
        assert_eq!(old.finding, "f:1:1");
        let bad = text.replace("false", "maybe");
        assert!(parse_judgements(&bad).is_err());
    }
}
