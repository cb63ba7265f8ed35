//! Generated files are up to date: each is compared with what its generator returns.
//!
//! With `TETHER_CODEGEN=write` a stale or missing file is rewritten and the test
//! passes; that is what `cargo xtask codegen` runs. Otherwise, and always in CI, a
//! difference fails the test with a unified diff and the command that fixes it.

use std::path::Path;

#[test]
fn rules_reference_is_up_to_date() {
    ensure_file_contents("docs/rules.md", helm_tether::rules_markdown);
}

#[test]
fn config_schema_is_up_to_date() {
    ensure_file_contents(
        "schemas/tether.schema.json",
        helm_tether::Config::json_schema,
    );
}

/// Compares `relative_path` (from the repository root) with `generate()`, and writes
/// it or fails when they differ.
fn ensure_file_contents(relative_path: &str, generate: fn() -> String) {
    let expected = generate();
    // A generator that depends on hash order or the clock would make the check flaky
    // and `cargo xtask codegen` never reach a fixed point.
    assert_eq!(
        expected,
        generate(),
        "the generator of {relative_path} gives a different text on each call"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative_path);
    // Git may have checked the file out with `\r\n` line endings on Windows.
    let on_disk = std::fs::read_to_string(&path)
        .ok()
        .map(|text| text.replace("\r\n", "\n"));
    if on_disk.as_deref() == Some(expected.as_str()) {
        return;
    }
    let write_requested = std::env::var("TETHER_CODEGEN").is_ok_and(|mode| mode == "write");
    if write_requested && !in_ci() {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)
                .unwrap_or_else(|error| panic!("cannot create {}: {error}", folder.display()));
        }
        std::fs::write(&path, &expected)
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        return;
    }
    let ci_note = if write_requested {
        " (CI is set, so TETHER_CODEGEN=write does not write)"
    } else {
        ""
    };
    match on_disk {
        None => {
            panic!("{relative_path} is missing{ci_note}; run `cargo xtask codegen` to update")
        }
        Some(on_disk) => panic!(
            "{relative_path} is stale{ci_note}; run `cargo xtask codegen` to update\n\n{}",
            unified_diff(relative_path, &on_disk, &expected)
        ),
    }
}

/// `CI` is set by GitHub Actions, GitLab and most other runners; generated files are
/// checked there, never written.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0")
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// One step of the edit script from the file on disk to the generated text.
#[derive(Clone, Copy, PartialEq)]
enum Edit {
    Keep,
    Remove,
    Add,
}

/// A unified diff from `old` (on disk) to `new` (generated), by hand: the project
/// keeps its dependencies few, and these files are small.
fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let edits = edit_script(&old_lines, &new_lines);

    // Where each edit starts in both texts, for the hunk headers.
    let mut positions = Vec::with_capacity(edits.len() + 1);
    let (mut old_position, mut new_position) = (0, 0);
    for edit in &edits {
        positions.push((old_position, new_position));
        match edit {
            Edit::Keep => {
                old_position += 1;
                new_position += 1;
            }
            Edit::Remove => old_position += 1,
            Edit::Add => new_position += 1,
        }
    }
    positions.push((old_position, new_position));

    let mut out = format!("--- {path} (on disk)\n+++ {path} (generated)\n");
    let changed: Vec<usize> = (0..edits.len())
        .filter(|&index| edits[index] != Edit::Keep)
        .collect();
    let mut next = 0;
    while next < changed.len() {
        // A hunk runs from CONTEXT lines before a change to CONTEXT lines after the
        // last change that is close enough to share its context.
        let mut last = next;
        while last + 1 < changed.len() && changed[last + 1] - changed[last] <= 2 * CONTEXT + 1 {
            last += 1;
        }
        let start = changed[next].saturating_sub(CONTEXT);
        let end = (changed[last] + 1 + CONTEXT).min(edits.len());
        let (old_start, new_start) = positions[start];
        let (old_end, new_end) = positions[end];
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            hunk_range(old_start, old_end - old_start),
            hunk_range(new_start, new_end - new_start)
        ));
        let (mut old_index, mut new_index) = (old_start, new_start);
        for edit in &edits[start..end] {
            match edit {
                Edit::Keep => {
                    out.push_str(&format!(" {}\n", old_lines[old_index]));
                    old_index += 1;
                    new_index += 1;
                }
                Edit::Remove => {
                    out.push_str(&format!("-{}\n", old_lines[old_index]));
                    old_index += 1;
                }
                Edit::Add => {
                    out.push_str(&format!("+{}\n", new_lines[new_index]));
                    new_index += 1;
                }
            }
        }
        next = last + 1;
    }
    if old.ends_with('\n') != new.ends_with('\n') && !old.is_empty() {
        out.push_str("(the texts differ in their final newline)\n");
    }
    out
}

/// `start,count` as unified diffs write it: 1-based, and for an empty range the line
/// before it.
fn hunk_range(start: usize, count: usize) -> String {
    if count == 0 {
        format!("{start},0")
    } else {
        format!("{},{count}", start + 1)
    }
}

/// The shortest edit script by longest common subsequence, after trimming the common
/// prefix and suffix so the table only covers the changed middle.
fn edit_script(old: &[&str], new: &[&str]) -> Vec<Edit> {
    let prefix = old
        .iter()
        .zip(new)
        .take_while(|(old_line, new_line)| old_line == new_line)
        .count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(old_line, new_line)| old_line == new_line)
        .count();
    let old_middle = &old[prefix..old.len() - suffix];
    let new_middle = &new[prefix..new.len() - suffix];

    // common[i][j]: length of the longest common subsequence of old_middle[i..] and
    // new_middle[j..].
    let width = new_middle.len() + 1;
    let mut common = vec![0usize; (old_middle.len() + 1) * width];
    for i in (0..old_middle.len()).rev() {
        for j in (0..new_middle.len()).rev() {
            common[i * width + j] = if old_middle[i] == new_middle[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }

    let mut edits = vec![Edit::Keep; prefix];
    let (mut i, mut j) = (0, 0);
    while i < old_middle.len() || j < new_middle.len() {
        if i < old_middle.len() && j < new_middle.len() && old_middle[i] == new_middle[j] {
            edits.push(Edit::Keep);
            i += 1;
            j += 1;
        } else if i < old_middle.len()
            && (j == new_middle.len() || common[(i + 1) * width + j] >= common[i * width + j + 1])
        {
            // Removals first on a tie, as diff(1) shows them.
            edits.push(Edit::Remove);
            i += 1;
        } else {
            edits.push(Edit::Add);
            j += 1;
        }
    }
    edits.extend(std::iter::repeat_n(Edit::Keep, suffix));
    edits
}
