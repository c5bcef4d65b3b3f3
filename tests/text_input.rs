//! W as sentences, ragged rows and sparse ids, through the built binary: the tokeniser on
//! Unicode text, kcomp's padding token said and honoured by the distances and the learners,
//! dense ids whose numbers equal those of the same W written densely, and one-line errors
//! naming the file and line.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn kcomp(args: &[&str], cwd: &Path) -> (i32, String, String) {
    kcomp_env(args, cwd, &[])
}

fn kcomp_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kcomp"));
    cmd.args(args).current_dir(cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn estimate<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["estimates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["estimator"] == name)
        .unwrap_or_else(|| panic!("no {name} in {v}"))
}

/// Six objects (colour, shape) named in sentences of 2 or 3 words, Unicode throughout.
const SENTENCES: [&str; 6] = [
    "Le café rouge.",
    "Le CAFE\u{301} bleu !",
    "一只 猫 rouge",
    "一只 猫 bleu 👍🏽",
    "Straße rouge",
    "STRASSE bleu",
];

fn z_of(rows: usize) -> String {
    (0..rows)
        .map(|i| format!("{},{}\n", (i % 6) / 2, i % 2))
        .collect()
}

#[test]
fn sentences_are_tokenised_padded_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let text: String = (0..4)
        .flat_map(|_| SENTENCES)
        .map(|s| format!("{s}\n"))
        .collect();
    std::fs::write(d.join("W.txt"), text).unwrap();
    std::fs::write(d.join("Z.csv"), z_of(24)).unwrap();
    let (code, out, err) = kcomp(
        &[
            "compare",
            "--w",
            "W.txt",
            "--z",
            "Z.csv",
            "--estimators",
            "topsim_normalised_edit,entropy",
            "--json",
            "--quiet",
        ],
        d,
    );
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let input = &v["dataset"]["provenance"]["params"]["w_input"];
    // café is one token whatever its encoding (NFC); 一只 is two words (no dictionary).
    let vocab_csv = {
        let (code, _, err) = kcomp(
            &[
                "compare",
                "--w",
                "W.txt",
                "--z",
                "Z.csv",
                "--estimators",
                "entropy",
                "--out",
                "run",
                "--quiet",
            ],
            d,
        );
        assert_eq!(code, 0, "{err}");
        std::fs::read_to_string(d.join("run/w_vocabulary.csv")).unwrap()
    };
    let tokens: Vec<&str> = vocab_csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(
        tokens,
        [
            "!", ".", "bleu", "café", "le", "rouge", "strasse", "straße", "一", "只", "猫", "👍🏽",
            "<pad>"
        ],
        "{vocab_csv}"
    );
    assert_eq!(input["distinct"], 12);
    assert_eq!(input["pad"], 12);
    assert_eq!(input["pad_source"]["source"], "kcomp");
    assert_eq!(
        (input["min_length"].as_u64(), input["max_length"].as_u64()),
        (Some(2), Some(5))
    );
    assert_eq!(v["dataset"]["w"]["vocab"], 13);
    assert_eq!(v["dataset"]["w"]["length"], 5);
    // The table says so.
    let (_, table, _) = kcomp(
        &[
            "compare",
            "--w",
            "W.txt",
            "--z",
            "Z.csv",
            "--estimators",
            "entropy",
            "--quiet",
        ],
        d,
    );
    assert!(
        table.contains("note (W): W read as sentences, tokeniser words"),
        "{table}"
    );
    assert!(table.contains("kcomp's padding token 12"), "{table}");
    // Six distinct messages, each 4 times: 6 * 4 = 24 rows, entropy log2(6).
    let h = estimate(&v, "entropy")["score"].as_f64().unwrap();
    assert!((h - 6f64.log2()).abs() < 1e-9, "{h}");
    // chars: grapheme clusters, spaces one token.
    let (code, out, err) = kcomp(
        &[
            "compare",
            "--w",
            "W.txt",
            "--z",
            "Z.csv",
            "--tokeniser",
            "chars",
            "--estimators",
            "entropy",
            "--json",
            "--quiet",
        ],
        d,
    );
    assert_eq!(code, 0, "{err}");
    let input = &json(&out)["dataset"]["provenance"]["params"]["w_input"];
    // "le café rouge." and "le café bleu !": 14 clusters each, the spaces included.
    assert_eq!(input["max_length"], 14);
    assert_eq!(input["min_length"], 10);
}

