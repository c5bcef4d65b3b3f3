//! No input crashes the parsers: the reference evaluator's crash cases, deep nesting, long
//! operator chains and random text.

use kcomp::programs::mapping_table::reference::calculate_estimate;
use kcomp::programs::mapping_table::{Counts, ParserMode, measure};
use proptest::prelude::*;

fn both(code: &str) -> (Counts, Counts) {
    (
        measure(code, ParserMode::Reference),
        measure(code, ParserMode::Robust),
    )
}

#[test]
fn reference_crash_cases_are_handled() {
    // {**x}: the evaluator crashes; we fall back to the texts `**x`, `'B'` (keys) and, as x
    // is not a literal, `x`, `'..'` (values: 1 + 4 characters).
    let (r, _) = both("x = {'A': '*'}\ny = {**x, 'B': '..'}\nprint(y)");
    assert_eq!((r.n_dict, r.m_dict), (1 + 1, 1 + 5));
    // Unhashable literal keys fall back to their text.
    let (r, _) = both("d = {[1, 2]: '**', 'C': '.'}");
    assert_eq!((r.n_dict, r.m_dict), (1, 3));
    // '#' inside a string breaks the evaluator's parse (comment stripping), not us.
    assert_eq!(calculate_estimate("x = '#'\nprint('*')").m_block, 1);
}

#[test]
fn deep_nesting_and_long_chains_do_not_overflow() {
    let deep = format!("x = {}1{}\nprint('*')", "[".repeat(150), "]".repeat(150));
    let _ = both(&deep);
    let deeper = format!("x = {}1{}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(both(&deeper).1, Counts::default());
    let chain = format!("x = {}\nprint(x)", vec!["'*'"; 20000].join(" + "));
    let (_, rob) = std::thread::spawn(move || both(&chain))
        .join()
        .expect("no overflow");
    assert_eq!(rob.m_dict, 20000);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]
    #[test]
    fn random_text_never_panics(s in "[ -~\n\t]{0,200}") {
        let _ = both(&s);
    }

    #[test]
    fn random_python_like_text_never_panics(
        parts in proptest::collection::vec(
            prop::sample::select(vec![
                "if ", "elif ", "else:", "\n", "    ", "'A'", "'*..*'", "{", "}", ":", ",", "[", "]",
                "(", ")", "x", " = ", "print(", "for c in s:", "#", "'''", "\"", "s[0]", " == ",
                "{**d}", "lambda: 0", "f'{x}'", "b'\\x01'", "0b101", "1e5", "else", "def f():",
            ]),
            0..40,
        )
    ) {
        let _ = both(&parts.concat());
    }
}
