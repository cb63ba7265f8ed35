//! `tether check --show-settings FILE`: the effective rule settings of one file and
//! where each came from, as text.

use std::path::Path;

use crate::linter::check::ConfigSource;

/// The effective rule settings of one file and where each came from, as
/// `tether check --show-settings FILE` prints them: the rule defaults, then the
/// yamllint configuration, `[rules]`, `[[overrides]]` and `--select`.
pub(crate) fn show_settings(
    configs: ConfigSource,
    file: impl AsRef<Path>,
) -> Result<String, crate::error::Error> {
    let file = file.as_ref();
    let mut resolver = configs.resolver(None)?;
    let absolute = crate::paths::absolute(file);
    if std::fs::symlink_metadata(&absolute).is_err() {
        return Err(crate::error::Error::NotFound {
            path: file.to_path_buf(),
        });
    }
    let config = resolver
        .config_for(&absolute)
        .map_err(crate::error::Error::Configuration)?
        .config;
    let relative = crate::paths::relative_to(&absolute, &config.root);
    let mut trace = crate::settings::yamllint::Trace::default();
    let settings = config.settings_traced(&relative, Some(&mut trace));
    let mut out = format!("Settings of {}\n", file.display());
    out.push_str(&format!(
        "  tether.toml: {}\n",
        config
            .file
            .as_ref()
            .map_or("none (tether's defaults)".to_string(), |path| {
                match config.extends() {
                    Some(extended) => {
                        format!("{} (extends {})", path.display(), extended.display())
                    }
                    None => path.display().to_string(),
                }
            })
    ));
    out.push_str(&format!(
        "  yamllint:    {}\n",
        config.yamllint.as_ref().map_or(
            "none found (no `yamllint-config`, `.yamllint*`, or chart-testing `lint-conf`)"
                .to_string(),
            |yamllint| format!("{} ({})", yamllint.path.display(), yamllint.found)
        )
    ));
    if !config.includes(&relative) {
        out.push_str("  (the configuration's `include`/`exclude` leave this file out: `tether check` skips it)\n");
    }
    out.push('\n');
    for (rule, level) in settings.levels.iter() {
        let head = format!("{} = {}", rule.name(), level.as_str());
        out.push_str(&format!(
            "{head:<36} {}\n",
            trace.origin(rule, "level").unwrap_or_default()
        ));
        for (r, setting, value, origin) in &trace.entries {
            if *r == rule && setting != "level" {
                let line = format!("  {setting} = {value}");
                out.push_str(&format!("{line:<36} {origin}\n"));
            }
        }
    }
    Ok(out)
}
