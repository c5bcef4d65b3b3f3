//! A researcher's own data through the panel: `compare --w --z --out` writes the panel's
//! tables and figures for one dataset, and a `files` family compares several.

use std::path::Path;
use std::process::Command;

/// A language over 3 x 3 objects, `repeats` utterances each: compositional (one word per
/// attribute) or holistic (one arbitrary two-word name per object).
fn write_language(dir: &Path, holistic: bool) {
    std::fs::create_dir_all(dir).unwrap();
    let (mut w, mut z) = (String::new(), String::new());
    for rep in 0..6 {
        for obj in 0..9usize {
            let (a, b) = (obj / 3, obj % 3);
            let words = if holistic {
                let k = (obj * 5 + 2) % 9;
                [k / 3, 3 + k % 3]
            } else {
                [a, 3 + b]
            };
            let _ = rep;
            w.push_str(&format!("{},{}\n", words[0], words[1]));
            z.push_str(&format!("{a},{b}\n"));
        }
    }
    std::fs::write(dir.join("W.csv"), w).unwrap();
    std::fs::write(dir.join("Z.csv"), z).unwrap();
}

fn kcomp(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn one_dataset_gets_a_run_folder_and_a_files_family_compares_several() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write_language(&d.join("data/comp"), false);
    write_language(&d.join("data/hol"), true);
    let (code, stdout, stderr) = kcomp(
        &[
            "compare",
            "--w",
            "data/comp/W.csv",
            "--z",
            "data/comp/Z.csv",
            "--estimators",
            "mapping_mdl,topsim,posdis",
            "--out",
            "run1",
            "--quiet",
        ],
        d,
    );
    assert_eq!(code, 0, "{stderr}");
    for f in ["runs.csv", "summary.csv", "summary.md", "agreement.csv"] {
        assert!(d.join("run1").join(f).is_file(), "{f}: {stdout}");
    }
    assert!(
        stdout.contains("W.csv + Z.csv") && stdout.contains("wrote"),
        "{stdout}"
    );
    let runs = std::fs::read_to_string(d.join("run1/runs.csv")).unwrap();
    // Perfectly compositional: topsim (Hamming on discrete Z) and posdis are 1.
    let topsim = runs.lines().find(|l| l.contains(",topsim,")).unwrap();
    assert!(
        topsim.contains(",1.0,") || topsim.contains(",1,"),
        "{topsim}"
    );
    assert!(
        std::fs::read_dir(d.join("run1")).unwrap().any(|e| e
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "png"))
    );
    // A files family over two folders: the compositional one ranks above the holistic one.
    let panel = "name = \"mine\"\nseeds = 1\nestimators = [\"mapping_mdl\", \"topsim\", \"posdis\"]\n\
                 [[family]]\nname = \"languages\"\nkind = \"files\"\nparameter = \"language\"\n\
                 values = [\"comp\", \"hol\"]\n[family.params]\nroot = \"data\"\n";
    std::fs::write(d.join("mine.toml"), panel).unwrap();
    let (code, _, stderr) = kcomp(&["compare", "mine.toml", "--out", "cmp", "--quiet"], d);
    assert_eq!(code, 0, "{stderr}");
    let summary = std::fs::read_to_string(d.join("cmp/summary.csv")).unwrap();
    let score = |value: &str, est: &str| -> f64 {
        let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
        let line = summary
            .lines()
            .find(|l| {
                let f: Vec<&str> = l.split(',').collect();
                f[col("value")] == value && f[col("estimator")] == est
            })
            .unwrap_or_else(|| panic!("{value} {est}: {summary}"));
        let f: Vec<&str> = line.split(',').collect();
        let s = f[col("score_mean")];
        if s.is_empty() {
            f[col("c_mean")].parse().unwrap()
        } else {
            s.parse().unwrap()
        }
    };
    assert!((score("comp", "topsim") - 1.0).abs() < 1e-9, "{summary}");
    assert!(
        score("comp", "topsim") > score("hol", "topsim") + 0.3,
        "{summary}"
    );
    assert!(
        score("comp", "mapping_mdl") > score("hol", "mapping_mdl"),
        "{summary}"
    );
    // Errors name the folder or the key; more than one seed is refused.
    for (bad, needle) in [
        (panel.replace("\"hol\"]", "\"nope\"]"), "no W.npy"),
        (panel.replace("seeds = 1", "seeds = 2"), "seeds = 1"),
        (panel.replace("root = ", "rot = "), "rot"),
    ] {
        std::fs::write(d.join("bad.toml"), bad).unwrap();
        let (code, _, stderr) = kcomp(&["compare", "bad.toml", "--out", "bad", "--quiet"], d);
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
}

/// Discrete Z's labels are renumbered per attribute to dense ids (as W's token ids are): a Z
/// whose attributes take labels {0, 10^6} (and, in another column, {7, 3}) has the same K(Z),
/// K(Z|W) and C as the same Z with labels {0, 1}, and the loaded targets are identical (so the
/// learners' tables, and memory, do not depend on the label values).
#[test]
fn sparse_z_labels_cost_what_dense_ones_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (mut w, mut dense, mut sparse) = (String::new(), String::new(), String::new());
    for i in 0..48usize {
        let (a, b) = ((i * 7 + 3) % 2, (i / 3) % 2);
        w.push_str(&format!("{},{}\n", a, 2 + b));
        dense.push_str(&format!("{a},{b}\n"));
        sparse.push_str(&format!("{},{}\n", a * 1_000_000, [3, 7][b]));
    }
    std::fs::write(d.join("W.csv"), w).unwrap();
    std::fs::write(d.join("Z_dense.csv"), dense).unwrap();
    std::fs::write(d.join("Z_sparse.csv"), sparse).unwrap();
    let (_, zd) =
        kcomp::io::user_data::load_user_data(&d.join("W.csv"), &d.join("Z_dense.csv"), None)
            .unwrap();
    let (_, zs) =
        kcomp::io::user_data::load_user_data(&d.join("W.csv"), &d.join("Z_sparse.csv"), None)
            .unwrap();
    assert_eq!(zd, zs);
    let run = |z: &str| {
        let (code, stdout, stderr) = kcomp(
            &[
                "compare",
                "--w",
                "W.csv",
                "--z",
                z,
                "--estimators",
                "prequential",
                "--json",
                "--quiet",
            ],
            d,
        );
        assert_eq!(code, 0, "{stderr}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let e = &v["estimates"][0];
        [
            v["k_z"]["bits"].as_f64().unwrap(),
            e["k_z_given_w_bits"].as_f64().unwrap(),
            e["c"].as_f64().unwrap(),
        ]
    };
    let (a, b) = (run("Z_dense.csv"), run("Z_sparse.csv"));
    assert_eq!(a, b);
    // W names both attributes: K(Z|W) far below K(Z) (48 rows x 2 binary attributes).
    assert!(a[1] < 0.5 * a[0] && a[0] > 40.0, "{a:?}");
}

/// The renumbering itself: per column, increasing order of the labels.
#[test]
fn dense_attribute_ids_rank_each_column() {
    let (k, ids) = kcomp::io::user_data::dense_attribute_ids(&[5, 0, 1_000_000, 9, 5, 9], 2);
    assert_eq!(k, 2);
    assert_eq!(ids, vec![0, 0, 1, 1, 0, 1]);
}
