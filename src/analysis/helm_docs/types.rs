//! What the helm-docs simulation returns: each key's description and where every
//! `# --` comment goes.

use std::collections::BTreeMap;
use std::ops::Range;

/// What helm-docs would print for a values.yaml: descriptions by key, and where each
/// `# --` comment ends up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelmDocs {
    /// Every key helm-docs gives a description, by its path in helm-docs notation (the
    /// README's key column, see [`helm_docs_path`]).
    pub descriptions: BTreeMap<String, Description>,
    /// Every comment that starts with `# --`, in file order, with where helm-docs
    /// sends it.
    pub markers: Vec<Marker>,
}

/// One key's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// The text as helm-docs writes it into the Description column, which it does not
    /// escape: the first line's text without a `(type)` prefix, each continuation
    /// line appended after a space (after a newline once `@raw` was seen).
    pub text: String,
    /// 0-based lines of the comment group helm-docs used: from the `# --` line (or the
    /// `# key.path --` line) through the last comment line of the group.
    pub lines: Range<usize>,
}

/// A comment that starts with `# --` (or is `# --`), and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// 0-based line of the comment.
    pub line: usize,
    pub destination: Destination,
}

/// Where helm-docs sends a `# --` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// It is the description of this key (helm-docs path).
    Key(String),
    /// A later `# --` line above the same key (only the last group counts), or an
    /// old-style `# key.path --` line for the same key, replaces it.
    Superseded { by_line: usize },
    /// yaml.v3 makes it a foot comment (or the head of something that is not a key,
    /// such as a value on its own line or the end of the document), which helm-docs
    /// never reads: it is lost.
    Foot,
    /// yaml.v3 gives it to the document, above the first key: it is lost.
    DocumentHead,
    /// A second ` -- ` on the line makes helm-docs read the text before it as a key
    /// path, and it drops the description.
    Keyed,
    /// It follows content on its line: yaml.v3 makes it a line comment, which
    /// helm-docs never reads.
    LineComment,
    /// It is above a key that `@ignore` (on this key or one above it) removes from the
    /// table.
    Ignored,
}
