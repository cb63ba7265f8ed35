//! The release's names agree. One rule names what a release publishes,
//! `xtask/src/dist/names.rs` (included here as it is): `cargo xtask dist` names its
//! files by it and fails on a wheel maturin named otherwise, and `cargo xtask ci`'s
//! dist step checks that `target/dist` holds exactly its files and installs them
//! every way the README says. These tests check every other place that names a
//! release file against the same rule: the README and the book, the Action's
//! `install.sh` (run for every release platform against a release served from a
//! folder), the `cargo binstall` metadata, both hook repositories and the release
//! workflow. A name changed in one place only fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../xtask/src/dist/names.rs"]
mod names;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn toml_file(path: &str) -> toml::Table {
    read(path)
        .parse()
        .unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn yaml_file(path: &str) -> yaml_rust2::Yaml {
    yaml_rust2::YamlLoader::load_from_str(&read(path))
        .unwrap_or_else(|error| panic!("{path}: {error}"))
        .remove(0)
}

/// The targets of the release, in the rule's order.
fn targets() -> Vec<&'static str> {
    names::PLATFORMS
        .iter()
        .map(|platform| platform.target)
        .collect()
}

/// Every file of a release page: the archives and wheels, a checksum beside each,
/// and `SHA256SUMS`.
fn release_page() -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for artifact in names::release_artifacts(VERSION) {
        files.insert(names::checksum(&artifact));
        files.insert(artifact);
    }
    files.insert(names::SUMS.to_string());
    files
}

/// The pages that tell how to install: the README and every page of the book.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    for entry in std::fs::read_dir(repo().join("docs/src")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path.strip_prefix(repo()).unwrap().to_path_buf());
        }
    }
    pages.sort();
    pages
}

/// Every download of a release the pages show is a file of the release page, and
/// every `tether-TARGET/` folder they name is the folder of a release archive.
#[test]
fn every_release_file_the_docs_name_is_one_the_release_publishes() {
    let page = release_page();
    let folders: BTreeSet<String> = targets()
        .into_iter()
        .map(|target| format!("{}/", names::folder(target)))
        .collect();
    let mut named = 0;
    let mut wrong = Vec::new();
    for path in pages() {
        let text = read(&path.to_string_lossy());
        for (at, _) in text.match_indices("/releases/download/") {
            let rest = &text[at + "/releases/download/".len()..];
            let url: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ')' | '`' | '"' | '\'' | '>'))
                .collect();
            // `/releases/download/vX.Y.Z/FILE`, or a template of it.
            let Some((_, file)) = url.split_once('/') else {
                continue;
            };
            if file.is_empty() || file.contains('{') || file.contains('$') {
                continue;
            }
            named += 1;
            if !page.contains(file) {
                wrong.push(format!("{}: {file}", path.display()));
            }
        }
        for (at, _) in text.match_indices("tether-") {
            let word: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
                .collect();
            // A folder: `tether-x86_64-unknown-linux-musl/`.
            if let Some(folder) = word.strip_suffix('/') {
                if folder.matches('-').count() >= 3
                    && !folder.contains('.')
                    && !folders.contains(&word)
                {
                    wrong.push(format!("{}: folder {folder}/", path.display()));
                }
            }
        }
    }
    assert!(named > 0, "the docs name no release download");
    assert!(
        wrong.is_empty(),
        "the docs name files no release publishes (xtask/src/dist/names.rs has {page:?}): {wrong:?}"
    );
}

