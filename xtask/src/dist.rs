//! `cargo xtask dist [--target TRIPLE] [--no-wheel]`: what a release ships, in
//! `target/dist`:
//!
//! - `tether-TRIPLE/`: the release binary, its shell completions and man page (both
//!   written by the binary itself, `tether completions SHELL` and `tether man`, so
//!   they always match it), README.md, LICENSE and CHANGELOG.md;
//! - `tether-TRIPLE.tar.gz` (`.zip` for Windows) of that folder, the archive the
//!   release workflow publishes and `cargo binstall` and the Action download;
//! - the Python wheel that carries the binary (maturin, `bindings = "bin"`), unless
//!   `--no-wheel`;
//! - `tether-vscode-VERSION.vsix`, the VS Code extension of `editors/vscode`
//!   (`vscode.rs`; where npm is missing it is skipped and said);
//! - `NAME.sha256` beside each archive and wheel, and `SHA256SUMS` of them all, in
//!   `sha256sum`'s format.
//!
//! The target defaults to the host's. The binary must run where `dist` runs (it
//! writes its own completions): the release workflow builds each target on a runner
//! of its own.

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
    /// The staged folder the archive holds (`target/dist/tether-TRIPLE`).
    pub staged: PathBuf,
    /// The archive.
    pub archive: PathBuf,
    /// The wheel, unless `--no-wheel`.
    pub wheel: Option<PathBuf>,
    /// The VS Code extension, where npm could package it.
    pub vsix: Option<PathBuf>,
}

/// `cargo xtask dist` with its command-line arguments.
pub fn dist_args(args: &[String]) -> Result<Dist> {
    let mut target = None;
    let mut wheel = true;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = Some(args.next().context("--target needs a triple")?.clone()),
            "--no-wheel" => wheel = false,
            other => {
                bail!("unknown argument {other:?}: cargo xtask dist [--target TRIPLE] [--no-wheel]")
            }
        }
    }
    dist(target.as_deref(), wheel)
}

/// Builds and packages tether for `target` (the host's when `None`).
pub fn dist(target: Option<&str>, wheel: bool) -> Result<Dist> {
    let root = crate::project_root();
    let host = host_triple()?;
    let triple = target.unwrap_or(&host).to_string();
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
    if target.is_some() {
        build.args(["--target", &triple]);
    }
    let status = build
        .current_dir(&root)
        .status()
        .context("cannot run cargo build")?;
    ensure!(status.success(), "cargo build --release failed");
    // This binary is `<target>/<profile>/xtask`.
    let target_dir = std::env::current_exe()?
        .parent()
        .and_then(Path::parent)
        .context("unexpected location of the xtask binary")?
        .to_path_buf();
    let windows = triple.contains("windows");
    let exe = if windows { "tether.exe" } else { "tether" };
    let binary = match target {
        Some(_) => target_dir.join(&triple).join("release").join(exe),
        None => target_dir.join("release").join(exe),
    };
    let folder = target_dir.join("dist");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .with_context(|| format!("cannot clear {}", folder.display()))?;
    }
    let name = format!("tether-{triple}");
    let staged = folder.join(&name);
    for sub in ["completions", "man/man1"] {
        std::fs::create_dir_all(staged.join(sub))?;
    }
    let shipped = staged.join(exe);
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
    let wheel = if wheel {
        Some(build_wheel(&root, &folder, target)?)
    } else {
        None
    };
    let vsix = crate::vscode::package(&root, &folder)?;
    let mut sums = String::new();
    for artifact in std::iter::once(&archive).chain(&wheel).chain(&vsix) {
        let line = checksum_line(artifact)?;
        let file = artifact.file_name().context("no file name")?;
        let mut own = file.to_os_string();
        own.push(".sha256");
        std::fs::write(folder.join(own), &line)?;
        sums.push_str(&line);
    }
    std::fs::write(folder.join("SHA256SUMS"), sums)?;
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
        staged,
        archive,
        wheel,
        vsix,
    })
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

/// The wheel of `pyproject.toml`, built by maturin into `folder`.
fn build_wheel(root: &Path, folder: &Path, target: Option<&str>) -> Result<PathBuf> {
    let maturin = crate::python_tool(root, "maturin", "maturin>=1.7,<2")?;
    let mut build = Command::new(maturin);
    build
        .args(["build", "--release", "--locked", "--quiet", "--out"])
        .arg(folder);
    if let Some(target) = target {
        build.args(["--target", target]);
    }
    let status = build
        .current_dir(root)
        .status()
        .context("cannot run maturin")?;
    ensure!(status.success(), "maturin build failed");
    let wheel = std::fs::read_dir(folder)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| path.extension().is_some_and(|extension| extension == "whl"))
        .context("maturin wrote no wheel")?;
    Ok(wheel)
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
