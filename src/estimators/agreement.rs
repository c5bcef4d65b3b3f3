//! Rank agreement between two estimators across a family of datasets: Kendall's tau-b and
//! Spearman's rho (both tie-corrected), with a seeded percentile bootstrap over seeds.
//!
//! statrs has average ranks (used here for rho) but no rank correlation, so tau-b is written
//! out: the O(n^2) pair count is exact and a family has tens of datasets, not millions.
//! Degenerate input (fewer than 2 points, a constant side, non-finite values) gives `None`,
//! never NaN.
//!
//! Bootstrap: a family is a grid `x[p][s]` (parameter value p, seed index s) for each of the
//! two estimators. A replicate draws S seed indices with replacement (one draw shared by every
//! parameter value, so the family's design is kept), builds the two vectors over all (p, drawn
//! s) and recomputes the statistic. Replicates whose statistic is undefined are skipped (and
//! counted). The interval is the 2.5% and 97.5% percentiles of the replicates (linear
//! interpolation between order statistics, NumPy's default). A given seed gives the same
//! interval.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::error::{KcompError, Result};
use crate::estimators::topsim::{average_ranks, pearson};

fn usable(x: &[f64], y: &[f64]) -> bool {
    x.len() == y.len() && x.len() >= 2 && x.iter().chain(y).all(|v| v.is_finite())
}

/// Kendall's tau-b: (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), with n0 = n(n-1)/2
/// and n1, n2 the pairs tied in x and in y. `None` when either side is constant.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if !usable(x, y) {
        return None;
    }
    let n = x.len();
    let (mut s, mut tx, mut ty, mut pairs) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            // Values are finite (checked), so partial_cmp is total here.
            let sign = |a: f64, b: f64| a.partial_cmp(&b).map_or(0, |o| o as i64);
            let (dx, dy) = (sign(x[i], x[j]), sign(y[i], y[j]));
            s += dx * dy;
            tx += i64::from(dx == 0);
            ty += i64::from(dy == 0);
            pairs += 1;
        }
    }
    let den = ((pairs - tx) as f64 * (pairs - ty) as f64).sqrt();
    (den > 0.0).then(|| s as f64 / den)
}

/// Spearman's rho: Pearson's r of the average ranks (ties share their mean rank).
pub fn spearman_rho(x: &[f64], y: &[f64]) -> Option<f64> {
    if !usable(x, y) {
        return None;
    }
    pearson(&average_ranks(x), &average_ranks(y))
}

/// Which rank statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankStatistic {
    KendallTauB,
    SpearmanRho,
}

impl RankStatistic {
    pub fn compute(self, x: &[f64], y: &[f64]) -> Option<f64> {
        match self {
            RankStatistic::KendallTauB => kendall_tau_b(x, y),
            RankStatistic::SpearmanRho => spearman_rho(x, y),
        }
    }
}

/// A percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    /// Replicates with a defined statistic (out of the requested number).
    pub replicates: usize,
}

/// The statistic on the whole family and its bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Agreement {
    pub statistic: RankStatistic,
    pub value: Option<f64>,
    pub ci95: Option<Interval>,
}

/// Checks that `x` and `y` are the same non-empty rectangular grid; returns (params, seeds).
fn grid_shape(x: &[Vec<f64>], y: &[Vec<f64>]) -> Result<(usize, usize)> {
    let seeds = x.first().map_or(0, Vec::len);
    if x.is_empty() || seeds == 0 {
        return Err(KcompError::param("family", "no datasets"));
    }
    if x.len() != y.len() || x.iter().chain(y).any(|r| r.len() != seeds) {
        return Err(KcompError::param(
            "family",
            "both estimators need one value per (parameter, seed), the same seeds everywhere",
        ));
    }
    Ok((x.len(), seeds))
}

/// Linear-interpolation quantile of sorted values (NumPy's default method).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let (i, frac) = (h.floor() as usize, h - h.floor());
    match sorted.get(i + 1) {
        Some(&next) => sorted[i] + frac * (next - sorted[i]),
        None => sorted[i],
    }
}

