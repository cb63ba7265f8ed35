//! Repository invariants that are cheap to check on every `cargo test`.

use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files_with_extension(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_with_extension(&path, extension, out);
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
}

#[test]
fn every_query_compiles_and_is_embedded() {
    let mut on_disk = Vec::new();
    files_with_extension(&repo().join("queries"), "scm", &mut on_disk);
    assert!(!on_disk.is_empty());
    for path in &on_disk {
        let name = path.file_name().unwrap().to_string_lossy();
        let source = std::fs::read_to_string(path).unwrap();
        let embedded = helm_tether::internals::QUERIES
            .iter()
            .find(|(embedded_name, _)| *embedded_name == name);
        assert_eq!(
            embedded.map(|(_, text)| *text),
            Some(source.as_str()),
            "{name} is not embedded in yaml::parse::QUERIES"
        );
        if let Err(error) = tree_sitter::Query::new(&helm_tether::internals::language(), &source) {
            panic!("{name} does not compile: {error}");
        }
    }
}

#[test]
fn every_source_file_starts_with_a_doc_line() {
    let mut sources = Vec::new();
    for dir in ["src", "tests", "xtask/src"] {
        files_with_extension(&repo().join(dir), "rs", &mut sources);
    }
    let undocumented: Vec<_> = sources
        .iter()
        .filter(|path| !std::fs::read_to_string(path).unwrap().starts_with("//! "))
        .map(|path| path.strip_prefix(repo()).unwrap().display().to_string())
        .collect();
    assert!(
        undocumented.is_empty(),
        "files without a `//!` first line: {undocumented:?}"
    );
}

/// The functions of `src/` longer than 100 lines (from `fn` to its closing brace at
/// the same indentation), as `path:line name (lines)`.
fn long_functions(limit: usize) -> Vec<String> {
    let start = regex::Regex::new(
        r"^(\s*)(?:pub(?:\([a-z]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)",
    )
    .unwrap();
    let mut files = Vec::new();
    files_with_extension(&repo().join("src"), "rs", &mut files);
    files.sort();
    let mut long = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut index = 0;
        while index < lines.len() {
            let line = lines[index];
            let Some(found) = start.captures(line) else {
                index += 1;
                continue;
            };
            // A declaration, or a function on one line.
            if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
                index += 1;
                continue;
            }
            let end = format!("{}}}", &found[1]);
            let close = lines[index..]
                .iter()
                .position(|candidate| candidate.trim_end() == end)
                .map_or(lines.len(), |offset| index + offset);
            let length = close - index + 1;
            if length > limit {
                let relative = path.strip_prefix(repo()).unwrap();
                long.push(format!(
                    "{}:{} {} ({length} lines)",
                    relative.display(),
                    index + 1,
                    &found[2]
                ));
            }
            index = close + 1;
        }
    }
    long
}

/// No function in `src/` is longer than 100 lines: a longer one is split by what
/// its parts do (REVIEW.md; the house style of ruff and rust-analyzer).
#[test]
fn no_function_in_src_is_longer_than_100_lines() {
    assert_eq!(long_functions(100), Vec::<String>::new());
    // The check finds long functions at all: the longest are over 60 lines.
    assert!(!long_functions(60).is_empty());
}

/// The files of `src/` allowed over the file-size bar: data only, each saying so in its
/// first doc lines ("the documented exception to the file-size bar").
const LARGE_BY_DESIGN: &[&str] = &["src/template/functions/table.rs"];

/// The lines of a file before its test module: a `#[cfg(test)]` line followed by
/// `mod tests` (inline, or `mod tests;` naming a file), which is the last item of
/// every file, as `tests/it/imports.rs` (`code_of`) reads it too.
fn lines_outside_tests(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .position(|pair| {
            pair[0].trim() == "#[cfg(test)]" && pair[1].trim_start().starts_with("mod tests")
        })
        .unwrap_or(lines.len())
}

/// The files of `src/` with more than `limit` lines outside their test module, as
/// `path (lines)`; a `tests.rs` (a test module in its own file) is all tests.
fn long_files(limit: usize) -> Vec<String> {
    let mut files = Vec::new();
    files_with_extension(&repo().join("src"), "rs", &mut files);
    files.sort();
    files
        .iter()
        .filter(|path| path.file_name().is_none_or(|name| name != "tests.rs"))
        .filter_map(|path| {
            let lines = lines_outside_tests(&std::fs::read_to_string(path).unwrap());
            let relative = path.strip_prefix(repo()).unwrap().display().to_string();
            (lines > limit).then(|| format!("{relative} ({lines} lines)"))
        })
        .collect()
}

/// No file of `src/` is longer than 800 lines outside its tests: a longer one is
/// split along its jobs (issue 40). A table of data may be the documented exception.
#[test]
fn no_file_in_src_is_longer_than_800_lines() {
    let long = long_files(800);
    let unexpected: Vec<&String> = long
        .iter()
        .filter(|file| {
            !LARGE_BY_DESIGN
                .iter()
                .any(|exempt| file.starts_with(&format!("{exempt} ")))
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "files over 800 lines outside their tests: {unexpected:?}"
    );
    for exempt in LARGE_BY_DESIGN {
        // An exception still needed, and said in its file.
        assert!(
            long.iter().any(|file| file.starts_with(exempt)),
            "{exempt} is no longer over the bar: drop it"
        );
        let text = std::fs::read_to_string(repo().join(exempt)).unwrap();
        assert!(
            text.contains("exception to the file-size bar"),
            "{exempt} does not say why"
        );
    }
    // The count stops at the test module.
    assert_eq!(lines_outside_tests("a\n#[cfg(test)]\nmod tests {\n}\n"), 1);
}

/// The files of `src/` that may list a folder themselves: the walker, the walks
/// `ignore` drives (they honour `.gitignore`, and each reports what it could not
/// read), and the listings of one folder that are no walk (a chart's `charts/`,
/// the temporary folder's sandboxes, `/proc`).
const LISTS_FOLDERS: &[&str] = &[
    "src/folders.rs",
    "src/linter/walk.rs",
    "src/analysis/chart_yamls.rs",
    "src/idem/sandbox/listing.rs",
    "src/analysis/charts/mod.rs",
    "src/idem/sandbox/registry.rs",
    "src/idem/command.rs",
    "src/idem/contain.rs",
];

/// Every other walk of a folder tree goes through `src/folders.rs`, which hands
/// back what it could not read (issue 40: five hand-written walks skipped
/// unreadable folders silently, one making a false `unused-value`).
#[test]
fn folders_are_walked_one_way() {
    let mut files = Vec::new();
    files_with_extension(&repo().join("src"), "rs", &mut files);
    files.sort();
    let mut listing = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(repo()).unwrap().display().to_string();
        if path.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let code: Vec<&str> = text.lines().take(lines_outside_tests(&text)).collect();
        let lists = code.iter().any(|line| {
            !line.trim_start().starts_with("//")
                && (line.contains("read_dir(") || line.contains("WalkBuilder::new("))
        });
        if lists && !LISTS_FOLDERS.contains(&relative.as_str()) {
            listing.push(relative);
        }
    }
    assert!(
        listing.is_empty(),
        "files that list folders themselves (walk with crate::folders::walk): {listing:?}"
    );
}
