//! `cargo xtask dist [--target TRIPLE] [--no-wheel] [--no-vsix]`: what a release ships, in
//! `target/dist`, named as [`names`] says (the one rule the docs, the Action, the
//! `cargo binstall` metadata and the hook repositories are tested against):
//!
//! - `tether-TRIPLE/`: the release binary, its shell completions and man page (both
//!   written by the binary itself, `tether completions SHELL` and `tether man`, so
//!   they always match it), README.md, LICENSE and CHANGELOG.md;
//! - `tether-TRIPLE.tar.gz` (`.zip` for Windows) of that folder, the archive the
//!   release workflow publishes and `cargo binstall` and the Action download;
//! - the Python wheel that carries the same binary (maturin, `bindings = "bin"`,
//!   reusing cargo's build), unless `--no-wheel`;
//! - `tether-vscode-VERSION.vsix`, the VS Code extension of `editors/vscode`
//!   (`vscode.rs`; where npm is missing it is skipped and said), unless `--no-vsix`
//!   (the release's archive jobs leave it to its one `vscode` job);
//! - `NAME.sha256` beside each archive and wheel, and `SHA256SUMS` of them all, in
//!   `sha256sum`'s format.
//!
//! The target defaults to the release target of the machine ([`names::release_target`]):
//! on Linux the static musl build the release publishes (`x86_64-unknown-linux-musl`,
//! built with `musl-gcc` for tree-sitter's C code; the Rust target and Debian's
//! `musl-tools` are installed when missing), whose wheel is tagged for manylinux 2.17
//! and musllinux 1.2 at once: what a tag publishes, rehearsed. The binary must run
//! where `dist` runs (it writes its own completions): the release workflow builds
//! each target on a runner of its own, with this same command.

pub mod names;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use sha2::{Digest, Sha256};

/// The shells `tether completions` knows, and each one's file name.
const SHELLS: [(&str, &str); 5] = [
    ("bash", "tether.bash"),
    ("zsh", "_tether"),
    ("fish", "tether.fish"),
    ("elvish", "tether.elv"),
    ("powershell", "_tether.ps1"),
];

/// The documents every archive carries beside the binary.
const DOCUMENTS: [&str; 3] = ["README.md", "LICENSE", "CHANGELOG.md"];

/// What `dist` made.
pub struct Dist {
    /// `target/dist`.
    pub folder: PathBuf,
    /// The target triple built.
    pub target: String,
    /// The staged folder the archive holds (`target/dist/tether-TRIPLE`).
    pub staged: PathBuf,
    /// The archive.
    pub archive: PathBuf,
    /// The wheel, unless `--no-wheel`.
    pub wheel: Option<PathBuf>,
    /// The VS Code extension, where npm could package it, unless `--no-vsix`.
    pub vsix: Option<PathBuf>,
}

/// `cargo xtask dist` with its command-line arguments.
pub fn dist_args(args: &[String]) -> Result<Dist> {
    let mut target = None;
    let mut wheel = true;
    let mut vsix = true;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = Some(args.next().context("--target needs a triple")?.clone()),
            "--no-wheel" => wheel = false,
            "--no-vsix" => vsix = false,
            other => {
                bail!(
                    "unknown argument {other:?}: cargo xtask dist [--target TRIPLE] [--no-wheel] [--no-vsix]"
                )
            }
        }
    }
    dist(target.as_deref(), wheel, vsix)
}

/// The target `dist` builds when given none: the release target of this machine,
/// else the host's triple.
pub fn default_target() -> Result<String> {
    match names::release_target(std::env::consts::OS, std::env::consts::ARCH) {
        Some(target) => Ok(target.to_string()),
        None => host_triple(),
    }
}

