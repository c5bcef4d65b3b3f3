//! Predictive distributions of one output (a continuous dimension on its grid, or a discrete
//! attribute), their relative entropies in closed form, and exact sampling.
//!
//! Requential coding (Finzi et al., "From Entropy to Epiplexity", arXiv 2601.03220, 2026)
//! charges KL(teacher || student) per synthetic row. Continuous outputs are coded on the grid
//! (a grid index `k` has the Gaussian mass of the cell `[k - 1/2, k + 1/2)`, grid units), so
//! the relevant divergence is the one between the two *discretised* distributions. Rounding to
//! the grid is the same map applied to both, so by the data-processing inequality the
//! closed-form KL of the two continuous Gaussians is an upper bound of it: charging it keeps
//! every length a valid code length (it is tight when the cells are narrow beside the std).
//! Mixtures (the n-gram table learner's average over positions) are bounded the same way:
//! KL(sum_c v_c P_c || sum_d w_d Q_d) is at most sum_c v_c min_d [KL(P_c || Q_d) - log2 w_d]
//! (convexity in the first argument, `sum_d w_d q_d >= w_d q_d` in the second) and, for
//! mixtures over the same components, at most KL(v || w) + sum_c v_c KL(P_c || Q_c)
//! (the log-sum inequality); the smaller of the two is charged. Categorical KLs are exact.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// The predictive distribution of one output. Lengths and divergences in bits.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputDist {
    /// A Gaussian on the integer grid: mean and standard deviation in grid cells.
    Gaussian { mean: f64, sd: f64 },
    /// A mixture of grid Gaussians: (log2 weight, mean, sd), weights summing to 1.
    GaussianMixture(Vec<(f64, f64, f64)>),
    /// Probabilities of the values `0..len` (summing to 1).
    Categorical(Vec<f64>),
}

/// One sampled value: a grid index (continuous) or a value index (discrete).
pub type Sampled = i64;

/// KL(N(m1, s1) || N(m2, s2)) in bits, for any finite means and positive stds.
pub fn kl_gaussian_bits(m1: f64, s1: f64, m2: f64, s2: f64) -> f64 {
    let r = s1 / s2;
    let d = (m1 - m2) / s2;
    // ln(s2/s1) + (s1^2 + (m1-m2)^2) / (2 s2^2) - 1/2, with r^2 - 1 - 2 ln r >= 0 kept exact
    // for r near 1 (ln_1p), so identical Gaussians give exactly 0.
    let x = r * r - 1.0;
    let nats = 0.5 * (x - x.ln_1p()) + 0.5 * d * d;
    nats.max(0.0) / std::f64::consts::LN_2
}

/// KL(p || q) in bits between two categoricals over the same values (`inf` when q is 0
/// where p is not).
pub fn kl_categorical_bits(p: &[f64], q: &[f64]) -> f64 {
    debug_assert_eq!(p.len(), q.len());
    let mut s = 0.0;
    for (&pi, &qi) in p.iter().zip(q) {
        if pi > 0.0 {
            if qi <= 0.0 {
                return f64::INFINITY;
            }
            s += pi * (pi / qi).log2();
        }
    }
    s.max(0.0)
}

/// The components of a continuous distribution as (log2 weight, mean, sd).
fn components(d: &OutputDist) -> Option<Vec<(f64, f64, f64)>> {
    match d {
        OutputDist::Gaussian { mean, sd } => Some(vec![(0.0, *mean, *sd)]),
        OutputDist::GaussianMixture(c) => Some(c.clone()),
        OutputDist::Categorical(_) => None,
    }
}

/// Upper bound (exact for single Gaussians, categoricals) of KL(p || q) in bits between the
/// discretised distributions `p` and `q` of one output; `inf` for mismatched kinds or
/// non-finite parameters (a diverged learner: its code is not used).
pub fn kl_bits(p: &OutputDist, q: &OutputDist) -> f64 {
    match (p, q) {
        (OutputDist::Categorical(a), OutputDist::Categorical(b)) if a.len() == b.len() => {
            kl_categorical_bits(a, b)
        }
        (OutputDist::Gaussian { mean: m1, sd: s1 }, OutputDist::Gaussian { mean: m2, sd: s2 }) => {
            if [*m1, *s1, *m2, *s2].iter().all(|v| v.is_finite()) && *s1 > 0.0 && *s2 > 0.0 {
                kl_gaussian_bits(*m1, *s1, *m2, *s2)
            } else {
                f64::INFINITY
            }
        }
        (OutputDist::Categorical(_), _) | (_, OutputDist::Categorical(_)) => f64::INFINITY,
        _ => {
            let (Some(pc), Some(qc)) = (components(p), components(q)) else {
                return f64::INFINITY;
            };
            mixture_kl_bound_bits(&pc, &qc)
        }
    }
}

