//! `tether rules [NAME]` and `tether man [SUBCOMMAND]`: the documentation the
//! binary carries.

use clap::CommandFactory;

use super::args::Args;
use super::common::{exit, print_out};

pub(super) fn rules(name: Option<&str>) -> Result<u8, String> {
    match name {
        None => {
            let rules = crate::rules::RuleInfo::all();
            let width = rules.iter().map(|rule| rule.name.len()).max().unwrap_or(0);
            for rule in rules {
                println!(
                    "{:width$}  {:5}  {}",
                    rule.name,
                    rule.default_level.as_str(),
                    rule.summary
                );
            }
            Ok(exit::OK)
        }
        Some(name) => {
            let rule = crate::rules::RuleInfo::named(name)
                .ok_or_else(|| crate::rules::unknown_rule(name, "").to_string())?;
            print!("{}", rule.page);
            Ok(exit::OK)
        }
    }
}

/// `tether man [SUBCOMMAND]`: the page of tether, or of `tether-SUBCOMMAND`, which
/// the first lists; so every page it names exists.
pub(super) fn man(subcommand: Option<&str>) -> Result<u8, String> {
    let mut command = Args::command();
    // Building names each subcommand `tether-NAME`, the name of its page.
    command.build();
    let page = match subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => sub.clone().version(env!("TETHER_VERSION")),
            None => {
                let names: Vec<&str> = command
                    .get_subcommands()
                    .map(|sub| sub.get_name())
                    .collect();
                return Err(format!(
                    "no man page for `{name}`; the pages are tether and tether-NAME for NAME in: {}",
                    names.join(", ")
                ));
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|error| format!("cannot render the man page: {error}"))?;
    Ok(if print_out(&String::from_utf8_lossy(&roff)) {
        exit::OK
    } else {
        exit::TROUBLE
    })
}
