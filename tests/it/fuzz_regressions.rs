//! Inputs the fuzz targets (`cargo xtask fuzz`) found, kept as tests: on each, lazy
//! and full checks agree, and every mask keeps the file's length and line breaks.

use std::path::{Path, PathBuf};

use helm_tether::Branch;
use helm_tether::internals::{Mode, check_bytes, lex, mask, mask_branch};

#[test]
fn found_inputs_check_alike_and_mask_in_place() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let config = helm_tether::Config::default_for(PathBuf::from("/charts"));
    let mut seen = 0;
    for entry in std::fs::read_dir(folder).expect("tests/fixtures/fuzz exists") {
        let path = entry.expect("readable").path();
        let bytes = std::fs::read(&path).expect("readable");
        for relative in ["templates/x.yaml", "values.yaml"] {
            let findings = |mode| {
                let (_, diagnostics) =
                    check_bytes(&config, Path::new(relative), bytes.clone(), mode);
                diagnostics
                    .iter()
                    .map(|d| format!("{} {:?} {}", d.rule, d.range, d.message))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                findings(Mode::Lazy),
                findings(Mode::Full),
                "{} as {relative}",
                path.display()
            );
        }
        let text = String::from_utf8_lossy(&bytes);
        let (actions, _) = lex(&text);
        let masks = [
            Some(mask(&text, &actions)),
            mask_branch(&text, &actions, Branch::First),
            mask_branch(&text, &actions, Branch::Last),
        ];
        for masked in masks.into_iter().flatten() {
            assert_eq!(masked.text.len(), text.len(), "{}", path.display());
            for (before, after) in text.bytes().zip(masked.text.bytes()) {
                if matches!(before, b'\n' | b'\r') {
                    assert_eq!(before, after, "{}: a line break moved", path.display());
                }
            }
        }
        seen += 1;
    }
    assert!(seen >= 4, "only {seen} fuzz inputs");
}

/// On every input the fuzz targets found, the walk of yaml-rust2's events models a
/// document of plain YAML as the tree walk does wherever it takes it (the
/// `plain_walk` target's property).
#[test]
fn found_inputs_walk_alike() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    for entry in std::fs::read_dir(folder).expect("tests/fixtures/fuzz exists") {
        let path = entry.expect("readable").path();
        let bytes = std::fs::read(&path).expect("readable");
        let (source, _) = helm_tether::internals::SourceFile::from_bytes("values.yaml", bytes);
        for (tree, events) in helm_tether::internals::both_walks(&source) {
            if let Some(events) = events {
                assert_eq!(tree, events, "{}", path.display());
            }
        }
    }
}
