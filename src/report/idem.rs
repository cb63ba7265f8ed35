//! Output of `tether idem`: per target, one line per check, and for a failing check
//! its unified diff, the comments that moved, and the command's own output.

use std::fmt::Write;

use serde::Serialize;

use crate::idem::{CheckResult, IdemReport, format_duration};
use crate::report::Format;

/// The human report.
pub fn human(report: &IdemReport) -> String {
    let mut out = String::new();
    for target in &report.targets {
        let _ = writeln!(out, "idem {}: `{}`", target.dir, target.run);
        for check in &target.checks {
            let name = match &check.mutant {
                Some(mutant) => format!("{} {mutant}", check.kind.as_str()),
                None => check.kind.as_str().to_string(),
            };
            // With `--discover`, a block that does not heal is an answer, shown
            // without its diff; the list of those that heal follows.
            let tried = report.discovered && check.kind == crate::idem::CheckKind::SelfHeal;
            let verdict = match (check.ok, tried) {
                (true, _) => "ok  ",
                (false, true) => "no  ",
                (false, false) => "FAIL",
            };
            let _ = writeln!(
                out,
                "  {verdict} {name} ({})",
                format_duration(std::time::Duration::from_millis(check.duration_ms))
            );
            if !check.ok && !tried {
                failure(&mut out, check);
            }
        }
    }
    if report.containment != (crate::idem::Containment::Landlock { scoped: true }) {
        let _ = writeln!(out, "\nnote: {}", report.containment.describe());
    }
    // Copies where an overlay was wanted: the run is slower, and says why.
    if let crate::idem::Sandboxing::Copies(Some(_)) = report.sandbox {
        let _ = writeln!(out, "\nnote: {}", report.sandbox.describe());
    }
    // Skipped targets, a line each while few; many skipped for one reason (79
    // folders not named by `--target`) are one line.
    let mut reasons: Vec<&str> = report.skipped.iter().map(|s| s.reason.as_str()).collect();
    reasons.sort_unstable();
    reasons.dedup();
    for reason in reasons {
        let alike: Vec<_> = report
            .skipped
            .iter()
            .filter(|s| s.reason == reason)
            .collect();
        if alike.len() > 3 {
            let _ = writeln!(out, "skipped {} targets: {reason}", alike.len());
            continue;
        }
        for skipped in alike {
            let _ = writeln!(
                out,
                "skipped {}: `{}`: {}",
                skipped.dir, skipped.run, skipped.reason
            );
        }
    }
    paths_under(
        &mut out,
        "error: files of your tree changed while tether ran; tether never writes there, so the command wrote outside its sandbox (or something else did):",
        &report.user_tree_changes,
    );
    paths_under(
        &mut out,
        "note: tether could not list these folders of your tree, so a change a command made inside them would go unseen:",
        &report.unwatched,
    );
    if report.discovered {
        discovered(&mut out, report);
    }
    if report.targets.is_empty() && report.user_tree_changes.is_empty() && report.skipped.is_empty()
    {
        // Nothing ran: the errors, on standard error, say it all.
        return out;
    }
    let failed = report.failed();
    let unchecked = match report.errors.len() {
        0 => String::new(),
        1 => "; 1 target could not be checked".to_string(),
        n => format!("; {n} targets could not be checked"),
    };
    let _ = if failed == 0 && unchecked.is_empty() {
        writeln!(out, "\ntether idem: all {} checks passed", report.checks())
    } else {
        writeln!(
            out,
            "\ntether idem: {failed} of {} checks failed{unchecked}",
            report.checks()
        )
    };
    out
}

/// With `--discover`: the blocks that heal, ready for tether.toml.
fn discovered(out: &mut String, report: &IdemReport) {
    for target in &report.targets {
        let healing: Vec<&str> = target
            .checks
            .iter()
            .filter(|check| check.kind == crate::idem::CheckKind::SelfHeal && check.ok)
            .filter_map(|check| check.mutant.as_deref())
            .collect();
        let tried = target
            .checks
            .iter()
            .filter(|check| check.kind == crate::idem::CheckKind::SelfHeal)
            .count();
        let _ = writeln!(
            out,
            "\n{} of {tried} top-level blocks heal in {}; for its [[idem]] entry:\nself-heal = [",
            healing.len(),
            target.dir
        );
        for opening in healing {
            let _ = writeln!(out, "  {opening:?},");
        }
        let _ = writeln!(out, "]");
    }
}

