//! Memory grows linearly with hostile input, by a small constant per byte: a file
//! checked is held with its masked copy, per-line facts and at most 100 findings, so
//! a 16 MiB template cannot take gigabytes (files are checked in parallel): at most 48
//! bytes per input byte, reached by files of comments or of empty lines. Memory is
//! counted by this binary's allocator, not read from the system, so the test is
//! steady on a busy machine; this file holds one test, so no other test allocates
//! while it measures.

#![allow(clippy::print_stderr)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only sizes are
// counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's layout, as the trait requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as for `dealloc` and `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most memory `check` held at once for `text` as a template, beyond what was
/// held before.
fn peak_of(config: &helm_tether::Config, text: &str) -> usize {
    let bytes = text.as_bytes().to_vec();
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let (_, diagnostics) = helm_tether::internals::check_bytes(
        config,
        std::path::Path::new("templates/hostile.yaml"),
        bytes,
        helm_tether::internals::Mode::Lazy,
    );
    let peak = PEAK.load(Ordering::Relaxed) - before;
    drop(diagnostics);
    peak
}

/// Hostile units: every line a finding, every line empty, every line an action.
const HOSTILE: &[(&str, &str)] = &[
    ("comments without a space", "#c\n"),
    ("comments indented wrong", "a: 1\n  #c\n"),
    ("empty lines", "\n"),
    ("an action a line", "{{a}}\n"),
    ("an action and a comment a line", "k: {{ a }} #c\n"),
    ("unclosed quotes", "\"a\n"),
    ("sequence items", "- a\n"),
];

#[test]
fn memory_is_linear_in_the_input_with_a_small_constant() {
    let folder = tempfile::tempdir().unwrap();
    let config = helm_tether::Config::default_for(folder.path().to_path_buf());
    let mut failures = Vec::new();
    for (name, unit) in HOSTILE {
        let sizes = [64 * 1024, 256 * 1024, 1024 * 1024];
        let peaks: Vec<usize> = sizes
            .iter()
            .map(|&size| peak_of(&config, &unit.repeat(size / unit.len())))
            .collect();
        let per_byte: Vec<usize> = peaks
            .iter()
            .zip(sizes)
            .map(|(peak, size)| peak / size)
            .collect();
        eprintln!("{name}: {per_byte:?} bytes of memory per input byte at 1×, 4×, 16×");
        if peaks[2] > peaks[0] * 20 || per_byte.iter().any(|&n| n > 48) {
            failures.push(format!("{name}: {per_byte:?} bytes per byte"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
