//! The import graph between the files of `src/`: no cycles (ARCHITECTURE.md, "Layers").
//!
//! A file depends on another when it names one of its items by path: a `use` line
//! (braces expanded), a `crate::…`/`super::…`/`self::…` path in code, or a path through
//! a child module it declares (`mod lex;` then `lex::Action`). `mod` lines alone are
//! structure, not dependencies, and `#[cfg(test)] mod tests` blocks are left out: a
//! test reaching into its parent is no layering. A path resolves to the deepest file
//! module it names, so `crate::yaml::model::Key` is `src/yaml/model.rs` and
//! `crate::comment_map` is `src/lib.rs`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file of the crate and the module path it defines (`["yaml", "model"]`).
struct Module {
    file: PathBuf,
    path: Vec<String>,
    /// The crate root this file belongs to (`lib.rs` or `main.rs`).
    root: PathBuf,
    code: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without comments, string literals and its test module.
fn code_of(text: &str) -> String {
    let string = Regex::new(r#""(\\.|[^"\\])*""#).unwrap();
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        let line = string.replace_all(line, "\"\"");
        let line = line.split("//").next().unwrap_or_default();
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The modules of the crates under `src`: each file's module path and crate root.
fn modules(src: &Path) -> Vec<Module> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let bin_root = src.join("main.rs");
    let bin_modules: BTreeSet<String> = std::fs::read_to_string(&bin_root)
        .map(|text| declared_modules(&code_of(&text)))
        .unwrap_or_default();
    files
        .into_iter()
        .filter(|file| !file.components().any(|c| c.as_os_str() == "bin"))
        .map(|file| {
            let relative = file.strip_prefix(src).unwrap().with_extension("");
            let mut path: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if path.last().is_some_and(|last| last == "mod") {
                path.pop();
            }
            if path == ["lib"] || path == ["main"] {
                path.clear();
            }
            let in_bin = file == bin_root || path.first().is_some_and(|m| bin_modules.contains(m));
            let root = if in_bin {
                bin_root.clone()
            } else {
                src.join("lib.rs")
            };
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            Module {
                file,
                path,
                root,
                code,
            }
        })
        .collect()
}

/// The names of `mod name;` lines (any visibility), not inline `mod name { … }`.
fn declared_modules(code: &str) -> BTreeSet<String> {
    let declaration =
        Regex::new(r"(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;").unwrap();
    declaration
        .captures_iter(code)
        .map(|captures| captures[1].to_string())
        .collect()
}

/// Expands the braces of a `use` tree: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`, `a::c::e`.
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (index, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|part| !part.is_empty())
        .flat_map(expand_use)
        .map(|suffix| format!("{prefix}{suffix}"))
        .collect()
}

/// Every path the code names that may lead to another file of its crate, as written.
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<String> {
    let mut paths = Vec::new();
    let use_line = Regex::new(r"(?s)\buse\s+([^;]+);").unwrap();
    for captures in use_line.captures_iter(code) {
        paths.extend(expand_use(&captures[1]));
    }
    let inline = Regex::new(r"\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+").unwrap();
    paths.extend(inline.find_iter(code).map(|m| m.as_str().to_string()));
    // A child module named at the start of a path (`charts::Chart`), not inside a
    // longer one (`crate::analysis::by_hash` in a folder with a child `analysis`).
    for child in children {
        let through = Regex::new(&format!(
            r"(?m)(?:^|[^:A-Za-z0-9_])({child}(?:::[A-Za-z_][A-Za-z0-9_]*)+)"
        ))
        .unwrap();
        paths.extend(
            through
                .captures_iter(code)
                .map(|captures| captures[1].to_string()),
        );
    }
    paths
}

/// The file a path written in `module` leads to, when it is a file of the same crate.
fn resolve(
    module: &Module,
    written: &str,
    children: &BTreeSet<String>,
    files: &BTreeMap<(PathBuf, Vec<String>), PathBuf>,
) -> Option<PathBuf> {
    let written = written.split(" as ").next().unwrap_or(written);
    let mut segments: Vec<&str> = written.split("::").filter(|s| !s.is_empty()).collect();
    segments.retain(|s| *s != "*");
    let mut absolute: Vec<String> = match segments.first().copied() {
        Some("crate") => Vec::new(),
        Some("self") => module.path.clone(),
        Some("super") => {
            let mut path = module.path.clone();
            while segments.first() == Some(&"super") {
                path.pop();
                segments.remove(0);
            }
            segments.insert(0, "super");
            path
        }
        Some(first) if children.contains(first) => {
            let mut path = module.path.clone();
            path.push(first.to_string());
            segments.remove(0);
            segments.insert(0, "self");
            path
        }
        _ => return None,
    };
    absolute.extend(segments.iter().skip(1).map(|s| s.to_string()));
    // The deepest prefix that is a file of this crate.
    (0..=absolute.len())
        .rev()
        .find_map(|length| files.get(&(module.root.clone(), absolute[..length].to_vec())))
        .cloned()
}

/// Which files of `src` each file imports, by their paths below `src`.
fn file_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let files: BTreeMap<(PathBuf, Vec<String>), PathBuf> = modules
        .iter()
        .map(|m| ((m.root.clone(), m.path.clone()), m.file.clone()))
        .collect();
    let name = |file: &Path| file.strip_prefix(src).unwrap().display().to_string();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for module in &modules {
        let children = declared_modules(&module.code);
        let targets = edges.entry(name(&module.file)).or_default();
        for written in paths_in(&module.code, &children) {
            if let Some(target) = resolve(module, &written, &children, &files) {
                if target != module.file {
                    targets.insert(name(&target));
                }
            }
        }
    }
    edges
}