/// Builds and packages tether for `target` (the machine's release target when
/// `None`, see [`default_target`]).
pub fn dist(target: Option<&str>, wheel: bool, vsix: bool) -> Result<Dist> {
    let root = crate::project_root();
    let host = host_triple()?;
    let triple = match target {
        Some(target) => target.to_string(),
        None => default_target()?,
    };
    for difference in differences(&triple, target.is_some()) {
        println!("dist: differs from the release: {difference}");
    }
    let binary = build_binary(&triple)?;
    let cross = triple != host;
    let environment = build_environment(&triple)?;
    let target_dir = crate::target_dir()?;
    let windows = triple.contains("windows");
    let exe = names::executable(&triple);
    let folder = target_dir.join("dist");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .with_context(|| format!("cannot clear {}", folder.display()))?;
    }
    let name = names::folder(&triple);
    let staged = folder.join(&name);
    for sub in ["completions", "man/man1"] {
        std::fs::create_dir_all(staged.join(sub))?;
    }
    let shipped = staged.join(&exe);
    std::fs::copy(&binary, &shipped)
        .with_context(|| format!("cannot copy {}", binary.display()))?;
    for document in DOCUMENTS {
        std::fs::copy(root.join(document), staged.join(document))
            .with_context(|| format!("cannot copy {document}"))?;
    }
    for (shell, file) in SHELLS {
        write_output(
            &shipped,
            &["completions", shell],
            &staged.join("completions").join(file),
        )?;
    }
    write_output(&shipped, &["man"], &staged.join("man/man1/tether.1"))?;
    // Every page the top page names (`tether-check(1)`, …), from the binary.
    let top = std::fs::read_to_string(staged.join("man/man1/tether.1"))?;
    for subcommand in man_pages_named(&top) {
        write_output(
            &shipped,
            &["man", &subcommand],
            &staged.join(format!("man/man1/tether-{subcommand}.1")),
        )?;
    }
    let archive = if windows {
        zip(&folder, &name)?
    } else {
        tar_gz(&folder, &name)?
    };
    ensure!(
        archive.ends_with(names::archive(&triple)),
        "{} is not named {}",
        archive.display(),
        names::archive(&triple)
    );
    let wheel = if wheel {
        Some(build_wheel(
            &root,
            &folder,
            cross.then_some(triple.as_str()),
            &environment,
        )?)
    } else {
        None
    };
    let vsix = if vsix {
        crate::vscode::package(&root, &folder)?
    } else {
        None
    };
    let mut sums = String::new();
    for artifact in std::iter::once(&archive).chain(&wheel).chain(&vsix) {
        let line = checksum_line(artifact)?;
        let file = artifact.file_name().context("no file name")?;
        let own = names::checksum(&file.to_string_lossy());
        std::fs::write(folder.join(own), &line)?;
        sums.push_str(&line);
    }
    std::fs::write(folder.join(names::SUMS), sums)?;
    let version = Command::new(&shipped).arg("--version").output()?;
    println!(
        "{} in {}: {}{}",
        String::from_utf8_lossy(&version.stdout).trim(),
        folder.display(),
        archive.file_name().unwrap_or_default().to_string_lossy(),
        wheel
            .as_ref()
            .and_then(|wheel| wheel.file_name())
            .map(|wheel| format!(", {}", wheel.to_string_lossy()))
            .unwrap_or_default()
    );
    Ok(Dist {
        folder,
        target: triple,
        staged,
        archive,
        wheel,
        vsix,
    })
}

/// How a `dist` of `triple` differs from what the release publishes, said so: a
/// target the release has no build of, or a deployment target other than its own.
fn differences(triple: &str, asked: bool) -> Vec<String> {
    let mut said = Vec::new();
    match names::platform(triple) {
        None => {
            let targets: Vec<&str> = names::PLATFORMS.iter().map(|p| p.target).collect();
            said.push(format!(
                "{triple} is {}no release target (the release builds {}): the archive is named \
                 as a release's would be, but no release publishes it and its wheel's tag is \
                 maturin's choice",
                if asked { "" } else { "this machine's, and " },
                targets.join(", ")
            ));
        }
        Some(platform) if !platform.macos.is_empty() => {
            if let Ok(set) = std::env::var("MACOSX_DEPLOYMENT_TARGET") {
                if set != platform.macos {
                    said.push(format!(
                        "MACOSX_DEPLOYMENT_TARGET is {set}, the release's is {}: the wheel's \
                         tag names {set}",
                        platform.macos
                    ));
                }
            }
        }
        Some(_) => {}
    }
    if std::env::var_os("RUSTFLAGS").is_some()
        || std::env::var_os("CARGO_ENCODED_RUSTFLAGS").is_some()
    {
        said.push("RUSTFLAGS is set here; the release builds without it".to_string());
    }
    said
}

