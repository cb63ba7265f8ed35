//! The system calls outside `idem/` that the standard library does not offer, through
//! rustix's safe functions. `unsafe` is allowed in one module of the crate alone,
//! `idem/sys.rs`; `lib.rs` denies it everywhere else.

/// The effective user id of this process.
#[cfg(unix)]
pub fn effective_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether the open file has extended attributes (a rename would drop them).
#[cfg(target_os = "linux")]
pub fn has_xattrs(file: &std::fs::File) -> bool {
    rustix::fs::flistxattr_query(file).is_ok_and(|size| size > 0)
}

/// Whether the open file has extended attributes: never read where Linux's
/// `flistxattr` is not.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn has_xattrs(_file: &std::fs::File) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// A file without extended attributes has none; one given an attribute (where
    /// the file system takes user attributes) has.
    #[test]
    fn extended_attributes_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        assert!(!crate::sys::has_xattrs(&file));
        let flags = rustix::fs::XattrFlags::empty();
        if rustix::fs::fsetxattr(&file, "user.tether", b"x", flags).is_ok() {
            assert!(crate::sys::has_xattrs(&file));
        }
    }
}
