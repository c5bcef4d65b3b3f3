//! The `kcomp` binary: JSON outputs, .npy files, sweeps, and bad input (exit status 2, a one-line
//! error naming the parameter, never a panic).

use std::process::{Command, Output};

use ndarray::Array2;
use ndarray_npy::read_npy;

fn kcomp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .expect("run kcomp")
}

fn json_of(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn synth_lookup_prints_all_terms_in_bits() {
    let v = json_of(&kcomp(&["synth", "lookup", "--samples", "200", "--json"]));
    for key in [
        "k_pw",
        "k_w_given_pw",
        "k_f",
        "k_z_given_wf",
        "k_z",
        "k_z_given_w",
        "c",
        "c_per_sample",
        "topsim",
    ] {
        assert!(v[key].as_f64().unwrap().is_finite(), "{key}");
    }
    assert_eq!(v["units"], "bits");
    let sum = ["k_pw", "k_w_given_pw", "k_f", "k_z_given_wf"]
        .iter()
        .map(|k| v[k].as_f64().unwrap())
        .sum::<f64>();
    assert!((sum - v["k_z"].as_f64().unwrap()).abs() < 1e-6);
    // K(W|p_w) = N M log2 K.
    assert!((v["k_w_given_pw"].as_f64().unwrap() - 200.0 * 16.0 * 10f64.log2()).abs() < 1e-6);
}

#[test]
fn synth_grammar_writes_npy_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let v = json_of(&kcomp(&[
        "synth",
        "grammar",
        "--samples",
        "64",
        "--width",
        "2",
        "--depth",
        "3",
        "--composition",
        "tensor",
        "--json",
        "--out",
        out,
    ]));
    assert!(v["c"].as_f64().unwrap() > 1.0);
    let w: Array2<i64> = read_npy(dir.path().join("W.npy")).unwrap();
    let z: Array2<f64> = read_npy(dir.path().join("Z.npy")).unwrap();
    let zg: Array2<i64> = read_npy(dir.path().join("Z_grid.npy")).unwrap();
    assert_eq!(w.dim(), (64, 16));
    assert_eq!(z.dim(), (64, 10));
    assert!((z[[3, 4]] - zg[[3, 4]] as f64 * 0.01).abs() < 1e-9);
    // Every sentence follows the POS transitions: next POS is +1 or +2 (mod 5).
    for row in w.rows() {
        assert!(row[0] % 5 <= 1);
        for pair in row.as_slice().unwrap().windows(2) {
            let step = (pair[1] % 5 - pair[0] % 5).rem_euclid(5);
            assert!(step == 1 || step == 2);
        }
    }
}

#[test]
fn codelength_skellam_is_finite_in_the_far_tail() {
    let v = json_of(&kcomp(&[
        "codelength",
        "skellam",
        "--mu1",
        "0.5",
        "--mu2",
        "0.5",
        "--k",
        "-1000",
    ]));
    let nats = v["logpmf_nats"].as_f64().unwrap();
    assert!((nats + 6606.27510929789).abs() < 1e-8, "{nats}");
    let bits = v["bits"].as_f64().unwrap();
    assert!((bits - (-nats) / std::f64::consts::LN_2).abs() < 1e-9);
}

fn assert_rejected(args: &[&str], needle: &str) {
    let out = kcomp(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: expected `{needle}` in: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty() || !String::from_utf8_lossy(&out.stdout).contains("NaN"));
}

#[test]
fn bad_input_exits_2_naming_the_parameter() {
    assert_rejected(&["synth", "lookup", "--ngram", "3"], "ngram");
    assert_rejected(&["synth", "lookup", "--dim", "60"], "dim");
    assert_rejected(&["synth", "lookup", "--vocab", "1"], "vocab");
    assert_rejected(&["synth", "lookup", "--precision", "0"], "precision");
    assert_rejected(&["synth", "lookup", "--precision", "-0.5"], "precision");
    assert_rejected(&["synth", "lookup", "--noise", "NaN"], "noise");
    assert_rejected(&["synth", "lookup", "--samples", "0"], "samples");
    assert_rejected(&["synth", "lookup", "--samples", "-3"], "samples");
    assert_rejected(&["synth", "lookup", "--bogus"], "--bogus");
    assert_rejected(&["synth", "grammar", "--length", "10"], "length");
    assert_rejected(&["synth", "grammar", "--pos", "2"], "pos");
    assert_rejected(
        &[
            "codelength",
            "skellam",
            "--mu1",
            "-1",
            "--mu2",
            "1",
            "--k",
            "0",
        ],
        "mu1",
    );
    assert_rejected(
        &["synth", "lookup", "--rng", "numpy", "--ngram", "16"],
        "rng",
    );
}

