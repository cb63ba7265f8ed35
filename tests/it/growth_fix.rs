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

/// A round whose fixes move no comment (the spaces inside a line) is not modelled
/// again for the comment map: on a file of two fixes a line the fixer's work is
/// 6.2 times its bytes (the check of each round, the data guard's read of the text
/// before and after, the edits applied); the comment map of the text before and
/// after made it 8.4.
#[test]
fn fixes_that_move_no_comment_skip_the_comment_map() {
    let config = helm_tether::Config::default_for(std::path::PathBuf::from("/nonexistent"));
    let text: String = (0..2_000).map(|n| format!("k{n}: 1 #x\n")).collect();
    let before = helm_tether::internals::fix_work();
    let fixed = helm_tether::internals::fix_text(&config, "values.yaml".as_ref(), &text, false)
        .expect("the file is fixed");
    let work = helm_tether::internals::fix_work() - before;
    assert_eq!(fixed.fixes.values().sum::<usize>(), 4_000);
    assert!(
        work <= text.len() * 7,
        "{work} units of work for {} bytes",
        text.len()
    );
}
