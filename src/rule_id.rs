//! The identity of a rule as a type: [`RuleId`], one variant per registered rule,
//! generated from the list in `rule_list.rs`. Its name, `Display` and serde forms
//! are in `rules/mod.rs`, beside the registry that holds the names; this file
//! imports only the list, a leaf, so any module can name a rule without importing
//! the rules.

use crate::rule_list::with_rules;

macro_rules! rule_ids {
    ($($module:ident :: $rule:ident),* $(,)?) => {
        /// A registered rule. Written and read by its kebab-case name
        /// (`comment-indentation`) in every output and configuration.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum RuleId {
            $(
                #[doc = concat!("`", stringify!($module), "`")]
                $rule,
            )*
        }

        impl RuleId {
            /// Every rule, in the registry's order.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$rule),*];
        }
    };
}

with_rules!(rule_ids);
