//! The robust parser must not be fooled by a hidden table. Memorisers of the
//! published Horizontal data (record 0) in many hiding styles score C <= 10 or get
//! `hidden_data`; honest compositional programs in unusual styles, on record 0 of every
//! published setting, keep C >= 90. The programs are in tests/data/hidden (written by
//! make_programs.py there); every one is run in the sandbox.

mod grid_common;

use grid_common::data_dir;
use kcomp::datasets::string_grid::{Record, read_dataset};
use kcomp::programs::mapping_table::lbits::l_bits;
use kcomp::programs::mapping_table::{AnswerSource, AnswerStatus, ParserMode, evaluate_modes};
use kcomp::programs::sandbox::SandboxConfig;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn hidden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/hidden")
}

fn record0(setting: &str) -> Record {
    read_dataset(&data_dir().join(format!("k=4_u=2_d=16_type={setting}.jsonl"))).unwrap()[0].clone()
}

/// (file stem, code) of the programs of a folder, sorted.
fn programs(folder: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(hidden_dir().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn memorisers_in_every_hiding_style_are_caught() {
    let cfg = SandboxConfig::default();
    let rec = record0("h");
    let progs = programs("memorise");
    assert!(progs.len() >= 40, "{} memorisers", progs.len());
    let results: Vec<(String, f64, f64, usize, AnswerStatus, Option<String>)> = progs
        .par_iter()
        .map(|(name, code)| {
            let ev = evaluate_modes(
                AnswerSource::Program(code),
                &rec,
                &[ParserMode::Reference, ParserMode::Robust],
                &cfg,
            )
            .unwrap();
            let (reference, robust) =
                (ev[0].scores.clone().unwrap(), ev[1].scores.clone().unwrap());
            (
                name.clone(),
                reference.norm_c,
                robust.norm_c,
                reference.errors,
                ev[1].status,
                robust.hidden_data,
            )
        })
        .collect();
    let mut per_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for (name, reference, robust, errors, status, hidden) in &results {
        let class = name.split("__").next().unwrap();
        println!(
            "{name}: reference C = {reference:.1}, robust C = {robust:.1}, {} {}",
            status.name(),
            hidden.as_deref().unwrap_or("")
        );
        // The program really memorises: it gets every sample right (a program reading its
        // own source may be stopped by the sandbox; it must be flagged either way).
        if class != "source" && *errors != 0 {
            bad.push(format!("{name}: E = {errors}, not a working memoriser"));
        }
        let caught = *status == AnswerStatus::HiddenData || *robust <= 10.0;
        if !caught {
            bad.push(format!("{name}: robust C = {robust:.2}, {status:?}"));
        }
        let e = per_class.entry(class).or_default();
        e.0 += 1;
        e.1 += usize::from(*status == AnswerStatus::HiddenData);
    }
    for (class, (n, flagged)) in &per_class {
        println!("class {class}: {n} programs, {flagged} hidden_data");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The published evaluator is fooled by most of them (its known flaw, kept).
    let fooled = results.iter().filter(|r| r.1 >= 90.0).count();
    assert!(fooled >= 20, "reference fooled by {fooled}");
}

#[test]
fn honest_programs_in_unusual_styles_keep_c_at_least_90() {
    let cfg = SandboxConfig::default();
    let progs = programs("honest");
    assert!(progs.len() >= 20, "{} honest programs", progs.len());
    let settings: std::collections::BTreeSet<&str> = progs
        .iter()
        .map(|(n, _)| n.split("__").next().unwrap())
        .collect();
    assert_eq!(settings.len(), 6, "{settings:?}");
    // Compact rule tables written as one string and parsed by a regex at run time cost their
    // bits in L(P+), not a hidden-data verdict.
    assert!(
        progs
            .iter()
            .filter(|(n, _)| n.contains("__rule_string"))
            .count()
            >= 8,
        "rule-string programs missing"
    );
    let bad: Vec<String> = progs
        .par_iter()
        .filter_map(|(name, code)| {
            let rec = record0(name.split("__").next().unwrap());
            let ev = evaluate_modes(
                AnswerSource::Program(code),
                &rec,
                &[ParserMode::Reference, ParserMode::Robust],
                &cfg,
            )
            .unwrap();
            let (reference, robust) = (ev[0].scores.clone().unwrap(), ev[1].scores.clone().unwrap());
            println!(
                "{name}: reference C = {:.1}, robust C = {:.1} (L(P+) = {}, unaccounted {:.0} bits, l_bits {:.0}) {}",
                reference.norm_c,
                robust.norm_c,
                robust.l_p_plus,
                robust.unaccounted_bits,
                robust.l_bits,
                ev[1].status_text()
            );
            (ev[1].status != AnswerStatus::Ok || robust.errors != 0 || robust.norm_c < 90.0)
                .then(|| format!("{name}: {} E={} C={:.2}", ev[1].status_text(), robust.errors, robust.norm_c))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The same program with other names, comments, blank lines, quotes and line breaks.
fn disguise(code: &str) -> String {
    let mut out = String::from("# painted grid\n\n");
    for line in code.lines() {
        let l = line
            .replace("Canvas", "Board")
            .replace("cells", "squares")
            .replace("paint", "fill")
            .replace("spots", "where")
            .replace("SPOTS", "PLACES")
            .replace("LOOK", "SHADES")
            .replace("value", "v")
            .replace("letter", "ch")
            .replace("canvas", "b")
            .replace("    ", "  ");
        out.push_str(&l);
        out.push_str("  # note\n\n");
    }
    out
}

#[test]
fn l_bits_ignores_names_comments_and_layout() {
    let (_, code) = programs("honest")
        .into_iter()
        .find(|(n, _)| n == "r__class")
        .unwrap();
    let other = disguise(&code);
    assert_ne!(code, other);
    assert_eq!(l_bits(&code), l_bits(&other));
    // Both still run correctly and score alike through the CLI, which prints l_bits.
    let dir = tempfile::tempdir().unwrap();
    let dataset = data_dir().join("k=4_u=2_d=16_type=r.jsonl");
    let mut bits = Vec::new();
    for (i, c) in [code, other].iter().enumerate() {
        let answer = dir.path().join(format!("{i}.txt"));
        std::fs::write(&answer, format!("```python\n{c}```\n")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
            .args([
                "grid", "score", "--record", "0", "--parser", "robust", "--json",
            ])
            .arg("--dataset")
            .arg(&dataset)
            .arg("--answer")
            .arg(&answer)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["errors"], 0, "{v}");
        assert_eq!(v["parser"], "robust");
        assert_eq!(v["hidden_data"], serde_json::Value::Null);
        bits.push(v["l_bits"].as_f64().unwrap());
    }
    assert_eq!(bits[0], bits[1]);
    assert!(bits[0] > 100.0, "{bits:?}");
}

#[test]
fn score_json_says_when_the_reference_parser_is_fooled() {
    let (_, code) = programs("memorise")
        .into_iter()
        .find(|(n, _)| n == "float__list")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let answer = dir.path().join("a.txt");
    std::fs::write(&answer, format!("```python\n{code}```\n")).unwrap();
    let run = |parser: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
            .args([
                "grid", "score", "--record", "0", "--json", "--parser", parser,
            ])
            .arg("--dataset")
            .arg(data_dir().join("k=4_u=2_d=16_type=h.jsonl"))
            .arg("--answer")
            .arg(&answer)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let reference = run("reference");
    assert_eq!(reference["parser"], "reference");
    assert_eq!(reference["norm_c"], 100.0, "{reference}");
    assert_eq!(reference["reference_fooled"], true);
    assert!(
        reference["hidden_data"]
            .as_str()
            .unwrap()
            .contains("bits of data outside the table")
    );
    let robust = run("robust");
    assert_eq!(robust["parser"], "robust");
    assert_eq!(robust["norm_c"], 0.0);
    assert_eq!(robust["errors"], 16);
    assert!(
        robust["status"]
            .as_str()
            .unwrap()
            .starts_with("hidden_data: "),
        "{robust}"
    );
    assert_eq!(robust["reference_fooled"], false);
}