#[test]
fn padding_is_not_a_letter_for_any_distance() {
    // The same messages as ragged JSONL (kcomp pads), and padded by hand with token 99 to
    // two different widths (--pad 99): every topsim variant and bosdis (a bag of symbols
    // without the padding) give the same value.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let messages: Vec<Vec<u32>> = (0..30u32)
        .map(|i| (0..(1 + i % 4)).map(|k| (i * 7 + k * 3) % 5).collect())
        .collect();
    let z: String = (0..30)
        .map(|i| format!("{},{}\n", i % 3, (i / 3) % 4))
        .collect();
    std::fs::write(d.join("Z.csv"), z).unwrap();
    let write = |name: &str, width: Option<usize>| {
        let text: String = messages
            .iter()
            .map(|m| {
                let mut row: Vec<String> = m.iter().map(|t| t.to_string()).collect();
                if let Some(w) = width {
                    row.resize(w, "99".into());
                }
                format!("[{}]\n", row.join(","))
            })
            .collect();
        std::fs::write(d.join(name), text).unwrap();
    };
    write("ragged.jsonl", None);
    write("pad4.jsonl", Some(4));
    write("pad9.jsonl", Some(9));
    let scores = |file: &str, pad: bool| -> Vec<f64> {
        let mut args = vec![
            "compare",
            "--w",
            file,
            "--z",
            "Z.csv",
            "--estimators",
            "topsim,topsim_normalised_edit,topsim_jaccard,bosdis",
            "--set",
            "topsim.w_distance=hamming",
            "--json",
            "--quiet",
        ];
        if pad {
            args.extend(["--pad", "99"]);
        }
        let (code, out, err) = kcomp(&args, d);
        assert_eq!(code, 0, "{file}: {err}");
        let v = json(&out);
        [
            "topsim",
            "topsim_normalised_edit",
            "topsim_jaccard",
            "bosdis",
        ]
        .iter()
        .map(|e| estimate(&v, e)["score"].as_f64().unwrap())
        .collect()
    };
    let ragged = scores("ragged.jsonl", false);
    assert_eq!(scores("pad4.jsonl", true), ragged);
    assert_eq!(scores("pad9.jsonl", true), ragged);
    // Without --pad the hand padding is read as letters, and the scores move.
    assert_ne!(scores("pad9.jsonl", false), ragged);
    // Normalised edit distance on these messages by hand: rows 0 ([0]) and 1 ([2, 0]) are at
    // distance 2 * 1 / (1 + 2); the padded reading (two letters of padding against one)
    // would say otherwise, so the equality above is a real check of the definition.
}

