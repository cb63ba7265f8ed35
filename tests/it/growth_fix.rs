//! Fixing grows linearly with the fixable lines: each round applies its edits in
//! one sorted pass and reads the file a bounded number of times, so 16 times the
//! fixable lines may cost at most 20 times the work (40,000 fixable lines once took
//! 10.3 s where `check` took 0.06 s, each chosen edit compared with every one
//! before it). Work is counted (bytes read and edits compared) on this thread, not
//! timed.

/// The fixer's work on a values file of `lines` lines, each with two fixable
/// findings, and a template of as many lines and findings.
fn work(lines: usize) -> usize {
    let config = helm_tether::Config::default_for(std::path::PathBuf::from("/nonexistent"));
    let mut total = 0;
    for (path, line) in [
        ("values.yaml", "k{n}: 1 #x\n"),
        ("templates/cm.yaml", "k{n}: {{ .Values.a }} #x\n"),
    ] {
        let text: String = (0..lines)
            .map(|n| line.replace("{n}", &n.to_string()))
            .collect();
        let before = helm_tether::internals::fix_work();
        let fixed = helm_tether::internals::fix_text(&config, path.as_ref(), &text, false)
            .expect("the file is fixed");
        assert_eq!(
            fixed.fixes.values().sum::<usize>(),
            lines * 2,
            "{path}: {:?}",
            fixed.fixes
        );
        total += helm_tether::internals::fix_work() - before;
    }
    total
}

#[test]
fn fixing_work_is_linear_in_the_fixable_lines() {
    let one = work(2_500);
    let four = work(10_000);
    let sixteen = work(40_000);
    assert!(
        four <= one * 5 && sixteen <= one * 20,
        "work {one} for 1×, {four} for 4×, {sixteen} for 16×"
    );
}