/// The smaller of the two mixture bounds of the module documentation.
fn mixture_kl_bound_bits(p: &[(f64, f64, f64)], q: &[(f64, f64, f64)]) -> f64 {
    let kl = |a: &(f64, f64, f64), b: &(f64, f64, f64)| {
        kl_bits(
            &OutputDist::Gaussian { mean: a.1, sd: a.2 },
            &OutputDist::Gaussian { mean: b.1, sd: b.2 },
        )
    };
    // Convexity in p, best single component of q.
    let mut convex = 0.0;
    for pc in p {
        let v = pc.0.exp2();
        if v == 0.0 {
            continue;
        }
        let best = q
            .iter()
            .map(|qc| kl(pc, qc) - qc.0)
            .fold(f64::INFINITY, f64::min);
        convex += v * best;
    }
    if p.len() != q.len() {
        return convex.max(0.0);
    }
    // Matched components (same candidates, as the n-gram learner's teacher and student).
    let mut matched = 0.0;
    for (pc, qc) in p.iter().zip(q) {
        let v = pc.0.exp2();
        if v == 0.0 {
            continue;
        }
        matched += v * (pc.0 - qc.0 + kl(pc, qc));
    }
    convex.min(matched).max(0.0)
}

/// `(1 - eps) d + eps g`, the defensive mixture of a student's predictive `d` with a broad
/// guard `g` of the same kind (`d` itself for mismatched kinds).
pub fn mixed_with(d: &OutputDist, g: &OutputDist, eps: f64) -> OutputDist {
    let (ld, lg) = ((1.0 - eps).log2(), eps.log2());
    match (d, g) {
        (OutputDist::Categorical(a), OutputDist::Categorical(b)) if a.len() == b.len() => {
            OutputDist::Categorical(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| (1.0 - eps) * x + eps * y)
                    .collect(),
            )
        }
        (OutputDist::Categorical(_), _) | (_, OutputDist::Categorical(_)) => d.clone(),
        _ => {
            let (Some(dc), Some(gc)) = (components(d), components(g)) else {
                return d.clone();
            };
            OutputDist::GaussianMixture(
                dc.iter()
                    .map(|&(w, m, s)| (w + ld, m, s))
                    .chain(gc.iter().map(|&(w, m, s)| (w + lg, m, s)))
                    .collect(),
            )
        }
    }
}

/// Upper bound of KL(p || (1 - eps) q + eps g) in bits: the smaller of KL(p || q) -
/// log2(1 - eps) (the student's own bound, matched mixtures included) and the bound of the
/// mixed distribution (which caps a student that is confidently wrong at about KL(p || g) -
/// log2 eps).
pub fn guarded_kl_bits(p: &OutputDist, q: &OutputDist, g: &OutputDist, eps: f64) -> f64 {
    let own = kl_bits(p, q) - (1.0 - eps).log2();
    own.min(kl_bits(p, &mixed_with(q, g, eps)))
}

/// One exact draw from `d`: a grid index (the Gaussian rounded to the nearest cell, which has
/// the cell masses of the discretised code) or a value index.
pub fn sample(d: &OutputDist, rng: &mut impl Rng) -> Sampled {
    match d {
        OutputDist::Gaussian { mean, sd } => {
            let e: f64 = StandardNormal.sample(rng);
            (mean + sd * e).round() as i64
        }
        OutputDist::GaussianMixture(c) => {
            let u: f64 = rng.random();
            let mut acc = 0.0;
            let mut pick = c.len() - 1;
            for (i, comp) in c.iter().enumerate() {
                acc += comp.0.exp2();
                if u < acc {
                    pick = i;
                    break;
                }
            }
            let (_, mean, sd) = c[pick];
            let e: f64 = StandardNormal.sample(rng);
            (mean + sd * e).round() as i64
        }
        OutputDist::Categorical(p) => {
            let u: f64 = rng.random();
            let mut acc = 0.0;
            for (i, &pi) in p.iter().enumerate() {
                acc += pi;
                if u < acc {
                    return i as i64;
                }
            }
            // Rounding left u above the last partial sum: the last value with mass.
            p.iter().rposition(|&x| x > 0.0).unwrap_or(0) as i64
        }
    }
}

