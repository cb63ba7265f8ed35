//! The commented starter `tether.toml` that `tether init` writes, stating what the
//! new file inherits (the configuration above it, or the yamllint configuration the
//! comment rules follow there).

use std::path::Path;

use crate::rules::{self};
use crate::settings::yamllint::{Trace, Yamllint};

/// The commented starter `tether init` writes.
pub fn starter() -> String {
    starter_with("")
}

/// The starter for a `tether.toml` in `folder`: it states the yamllint or
/// chart-testing configuration the comment rules will follow there, and names one
/// with `yamllint-config` when it sits where chart-testing setups keep it but tether
/// would not find it on its own (`.github/configs/lintconf.yaml`).
/// `above` is the configuration above `folder`, if any.
pub fn starter_in(folder: &Path, above: Option<&Path>) -> String {
    let folder = folder.to_path_buf();
    // Under a configuration already, the new one builds on it rather than
    // silently replacing it.
    if let Some(above) = above {
        let relative = crate::paths::relative_path(above, &folder);
        return starter_with(&format!(
            "# This file builds on {0}: its settings, [[require]] and [[idem]] entries\n\
             # apply here too, and what this file sets comes after them.\n\
             extend = {1:?}\n\n",
            relative.display(),
            crate::paths::slashed(&relative)
        ));
    }
    let found = crate::settings::yamllint::discover(&folder);
    let mut out = String::new();
    let (yamllint, named) = match found {
        Err(error) => {
            out.push_str(&format!(
                "# A yamllint configuration applies here but cannot be read; fix it, or name\n# another with `yamllint-config`:\n#   {}\n\n",
                error.to_string().replace('\n', "\n#   ")
            ));
            return starter_with(&out);
        }
        Ok(Some(yamllint)) => (std::sync::Arc::new(yamllint), None),
        Ok(None) => {
            let top = crate::paths::repository_top(&folder).unwrap_or_else(|| folder.clone());
            let Some((file, yamllint)) =
                crate::settings::yamllint::CI_PLACES
                    .iter()
                    .find_map(|place| {
                        let file = top.join(place);
                        file.is_file()
                            .then(|| {
                                Yamllint::read(&file, &top, "named by `yamllint-config` below").ok()
                            })
                            .flatten()
                            .map(|yamllint| (file, yamllint))
                    })
            else {
                return starter_with("");
            };
            (
                std::sync::Arc::new(yamllint),
                Some(crate::paths::relative_path(&file, &folder)),
            )
        }
    };
    out.push_str("# Inherited: where this file sets nothing for them, the comment rules follow\n");
    out.push_str(&format!(
        "# the yamllint configuration {}\n",
        yamllint.path.display()
    ));
    match &named {
        Some(_) => out.push_str(
            "# (where chart-testing setups keep it; tether finds it only when named here):\n",
        ),
        None => out.push_str(&format!("# ({}):\n", yamllint.found)),
    }
    let mut settings = rules::default_settings();
    let mut trace = Trace::default();
    yamllint.apply(
        Some(&folder.join("values.yaml")),
        &mut settings,
        &mut Some(&mut trace),
    );
    if trace.entries.is_empty() {
        out.push_str("#   it changes nothing for tether's comment rules.\n");
    }
    for (rule, setting, value, origin) in &trace.entries {
        out.push_str(&format!("#   {rule} {setting} = {value}: {origin}\n"));
    }
    out.push_str(
        "# `[rules]` below wins where both speak; `tether check --show-settings FILE`\n\
         # shows each file's settings and where they came from.\n",
    );
    if let Some(named) = named {
        out.push_str(&format!(
            "yamllint-config = {:?}\n",
            named.to_string_lossy()
        ));
    }
    out.push('\n');
    // Paths as this file's folder sees them, so the file reads the same on every
    // machine.
    let shown = crate::paths::relative_path(&yamllint.path, &folder);
    let out = out.replace(
        &yamllint.path.display().to_string(),
        &shown.display().to_string(),
    );
    starter_with(&out)
}

pub(crate) fn starter_with(inherited: &str) -> String {
    let mut out = String::from(concat!(
        "#:schema https://raw.githubusercontent.com/cozystack/tether/v",
        env!("CARGO_PKG_VERSION"),
        "/schemas/tether.schema.json\n\
             # tether.toml: configuration of `tether check` and `tether idem`.\n\
             # Paths and globs are relative to this file's folder.\n\
             # Reference: `tether rules` and https://cozystack.github.io/tether/configuration.html\n\n",
    ));
    out.push_str(inherited);
    out.push_str(
        "# Files to check (these are the defaults); files ignored by git are skipped.\n\
         # include = [\"**/*.yaml\", \"**/*.yml\", \"**/*.tpl\"]\n\
         # exclude = [\"**/generated/**\"]\n\
         # Left out by default, as chart tools leave them out: charts vendored under a\n\
         # chart's charts/ folder (at any depth), helm-unittest suites (tests/*_test.yaml)\n\
         # and chart-testing's value overrides (ci/*-values.yaml). `false` checks them.\n\
         # default-exclude = true\n\n\
         # Rule levels: \"error\", \"warn\" or \"off\". The defaults:\n[rules]\n",
    );
    for registered in rules::RULES {
        out.push_str(&format!(
            "# {} = \"{}\"\n",
            registered.rule.name(),
            registered.rule.default_level().as_str()
        ));
    }
    out.push_str(
        "\n# A comment that must stay on a key, say what it must, in the right place:\n\
         # [[require]]\n\
         # files = [\"templates/kubevirt-cr.yaml\"]\n\
         # key = \"spec.configuration.evictionStrategy\"   # `*` one segment, `**` any, `[*]` any item\n\
         # kind = \"KubeVirt\"\n\
         # placement = \"trailing\"                        # trailing | leading | any\n\
         # matches = [\"created after\", \"MachineHealthCheck\"]\n\
         # message = \"state the preconditions review asked for\"\n\n\
         # Other levels for some files, e.g. generated CRDs in any chart:\n\
         # [[overrides]]\n\
         # files = [\"**/crds/**\"]\n\
         # rules = { comment-indentation = \"off\", comment-starting-space = \"off\" }\n",
    );
    out
}
