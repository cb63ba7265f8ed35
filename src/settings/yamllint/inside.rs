//! Whether a path a configuration names stays inside the repository.

use std::path::{Path, PathBuf};

/// Whether `path` (relative paths from the working directory) stays inside `top`:
/// by its components, whether or not it exists, and where it exists through links
/// too.
pub(super) fn within(top: &Path, path: &Path) -> bool {
    let top = crate::paths::absolute(top);
    let joined = std::env::current_dir()
        .map(|current| current.join(path))
        .unwrap_or_else(|_| path.to_path_buf());
    let mut lexical = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            std::path::Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    // `top` is canonical; the lexical path may hold a link above the repository
    // (`/tmp` → `/private/tmp`): compare it canonicalised as far as it exists.
    let lexical_inside =
        lexical.starts_with(&top) || crate::paths::absolute(&lexical).starts_with(&top);
    lexical_inside && (!path.exists() || crate::paths::absolute(path).starts_with(&top))
}

pub(super) fn outside(what: &str, top: &Path) -> String {
    format!(
        "`{what}` is outside {}; tether reads yamllint and chart-testing configurations only inside the repository it checks",
        top.display()
    )
}
