//! The `tether` command: the library's command line, with the allocator it ships with.

#![deny(unsafe_code)]

// mimalloc: the model allocates a string per key path; glibc's malloc made that a
// tenth of the run time on the corpus. Its v2 line (the `v2` feature): v3 committed
// twice the memory on the three chart corpora (peak RSS 120 MB against 63 MB), and
// the kernel zeroing those pages on first touch was a sixth of a check's samples.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    helm_tether::main()
}
