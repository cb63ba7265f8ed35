//! The self-heal mutants of a target: the committed files with a configured block
//! removed (each alone, then all together), or with `--discover` each top-level
//! block of the target files.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::blocks;
use super::sandbox::{Entry, TreeManifest};
use crate::settings::config::IdemTarget;

/// A mutant to self-heal: its name and the files that differ from the committed ones.
pub(super) struct Mutant {
    /// The opening line of the block removed, or `all`.
    pub(super) name: String,
    /// The files that differ from the committed ones, as the mutant has them.
    pub(super) files: BTreeMap<PathBuf, Entry>,
}

/// The self-heal mutants: each configured block removed alone, then all of them
/// (or, with `--discover`, each top-level block of the target files); and the
/// configured blocks that are in none of the committed files. A missing block is
/// what a hand-merge that dropped it leaves, so it is a failed check of its own
/// (the no-op check's diff shows whether the command restores it), never a reason
/// to stop proving the rest.
pub(super) fn mutants(
    target: &IdemTarget,
    discover: bool,
    manifest: &TreeManifest,
    target_files: &[PathBuf],
) -> (Vec<Mutant>, Vec<String>) {
    let pristine: BTreeMap<&PathBuf, (String, bool)> = target_files
        .iter()
        .filter_map(|path| match manifest.pristine(path) {
            Some(Entry::File { bytes, executable }) => String::from_utf8(bytes.to_vec())
                .ok()
                .map(|text| (path, (text, executable))),
            _ => None,
        })
        .collect();
    let mut found: Vec<(String, Vec<(PathBuf, blocks::Block)>)> = Vec::new();
    let mut missing = Vec::new();
    if discover {
        for (path, (text, _)) in &pristine {
            for block in blocks::top_level(text) {
                found.push((block.opening.clone(), vec![((*path).clone(), block)]));
            }
        }
    } else {
        for opening in &target.self_heal {
            let mut places = Vec::new();
            for (path, (text, _)) in &pristine {
                places.extend(
                    blocks::find(text, opening)
                        .into_iter()
                        .map(|block| ((*path).clone(), block)),
                );
            }
            if places.is_empty() {
                missing.push(opening.trim().to_string());
                continue;
            }
            found.push((opening.trim().to_string(), places));
        }
    }
    let mutate = |removals: &[&(PathBuf, blocks::Block)]| -> BTreeMap<PathBuf, Entry> {
        let mut files = BTreeMap::new();
        for (path, (text, executable)) in &pristine {
            let blocks: Vec<blocks::Block> = removals
                .iter()
                .filter(|(file, _)| file == *path)
                .map(|(_, block)| block.clone())
                .collect();
            if blocks.is_empty() {
                continue;
            }
            files.insert(
                (*path).clone(),
                Entry::File {
                    bytes: Arc::new(blocks::remove(text, &blocks).into_bytes()),
                    executable: *executable,
                },
            );
        }
        files
    };
    let mut mutants: Vec<Mutant> = found
        .iter()
        .map(|(name, places)| Mutant {
            name: name.clone(),
            files: mutate(&places.iter().collect::<Vec<_>>()),
        })
        .collect();
    if !discover && found.len() > 1 {
        let all: Vec<&(PathBuf, blocks::Block)> =
            found.iter().flat_map(|(_, places)| places).collect();
        mutants.push(Mutant {
            name: "all".into(),
            files: mutate(&all),
        });
    }
    (mutants, missing)
}
