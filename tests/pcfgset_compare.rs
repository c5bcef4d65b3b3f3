//! PCFG SET in the complexity view: the `pcfgset` dataset family (W = input tokens, Z = output
//! tokens, padded) with the exact terms of the interpreter program, and a panel running it.

use kcomp::dataset::Targets;
use kcomp::generalisation::pcfgset::complexity::PcfgsetFamilyParams;
use kcomp::generalisation::pcfgset::interpreter::{Function, parse};
use kcomp::generalisation::pcfgset::rules::REFERENCE_PROGRAM_BITS;
use kcomp::generalisation::pcfgset::{Semantics, evaluate_sequence};
use kcomp::panel::config::PanelConfig;
use kcomp::panel::run::run_panel;
use kcomp::progress::WorkBar;

/// W's token ids back to the input tokens (the documented encoding).
fn decode_w(row: &[u32], numbers: usize) -> Vec<String> {
    row.iter()
        .take_while(|&&t| t != 0)
        .map(|&t| match t {
            1..=10 => Function::ALL[t as usize - 1].name().to_string(),
            11 => ",".to_string(),
            _ => letter(t - 12, numbers),
        })
        .collect()
}

fn letter(i: u32, numbers: usize) -> String {
    let i = i as usize;
    format!(
        "{}{}",
        (b'A' + (i / numbers) as u8) as char,
        i % numbers + 1
    )
}

#[test]
fn rows_decode_to_interpreted_pairs_and_the_exact_terms_add_up() {
    let p = PcfgsetFamilyParams {
        samples: 300,
        numbers: 2,
        max_target: 20,
        seed: 4,
        ..Default::default()
    };
    let d = p.dataset().unwrap();
    assert_eq!(d.w.vocab, 12 + 52);
    let Targets::Discrete {
        n_attr,
        n_vals,
        values,
    } = &d.z
    else {
        panic!("discrete Z")
    };
    assert_eq!(*n_vals, 53);
    assert!(*n_attr <= 20);
    let mut k_w = 0.0;
    for r in 0..d.n() {
        let source = decode_w(d.w.row(r), 2);
        let tokens: Vec<&str> = source.iter().map(String::as_str).collect();
        k_w += p.source_bits(&parse(&tokens).unwrap());
        let z: Vec<String> = values[r * n_attr..(r + 1) * n_attr]
            .iter()
            .take_while(|&&v| v != 0)
            .map(|&v| letter(v - 1, 2))
            .collect();
        let text = source.join(" ");
        let want = evaluate_sequence(&text, Semantics::Standard, 1 << 20).unwrap();
        assert_eq!(z, want, "row {r}");
        // Padding only at the end.
        assert!(
            values[r * n_attr..(r + 1) * n_attr][z.len()..]
                .iter()
                .all(|&v| v == 0)
        );
    }
    // Rows with longer outputs were dropped, the others kept.
    assert!(d.n() > 250 && d.n() <= 300, "{}", d.n());
    let ex = d.exact.as_ref().unwrap();
    assert_eq!(ex.k_z_given_w_bits, REFERENCE_PROGRAM_BITS);
    assert_eq!(ex.parts["k_z_given_wf"], 0.0);
    assert!((ex.parts["k_w_given_pw"] - k_w).abs() < 1e-6 * k_w);
    // K(p_w): two probabilities at 8 bits, two string lengths in 1..64, numbers in 1..1000.
    let k_pw = 16.0 + 12.0 + 1000f64.log2();
    assert!((ex.parts["k_pw"] - k_pw).abs() < 1e-12);
    assert!((ex.k_z_bits - (k_pw + k_w + REFERENCE_PROGRAM_BITS)).abs() < 1e-6);
    assert_eq!(d.k_z.bits, ex.k_z_bits);
    // Deterministic; bad settings name the parameter.
    assert_eq!(p.dataset().unwrap().w, d.w);
    let err = PcfgsetFamilyParams {
        max_target: 0,
        ..p.clone()
    }
    .dataset()
    .unwrap_err()
    .to_string();
    assert!(err.contains("max_target"), "{err}");
}

const PANEL: &str = r#"
name = "pcfgset-test"
seeds = 1
estimators = ["exact", "compression"]
[[family]]
name = "pcfgset-n"
kind = "pcfgset"
parameter = "samples"
values = [60, 200]
[family.params]
numbers = 1
max_target = 16
naturalise = true
"#;

#[test]
fn a_panel_runs_the_family_beside_exact() {
    let config = PanelConfig::from_toml("pcfgset.toml", PANEL).unwrap();
    let report = run_panel(&config, None, 1, false, &WorkBar::hidden()).unwrap();
    assert_eq!(report.rows.len(), 2 * 2);
    for r in &report.rows {
        assert_eq!(r.status, "ok", "{r:?}");
    }
    let exact: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.estimator == "exact")
        .collect();
    for r in &exact {
        assert_eq!(r.k_z_given_w_bits, Some(REFERENCE_PROGRAM_BITS));
    }
    // The exact C grows with N (one program, more data).
    assert!(exact[1].c.unwrap() > 2.0 * exact[0].c.unwrap());
    // A misspelt setting is an error naming it.
    let bad = PANEL.replace("max_target = 16", "max_targets = 16");
    let err = PanelConfig::from_toml("pcfgset.toml", &bad)
        .and_then(|c| run_panel(&c, None, 1, false, &WorkBar::hidden()).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("max_targets"), "{err}");
}
