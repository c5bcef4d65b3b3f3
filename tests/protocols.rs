//! Korbak et al. 2020 protocols end to end: `kcomp synth protocol` files, bad input, and the
//! panel family `protocol` with the new metrics.

use std::process::{Command, Output};

use ndarray::Array2;
use ndarray_npy::read_npy;

use kcomp::datasets::protocols::{ProtocolKind, ProtocolParams};
use kcomp::estimators::interface::{Progress, run_estimator};
use kcomp::panel::registry;

fn kcomp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .expect("run kcomp")
}

fn log2_fact(n: u32) -> f64 {
    (1..=n).map(|i| f64::from(i).log2()).sum()
}

#[test]
fn synth_protocol_writes_npy_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = [
        "synth",
        "protocol",
        "--kind",
        "negation",
        "--colours",
        "4",
        "--shapes",
        "2",
        "--seed",
        "3",
        "--out",
        out,
    ];
    let run = kcomp(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    // log2 4! = 4.5850 bits: the colour lexicon; one shape pair costs nothing.
    assert!(stdout.contains("4.5850"), "{stdout}");
    let w: Array2<i64> = read_npy(dir.path().join("W.npy")).unwrap();
    let z: Array2<i64> = read_npy(dir.path().join("Z.npy")).unwrap();
    assert_eq!(w.dim(), (8, 4));
    assert_eq!(z.dim(), (8, 2));
    let csv = std::fs::read_to_string(dir.path().join("W.csv")).unwrap();
    let first: Vec<i64> = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(first, w.row(0).to_vec());
    // Same seed, same files.
    let again = tempfile::tempdir().unwrap();
    let mut args2 = args;
    args2[11] = again.path().to_str().unwrap();
    assert!(kcomp(&args2).status.success());
    let w2: Array2<i64> = read_npy(again.path().join("W.npy")).unwrap();
    assert_eq!(w, w2);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let out = kcomp(&[
        "synth",
        "protocol",
        "--kind",
        "order-sensitive",
        "--colours",
        "2",
        "--shapes",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("shapes") && err.trim().lines().count() == 1,
        "{err}"
    );
    let out = kcomp(&["synth", "protocol", "--kind", "holistic", "--colours", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("colours"));
}

#[test]
fn panel_family_and_metrics_on_protocols() {
    let toml = r#"
name = "t"
seeds = 1
estimators = ["exact", "entropy", "mutual_information", "context_independence", "conflict_count", "lz76", "tre"]
[[family]]
kind = "protocol"
parameter = "kind"
values = ["trivially-compositional", "holistic"]
[family.params]
colours = 5
shapes = 5
"#;
    let config = kcomp::panel::PanelConfig::from_toml("test", toml).unwrap();
    let fam = &config.families[0];
    kcomp::panel::family::check(fam, &fam.values[0]).unwrap();
    let bad = toml::Value::String("nonsense".into());
    assert!(kcomp::panel::family::check(fam, &bad).is_err());
    let p = Progress::hidden();
    let score = |d: &kcomp::dataset::Dataset, name: &str| {
        let e = registry::build(name, &config).unwrap();
        let row = run_estimator(e.as_ref(), d, &p);
        row.score.or(row.k_z_given_w_bits).unwrap()
    };
    let triv = kcomp::panel::family::generate(fam, &fam.values[0], 0).unwrap();
    assert_eq!(triv.provenance.family, "protocol");
    assert!((score(&triv, "exact") - 2.0 * log2_fact(5)).abs() < 1e-9);
    assert!((score(&triv, "entropy") - 25f64.log2()).abs() < 1e-12);
    assert!((score(&triv, "mutual_information") - 25f64.log2()).abs() < 1e-12);
    // The reference's published test value.
    assert!((score(&triv, "context_independence") - 0.25).abs() < 1e-7);
    assert_eq!(score(&triv, "conflict_count"), 0.0);
    // Additive L1 TRE: near 0 for the trivially compositional protocol.
    assert!(score(&triv, "tre") < 0.1);
    let hol = kcomp::panel::family::generate(fam, &fam.values[1], 0).unwrap();
    assert!((score(&hol, "exact") - log2_fact(25)).abs() < 1e-9);
    assert!(score(&hol, "conflict_count") > 0.0);
    assert!(score(&hol, "context_independence") < 0.25);
    assert!(score(&hol, "tre") > 1.0);
    // Params round-trip through the library type.
    let params = ProtocolParams {
        kind: ProtocolKind::Random,
        colours: 3,
        shapes: 3,
        repeats: 1,
        seed: 9,
    };
    assert_eq!(params.dataset().unwrap().n(), 9);
}

/// Peak resident memory (bytes) of one `kcomp` run, from wait4's rusage of that child only
/// (other tests' children do not count).
fn peak_rss(args: &[&str]) -> f64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run kcomp");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter; the pid is our own child, waited once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    // Already reaped by wait4 (std's wait then reports ECHILD): nothing is left behind.
    assert!(child.wait().is_err());
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    usage.ru_maxrss as f64 * 1024.0
}

#[test]
fn the_memory_estimate_bounds_the_measured_peak() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    // A folder per run: synth refuses to overwrite another run's outputs.
    let run = |c: &str, r: &str| {
        let out = format!("{out}/{c}x{r}");
        let args = [
            "synth",
            "protocol",
            "--kind",
            "context-sensitive",
            "--colours",
            c,
            "--shapes",
            c,
            "--repeats",
            r,
            "--out",
            &out,
        ];
        peak_rss(&args)
    };
    // The process itself (binary, allocator, thread stacks) is not what the estimate counts.
    let base = run("2", "1");
    // The largest sizes that run in a few seconds on a busy CI core.
    for (c, r) in [(300usize, 1usize), (100, 20)] {
        let measured = run(&c.to_string(), &r.to_string()) - base;
        let params = ProtocolParams {
            kind: ProtocolKind::ContextSensitive,
            colours: c,
            shapes: c,
            repeats: r,
            seed: 0,
        };
        let estimate: f64 = params.memory_terms().iter().map(|t| t.1).sum();
        assert!(
            estimate >= measured,
            "{c} x {c} x {r}: estimate {estimate:.3e} B < measured {measured:.3e} B"
        );
        // And not absurdly above it (the estimate still admits what fits).
        assert!(
            estimate < 20.0 * measured.max(1e6),
            "{estimate:.3e} vs {measured:.3e}"
        );
    }
}