#[test]
fn sparse_ids_cost_nothing_and_give_the_dense_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // 300 rows of 2 tokens from 10 ids; the sparse file maps id k to 9,999,000 + 97 k
    // (increasing), so its dense ids are the dense file's.
    let (mut dense, mut sparse, mut z) = (String::new(), String::new(), String::new());
    for i in 0..300u64 {
        let (a, b) = (i % 10, (i * 3 + 1) % 10);
        dense.push_str(&format!("{a},{b}\n"));
        sparse.push_str(&format!("{},{}\n", 9_999_000 + 97 * a, 9_999_000 + 97 * b));
        z.push_str(&format!("{},{}\n", a % 5, b % 5));
    }
    std::fs::write(d.join("dense.csv"), dense).unwrap();
    std::fs::write(d.join("sparse.csv"), sparse).unwrap();
    std::fs::write(d.join("Z.csv"), z).unwrap();
    let run = |w: &str| {
        let start = Instant::now();
        let (code, out, err) = kcomp(
            &[
                "compare",
                "--w",
                w,
                "--z",
                "Z.csv",
                "--estimators",
                "mapping_mdl,prequential,topsim,bosdis,posdis,entropy",
                "--json",
                "--quiet",
            ],
            d,
        );
        assert_eq!(code, 0, "{w}: {err}");
        (json(&out), start.elapsed())
    };
    let (a, _) = run("dense.csv");
    let (b, t) = run("sparse.csv");
    for e in [
        "mapping_mdl",
        "prequential",
        "topsim",
        "bosdis",
        "posdis",
        "entropy",
    ] {
        for key in ["k_z_given_w_bits", "score"] {
            assert_eq!(estimate(&a, e)[key], estimate(&b, e)[key], "{e} {key}");
        }
    }
    assert_eq!(b["dataset"]["w"]["vocab"], 10);
    let input = &b["dataset"]["provenance"]["params"]["w_input"];
    assert_eq!(input["remapped"], true);
    assert_eq!(input["smallest_id"], 9_999_000);
    assert_eq!(input["largest_id"], 9_999_873);
    assert_eq!(
        a["dataset"]["provenance"]["params"]["w_input"]["remapped"],
        false
    );
    // Ids near 10^7 took 80-100 s and 5 GB before they were made dense; the bound is loose
    // (a loaded machine) but far below that.
    assert!(t.as_secs() < 60, "{t:?}");
}

