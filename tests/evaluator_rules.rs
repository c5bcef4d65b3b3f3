//! kcomp judges program output as the reference evaluator does (Python's
//! `str.strip()`, not Rust's `trim()`: they differ on U+001C..U+001F), with both parsers; and
//! `grid score` and `grid report` share one answer-size cap (16 MiB), checked on the open
//! file before anything is read.

use kcomp::datasets::string_grid::read_dataset;
use kcomp::programs::mapping_table::{
    AnswerSource, AnswerStatus, MAX_ANSWER_BYTES, ParserMode, evaluate_modes,
};
use kcomp::programs::sandbox::SandboxConfig;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

#[test]
fn output_is_stripped_with_pythons_rule_by_both_parsers() {
    let rec = read_dataset(&data().join("rgp/k=4_u=2_d=16_type=h.jsonl")).unwrap()[0].clone();
    let answer = std::fs::read_to_string(data().join("answers/compositional/h/0.txt")).unwrap();
    let modes = [ParserMode::Reference, ParserMode::Robust];
    let cfg = SandboxConfig::default();
    let plain = evaluate_modes(AnswerSource::Answer(&answer), &rec, &modes, &cfg).unwrap();
    // The same program with information separators (whitespace to CPython) around the grid,
    // and Unicode spaces both languages strip.
    let padded = answer.replace(
        "print('\\n'.join(''.join(r) for r in grid))",
        "print('\\x1c\\x1d\\u3000' + '\\n'.join(''.join(r) for r in grid) + '\\x1e\\x1f\\x85')",
    );
    assert_ne!(padded, answer);
    let got = evaluate_modes(AnswerSource::Answer(&padded), &rec, &modes, &cfg).unwrap();
    for (p, g) in plain.iter().zip(&got) {
        let (p, g) = (p.scores.as_ref().unwrap(), g.scores.as_ref().unwrap());
        assert_eq!(p.errors, 0, "{p:?}");
        assert_eq!(g.errors, 0, "{}: {g:?}", g.parser);
        assert_eq!(g.status, "ok");
    }
    // A separator inside the grid is not whitespace at its ends: every sample is wrong.
    let inside = answer.replace(
        "print('\\n'.join(''.join(r) for r in grid))",
        "print('\\n\\x1c'.join(''.join(r) for r in grid))",
    );
    let got = evaluate_modes(AnswerSource::Answer(&inside), &rec, &modes, &cfg).unwrap();
    for g in &got {
        assert_eq!(g.status, AnswerStatus::Ok);
        assert_eq!(g.scores.as_ref().unwrap().errors, 16);
    }
}

/// A sparse file of `len` bytes holding an answer at its start.
fn big_answer(path: &Path, len: u64) {
    let answer = std::fs::read(data().join("answers/compositional/h/0.txt")).unwrap();
    std::fs::write(path, answer).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn score_and_report_refuse_answers_above_one_cap_before_reading() {
    assert_eq!(MAX_ANSWER_BYTES, 16 << 20);
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("answers");
    let h = tree.join("m1/h");
    std::fs::create_dir_all(&h).unwrap();
    // 200 MB (a sparse file: nothing to write, and nothing may be read).
    big_answer(&h.join("0.txt"), 200_000_000);
    big_answer(&h.join("1.txt"), MAX_ANSWER_BYTES + 1);
    std::fs::copy(
        data().join("answers/compositional/h/0.txt"),
        h.join("2.txt"),
    )
    .unwrap();
    let dataset = data().join("rgp/k=4_u=2_d=16_type=h.jsonl");
    for (file, refused) in [("0.txt", true), ("1.txt", true), ("2.txt", false)] {
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
            .args(["grid", "score", "--record", "0", "--json"])
            .arg("--dataset")
            .arg(&dataset)
            .arg("--answer")
            .arg(h.join(file))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if refused {
            assert_eq!(out.status.code(), Some(2), "{file}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("16.0 MiB") && err.contains(file), "{err}");
            assert!(start.elapsed() < Duration::from_secs(20));
        } else {
            assert!(out.status.success(), "{err}");
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(["grid", "report", "--no-plots"])
        .arg(&tree)
        .arg("--data")
        .arg(data().join("rgp"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let per = std::fs::read_to_string(tree.join("report/per_answer.csv")).unwrap();
    for (record, status) in [
        ("0", "\"unreadable: "),
        ("1", "\"unreadable: "),
        ("2", ",ok,"),
    ] {
        let row = per
            .lines()
            .find(|l| l.starts_with(&format!("m1,h,{record},")))
            .unwrap_or_else(|| panic!("{per}"));
        assert!(row.contains(status), "{row}");
        if status != ",ok," {
            assert!(row.contains("16.0 MiB"), "{row}");
        }
    }
}
