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
