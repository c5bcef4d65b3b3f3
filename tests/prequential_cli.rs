//! `kcomp prequential` on user files: good input works, bad input exits 2 with a clear message.

use std::path::Path;
use std::process::Command;

fn kcomp(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .expect("run kcomp");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// A small compositional data set: W = (a, b), Z = (a, b), 60 rows.
fn good_csv(dir: &Path) -> (String, String) {
    let mut w = String::from("w0,w1\n");
    let mut z = String::new();
    for i in 0..60 {
        let (a, b) = (i % 3, (i / 3) % 4);
        w += &format!("{a},{b}\n");
        z += &format!("{a},{b}\n");
    }
    (write(dir, "w.csv", &w), write(dir, "z.csv", &z))
}

const SMALL: &[&str] = &[
    "--protocol",
    "reference",
    "--val-size",
    "10",
    "--increment",
    "10,10",
    "--hidden",
    "16",
    "--emb-dim",
    "4",
    "--max-epochs",
    "20",
    "--patience",
    "5",
    "--batch-size",
    "10",
    "--ordering",
    "random",
    "--quiet",
];

#[test]
fn csv_input_json_output() {
    let dir = tempfile::tempdir().unwrap();
    let (w, z) = good_csv(dir.path());
    let out = dir.path().join("out");
    let mut args = vec![
        "prequential",
        "--w",
        &w,
        "--z",
        &z,
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(SMALL);
    let (code, stdout, stderr) = kcomp(&args);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    for k in ["k_data", "k_data_given_f", "k_f", "k_z", "c_l"] {
        assert!(v[k].as_f64().unwrap().is_finite(), "{k}");
    }
    // K(Z): 50 encoded rows, uniform over 3 x 4 values (n_vals = 4 shared): 50 * 2 * 2 bits.
    assert!((v["k_z"].as_f64().unwrap() - 200.0).abs() < 1e-9);
    assert_eq!(v["chunks"].as_array().unwrap().len(), 5);
    for f in ["result.json", "curve.csv", "curve.png"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let csv = std::fs::read_to_string(out.join("curve.csv")).unwrap();
    assert!(csv.starts_with(
        "chunk,start_rows,end_rows,model_bits,naive_bits,charged_bits,bits_per_sample"
    ));
}

/// `--protocol online --learners ...` on a user's files: the JSON lists each learner's own code,
/// the share of the mixture's bits it won (summing to 1) and its final weight.
#[test]
fn json_says_which_learner_the_code_rests_on() {
    let dir = tempfile::tempdir().unwrap();
    let (w, z) = good_csv(dir.path());
    let args = [
        "prequential",
        "--w",
        &w,
        "--z",
        &z,
        "--protocol",
        "online",
        "--learners",
        "marginal,ngram2,rules",
        "--json",
        "--quiet",
    ];
    let (code, stdout, stderr) = kcomp(&args);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let learners = v["learners"].as_array().unwrap();
    let names: Vec<&str> = learners
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["marginal", "ngram2", "rules"]);
    let share: f64 = learners.iter().map(|l| l["share"].as_f64().unwrap()).sum();
    assert!((share - 1.0).abs() < 1e-6, "{share}");
    assert!(learners.iter().all(|l| l["bits"].as_f64().unwrap() > 0.0));
}

#[test]
fn npy_and_jsonl_input() {
    let dir = tempfile::tempdir().unwrap();
    let w = ndarray::Array2::from_shape_fn((60, 2), |(i, j)| ((i + j) % 5) as i64);
    let z = ndarray::Array2::from_shape_fn((60, 1), |(i, _)| (i % 5) as f64 * 0.3);
    let wp = dir.path().join("w.npy");
    let zp = dir.path().join("z.npy");
    ndarray_npy::write_npy(&wp, &w).unwrap();
    ndarray_npy::write_npy(&zp, &z).unwrap();
    let mut args = vec![
        "prequential",
        "--w",
        wp.to_str().unwrap(),
        "--z",
        zp.to_str().unwrap(),
        "--precision",
        "0.01",
        "--json",
    ];
    args.extend_from_slice(SMALL);
    let (code, stdout, stderr) = kcomp(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"c_l\""));
    // JSONL.
    let wl: String = (0..60)
        .map(|i| format!("[{}, {}]\n", i % 3, i % 2))
        .collect();
    let zl: String = (0..60).map(|i| format!("[{}]\n", i % 3)).collect();
    let (w, z) = (
        write(dir.path(), "w.jsonl", &wl),
        write(dir.path(), "z.jsonl", &zl),
    );
    let mut args = vec!["prequential", "--w", &w, "--z", &z];
    args.extend_from_slice(SMALL);
    let (code, stdout, stderr) = kcomp(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("C^L(Z)"));
}

fn expect_error(args: &[&str], needle: &str) {
    let (code, stdout, stderr) = kcomp(args);
    assert_eq!(code, 2, "stdout {stdout} stderr {stderr}");
    assert!(stderr.contains(needle), "expected `{needle}` in: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one-line error: {stderr}");
    assert!(!stderr.contains("NaN") && !stderr.contains("panicked"));
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (w, z) = good_csv(d);
    // Mismatched row counts.
    let z_short = write(d, "z_short.csv", "0,1\n1,2\n");
    expect_error(
        &["prequential", "--w", &w, "--z", &z_short, "--quiet"],
        "z_short.csv",
    );
    // NaN.
    let z_nan = write(
        d,
        "z_nan.csv",
        &"0.5\n".repeat(30).replace("0.5\n0.5\n0.5", "0.5\nNaN\n0.5"),
    );
    let w30 = write(d, "w30.csv", &"1,2\n".repeat(30));
    expect_error(
        &[
            "prequential",
            "--w",
            &w30,
            "--z",
            &z_nan,
            "--precision",
            "0.1",
        ],
        "not finite",
    );
    // Wrong dtype: float tokens.
    let w_float = write(d, "w_float.csv", &"1.5,2\n".repeat(60));
    expect_error(
        &["prequential", "--w", &w_float, "--z", &z],
        "integer tokens",
    );
    // Float Z without precision.
    let z_float = write(d, "z_float.csv", &"0.25\n".repeat(60));
    expect_error(&["prequential", "--w", &w, "--z", &z_float], "precision");
    // Empty file.
    let empty = write(d, "empty.csv", "");
    expect_error(&["prequential", "--w", &empty, "--z", &z], "empty.csv");
    // Too few rows for the schedule.
    expect_error(
        &[
            "prequential",
            "--w",
            &w,
            "--z",
            &z,
            "--protocol",
            "reference",
            "--val-size",
            "10",
            "--increment",
            "50,50",
        ],
        "too few rows",
    );
    // Validation set swallowing everything.
    expect_error(
        &[
            "prequential",
            "--w",
            &w,
            "--z",
            &z,
            "--protocol",
            "reference",
            "--val-size",
            "60",
        ],
        "val_size",
    );
    // Missing file, unknown format, bad config.
    expect_error(
        &["prequential", "--w", "/nonexistent/w.npy", "--z", &z],
        "not found",
    );
    // .txt is read as sentences; another extension is an unknown format.
    let txt = write(d, "w.dat", "1\n");
    expect_error(&["prequential", "--w", &txt, "--z", &z], "unknown format");
    let cfg = write(d, "bad.toml", "[prequential]\nbogus = 1\n");
    expect_error(&["prequential", "--config", &cfg], "bad.toml");
    // Bad numbers in flags.
    let reference = [
        "prequential",
        "--protocol",
        "reference",
        "--w",
        &w,
        "--z",
        &z,
    ];
    expect_error(&[&reference[..], &["--hidden", "16,x"]].concat(), "hidden");
    expect_error(&[&reference[..], &["--lr=-1"]].concat(), "lr");
    // A reference-only flag without --protocol reference: an error naming the flag and the
    // protocol it needs, not a silent change of estimator.
    for flag in [
        &["--lr", "0.003"][..],
        &["--val-size", "10"],
        &["--hidden", "8"],
    ] {
        let args = [&["prequential", "--w", &w, "--z", &z][..], flag].concat();
        expect_error(&args, flag[0]);
        expect_error(&args, "--protocol reference");
    }
    // Clap usage errors also exit 2.
    let (code, _, _) = kcomp(&["prequential", "--no-such-flag"]);
    assert_eq!(code, 2);
}

#[test]
fn config_files_parse() {
    for f in [
        "configs/prequential/emergent.toml",
        "configs/prequential/emergent-holistic.toml",
    ] {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(f);
        let text = std::fs::read_to_string(&p).unwrap();
        let cfg: kcomp::estimators::prequential::run_config::ConfigFile =
            toml::from_str(&text).unwrap();
        let lang = cfg.language.unwrap();
        assert_eq!(
            (lang.n_attr, lang.n_vals, lang.vocab, lang.repeats),
            (2, 8, 8, 50)
        );
        assert_eq!(cfg.prequential.val_size, 400);
        assert_eq!(cfg.prequential.train.patience, 50);
    }
}

/// A tiny language sweep: 2 attributes x 3 values, 4 utterances per object.
fn tiny_sweep_config(dir: &Path, lr: &str) -> String {
    write(
        dir,
        &format!("sweep_{lr}.toml"),
        &format!(
            "[language]\nn_attr = 2\nn_vals = 3\nmsg_len = 2\nvocab = 3\nrepeats = 4\n\
             holistic_fraction = 0.0\nsynonyms = 1\nword_order = \"fixed\"\nseed = 0\n\n\
             [prequential]\nscheme = \"reference\"\nordering = \"random\"\nval_size = 6\nthreads = 1\n\n\
             [prequential.schedule]\nkind = \"increment\"\nmin = 10\nstep = 10\n\n\
             [prequential.model]\nemb_dim = 4\nhidden = [8]\n\n\
             [prequential.train]\nlr = {lr}\nbatch_size = 10\nmax_epochs = 10\npatience = 3\n"
        ),
    )
}

fn runs_csv_k_data(out: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "k_data_bits").unwrap();
    lines
        .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn sweep_writes_tables_and_resumes_only_matching_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let out_s = out.to_string_lossy().into_owned();
    let cfg = tiny_sweep_config(dir.path(), "0.01");
    let sweep = |cfg: &str, resume: bool| {
        let mut a = vec![
            "prequential",
            "--config",
            cfg,
            "--sweep-h",
            "0,1",
            "--seeds",
            "2",
            "--out",
            &out_s,
            "--quiet",
        ];
        if resume {
            a.push("--resume");
        }
        let (code, stdout, stderr) = kcomp(&a);
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    let md = sweep(&cfg, false);
    assert!(md.contains("| 0 | 2 |") && md.contains("| 1 | 2 |"), "{md}");
    for f in ["runs.csv", "table.csv", "table.md", "c_l_vs_h.png"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let first = runs_csv_k_data(&out);
    assert_eq!(first.len(), 4);
    assert!(first.iter().all(|k| k.is_finite() && *k > 0.0));

    // Mark one finished run; --resume must read it back rather than recompute it.
    let marked = out.join("h1_seed0").join("result.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&marked).unwrap()).unwrap();
    // A consistent mark (C^L, K(f) and the run's digest recomputed): a saved run is verified
    // before it is trusted, so a bare edit would be recomputed instead (bad_inputs_round4).
    let k_z = json["k_z"].as_f64().unwrap();
    let given_f = json["k_data_given_f"].as_f64().unwrap();
    json["k_data"] = serde_json::json!(12345.0);
    json["c_l"] = serde_json::json!(k_z / 12345.0);
    json["k_f"] = serde_json::json!(12345.0 - given_f);
    let text = json.to_string();
    std::fs::write(&marked, &text).unwrap();
    let config = std::fs::read_to_string(out.join("h1_seed0").join("config.toml")).unwrap();
    let digest = kcomp::sweeps::engine::digest("h-sweep run", &[&config.into(), &text.into()]);
    std::fs::write(out.join("h1_seed0").join("result.sha256"), digest).unwrap();
    sweep(&cfg, true);
    let resumed = runs_csv_k_data(&out);
    assert_eq!(resumed[1], 12345.0);
    assert_eq!(
        (resumed[0], resumed[2], resumed[3]),
        (first[0], first[2], first[3])
    );

    // Without --resume, or with other settings, every run is computed again.
    sweep(&cfg, false);
    assert_eq!(runs_csv_k_data(&out), first);
    std::fs::write(&marked, json.to_string()).unwrap();
    let other = tiny_sweep_config(dir.path(), "0.02");
    sweep(&other, true);
    let changed = runs_csv_k_data(&out);
    assert_ne!(changed[1], 12345.0);
}

/// Everything SMALL sets except the validation size.
fn small_without_val_size() -> Vec<&'static str> {
    [&SMALL[..2], &SMALL[4..]].concat()
}

#[test]
fn overrides_defaults_and_output_folders() {
    let dir = tempfile::tempdir().unwrap();
    let (w, z) = good_csv(dir.path());
    let out = dir.path().join("run");
    let out_s = out.to_string_lossy().into_owned();
    let base = |extra: &[&str]| {
        let mut a = vec!["prequential", "--w", &w, "--z", &z, "--out", &out_s];
        a.extend(small_without_val_size());
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let run = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        kcomp(&refs)
    };
    // No val_size anywhere: 1/8 of the 60 rows, said on stderr and used (60 - 7 encoded).
    let (code, stdout, stderr) = run(base(&["--json"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("val_size = 7 of 60 rows"), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["n_encoded"].as_u64(), Some(53), "{v}");
    // Same settings: the folder is simply rewritten.
    assert_eq!(run(base(&["--json"])).0, 0);
    // Other settings into the same folder: refused, naming what differs; --force overwrites.
    let (code, _, stderr) = run(base(&["--set", "prequential.train.lr=0.003"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("other settings") && stderr.contains("prequential.train.lr"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1);
    let (code, stdout, stderr) = run(base(&["--set", "prequential.train.lr=0.003", "--force"]));
    assert_eq!(code, 0, "{stderr}");
    let saved = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(saved.contains("lr = 0.003"), "{saved}");
    // The title comes from the run's settings.
    assert!(
        stdout
            .starts_with("z.csv given w.csv; model seed 0, reference protocol, 7 validation rows"),
        "{stdout}"
    );
    // --set errors name the key path; unknown keys are refused.
    let (code, _, stderr) = run(base(&["--set", "prequential.train.lr=fast", "--force"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("prequential.train.lr"), "{stderr}");
    let (code, _, stderr) = run(base(&["--set", "prequential.train.speed=3", "--force"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("speed"), "{stderr}");
}

#[test]
fn no_arguments_print_the_usage_without_running() {
    let (code, stdout, stderr) = kcomp(&["prequential"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("Usage: kcomp prequential") && stderr.contains("--set"),
        "{stderr}"
    );
}