/// The commands of the README's Install block (and the book's): each installs the
/// package `names::PACKAGE` at this version, or downloads a release file. `cargo
/// xtask ci`'s dist step runs them against `target/dist` served as a release.
#[test]
fn the_install_commands_name_the_package_and_the_release_files() {
    for path in ["README.md", "docs/src/install.md"] {
        let text = read(path);
        let block = install_block(&text).unwrap_or_else(|| panic!("{path} has no ```sh block"));
        let mut ways = BTreeSet::new();
        for line in block.lines() {
            let command = line.split("  #").next().unwrap().trim();
            let words: Vec<&str> = command.split_whitespace().collect();
            let way = match words.as_slice() {
                ["curl", .., "|", "tar", "-xz"] => "archive",
                ["pipx", "install", requirement] => {
                    assert_eq!(*requirement, format!("{}=={VERSION}", names::PACKAGE));
                    "wheel"
                }
                ["cargo", "binstall", spec] => {
                    assert_eq!(*spec, format!("{}@{VERSION}", names::PACKAGE));
                    "binstall"
                }
                ["cargo", "install", "--locked", package] => {
                    assert_eq!(*package, names::PACKAGE);
                    "source"
                }
                ["docker", "build", ..] => "image",
                // The image the release workflow's `image` job pushes.
                ["docker", "run", .., image] => {
                    assert_eq!(*image, format!("ghcr.io/cozystack/tether:{VERSION}"));
                    "registry image"
                }
                _ => panic!("{path}: an install command the release test does not know: {line}"),
            };
            ways.insert(way);
        }
        for way in ["archive", "wheel", "binstall", "source"] {
            assert!(ways.contains(way), "{path} shows no {way} install");
        }
    }
    // The package is the crate and the wheel: pip's `helm-tether==V` is the wheel
    // `helm_tether-V-…` (PEP 427), cargo's is the crate whose binary is `tether`.
    let cargo = toml_file("Cargo.toml");
    assert_eq!(cargo["package"]["name"].as_str(), Some(names::PACKAGE));
    let bins = cargo["bin"].as_array().unwrap();
    assert!(
        bins.iter()
            .any(|bin| bin["name"].as_str() == Some(names::BINARY))
    );
    let pyproject = toml_file("pyproject.toml");
    assert_eq!(pyproject["project"]["name"].as_str(), Some(names::PACKAGE));
    assert_eq!(
        pyproject["tool"]["maturin"]["bindings"].as_str(),
        Some("bin")
    );
    for target in targets() {
        let wheel = names::wheel(VERSION, target).unwrap();
        assert!(
            wheel.starts_with(&format!(
                "{}-{VERSION}-py3-none-",
                names::PACKAGE.replace('-', "_")
            )),
            "{wheel}"
        );
    }
}

/// The `sh` block of the Install section (`## Install` in the README, the first of
/// the page in the book).
pub fn install_block(text: &str) -> Option<&str> {
    let from = text.find("## Install").unwrap_or(0);
    let start = text[from..].find("```sh\n")? + from + "```sh\n".len();
    let end = text[start..].find("```")? + start;
    Some(&text[start..end])
}

/// `cargo binstall`'s metadata finds, for every release target, the archive the
/// rule names and the binary inside it.
#[test]
fn binstall_finds_every_archive_of_the_release() {
    let cargo = toml_file("Cargo.toml");
    let binstall = &cargo["package"]["metadata"]["binstall"];
    let overrides = binstall.get("overrides");
    for target in targets() {
        let setting = |key: &str| {
            overrides
                .and_then(|overrides| overrides.get(target))
                .and_then(|table| table.get(key))
                .or_else(|| binstall.get(key))
                .and_then(|value| value.as_str())
                .unwrap_or_else(|| panic!("no {key} for {target}"))
                .to_string()
        };
        let suffix = match setting("pkg-fmt").as_str() {
            "tgz" => ".tar.gz",
            "zip" => ".zip",
            other => panic!("{target}: pkg-fmt {other} is no format of the release"),
        };
        let expand = |template: &str| names::binstall_expand(template, VERSION, target, suffix);
        assert_eq!(
            expand(&setting("pkg-url")),
            format!(
                "https://github.com/cozystack/tether/releases/download/v{VERSION}/{}",
                names::archive(target)
            )
        );
        assert_eq!(
            expand(&setting("bin-dir")),
            format!("{}/{}", names::folder(target), names::executable(target))
        );
    }
}