#[test]
fn malformed_and_invalid_sweep_configs_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\ngenerator = lookup\n").unwrap();
    let out = dir.path().join("out");
    let (bad_s, out_s) = (bad.to_str().unwrap(), out.to_str().unwrap());
    assert_rejected(&["sweep", bad_s, "--out", out_s], "bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\ngenerator = \"lookup\"\nparameter = \"ngram\"\nvalues = [3]\nseeds = 2\n",
    )
    .unwrap();
    assert_rejected(&["sweep", bad_s, "--out", out_s], "ngram");
    assert_rejected(
        &["sweep", "/nonexistent/sweep.toml", "--out", out_s],
        "sweep.toml",
    );
}

#[test]
fn sweep_writes_tables_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    std::fs::write(
        &config,
        r#"
name = "tiny"
generator = "lookup"
parameter = "length"
values = [4, 8, 16]
seeds = 3
[params]
samples = 100
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let res = kcomp(&[
        "sweep",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 9);
    assert!(runs.lines().next().unwrap().contains("k_z_bits"));
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 1 + 3);
    for png in ["c.png", "topsim.png"] {
        let bytes = std::fs::read(out.join(png)).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
    }
}

#[test]
fn sweep_resume_reads_back_saved_runs_with_matching_settings() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    let write_config = |samples: usize| {
        std::fs::write(
            &config,
            format!(
                "name = \"tiny\"\ngenerator = \"lookup\"\nparameter = \"length\"\nvalues = [4, 8]\n\
                 seeds = 2\ntopsim = false\n[params]\nsamples = {samples}\n"
            ),
        )
        .unwrap()
    };
    let out = dir.path().join("out");
    let sweep = |resume: bool| {
        let mut args = vec![
            "sweep",
            config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        if resume {
            args.push("--resume");
        }
        let res = kcomp(&args);
        assert!(
            res.status.success(),
            "{}",
            String::from_utf8_lossy(&res.stderr)
        );
        std::fs::read_to_string(out.join("runs.csv")).unwrap()
    };
    write_config(50);
    let first = sweep(false);
    // Every run is saved with its settings; mark one, --resume must read it back.
    let saved = out.join("runs").join("8_s1.json");
    let text = std::fs::read_to_string(&saved).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    // A consistent mark (the sums, C and the digest recomputed): a saved result is verified
    // before it is trusted, so a bare edit would be recomputed instead (bad_inputs_round4).
    let rows = &mut json["rows"];
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let (k_pw, k_w, k_zwf) = (
        f(&rows["k_pw"]),
        f(&rows["k_w_given_pw"]),
        f(&rows["k_z_given_wf"]),
    );
    let k_z = k_pw + k_w + 4242.0 + k_zwf;
    let k_zw = 4242.0 + k_zwf;
    rows["k_f"] = serde_json::json!(4242.0);
    rows["k_z"] = serde_json::json!(k_z);
    rows["k_z_given_w"] = serde_json::json!(k_zw);
    rows["c"] = serde_json::json!(k_z / k_zw);
    json["sha256"] =
        kcomp::sweeps::engine::digest("saved result", &[&json["settings"], &json["rows"]]).into();
    std::fs::write(&saved, json.to_string()).unwrap();
    let resumed = sweep(true);
    assert_ne!(first, resumed);
    assert!(resumed.contains("4242"), "{resumed}");
    // Without --resume, or with other settings, everything is computed again.
    assert_eq!(sweep(false), first);
    std::fs::write(&saved, json.to_string()).unwrap();
    write_config(60);
    assert!(!sweep(true).contains("4242"));
}
