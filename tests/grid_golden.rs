//! Reference mode must reproduce the published evaluator's counts on all 60 golden snippets.

use kcomp::programs::mapping_table::reference::calculate_estimate;
use std::path::PathBuf;

#[test]
fn reference_parser_matches_all_golden_snippets() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp/golden/snippets.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut failures = Vec::new();
    let mut total = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let code = v["code"].as_str().unwrap();
        let want = [
            v["n_dict"].as_u64().unwrap() as usize,
            v["m_dict"].as_u64().unwrap() as usize,
            v["n_block"].as_u64().unwrap() as usize,
            v["m_block"].as_u64().unwrap() as usize,
        ];
        let c = calculate_estimate(code);
        let got = [c.n_dict, c.m_dict, c.n_block, c.m_block];
        total += 1;
        if got != want {
            failures.push(format!("{}: want {want:?} got {got:?}", v["id"]));
        }
    }
    assert_eq!(total, 60);
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
