//! What a regeneration target depends on, read from its Makefile: whether it defines
//! a make target, and the files it includes. `[[idem]] dirs` keeps the folders whose
//! Makefile defines the target `run` calls, and `tether idem --changed-since` runs a
//! target when its folder or an included file changed. A leaf, portable module.

use std::path::{Path, PathBuf};

/// A Makefile larger than this is not read (none is; a FIFO or device never is).
const MAX_MAKEFILE_BYTES: usize = 1024 * 1024;

/// The text of a Makefile: a regular file, bounded; empty when it cannot be read.
fn read_makefile(path: &Path) -> String {
    crate::source::read_regular(path, MAX_MAKEFILE_BYTES)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// The Makefile make reads in `folder`, in make's order.
const MAKEFILES: [&str; 3] = ["GNUmakefile", "makefile", "Makefile"];

/// The Makefile of `folder`, and every file it includes (`include`, `-include`,
/// `sinclude`), recursively; `None` when an include names a variable (`$(…)`), so
/// the caller cannot be sure and must assume anything may matter.
pub fn makefiles(folder: &Path) -> Option<Vec<PathBuf>> {
    let first = MAKEFILES
        .iter()
        .map(|name| folder.join(name))
        .find(|path| path.is_file())?;
    let mut found = vec![first];
    let mut index = 0;
    while index < found.len() && found.len() < 64 {
        let text = read_makefile(&found[index]);
        for line in text.lines() {
            let line = line.trim_start();
            let Some(rest) = ["include ", "-include ", "sinclude "]
                .iter()
                .find_map(|keyword| line.strip_prefix(keyword))
            else {
                continue;
            };
            for name in rest.split_whitespace() {
                if name.contains('$') {
                    return None;
                }
                // make resolves includes against the folder it runs in.
                let path = folder.join(name);
                let path = path.canonicalize().unwrap_or(path);
                if !found.contains(&path) {
                    found.push(path);
                }
            }
        }
        index += 1;
    }
    Some(found)
}

/// Whether the Makefile of `folder` (or a file it includes) has a rule for
/// `target`. Unsure (no Makefile it can read through) means no.
pub fn defines(folder: &Path, target: &str) -> bool {
    let files = makefiles(folder).unwrap_or_else(|| {
        MAKEFILES
            .iter()
            .map(|name| folder.join(name))
            .filter(|path| path.is_file())
            .collect()
    });
    files.iter().any(|file| {
        read_makefile(file).lines().any(|line| {
            if line.starts_with(['\t', '#']) {
                return false;
            }
            let Some((targets, rest)) = line.split_once(':') else {
                return false;
            };
            // `A = b:c` and `A := …` are variables, not rules.
            !targets.contains('=')
                && !rest.starts_with('=')
                && targets.split_whitespace().any(|name| name == target)
        })
    })
}
