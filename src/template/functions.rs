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

/// The function `name`, if a template may call it.
pub(crate) fn lookup(name: &str) -> Option<&'static Function> {
    let table: &'static [Function] = FUNCTIONS;
    table
        .binary_search_by(|function| function.name.cmp(name))
        .ok()
        .map(|index| &table[index])
}

/// Every function, sorted by name (binary search).
pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "abbrev",
        signature: "abbrev WIDTH STRING",
        summary: "Shortens a string to a width, the ellipsis (\"...\") counted in it",
        origin: Origin::Sprig,
    },
    Function {
        name: "abbrevboth",
        signature: "abbrevboth OFFSET WIDTH STRING",
        summary: "Shortens a string to a width from a left offset, with an ellipsis on either side cut",
        origin: Origin::Sprig,
    },
    Function {
        name: "add",
        signature: "add NUMBERS...",
        summary: "Sums integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "add1",
        signature: "add1 NUMBER",
        summary: "Adds 1 to an integer",
        origin: Origin::Sprig,
    },
    Function {
        name: "add1f",
        signature: "add1f NUMBER",
        summary: "Adds 1 to a number, as a float",
        origin: Origin::Sprig,
    },
    Function {
        name: "addf",
        signature: "addf NUMBERS...",
        summary: "Sums numbers, as floats",
        origin: Origin::Sprig,
    },
    Function {
        name: "adler32sum",
        signature: "adler32sum STRING",
        summary: "Returns the Adler-32 checksum of a string, in decimal",
        origin: Origin::Sprig,
    },
    Function {
        name: "ago",
        signature: "ago DATE",
        summary: "Returns the time since a date, to the second, as a Go duration string",
        origin: Origin::Sprig,
    },
    Function {
        name: "all",
        signature: "all VALUES...",
        summary: "Reports whether every value is non-empty",
        origin: Origin::Sprig,
    },
    Function {
        name: "and",
        signature: "and ARG ARGS...",
        summary: "Returns the first empty argument, or else the last; stops at the first empty one",
        origin: Origin::Go,
    },
    Function {
        name: "any",
        signature: "any VALUES...",
        summary: "Reports whether any value is non-empty",
        origin: Origin::Sprig,
    },
    Function {
        name: "append",
        signature: "append LIST ITEM",
        summary: "Returns a new list with the item added at the end",
        origin: Origin::Sprig,
    },
    Function {
        name: "atoi",
        signature: "atoi STRING",
        summary: "Parses a string as an integer; a bad one yields 0",
        origin: Origin::Sprig,
    },
    Function {
        name: "b32dec",
        signature: "b32dec STRING",
        summary: "Decodes a Base32 string; on failure returns the error's text",
        origin: Origin::Sprig,
    },
    Function {
        name: "b32enc",
        signature: "b32enc STRING",
        summary: "Encodes a string in Base32",
        origin: Origin::Sprig,
    },
    Function {
        name: "b64dec",
        signature: "b64dec STRING",
        summary: "Decodes a Base64 string; on failure returns the error's text",
        origin: Origin::Sprig,
    },
    Function {
        name: "b64enc",
        signature: "b64enc STRING",
        summary: "Encodes a string in Base64",
        origin: Origin::Sprig,
    },
    Function {
        name: "base",
        signature: "base PATH",
        summary: "Returns the last element of a slash-separated path",
        origin: Origin::Sprig,
    },
    Function {
        name: "bcrypt",
        signature: "bcrypt STRING",
        summary: "Returns the bcrypt hash of a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "biggest",
        signature: "biggest NUMBER NUMBERS...",
        summary: "Returns the largest of the integers; an alias of max",
        origin: Origin::Sprig,
    },
    Function {
        name: "buildCustomCert",
        signature: "buildCustomCert CERT KEY",
        summary: "Makes a certificate object, for genSignedCert, from a Base64 PEM certificate and key",
        origin: Origin::Sprig,
    },
    Function {
        name: "call",
        signature: "call FUNCTION ARGS...",
        summary: "Calls a function value with the other arguments",
        origin: Origin::Go,
    },
    Function {
        name: "camelcase",
        signature: "camelcase STRING",
        summary: "Converts a string such as http_server to UpperCamelCase",
        origin: Origin::Sprig,
    },
    Function {
        name: "cat",
        signature: "cat VALUES...",
        summary: "Joins the values with spaces, nil values dropped",
        origin: Origin::Sprig,
    },
    Function {
        name: "ceil",
        signature: "ceil NUMBER",
        summary: "Rounds a number up to a whole float",
        origin: Origin::Sprig,
    },
    Function {
        name: "chunk",
        signature: "chunk SIZE LIST",
        summary: "Splits a list into lists of SIZE items, the last one shorter",
        origin: Origin::Sprig,
    },
    Function {
        name: "clean",
        signature: "clean PATH",
        summary: "Resolves . and .. in a slash-separated path, returning its shortest form",
        origin: Origin::Sprig,
    },
    Function {
        name: "coalesce",
        signature: "coalesce VALUES...",
        summary: "Returns the first value that is not empty",
        origin: Origin::Sprig,
    },
    Function {
        name: "compact",
        signature: "compact LIST",
        summary: "Returns a list without its empty items",
        origin: Origin::Sprig,
    },
    Function {
        name: "concat",
        signature: "concat LISTS...",
        summary: "Joins lists into one",
        origin: Origin::Sprig,
    },
    Function {
        name: "contains",
        signature: "contains SUBSTRING STRING",
        summary: "Reports whether a string contains another",
        origin: Origin::Sprig,
    },
    Function {
        name: "date",
        signature: "date FORMAT DATE",
        summary: "Formats a date (a time or Unix seconds) by a Go layout, in local time",
        origin: Origin::Sprig,
    },
    Function {
        name: "dateInZone",
        signature: "dateInZone FORMAT DATE ZONE",
        summary: "Formats a date (a time or Unix seconds) by a Go layout in the named time zone",
        origin: Origin::Sprig,
    },
    Function {
        name: "dateModify",
        signature: "dateModify DURATION DATE",
        summary: "Adds a Go duration string such as \"-1.5h\" to a date; a bad duration leaves it as is",
        origin: Origin::Sprig,
    },
    Function {
        name: "date_in_zone",
        signature: "date_in_zone FORMAT DATE ZONE",
        summary: "Formats a date by a Go layout in the named time zone; an alias of dateInZone",
        origin: Origin::Sprig,
    },
    Function {
        name: "date_modify",
        signature: "date_modify DURATION DATE",
        summary: "Adds a Go duration string to a date; an alias of dateModify",
        origin: Origin::Sprig,
    },
    Function {
        name: "decryptAES",
        signature: "decryptAES PASSWORD STRING",
        summary: "Decrypts a Base64 string encrypted with AES-256-CBC",
        origin: Origin::Sprig,
    },
    Function {
        name: "deepCopy",
        signature: "deepCopy VALUE",
        summary: "Returns a deep copy of a value",
        origin: Origin::Sprig,
    },
    Function {
        name: "deepEqual",
        signature: "deepEqual A B",
        summary: "Reports whether two values are deeply equal, lists and dicts included",
        origin: Origin::Sprig,
    },
    Function {
        name: "default",
        signature: "default DEFAULT VALUE...",
        summary: "Returns the value, or DEFAULT if the value is empty or not given",
        origin: Origin::Sprig,
    },
    Function {
        name: "derivePassword",
        signature: "derivePassword COUNTER TYPE PASSWORD USER SITE",
        summary: "Derives a site's password from a master password, by the Master Password algorithm",
        origin: Origin::Sprig,
    },
    Function {
        name: "dict",
        signature: "dict PAIRS...",
        summary: "Makes a dict of alternating keys and values",
        origin: Origin::Sprig,
    },
    Function {
        name: "dig",
        signature: "dig ARGS...",
        summary: "Walks nested dicts by keys: the keys, then a default, then the dict (at least three)",
        origin: Origin::Sprig,
    },
    Function {
        name: "dir",
        signature: "dir PATH",
        summary: "Returns a slash-separated path without its last element",
        origin: Origin::Sprig,
    },
    Function {
        name: "div",
        signature: "div A B",
        summary: "Divides A by B, as integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "divf",
        signature: "divf NUMBER NUMBERS...",
        summary: "Divides the first number by each of the others, as floats",
        origin: Origin::Sprig,
    },
    Function {
        name: "duration",
        signature: "duration SECONDS",
        summary: "Formats a number of seconds as a Go duration string, such as 1m35s",
        origin: Origin::Sprig,
    },
    Function {
        name: "durationRound",
        signature: "durationRound DURATION",
        summary: "Rounds a duration, or the time since a date, to its largest unit, such as 2h or 3mo",
        origin: Origin::Sprig,
    },
    Function {
        name: "empty",
        signature: "empty VALUE",
        summary: "Reports whether a value is empty: nil, false, zero, \"\" or an empty list or dict",
        origin: Origin::Sprig,
    },
    Function {
        name: "encryptAES",
        signature: "encryptAES PASSWORD STRING",
        summary: "Encrypts a string with AES-256-CBC and returns it in Base64",
        origin: Origin::Sprig,
    },
    Function {
        name: "eq",
        signature: "eq ARG ARGS...",
        summary: "Reports whether the first argument equals any of the others",
        origin: Origin::Go,
    },
    Function {
        name: "ext",
        signature: "ext PATH",
        summary: "Returns the extension of a slash-separated path, its dot included",
        origin: Origin::Sprig,
    },
    Function {
        name: "fail",
        signature: "fail MESSAGE",
        summary: "Fails the render with the message (Helm only logs it while linting)",
        origin: Origin::Sprig,
    },
    Function {
        name: "first",
        signature: "first LIST",
        summary: "Returns the first item of a list",
        origin: Origin::Sprig,
    },
    Function {
        name: "float64",
        signature: "float64 VALUE",
        summary: "Converts a value, numbers and strings alike, to a float64",
        origin: Origin::Sprig,
    },
    Function {
        name: "floor",
        signature: "floor NUMBER",
        summary: "Rounds a number down to a whole float",
        origin: Origin::Sprig,
    },
    Function {
        name: "fromJson",
        signature: "fromJson STRING",
        summary: "Decodes a JSON object into a dict; on failure the error is under the key Error",
        origin: Origin::Helm,
    },
    Function {
        name: "fromJsonArray",
        signature: "fromJsonArray STRING",
        summary: "Decodes a JSON array into a list; on failure the error is its only item",
        origin: Origin::HelmSince("3.2.0"),
    },
    Function {
        name: "fromToml",
        signature: "fromToml STRING",
        summary: "Decodes a TOML document into a dict; on failure the error is under the key Error",
        origin: Origin::HelmSince("3.17.0"),
    },
    Function {
        name: "fromYaml",
        signature: "fromYaml STRING",
        summary: "Decodes a YAML mapping into a dict; on failure the error is under the key Error",
        origin: Origin::Helm,
    },
    Function {
        name: "fromYamlArray",
        signature: "fromYamlArray STRING",
        summary: "Decodes a YAML sequence into a list; on failure the error is its only item",
        origin: Origin::HelmSince("3.2.0"),
    },
    Function {
        name: "ge",
        signature: "ge A B",
        summary: "Reports whether A is greater than or equal to B",
        origin: Origin::Go,
    },
    Function {
        name: "genCA",
        signature: "genCA CN DAYS",
        summary: "Generates a self-signed certificate authority with a new 2048-bit RSA key",
        origin: Origin::Sprig,
    },
    Function {
        name: "genCAWithKey",
        signature: "genCAWithKey CN DAYS KEY",
        summary: "Generates a self-signed certificate authority with the given PEM private key",
        origin: Origin::Sprig,
    },
    Function {
        name: "genPrivateKey",
        signature: "genPrivateKey TYPE",
        summary: "Generates a private key, PEM-encoded: TYPE is rsa, dsa, ecdsa or ed25519",
        origin: Origin::Sprig,
    },
    Function {
        name: "genSelfSignedCert",
        signature: "genSelfSignedCert CN IPS DNSNAMES DAYS",
        summary: "Generates a self-signed certificate with a new 2048-bit RSA key",
        origin: Origin::Sprig,
    },
    Function {
        name: "genSelfSignedCertWithKey",
        signature: "genSelfSignedCertWithKey CN IPS DNSNAMES DAYS KEY",
        summary: "Generates a self-signed certificate with the given PEM private key",
        origin: Origin::Sprig,
    },
    Function {
        name: "genSignedCert",
        signature: "genSignedCert CN IPS DNSNAMES DAYS CA",
        summary: "Generates a certificate signed by a CA, with a new 2048-bit RSA key",
        origin: Origin::Sprig,
    },
    Function {
        name: "genSignedCertWithKey",
        signature: "genSignedCertWithKey CN IPS DNSNAMES DAYS CA KEY",
        summary: "Generates a certificate signed by a CA, with the given PEM private key",
        origin: Origin::Sprig,
    },
    Function {
        name: "get",
        signature: "get DICT KEY",
        summary: "Returns the value of a key in a dict, or \"\" if it is absent",
        origin: Origin::Sprig,
    },
    Function {
        name: "getHostByName",
        signature: "getHostByName NAME",
        summary: "Resolves a host name to one of its addresses; Helm returns \"\" unless DNS is enabled",
        origin: Origin::Sprig,
    },
    Function {
        name: "gt",
        signature: "gt A B",
        summary: "Reports whether A is greater than B",
        origin: Origin::Go,
    },
    Function {
        name: "has",
        signature: "has ITEM LIST",
        summary: "Reports whether a list holds the item",
        origin: Origin::Sprig,
    },
    Function {
        name: "hasKey",
        signature: "hasKey DICT KEY",
        summary: "Reports whether a dict has a key",
        origin: Origin::Sprig,
    },
    Function {
        name: "hasPrefix",
        signature: "hasPrefix PREFIX STRING",
        summary: "Reports whether a string starts with a prefix",
        origin: Origin::Sprig,
    },
    Function {
        name: "hasSuffix",
        signature: "hasSuffix SUFFIX STRING",
        summary: "Reports whether a string ends with a suffix",
        origin: Origin::Sprig,
    },
    Function {
        name: "hello",
        signature: "hello",
        summary: "Returns the string \"Hello!\"; a leftover test function",
        origin: Origin::Sprig,
    },
    Function {
        name: "html",
        signature: "html ARGS...",
        summary: "Escapes the text of the arguments for HTML",
        origin: Origin::Go,
    },
    Function {
        name: "htmlDate",
        signature: "htmlDate DATE",
        summary: "Formats a date as YYYY-MM-DD, for an HTML date input, in local time",
        origin: Origin::Sprig,
    },
    Function {
        name: "htmlDateInZone",
        signature: "htmlDateInZone DATE ZONE",
        summary: "Formats a date as YYYY-MM-DD, for an HTML date input, in the named time zone",
        origin: Origin::Sprig,
    },
    Function {
        name: "htpasswd",
        signature: "htpasswd USER PASSWORD",
        summary: "Returns an htpasswd line of the user and the bcrypt hash of the password",
        origin: Origin::Sprig,
    },
    Function {
        name: "include",
        signature: "include NAME CONTEXT",
        summary: "Renders the named template with the context and returns the text, so it can be piped",
        origin: Origin::Helm,
    },
    Function {
        name: "indent",
        signature: "indent SPACES STRING",
        summary: "Indents every line of a string by SPACES spaces",
        origin: Origin::Sprig,
    },
    Function {
        name: "index",
        signature: "index ITEM KEYS...",
        summary: "Indexes a map, slice or array by each key in turn: `index x 1 2` is x[1][2]",
        origin: Origin::Go,
    },
    Function {
        name: "initial",
        signature: "initial LIST",
        summary: "Returns a list without its last item",
        origin: Origin::Sprig,
    },
    Function {
        name: "initials",
        signature: "initials STRING",
        summary: "Returns the first letter of each word, joined",
        origin: Origin::Sprig,
    },
    Function {
        name: "int",
        signature: "int VALUE",
        summary: "Converts a value, numbers and strings alike, to an int",
        origin: Origin::Sprig,
    },
    Function {
        name: "int64",
        signature: "int64 VALUE",
        summary: "Converts a value, numbers and strings alike, to an int64",
        origin: Origin::Sprig,
    },
    Function {
        name: "isAbs",
        signature: "isAbs PATH",
        summary: "Reports whether a slash-separated path is absolute",
        origin: Origin::Sprig,
    },
    Function {
        name: "join",
        signature: "join SEPARATOR LIST",
        summary: "Joins the items of a list, as strings, with a separator",
        origin: Origin::Sprig,
    },
    Function {
        name: "js",
        signature: "js ARGS...",
        summary: "Escapes the text of the arguments for JavaScript",
        origin: Origin::Go,
    },
    Function {
        name: "kebabcase",
        signature: "kebabcase STRING",
        summary: "Converts a string such as FirstName to kebab-case",
        origin: Origin::Sprig,
    },
    Function {
        name: "keys",
        signature: "keys DICTS...",
        summary: "Lists the keys of the dicts, in no set order",
        origin: Origin::Sprig,
    },
    Function {
        name: "kindIs",
        signature: "kindIs KIND VALUE",
        summary: "Reports whether a value has the named Go kind",
        origin: Origin::Sprig,
    },
    Function {
        name: "kindOf",
        signature: "kindOf VALUE",
        summary: "Returns the Go kind of a value, such as string, slice or map",
        origin: Origin::Sprig,
    },
    Function {
        name: "last",
        signature: "last LIST",
        summary: "Returns the last item of a list",
        origin: Origin::Sprig,
    },
    Function {
        name: "le",
        signature: "le A B",
        summary: "Reports whether A is less than or equal to B",
        origin: Origin::Go,
    },
    Function {
        name: "len",
        signature: "len ITEM",
        summary: "Returns the length of a string, slice, array, map or channel",
        origin: Origin::Go,
    },
    Function {
        name: "list",
        signature: "list ITEMS...",
        summary: "Makes a list of the items",
        origin: Origin::Sprig,
    },
    Function {
        name: "lookup",
        signature: "lookup APIVERSION KIND NAMESPACE NAME",
        summary: "Fetches a resource from the cluster, or a list if NAME is \"\"; an empty dict offline",
        origin: Origin::HelmSince("3.1.0"),
    },
    Function {
        name: "lower",
        signature: "lower STRING",
        summary: "Converts a string to lower case",
        origin: Origin::Sprig,
    },
    Function {
        name: "lt",
        signature: "lt A B",
        summary: "Reports whether A is less than B",
        origin: Origin::Go,
    },
    Function {
        name: "max",
        signature: "max NUMBER NUMBERS...",
        summary: "Returns the largest of the integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "maxf",
        signature: "maxf NUMBER NUMBERS...",
        summary: "Returns the largest of the numbers, as a float",
        origin: Origin::Sprig,
    },
    Function {
        name: "merge",
        signature: "merge DEST SOURCES...",
        summary: "Deep-merges the sources into DEST; values already in DEST win",
        origin: Origin::Sprig,
    },
    Function {
        name: "mergeOverwrite",
        signature: "mergeOverwrite DEST SOURCES...",
        summary: "Deep-merges the sources into DEST; later values win",
        origin: Origin::Sprig,
    },
    Function {
        name: "min",
        signature: "min NUMBER NUMBERS...",
        summary: "Returns the smallest of the integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "minf",
        signature: "minf NUMBER NUMBERS...",
        summary: "Returns the smallest of the numbers, as a float",
        origin: Origin::Sprig,
    },
    Function {
        name: "mod",
        signature: "mod A B",
        summary: "Returns the remainder of A divided by B, as integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "mul",
        signature: "mul NUMBER NUMBERS...",
        summary: "Multiplies integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "mulf",
        signature: "mulf NUMBER NUMBERS...",
        summary: "Multiplies numbers, as floats",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustAppend",
        signature: "mustAppend LIST ITEM",
        summary: "Returns a new list with the item added at the end, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustChunk",
        signature: "mustChunk SIZE LIST",
        summary: "Splits a list into lists of SIZE items, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustCompact",
        signature: "mustCompact LIST",
        summary: "Returns a list without its empty items, failing the render if it is not a list",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustDateModify",
        signature: "mustDateModify DURATION DATE",
        summary: "Adds a Go duration string to a date, failing the render on a bad duration",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustDeepCopy",
        signature: "mustDeepCopy VALUE",
        summary: "Returns a deep copy of a value, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustFirst",
        signature: "mustFirst LIST",
        summary: "Returns the first item of a list, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustFromJson",
        signature: "mustFromJson STRING",
        summary: "Decodes a JSON document, failing the render if it is not valid",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustHas",
        signature: "mustHas ITEM LIST",
        summary: "Reports whether a list holds the item, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustInitial",
        signature: "mustInitial LIST",
        summary: "Returns a list without its last item, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustLast",
        signature: "mustLast LIST",
        summary: "Returns the last item of a list, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustMerge",
        signature: "mustMerge DEST SOURCES...",
        summary: "Deep-merges the sources into DEST, values in DEST winning; fails the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustMergeOverwrite",
        signature: "mustMergeOverwrite DEST SOURCES...",
        summary: "Deep-merges the sources into DEST, later values winning; fails the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustPrepend",
        signature: "mustPrepend LIST ITEM",
        summary: "Returns a new list with the item added at the front, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustPush",
        signature: "mustPush LIST ITEM",
        summary: "Returns a new list with the item added at the end; an alias of mustAppend",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRegexFind",
        signature: "mustRegexFind REGEX STRING",
        summary: "Returns the first match of a regular expression, failing on a bad one",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRegexFindAll",
        signature: "mustRegexFindAll REGEX STRING COUNT",
        summary: "Lists at most COUNT matches of a regular expression, failing on a bad one",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRegexMatch",
        signature: "mustRegexMatch REGEX STRING",
        summary: "Reports whether a string matches a regular expression, failing on a bad one",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRegexReplaceAll",
        signature: "mustRegexReplaceAll REGEX STRING REPLACEMENT",
        summary: "Replaces each match, expanding $1 and the like, failing on a bad expression",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRegexReplaceAllLiteral",
        signature: "mustRegexReplaceAllLiteral REGEX STRING REPLACEMENT",
        summary: "Replaces each match with the replacement as is, failing on a bad expression",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRegexSplit",
        signature: "mustRegexSplit REGEX STRING COUNT",
        summary: "Splits a string at the matches of a regular expression, failing on a bad one",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustRest",
        signature: "mustRest LIST",
        summary: "Returns a list without its first item, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustReverse",
        signature: "mustReverse LIST",
        summary: "Returns a list in reverse order, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustSlice",
        signature: "mustSlice LIST INDICES...",
        summary: "Returns part of a list like slice, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustToDate",
        signature: "mustToDate FORMAT STRING",
        summary: "Parses a date string by a Go layout, failing the render if it does not match",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustToJson",
        signature: "mustToJson VALUE",
        summary: "Encodes a value as JSON, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustToPrettyJson",
        signature: "mustToPrettyJson VALUE",
        summary: "Encodes a value as indented JSON, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustToRawJson",
        signature: "mustToRawJson VALUE",
        summary: "Encodes a value as JSON without escaping HTML characters, failing on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustToToml",
        signature: "mustToToml VALUE",
        summary: "Encodes a value as TOML, failing the render on an error",
        origin: Origin::HelmSince("4.2.0"),
    },
    Function {
        name: "mustToYaml",
        signature: "mustToYaml VALUE",
        summary: "Encodes a value as YAML without the final newline, failing the render on an error",
        origin: Origin::HelmSince("4.0.0"),
    },
    Function {
        name: "mustUniq",
        signature: "mustUniq LIST",
        summary: "Returns a list without its duplicate items, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "mustWithout",
        signature: "mustWithout LIST ITEMS...",
        summary: "Returns a list without the given items, failing the render on an error",
        origin: Origin::Sprig,
    },
    Function {
        name: "must_date_modify",
        signature: "must_date_modify DURATION DATE",
        summary: "Adds a Go duration string to a date, failing on a bad one; an alias of mustDateModify",
        origin: Origin::Sprig,
    },
    Function {
        name: "ne",
        signature: "ne A B",
        summary: "Reports whether two values differ",
        origin: Origin::Go,
    },
    Function {
        name: "nindent",
        signature: "nindent SPACES STRING",
        summary: "Indents every line of a string by SPACES spaces and puts a newline before it",
        origin: Origin::Sprig,
    },
    Function {
        name: "nospace",
        signature: "nospace STRING",
        summary: "Removes all white space from a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "not",
        signature: "not ARG",
        summary: "Returns the boolean negation of the argument's truth",
        origin: Origin::Go,
    },
    Function {
        name: "now",
        signature: "now",
        summary: "Returns the current date and time",
        origin: Origin::Sprig,
    },
    Function {
        name: "omit",
        signature: "omit DICT KEYS...",
        summary: "Returns a new dict without the given keys",
        origin: Origin::Sprig,
    },
    Function {
        name: "or",
        signature: "or ARG ARGS...",
        summary: "Returns the first non-empty argument, or else the last; stops at the first non-empty one",
        origin: Origin::Go,
    },
    Function {
        name: "osBase",
        signature: "osBase PATH",
        summary: "Returns the last element of a path of the operating system",
        origin: Origin::Sprig,
    },
    Function {
        name: "osClean",
        signature: "osClean PATH",
        summary: "Returns the shortest equivalent of a path of the operating system",
        origin: Origin::Sprig,
    },
    Function {
        name: "osDir",
        signature: "osDir PATH",
        summary: "Returns a path of the operating system without its last element",
        origin: Origin::Sprig,
    },
    Function {
        name: "osExt",
        signature: "osExt PATH",
        summary: "Returns the extension of a path of the operating system, its dot included",
        origin: Origin::Sprig,
    },
    Function {
        name: "osIsAbs",
        signature: "osIsAbs PATH",
        summary: "Reports whether a path of the operating system is absolute",
        origin: Origin::Sprig,
    },
    Function {
        name: "pick",
        signature: "pick DICT KEYS...",
        summary: "Returns a new dict of only the given keys",
        origin: Origin::Sprig,
    },
    Function {
        name: "pluck",
        signature: "pluck KEY DICTS...",
        summary: "Lists the values of a key in each dict that has it",
        origin: Origin::Sprig,
    },
    Function {
        name: "plural",
        signature: "plural ONE MANY COUNT",
        summary: "Returns ONE if COUNT is 1, and MANY otherwise",
        origin: Origin::Sprig,
    },
    Function {
        name: "prepend",
        signature: "prepend LIST ITEM",
        summary: "Returns a new list with the item added at the front",
        origin: Origin::Sprig,
    },
    Function {
        name: "print",
        signature: "print ARGS...",
        summary: "Formats the arguments as Go's fmt.Sprint does",
        origin: Origin::Go,
    },
    Function {
        name: "printf",
        signature: "printf FORMAT ARGS...",
        summary: "Formats the arguments by a format string, as Go's fmt.Sprintf does",
        origin: Origin::Go,
    },
    Function {
        name: "println",
        signature: "println ARGS...",
        summary: "Formats the arguments as Go's fmt.Sprintln does: spaced, ending in a newline",
        origin: Origin::Go,
    },
    Function {
        name: "push",
        signature: "push LIST ITEM",
        summary: "Returns a new list with the item added at the end; an alias of append",
        origin: Origin::Sprig,
    },
    Function {
        name: "quote",
        signature: "quote VALUES...",
        summary: "Puts each value in double quotes, escaped, joined by spaces; nil values are dropped",
        origin: Origin::Sprig,
    },
    Function {
        name: "randAlpha",
        signature: "randAlpha COUNT",
        summary: "Returns COUNT random letters, from a secure source",
        origin: Origin::Sprig,
    },
    Function {
        name: "randAlphaNum",
        signature: "randAlphaNum COUNT",
        summary: "Returns COUNT random letters and digits, from a secure source",
        origin: Origin::Sprig,
    },
    Function {
        name: "randAscii",
        signature: "randAscii COUNT",
        summary: "Returns COUNT random printable ASCII characters, from a secure source",
        origin: Origin::Sprig,
    },
    Function {
        name: "randBytes",
        signature: "randBytes COUNT",
        summary: "Returns COUNT random bytes from a secure source, in Base64",
        origin: Origin::Sprig,
    },
    Function {
        name: "randInt",
        signature: "randInt MIN MAX",
        summary: "Returns a random integer from MIN up to MAX, MAX excluded",
        origin: Origin::Sprig,
    },
    Function {
        name: "randNumeric",
        signature: "randNumeric COUNT",
        summary: "Returns COUNT random digits, from a secure source",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexFind",
        signature: "regexFind REGEX STRING",
        summary: "Returns the first match of a regular expression in a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexFindAll",
        signature: "regexFindAll REGEX STRING COUNT",
        summary: "Lists the matches of a regular expression, at most COUNT of them (-1: all)",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexMatch",
        signature: "regexMatch REGEX STRING",
        summary: "Reports whether a string matches a regular expression",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexQuoteMeta",
        signature: "regexQuoteMeta STRING",
        summary: "Escapes the metacharacters of a string, to match it literally in a regular expression",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexReplaceAll",
        signature: "regexReplaceAll REGEX STRING REPLACEMENT",
        summary: "Replaces each match of a regular expression, expanding $1 and the like",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexReplaceAllLiteral",
        signature: "regexReplaceAllLiteral REGEX STRING REPLACEMENT",
        summary: "Replaces each match of a regular expression with the replacement as is",
        origin: Origin::Sprig,
    },
    Function {
        name: "regexSplit",
        signature: "regexSplit REGEX STRING COUNT",
        summary: "Splits a string at the matches of a regular expression, into at most COUNT parts",
        origin: Origin::Sprig,
    },
    Function {
        name: "repeat",
        signature: "repeat COUNT STRING",
        summary: "Repeats a string COUNT times",
        origin: Origin::Sprig,
    },
    Function {
        name: "replace",
        signature: "replace OLD NEW STRING",
        summary: "Replaces every occurrence of OLD in a string with NEW",
        origin: Origin::Sprig,
    },
    Function {
        name: "required",
        signature: "required MESSAGE VALUE",
        summary: "Returns the value, or fails the render with the message if it is nil or \"\"",
        origin: Origin::Helm,
    },
    Function {
        name: "rest",
        signature: "rest LIST",
        summary: "Returns a list without its first item",
        origin: Origin::Sprig,
    },
    Function {
        name: "reverse",
        signature: "reverse LIST",
        summary: "Returns a list in reverse order",
        origin: Origin::Sprig,
    },
    Function {
        name: "round",
        signature: "round NUMBER PLACES HALF...",
        summary: "Rounds a number to PLACES decimals; a first HALF sets where it rounds up (.5)",
        origin: Origin::Sprig,
    },
    Function {
        name: "semver",
        signature: "semver VERSION",
        summary: "Parses a semantic version, failing the render if it is not one",
        origin: Origin::Sprig,
    },
    Function {
        name: "semverCompare",
        signature: "semverCompare CONSTRAINT VERSION",
        summary: "Reports whether a version satisfies a constraint such as \">=1.2.0 <2.0.0\"",
        origin: Origin::Sprig,
    },
    Function {
        name: "seq",
        signature: "seq BOUNDS...",
        summary: "Lists integers as the shell's seq does: END, START END, or START STEP END",
        origin: Origin::Sprig,
    },
    Function {
        name: "set",
        signature: "set DICT KEY VALUE",
        summary: "Sets a key of a dict to a value, and returns the dict",
        origin: Origin::Sprig,
    },
    Function {
        name: "sha1sum",
        signature: "sha1sum STRING",
        summary: "Returns the SHA-1 digest of a string, in hexadecimal",
        origin: Origin::Sprig,
    },
    Function {
        name: "sha256sum",
        signature: "sha256sum STRING",
        summary: "Returns the SHA-256 digest of a string, in hexadecimal",
        origin: Origin::Sprig,
    },
    Function {
        name: "sha512sum",
        signature: "sha512sum STRING",
        summary: "Returns the SHA-512 digest of a string, in hexadecimal",
        origin: Origin::Sprig,
    },
    Function {
        name: "shuffle",
        signature: "shuffle STRING",
        summary: "Returns the characters of a string in random order",
        origin: Origin::Sprig,
    },
    Function {
        name: "slice",
        signature: "slice LIST INDICES...",
        summary: "Returns part of a list: `slice l 1 3` is l[1:3], and a missing index is an end",
        origin: Origin::Sprig,
    },
    Function {
        name: "snakecase",
        signature: "snakecase STRING",
        summary: "Converts a string such as FirstName to snake_case",
        origin: Origin::Sprig,
    },
    Function {
        name: "sortAlpha",
        signature: "sortAlpha LIST",
        summary: "Returns the items of a list as strings, sorted",
        origin: Origin::Sprig,
    },
    Function {
        name: "split",
        signature: "split SEPARATOR STRING",
        summary: "Splits a string into a dict keyed _0, _1, and so on",
        origin: Origin::Sprig,
    },
    Function {
        name: "splitList",
        signature: "splitList SEPARATOR STRING",
        summary: "Splits a string into a list of strings",
        origin: Origin::Sprig,
    },
    Function {
        name: "splitn",
        signature: "splitn SEPARATOR COUNT STRING",
        summary: "Splits a string into at most COUNT parts, as a dict keyed _0, _1, and so on",
        origin: Origin::Sprig,
    },
    Function {
        name: "squote",
        signature: "squote VALUES...",
        summary: "Puts each value in single quotes, unescaped, joined by spaces; nil values are dropped",
        origin: Origin::Sprig,
    },
    Function {
        name: "sub",
        signature: "sub A B",
        summary: "Subtracts B from A, as integers",
        origin: Origin::Sprig,
    },
    Function {
        name: "subf",
        signature: "subf NUMBER NUMBERS...",
        summary: "Subtracts the other numbers from the first, as floats",
        origin: Origin::Sprig,
    },
    Function {
        name: "substr",
        signature: "substr START END STRING",
        summary: "Returns the bytes of a string from START up to END",
        origin: Origin::Sprig,
    },
    Function {
        name: "swapcase",
        signature: "swapcase STRING",
        summary: "Swaps the case of each letter, word by word",
        origin: Origin::Sprig,
    },
    Function {
        name: "ternary",
        signature: "ternary IFTRUE IFFALSE CONDITION",
        summary: "Returns IFTRUE if the condition is true, and IFFALSE otherwise",
        origin: Origin::Sprig,
    },
    Function {
        name: "title",
        signature: "title STRING",
        summary: "Capitalises the first letter of each word",
        origin: Origin::Sprig,
    },
    Function {
        name: "toDate",
        signature: "toDate FORMAT STRING",
        summary: "Parses a date string by a Go layout; a mismatch yields the zero time",
        origin: Origin::Sprig,
    },
    Function {
        name: "toDecimal",
        signature: "toDecimal VALUE",
        summary: "Reads a value as an octal number, such as the mode \"0777\", and returns it as an int64",
        origin: Origin::Sprig,
    },
    Function {
        name: "toJson",
        signature: "toJson VALUE",
        summary: "Encodes a value as JSON; on failure returns \"\"",
        origin: Origin::Helm,
    },
    Function {
        name: "toPrettyJson",
        signature: "toPrettyJson VALUE",
        summary: "Encodes a value as indented JSON; on failure returns \"\"",
        origin: Origin::Sprig,
    },
    Function {
        name: "toRawJson",
        signature: "toRawJson VALUE",
        summary: "Encodes a value as JSON without escaping HTML characters; on failure returns \"\"",
        origin: Origin::Sprig,
    },
    Function {
        name: "toString",
        signature: "toString VALUE",
        summary: "Converts a value to a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "toStrings",
        signature: "toStrings LIST",
        summary: "Converts each item of a list to a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "toToml",
        signature: "toToml VALUE",
        summary: "Encodes a value as TOML; on failure returns the error's text",
        origin: Origin::Helm,
    },
    Function {
        name: "toYaml",
        signature: "toYaml VALUE",
        summary: "Encodes a value as YAML without the final newline; on failure returns \"\"",
        origin: Origin::Helm,
    },
    Function {
        name: "toYamlPretty",
        signature: "toYamlPretty VALUE",
        summary: "Encodes a value as YAML indented by two spaces, sequences too; on failure returns \"\"",
        origin: Origin::HelmSince("3.17.0"),
    },
    Function {
        name: "tpl",
        signature: "tpl TEMPLATE CONTEXT",
        summary: "Renders a string as a template with the context",
        origin: Origin::Helm,
    },
    Function {
        name: "trim",
        signature: "trim STRING",
        summary: "Removes the white space at both ends of a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "trimAll",
        signature: "trimAll CHARACTERS STRING",
        summary: "Removes the given characters from both ends of a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "trimPrefix",
        signature: "trimPrefix PREFIX STRING",
        summary: "Removes a prefix from a string, if it has it",
        origin: Origin::Sprig,
    },
    Function {
        name: "trimSuffix",
        signature: "trimSuffix SUFFIX STRING",
        summary: "Removes a suffix from a string, if it has it",
        origin: Origin::Sprig,
    },
    Function {
        name: "trimall",
        signature: "trimall CHARACTERS STRING",
        summary: "Removes the given characters from both ends of a string; deprecated for trimAll",
        origin: Origin::Sprig,
    },
    Function {
        name: "trunc",
        signature: "trunc COUNT STRING",
        summary: "Truncates a string to its first COUNT bytes, or its last ones if COUNT is negative",
        origin: Origin::Sprig,
    },
    Function {
        name: "tuple",
        signature: "tuple ITEMS...",
        summary: "Makes a list of the items; an alias of list",
        origin: Origin::Sprig,
    },
    Function {
        name: "typeIs",
        signature: "typeIs TYPE VALUE",
        summary: "Reports whether a value has the named Go type",
        origin: Origin::Sprig,
    },
    Function {
        name: "typeIsLike",
        signature: "typeIsLike TYPE VALUE",
        summary: "Reports whether a value has the named Go type or is a pointer to it",
        origin: Origin::Sprig,
    },
    Function {
        name: "typeOf",
        signature: "typeOf VALUE",
        summary: "Returns the Go type of a value, such as map[string]interface {}",
        origin: Origin::Sprig,
    },
    Function {
        name: "uniq",
        signature: "uniq LIST",
        summary: "Returns a list without its duplicate items",
        origin: Origin::Sprig,
    },
    Function {
        name: "unixEpoch",
        signature: "unixEpoch DATE",
        summary: "Returns the seconds since the Unix epoch of a date, as a string",
        origin: Origin::Sprig,
    },
    Function {
        name: "unset",
        signature: "unset DICT KEY",
        summary: "Removes a key from a dict, and returns the dict",
        origin: Origin::Sprig,
    },
    Function {
        name: "until",
        signature: "until COUNT",
        summary: "Lists the integers from 0 towards COUNT, COUNT excluded",
        origin: Origin::Sprig,
    },
    Function {
        name: "untilStep",
        signature: "untilStep START STOP STEP",
        summary: "Lists the integers from START up to STOP, STOP excluded, by STEP",
        origin: Origin::Sprig,
    },
    Function {
        name: "untitle",
        signature: "untitle STRING",
        summary: "Lower-cases the first letter of each word",
        origin: Origin::Sprig,
    },
    Function {
        name: "upper",
        signature: "upper STRING",
        summary: "Converts a string to upper case",
        origin: Origin::Sprig,
    },
    Function {
        name: "urlJoin",
        signature: "urlJoin DICT",
        summary: "Builds a URL from a dict of its parts, as urlParse makes",
        origin: Origin::Sprig,
    },
    Function {
        name: "urlParse",
        signature: "urlParse URL",
        summary: "Parses a URL into a dict of its parts: scheme, host, path, query, and so on",
        origin: Origin::Sprig,
    },
    Function {
        name: "urlquery",
        signature: "urlquery ARGS...",
        summary: "Escapes the text of the arguments for a URL query",
        origin: Origin::Go,
    },
    Function {
        name: "uuidv4",
        signature: "uuidv4",
        summary: "Returns a new random (version 4) UUID",
        origin: Origin::Sprig,
    },
    Function {
        name: "values",
        signature: "values DICT",
        summary: "Lists the values of a dict, in no set order",
        origin: Origin::Sprig,
    },
    Function {
        name: "without",
        signature: "without LIST ITEMS...",
        summary: "Returns a list without the given items",
        origin: Origin::Sprig,
    },
    Function {
        name: "wrap",
        signature: "wrap WIDTH STRING",
        summary: "Wraps text at a column width with newlines",
        origin: Origin::Sprig,
    },
    Function {
        name: "wrapWith",
        signature: "wrapWith WIDTH SEPARATOR STRING",
        summary: "Wraps text at a column width with the given separator instead of a newline",
        origin: Origin::Sprig,
    },
];

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