/// The import cycles among the files under `src`, each as its files in order.
fn import_cycles(src: &Path) -> Vec<Vec<String>> {
    strongly_connected(&file_edges(src))
        .into_iter()
        .filter(|component| component.len() > 1)
        .collect()
}

/// The folders of `src/`, from the bottom up: a file may import from its own folder,
/// from a folder below its own, and from the leaf files at the top of `src/`
/// ([`LEAVES`]), never from a folder above. ARCHITECTURE.md's code map follows this order.
const LAYERS: &[&str] = &[
    "template", "yaml", "analysis", "rules", "settings", "linter", "idem", "report", "snapshot",
    "server", "cli",
];

/// The files at the top of `src/` every folder may import.
const LEAVES: &[&str] = &[
    "cache_key.rs",
    "collections.rs",
    "diagnostic.rs",
    "error.rs",
    "excerpt.rs",
    "folders.rs",
    "git.rs",
    "globs.rs",
    "key_pattern.rs",
    "lines.rs",
    "paths.rs",
    "rule_id.rs",
    "rule_list.rs",
    "source.rs",
    "sys.rs",
];

/// The imports that go from a folder to a folder above it, from a folder to a
/// file at the top of `src/` that is not a leaf, or from a leaf to anything but a
/// leaf, as `from → to`. (`lib.rs` and `main.rs`, the top, import anything.)
fn back_edges(src: &Path) -> Vec<String> {
    let folder = |file: &str| file.split_once('/').map(|(folder, _)| folder.to_string());
    let layer = |name: &str| LAYERS.iter().position(|layer| *layer == name);
    let mut back = Vec::new();
    for (from, targets) in file_edges(src) {
        let Some(from_folder) = folder(&from) else {
            if LEAVES.contains(&from.as_str()) {
                back.extend(
                    targets
                        .iter()
                        .filter(|to| !LEAVES.contains(&to.as_str()))
                        .map(|to| format!("{from} → {to}")),
                );
            }
            continue;
        };
        let from_layer = layer(&from_folder);
        for to in targets {
            let allowed = match folder(&to) {
                None => LEAVES.contains(&to.as_str()),
                Some(to_folder) => match (from_layer, layer(&to_folder)) {
                    (Some(from_layer), Some(to_layer)) => to_layer <= from_layer,
                    _ => false,
                },
            };
            if !allowed {
                back.push(format!("{from} → {to}"));
            }
        }
    }
    back
}

#[test]
fn folders_import_only_downwards() {
    let src = repo().join("src");
    let mut folders: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut layered: Vec<String> = LAYERS.iter().map(ToString::to_string).collect();
    layered.sort();
    assert_eq!(
        folders, layered,
        "every folder of src/ has a place in LAYERS"
    );
    let back = back_edges(&src);
    assert!(
        back.is_empty(),
        "imports against the layers of src/ ({}; leaves: {}):\n  {}",
        LAYERS.join(" < "),
        LEAVES.join(", "),
        back.join("\n  ")
    );
}

