//! BDM parity with pybdm 0.1.0 (fixtures: tests/data/bdm/fixtures.json, inputs and pybdm's
//! outputs only, generated once by tests/data/bdm/make_fixtures.py): its documented examples
//! and 100 seeded random inputs, to 1e-9. The CTM tables are GPL-2 data (acss.data via pybdm)
//! and are not in this repository: the parity cases run when KCOMP_PYBDM_CTM names a pybdm
//! installation (CI fetches one: .ci/bdm-parity.sh) and say SKIPPED otherwise. Without pybdm,
//! the algorithm is checked against closed forms on a made-up table of the same format.

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

/// The pybdm installation named by KCOMP_PYBDM_CTM (empty counts as unset, as in kcomp).
fn pybdm_dir() -> Option<String> {
    let dir = std::env::var("KCOMP_PYBDM_CTM")
        .ok()
        .filter(|d| !d.is_empty());
    if dir.is_none() {
        eprintln!(
            "SKIPPED: KCOMP_PYBDM_CTM is not set (pybdm's CTM tables are GPL-2 data, not in \
             this repository). `pip install --no-deps --target DIR pybdm` and set it to \
             DIR/pybdm to run the parity cases (.ci/bdm-parity.sh does)."
        );
    }
    dir
}

/// A made-up table in the tables' format (not CTM values): BDM's closed forms on it.
#[test]
fn closed_forms_on_a_made_up_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("made_up.json");
    let alternating: String = (0..12)
        .map(|i| if i % 2 == 0 { '0' } else { '1' })
        .collect();
    let json = serde_json::json!({"tables": [{
        "name": "CTM-B2-D12", "nsymbols": 2, "ndim": 1, "block": 12,
        "shapes": [
            {"shape": [12], "missing": 41.0, "values": {alternating.clone(): 30.0, "000000000000": 20.0}},
            {"shape": [4], "missing": 9.0, "values": {"0101": 6.5}},
        ]
    }]});
    std::fs::write(&path, json.to_string()).unwrap();
    let tables = CtmTable::tables_from_json(&path).unwrap();
    let t = &tables[0];
    // '01' x 18, 12-blocks, ignore: three equal blocks, CTM + log2(3).
    let s: Vec<u8> = (0..36).map(|i| (i % 2) as u8).collect();
    let r = bdm(t, &s, &[36], None, Partition::Ignore).unwrap();
    assert!((r.bits - (30.0 + 3f64.log2())).abs() < 1e-12, "{}", r.bits);
    assert_eq!((r.blocks, r.distinct_blocks, r.missing_blocks), (3, 1, 0));
    // Two distinct blocks, one absent from the table: it costs the shape's "missing" value
    // (pybdm's table maximum + 1); multiplicities 1 each add nothing. (Ones would read as
    // zeros: the tables key blocks up to a relabelling of symbols, first symbol 0.)
    let mut s2: Vec<u8> = vec![0; 12];
    s2.extend([0u8, 0, 1, 1].repeat(3));
    let r = bdm(t, &s2, &[24], None, Partition::Ignore).unwrap();
    assert!((r.bits - (20.0 + 41.0)).abs() < 1e-12, "{}", r.bits);
    assert_eq!(r.missing_blocks, 1);
    // Ignore drops the tail shorter than a block (2 symbols here) and says so.
    let r = bdm(t, &s[..14], &[14], None, Partition::Ignore).unwrap();
    assert!((r.bits - 30.0).abs() < 1e-12);
    assert_eq!(r.uncovered_symbols, 2);
    assert!(!r.warnings.is_empty());
    // Recursive: a 12-block, then the 4-symbol tail as its own block ('0101').
    let r = bdm(
        t,
        &s[..16],
        &[16],
        None,
        Partition::Recursive { min_length: 2 },
    )
    .unwrap();
    assert!((r.bits - (30.0 + 6.5)).abs() < 1e-12, "{}", r.bits);
    // No whole block: an error, not 0.
    let e = bdm(t, &s[..10], &[10], None, Partition::Ignore).unwrap_err();
    assert!(e.to_string().contains("BDM would be 0"));
}

/// pybdm's documented examples and 100 random inputs on a pybdm installation's tables.
#[test]
fn parity_with_pybdm_on_documented_examples_and_100_random_inputs() {
    let Some(dir) = pybdm_dir() else {
        return;
    };
    let cases = fixtures();
    assert_eq!(cases.len(), 104);
    let (mut missing, mut worst) = (0usize, 0f64);
    for c in &cases {
        let (data, shape, partition) = case_input(c);
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
        let err = (r.bits - want).abs();
        worst = worst.max(err);
        assert!(err < 1e-9, "{}: kcomp {} pybdm {}", c["name"], r.bits, want);
        missing += r.missing_blocks;
    }
    // The "missing string = table maximum + 1" rule is exercised (4- to 9-symbol blocks
    // absent from acss.data).
    assert!(missing > 0);
    eprintln!("104 cases, largest difference {worst:.2e} bits, {missing} missing blocks");
    // The documented values through the CLI.
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
    let alternating = "01".repeat(18);
    let (code, out, err) =
        cli_common::kcomp(&["bdm", "--string", &alternating, "--json", "--ctm", &dir]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!((v["bits"].as_f64().unwrap() - 28.5757).abs() < 5e-5, "{v}");
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
