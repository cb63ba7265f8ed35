//! Fuzz target: wherever the walk of yaml-rust2's events models a document of plain
//! YAML, it finds the keys, comments and `kind` the tree-sitter walk finds
//! (`src/yaml/plain.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (source, _) = helm_tether::internals::SourceFile::from_bytes("values.yaml", data.to_vec());
    for (tree, events) in helm_tether::internals::both_walks(&source) {
        if let Some(events) = events {
            assert_eq!(tree, events, "the walks differ on {:?}", source.text);
        }
    }
});
