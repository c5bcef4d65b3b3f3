//! The Skellam log-pmf and log_ive against 50-digit mpmath oracles (tests/data/skellam).

mod common;

use kcomp::coding::skellam::{log_ive, skellam_logpmf_nats};

fn rel_err(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn log_ive_matches_mpmath_to_1e12() {
    let text = std::fs::read_to_string(common::data_dir().join("skellam/log_ive_oracle.tsv"))
        .expect("oracle file");
    let mut worst = 0.0f64;
    let mut count = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<f64> = line
            .split('\t')
            .map(|c| c.trim().parse().unwrap())
            .collect();
        let (nu, x, want) = (cols[0], cols[1], cols[2]);
        let got = log_ive(nu, x);
        assert!(got.is_finite(), "nu={nu} x={x} gave {got}");
        let err = rel_err(got, want);
        assert!(
            err <= 1e-12,
            "nu={nu} x={x}: got {got}, want {want}, rel err {err:e}"
        );
        worst = worst.max(err);
        count += 1;
    }
    assert!(count >= 180, "only {count} oracle rows read");
    eprintln!("log_ive: {count} points, worst relative error {worst:e}");
}

#[test]
fn logpmf_matches_mpmath_including_scipy_minus_inf_points() {
    let text =
        std::fs::read_to_string(common::data_dir().join("skellam/skellam_logpmf_reference.txt"))
            .expect("oracle file");
    let mut count = 0;
    let mut scipy_inf = 0;
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() < 5 {
            continue;
        }
        let (Ok(mu), Ok(k), Ok(want)) = (
            cols[0].parse::<f64>(),
            cols[1].parse::<i64>(),
            cols[4].parse::<f64>(),
        ) else {
            continue;
        };
        if cols[2] == "-inf" {
            scipy_inf += 1;
        }
        for signed_k in [k, -k] {
            let got = skellam_logpmf_nats(signed_k, mu, mu);
            let err = rel_err(got, want);
            assert!(
                err <= 1e-12,
                "mu={mu} k={signed_k}: got {got}, want {want}, rel {err:e}"
            );
        }
        count += 1;
    }
    assert_eq!(count, 20);
    assert_eq!(
        scipy_inf, 2,
        "the file has two points where SciPy gives -inf"
    );
}

#[test]
fn huge_mu_logpmf_matches_asymptotic_oracles() {
    // mu = 4e307 used to give probability 0 (2 pi p overflowed); true: 2^-512.74.
    let text = std::fs::read_to_string(common::data_dir().join("skellam/huge_mu_oracle.tsv"))
        .expect("oracle file");
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let c: Vec<&str> = line.split('\t').collect();
        let (mu, k, want): (f64, i64, f64) = (
            c[0].parse().unwrap(),
            c[1].parse().unwrap(),
            c[2].parse().unwrap(),
        );
        let got = skellam_logpmf_nats(k, mu, mu);
        let err = rel_err(got, want);
        assert!(
            err <= 1e-12,
            "mu={mu} k={k}: got {got}, want {want}, rel {err:e}"
        );
        count += 1;
    }
    assert_eq!(count, 15);
    let bits = -skellam_logpmf_nats(3, 4e307, 4e307) / std::f64::consts::LN_2;
    assert!((bits - 512.741_710_629_946).abs() < 1e-9, "{bits}");
}
