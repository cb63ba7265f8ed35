//! What a template hands a named template it calls (`include "x" ARG`), as far as
//! values go: the root context, a value under `.Values`, a `dict` of such, or,
//! inside a define, a path into what that define was handed. The chart analysis
//! binds each define's argument at its calls and resolves the define's reads of it
//! there: with `(dict "values" .Values)`, the define's `.values.env` reads `env`.
//! With them, how a read uses the value.

/// How a read uses the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Use {
    /// The value itself, its keys and everything under them: printed, passed to a
    /// function, ranged over.
    Whole,
    /// Only whether it is there: a condition, a `with` subject, a variable binding,
    /// `hasKey`. What is under it is read only where a later read says so.
    Touch,
}

/// Nesting kept in an argument; deeper parts are [`Arg::Other`] with nothing in
/// them, so that a define that hands itself on (`include "x" (dict "a" .)`) ends.
const MAX_DEPTH: usize = 6;
/// Entries kept per `dict` or group.
const MAX_ENTRIES: usize = 32;

/// A value handed to a named template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Arg {
    /// The chart's root context: its `.Values` are the values.
    Root,
    /// A value under `.Values` (the empty path is `.Values` itself).
    Values(Vec<String>),
    /// Inside a define, a path into what the define was handed (`.context`).
    Param(Vec<String>),
    /// `dict "key" value …`.
    Dict(Vec<(String, Arg)>),
    /// Made of these by a function whose keys tether does not follow (`list`,
    /// `merge` of several): it may hold any of them, at any key. Empty, it holds
    /// nothing tether knows of.
    Other(Vec<Arg>),
}

impl Arg {
    /// Nothing tether follows.
    pub fn nothing() -> Arg {
        Arg::Other(Vec::new())
    }

    /// Whether the root context is in it, so the define reads the caller's values
    /// as its body spells them (`.Values.x`).
    pub fn carries_root(&self) -> bool {
        match self {
            Arg::Root => true,
            Arg::Values(_) | Arg::Param(_) => false,
            Arg::Dict(entries) => entries.iter().any(|(_, arg)| arg.carries_root()),
            Arg::Other(items) => items.iter().any(Arg::carries_root),
        }
    }

    /// Whether it holds values: the root context, or a value under `.Values`.
    pub fn holds_values(&self) -> bool {
        match self {
            Arg::Root | Arg::Values(_) => true,
            Arg::Param(_) => false,
            Arg::Dict(entries) => entries.iter().any(|(_, arg)| arg.holds_values()),
            Arg::Other(items) => items.iter().any(Arg::holds_values),
        }
    }

    /// Whether it holds `.Values` itself, through the root context or whole.
    pub fn holds_all_values(&self) -> bool {
        match self {
            Arg::Root => true,
            Arg::Values(path) => path.is_empty(),
            Arg::Param(_) => false,
            Arg::Dict(entries) => entries.iter().any(|(_, arg)| arg.holds_all_values()),
            Arg::Other(items) => items.iter().any(Arg::holds_all_values),
        }
    }

    /// The values paths it holds, each read whole by a define tether cannot see.
    pub fn values_paths(&self, out: &mut Vec<Vec<String>>) {
        match self {
            Arg::Values(path) => out.push(path.clone()),
            Arg::Dict(entries) => entries.iter().for_each(|(_, arg)| arg.values_paths(out)),
            Arg::Other(items) => items.iter().for_each(|arg| arg.values_paths(out)),
            Arg::Root | Arg::Param(_) => {}
        }
    }

    /// The argument with each [`Arg::Param`] replaced by what it names in
    /// `binding`, the argument of the define it is spelled in.
    pub fn bind(&self, binding: &Arg) -> Arg {
        self.bind_at(binding, 0)
    }

    fn bind_at(&self, binding: &Arg, depth: usize) -> Arg {
        if depth > MAX_DEPTH {
            return Arg::nothing();
        }
        match self {
            Arg::Param(path) => binding.at(path).bounded(depth),
            Arg::Dict(entries) => Arg::Dict(
                entries
                    .iter()
                    .map(|(key, arg)| (key.clone(), arg.bind_at(binding, depth + 1)))
                    .collect(),
            ),
            Arg::Other(items) => Arg::Other(
                items
                    .iter()
                    .map(|arg| arg.bind_at(binding, depth + 1))
                    .collect(),
            ),
            Arg::Root | Arg::Values(_) => self.clone(),
        }
    }

