//! `tether map`: the comment-anchored model of files, as text or JSON.

use std::path::{Path, PathBuf};

use crate::linter::check::ConfigSource;
use crate::settings::config::Config;
use clap::ValueEnum;

use super::common::{absolute, exit, print_out, print_text, say_error};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MapFormat {
    Text,
    Json,
}

pub(super) fn map(format: MapFormat, paths: &[PathBuf]) -> u8 {
    // Each file with its own nearest configuration, as `check` finds it.
    let configs = ConfigSource::Nearest {
        fallback: Config::default_for(absolute(Path::new("."))),
        select: Vec::new(),
        ignore: Vec::new(),
    };
    let found = match crate::linter::maps::comment_maps(configs, paths) {
        Ok(found) => found,
        Err(error) => {
            say_error(&error);
            return exit::TROUBLE;
        }
    };
    let mut code = exit::OK;
    for message in found.errors {
        say_error(&message);
        code = exit::TROUBLE;
    }
    let mut models = Vec::new();
    for (_, result) in found.maps {
        match result {
            Ok(model) => models.push(model),
            Err(error) => {
                say_error(&error);
                code = exit::TROUBLE;
            }
        }
    }
    let printed = match format {
        MapFormat::Text => print_text(
            &models
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        MapFormat::Json => print_out(&(crate::report::map::map_json(&models) + "\n")),
    };
    if !printed {
        return exit::TROUBLE;
    }
    code
}