#[test]
fn bad_text_and_ragged_inputs_get_one_line_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("Z.csv"), z_of(3)).unwrap();
    std::fs::write(d.join("empty_line.txt"), "a b\n\nc d\n").unwrap();
    std::fs::write(d.join("latin1.txt"), b"a b\ncaf\xe9\nc\n").unwrap();
    std::fs::write(d.join("ok.txt"), "a b\nc\nd e f\n").unwrap();
    std::fs::write(d.join("W.npy.csv"), "1,2\n3,4\n5,6\n").unwrap();
    std::fs::write(d.join("neg.jsonl"), "[1]\n[2, -3]\n[4]\n").unwrap();
    std::fs::write(d.join("midpad.jsonl"), "[1, 0, 2]\n[1]\n[2]\n").unwrap();
    std::fs::write(d.join("Zragged.csv"), "0,1\n1\n0,0\n").unwrap();
    std::fs::write(d.join("W.bin"), "1\n2\n3\n").unwrap();
    std::fs::write(d.join("tok.json"), "{}").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--w", "empty_line.txt", "--z", "Z.csv"],
            "empty_line.txt: line 2 has no tokens",
        ),
        (
            vec!["--w", "latin1.txt", "--z", "Z.csv"],
            "latin1.txt: line 2: not UTF-8 text",
        ),
        (
            vec!["--w", "ok.txt", "--z", "Z.csv", "--pad", "0"],
            "holds sentences",
        ),
        (
            vec!["--w", "W.npy.csv", "--z", "Z.csv", "--tokeniser", "chars"],
            "a tokeniser applies to sentences",
        ),
        (
            vec!["--w", "ok.txt", "--z", "Z.csv", "--tokeniser", "bytes"],
            "is not words, chars or a tokenizer.json",
        ),
        (
            vec!["--w", "neg.jsonl", "--z", "Z.csv"],
            "neg.jsonl: row 2, column 2: token -3 is negative",
        ),
        (
            vec!["--w", "midpad.jsonl", "--z", "Z.csv", "--pad", "0"],
            "midpad.jsonl: row 1: padding token",
        ),
        (
            vec!["--w", "ok.txt", "--z", "Zragged.csv"],
            "Zragged.csv: row 2 has 1 values, row 1 has 2",
        ),
        (
            vec!["--w", "W.bin", "--z", "Z.csv"],
            "W.bin: unknown format",
        ),
        (
            vec!["--w", "ok.txt", "--z", "Z.csv", "--w-format", "jsonl"],
            "ok.txt: line 1: invalid JSON",
        ),
    ];
    #[cfg(not(feature = "tokenizers"))]
    let cases = {
        let mut c = cases;
        c.push((
            vec!["--w", "ok.txt", "--z", "Z.csv", "--tokeniser", "tok.json"],
            "needs kcomp built with the `tokenizers` feature",
        ));
        c
    };
    for (args, want) in cases {
        let mut full = vec!["compare"];
        full.extend(&args);
        full.extend(["--estimators", "entropy", "--quiet"]);
        let (code, out, err) = kcomp(&full, d);
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // The padded table is checked against the memory limit before it is allocated: one row
    // of 60,000 tokens among 3,000 short ones would take 720 MB.
    let mut long = String::from("[");
    long.push_str(&vec!["1"; 60_000].join(","));
    long.push_str("]\n");
    long.push_str(&"[2]\n".repeat(2_999));
    std::fs::write(d.join("long.jsonl"), long).unwrap();
    std::fs::write(d.join("Z3000.csv"), z_of(3_000)).unwrap();
    let (code, _, err) = kcomp_env(
        &[
            "compare",
            "--w",
            "long.jsonl",
            "--z",
            "Z3000.csv",
            "--estimators",
            "entropy",
        ],
        d,
        &[("KCOMP_MAX_MEMORY", "100M")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("long.jsonl: W padded to its longest row (3000 rows x 60000 tokens) needs"),
        "{err}"
    );
}

#[test]
fn prequential_reads_sentences_and_overlays_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // 60 rows: the colour word and the shape word give Z's two columns.
    let colours = ["red", "green", "blue"];
    let shapes = ["cube", "ball"];
    let (mut w, mut w_other, mut z) = (String::new(), String::new(), String::new());
    for i in 0..60 {
        let (c, s) = (i % 3, (i / 3) % 2);
        w.push_str(&format!("A {} {}.\n", colours[c], shapes[s]));
        w_other.push_str(&format!("{}\n", ["x", "y y", "z z z"][i % 3]));
        z.push_str(&format!(
            "{:.2},{:.2}\n",
            c as f64 + 0.01 * (i % 5) as f64,
            s as f64
        ));
    }
    std::fs::write(d.join("en.txt"), w).unwrap();
    std::fs::write(d.join("other.txt"), w_other).unwrap();
    std::fs::write(d.join("Z.csv"), z).unwrap();
    for (w, out) in [("en.txt", "run_en"), ("other.txt", "run_other")] {
        let (code, stdout, err) = kcomp(
            &[
                "prequential",
                "--w",
                w,
                "--z",
                "Z.csv",
                "--precision",
                "0.01",
                "--learners",
                "marginal,ngram1",
                "--out",
                out,
                "--quiet",
            ],
            d,
        );
        assert_eq!(code, 0, "{err}");
        assert!(stdout.contains("note (W): W read as sentences"), "{stdout}");
        assert!(d.join(out).join("w_vocabulary.csv").is_file());
    }
    // "other" has rows of 1-3 tokens: padded, so a GRU joins the learners.
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run_other/result.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = result["learners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("gru")), "{names:?}");
    let (code, stdout, err) = kcomp(
        &[
            "prequential",
            "--overlay",
            "run_en,run_other",
            "--labels",
            "English,other",
            "--figure",
            "fig/overlay.png",
        ],
        d,
    );
    assert_eq!(
        code, 2,
        "the figure's folder does not exist yet: {stdout} {err}"
    );
    std::fs::create_dir(d.join("fig")).unwrap();
    let (code, stdout, err) = kcomp(
        &[
            "prequential",
            "--overlay",
            "run_en,run_other",
            "--labels",
            "English,other",
            "--figure",
            "fig/overlay.png",
        ],
        d,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("overlay.png") && stdout.contains("overlay.svg"),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(d.join("fig/overlay.svg")).unwrap();
    assert!(
        svg.contains("English") && svg.contains("K(Z)/N"),
        "the legend: {svg:.300}"
    );
    let (code, _, err) = kcomp(
        &[
            "prequential",
            "--overlay",
            "run_en",
            "--labels",
            "a,b",
            "--figure",
            "fig/o.png",
        ],
        d,
    );
    assert_eq!(code, 2);
    assert!(err.contains("2 labels for 1 runs"), "{err}");
}
