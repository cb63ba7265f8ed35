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
