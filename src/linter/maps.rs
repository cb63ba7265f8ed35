//! The comment maps of files for `tether map` and the library: each file modelled
//! with the directives of its own configuration, found as `tether check` finds it.

use std::path::{Path, PathBuf};

use crate::linter::check::ConfigSource;
use crate::linter::walk;
use crate::settings::config::Config;
use std::sync::Arc;

/// [`crate::comment_map`] with a configuration's own tool directives (`directives =
/// […]` in `tether.toml`), which document no key.
pub(crate) fn comment_map_with(
    config: &Config,
    path: impl AsRef<Path>,
) -> Result<crate::yaml::model::FileModel, crate::error::Error> {
    crate::yaml::pipeline::comment_map_with_directives(path.as_ref(), &config.directives)
}

/// The comment maps of `paths` (files, or folders whose covered files are mapped),
/// each file modelled with the directives of its own configuration, found as
/// `tether check` finds it: the order of the paths never changes a model.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct CommentMaps {
    /// Each file as the caller named it (a folder's files below the folder as
    /// named), with its model or why it could not be read; sorted by folder walk.
    pub maps: Vec<(
        PathBuf,
        Result<crate::yaml::model::FileModel, crate::error::Error>,
    )>,
    /// Paths that could not be walked and configurations that could not be read,
    /// one sentence each.
    pub errors: Vec<String>,
}

/// Models every file under `paths` with its own configuration from `configs`.
///
/// ```
/// let fallback = helm_tether::Config::default_for(std::env::current_dir().unwrap());
/// let maps = helm_tether::comment_maps(
///     helm_tether::ConfigSource::Nearest { fallback, select: Vec::new(), ignore: Vec::new() },
///     &["examples/kubevirt/templates/kubevirt-cr.yaml"],
/// ).unwrap();
/// assert!(maps.errors.is_empty());
/// assert!(maps.maps[0].1.as_ref().unwrap().to_string().contains("evictionStrategy"));
/// ```
pub fn comment_maps<P: AsRef<Path>>(
    configs: impl Into<ConfigSource>,
    paths: &[P],
) -> Result<CommentMaps, crate::error::Error> {
    use rayon::prelude::*;
    let mut resolver = configs.into().resolver()?;
    let mut errors = Vec::new();
    let mut named: Vec<(PathBuf, Arc<Config>)> = Vec::new();
    for path in paths.iter().map(AsRef::as_ref) {
        if !path.is_dir() {
            match resolver.config_for(&crate::paths::absolute(path)) {
                Ok(resolved) => named.push((path.to_path_buf(), resolved.config)),
                Err(message) => errors.push(message),
            }
            continue;
        }
        let walked = walk::files(&mut resolver, &[path.to_path_buf()]);
        errors.extend(walked.bad_inputs);
        errors.extend(walked.unreadable.into_iter().map(|(folder, message)| {
            format!("cannot read folder {}: {message}", folder.display())
        }));
        let base = crate::paths::absolute(path);
        let mut found: Vec<walk::FileToCheck> = walked.files;
        found.sort_by(|a, b| a.absolute.cmp(&b.absolute));
        named.extend(found.into_iter().map(|file| {
            let shown = path.join(file.absolute.strip_prefix(&base).unwrap_or(&file.absolute));
            (shown, file.config)
        }));
    }
    let maps = named
        .into_par_iter()
        .map(|(path, config)| {
            let model = comment_map_with(&config, &path);
            (path, model)
        })
        .collect();
    Ok(CommentMaps { maps, errors })
}
