//! Where a failure of a run points: the file, line and column a message such as
//! `tether.toml:3:1: unknown rule` names, for the machine formats (GitHub
//! annotations, SARIF notifications). A leaf: the renderers import it, it imports
//! none of them.

/// Where a failure message points, when it starts with `PATH:LINE:COL: ` (a
/// configuration error): the path relative to `base` (a relative one is taken from
/// the working directory, where it was printed), the line, the column, and the rest
/// of the message.
pub(crate) fn failure_location(
    failure: &str,
    base: &std::path::Path,
) -> Option<(String, usize, usize, String)> {
    let (path, rest) = failure.split_once(':')?;
    let (line, rest) = rest.split_once(':')?;
    let (column, message) = rest.split_once(": ")?;
    let line: usize = line.parse().ok()?;
    let column: usize = column.parse().ok()?;
    if path.is_empty() || line == 0 {
        return None;
    }
    let path = std::path::Path::new(path);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let relative = absolute.strip_prefix(base).unwrap_or(&absolute);
    Some((
        crate::paths::slashed(relative),
        line,
        column,
        message.to_string(),
    ))
}