/// The files holding a run's state, which no file of `settings/` (configuration as
/// data) may import: the chart graph and the repository's listing of `Chart.yaml`
/// files live in `analysis/`, below `settings/`, so the layers alone would let it.
const RUN_STATE: [&str; 2] = ["analysis/charts/mod.rs", "analysis/chart_yamls.rs"];

/// The files of `settings/` that import one of `run_state`, with what they import.
fn settings_importing_run_state(
    edges: &BTreeMap<String, BTreeSet<String>>,
    run_state: &[&str],
) -> Vec<String> {
    edges
        .iter()
        .filter(|(file, _)| file.starts_with("settings/"))
        .flat_map(|(file, targets)| {
            targets
                .iter()
                .filter(|target| run_state.contains(&target.as_str()))
                .map(move |target| format!("{file} → {target}"))
        })
        .collect()
}

/// `settings/` is configuration as data: what a run knows (its resolved
/// configurations, their projects, the chart graph, the pins) is the linter's:
/// `Resolver` and `Project` live in `linter/`, above `settings/`, which the layers
/// keep from importing them. A settings file names a pin (a `[[pin]]` entry is one),
/// never the run's charts or listing.
#[test]
fn settings_hold_no_run_state() {
    let edges = file_edges(&repo().join("src"));
    let found = settings_importing_run_state(&edges, &RUN_STATE);
    assert!(
        found.is_empty(),
        "settings importing run state:\n  {}",
        found.join("\n  ")
    );
    // The check finds one planted.
    let mut planted = edges.clone();
    planted
        .entry("settings/config.rs".to_string())
        .or_default()
        .insert("analysis/charts/mod.rs".to_string());
    assert_eq!(
        settings_importing_run_state(&planted, &RUN_STATE),
        ["settings/config.rs → analysis/charts/mod.rs"]
    );
}

/// ARCHITECTURE.md's code map names every folder of `src/` and every file at its
/// top; its table lists the folders in the order of [`LAYERS`], and its list of
/// leaves is [`LEAVES`].
#[test]
fn the_architecture_map_names_every_folder_and_top_file() {
    let map = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let table: Vec<&str> = map
        .lines()
        .filter_map(|line| line.strip_prefix("| `src/")?.split_once("/` |"))
        .map(|(folder, _)| folder)
        .collect();
    assert_eq!(table, LAYERS, "the code map's folders, bottom up");
    let leaves_line = map
        .split("Leaves at the top")
        .nth(1)
        .and_then(|rest| rest.split(". Also at").next())
        .expect("the code map lists the leaves");
    let mut leaves: Vec<&str> = leaves_line
        .split('`')
        .filter_map(|part| part.strip_prefix("src/"))
        .filter(|file| !file.contains('/'))
        .collect();
    leaves.sort_unstable();
    assert_eq!(leaves, LEAVES, "the code map's leaves");
    let src = repo().join("src");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let written = if entry.path().is_dir() {
            format!("src/{name}/")
        } else {
            format!("src/{name}")
        };
        if !map.contains(&written) {
            missing.push(written);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name {missing:?}"
    );
}

/// Tarjan's strongly connected components, each sorted, in a stable order.
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        components: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        let edges = state.edges;
        for target in edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(target.as_str()) {
                visit(state, target);
                let low = state.low[node].min(state.low[target.as_str()]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target.as_str()) {
                let low = state.low[node].min(state.index[target.as_str()]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.to_string());
                if top == node {
                    break;
                }
            }
            component.sort();
            state.components.push(component);
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.components.sort();
    state.components
}

