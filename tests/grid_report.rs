//! `kcomp grid report` over a small answer tree: per-answer statuses for bad answers, the batch
//! goes on, CSV/Markdown outputs with units.

use std::process::Command;

#[test]
fn report_scores_a_tree_with_bad_answers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let h = root.join("m1/h");
    std::fs::create_dir_all(&h).unwrap();
    std::fs::create_dir_all(root.join("m2/h")).unwrap();
    std::fs::create_dir_all(root.join("m1/zz")).unwrap();
    std::fs::write(h.join("0.txt"), "```python\nwhile True: pass\n```").unwrap();
    std::fs::write(h.join("1.txt"), "").unwrap();
    std::fs::write(h.join("99.txt"), "```python\nprint(1)\n```").unwrap();
    std::fs::write(h.join("2.txt"), "no code at all").unwrap();
    std::fs::write(root.join("m2/h/0.txt"), "```python\nprint('....')\n```").unwrap();
    std::fs::write(root.join("m2/h/0.result.txt"), "....\n....\n....\n....").unwrap();
    let data = format!("{}/tests/data/rgp", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args([
            "grid",
            "report",
            root.to_str().unwrap(),
            "--data",
            &data,
            "--timeout",
            "0.25",
            "--no-plots",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let per = std::fs::read_to_string(root.join("report/per_answer.csv")).unwrap();
    let status_of = |rec: &str| -> String {
        per.lines()
            .find(|l| l.starts_with(&format!("m1,h,{rec},")))
            .unwrap_or_else(|| panic!("{rec} missing:\n{per}"))
            .split(',')
            .nth(3)
            .unwrap()
            .to_string()
    };
    assert_eq!(status_of("0"), "timeout");
    assert_eq!(status_of("1"), "empty_answer");
    assert!(status_of("99").starts_with("no_record"));
    assert_eq!(status_of("2"), "no_program");
    assert!(per.lines().next().unwrap().contains("C(P) [0-100]"));
    let summary = std::fs::read_to_string(root.join("report/summary.csv")).unwrap();
    assert!(summary.contains("mean L(P+) [entries]"));
    let m2 = summary.lines().find(|l| l.starts_with("m2,h,")).unwrap();
    // print('....') is wrong on all 16 samples: E = 16, C = 0; its result answer is wrong too.
    assert!(m2.contains(",16.00,"), "{m2}");
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let m2: Vec<&str> = m2.split(',').collect();
    assert_eq!(m2[col("mean C(P) [0-100]")], "0.00");
    assert_eq!(m2[col("result accuracy [%]")], "0.00");
    assert_eq!(m2[col("dataset")], "k=4_u=2_d=16_type=h");
    assert!(
        std::fs::read_to_string(root.join("report/report.md"))
            .unwrap()
            .contains("| m2 | h |")
    );
}