/// Builds the release `tether` of `triple` (in its environment, see
/// [`build_environment`]) and returns the binary's path: what `dist` packages, and
/// what `cargo xtask ci` builds once for every step that runs a release binary
/// (the pre-commit test, precision, dist, install).
pub fn build_binary(triple: &str) -> Result<PathBuf> {
    let root = crate::project_root();
    let host = host_triple()?;
    let environment = build_environment(triple)?;
    // The release of `helm-tether` is the workspace's root package; cargo and
    // maturin build it with the same environment, so maturin reuses the build.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(&cargo);
    build.args([
        "build",
        "--locked",
        "--quiet",
        "--release",
        "--package",
        "helm-tether",
        "--bin",
        "tether",
    ]);
    let cross = triple != host;
    if cross {
        build.args(["--target", triple]);
    }
    build.envs(environment.iter().map(|(name, value)| (name, value)));
    let status = build
        .current_dir(&root)
        .status()
        .context("cannot run cargo build")?;
    ensure!(
        status.success(),
        "cargo build --release --target {triple} failed"
    );
    let target_dir = crate::target_dir()?;
    let exe = names::executable(triple);
    Ok(if cross {
        target_dir.join(triple).join("release").join(&exe)
    } else {
        target_dir.join("release").join(&exe)
    })
}

/// What the build of `triple` needs in its environment, installing what is missing:
/// for a musl target its Rust standard library (rustup) and `musl-gcc` (Debian's
/// `musl-tools`, apt) as the C compiler of tree-sitter's code; for macOS the
/// release's deployment target.
pub fn build_environment(triple: &str) -> Result<Vec<(String, String)>> {
    let mut environment = Vec::new();
    if triple.contains("-linux-musl") {
        let installed = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output();
        let has = installed.as_ref().is_ok_and(|output| {
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .any(|line| line.trim() == triple)
        });
        if !has {
            eprintln!("dist: rustup target add {triple}");
            let status = Command::new("rustup")
                .args(["target", "add", triple])
                .status()
                .context("cannot run rustup (the musl build needs its target)")?;
            ensure!(status.success(), "rustup target add {triple} failed");
        }
        let variable = format!("CC_{}", triple.replace('-', "_"));
        match std::env::var(&variable) {
            Ok(compiler) => {
                println!("dist: {variable}={compiler} (set here; the release uses musl-gcc)")
            }
            Err(_) => {
                if !crate::ci::works("musl-gcc") {
                    crate::ci::install(&["musl-tools"])
                        .context("the static musl build needs musl-gcc (Debian's musl-tools)")?;
                }
                environment.push((variable, "musl-gcc".to_string()));
            }
        }
    }
    if let Some(platform) = names::platform(triple) {
        if !platform.macos.is_empty() && std::env::var_os("MACOSX_DEPLOYMENT_TARGET").is_none() {
            environment.push((
                "MACOSX_DEPLOYMENT_TARGET".to_string(),
                platform.macos.to_string(),
            ));
        }
    }
    Ok(environment)
}

/// The host's target triple, as rustc names it.
pub fn host_triple() -> Result<String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("cannot run rustc -vV")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_string)
        .context("rustc -vV names no host")
}

/// `folder/name.tar.gz` of `folder/name`, entries in a fixed order with fixed
/// times and owners, so the same files give the same archive.
fn tar_gz(folder: &Path, name: &str) -> Result<PathBuf> {
    let path = folder.join(format!("{name}.tar.gz"));
    let file = std::fs::File::create(&path)?;
    let encoder = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    let mut builder = tar::Builder::new(encoder);
    let mut entries = Vec::new();
    collect(&folder.join(name), &mut entries)?;
    entries.sort();
    for entry in entries {
        let inside = Path::new(name).join(entry.strip_prefix(folder.join(name))?);
        let metadata = std::fs::metadata(&entry)?;
        let mut header = tar::Header::new_gnu();
        header.set_size(metadata.len());
        header.set_mode(executable_mode(&metadata));
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, &inside, std::fs::File::open(&entry)?)?;
    }
    builder.into_inner()?.finish()?;
    Ok(path)
}

#[cfg(unix)]
fn executable_mode(metadata: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    if metadata.permissions().mode() & 0o111 != 0 {
        0o755
    } else {
        0o644
    }
}

#[cfg(not(unix))]
fn executable_mode(_: &std::fs::Metadata) -> u32 {
    0o644
}

/// Every file under `folder`.
fn collect(folder: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            collect(&entry.path(), files)?;
        } else {
            files.push(entry.path());
        }
    }
    Ok(())
}