/// Whether every parameter is finite (a diverged learner gives NaN or infinite ones).
pub fn is_finite(d: &OutputDist) -> bool {
    match d {
        OutputDist::Gaussian { mean, sd } => mean.is_finite() && sd.is_finite() && *sd > 0.0,
        OutputDist::GaussianMixture(c) => c
            .iter()
            .all(|&(w, m, s)| !w.is_nan() && m.is_finite() && s.is_finite() && s > 0.0),
        OutputDist::Categorical(p) => p.iter().all(|x| x.is_finite() && *x >= 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn gaussian_kl_closed_forms() {
        let ln2 = std::f64::consts::LN_2;
        assert_eq!(kl_gaussian_bits(0.3, 2.0, 0.3, 2.0), 0.0);
        // Mean shift of one std: 1/2 nat.
        assert!((kl_gaussian_bits(1.0, 1.0, 0.0, 1.0) - 0.5 / ln2).abs() < 1e-15);
        // Std ratio 2 (p wider): ln(1/2) + 4/2 - 1/2 = 1.5 - ln 2 nats.
        let want = (1.5 - ln2) / ln2;
        assert!((kl_gaussian_bits(0.0, 2.0, 0.0, 1.0) - want).abs() < 1e-14);
        // p narrower by 2: ln 2 + 1/8 - 1/2 nats.
        let want = (ln2 + 0.125 - 0.5) / ln2;
        assert!((kl_gaussian_bits(0.0, 1.0, 0.0, 2.0) - want).abs() < 1e-14);
        // Scale invariance: grid units or value units give the same number.
        let a = kl_gaussian_bits(0.12, 0.03, 0.1, 0.05);
        let b = kl_gaussian_bits(12.0, 3.0, 10.0, 5.0);
        assert!((a - b).abs() < 1e-13);
    }

    #[test]
    fn categorical_kl_and_mismatches() {
        let p = [0.5, 0.5];
        let q = [0.25, 0.75];
        let want = 0.5 * (2.0f64).log2() + 0.5 * (0.5f64 / 0.75).log2();
        assert!((kl_categorical_bits(&p, &q) - want).abs() < 1e-15);
        assert_eq!(kl_categorical_bits(&p, &p), 0.0);
        assert_eq!(kl_categorical_bits(&[1.0, 0.0], &[0.0, 1.0]), f64::INFINITY);
        let g = OutputDist::Gaussian { mean: 0.0, sd: 1.0 };
        assert_eq!(
            kl_bits(&g, &OutputDist::Categorical(vec![1.0])),
            f64::INFINITY
        );
        let bad = OutputDist::Gaussian {
            mean: f64::NAN,
            sd: 1.0,
        };
        assert_eq!(kl_bits(&bad, &g), f64::INFINITY);
    }

    /// The continuous KL bounds the KL of the cell masses from above (data processing).
    #[test]
    fn continuous_kl_bounds_the_discretised_kl() {
        use crate::neural::likelihood::grid_gaussian_nll_nats;
        for &(m1, s1, m2, s2) in &[
            (0.2, 0.4, 0.0, 0.5),
            (3.0, 1.0, 0.0, 2.0),
            (0.0, 5.0, 1.0, 4.0),
            (0.5, 0.1, 0.5, 0.1),
        ] {
            let mut disc = 0.0;
            for k in -80i64..=80 {
                let lp = -grid_gaussian_nll_nats(k, 1.0, m1, s1);
                let lq = -grid_gaussian_nll_nats(k, 1.0, m2, s2);
                if lp > -700.0 {
                    disc += lp.exp() * (lp - lq);
                }
            }
            let disc = disc / std::f64::consts::LN_2;
            let bound = kl_gaussian_bits(m1, s1, m2, s2);
            assert!(disc <= bound + 1e-9, "{disc} > {bound}");
        }
    }

    #[test]
    fn mixture_bounds_are_upper_bounds_and_exact_when_equal() {
        let p =
            OutputDist::GaussianMixture(vec![(0.5f64.log2(), 0.0, 1.0), (0.5f64.log2(), 4.0, 1.0)]);
        assert_eq!(kl_bits(&p, &p), 0.0);
        let q = OutputDist::GaussianMixture(vec![
            (0.25f64.log2(), 0.0, 1.0),
            (0.75f64.log2(), 4.0, 1.0),
        ]);
        // Matched components with identical Gaussians: exactly KL(v || w).
        let want = kl_categorical_bits(&[0.5, 0.5], &[0.25, 0.75]);
        assert!((kl_bits(&p, &q) - want).abs() < 1e-12);
        // A single Gaussian against a mixture holding it: at most -log2 of its weight.
        let g = OutputDist::Gaussian { mean: 4.0, sd: 1.0 };
        assert!((kl_bits(&g, &q) - (-(0.75f64.log2()))).abs() < 1e-12);
        // The bound holds against a numerical KL of the cell masses.
        let mass = |d: &OutputDist, k: i64| -> f64 {
            use crate::neural::likelihood::grid_gaussian_nll_nats;
            match d {
                OutputDist::GaussianMixture(c) => c
                    .iter()
                    .map(|&(w, m, s)| w.exp2() * (-grid_gaussian_nll_nats(k, 1.0, m, s)).exp())
                    .sum(),
                OutputDist::Gaussian { mean, sd } => {
                    (-grid_gaussian_nll_nats(k, 1.0, *mean, *sd)).exp()
                }
                _ => unreachable!(),
            }
        };
        let q2 = OutputDist::Gaussian { mean: 1.0, sd: 2.0 };
        let numeric: f64 = (-40i64..=40)
            .map(|k| {
                let (a, b) = (mass(&p, k), mass(&q2, k));
                if a > 0.0 { a * (a / b).log2() } else { 0.0 }
            })
            .sum();
        assert!(numeric <= kl_bits(&p, &q2) + 1e-9);
    }

    #[test]
    fn the_guard_caps_a_confidently_wrong_student() {
        let p = OutputDist::Gaussian { mean: 0.0, sd: 1.0 };
        let wrong = OutputDist::Gaussian {
            mean: 500.0,
            sd: 0.5,
        };
        let guard = OutputDist::Gaussian {
            mean: 0.0,
            sd: 1000.0,
        };
        let eps = 1.0 / 1024.0;
        let unguarded = kl_bits(&p, &wrong);
        let guarded = guarded_kl_bits(&p, &wrong, &guard, eps);
        assert!(unguarded > 1e5);
        assert!(
            (guarded - (kl_bits(&p, &guard) + 10.0)).abs() < 1e-9,
            "{guarded}"
        );
        // A right student pays -log2(1 - eps) at most.
        assert!((guarded_kl_bits(&p, &p, &guard, eps) + (1.0 - eps).log2()).abs() < 1e-12);
        // Categoricals: the exact KL of the mixed probabilities.
        let pc = OutputDist::Categorical(vec![1.0, 0.0]);
        let qc = OutputDist::Categorical(vec![0.0, 1.0]);
        let gc = OutputDist::Categorical(vec![0.5, 0.5]);
        let want = -(eps * 0.5f64).log2();
        assert!((guarded_kl_bits(&pc, &qc, &gc, eps) - want).abs() < 1e-12);
    }

    #[test]
    fn samples_follow_the_cell_masses() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let d = OutputDist::Gaussian { mean: 0.3, sd: 0.5 };
        let n = 200_000;
        let zeros = (0..n).filter(|_| sample(&d, &mut rng) == 0).count() as f64 / n as f64;
        let want = (-crate::neural::likelihood::grid_gaussian_nll_nats(0, 1.0, 0.3, 0.5)).exp();
        assert!((zeros - want).abs() < 0.005, "{zeros} vs {want}");
        let c = OutputDist::Categorical(vec![0.2, 0.0, 0.8]);
        let ones = (0..n).filter(|_| sample(&c, &mut rng) == 1).count();
        assert_eq!(ones, 0);
        let twos = (0..n).filter(|_| sample(&c, &mut rng) == 2).count() as f64 / n as f64;
        assert!((twos - 0.8).abs() < 0.005);
    }
}
