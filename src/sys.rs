//! The system calls outside `idem/` that no maintained crate of ours wraps, each
//! behind a safe function: the one place of the crate besides `idem/` where `unsafe`
//! is allowed (`lib.rs` denies it everywhere else).

/// The effective user id of this process.
#[cfg(unix)]
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether the open file has extended attributes (a rename would drop them).
#[cfg(target_os = "linux")]
pub fn has_xattrs(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: a null buffer of size 0 asks only for the size of the name list.
    let size = unsafe { libc::flistxattr(file.as_raw_fd(), std::ptr::null_mut(), 0) };
    size > 0
}

/// Whether the open file has extended attributes: never read where Linux's
/// `flistxattr` is not.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn has_xattrs(_file: &std::fs::File) -> bool {
    false
}
