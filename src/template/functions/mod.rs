//! The functions a Helm chart template may call, each with its signature, a
//! one-line summary and where it comes from: the table behind completion and
//! hover in the editor, and behind the rule that reports unknown functions and
//! wrong argument counts.
//!
//! A template sees three sets of functions, later ones replacing earlier ones of
//! the same name:
//!
//! - Go's `text/template` builtins (`and`, `eq`, `printf`, …), as of Go 1.18;
//! - Sprig v3.3.0 (`github.com/Masterminds/sprig/v3`, the version Helm 3.16.0
//!   and later and Helm 4 build with): its `genericMap` in `functions.go`, less
//!   `env` and `expandenv`, which Helm deletes. Sprig's `slice` replaces Go's
//!   builtin of that name, so `slice` is listed once, as Sprig's;
//! - Helm's own (`pkg/engine/funcs.go` and `pkg/engine/engine.go`), as of
//!   v3.21.4 and v4.2.4. A function Helm has added since 3.0.0 carries the
//!   release that added it. `toJson` and `fromJson` are Sprig names that every
//!   Helm release replaces with its own, so they are Helm's here; `mustToJson`,
//!   which Helm 4.0.0 replaced with an equivalent, stays Sprig's, since every
//!   release has it. `fail` and `getHostByName` are Sprig's, though Helm wraps
//!   them at each render (no failure while linting, no DNS unless enabled).
//!
//! Each signature follows the Go parameter list of the function Helm calls, so
//! its arity is the one Go's template engine checks: a Go variadic parameter is
//! written `NAME...` and takes any number of arguments, even where the function
//! itself wants a few (`dig`, `seq`, `round`'s rounding point).
//!
//! To update: take the name list from `genericMap` in Sprig's `functions.go` at
//! the tag `helm`'s `go.mod` names, and the `extra` map in `pkg/engine/funcs.go`
//! (and the overrides in `engine.go`) at the newest Helm 3 and Helm 4 tags; read
//! each function's parameters from its Go source; then fix the counts the tests
//! below pin.

pub(crate) use function::{Function, Origin};

mod function;

/// The function `name`, if a template may call it.
pub(crate) fn lookup(name: &str) -> Option<&'static Function> {
    let table: &'static [Function] = FUNCTIONS;
    table
        .binary_search_by(|function| function.name.cmp(name))
        .ok()
        .map(|index| &table[index])
}

pub(crate) use table::FUNCTIONS;

mod table;

#[cfg(test)]
mod tests {
    use super::*;

    fn count(wanted: fn(Origin) -> bool) -> usize {
        FUNCTIONS
            .iter()
            .filter(|function| wanted(function.origin))
            .count()
    }

    #[test]
    fn the_table_is_sorted_by_name_without_duplicates() {
        for pair in FUNCTIONS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} comes before {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn the_count_of_each_origin_is_pinned() {
        // Sprig's 211 names, less `env` and `expandenv` (Helm deletes them) and
        // `toJson` and `fromJson` (Helm replaces them with its own).
        assert_eq!(count(|origin| origin == Origin::Sprig), 207);
        // Go's 19 builtins, less `slice` (Sprig's replaces it).
        assert_eq!(count(|origin| origin == Origin::Go), 18);
        assert_eq!(count(|origin| origin == Origin::Helm), 8);
        assert_eq!(count(|origin| matches!(origin, Origin::HelmSince(_))), 7);
        assert_eq!(FUNCTIONS.len(), 240);
    }

    #[test]
    fn helm_functions_carry_the_release_that_added_them() {
        let since: Vec<(&str, &str)> = FUNCTIONS
            .iter()
            .filter_map(|function| match function.origin {
                Origin::HelmSince(version) => Some((function.name, version)),
                _ => None,
            })
            .collect();
        assert_eq!(
            since,
            [
                ("fromJsonArray", "3.2.0"),
                ("fromToml", "3.17.0"),
                ("fromYamlArray", "3.2.0"),
                ("lookup", "3.1.0"),
                ("mustToToml", "4.2.0"),
                ("mustToYaml", "4.0.0"),
                ("toYamlPretty", "3.17.0"),
            ]
        );
    }

    #[test]
    fn helm_deletes_env_and_sprig_replaces_slice() {
        assert!(lookup("env").is_none());
        assert!(lookup("expandenv").is_none());
        assert_eq!(
            lookup("slice").map(|function| function.origin),
            Some(Origin::Sprig)
        );
        assert_eq!(
            lookup("toJson").map(|function| function.origin),
            Some(Origin::Helm)
        );
    }

    #[test]
    fn lookup_finds_every_function_and_nothing_else() {
        for function in FUNCTIONS {
            assert_eq!(
                lookup(function.name).map(|found| found.name),
                Some(function.name)
            );
        }
        for name in ["", "Include", "toyaml", "zzz", "aaa", "duration_round"] {
            assert!(lookup(name).is_none(), "{name}");
        }
    }

    #[test]
    fn arity_follows_the_signature() {
        let arity = |name: &str| lookup(name).map(Function::arity);
        assert_eq!(arity("trunc"), Some((2, Some(2))));
        assert_eq!(arity("list"), Some((0, None)));
        assert_eq!(arity("default"), Some((1, None)));
        assert_eq!(arity("include"), Some((2, Some(2))));
        assert_eq!(arity("printf"), Some((1, None)));
        assert_eq!(arity("now"), Some((0, Some(0))));
        assert_eq!(arity("lookup"), Some((4, Some(4))));
        assert_eq!(arity("round"), Some((2, None)));
        let optional = Function {
            name: "f",
            signature: "f A [B]",
            summary: "",
            origin: Origin::Go,
        };
        assert_eq!(optional.arity(), (1, Some(2)));
    }

    #[test]
    fn source_names_the_origin() {
        let source = |name: &str| lookup(name).map(Function::source);
        assert_eq!(source("eq").as_deref(), Some("Go text/template"));
        assert_eq!(source("trunc").as_deref(), Some("Sprig 3.3.0"));
        assert_eq!(source("include").as_deref(), Some("Helm"));
        assert_eq!(
            source("toYamlPretty").as_deref(),
            Some("Helm 3.17.0 and later")
        );
    }

    #[test]
    fn signatures_start_with_the_name_and_name_parameters_in_upper_case() {
        for function in FUNCTIONS {
            let mut words = function.signature.split(' ');
            assert_eq!(words.next(), Some(function.name), "{}", function.signature);
            let parameters: Vec<&str> = words.collect();
            for (index, parameter) in parameters.iter().enumerate() {
                let variadic = parameter.strip_suffix("...");
                assert!(
                    variadic.is_none() || index + 1 == parameters.len(),
                    "only the last parameter may end with `...`: {}",
                    function.signature
                );
                let bare = variadic.unwrap_or(parameter);
                let bare = bare
                    .strip_prefix('[')
                    .and_then(|inner| inner.strip_suffix(']'))
                    .unwrap_or(bare);
                assert!(
                    bare.starts_with(|c: char| c.is_ascii_uppercase())
                        && bare
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()),
                    "{}",
                    function.signature
                );
            }
        }
    }

    #[test]
    fn summaries_are_one_short_line_without_a_period() {
        for function in FUNCTIONS {
            let summary = function.summary;
            assert!(!summary.is_empty(), "{}", function.name);
            assert!(summary.len() <= 90, "{}: {summary}", function.name);
            assert!(
                !summary.ends_with('.') && !summary.contains('\n'),
                "{}",
                function.name
            );
            assert!(
                summary.starts_with(|c: char| c.is_ascii_uppercase()),
                "{}",
                function.name
            );
        }
    }
}
