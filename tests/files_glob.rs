//! A `files` family takes glob patterns: `"runs/*"` is every dataset folder under `runs`
//! (sorted), and a pattern that matches nothing is an error naming it.

use std::process::Command;

fn write_dataset(dir: &std::path::Path, shift: u32) {
    std::fs::create_dir_all(dir).unwrap();
    let (mut w, mut z) = (String::new(), String::new());
    for a in 0..4u32 {
        for b in 0..4u32 {
            w += &format!("{},{}\n", (a + shift) % 4, b + 4);
            z += &format!("{a},{b}\n");
        }
    }
    std::fs::write(dir.join("W.csv"), w).unwrap();
    std::fs::write(dir.join("Z.csv"), z).unwrap();
}

fn config(values: &str) -> String {
    format!(
        "name = \"mine\"\nseeds = 1\nestimators = [\"topsim\", \"posdis\"]\n[[family]]\n\
         name = \"languages\"\nkind = \"files\"\nparameter = \"language\"\nvalues = {values}\n\
         [family.params]\nroot = \"data\"\n"
    )
}

fn compare(dir: &std::path::Path, config_text: &str) -> std::process::Output {
    std::fs::write(dir.join("panel.toml"), config_text).unwrap();
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .current_dir(dir)
        .args(["compare", "panel.toml", "--out", "out", "--force"])
        .output()
        .unwrap()
}

#[test]
fn a_glob_lists_every_dataset_folder() {
    let dir = tempfile::tempdir().unwrap();
    for (name, shift) in [("b", 1), ("a", 0), ("c", 2)] {
        write_dataset(&dir.path().join("data/runs").join(name), shift);
    }
    // A file beside the folders is not a dataset.
    std::fs::write(dir.path().join("data/runs/notes.txt"), "x").unwrap();
    let out = compare(dir.path(), &config("[\"runs/*\"]"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    let values: Vec<&str> = summary
        .lines()
        .skip(1)
        .filter(|l| l.contains(",topsim,"))
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(values, ["runs/a", "runs/b", "runs/c"], "{summary}");
    // Each is a one-to-one positional language: topsim 1 whatever the relabelling.
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let at = header.iter().position(|&h| h == "score_mean").unwrap();
    for line in summary.lines().filter(|l| l.contains(",topsim,")) {
        let score: f64 = line.split(',').nth(at).unwrap().parse().unwrap();
        assert!((score - 1.0).abs() < 1e-12, "{line}");
    }
}

#[test]
fn a_glob_matching_nothing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write_dataset(&dir.path().join("data/runs/a"), 0);
    let out = compare(dir.path(), &config("[\"runz/*\"]"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("runz/*") && err.contains("matches no folder"),
        "{err}"
    );
}
