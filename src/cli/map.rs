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
    // Each model is printed as it comes, and dropped.
    let mut code = exit::OK;
    let mut printed = true;
    let mut json = crate::report::map::JsonMap::default();
    let mut texts = 0;
    let each = |_: PathBuf, model: Result<crate::yaml::model::FileModel, crate::error::Error>| {
        if !printed {
            return;
        }
        let model = match model {
            Ok(model) => model,
            Err(error) => {
                say_error(&error);
                code = exit::TROUBLE;
                return;
            }
        };
        printed &= match format {
            MapFormat::Text => {
                let separator = if texts == 0 { "" } else { "\n" };
                texts += 1;
                print_text(&format!("{separator}{model}"))
            }
            MapFormat::Json => print_out(&json.file(&model)),
        };
    };
    match crate::linter::maps::each_comment_map(configs, paths, each) {
        Ok(errors) => {
            for message in errors {
                say_error(&message);
                code = exit::TROUBLE;
            }
        }
        Err(error) => {
            say_error(&error);
            return exit::TROUBLE;
        }
    }
    if format == MapFormat::Json {
        printed &= print_out(&(json.end() + "\n"));
    }
    if !printed {
        return exit::TROUBLE;
    }
    code
}
