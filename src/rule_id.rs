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

/// A value for every rule, indexed by [`RuleId`], in the registry's order: the
/// settings' tables (levels, option tables, options read) hold one per rule, so a
/// rule is never looked up by a bare position.
#[derive(Clone, PartialEq, Eq)]
pub struct PerRule<T>(Vec<T>);

impl<T> PerRule<T> {
    /// `value(rule)` for every rule.
    pub fn from_fn(value: impl FnMut(RuleId) -> T) -> PerRule<T> {
        PerRule(RuleId::ALL.iter().copied().map(value).collect())
    }

    /// Every rule with its value, in the registry's order.
    pub fn iter(&self) -> impl Iterator<Item = (RuleId, &T)> {
        RuleId::ALL.iter().copied().zip(&self.0)
    }

    /// Every rule with its value, to change, in the registry's order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (RuleId, &mut T)> {
        RuleId::ALL.iter().copied().zip(&mut self.0)
    }

    /// A value for every rule made from this one's.
    pub fn map<U>(&self, mut value: impl FnMut(RuleId, &T) -> U) -> PerRule<U> {
        PerRule(self.iter().map(|(rule, old)| value(rule, old)).collect())
    }
}

impl<T> std::ops::Index<RuleId> for PerRule<T> {
    type Output = T;

    fn index(&self, rule: RuleId) -> &T {
        &self.0[rule as usize]
    }
}

impl<T> std::ops::IndexMut<RuleId> for PerRule<T> {
    fn index_mut(&mut self, rule: RuleId) -> &mut T {
        &mut self.0[rule as usize]
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for PerRule<T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_map().entries(self.iter()).finish()
    }
}
