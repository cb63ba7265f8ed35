//! Which yamllint configuration applies: the nearest `.yamllint*`, else
//! chart-testing's (`lint-conf` of a `ct.yaml`, or `lintconf.yaml`).

use std::path::{Path, PathBuf};

use super::configuration::Yamllint;
use super::inside::{outside, within};
use crate::analysis::small_yaml::load;
use crate::error::ConfigError;

/// yamllint's configuration files, nearest first within one folder.
pub const FILE_NAMES: [&str; 3] = [".yamllint", ".yamllint.yaml", ".yamllint.yml"];
/// chart-testing's configuration files.
const CT_FILE_NAMES: [&str; 3] = ["ct.yaml", "ct.yml", ".ct.yaml"];

/// Where chart-testing setups keep a yamllint configuration that they pass on the
/// command line (`ct lint --lint-conf`), so neither tool nor tether finds it alone:
/// `tether init` names the first that exists with `yamllint-config`.
pub const CI_PLACES: [&str; 4] = [
    ".github/configs/lintconf.yaml",
    ".github/lintconf.yaml",
    ".github/linters/lintconf.yaml",
    ".github/ct/lintconf.yaml",
];

/// The yamllint configuration file in `folder` itself, if any.
pub fn in_folder(folder: &Path) -> Option<PathBuf> {
    FILE_NAMES
        .iter()
        .map(|name| folder.join(name))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_ok())
}

/// What `folder` decides about the yamllint configuration of the files in and below
/// it: its own `.yamllint*`, or at the repository's top chart-testing's (or none);
/// `None` when it decides nothing and its parent is to be asked.
pub fn decided_in(folder: &Path) -> Option<Result<Option<Yamllint>, ConfigError>> {
    if let Some(file) = in_folder(folder) {
        return Some(
            Yamllint::read(&file, folder, "the nearest yamllint configuration file").map(Some),
        );
    }
    if crate::paths::is_repository_top(folder) {
        return Some(chart_testing(folder));
    }
    None
}

/// The yamllint configuration of the files in `folder`, as `tether check` finds it
/// when `tether.toml` names none.
pub fn discover(folder: &Path) -> Result<Option<Yamllint>, ConfigError> {
    folder.ancestors().find_map(decided_in).unwrap_or(Ok(None))
}

/// chart-testing's yamllint configuration for a repository whose top is `top`: the
/// `lint-conf` of its `ct.yaml` (`ct.yml`, `.ct.yaml`), else `lintconf.yaml` there,
/// as `ct lint` run at the top finds them.
pub fn chart_testing(top: &Path) -> Result<Option<Yamllint>, ConfigError> {
    for name in CT_FILE_NAMES {
        let ct = top.join(name);
        if std::fs::symlink_metadata(&ct).is_err() {
            continue;
        }
        let (document, _) = load(&ct)?;
        if let Some(lint_conf) = document.get("lint-conf") {
            let Some(file) = lint_conf.as_str() else {
                return Err(ConfigError::Invalid {
                    path: ct.display().to_string(),
                    line: lint_conf.line.max(1),
                    column: 1,
                    message: "`lint-conf` is the path of a yamllint configuration".into(),
                });
            };
            if !within(top, &top.join(file)) {
                return Err(ConfigError::Invalid {
                    path: ct.display().to_string(),
                    line: lint_conf.line.max(1),
                    column: 1,
                    message: outside(&format!("lint-conf: {file}"), top),
                });
            }
            return Yamllint::read(
                &top.join(file),
                top,
                format!("`lint-conf` of {}", ct.display()),
            )
            .map(Some);
        }
        break;
    }
    let default = top.join("lintconf.yaml");
    if std::fs::symlink_metadata(&default).is_ok() {
        return Yamllint::read(&default, top, "chart-testing's default `lintconf.yaml`").map(Some);
    }
    Ok(None)
}
