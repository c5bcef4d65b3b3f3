//! BDM parity with pybdm 0.1.0 (fixtures: tests/data/bdm, generated once by
//! tests/data/bdm/make_fixtures.py): its documented examples and 100 seeded random inputs,
//! to 1e-9. The CTM values come from tests/data/bdm/ctm_subset.json (the blocks of these
//! inputs only; GPL-2 data, see its README), so pybdm is not needed; with KCOMP_PYBDM_CTM set
//! to a pybdm installation the same cases also run on its full tables and through the CLI.

mod cli_common;
mod common;

use kcomp::estimators::bdm::{CtmTable, Partition, bdm, bdm_of};
use serde_json::Value;

fn fixtures() -> Vec<Value> {
    let path = common::data_dir().join("bdm/fixtures.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(v["meta"]["pybdm"], "0.1.0");
    v["cases"].as_array().unwrap().clone()
}

fn case_input(c: &Value) -> (Vec<u8>, Vec<usize>, Partition) {
    let data: Vec<u8> = c["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u8)
        .collect();
    let shape: Vec<usize> = c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let partition = Partition::parse(c["partition"].as_str().unwrap()).unwrap();
    (data, shape, partition)
}

#[test]
fn parity_with_pybdm_on_documented_examples_and_100_random_inputs() {
    let tables = CtmTable::tables_from_json(&common::data_dir().join("bdm/ctm_subset.json"))
        .expect("the committed CTM subset reads");
    let cases = fixtures();
    assert_eq!(cases.len(), 104);
    let (mut missing, mut worst) = (0usize, 0f64);
    for c in &cases {
        let table = tables
            .iter()
            .find(|t| t.name == c["table"].as_str().unwrap())
            .unwrap();
        let (data, shape, partition) = case_input(c);
        let r = bdm(table, &data, &shape, None, partition).unwrap();
        let want = c["bdm"].as_f64().unwrap();
        let err = (r.bits - want).abs();
        worst = worst.max(err);
        assert!(err < 1e-9, "{}: kcomp {} pybdm {}", c["name"], r.bits, want);
        missing += r.missing_blocks;
    }
    // The "missing string = table maximum + 1" rule is exercised (4- to 9-symbol blocks
    // absent from acss.data).
    assert!(missing > 0);
    eprintln!("104 cases, largest difference {worst:.2e} bits, {missing} missing blocks");
}

#[test]
fn documented_values() {
    let tables =
        CtmTable::tables_from_json(&common::data_dir().join("bdm/ctm_subset.json")).unwrap();
    let b2 = tables.iter().find(|t| t.name == "CTM-B2-D12").unwrap();
    let ones: Vec<u8> = vec![1; 10];
    let r = bdm(
        b2,
        &ones,
        &[10],
        None,
        Partition::Recursive { min_length: 2 },
    )
    .unwrap();
    assert!((r.bits - 22.784225562763474).abs() < 1e-12);
    // pybdm's README: '01' x 18 with 12-blocks is 28.5757 (4 decimals).
    let s: Vec<u8> = (0..36).map(|i| (i % 2) as u8).collect();
    let r = bdm(b2, &s, &[36], None, Partition::Ignore).unwrap();
    assert!((r.bits - 28.5757).abs() < 5e-5, "{}", r.bits);
    assert_eq!((r.blocks, r.distinct_blocks), (3, 1));
    // Ten ones with the default (ignore) partition: no whole block, an error, not 0.
    let e = bdm(b2, &ones, &[10], None, Partition::Ignore).unwrap_err();
    assert!(e.to_string().contains("BDM would be 0"));
}

/// The same cases on a pybdm installation's full tables, when one is named.
#[test]
fn parity_on_the_full_tables_when_pybdm_is_installed() {
    // Empty counts as unset, as in kcomp itself (find_ctm_dir).
    let Some(dir) = std::env::var("KCOMP_PYBDM_CTM")
        .ok()
        .filter(|d| !d.is_empty())
    else {
        eprintln!(
            "SKIPPED: KCOMP_PYBDM_CTM is not set; the parity test above ran on the committed \
             subset. Set it to a pybdm installation to also check the full tables."
        );
        return;
    };
    for c in fixtures() {
        let (data, shape, partition) = case_input(&c);
        let values: Vec<i64> = data.iter().map(|&x| x as i64).collect();
        let n = c["nsymbols"].as_u64().unwrap() as usize;
        let (r, name) = bdm_of(
            &values,
            &shape,
            Some(n),
            None,
            partition,
            Some(std::path::Path::new(&dir)),
        )
        .unwrap();
        assert_eq!(name, c["table"].as_str().unwrap());
        let want = c["bdm"].as_f64().unwrap();
        assert!(
            (r.bits - want).abs() < 1e-9,
            "{}: {} vs {}",
            c["name"],
            r.bits,
            want
        );
    }
    let (code, out, err) = cli_common::kcomp(&[
        "bdm",
        "--string",
        "1111111111",
        "--partition",
        "recursive",
        "--json",
        "--ctm",
        &dir,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!((v["bits"].as_f64().unwrap() - 22.784225562763474).abs() < 1e-12);
}

#[test]
fn without_tables_the_cli_says_where_to_get_them() {
    let (code, out, err) =
        cli_common::kcomp(&["bdm", "--string", "0101", "--ctm", "/nonexistent/pybdm"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("ctm-b2-d12"), "{err}");
}
