//! Robust mode: ideal compositional programs of every setting and style get C(P) >= 95;
//! memorisation in any form gets C(P) < 20 on Horizontal. Programs are executed (E(P) is
//! measured, not assumed).

mod grid_common;

use grid_common::*;
use kcomp::datasets::string_grid::{GridSpec, Setting, read_dataset};
use kcomp::programs::mapping_table::score::{TaskSize, score};
use kcomp::programs::mapping_table::{AnswerStatus, ParserMode, evaluate_answer, measure};
use kcomp::programs::sandbox::{SandboxConfig, check_program};
use rayon::prelude::*;

fn answer(code: &str) -> String {
    format!("Here is the program:\n\n```python\n{code}```\n")
}

#[test]
fn ideal_programs_score_at_least_95_in_every_setting() {
    let cfg = SandboxConfig::default();
    let mut jobs = Vec::new();
    for setting in Setting::ALL {
        let recs = read_dataset(&data_dir().join(GridSpec::default().file_name(setting))).unwrap();
        for (ri, rec) in recs.into_iter().enumerate().take(1) {
            let l = infer_layout(&rec);
            for (style, code) in [
                ("dict", ideal_dict(&l)),
                ("coords", ideal_coords(&l)),
                ("if_else", ideal_if_else(&l)),
                ("per_cell", ideal_per_cell(&l)),
            ] {
                jobs.push((setting, ri, style, code, rec.clone()));
            }
        }
    }
    let bad: Vec<String> = jobs
        .par_iter()
        .filter_map(|(setting, ri, style, code, rec)| {
            let ev = evaluate_answer(&answer(code), rec, ParserMode::Robust, &cfg).unwrap();
            let s = ev.scores.unwrap();
            println!(
                "{} {style}: L(P+) = {}, E = {}, C = {:.2}",
                setting.name(),
                s.l_p_plus,
                s.errors,
                s.norm_c
            );
            (ev.status != AnswerStatus::Ok || s.errors != 0 || s.norm_c < 95.0).then(|| {
                format!(
                    "{} record {ri} {style}: {:?} E={} L+={} C={:.2}\n{code}",
                    setting.name(),
                    ev.status,
                    s.errors,
                    s.l_p_plus,
                    s.norm_c
                )
            })
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn memorisation_in_any_form_scores_below_20_on_horizontal() {
    let cfg = SandboxConfig::default();
    let recs =
        read_dataset(&data_dir().join(GridSpec::default().file_name(Setting::Horizontal))).unwrap();
    let rec = &recs[0];
    let forms = memorisers(rec);
    assert_eq!(forms.len(), 10);
    let results: Vec<(String, f64, f64, usize)> = forms
        .par_iter()
        .map(|(name, code)| {
            // Run once; score the same E(P) under both parsers.
            let runs = check_program(code, &rec.input, &rec.output, &cfg).unwrap();
            let e = runs.iter().filter(|r| !r.correct).count();
            let t = TaskSize::default();
            let r = score(
                &measure(code, ParserMode::Robust),
                e,
                ParserMode::Robust,
                &t,
            );
            let f = score(
                &measure(code, ParserMode::Reference),
                e,
                ParserMode::Reference,
                &t,
            );
            (name.to_string(), r.norm_c, f.norm_c, r.errors)
        })
        .collect();
    for (name, robust, reference, errors) in &results {
        println!("{name}: robust C = {robust:.2}, reference C = {reference:.2}");
        assert_eq!(*errors, 0, "{name} must be a correct program");
        assert!(*robust < 20.0, "{name}: robust C = {robust}");
        let _ = reference;
    }
    // The published evaluator is fooled by the hidden forms (its known flaw).
    let fooled: Vec<&str> = results
        .iter()
        .filter(|r| r.2 >= 95.0)
        .map(|r| r.0.as_str())
        .collect();
    assert!(
        fooled.contains(&"dict_comprehension") && fooled.contains(&"triple_quoted"),
        "{fooled:?}"
    );
}

#[test]
fn unused_selftest_table_does_not_count_in_robust_mode() {
    let cfg = SandboxConfig::default();
    let recs =
        read_dataset(&data_dir().join(GridSpec::default().file_name(Setting::Horizontal))).unwrap();
    let rec = &recs[3];
    let code = with_unused_selftest(&ideal_dict(&infer_layout(rec)), rec);
    let robust = evaluate_answer(&answer(&code), rec, ParserMode::Robust, &cfg)
        .unwrap()
        .scores
        .unwrap();
    let reference = score(
        &measure(&code, ParserMode::Reference),
        robust.errors,
        ParserMode::Reference,
        &TaskSize::default(),
    );
    assert_eq!(robust.errors, 0);
    assert!(robust.norm_c >= 95.0, "{}", robust.norm_c);
    assert_eq!(reference.norm_c, 0.0);
}
