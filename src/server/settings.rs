//! What the user sets for the server in their editor (`initializationOptions` at
//! start, `workspace/didChangeConfiguration` later, under `tether`): the values
//! files of a chart read besides its `values.yaml`, as globs relative to the chart
//! folder. The defaults read every `values*.yaml` beside it, as helm-ls does.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The editor's settings.
#[derive(Debug, Clone)]
pub(crate) struct EditorSettings {
    /// The globs, as the user wrote them.
    values_files: Vec<String>,
    matcher: GlobSet,
}

/// The folders of a chart that are no place for values files.
const NOT_VALUES_FOLDERS: &[&str] = &["templates", "charts", "crds"];

impl Default for EditorSettings {
    fn default() -> EditorSettings {
        EditorSettings::with_globs(vec!["values*.yaml".into(), "values*.yml".into()])
            .unwrap_or_else(|_| EditorSettings {
                values_files: Vec::new(),
                matcher: GlobSet::empty(),
            })
    }
}

impl EditorSettings {
    fn with_globs(values_files: Vec<String>) -> Result<EditorSettings, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in &values_files {
            let glob = Glob::new(pattern)
                .map_err(|error| format!("valuesFiles: `{pattern}` is not a glob: {error}"))?;
            builder.add(glob);
        }
        let matcher = builder
            .build()
            .map_err(|error| format!("valuesFiles: {error}"))?;
        Ok(EditorSettings {
            values_files,
            matcher,
        })
    }

    /// The settings `options` give (`{"valuesFiles": ["values*.yaml", "ci/*.yaml"]}`,
    /// or that under `tether`); a missing key keeps the default. `Err` says what is
    /// wrong, for the user to see.
    pub fn from_json(options: &serde_json::Value) -> Result<EditorSettings, String> {
        let options = options.get("tether").unwrap_or(options);
        let Some(files) = options.get("valuesFiles") else {
            return Ok(EditorSettings::default());
        };
        let globs = files
            .as_array()
            .and_then(|files| {
                files
                    .iter()
                    .map(|file| file.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>()
            })
            .ok_or("valuesFiles: a list of globs relative to each chart folder, e.g. [\"values*.yaml\", \"ci/*.yaml\"]")?;
        EditorSettings::with_globs(globs)
    }

    /// The values files of the chart at `root` besides its `values.yaml`: the files
    /// of the folder and of its folders one level down (not `templates/`,
    /// `charts/`, `crds/`) that the globs match, sorted.
    pub fn other_values_files(&self, root: &Path) -> Vec<PathBuf> {
        if self.values_files.is_empty() {
            return Vec::new();
        }
        let mut found = Vec::new();
        // A folder that cannot be listed leaves its files out: completion and
        // navigation offer what could be read, and `check` reports the folder.
        let _partial = crate::folders::walk(root, |entry| {
            let path = entry.path();
            if entry.is_dir() {
                let name = entry.name();
                return if entry.depth() == 1 && !NOT_VALUES_FOLDERS.iter().any(|skip| name == *skip)
                {
                    crate::folders::Step::Into
                } else {
                    crate::folders::Step::Over
                };
            }
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let matched = entry.is_file()
                && relative != Path::new("values.yaml")
                && self.matcher.is_match(relative);
            if matched {
                found.push(path);
            }
            crate::folders::Step::Into
        });
        found.sort();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_files_are_found_beside_values_yaml_and_as_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "values.yaml",
            "values-prod.yaml",
            "ci/lint.yaml",
            "templates/values-x.yaml",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "a: 1\n").unwrap();
        }
        let names = |settings: &EditorSettings| -> Vec<String> {
            settings
                .other_values_files(root)
                .iter()
                .map(|path| crate::paths::slashed(path.strip_prefix(root).unwrap()))
                .collect()
        };
        assert_eq!(names(&EditorSettings::default()), ["values-prod.yaml"]);
        let named = EditorSettings::from_json(
            &serde_json::json!({"tether": {"valuesFiles": ["values*.yaml", "ci/*.yaml"]}}),
        )
        .unwrap();
        assert_eq!(names(&named), ["ci/lint.yaml", "values-prod.yaml"]);
        assert!(EditorSettings::from_json(&serde_json::json!({"valuesFiles": "x"})).is_err());
        assert!(EditorSettings::from_json(&serde_json::json!({"valuesFiles": ["a[b"]})).is_err());
    }
}