    /// What is at `path` of it: `.context` of `(dict "context" $)` is the root.
    pub fn at(&self, path: &[String]) -> Arg {
        let Some((first, rest)) = path.split_first() else {
            return self.clone();
        };
        match self {
            Arg::Root if first == "Values" => Arg::Values(rest.to_vec()),
            Arg::Root => Arg::nothing(),
            Arg::Values(above) => Arg::Values(above.iter().chain(path).cloned().collect()),
            Arg::Param(above) => Arg::Param(above.iter().chain(path).cloned().collect()),
            Arg::Dict(entries) => entries
                .iter()
                .rev()
                .find(|(key, _)| key == first)
                .map_or_else(Arg::nothing, |(_, arg)| arg.at(rest)),
            Arg::Other(items) => Arg::Other(
                items
                    .iter()
                    .map(|arg| arg.at(path))
                    .filter(|arg| *arg != Arg::nothing())
                    .collect(),
            ),
        }
    }

    /// The reads of values that a read of `path` of it makes, used as `use_`, into
    /// `out`; returns whether one of them is `.Values` itself read whole.
    pub fn reads(&self, path: &[String], use_: Use, out: &mut Vec<(Vec<String>, Use)>) -> bool {
        match self.at(path) {
            Arg::Values(path) => {
                let everything = path.is_empty() && use_ == Use::Whole;
                if !path.is_empty() {
                    out.push((path, use_));
                }
                everything
            }
            Arg::Dict(entries) if use_ == Use::Whole => {
                // The dict itself printed or passed on: every value it holds.
                let mut everything = false;
                for (_, arg) in entries {
                    everything |= arg.reads(&[], use_, out);
                }
                everything
            }
            Arg::Other(items) => {
                let mut everything = false;
                for arg in items {
                    everything |= arg.reads(&[], use_, out);
                }
                everything
            }
            Arg::Root | Arg::Param(_) | Arg::Dict(_) => false,
        }
    }

    /// The argument cut to the nesting and width tether keeps.
    pub(crate) fn bounded(self, depth: usize) -> Arg {
        if depth > MAX_DEPTH {
            return Arg::nothing();
        }
        match self {
            Arg::Dict(entries) => Arg::Dict(
                entries
                    .into_iter()
                    .take(MAX_ENTRIES)
                    .map(|(key, arg)| (key, arg.bounded(depth + 1)))
                    .collect(),
            ),
            Arg::Other(items) => Arg::Other(
                items
                    .into_iter()
                    .take(MAX_ENTRIES)
                    .map(|arg| arg.bounded(depth + 1))
                    .collect(),
            ),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> Vec<String> {
        text.split('.')
            .filter(|key| !key.is_empty())
            .map(String::from)
            .collect()
    }

    fn reads(arg: &Arg, at: &str, use_: Use) -> (Vec<String>, bool) {
        let mut out = Vec::new();
        let everything = arg.reads(&path(at), use_, &mut out);
        (
            out.into_iter().map(|(path, _)| path.join(".")).collect(),
            everything,
        )
    }

    #[test]
    fn a_dict_hands_on_what_it_holds() {
        let arg = Arg::Dict(vec![
            ("values".into(), Arg::Values(Vec::new())),
            ("image".into(), Arg::Values(path("server.image"))),
            ("context".into(), Arg::Root),
        ]);
        assert_eq!(reads(&arg, "values.env.name", Use::Touch).0, ["env.name"]);
        assert_eq!(reads(&arg, "image.tag", Use::Whole).0, ["server.image.tag"]);
        assert_eq!(reads(&arg, "context.Values.a", Use::Whole).0, ["a"]);
        assert_eq!(reads(&arg, "context.Release.Name", Use::Whole).0, [""; 0]);
        assert_eq!(reads(&arg, "values", Use::Whole), (Vec::new(), true));
        assert!(arg.carries_root() && arg.holds_all_values());
    }

    #[test]
    fn a_define_hands_on_what_it_was_handed() {
        // `include "inner" (dict "rootContext" .context)` in a define called with
        // `(dict "context" $)`.
        let inner = Arg::Dict(vec![("rootContext".into(), Arg::Param(path("context")))]);
        let binding = Arg::Dict(vec![("context".into(), Arg::Root)]);
        let bound = inner.bind(&binding);
        assert_eq!(bound, Arg::Dict(vec![("rootContext".into(), Arg::Root)]));
        assert!(bound.at(&path("rootContext")).carries_root());
    }

    #[test]
    fn a_define_handing_itself_on_ends() {
        let mut arg = Arg::Root;
        let wrap = Arg::Dict(vec![("a".into(), Arg::Param(Vec::new()))]);
        for _ in 0..100 {
            arg = wrap.bind(&arg);
        }
        let mut depth = 0;
        let mut at = &arg;
        while let Arg::Dict(entries) = at {
            depth += 1;
            at = &entries[0].1;
        }
        assert!(depth <= MAX_DEPTH + 2, "{depth}");
    }
}
