//! The names of what a release publishes, in one place: `cargo xtask dist` names its
//! files by these functions and checks what maturin wrote against them, `cargo xtask
//! ci`'s dist step checks that `target/dist` holds exactly [`dist_files`], and
//! `tests/it/release.rs` (which includes this file) checks that every name the
//! README, the book, the Action's `install.sh`, the `cargo binstall` metadata, the
//! hook repositories and the release workflow use is one of these.
//!
//! Only `std`: the tests compile this file too.

// Not every name is used by both of the crates that compile this file.
#![allow(dead_code)]

/// The binary, in every archive and wheel.
pub const BINARY: &str = "tether";

/// The package on crates.io and PyPI.
pub const PACKAGE: &str = "helm-tether";

/// The maturin that builds the wheel, on a machine and on the release runners.
pub const MATURIN: &str = "maturin>=1.7,<2";

/// A platform the release publishes an archive and a wheel for, built on a runner of
/// its own (`runner`, a GitHub-hosted runner label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Platform {
    /// The Rust target triple, the archive's name.
    pub target: &'static str,
    /// The GitHub-hosted runner the release workflow builds it on.
    pub runner: &'static str,
    /// The wheel's platform tag (PEP 425, compressed tag set: `a.b.c`).
    pub wheel_platform: &'static str,
    /// maturin's `--compatibility` for that tag (Linux only; empty elsewhere).
    pub compatibility: &'static [&'static str],
    /// `MACOSX_DEPLOYMENT_TARGET` of the build (macOS only; empty elsewhere): the
    /// oldest macOS the binary runs on, and the version in the wheel's tag.
    pub macos: &'static str,
}

/// Linux builds are static musl binaries: one binary runs on every Linux of its
/// architecture, glibc or musl, so its wheel is tagged for manylinux 2.17
/// (glibc 2.17, `manylinux2014`) and musllinux 1.2 at once.
pub const PLATFORMS: [Platform; 5] = [
    Platform {
        target: "x86_64-unknown-linux-musl",
        runner: "ubuntu-24.04",
        wheel_platform: "manylinux2014_x86_64.manylinux_2_17_x86_64.musllinux_1_2_x86_64",
        compatibility: &["manylinux2014", "musllinux_1_2"],
        macos: "",
    },
    Platform {
        target: "aarch64-unknown-linux-musl",
        runner: "ubuntu-24.04-arm",
        wheel_platform: "manylinux2014_aarch64.manylinux_2_17_aarch64.musllinux_1_2_aarch64",
        compatibility: &["manylinux2014", "musllinux_1_2"],
        macos: "",
    },
    Platform {
        target: "x86_64-apple-darwin",
        runner: "macos-13",
        wheel_platform: "macosx_10_12_x86_64",
        compatibility: &[],
        macos: "10.12",
    },
    Platform {
        target: "aarch64-apple-darwin",
        runner: "macos-14",
        wheel_platform: "macosx_11_0_arm64",
        compatibility: &[],
        macos: "11.0",
    },
    Platform {
        target: "x86_64-pc-windows-msvc",
        runner: "windows-2022",
        wheel_platform: "win_amd64",
        compatibility: &[],
        macos: "",
    },
];

/// The release platform of `target`, if the release has one.
pub fn platform(target: &str) -> Option<Platform> {
    PLATFORMS
        .iter()
        .copied()
        .find(|platform| platform.target == target)
}

/// The release target a machine of `os` and `arch` (`std::env::consts`) runs, as
/// the Action's `install.sh` picks it: what `cargo xtask dist` builds by default.
pub fn release_target(os: &str, arch: &str) -> Option<&'static str> {
    match (os, arch) {
        ("linux", "x86_64") => Some("x86_64-unknown-linux-musl"),
        ("linux", "aarch64") => Some("aarch64-unknown-linux-musl"),
        ("macos", "x86_64") => Some("x86_64-apple-darwin"),
        ("macos", "aarch64") => Some("aarch64-apple-darwin"),
        ("windows", "x86_64") => Some("x86_64-pc-windows-msvc"),
        _ => None,
    }
}

/// The folder an archive unpacks to, `tether-TARGET`.
pub fn folder(target: &str) -> String {
    format!("{BINARY}-{target}")
}

/// The binary's file name on `target`.
pub fn executable(target: &str) -> String {
    if target.contains("windows") {
        format!("{BINARY}.exe")
    } else {
        BINARY.to_string()
    }
}

/// `.zip` for Windows, `.tar.gz` elsewhere.
pub fn archive_suffix(target: &str) -> &'static str {
    if target.contains("windows") {
        ".zip"
    } else {
        ".tar.gz"
    }
}

/// The archive of `target`: `tether-TARGET.tar.gz` (`.zip` for Windows).
pub fn archive(target: &str) -> String {
    format!("{}{}", folder(target), archive_suffix(target))
}

/// The wheel of `version` for `target` (PEP 427: the project name with `_` for `-`),
/// where the release has one.
pub fn wheel(version: &str, target: &str) -> Option<String> {
    let platform = platform(target)?;
    Some(format!(
        "{}-{version}-py3-none-{}.whl",
        PACKAGE.replace('-', "_"),
        platform.wheel_platform
    ))
}

/// The VS Code extension's package of `version` (the extension's own version).
pub fn vsix(version: &str) -> String {
    format!("tether-vscode-{version}.vsix")
}

/// The checksum file beside `file`.
pub fn checksum(file: &str) -> String {
    format!("{file}.sha256")
}

/// The file holding every checksum.
pub const SUMS: &str = "SHA256SUMS";

/// Every file (not folder) `cargo xtask dist` leaves in `target/dist` for `target`:
/// the archive, the wheel (when built and the target has one), the VS Code
/// extension (when packaged), a checksum beside each, and `SHA256SUMS`; sorted.
pub fn dist_files(version: &str, target: &str, wheel: bool, vsix: Option<&str>) -> Vec<String> {
    let mut artifacts = vec![archive(target)];
    if wheel {
        artifacts.extend(self::wheel(version, target));
    }
    if let Some(vsix_version) = vsix {
        artifacts.push(self::vsix(vsix_version));
    }
    let mut files: Vec<String> = artifacts
        .iter()
        .flat_map(|artifact| [artifact.clone(), checksum(artifact)])
        .collect();
    files.push(SUMS.to_string());
    files.sort();
    files
}

/// Every archive and wheel a release of `version` publishes (each with its checksum
/// beside it, and `SHA256SUMS`).
pub fn release_artifacts(version: &str) -> Vec<String> {
    PLATFORMS
        .iter()
        .flat_map(|platform| {
            std::iter::once(archive(platform.target)).chain(wheel(version, platform.target))
        })
        .collect()
}

/// A `cargo binstall` template of `[package.metadata.binstall]` (`pkg-url`,
/// `bin-dir`) expanded as binstall expands it for `target`, `suffix` being the
/// archive's (`pkg-fmt`): what the release rehearsal downloads and the release test
/// holds to [`archive`] and [`folder`].
pub fn binstall_expand(template: &str, version: &str, target: &str, suffix: &str) -> String {
    template
        .replace("{ repo }", "https://github.com/cozystack/tether")
        .replace("{ version }", version)
        .replace("{ target }", target)
        .replace("{ archive-suffix }", suffix)
        .replace("{ bin }", BINARY)
        .replace(
            "{ binary-ext }",
            if target.contains("windows") {
                ".exe"
            } else {
                ""
            },
        )
}