#[test]
fn no_import_cycle_between_files_of_src() {
    let cycles = import_cycles(&repo().join("src"));
    assert!(
        cycles.is_empty(),
        "files of src/ that import each other, directly or through others \
         (put the shared types in a leaf module):\n{}",
        cycles
            .iter()
            .map(|cycle| format!("  {}", cycle.join(" ↔ ")))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The checker finds what it must: a fixture crate with a cycle through `super`, one
/// through a child module and one through the crate root, and a clean layered module.
#[test]
fn the_cycle_check_finds_cycles() {
    let cycles = import_cycles(&repo().join("tests/fixtures/imports/src"));
    common::assert_snapshot("imports__fixture_cycles", &format!("{cycles:#?}"));
}

/// The names `src/lib.rs` makes public: its `pub use` items and `pub mod` modules.
fn public_surface() -> BTreeSet<String> {
    let lib = code_of(&std::fs::read_to_string(repo().join("src/lib.rs")).unwrap());
    let mut names = BTreeSet::new();
    let module = Regex::new(r"(?m)^pub mod ([a-z_]+)\s*[;{]").unwrap();
    names.extend(module.captures_iter(&lib).map(|c| c[1].to_string()));
    let function = Regex::new(r"(?m)^pub fn ([a-z_]+)").unwrap();
    names.extend(function.captures_iter(&lib).map(|c| c[1].to_string()));
    let reexport = Regex::new(r"(?m)^pub use ([^;]+);").unwrap();
    for captures in reexport.captures_iter(&lib) {
        for path in expand_use(&captures[1]) {
            let name = path.rsplit("::").next().unwrap_or(&path);
            names.insert(name.split(" as ").last().unwrap_or(name).to_string());
        }
    }
    names.remove("internals");
    names
}

/// The `helm_tether::…` names a program's sources use that are not public.
fn outside_the_surface(files: &[PathBuf]) -> Vec<String> {
    let surface = public_surface();
    let used = Regex::new(r"\bhelm_tether::([A-Za-z_][A-Za-z0-9_]*)").unwrap();
    let braced = Regex::new(r"(?s)\buse\s+helm_tether::\{([^;]+)\};").unwrap();
    let mut outside = Vec::new();
    for file in files {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut names: Vec<String> = used
            .captures_iter(&code)
            .map(|captures| captures[1].to_string())
            .collect();
        // `use helm_tether::{a, b::c}`.
        for captures in braced.captures_iter(&code) {
            names.extend(
                expand_use(&format!("{{{}}}", &captures[1]))
                    .into_iter()
                    .map(|path| path.split("::").next().unwrap_or_default().to_string()),
            );
        }
        for name in names {
            if !surface.contains(&name) {
                outside.push(format!(
                    "{}: helm_tether::{name}",
                    file.strip_prefix(repo()).unwrap().display()
                ));
            }
        }
    }
    outside.sort();
    outside.dedup();
    outside
}

/// Programs built on the library use its public surface only: the `tether` binary
/// (`src/main.rs`, which calls [`helm_tether::main`]) and examples/xtask, the sample
/// a monorepo copies. The command line itself lives in the library, beside what it
/// needs; this repository's own xtask (benchmarks, print-tree) measures stages
/// below the surface, as the tests do, through `internals`.
#[test]
fn programs_use_only_the_public_surface() {
    let surface = public_surface();
    for expected in [
        "Config",
        "check_paths",
        "comment_map",
        "snapshot",
        "idem",
        "CheckReport",
        "main",
    ] {
        assert!(
            surface.contains(expected),
            "{expected} is not public: {surface:?}"
        );
    }
    let mut programs = vec![repo().join("src/main.rs")];
    for dir in ["examples/xtask/src", "examples/xtask/tests"] {
        rust_files(&repo().join(dir), &mut programs);
    }
    let outside = outside_the_surface(&programs);
    assert!(
        outside.is_empty(),
        "programs reach below the public surface (add it to the surface in src/lib.rs, or do without):\n{}",
        outside.join("\n")
    );
    let manifest = std::fs::read_to_string(repo().join("examples/xtask/Cargo.toml")).unwrap();
    assert!(
        !manifest.contains("internals"),
        "examples/xtask enables `internals`, which only this repository's tests, fuzz targets and benchmarks may"
    );
}

/// The surface check finds what it must: a fixture program that reaches into a
/// private module and into `internals`.
#[test]
fn the_surface_check_finds_private_paths() {
    let outside = outside_the_surface(&[repo().join("tests/fixtures/imports/program.rs")]);
    assert_eq!(
        outside,
        [
            "tests/fixtures/imports/program.rs: helm_tether::internals",
            "tests/fixtures/imports/program.rs: helm_tether::template",
            "tests/fixtures/imports/program.rs: helm_tether::walk",
        ]
    );
}
