//! The estimators' cross-check (src/panel/crosscheck.rs): every code length's ratio to the
//! exact K(Z|W) of the same dataset and its time as a ratio to the prequential code's, as the
//! panel's rows give them; the committed configs of experiments/estimators parse.

use kcomp::panel::config::PanelConfig;
use kcomp::panel::crosscheck::{crosscheck, write_crosscheck};
use kcomp::panel::run::run_panel;
use kcomp::progress::WorkBar;

const PANEL: &str = r#"
name = "crosscheck-test"
seed_list = [5, 6]
estimators = ["exact", "mapping_mdl", "prequential", "requential", "topsim"]
[[family]]
name = "protocols"
kind = "protocol"
parameter = "kind"
values = ["trivially-compositional", "holistic"]
[family.params]
colours = 4
shapes = 4
repeats = 3
[prequential.config]
scheme = "online"
threads = 1
[requential]
k_z = false
threads = 1
"#;

#[test]
fn ratios_to_exact_and_to_prequential_time_follow_the_rows() {
    let config = PanelConfig::from_toml("crosscheck-test.toml", PANEL).unwrap();
    let result = run_panel(&config, None, 1, false, &WorkBar::hidden()).unwrap();
    let rows = crosscheck(&result);
    // Scores (topsim) are not code lengths: left out. 2 values x 4 estimators.
    assert_eq!(rows.len(), 8);
    assert!(rows.iter().all(|r| r.estimator != "topsim"));
    for r in &rows {
        let mine: Vec<_> = result
            .rows
            .iter()
            .filter(|p| p.value == r.value && p.estimator == r.estimator)
            .collect();
        let ratios: Vec<f64> = mine
            .iter()
            .map(|p| {
                let exact = result
                    .rows
                    .iter()
                    .find(|e| e.value == p.value && e.seed == p.seed && e.estimator == "exact")
                    .unwrap();
                p.k_z_given_w_bits.unwrap() / exact.k_z_given_w_bits.unwrap()
            })
            .collect();
        assert_eq!(r.n, 2, "{} {}", r.value, r.estimator);
        let mean = ratios.iter().sum::<f64>() / 2.0;
        assert!((r.ratio_to_exact_mean.unwrap() - mean).abs() < 1e-12);
        let lo = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
        assert_eq!(r.ratio_to_exact_min, Some(lo));
        match r.estimator.as_str() {
            "exact" => assert_eq!(r.ratio_to_exact_mean, Some(1.0)),
            "prequential" => assert_eq!(r.time_ratio_to_prequential_mean, Some(1.0)),
            // Codes of a few hundred rows: above the exact K(Z|W) here (no code beats the
            // generator's program by much), and both report a time.
            _ => {
                assert!(lo > 1.0, "{} {}: {lo}", r.value, r.estimator);
                assert!(r.time_ratio_to_prequential_mean.unwrap() > 0.0);
            }
        }
    }
    let kind = |e: &str| rows.iter().find(|r| r.estimator == e).unwrap().kind;
    assert_eq!(kind("prequential"), "code");
    assert_eq!(kind("requential"), "expected length of a code");

    let dir = tempfile::tempdir().unwrap();
    let written = write_crosscheck(&result, dir.path()).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "crosscheck.csv",
        "crosscheck.md",
        "crosscheck.png",
        "crosscheck.svg",
    ] {
        assert!(names.iter().any(|n| n == want), "{names:?}");
    }
    let csv = std::fs::read_to_string(dir.path().join("crosscheck.csv")).unwrap();
    assert!(
        csv.starts_with("family,parameter,value,value_index,estimator,kind,n,exact_bits_mean,")
    );
    let md = std::fs::read_to_string(dir.path().join("crosscheck.md")).unwrap();
    assert!(md.contains("requential, expected length of a code"), "{md}");
    let png = std::fs::read(dir.path().join("crosscheck.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let svg = std::fs::read_to_string(dir.path().join("crosscheck.svg")).unwrap();
    assert!(svg.contains("requential is the expected length of a relative-entropy code"));
    assert!(!svg.contains("bdm is an approximation"));
}

#[test]
fn committed_cross_check_configs_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["estimators.toml", "requential-heldout.toml"] {
        let path = root.join("configs/compare").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let c = PanelConfig::from_toml(name, &text).unwrap();
        assert!(c.estimators.iter().any(|e| e == "exact"), "{name}");
        assert!(c.estimators.iter().any(|e| e == "requential"), "{name}");
    }
}
