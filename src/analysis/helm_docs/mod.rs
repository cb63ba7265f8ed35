//! What helm-docs (v1.14, on gopkg.in/yaml.v3 v3.0.1) makes of a values.yaml's
//! comments: which `# --` description each key gets, and where every other `# --`
//! comment goes instead.
//!
//! helm-docs reads a key's description from the key's yaml.v3 `HeadComment`, so the
//! simulation has two halves. The first replays how yaml.v3's scanner splits each run
//! of comment lines into the foot of the content above it and the head of the token
//! below it (`yaml_parser_scan_comments`: a run right under content and followed by a
//! blank line is a foot; a run that a dedent cuts off is a foot; the head of a
//! document's first key is split at its last blank line). It reads tether's model for
//! the keys and comments and the file's lines for the rest, one pass over the file.
//! The second half replays helm-docs' `ParseComment` on each head (only the last
//! `# --` group counts; continuation lines are appended; `@default`, `@section`,
//! `@raw`, `@notationType` and `##` lines are not text; a second ` -- ` on the first
//! line makes it a keyed comment, which helm-docs drops), its `@ignore` removal, and
//! its older line scanner for `# key.path -- text`, which wins over `# --`.

mod describe;
mod gap;
mod lex;
mod lines;
mod parse;
mod paths;
mod split;
mod types;

pub(crate) use parse::is_marker;
pub use paths::helm_docs_path;
pub use types::{Destination, HelmDocs, Marker};

use crate::source::SourceFile;
use crate::yaml::model::FileModel;

/// Simulates helm-docs on a plain values.yaml: `source` is the file, `model` its
/// tether model (plain YAML, not masked).
///
/// Only the file's first YAML document is read, as helm-docs does. The work is one
/// pass over the lines plus one over the keys and comments.
///
/// A description and a foot comment: see `tests::a_description_and_a_foot`.
pub fn simulate(source: &SourceFile, model: &FileModel) -> HelmDocs {
    let file = lines::FileLines::new(source, model);
    let keys = lines::keys_of(source, model);
    let split = split::split_comments(&file, &keys);
    let old_style = parse::old_style_descriptions(&source.text);
    describe::describe(&file, &keys, split, &old_style)
}

#[cfg(test)]
mod tests {
    //! The cases of the research notes (A–Q), each checked against helm-docs'
    //! comment logic running on the real gopkg.in/yaml.v3 v3.0.1.

    use super::parse::description_match;
    use super::*;

    #[test]
    fn a_description_and_a_foot() {
        let yaml =
            "# -- Pods to run\nreplicas: 1\nimage: x\n# -- lost: a foot of `image`\n\ntag: v1\n";
        let source = SourceFile::from_text("values.yaml", yaml);
        let model =
            crate::yaml::model::FileModel::from_bytes("values.yaml", yaml.as_bytes().to_vec());
        let docs = simulate(&source, &model);
        assert_eq!(docs.descriptions["replicas"].text, "Pods to run");
        assert_eq!(docs.markers[1].destination, Destination::Foot);
    }

    fn run(yaml: &str) -> HelmDocs {
        let source = SourceFile::from_text("values.yaml", yaml);
        let model =
            crate::yaml::model::FileModel::from_bytes("values.yaml", yaml.as_bytes().to_vec());
        simulate(&source, &model)
    }

    fn descriptions(docs: &HelmDocs) -> Vec<(&str, &str)> {
        docs.descriptions
            .iter()
            .map(|(key, description)| (key.as_str(), description.text.as_str()))
            .collect()
    }

    fn markers(docs: &HelmDocs) -> Vec<(usize, Destination)> {
        docs.markers
            .iter()
            .map(|marker| (marker.line, marker.destination.clone()))
            .collect()
    }

    fn key(path: &str) -> Destination {
        Destination::Key(path.to_string())
    }

    #[test]
    fn a_commented_yaml_after_the_marker_is_appended() {
        let docs = run("controller:\n  # -- TCP services\n  # tcp:\n  #   8080: svc\n  tcp: {}\n");
        assert_eq!(
            descriptions(&docs),
            [("controller.tcp", "TCP services tcp:   8080: svc")]
        );
        assert_eq!(docs.descriptions["controller.tcp"].lines, 1..4);
        assert_eq!(markers(&docs), [(1, key("controller.tcp"))]);
    }

    #[test]
    fn b_blank_lines_after_a_block_do_not_stop_it() {
        let docs = run(
            "service:\n  type: ClusterIP\n\n  # -- targetPort desc\n  # targetPort:\n\n  annotations: {}\n",
        );
        assert_eq!(
            descriptions(&docs),
            [("service.annotations", "targetPort desc targetPort:")]
        );
        assert_eq!(markers(&docs), [(3, key("service.annotations"))]);
    }

