//! The hash maps and sets of a run: std's, hashed with foldhash instead of SipHash.
//!
//! A check hashes a path or a name for almost every step it takes (the walk's
//! folders, each chart's files, each key of a values file), and SipHash was a
//! twentieth of a check's instructions. foldhash's `fast` hasher is several times
//! cheaper on short keys, and its state is seeded at random per process and per
//! map: names that collide in one run do not in the next. Its authors call it
//! minimally resistant to flooding, no more: a long-running server that hashes
//! what a repository names could be slowed by names made for it, not misled.
//!
//! The language server's maps stay std's, where `lsp-types` asks for them.

/// A [`std::collections::HashMap`] with foldhash's seeded hasher.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A [`std::collections::HashSet`] with foldhash's seeded hasher.
pub type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
