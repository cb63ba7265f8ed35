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
    let (_, _, work) = tether::template::lex::lex_counting(&text);
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
