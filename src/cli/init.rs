//! `tether init`: a starter `tether.toml`, and tether's files in a chart's
//! `.helmignore`.

use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::settings::config::Config;

use super::common::exit;

pub(super) fn init(folder: &Path, force: bool, helmignore: bool) -> Result<u8, String> {
    let path = folder.join("tether.toml");
    // Never written through a link, dangling or not.
    match path.symlink_metadata() {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(format!(
                "{} is a symlink; tether writes only a regular tether.toml",
                path.display()
            ));
        }
        Ok(_) if !force => {
            return Err(format!(
                "{} already exists; pass --force to overwrite it",
                path.display()
            ));
        }
        _ => {}
    }
    let starter = Config::starter_toml_in(folder);
    std::fs::write(&path, &starter)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    println!(
        "wrote {}; run `tether check {}`",
        path.display(),
        folder.display()
    );
    if let Some(line) = starter.lines().find(|line| line.starts_with("extend = ")) {
        println!("it extends the configuration above it ({line})");
    }
    offer_helmignore(folder, helmignore)
}

/// What `helm package` would pack of tether's in a chart folder, as `.helmignore`
/// lines.
const HELMIGNORED: [&str; 3] = ["tether.toml", ".tether_cache/", "snapshots/"];

/// In a chart folder, adds tether's files to `.helmignore` (with `--helmignore`, or
/// when the person at the terminal says yes), or says which lines it lacks.
fn offer_helmignore(folder: &Path, add: bool) -> Result<u8, String> {
    if !folder.join("Chart.yaml").is_file() {
        return Ok(exit::OK);
    }
    let file = folder.join(".helmignore");
    if file.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        eprintln!(
            "note: {} is not a regular file; add {} to it yourself so `helm package` leaves them out",
            file.display(),
            HELMIGNORED.join(", ")
        );
        return Ok(exit::OK);
    }
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let listed: Vec<&str> = text.lines().map(str::trim).collect();
    let missing: Vec<&str> = HELMIGNORED
        .iter()
        .copied()
        .filter(|entry| {
            let bare = entry.trim_end_matches('/');
            !listed.iter().any(|line| *line == *entry || *line == bare)
        })
        .collect();
    if missing.is_empty() {
        return Ok(exit::OK);
    }
    let add = add
        || (std::io::stdin().is_terminal()
            && std::io::stderr().is_terminal()
            && {
                eprint!(
                    "{} is a chart folder: `helm package` would pack {}; add them to .helmignore? [y/N] ",
                    folder.display(),
                    missing.join(", ")
                );
                let mut answer = String::new();
                std::io::stdin().read_line(&mut answer).is_ok()
                    && matches!(answer.trim(), "y" | "Y" | "yes")
            });
    if !add {
        eprintln!(
            "note: {} is a chart folder and its .helmignore does not list {}: `helm package` would pack them; add those lines, or run `tether init --helmignore`",
            folder.display(),
            missing.join(", ")
        );
        return Ok(exit::OK);
    }
    let mut lines = String::new();
    if !text.is_empty() && !text.ends_with('\n') {
        lines.push('\n');
    }
    lines.push_str("# tether's files (tether init)\n");
    for entry in &missing {
        lines.push_str(entry);
        lines.push('\n');
    }
    // Appended to the regular file checked above, or written new where nothing is
    // (a link there, dangling or not, makes `create_new` fail).
    let mut options = std::fs::OpenOptions::new();
    if text.is_empty() && file.symlink_metadata().is_err() {
        options.write(true).create_new(true);
    } else {
        options.append(true);
    }
    options
        .open(&file)
        .and_then(|mut opened| opened.write_all(lines.as_bytes()))
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    println!("added {} to {}", missing.join(", "), file.display());
    Ok(exit::OK)
}
