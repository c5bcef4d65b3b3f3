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