/// Both hook repositories run the binary the rule names: the root one builds the
/// crate with cargo (`language: rust`), `pre-commit/` installs the wheel of this
/// version (`language: python`), which pip finds by the rule's wheel name.
#[test]
fn the_hook_repositories_install_what_the_release_ships() {
    for (path, language) in [
        (".pre-commit-hooks.yaml", "rust"),
        ("pre-commit/.pre-commit-hooks.yaml", "python"),
    ] {
        let hooks = yaml_file(path);
        let hooks = hooks.as_vec().unwrap();
        assert!(!hooks.is_empty(), "{path} has no hooks");
        for hook in hooks {
            let id = hook["id"].as_str().unwrap();
            let entry = hook["entry"].as_str().unwrap();
            assert_eq!(
                entry.split_whitespace().next(),
                Some(names::BINARY),
                "{path}: hook {id} runs {entry}"
            );
            assert_eq!(hook["language"].as_str(), Some(language), "{path}: {id}");
        }
    }
    let pyproject = toml_file("pre-commit/pyproject.toml");
    let project = &pyproject["project"];
    assert_eq!(project["version"].as_str(), Some(VERSION));
    let dependencies: Vec<&str> = project["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|value| value.as_str().unwrap())
        .collect();
    assert_eq!(
        dependencies,
        [format!("{}=={VERSION}", names::PACKAGE)],
        "pre-commit/pyproject.toml must depend on the wheel of this version alone"
    );
}

/// The release workflow builds every platform of the rule, each on its runner, with
/// `cargo xtask dist` itself (the archive and the wheel, as a rehearsal does),
/// uploads what it made, and installs every wheel before anything is published.
#[test]
fn the_release_workflow_builds_with_dist_what_the_rule_names() {
    let workflow = yaml_file(".github/workflows/release.yml");
    let jobs = &workflow["jobs"];
    let archives = &jobs["archives"];
    let built: Vec<(String, String)> = archives["strategy"]["matrix"]["include"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["target"].as_str().unwrap().to_string(),
                row["os"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let rule: Vec<(String, String)> = names::PLATFORMS
        .iter()
        .map(|platform| (platform.target.to_string(), platform.runner.to_string()))
        .collect();
    assert_eq!(
        built, rule,
        "the archives job must build every release platform on its runner"
    );
    let steps = archives["steps"].as_vec().unwrap();
    let runs: Vec<&str> = steps
        .iter()
        .filter_map(|step| step["run"].as_str())
        .collect();
    assert!(
        runs.iter()
            .any(|run| run.trim() == "cargo xtask dist --target \"$TARGET\" --no-vsix"),
        "the archives job must run `cargo xtask dist --target \"$TARGET\" --no-vsix` (with its wheel): {runs:?}"
    );
    assert!(
        runs.iter()
            .any(|run| run.contains(&format!("pip install \"{}\"", names::MATURIN))),
        "the archives job must install {} as dist does: {runs:?}",
        names::MATURIN
    );
    let uploaded: String = steps
        .iter()
        .filter_map(|step| step["with"]["path"].as_str())
        .collect();
    for glob in [
        "target/dist/tether-*.tar.gz",
        "target/dist/tether-*.zip",
        "target/dist/*.whl",
    ] {
        assert!(
            uploaded.contains(glob),
            "the archives job does not upload {glob}"
        );
    }
    let wheels = &jobs["wheels"];
    let checked: BTreeSet<&str> = wheels["strategy"]["matrix"]["include"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|row| row["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        checked,
        targets().into_iter().collect(),
        "the wheels job must install the wheel of every platform"
    );
    let needs = |job: &yaml_rust2::Yaml| -> Vec<String> {
        match &job["needs"] {
            yaml_rust2::Yaml::String(one) => vec![one.clone()],
            yaml_rust2::Yaml::Array(many) => many
                .iter()
                .filter_map(|need| need.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    assert!(needs(wheels).contains(&"archives".to_string()));
}

/// A fake release platform for `install.sh`: what `uname -s` and `uname -m` say.
fn uname_of(target: &str) -> (&'static str, &'static str) {
    match target {
        "x86_64-unknown-linux-musl" => ("Linux", "x86_64"),
        "aarch64-unknown-linux-musl" => ("Linux", "aarch64"),
        "x86_64-apple-darwin" => ("Darwin", "x86_64"),
        "aarch64-apple-darwin" => ("Darwin", "arm64"),
        "x86_64-pc-windows-msvc" => ("MINGW64_NT-10.0-20348", "x86_64"),
        other => panic!("no uname for {other}"),
    }
}

/// PATH without any folder that holds a `tether`: the install step must not find one.
fn path_without_tether() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|folder| !folder.join("tether").exists())
        .collect();
    std::env::join_paths(kept)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn write_executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs the Action's `install.sh` as a runner of `uname` would, with releases served
/// from `releases` (`RELEASES/vX.Y.Z/FILE`), a `cargo` that only notes its arguments
/// in `cargo-args` and fails, and the given version.
fn install_sh(dir: &Path, uname: (&str, &str), releases: &Path, version: Option<&str>) -> Output {
    let fake = dir.join("fake-bin");
    std::fs::create_dir_all(&fake).unwrap();
    write_executable(
        &fake.join("uname"),
        &format!(
            "#!/bin/sh\ncase \"$1\" in -s) echo '{}' ;; -m) echo '{}' ;; *) echo '{} {}' ;; esac\n",
            uname.0, uname.1, uname.0, uname.1
        ),
    );
    write_executable(
        &fake.join("cargo"),
        &format!(
            "#!/bin/sh\necho \"$@\" > '{}'\necho 'fake cargo: no build here' >&2\nexit 101\n",
            dir.join("cargo-args").display()
        ),
    );
    let bin = dir.join("tether-bin");
    let _ = std::fs::remove_dir_all(&bin);
    let mut command = Command::new("bash");
    command
        .arg(repo().join(".github/action/install.sh"))
        .env(
            "PATH",
            format!("{}:{}", fake.display(), path_without_tether()),
        )
        .env("TETHER_BIN", &bin)
        .env("TETHER_SOURCE", repo())
        .env(
            "TETHER_RELEASES_URL",
            format!("file://{}", releases.display()),
        )
        .env_remove("TETHER_VERSION");
    if let Some(version) = version {
        command.env("TETHER_VERSION", version);
    }
    command.output().unwrap()
}

/// A release page holding only `target`'s archive (as the rule names it, with the
/// folder and executable the rule names inside) and its checksum.
fn serve_archive(releases: &Path, version: &str, target: &str) {
    let page = releases.join(version);
    let _ = std::fs::remove_dir_all(releases);
    std::fs::create_dir_all(&page).unwrap();
    let stage = releases.parent().unwrap().join("stage");
    let _ = std::fs::remove_dir_all(&stage);
    let folder = stage.join(names::folder(target));
    std::fs::create_dir_all(&folder).unwrap();
    write_executable(
        &folder.join(names::executable(target)),
        &format!("#!/bin/sh\necho 'tether 9.9.9 ({target})'\n"),
    );
    let archive = names::archive(target);
    let made = if archive.ends_with(".zip") {
        Command::new("python3")
            .args(["-m", "zipfile", "-c"])
            .arg(page.join(&archive))
            .arg(names::folder(target))
            .current_dir(&stage)
            .status()
            .unwrap()
    } else {
        Command::new("tar")
            .arg("-czf")
            .arg(page.join(&archive))
            .arg(names::folder(target))
            .current_dir(&stage)
            .status()
            .unwrap()
    };
    assert!(made.success());
    let sum = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(&page)
        .output()
        .unwrap();
    assert!(sum.status.success());
    std::fs::write(page.join(names::checksum(&archive)), sum.stdout).unwrap();
}

/// The Action's install step, on a runner of each release platform, downloads that
/// platform's archive by the rule's name and installs the rule's executable from
/// its folder; it never falls back to a build when the release has the archive.
#[test]
fn the_action_installs_the_archive_of_every_release_platform() {
    let dir = tempfile::tempdir().unwrap();
    let releases = dir.path().join("releases");
    for target in targets() {
        serve_archive(&releases, "v9.9.9", target);
        let output = install_sh(dir.path(), uname_of(target), &releases, Some("v9.9.9"));
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{target}: {said}");
        assert!(
            said.contains(&format!(
                "installed tether v9.9.9 ({target}) from file://{}/v9.9.9/{}",
                releases.display(),
                names::archive(target)
            )),
            "{target}: {said}"
        );
        let installed = dir
            .path()
            .join("tether-bin")
            .join(names::executable(target));
        assert!(installed.is_file(), "{target}: no {}", installed.display());
        assert!(!said.contains("fake cargo"), "{target}: {said}");
    }
}

/// Without an archive for the runner, the install step says so as a warning (why,
/// and that a build takes minutes) and builds with cargo showing its progress; a
/// platform the release has no build for says that; no version asked is a notice.
#[test]
fn the_action_says_loudly_when_it_builds_from_source() {
    let dir = tempfile::tempdir().unwrap();
    let releases = dir.path().join("releases");
    // The release has only another platform's archive.
    serve_archive(&releases, "v9.9.9", "x86_64-pc-windows-msvc");
    let cases = [
        (
            ("Linux", "x86_64"),
            Some("v9.9.9"),
            "::warning title=tether is built from source::no release archive at ",
        ),
        (
            ("SunOS", "sparc64"),
            Some("v9.9.9"),
            "::warning title=tether is built from source::release v9.9.9 has no archive for this platform (SunOS sparc64)",
        ),
        (
            ("Linux", "x86_64"),
            None,
            "::notice title=tether is built from source::no release version asked",
        ),
    ];
    for (uname, version, says) in cases {
        let _ = std::fs::remove_file(dir.path().join("cargo-args"));
        let output = install_sh(dir.path(), uname, &releases, version);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(!output.status.success(), "the fake cargo fails: {stdout}");
        assert!(stdout.contains(says), "{uname:?} {version:?}: {stdout}");
        assert!(stdout.contains("takes several minutes"), "{stdout}");
        let args = std::fs::read_to_string(dir.path().join("cargo-args"))
            .expect("install.sh falls back to cargo install");
        assert!(args.starts_with("install --locked "), "{args}");
        assert!(
            !args.contains("--quiet"),
            "the build must show its progress: {args}"
        );
    }
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
    let mut stale = Vec::new();
    for page in pages() {
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