/// The comments a check moved, for an annotation: the headline of a failure where
/// they are, so they are said beside the file and line, not only in the log.
fn moved_comments(check: &CheckResult) -> String {
    check
        .comment_moves
        .iter()
        .map(|moved| {
            format!(
                "\ncomment moved in {}: {:?} documented {}, now {}",
                moved.file,
                first_line(&moved.text),
                quoted(&moved.from),
                quoted(&moved.to)
            )
        })
        .collect()
}

fn failure(out: &mut String, check: &CheckResult) {
    if let Some(message) = &check.message {
        let _ = writeln!(out, "       {message}");
    }
    if !check.changed.is_empty() {
        let what = match check.kind {
            crate::idem::CheckKind::NoOp => "changed on the committed files",
            crate::idem::CheckKind::Fixpoint => "changed again on a second run",
            crate::idem::CheckKind::SelfHeal => "not restored byte for byte",
        };
        let _ = writeln!(out, "       {what}: {}", check.changed.join(", "));
    }
    for moved in &check.comment_moves {
        let _ = writeln!(
            out,
            "       comment moved in {}: {:?}\n         {} -> {}",
            moved.file,
            first_line(&moved.text),
            quoted(&moved.from),
            quoted(&moved.to)
        );
    }
    for line in check.diff.lines() {
        let _ = writeln!(out, "       {line}");
    }
    // The command's own output matters when it failed; otherwise the diff says it all.
    let command_failed = check.timed_out || check.command_status != Some(0);
    for (name, stream) in [("stdout", &check.stdout), ("stderr", &check.stderr)] {
        if command_failed && !stream.trim().is_empty() {
            let _ = writeln!(out, "       command {name}:");
            for line in stream.trim_end().lines() {
                let _ = writeln!(out, "       | {line}");
            }
        }
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if text.lines().count() > 1 {
        format!("{line} …")
    } else {
        line.to_string()
    }
}

fn quoted(path: &Option<String>) -> String {
    match path {
        Some(path) => format!("{path:?}"),
        None => "no key".to_string(),
    }
}

#[derive(Serialize)]
struct JsonReport<'a> {
    targets: Vec<JsonTarget<'a>>,
    errors: &'a [String],
    containment: &'a crate::idem::Containment,
    /// What is and is not contained on this kernel, in words.
    contained: String,
    sandbox: &'a crate::idem::Sandboxing,
    skipped: &'a [crate::idem::Skipped],
    user_tree_changes: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    unwatched: &'a [String],
}

#[derive(Serialize)]
struct JsonTarget<'a> {
    dir: &'a str,
    run: &'a str,
    checks: &'a [CheckResult],
}

/// `heading` after a blank line, then each of `paths` indented; nothing when there
/// are none.
fn paths_under(out: &mut String, heading: &str, paths: &[String]) {
    if paths.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{heading}");
    for path in paths {
        let _ = writeln!(out, "  {path}");
    }
}

/// The JSON report (the contract in docs/src/idem.md).
pub fn json(report: &IdemReport) -> String {
    let targets = report
        .targets
        .iter()
        .map(|target| JsonTarget {
            dir: &target.dir,
            run: &target.run,
            checks: &target.checks,
        })
        .collect();
    serde_json::to_string_pretty(&JsonReport {
        targets,
        errors: &report.errors,
        containment: &report.containment,
        contained: report.containment.describe(),
        sandbox: &report.sandbox,
        skipped: &report.skipped,
        user_tree_changes: &report.user_tree_changes,
        unwatched: &report.unwatched,
    })
    .unwrap_or_default()
        + "\n"
}

