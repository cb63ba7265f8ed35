//! Snapshot tests of the comment model: one snapshot of `tether map`'s text form per
//! fixture in `tests/fixtures/map/`.

use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/map")
}

/// The text form of a fixture's model, with the path relative to the fixtures folder.
fn map_text(relative: &str) -> String {
    let bytes = std::fs::read(fixtures_dir().join(relative)).expect("fixture is readable");
    let model = helm_tether::FileModel::from_bytes(relative, bytes);
    model.to_string()
}

macro_rules! fixtures {
    ($($name:ident => $path:literal,)*) => {
        $(
            #[test]
            fn $name() {
                insta::with_settings!({
                    snapshot_path => "../../snapshots",
                    prepend_module_to_snapshot => false,
                    omit_expression => true,
                }, {
                    insta::assert_snapshot!(concat!("map__", stringify!($name)), map_text($path));
                });
            }
        )*

        const LISTED: &[&str] = &[$($path),*];
    };
}

fixtures! {
    leading => "templates/leading.yaml",
    trailing => "templates/trailing.yaml",
    nested_first_key => "templates/nested-first-key.yaml",
    end_of_block => "templates/end-of-block.yaml",
    sequence_items => "templates/sequence-items.yaml",
    header_and_blank_line => "templates/header-and-blank-line.yaml",
    guards => "templates/guards.yaml",
    detached => "templates/detached.yaml",
    template_comments => "templates/template-comments.yaml",
    escaped_and_strings => "templates/escaped-and-strings.yaml",
    action_keys => "templates/action-keys.yaml",
    range_documents => "templates/range-documents.yaml",
    flow_if => "templates/flow-if.yaml",
    if_else_same_key => "templates/if-else-same-key.yaml",
    include_documents => "templates/include-documents.yaml",
    block_scalar_directives => "templates/block-scalar-directives.yaml",
    helpers_tpl => "templates/helpers.tpl",
    unterminated_action => "templates/unterminated-action.yaml",
    unterminated_comment => "templates/unterminated-comment.yaml",
    tool_directives => "templates/tool-directives.yaml",
    define_after_block_scalar => "templates/define-after-block-scalar.tpl",
    branch_shapes => "templates/branch-shapes.yaml",
    culprit_line => "templates/culprit-line.yaml",
    values_directives => "plain/values-directives.yaml",
    values => "plain/values.yaml",
    crlf => "plain/crlf.yaml",
    lf => "plain/lf.yaml",
    bom => "plain/bom.yaml",
    tabs => "plain/tabs.yaml",
    invalid_utf8 => "plain/invalid-utf8.yaml",
    nul => "plain/nul.yaml",
    empty => "plain/empty.yaml",
}

#[test]
fn every_fixture_has_a_snapshot_test() {
    let mut found = Vec::new();
    for folder in ["templates", "plain"] {
        for entry in std::fs::read_dir(fixtures_dir().join(folder)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            found.push(format!("{folder}/{name}"));
        }
    }
    found.sort();
    let unlisted: Vec<_> = found
        .iter()
        .filter(|path| !LISTED.contains(&path.as_str()))
        .collect();
    assert!(unlisted.is_empty(), "fixtures without a test: {unlisted:?}");
}

#[test]
fn crlf_gives_the_same_model_as_lf() {
    let crlf = map_text("plain/crlf.yaml").replace("crlf.yaml", "X");
    let lf = map_text("plain/lf.yaml").replace("lf.yaml", "X");
    assert_eq!(crlf, lf);
}
