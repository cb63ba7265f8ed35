//! The value rules' work grows with the reads times the log of the keys, not with
//! their product: a values file of 80,000 keys read by a template of 80,000 reads
//! (half of them undefined) once took 41 s. Work is counted (key comparisons), not
//! timed; this file holds one test, so no other test counts at the same time.

use std::sync::atomic::Ordering;

/// Key comparisons `check` makes on a chart of `n` keys and `2n` reads.
fn work(n: usize) -> usize {
    let chart = tempfile::tempdir().unwrap();
    std::fs::create_dir(chart.path().join("templates")).unwrap();
    std::fs::write(
        chart.path().join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    )
    .unwrap();
    let values: String = (0..n).map(|i| format!("k{i}: {i}\n")).collect();
    std::fs::write(chart.path().join("values.yaml"), values).unwrap();
    let template: String = std::iter::once("data:\n".to_string())
        .chain((0..n).map(|i| {
            format!("  k{i}: {{{{ .Values.k{i} }}}}\n  m{i}: {{{{ .Values.missing{i} }}}}\n")
        }))
        .collect();
    std::fs::write(chart.path().join("templates/a.yaml"), template).unwrap();
    let config = helm_tether::Config::default_for(chart.path().to_path_buf());
    let before = helm_tether::internals::KEY_COMPARISONS.load(Ordering::Relaxed);
    let report = helm_tether::check_paths(
        &config,
        &[chart.path()],
        &helm_tether::CheckOptions::default(),
    )
    .expect("it starts");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.rule == "undefined-value"),
        "the missing reads are found"
    );
    helm_tether::internals::KEY_COMPARISONS.load(Ordering::Relaxed) - before
}

#[test]
fn value_lookups_do_not_grow_with_the_square_of_the_keys() {
    let one = work(1_000).max(1);
    let four = work(4_000);
    let sixteen = work(16_000);
    // Binary search: 16 times the reads at about 1.4 times the depth (log2 16,000
    // against log2 1,000) is about 22 times the work; a linear search, 256 times.
    assert!(
        four <= one * 6 && sixteen <= one * 32,
        "key comparisons: {one} for 1×, {four} for 4×, {sixteen} for 16×"
    );
}
