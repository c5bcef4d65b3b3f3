//! Grids of other shapes are scored with their own constants: L_s = U (N + M),
//! L_z = d (N + M), error weight N + M and their own letters.

use kcomp::datasets::string_grid::{GridSpec, Record, Setting};
use kcomp::programs::mapping_table::score::TaskSize;
use kcomp::programs::mapping_table::{ParserMode, evaluate_answer};
use kcomp::programs::sandbox::SandboxConfig;

/// Setting h: position i drives row i, so each letter has its own row.
fn ideal(rec: &Record) -> String {
    let mut rows = std::collections::BTreeMap::new();
    for (x, y) in rec.input.iter().zip(&rec.output) {
        for (letter, row) in x.split(' ').zip(y.lines()) {
            rows.insert(letter.to_string(), row.to_string());
        }
    }
    let entries: Vec<String> = rows.iter().map(|(k, v)| format!("'{k}': '{v}'")).collect();
    format!(
        "```python\nROWS = {{{}}}\nprint('\\n'.join(ROWS[c] for c in input().split()))\n```\n",
        entries.join(", ")
    )
}

/// Every sample in one dict.
fn memorising(rec: &Record) -> String {
    let entries: Vec<String> = rec
        .input
        .iter()
        .zip(&rec.output)
        .map(|(x, y)| format!("'{x}': {y:?}"))
        .collect();
    format!(
        "```python\nT = {{{}}}\nprint(T[input().strip()])\n```\n",
        entries.join(", ")
    )
}

/// (C(P), L(P+), E(P)) of the ideal and the memorising program under both parsers.
fn check(positions: usize, side: usize, l_s: usize, l_z: usize) {
    let spec = GridSpec {
        positions,
        letters: 2,
        side,
        samples: 1 << positions,
        complementary: true,
    };
    let rec = spec.generate(Setting::Horizontal, 1, 0).unwrap().remove(0);
    let task = TaskSize::of_record(&rec);
    assert_eq!(task, TaskSize::of_spec(&spec));
    assert_eq!((task.l_s(), task.l_z()), (l_s, l_z));
    assert_eq!(task.error_weight(), positions + side * side);
    let cfg = SandboxConfig::default();
    for mode in [ParserMode::Reference, ParserMode::Robust] {
        let s = evaluate_answer(&ideal(&rec), &rec, mode, &cfg)
            .unwrap()
            .scores
            .unwrap();
        // One entry per letter: n = U N, m = U M, L(P+) = L_s, C = 100.
        assert_eq!(s.errors, 0, "{mode:?} {s:?}");
        assert_eq!((s.c_dict_n, s.c_dict_m), (2 * positions, 2 * side * side));
        assert_eq!(s.l_p_plus, l_s, "{mode:?}");
        assert_eq!(s.norm_c, 100.0, "{mode:?}");
        assert_eq!(s.profile, "T1");
        let s = evaluate_answer(&memorising(&rec), &rec, mode, &cfg)
            .unwrap()
            .scores
            .unwrap();
        // Every sample listed: n = d N (all the shape's letters count), C = 0.
        assert_eq!(s.errors, 0, "{mode:?} {s:?}");
        assert_eq!(s.c_dict_n, spec.samples * positions, "{mode:?}");
        assert_eq!(s.c_n, spec.samples * positions, "{mode:?}");
        assert_eq!(s.norm_c, 0.0, "{mode:?} {s:?}");
        assert_eq!(s.profile, "T2");
    }
}

#[test]
fn a_3x3_grid_uses_its_own_constants() {
    // N = 3, M = 9, U = 2, d = 8: L_s = 24, L_z = 96 (the 4 x 4 constants would give the
    // memorising table C = 100 (320 - 112) / 280 = 74).
    check(3, 3, 24, 96);
}

#[test]
fn a_6x6_grid_uses_its_own_constants_and_letters_a_to_l() {
    // N = 6, M = 36, U = 2, d = 64: L_s = 84, L_z = 2688; letters I-L count too.
    check(6, 6, 84, 2688);
}
