//! What the table knows of one function: its name, signature, summary and origin,
//! and what follows from them (its arity, its documentation). A leaf.

/// Where a function comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Go's `text/template` builtins.
    Go,
    /// Sprig v3.3.0, as Helm loads it.
    Sprig,
    /// Helm's own, in every Helm 3 and 4 release.
    Helm,
    /// Helm's own since the version named (`"3.17.0"`, `"4.0.0"`).
    HelmSince(&'static str),
}

/// One function a template may call.
#[derive(Debug)]
pub(crate) struct Function {
    pub name: &'static str,
    /// The call as written, name first, then each parameter in upper case; a
    /// last parameter that takes any number of arguments ends with `...`
    /// (`"list ITEMS..."`), one that may be left out is in brackets
    /// (`"f A [B]"`). Go caps no variadic parameter, so every one in the table
    /// is written with `...` and none with brackets.
    pub signature: &'static str,
    /// What it does, in one line without a trailing period.
    pub summary: &'static str,
    pub origin: Origin,
}

impl Function {
    /// How many arguments a call takes: at least, and at most (`None`: any
    /// number). Derived from `signature`.
    pub fn arity(&self) -> (usize, Option<usize>) {
        let mut required = 0;
        let mut optional = 0;
        for parameter in self.signature.split_ascii_whitespace().skip(1) {
            if parameter.ends_with("...") {
                return (required, None);
            }
            if parameter.starts_with('[') {
                optional += 1;
            } else {
                required += 1;
            }
        }
        (required, Some(required + optional))
    }

    /// A function's documentation: its signature, what it does, where it comes from.
    pub fn markdown(&self) -> String {
        let takes = match self.arity() {
            (0, Some(0)) => "It takes no argument.".to_string(),
            (least, None) => format!("It takes {least} arguments or more."),
            (least, Some(most)) if least == most => format!(
                "It takes {least} argument{}; in a pipeline, the piped value is the last.",
                if least == 1 { "" } else { "s" }
            ),
            (least, Some(most)) => format!("It takes {least} to {most} arguments."),
        };
        format!(
            "```gotmpl\n{}\n```\n\n{}. {takes}\n\n({})",
            self.signature,
            self.summary,
            self.source()
        )
    }

    /// The origin as a reader would say it: "Go text/template", "Sprig 3.3.0",
    /// "Helm", "Helm 3.17.0 and later".
    pub fn source(&self) -> String {
        match self.origin {
            Origin::Go => "Go text/template".to_owned(),
            Origin::Sprig => "Sprig 3.3.0".to_owned(),
            Origin::Helm => "Helm".to_owned(),
            Origin::HelmSince(version) => format!("Helm {version} and later"),
        }
    }
}
