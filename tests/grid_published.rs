//! The published evaluator's own outputs: `tests/data/rgp/published` holds a result tree
//! scored by the published `program_eval_5.py` (the 60 golden snippets, and programs with 0,
//! 1, 8 and 16 wrong samples and the empty program) and result-generation answers judged by
//! `program_eval_cg.py` (3 of 5 right, `cg_accuracy.json`); see `make_fixture.py` there.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp/published")
}

fn report(dir: &Path, out: &Path, extra: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args([
            "grid",
            "report",
            dir.to_str().unwrap(),
            "--no-plots",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{:?} {err}", o.status);
    err
}

/// Every file under `root`, relative path -> bytes.
fn files(root: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn score_json_has_the_evaluators_fields_for_1_8_and_16_errors() {
    let dir = fixture().join("result/errors/k=4_u=2_d=16_type=h");
    let data = fixture().join("../k=4_u=2_d=16_type=h.jsonl");
    for (i, errors) in [(0, 0), (1, 1), (2, 8), (3, 16), (4, 16)] {
        let o = Command::new(env!("CARGO_BIN_EXE_kcomp"))
            .args(["grid", "score", "--json", "--record", &i.to_string()])
            .arg("--dataset")
            .arg(&data)
            .arg("--answer")
            .arg(dir.join(format!("{i}.txt")))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let text = std::fs::read_to_string(dir.join(format!("{i}_info.json"))).unwrap();
        let want: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(want.len(), 12);
        for (k, v) in &want {
            assert_eq!(&got[k], v, "record {i} field {k}");
        }
        assert_eq!(got["errors"], errors, "record {i}");
        assert_eq!(got["c_error"], 20 * errors, "record {i}");
        assert_eq!(got["l_p_plus"], got["c_length"]);
        assert_eq!(got["l_p"], got["c"]);
    }
}

#[test]
fn published_tree_rescores_identically_and_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let (out1, written, out2) = (
        tmp.path().join("r1"),
        tmp.path().join("written"),
        tmp.path().join("r2"),
    );
    let msg = report(
        &fixture(),
        &out1,
        &["--write-published", written.to_str().unwrap()],
    );
    // kcomp's reference scores equal the evaluator's stored _info.json on every field of
    // every answer (65 answers: 60 snippets, 5 with 0/1/8/16 errors and none).
    assert!(
        msg.contains("stored _info.json differing from kcomp: 0 of 65"),
        "{msg}"
    );
    let stored = std::fs::read_to_string(out1.join("stored_differences.csv")).unwrap();
    assert_eq!(stored.lines().count(), 0, "{stored}");
    // Written in the published layout: byte for byte what the published code wrote
    // (programs, answers, _info.json, stat_{n}.json, result_cg8 answers).
    let want = files(&fixture().join("result"));
    let got = files(&written.join("result"));
    assert_eq!(want.len(), got.len());
    for (p, bytes) in &want {
        assert_eq!(
            got.get(p).map(|b| String::from_utf8_lossy(b).into_owned()),
            Some(String::from_utf8_lossy(bytes).into_owned()),
            "{p:?}"
        );
    }
    assert_eq!(
        files(&fixture().join("result_cg8")),
        files(&written.join("result_cg8"))
    );
    // Read back: the same scores.
    let msg = report(&written, &out2, &[]);
    assert!(msg.contains("differing from kcomp: 0 of 65"), "{msg}");
    for f in [
        "per_answer.csv",
        "summary.csv",
        "table3.csv",
        "parser_differences.csv",
    ] {
        assert_eq!(
            std::fs::read_to_string(out1.join(f)).unwrap(),
            std::fs::read_to_string(out2.join(f)).unwrap(),
            "{f}"
        );
    }
    // Table 3: the result-generation accuracy as program_eval_cg.py computed it.
    let cg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("cg_accuracy.json")).unwrap())
            .unwrap();
    let t3 = std::fs::read_to_string(out1.join("table3.csv")).unwrap();
    let row = t3.lines().find(|l| l.starts_with("errors,h,")).unwrap();
    assert_eq!(
        row,
        format!("errors,h,{:.2},5,43.93", cg["accuracy"].as_f64().unwrap())
    );
    // The differences table: the robust parser counts the 1-error program's table apart.
    let pd = std::fs::read_to_string(out1.join("parser_differences.csv")).unwrap();
    assert!(
        pd.starts_with("model,dataset,record,field,left,right\n"),
        "{pd}"
    );
    assert!(
        pd.contains("errors,k=4_u=2_d=16_type=h,1,c_dict_m,33,48"),
        "{pd}"
    );
    // The empty program: profile no_program, and L(P+) = 40 is said to be the clip floor.
    let per = std::fs::read_to_string(out1.join("per_answer.csv")).unwrap();
    let empty = per.lines().find(|l| l.starts_with("errors,h,4,")).unwrap();
    assert!(empty.contains(",no_program,"), "{empty}");
    assert!(
        empty.contains("n = 0 raised to the clip floor 8"),
        "{empty}"
    );
}
