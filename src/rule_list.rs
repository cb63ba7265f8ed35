//! The registry's list of rules, in the order `tether rules` lists them: the one
//! place a rule is registered. [`with_rules!`] hands the list to a macro, so the
//! rule ids (`rule_id.rs`) and the registry (`rules/mod.rs`) are generated from it and cannot
//! disagree. This file imports nothing.

/// Calls `$then!` with every registered rule as `module::Type`, in order.
macro_rules! with_rules {
    ($then:ident) => {
        $then!(
            required_comment::RequiredComment,
            detached_comment::DetachedComment,
            comment_starting_space::CommentStartingSpace,
            inline_comment_spacing::InlineCommentSpacing,
            comment_indentation::CommentIndentation,
            undocumented_value::UndocumentedValue,
            orphan_value_doc::OrphanValueDoc,
            parse_problem::ParseProblem,
            read_error::ReadError,
            finding_limit::FindingLimit,
            stale_version_reference::StaleVersionReference,
            undefined_value::UndefinedValue,
            unused_value::UnusedValue,
            recovered_template::RecoveredTemplate,
            unused_suppression::UnusedSuppression,
            undefined_template::UndefinedTemplate,
            glued_comment::GluedComment,
            template_error::TemplateError,
        );
    };
}
pub(crate) use with_rules;