/// GitHub workflow commands: one annotation per failed check, on the first changed line
/// of the first file it changed (paths relative to `base`, the repository's top
/// level; target folders are relative to `cwd`), then a closing count line.
pub fn github(report: &IdemReport, cwd: &std::path::Path, base: &std::path::Path) -> String {
    let mut out = String::new();
    let mut failed = 0;
    let mut checks = 0;
    for target in &report.targets {
        for check in &target.checks {
            checks += 1;
            if check.ok {
                continue;
            }
            failed += 1;
            let kind = serde_json::to_value(check.kind)
                .ok()
                .and_then(|value| value.as_str().map(String::from))
                .unwrap_or_default();
            let mutant = match check.mutant.as_deref() {
                Some("all") => " without every block".to_string(),
                Some(mutant) => format!(" without `{mutant}`"),
                None => String::new(),
            };
            let files = check.changed.join(", ");
            let why = check
                .message
                .clone()
                .unwrap_or_else(|| match kind.as_str() {
                    "self-heal" => {
                        format!("`{}` did not restore {files} byte for byte", target.run)
                    }
                    "fixpoint" => format!("a second `{}` changed {files} again", target.run),
                    _ => format!("`{}` changed the committed {files}", target.run),
                });
            let location = check.changed.first().map(|file| {
                let absolute = cwd.join(&target.dir).join(file);
                let relative = absolute.strip_prefix(base).unwrap_or(&absolute);
                // `components` drops the `.` a target folder of `.` leaves inside.
                let relative: std::path::PathBuf = relative.components().collect();
                format!(
                    "file={},line={},",
                    crate::report::github::property(&crate::paths::slashed(&relative)),
                    first_changed_line(&check.diff)
                )
            });
            out.push_str(&format!(
                "::error {}title={}::{}\n",
                location.unwrap_or_default(),
                crate::report::github::property(&format!("tether idem {kind}")),
                crate::report::github::data(&format!(
                    "{kind}{mutant} in {}: {why}{}",
                    target.dir,
                    moved_comments(check)
                ))
            ));
        }
    }
    for error in &report.errors {
        out.push_str(&format!(
            "::error title=tether idem::{}\n",
            crate::report::github::data(error)
        ));
    }
    if report.containment != (crate::idem::Containment::Landlock { scoped: true }) {
        out.push_str(&format!(
            "::warning title=tether idem::{}\n",
            crate::report::github::data(&report.containment.describe())
        ));
    }
    for change in &report.user_tree_changes {
        out.push_str(&format!(
            "::error title=tether idem::{}\n",
            crate::report::github::data(&format!("your tree changed during the run: {change}"))
        ));
    }
    for folder in &report.unwatched {
        out.push_str(&format!(
            "::warning title=tether idem::{}\n",
            crate::report::github::data(&format!(
                "tether could not list {folder}: a change a command made inside it would go unseen"
            ))
        ));
    }
    out.push_str(&format!(
        "tether idem: {failed} of {checks} checks failed\n"
    ));
    out
}

/// The first line a unified diff's first hunk names on its new side (`+c,d`), or 1.
/// The line of the committed file where the diff's first change is: the first
/// hunk's start, walked past its context lines (a removed line is placed where it
/// was).
fn first_changed_line(diff: &str) -> usize {
    let mut line = None;
    for text in diff.lines() {
        if let Some(hunk) = text.strip_prefix("@@ ") {
            if line.is_some() {
                break;
            }
            line = hunk
                .split_whitespace()
                .find(|part| part.starts_with('-'))
                .and_then(|minus| minus[1..].split(',').next()?.parse::<usize>().ok());
            continue;
        }
        let Some(at) = line.as_mut() else {
            continue;
        };
        match text.as_bytes().first() {
            Some(b' ') => *at += 1,
            Some(b'+' | b'-') => return (*at).max(1),
            _ => {}
        }
    }
    line.unwrap_or(1).max(1)
}

impl IdemReport {
    /// The report as `tether idem --format …` prints it: [`Format::Human`] and
    /// [`Format::Concise`] are the same text (colour is not used), and
    /// [`Format::Sarif`] prints the JSON, which is idem's machine form (a failed
    /// check is a diff of files, not a finding at a line).
    pub fn render(&self, format: &Format) -> String {
        match format {
            Format::Human { .. } | Format::Concise { .. } => human(self),
            Format::Json | Format::Sarif { .. } => json(self),
            Format::Github { root } => github(self, &self.display_root, root),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_changed_line_skips_context() {
        let appended =
            "--- a/values.yaml\n+++ b/values.yaml\n@@ -1,2 +1,3 @@\n a: 1\n b: 2\n+c: 3\n";
        assert_eq!(super::first_changed_line(appended), 3);
        let removed = "@@ -4,3 +4,2 @@\n x\n-y\n z\n";
        assert_eq!(super::first_changed_line(removed), 5);
        let first = "@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(super::first_changed_line(first), 1);
        assert_eq!(super::first_changed_line(""), 1);
    }
}