/// `statistic` over the family `x[p][s]`, `y[p][s]` with a seeded percentile 95% interval from
/// `replicates` seed resamples.
pub fn agreement(
    x: &[Vec<f64>],
    y: &[Vec<f64>],
    statistic: RankStatistic,
    replicates: usize,
    seed: u64,
) -> Result<Agreement> {
    let (_, seeds) = grid_shape(x, y)?;
    let flat = |g: &[Vec<f64>], pick: &[usize]| -> Vec<f64> {
        g.iter()
            .flat_map(|row| pick.iter().map(move |&s| row[s]))
            .collect()
    };
    let all: Vec<usize> = (0..seeds).collect();
    let value = statistic.compute(&flat(x, &all), &flat(y, &all));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut reps = Vec::with_capacity(replicates);
    for _ in 0..replicates {
        let pick: Vec<usize> = (0..seeds).map(|_| rng.random_range(0..seeds)).collect();
        if let Some(v) = statistic.compute(&flat(x, &pick), &flat(y, &pick)) {
            reps.push(v);
        }
    }
    reps.sort_by(f64::total_cmp);
    let ci95 = (!reps.is_empty()).then(|| Interval {
        lo: quantile(&reps, 0.025),
        hi: quantile(&reps, 0.975),
        replicates: reps.len(),
    });
    Ok(Agreement {
        statistic,
        value,
        ci95,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round6(v: f64) -> f64 {
        (v * 1e6).round() / 1e6
    }

    /// SciPy 1.x: kendalltau (tau-b) and spearmanr.
    #[test]
    fn scipy_fixtures() {
        let (x, y) = ([1., 2., 3., 4., 5., 6.], [2., 1., 4., 3., 6., 5.]);
        assert_eq!(round6(kendall_tau_b(&x, &y).unwrap()), 0.6);
        assert_eq!(round6(spearman_rho(&x, &y).unwrap()), 0.828571);
        let (x, y) = ([1., 2., 2., 3., 4.], [1., 3., 2., 2., 5.]);
        assert_eq!(round6(kendall_tau_b(&x, &y).unwrap()), 0.666667);
        assert_eq!(round6(spearman_rho(&x, &y).unwrap()), 0.763158);
    }

    #[test]
    fn degenerate_input_is_none() {
        assert_eq!(kendall_tau_b(&[1.0], &[2.0]), None);
        assert_eq!(spearman_rho(&[], &[]), None);
        assert_eq!(kendall_tau_b(&[1., 1., 1.], &[1., 2., 3.]), None);
        assert_eq!(spearman_rho(&[1., 2., 3.], &[5., 5., 5.]), None);
        assert_eq!(spearman_rho(&[1., f64::NAN, 3.], &[1., 2., 3.]), None);
        assert_eq!(kendall_tau_b(&[1., 2.], &[1., 2., 3.]), None);
        // Perfect agreement and reversal.
        assert_eq!(kendall_tau_b(&[1., 2., 3.], &[10., 20., 30.]), Some(1.0));
        assert_eq!(kendall_tau_b(&[1., 2., 3.], &[3., 2., 1.]), Some(-1.0));
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_value() {
        // 4 parameter values x 5 seeds; y follows x with seed noise.
        let x: Vec<Vec<f64>> = (0..4)
            .map(|p| (0..5).map(|s| p as f64 + 0.1 * s as f64).collect())
            .collect();
        let y: Vec<Vec<f64>> = (0..4)
            .map(|p| {
                (0..5)
                    .map(|s| p as f64 + 0.37 * ((s * 7 + p) % 5) as f64)
                    .collect()
            })
            .collect();
        let a = agreement(&x, &y, RankStatistic::KendallTauB, 500, 1).unwrap();
        assert_eq!(
            a,
            agreement(&x, &y, RankStatistic::KendallTauB, 500, 1).unwrap()
        );
        let ci = a.ci95.unwrap();
        let v = a.value.unwrap();
        assert!(ci.lo <= v && v <= ci.hi, "{ci:?} {v}");
        assert!(ci.hi <= 1.0 && ci.lo > 0.0, "{ci:?}");
        let b = agreement(&x, &y, RankStatistic::KendallTauB, 500, 2).unwrap();
        assert_ne!(a.ci95, b.ci95);
        // A single seed: every replicate is the full family, a zero-width interval.
        let one: Vec<Vec<f64>> = x.iter().map(|r| vec![r[0]]).collect();
        let a1 = agreement(&one, &one, RankStatistic::SpearmanRho, 50, 0).unwrap();
        assert_eq!(a1.value, Some(1.0));
        let ci1 = a1.ci95.unwrap();
        assert_eq!((ci1.lo, ci1.hi, ci1.replicates), (1.0, 1.0, 50));
        assert!(agreement(&x, &one, RankStatistic::SpearmanRho, 10, 0).is_err());
    }

    #[test]
    fn quantile_interpolates() {
        let v = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.0);
        assert!((quantile(&v, 0.025) - 0.1).abs() < 1e-12);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }
}
