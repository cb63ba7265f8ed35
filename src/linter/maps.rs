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
    let mut maps = Vec::new();
    let errors = each_comment_map(configs, paths, |path, model| maps.push((path, model)))?;
    Ok(CommentMaps { maps, errors })
}

/// Files modelled at a time, and their bytes: the models held at once, however
/// many files a run maps (a file larger than the bytes is modelled alone).
const MODELLED_AT_ONCE: (usize, u64) = (64, 4 * 1024 * 1024);

/// `named` cut into runs of files modelled together, in order, each within
/// [`MODELLED_AT_ONCE`].
fn batches<T>(named: &[(PathBuf, T)]) -> Vec<&[(PathBuf, T)]> {
    let (most, bytes) = MODELLED_AT_ONCE;
    let mut batches = Vec::new();
    let (mut start, mut taken) = (0, 0);
    for (at, (path, _)) in named.iter().enumerate() {
        let size = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
        if at > start && (at - start == most || taken + size > bytes) {
            batches.push(&named[start..at]);
            (start, taken) = (at, 0);
        }
        taken += size;
    }
    if start < named.len() {
        batches.push(&named[start..]);
    }
    batches
}

/// [`comment_maps`] one file at a time: hands each file's model to `each`, in the
/// order `comment_maps` lists them, holding the models of at most
/// [`MODELLED_AT_ONCE`] files (`tether map` prints each as it comes); returns the
/// errors.
pub(crate) fn each_comment_map<P: AsRef<Path>>(
    configs: impl Into<ConfigSource>,
    paths: &[P],
    mut each: impl FnMut(PathBuf, Result<crate::yaml::model::FileModel, crate::error::Error>),
) -> Result<Vec<String>, crate::error::Error> {
    use rayon::prelude::*;
    let inputs: Vec<PathBuf> = paths
        .iter()
        .map(|path| path.as_ref().to_path_buf())
        .collect();
    let mut resolver = configs.into().resolver(walk::covered(&inputs))?;
    let mut errors = Vec::new();
    let mut named: Vec<(PathBuf, Arc<Config>)> = Vec::new();
    for path in paths.iter().map(AsRef::as_ref) {
        if !path.is_dir() {
            match resolver.config_for(&crate::paths::absolute(path)) {
                Ok(resolved) => named.push((path.to_path_buf(), resolved.config)),
                Err(error) => errors.push(error.to_string()),
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
    for chunk in batches(&named) {
        let models: Vec<_> = chunk
            .par_iter()
            .map(|(path, config)| comment_map_with(config, path))
            .collect();
        for ((path, _), model) in chunk.iter().zip(models) {
            each(path.clone(), model);
        }
    }
    Ok(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of files modelled together keep the order and stay within the count and
    /// the bytes; a file larger than the bytes is modelled alone.
    #[test]
    fn files_are_modelled_in_bounded_runs() {
        let dir = tempfile::tempdir().unwrap();
        let (most, bytes) = MODELLED_AT_ONCE;
        let sizes = [
            10,
            10,
            bytes as usize,
            10,
            bytes as usize / 2,
            bytes as usize / 2 + 1,
        ];
        let mut named: Vec<(PathBuf, ())> = sizes
            .iter()
            .enumerate()
            .map(|(n, size)| {
                let path = dir.path().join(format!("{n}.yaml"));
                std::fs::write(&path, vec![b'#'; *size]).unwrap();
                (path, ())
            })
            .collect();
        let lengths: Vec<usize> = batches(&named).iter().map(|batch| batch.len()).collect();
        assert_eq!(lengths, [2, 1, 2, 1]);
        let small = dir.path().join("small.yaml");
        std::fs::write(&small, "a: 1\n").unwrap();
        named = vec![(small, ()); most * 2 + 1];
        let lengths: Vec<usize> = batches(&named).iter().map(|batch| batch.len()).collect();
        assert_eq!(lengths, [most, most, 1]);
    }
}
