//! Fuzz target: `snapshot --update` touches only the snapshots tether wrote. The
//! input makes a chart's template and, in its snapshot folder, files of every kind:
//! snapshots tether wrote (its mark first), another tool's `.snap` files, other files,
//! some named as the snapshot tether wants to write. After the update, every file
//! that was not tether's is there with the same bytes, and nothing outside the
//! snapshot folder changed.

#![no_main]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use helm_tether::Config;

/// Names the input chooses from: the snapshot tether wants, orphans of its own and
/// other tools' files.
const NAMES: [&str; 6] = [
    "templates/a.yaml.snap",
    "templates/gone.yaml.snap",
    "values.yaml.snap",
    "__snapshots__/app.test.js.snap",
    "insta__web.snap",
    "notes.txt",
];

const MARK: &str = "# tether snapshot of ";

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&byte| byte == 0xff);
    let template = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let root = dir.path();
    let write = |relative: &str, bytes: &[u8]| {
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).ok();
        }
        std::fs::write(path, bytes).ok();
    };
    write("tether.toml", b"");
    write("Chart.yaml", b"apiVersion: v2\nname: a\nversion: 1.0.0\n");
    write("templates/a.yaml", template.as_bytes());
    for part in parts.take(8) {
        let Some((&choice, rest)) = part.split_first() else {
            continue;
        };
        let name = NAMES[usize::from(choice) % NAMES.len()];
        // Half the files carry tether's mark: those may be rewritten or removed.
        let mut bytes = Vec::new();
        if choice & 0x80 != 0 {
            bytes.extend_from_slice(MARK.as_bytes());
        }
        bytes.extend_from_slice(rest);
        write(&format!("snapshots/{name}"), &bytes);
    }
    let before = files(root);
    let Ok(config) = Config::discover(root) else {
        return;
    };
    let _ = helm_tether::snapshot::update(&config, &Default::default());
    let after = files(root);
    for (path, bytes) in &before {
        let ours = path.starts_with("snapshots") && bytes.starts_with(MARK.as_bytes());
        if !ours {
            assert_eq!(
                after.get(path),
                Some(bytes),
                "snapshot --update changed or removed {}, which it did not write",
                path.display()
            );
        }
    }
    for path in after.keys() {
        assert!(
            before.contains_key(path) || path.starts_with("snapshots"),
            "snapshot --update wrote {} outside its folder",
            path.display()
        );
    }
});

/// Every file below `root`, relative, with its bytes.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => folders.push(path),
                Ok(_) => {
                    let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                    out.insert(relative, std::fs::read(&path).unwrap_or_default());
                }
                Err(_) => {}
            }
        }
    }
    out
}
