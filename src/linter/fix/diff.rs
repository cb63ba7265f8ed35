//! `--diff`'s unified diff of a fixed file. Fixes edit within lines, so a file keeps
//! its lines in place and the diff is made in one pass over them, in the format of
//! `similar`'s unified diff; a file whose lines moved (no fix of tether's does that
//! today) is diffed by `similar`, whose cost grows with the product of the file's
//! size and its changes.

/// The unified diff of `before` and `after` under `old` and `new` headers, with
/// `radius` lines of context; empty when they are equal.
pub(super) fn unified(before: &str, after: &str, old: &str, new: &str, radius: usize) -> String {
    let old_lines: Vec<&str> = before.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = after.split_inclusive('\n').collect();
    if old_lines.len() != new_lines.len() {
        return similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .context_radius(radius)
            .header(old, new)
            .to_string();
    }
    let changed: Vec<usize> = (0..old_lines.len())
        .filter(|&at| old_lines[at] != new_lines[at])
        .collect();
    if changed.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {old}\n+++ {new}\n");
    // Hunks: runs of changes no more than 2 × radius unchanged lines apart.
    let mut first = 0;
    while first < changed.len() {
        let mut last = first;
        while last + 1 < changed.len() && changed[last + 1] - changed[last] <= 2 * radius + 1 {
            last += 1;
        }
        let start = changed[first].saturating_sub(radius);
        let end = (changed[last] + radius + 1).min(old_lines.len());
        let range = if end - start == 1 {
            format!("{}", start + 1)
        } else {
            format!("{},{}", start + 1, end - start)
        };
        out.push_str(&format!("@@ -{range} +{range} @@\n"));
        let mut at = start;
        while at < end {
            if old_lines[at] == new_lines[at] {
                push_line(&mut out, ' ', old_lines[at]);
                at += 1;
                continue;
            }
            // A run of changed lines: every old line, then every new one.
            let run_end = (at..end)
                .find(|&line| old_lines[line] == new_lines[line])
                .unwrap_or(end);
            for line in &old_lines[at..run_end] {
                push_line(&mut out, '-', line);
            }
            for line in &new_lines[at..run_end] {
                push_line(&mut out, '+', line);
            }
            at = run_end;
        }
        first = last + 1;
    }
    out
}

/// One line of a hunk, with `similar`'s note for a last line without a newline.
fn push_line(out: &mut String, tag: char, line: &str) {
    out.push(tag);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::unified;

    fn similar_of(before: &str, after: &str) -> String {
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .context_radius(2)
            .header("a/f", "b/f")
            .to_string()
    }

    /// Files whose lines stay in place get `similar`'s diff, byte for byte: one
    /// change, changes merged into one hunk or kept apart, runs of changes, the
    /// first and last lines, and a last line without a newline.
    #[test]
    fn in_place_diffs_are_similars() {
        let lines: Vec<String> = (0..30).map(|n| format!("k{n}: 1 #x\n")).collect();
        let before: String = lines.concat();
        for changed in [
            vec![0],
            vec![29],
            vec![5],
            vec![5, 9],
            vec![5, 10],
            vec![5, 11],
            vec![3, 4, 5, 12, 13, 27, 28, 29],
            (0..30).collect(),
        ] {
            let after: String = lines
                .iter()
                .enumerate()
                .map(|(at, line)| {
                    if changed.contains(&at) {
                        line.replace("#x", "# x")
                    } else {
                        line.clone()
                    }
                })
                .collect();
            assert_eq!(
                unified(&before, &after, "a/f", "b/f", 2),
                similar_of(&before, &after),
                "{changed:?}"
            );
        }
        let (before, after) = ("a: 1\nb: 2 #x", "a: 1\nb: 2 # x");
        assert_eq!(
            unified(before, after, "a/f", "b/f", 2),
            similar_of(before, after)
        );
        assert_eq!(unified("a\n", "a\n", "a/f", "b/f", 2), "");
    }
}
