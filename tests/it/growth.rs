//! Work grows linearly with hostile input: the lexer examines a bounded number of
//! bytes per input byte whatever the input holds. Work is counted, not timed, so the
//! test is steady on a busy machine: 16 times the input may cost at most 20 times the
//! work (a quadratic scan would cost 256 times).

/// Inputs built by repeating a hostile unit `n` times.
const HOSTILE: &[(&str, &str)] = &[
    ("unclosed actions on one line", "{{ a "),
    ("unclosed actions on many lines", "{{ a\n"),
    ("unclosed raw strings", "{{ `a\n"),
    ("unclosed interpreted strings", "{{ \"a\n"),
    ("unclosed comments", "{{/* a\n"),
    ("comment ends without }}", "{{/* a */ b\n"),
    ("ends without opens", "a }} */}} `\n"),
    ("trim markers without close", "{{- a -\n"),
];

fn work(unit: &str, times: usize) -> usize {
    let text = unit.repeat(times);
    let (_, _, work) = helm_tether::internals::lex_counting(&text);
    work
}

#[test]
fn lexing_work_is_linear_in_the_input() {
    for (name, unit) in HOSTILE {
        let one = work(unit, 2_000).max(1);
        let four = work(unit, 8_000);
        let sixteen = work(unit, 32_000);
        assert!(
            four <= one * 5 && sixteen <= one * 20,
            "{name}: work {one} for 1×, {four} for 4×, {sixteen} for 16×"
        );
    }
}

/// What one file can make `check` print: findings of a kind on a line count once,
/// a line shows its text once, and a file shows at most 100 findings, so the human
/// output of a hostile template stays small whatever its size.
#[test]
fn output_of_a_hostile_file_is_bounded() {
    let chart = tempfile::tempdir().unwrap();
    std::fs::create_dir(chart.path().join("templates")).unwrap();
    let config = helm_tether::Config::default_for(chart.path().to_path_buf());
    let render = |text: String| {
        let file = chart.path().join("templates/hostile.yaml");
        std::fs::write(&file, text).unwrap();
        let report =
            helm_tether::check_paths(&config, &[file], &helm_tether::CheckOptions::default())
                .expect("it starts");
        report
            .render(&helm_tether::Format::Human { color: false })
            .len()
    };
    for (name, unit, line_break) in [
        ("unclosed actions on one line", "{{ a ", ""),
        ("one unclosed action a line", "k: {{ a # c", "\n"),
        ("comments without a space", "#c\n", ""),
    ] {
        let sizes: Vec<usize> = [2_000, 8_000, 32_000]
            .iter()
            .map(|&n| render(format!("{}{line_break}", unit.repeat(n)).replace("# c", "# c\n")))
            .collect();
        assert!(
            sizes[2] <= sizes[0] * 20 && sizes[2] < 64 * 1024,
            "{name}: {sizes:?} bytes of output for 1×, 4×, 16×"
        );
    }
}

/// A key pattern of many `**` matches in time proportional to pattern × path length:
/// twelve of them against a 60-segment path that does not match would take years to
/// try every split.
#[test]
fn key_patterns_match_in_polynomial_time() {
    let pattern =
        helm_tether::internals::KeyPattern::parse(&format!("{}z", "**.a.".repeat(12))).unwrap();
    let path = vec!["a"; 60].join(".");
    assert!(!pattern.matches(&path));
    assert!(pattern.matches(&format!("{path}.z")));
}
