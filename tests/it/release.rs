//! The release's names agree: `cargo binstall`'s metadata in Cargo.toml finds the
//! archive `cargo xtask dist` makes and the release workflow publishes
//! (`tether-TARGET.tar.gz` holding `tether-TARGET/tether`), the Action's install step
//! asks for the same name, and the versions pinned in the docs are the crate's.

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// A `key = "value"` line of a TOML table, as written in Cargo.toml.
fn value<'a>(text: &'a str, table: &str, key: &str) -> &'a str {
    let start = text.find(&format!("[{table}]\n")).unwrap();
    text[start..]
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .find_map(|line| line.strip_prefix(&format!("{key} = \"")))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no {key} in [{table}]"))
}

#[test]
fn binstall_finds_the_archive_dist_makes() {
    let cargo = read("Cargo.toml");
    let target = "x86_64-unknown-linux-musl";
    let expand = |template: &str| {
        template
            .replace("{ repo }", "https://github.com/cozystack/tether")
            .replace("{ version }", env!("CARGO_PKG_VERSION"))
            .replace("{ target }", target)
            .replace("{ archive-suffix }", ".tar.gz")
            .replace("{ bin }", "tether")
            .replace("{ binary-ext }", "")
    };
    let url = expand(value(&cargo, "package.metadata.binstall", "pkg-url"));
    assert_eq!(
        url,
        format!(
            "https://github.com/cozystack/tether/releases/download/v{}/tether-{target}.tar.gz",
            env!("CARGO_PKG_VERSION")
        )
    );
    let inside = expand(value(&cargo, "package.metadata.binstall", "bin-dir"));
    assert_eq!(inside, format!("tether-{target}/tether"));
    // dist names the archive and its folder so.
    let dist = read("xtask/src/dist.rs");
    assert!(dist.contains(r#"let name = format!("tether-{triple}");"#));
    assert!(dist.contains(r#"format!("{name}.tar.gz")"#));
    // The Action's install step asks for that archive and unpacks that folder.
    let install = read(".github/action/install.sh");
    assert!(install.contains(r#"archive="tether-$target.$suffix""#));
    assert!(install.contains(r#"cp "$download/tether-$target/"tether*"#));
}

#[test]
fn the_docs_pin_this_version() {
    let version = env!("CARGO_PKG_VERSION");
    let readme = read("README.md");
    for pin in [
        format!("releases/download/v{version}/"),
        format!("pipx install helm-tether=={version}"),
        format!("cargo binstall helm-tether@{version}"),
        format!("cozystack/tether@v{version}"),
    ] {
        assert!(readme.contains(&pin), "README.md must pin {pin}");
    }
    let changelog = read("CHANGELOG.md");
    assert!(
        changelog.contains(&format!("\n## [{version}] - ")),
        "CHANGELOG.md has no entry for {version}"
    );
    let example = read("examples/github/tether.yml");
    assert!(example.contains(&format!("cozystack/tether@v{version}")));
}

/// Every version pin in the README and the book names this version: a page that
/// moved out of the README keeps its pins in step too.
#[test]
fn every_pin_in_the_docs_is_this_version() {
    let version = env!("CARGO_PKG_VERSION");
    let mut pages = vec![std::path::PathBuf::from("README.md")];
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")).unwrap()
    {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut stale = Vec::new();
    for page in &pages {
        let text = read(&page.to_string_lossy());
        for prefix in [
            "releases/download/v",
            "helm-tether==",
            "helm-tether@",
            "cozystack/tether@v",
            "rev: v",
        ] {
            for (at, _) in text.match_indices(prefix) {
                let pinned: String = text[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
                    .collect();
                // A pin that ends a sentence.
                let pinned = pinned.trim_end_matches('.');
                if pinned != version {
                    stale.push(format!("{}: {prefix}{pinned}", page.display()));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "pins of another version than {version}: {stale:?}"
    );
}
