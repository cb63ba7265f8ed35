//! The library's errors are typed: a caller matches on what went wrong, not on
//! the words of a message (issue 40). Each message is the one the command line
//! prints.

use helm_tether::{ChangesError, CheckOptions, Config, Error, RuleNameError};

/// `--select` with a mistyped rule, `--ignore` of a rule that is always on, and
/// `--changed-since` with a revision git would read as an option.
#[test]
fn errors_name_what_went_wrong() {
    let mut config = Config::from_toml("").unwrap();
    let unknown = config.select(&["detached".to_string()]).unwrap_err();
    assert!(
        matches!(
            &unknown,
            Error::RuleName(RuleNameError::Unknown {
                name,
                nearest: Some("detached-comment"),
                ..
            }) if name == "detached"
        ),
        "{unknown:?}"
    );
    assert_eq!(
        unknown.to_string(),
        "unknown rule `detached` in --select; did you mean `detached-comment`? `tether rules` lists every rule"
    );
    let always_on = config.ignore(&["read-error".to_string()]).unwrap_err();
    assert!(
        matches!(&always_on, Error::RuleName(RuleNameError::AlwaysOn { name }) if name == "read-error"),
        "{always_on:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let options = CheckOptions::default().changed_since(helm_tether::ChangedSince::new(
        dir.path(),
        "--output=/tmp/x",
    ));
    let changes = helm_tether::check_paths(Config::from_toml("").unwrap(), &[dir.path()], &options)
        .unwrap_err();
    assert!(
        matches!(&changes, Error::Changes(ChangesError::OptionLike { revision }) if revision == "--output=/tmp/x"),
        "{changes:?}"
    );
}