/// `folder/name.zip`, made by the `tar` of Windows 10 and later (bsdtar, in
/// System32: the GNU tar a Git Bash puts first on PATH makes no zip).
fn zip(folder: &Path, name: &str) -> Result<PathBuf> {
    let path = folder.join(format!("{name}.zip"));
    let tar = match std::env::var_os("SystemRoot") {
        Some(root) => PathBuf::from(root).join("System32").join("tar.exe"),
        None => PathBuf::from("tar"),
    };
    let status = Command::new(tar)
        .args(["-a", "-c", "-f"])
        .arg(&path)
        .arg(name)
        .current_dir(folder)
        .status()
        .context("cannot run tar (bsdtar) to make the zip")?;
    ensure!(status.success(), "tar -a -c -f {} failed", path.display());
    Ok(path)
}

/// The wheel of `pyproject.toml`, built by maturin into `folder` from cargo's build
/// of `target` (the host's when `None`) in `environment`, tagged as [`names`] says:
/// a Linux wheel carries the static musl binary and is tagged for manylinux 2.17
/// and musllinux 1.2. A wheel named otherwise is an error: a rehearsal that differs
/// from the release fails here, and so does the release.
fn build_wheel(
    root: &Path,
    folder: &Path,
    target: Option<&str>,
    environment: &[(String, String)],
) -> Result<PathBuf> {
    let maturin = maturin(root)?;
    let triple = match target {
        Some(target) => target.to_string(),
        None => host_triple()?,
    };
    let mut build = Command::new(maturin);
    build
        .args(["build", "--release", "--locked", "--quiet", "--out"])
        .arg(folder);
    if let Some(target) = target {
        build.args(["--target", target]);
    }
    let platform = names::platform(&triple);
    if let Some(platform) = platform.filter(|platform| !platform.compatibility.is_empty()) {
        build.arg("--compatibility").args(platform.compatibility);
    }
    build.envs(environment.iter().map(|(name, value)| (name, value)));
    let status = build
        .current_dir(root)
        .status()
        .context("cannot run maturin")?;
    ensure!(status.success(), "maturin build failed");
    let wheel = std::fs::read_dir(folder)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| path.extension().is_some_and(|extension| extension == "whl"))
        .context("maturin wrote no wheel")?;
    if platform.is_some() {
        let version = crate_version(root)?;
        let expected = names::wheel(&version, &triple).unwrap_or_default();
        ensure!(
            wheel.ends_with(&expected),
            "maturin named the wheel {}, the release names it {expected} (xtask/src/dist/names.rs)",
            wheel.file_name().unwrap_or_default().to_string_lossy()
        );
    }
    Ok(wheel)
}

/// maturin: `$TETHER_MATURIN` where set (the release runners install it with pip, as
/// [`names::MATURIN`] says), else from PyPI into `target/ci-venv`.
fn maturin(root: &Path) -> Result<PathBuf> {
    if let Some(maturin) = std::env::var_os("TETHER_MATURIN") {
        return Ok(maturin.into());
    }
    crate::python_tool(root, "maturin", names::MATURIN)
}

/// The crate's version, from its manifest's `[package]`.
pub fn crate_version(root: &Path) -> Result<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    manifest
        .lines()
        .find_map(|line| {
            line.strip_prefix("version = \"")
                .and_then(|rest| rest.strip_suffix('"'))
        })
        .map(str::to_string)
        .context("no version in Cargo.toml")
}

/// `HEX  NAME\n`, as `sha256sum` writes and `sha256sum --check` reads it.
fn checksum_line(path: &Path) -> Result<String> {
    let mut hasher = Sha256::new();
    let mut file = std::fs::File::open(path)?;
    std::io::copy(&mut file, &mut hasher)?;
    let digest = hasher.finalize();
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!(
        "{hex}  {}\n",
        path.file_name().unwrap_or_default().to_string_lossy()
    ))
}

/// Runs the binary and writes what it prints; fails on an error or no output.
fn write_output(binary: &Path, args: &[&str], to: &Path) -> Result<()> {
    let output = Command::new(binary)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    ensure!(
        output.status.success() && !output.stdout.is_empty(),
        "`tether {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(to, &output.stdout).with_context(|| format!("cannot write {}", to.display()))
}

/// The subcommands whose pages a man page names, `tether\-NAME(1)` in roff.
pub fn man_pages_named(page: &str) -> Vec<String> {
    page.lines()
        .filter_map(|line| line.strip_prefix("tether\\-")?.strip_suffix("(1)"))
        .map(|name| name.replace("\\-", "-"))
        .collect()
}
