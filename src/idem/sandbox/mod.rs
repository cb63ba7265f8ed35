//! Copies of the user's repository for commands to run in, and fingerprints of trees.
//!
//! Nothing here ever writes to the user's tree: it is only read (listed, hashed,
//! copied from). Every copy lives in a temporary folder registered in
//! [`ACTIVE`](registry::ACTIVE), so an interrupt can remove it (see [`interrupt`]);
//! dropping a [`Sandbox`] removes it too.
//!
//! The files, by job: `listing.rs` (what a copy is made from, and one file of a tree
//! read), `manifest.rs` (what the run saw of the user's tree when it started),
//! `fingerprint.rs` (stamps of every entry, and what changed between two),
//! `registry.rs` (the sandbox folders alive, their removal, the interrupt),
//! `beneath.rs` (writes through descriptors, never through a link) and `copy.rs`
//! (the copy a check runs in, made from the manifest and restored to it).

mod beneath;
mod copy;
mod fingerprint;
mod listing;
mod manifest;
mod registry;

#[cfg(target_os = "linux")]
pub(super) use beneath::write_contents;
pub(super) use copy::Sandbox;
#[cfg(feature = "internals")]
pub use copy::SandboxCopy;
pub(super) use fingerprint::{
    Fingerprint, changed_paths, fingerprint, restamp, tree_changes, unread,
};
#[cfg(target_os = "linux")]
pub(super) use listing::read_entry;
pub(super) use listing::{Entry, Source};
#[cfg(target_os = "linux")]
pub(super) use manifest::Listed;
pub(super) use manifest::{TreeManifest, escaping_link};
pub use registry::interrupt;
#[cfg(target_os = "linux")]
pub(super) use registry::{Copying, make_writable, unregister_and_remove};
pub(super) use registry::{ESCAPE, left_behind, new_folder, remove_stale_sandboxes};
