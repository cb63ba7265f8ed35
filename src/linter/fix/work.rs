//! How much work the fixer did, counted per thread for the tests that hold it
//! linear.

thread_local! {
    /// This thread's fixing work: see [`fix_work`].
    static FIX_WORK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The fixing work this thread has done: bytes of every whole-text read (each
/// check of a round, each guard's reading) and every comparison of two edits.
/// Tests hold it linear in the fixable lines; it is counted, not timed, and per
/// thread, so tests running beside each other do not add to each other's count.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn fix_work() -> usize {
    FIX_WORK.with(std::cell::Cell::get)
}

/// Adds `units` to this thread's [`fix_work`].
pub(super) fn worked(units: usize) {
    FIX_WORK.with(|work| work.set(work.get() + units));
}