    #[test]
    fn c_a_block_right_under_content_and_before_a_blank_is_a_foot() {
        let docs = run(
            "service:\n  type: ClusterIP\n  # -- targetPort desc\n  # targetPort:\n\n  annotations: {}\n",
        );
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(2, Destination::Foot)]);
    }

    #[test]
    fn d_only_the_last_group_counts() {
        let docs = run(
            "# -- before\nbefore: ~\n\n# -- commented\n#commented: ~\n\n# -- after\nafter: ~\n",
        );
        assert_eq!(
            descriptions(&docs),
            [("after", "after"), ("before", "before")]
        );
        assert_eq!(
            markers(&docs),
            [
                (0, key("before")),
                (3, Destination::Superseded { by_line: 6 }),
                (6, key("after")),
            ]
        );
    }

    #[test]
    fn e_a_foot_unless_a_blank_line_separates_it_from_the_content_above() {
        let lost = run("a: 1\nz: 1\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&lost), []);
        assert_eq!(markers(&lost), [(2, Destination::Foot)]);
        let kept = run("a: 1\n\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&kept), [("b", "desc b")]);
    }

    #[test]
    fn f_the_first_key_loses_a_block_followed_by_a_blank_line() {
        let lost = run("# -- desc a\n\na: 1\n");
        assert_eq!(descriptions(&lost), []);
        assert_eq!(markers(&lost), [(0, Destination::DocumentHead)]);
        let kept = run("# header\n\n# -- d\na: 1\n");
        assert_eq!(descriptions(&kept), [("a", "d")]);
    }

    #[test]
    fn g_a_block_at_child_indentation_before_a_dedent_is_a_foot() {
        let docs = run("a:\n  x: 1\n\n  # -- desc z\n  # z: 3\n\nb: 2\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(3, Destination::Foot)]);
    }

    #[test]
    fn h_a_dedented_block_before_a_blank_line_is_a_foot() {
        let lost = run("a:\n  x: 1\n# -- desc b\n\nb: 2\n");
        assert_eq!(markers(&lost), [(2, Destination::Foot)]);
        let kept = run("a:\n  x: 1\n# -- desc b\nb: 2\n");
        assert_eq!(descriptions(&kept), [("b", "desc b")]);
    }

    #[test]
    fn i_a_block_at_the_end_of_the_file_is_a_foot() {
        let docs = run("a: 1\n# -- desc for commented b\n# b: 2\n");
        assert_eq!(markers(&docs), [(1, Destination::Foot)]);
    }

    #[test]
    fn j_sequence_items() {
        let lost = run("l:\n  - x\n  # -- desc y\n\n  - y\n");
        assert_eq!(markers(&lost), [(2, Destination::Foot)]);
        let kept = run("l:\n  - x\n  # -- desc y\n  - y\n");
        assert_eq!(descriptions(&kept), [("l[1]", "desc y")]);
    }

    #[test]
    fn k_a_second_dashes_make_a_keyed_comment_and_other_spellings_are_no_markers() {
        let docs =
            run("# -- Use this -- or that\na: 1\n## -- x\nb: 2\n#   -- x\nc: 3\n#-- x\nd: 4\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(0, Destination::Keyed)]);
    }

    #[test]
    fn l_the_head_of_a_mapping_item_describes_the_item() {
        let docs = run(
            "paths:\n  # -- first path\n  - path: /\n    # -- pathType\n    pathType: Prefix\n",
        );
        assert_eq!(
            descriptions(&docs),
            [
                ("paths[0]", "first path"),
                ("paths[0].pathType", "pathType")
            ]
        );
    }

    #[test]
    fn m_line_comments_never_count() {
        let docs = run("a: 1 # -- line desc\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(0, Destination::LineComment)]);
    }

    #[test]
    fn n_ignore_removes_the_key_even_from_a_superseded_group() {
        let docs = run("# -- never @ignore this\na: 1\nb: 2\n");
        assert_eq!(markers(&docs), [(0, Destination::Ignored)]);
        let docs = run("a: 1\n\n# -- old @ignore\n\n# -- kept\nb: 2\nc: 3\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(
            markers(&docs),
            [(2, Destination::Ignored), (4, Destination::Ignored)]
        );
    }

    #[test]
    fn n_an_ignored_item_moves_the_next_items_up() {
        let docs = run("l:\n  - a\n  # @ignore\n  - b\n  # -- third\n  - c\n");
        assert_eq!(descriptions(&docs), [("l[1]", "third")]);
    }

    #[test]
    fn o_indentation_does_not_matter_in_the_middle_of_a_block() {
        let docs =
            run("a:\n  x: 1\n# -- desc y at col 0\n  y: 2\n    # -- desc z deeper\n  z: 3\n");
        assert_eq!(
            descriptions(&docs),
            [("a.y", "desc y at col 0"), ("a.z", "desc z deeper")]
        );
    }

    #[test]
    fn p_old_style_wins_wherever_it_is() {
        let docs = run("# a.b -- old style\nc: 1\na:\n  # -- new\n  b: 2\n");
        assert_eq!(descriptions(&docs), [("a.b", "old style")]);
        assert_eq!(docs.descriptions["a.b"].lines, 0..1);
        assert_eq!(
            markers(&docs),
            [(3, Destination::Superseded { by_line: 0 })]
        );
    }

    #[test]
    fn q_default_and_section_above_the_first_key_are_lost_too() {
        let docs = run("# -- d\n# @default -- X\n# @section -- S\n\n# unrelated\na: 1\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(0, Destination::DocumentHead)]);
    }

    #[test]
    fn type_default_hidden_and_raw_lines() {
        let docs = run(
            "a:\n  # -- (int) typed\n  # @default -- 5\n  ## hidden\n  # more\n  # @raw\n  # - item\n  b: 1\n",
        );
        assert_eq!(descriptions(&docs), [("a.b", "typed more\n- item")]);
        assert_eq!(docs.descriptions["a.b"].lines, 1..7);
    }

    #[test]
    fn a_head_above_an_explicit_document_start_reaches_the_first_key() {
        let docs = run("# -- d\n---\na: 1\n");
        assert_eq!(descriptions(&docs), [("a", "d")]);
    }

    #[test]
    fn only_the_first_document_counts() {
        let docs = run("a: 1\n---\n# -- b\nb: 2\n");
        assert_eq!(descriptions(&docs), []);
        assert_eq!(markers(&docs), [(2, Destination::Foot)]);
    }

    #[test]
    fn no_foot_line_after_a_quoted_scalar_on_the_first_line() {
        let docs = run("a: \"1\"\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&docs), [("b", "desc b")]);
        let docs = run("z: 1\na: \"1\"\n# -- desc b\n\nb: 2\n");
        assert_eq!(descriptions(&docs), []);
    }

    #[test]
    fn helm_docs_turns_crlf_into_lf_before_yaml_v3_reads_the_file() {
        let docs = run("a:\r\n  x: 1\r\n  # -- desc y\r\n  y: 2\r\n");
        assert_eq!(descriptions(&docs), [("a.y", "desc y")]);
    }

    #[test]
    fn an_item_with_only_an_anchor_gives_its_head_to_its_first_key() {
        let docs = run("objects:\n  # -- the first\n  - &base\n    kind: A\n");
        assert_eq!(descriptions(&docs), [("objects[0].kind", "the first")]);
    }

    #[test]
    fn flow_items_take_heads_too() {
        let docs = run("a:\n  # -- in flow\n  b: [x,\n    # -- y\n    y]\n");
        assert_eq!(descriptions(&docs), [("a.b", "in flow"), ("a.b[1]", "y")]);
    }

    #[test]
    fn quoted_segments() {
        let docs = run("\"x.y\":\n  # -- dotted\n  \"s p\": 1\n");
        assert_eq!(descriptions(&docs), [("\"x.y\".\"s p\"", "dotted")]);
    }

    #[test]
    fn helm_docs_paths() {
        assert_eq!(helm_docs_path("a.b"), "a.b");
        assert_eq!(helm_docs_path("a[0].b[12]"), "a[0].b[12]");
        assert_eq!(helm_docs_path("a[0][1]"), "a[0][1]");
        assert_eq!(helm_docs_path(r#"a["b.c"].d"#), r#"a."b.c".d"#);
        assert_eq!(helm_docs_path(r#"["a b"][0]"#), r#""a b"[0]"#);
        assert_eq!(helm_docs_path(r#"a["x[1]"]"#), "a.x[1]");
        assert_eq!(helm_docs_path(r#"a["x\"y"]"#), r#"a.x"y"#);
        assert_eq!(helm_docs_path(r#"a["say \"hi\""]"#), r#"a."say "hi"""#);
        assert_eq!(helm_docs_path(r#"a[""]"#), "a.");
    }

    #[test]
    fn description_regex_takes_the_last_dashes_after_whitespace() {
        assert_eq!(description_match("# -- text"), Some(("", "text")));
        assert_eq!(description_match("# --"), Some(("", "")));
        assert_eq!(description_match("# --- x"), Some(("", "- x")));
        assert_eq!(description_match("# -- a -- b"), Some(("-- a", "b")));
        assert_eq!(
            description_match("  # a.b  -- text"),
            Some(("a.b ", "text"))
        );
        assert_eq!(description_match("## -- x"), Some(("#", "x")));
        assert_eq!(description_match("#-- x"), None);
        assert_eq!(description_match("a: 1 # -- x"), None);
    }
}
