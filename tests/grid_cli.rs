//! The `kcomp grid` command line: byte-identical generation, the score JSON record, and clear
//! errors with exit status 2 on bad input.

use std::process::Command;

fn kcomp(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn data(tag: &str) -> String {
    format!(
        "{}/tests/data/rgp/k=4_u=2_d=16_type={tag}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn generate_compat_rgp_is_byte_identical_for_all_six_settings() {
    for (setting, tag) in [
        ("h", "h"),
        ("v", "v"),
        ("b", "b"),
        ("r", "r"),
        ("hr", "hr"),
        ("h-index-shuffle", "h_index-shuffle"),
    ] {
        let out = kcomp(&[
            "grid",
            "generate",
            "--setting",
            setting,
            "--records",
            "30",
            "--seed",
            "0",
            "--compat",
            "rgp",
        ]);
        assert!(out.status.success());
        assert_eq!(out.stdout, std::fs::read(data(tag)).unwrap(), "{setting}");
    }
}

#[test]
fn score_prints_the_json_record() {
    let dir = tempfile::tempdir().unwrap();
    let ans = dir.path().join("a.md");
    // Horizontal record 0 rows per letter, as a dict (C = 100 in reference mode).
    std::fs::write(
        &ans,
        "```python\nROW = {'A': '**..', 'B': '..**', 'C': '**.*', 'D': '..*.', 'E': '...*', 'F': '***.', 'G': '*...', 'H': '.***'}\n\
         print('\\n'.join(ROW[c] for c in input().split()))\n```\n",
    )
    .unwrap();
    let out = kcomp(&[
        "grid",
        "score",
        "--dataset",
        &data("h"),
        "--record",
        "0",
        "--answer",
        ans.to_str().unwrap(),
        "--parser",
        "reference",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    // The published evaluator's own _info.json keys, then kcomp's own.
    let info = std::fs::read_to_string(format!(
        "{}/tests/data/rgp/published/result/errors/k=4_u=2_d=16_type=h/0_info.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let info: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&info).unwrap();
    let mut want: Vec<&str> = info.keys().map(String::as_str).collect();
    assert_eq!(want.len(), 12);
    want.extend(["errors", "l_p_plus", "l_p", "profile", "status"]);
    // Which parser, the program's bits, and the robust parser's hidden-data verdict.
    want.extend([
        "parser",
        "l_bits",
        "unaccounted_bits",
        "hidden_data",
        "reference_fooled",
    ]);
    let mut got = keys.clone();
    let mut want_sorted = want.clone();
    got.sort();
    want_sorted.sort();
    assert_eq!(got, want_sorted);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["c_length"], 40);
    assert_eq!(v["c_dict_n"], 8);
    assert_eq!(v["c_dict_m"], 32);
    assert_eq!(v["c_error"], 0);
    assert_eq!(v["norm_c"], 100.0);
    assert_eq!(v["profile"], "T1");
    assert_eq!(v["parser"], "reference");
    assert_eq!(v["hidden_data"], serde_json::Value::Null);
    assert_eq!(v["reference_fooled"], false);
    assert!(v["l_bits"].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.md");
    std::fs::write(&empty, "  \n").unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"input\": [\"A\"]\n").unwrap();
    let e = empty.to_str().unwrap();
    for args in [
        vec![
            "grid",
            "score",
            "--dataset",
            &data("h"),
            "--record",
            "30",
            "--answer",
            e,
        ],
        vec![
            "grid",
            "score",
            "--dataset",
            &data("h"),
            "--record",
            "0",
            "--answer",
            e,
        ],
        vec![
            "grid",
            "score",
            "--dataset",
            bad.to_str().unwrap(),
            "--record",
            "0",
            "--answer",
            e,
        ],
        vec![
            "grid",
            "score",
            "--dataset",
            &data("h"),
            "--record",
            "0",
            "--answer",
            e,
            "--parser",
            "fast",
        ],
        vec!["grid", "generate", "--setting", "diagonal"],
        vec![
            "grid",
            "prompt",
            "--dataset",
            "/nonexistent.jsonl",
            "--record",
            "0",
        ],
    ] {
        let out = kcomp(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn prompts_list_all_samples_or_eight_and_a_query() {
    let out = kcomp(&[
        "grid",
        "prompt",
        "--dataset",
        &data("v"),
        "--record",
        "2",
        "--style",
        "stdin",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("Input: ").count(), 16);
    assert!(text.contains("standard input"));
    let out = kcomp(&[
        "grid",
        "prompt",
        "--dataset",
        &data("v"),
        "--record",
        "2",
        "--result-query",
        "9",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    // generate_prompt_cg: 8 shots, then the query input.
    assert_eq!(text.matches("Input:\n").count(), 9);
    assert!(text.ends_with("Output (Only output the answer, not the process) :"));
}
