//! The Skellam distribution: the difference of two independent Poisson(mu1), Poisson(mu2).
//!
//! `log p(k) = -(sqrt(mu1) - sqrt(mu2))^2 + (k/2) ln(mu1/mu2) + log_ive(|k|, 2 sqrt(mu1 mu2))`
//! with `log_ive(nu, x) = ln I_nu(x) - x`. We evaluate `log_ive` directly in log space, so the
//! result stays finite (and accurate to ~1e-14 relative) far in the tails where SciPy returns
//! `-inf`:
//! - `sqrt(nu^2 + x^2) < 35`: the power series of `I_nu` (all terms positive, no cancellation);
//! - otherwise: the uniform asymptotic (Debye) expansion of `I_nu(nu z)`, rewritten in
//!   `p = sqrt(nu^2 + x^2)` so that it stays valid down to `nu = 0`.

use std::sync::OnceLock;

use statrs::function::gamma::ln_gamma;

use super::bits::nats_to_bits;
use crate::error::{KcompError, Result};

/// Below this `sqrt(nu^2 + x^2)` the power series is used.
const SERIES_RADIUS: f64 = 35.0;
/// Number of Debye coefficient polynomials u_0..u_{DEBYE_TERMS-1}.
const DEBYE_TERMS: usize = 20;

/// `ln I_nu(x) - x` for real `nu >= 0`, `x >= 0` (natural log). `x = 0` gives `0` for `nu = 0`
/// and `-inf` otherwise (I_nu(0) = 0).
pub fn log_ive(nu: f64, x: f64) -> f64 {
    debug_assert!(nu >= 0.0 && x >= 0.0);
    if x == 0.0 {
        return if nu == 0.0 { 0.0 } else { f64::NEG_INFINITY };
    }
    let p = nu.hypot(x);
    if p < SERIES_RADIUS {
        log_ive_series(nu, x)
    } else {
        log_ive_debye(nu, x, p)
    }
}

fn log_ive_series(nu: f64, x: f64) -> f64 {
    let quarter_x2 = 0.25 * x * x;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut k = 0.0;
    loop {
        k += 1.0;
        term *= quarter_x2 / (k * (nu + k));
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    nu * (0.5 * x).ln() - ln_gamma(nu + 1.0) + sum.ln() - x
}

/// Coefficients of the Debye polynomials u_k(t), `coeffs[k][j]` multiplying t^j.
fn debye_polynomials() -> &'static Vec<Vec<f64>> {
    static POLYS: OnceLock<Vec<Vec<f64>>> = OnceLock::new();
    POLYS.get_or_init(|| {
        // u_{k+1}(t) = t^2 (1 - t^2) u_k'(t) / 2 + (1/8) integral_0^t (1 - 5 s^2) u_k(s) ds.
        let mut polys: Vec<Vec<f64>> = vec![vec![1.0]];
        for k in 0..DEBYE_TERMS - 1 {
            let u = &polys[k];
            let mut next = vec![0.0; u.len() + 3];
            for (j, &c) in u.iter().enumerate() {
                if c == 0.0 {
                    continue;
                }
                if j >= 1 {
                    let d = c * j as f64; // derivative coefficient of t^(j-1)
                    next[j + 1] += 0.5 * d;
                    next[j + 3] -= 0.5 * d;
                }
                next[j + 1] += 0.125 * c / (j + 1) as f64;
                next[j + 3] -= 0.125 * 5.0 * c / (j + 3) as f64;
            }
            polys.push(next);
        }
        polys
    })
}

fn log_ive_debye(nu: f64, x: f64, p: f64) -> f64 {
    // t = nu/p in [0, 1]; u_k(t)/nu^k = p^-k * sum_j c_kj t^(j-k), since u_k has no power below k.
    let t = nu / p;
    let inv_p = 1.0 / p;
    let mut sum = 0.0;
    let mut p_pow = 1.0;
    for (k, poly) in debye_polynomials().iter().enumerate() {
        let mut value = 0.0;
        for &c in poly[k..].iter().rev() {
            value = value * t + c;
        }
        let term = value * p_pow;
        sum += term;
        if k > 2 && term.abs() < 1e-17 * sum.abs() {
            break;
        }
        p_pow *= inv_p;
    }
    // nu*eta - x = (p - x) + nu ln(x / (nu + p)), with p - x = nu^2 / (p + x) written as
    // nu t / (1 + x/p) so that nothing overflows for x near f64::MAX.
    let p_minus_x = nu * t / (1.0 + x * inv_p);
    // ln(x/(nu+p)): direct when the ratio is small, through ln_1p when it is close to 1.
    let ratio = x / (nu + p);
    let log_ratio = if ratio < 0.5 {
        ratio.ln()
    } else {
        (-(nu + p_minus_x) / (nu + p)).ln_1p()
    };
    let exponent = p_minus_x + nu * log_ratio;
    // ln(2 pi p) as a sum: 2 pi p overflows for p > 2.9e307 (mu > 7e306).
    exponent - 0.5 * ((2.0 * std::f64::consts::PI).ln() + p.ln()) + sum.ln()
}

/// Largest mu accepted: `2 sqrt(mu1 mu2)` must stay finite.
pub const MAX_MU: f64 = f64::MAX / 4.0;

/// Above this total mean the entropy uses its asymptotic form instead of a sum over k.
const ENTROPY_SUM_MAX_MU: f64 = 1e6;

/// Cached code lengths per symmetric code (|k| below this come from the table).
const MAX_CACHED: usize = 1 << 16;

/// Natural-log pmf of Skellam(mu1, mu2) at integer `k`; `0 <= mu1, mu2 <= MAX_MU`, not both
/// zero.
pub fn skellam_logpmf_nats(k: i64, mu1: f64, mu2: f64) -> f64 {
    if mu2 == 0.0 {
        return poisson_logpmf_nats(k, mu1);
    }
    if mu1 == 0.0 {
        return poisson_logpmf_nats(-k, mu2);
    }
    let (s1, s2) = (mu1.sqrt(), mu2.sqrt());
    // (sqrt(mu1) - sqrt(mu2))^2 without cancellation and without squaring mu (overflow).
    let d = (mu1 - mu2) / (s1 + s2);
    let diff2 = d * d;
    let kf = k as f64;
    // ln(mu1 / mu2) (exact for close means), or ln mu1 - ln mu2 when the ratio under- or
    // overflows for far-apart means (1e-300 / 1e300 = 0; and 0 x ln 0 is NaN at k = 0).
    let ratio = mu1 / mu2;
    let log_ratio = if ratio.is_normal() {
        ratio.ln()
    } else {
        mu1.ln() - mu2.ln()
    };
    let tilt = if mu1 == mu2 || k == 0 {
        0.0
    } else {
        0.5 * kf * log_ratio
    };
    -diff2 + tilt + log_ive(kf.abs(), 2.0 * s1 * s2)
}

fn poisson_logpmf_nats(k: i64, mu: f64) -> f64 {
    if k < 0 {
        return f64::NEG_INFINITY;
    }
    let kf = k as f64;
    if mu == 0.0 {
        return if k == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    kf * mu.ln() - mu - ln_gamma(kf + 1.0)
}

/// Code length in bits of `k` under Skellam(mu1, mu2): `-log2 p(k)`.
pub fn skellam_code_bits(k: i64, mu1: f64, mu2: f64) -> f64 {
    nats_to_bits(-skellam_logpmf_nats(k, mu1, mu2))
}

/// `kcomp codelength skellam`: checks the means and returns
/// `{"logpmf_nats": ln p(k), "bits": -log2 p(k)}`.
pub fn checked_code_length(k: i64, mu1: f64, mu2: f64) -> Result<serde_json::Value> {
    for (name, mu) in [("mu1", mu1), ("mu2", mu2)] {
        if !(mu.is_finite() && (0.0..=MAX_MU).contains(&mu)) {
            return Err(KcompError::param(
                name,
                format!("must be in [0, {MAX_MU:e}] (finite), got {mu}"),
            ));
        }
    }
    if mu1 == 0.0 && mu2 == 0.0 {
        return Err(KcompError::param("mu1", "mu1 and mu2 cannot both be 0"));
    }
    let lp = skellam_logpmf_nats(k, mu1, mu2);
    if !lp.is_finite() {
        return Err(KcompError::param(
            "k",
            format!("k = {k} has probability 0 under Skellam({mu1}, {mu2})"),
        ));
    }
    Ok(serde_json::json!({ "logpmf_nats": lp, "bits": nats_to_bits(-lp) }))
}

/// Entropy of Skellam(mu1, mu2) in nats, summed over every k with non-negligible mass; for
/// `mu1 + mu2 > 1e6` the Edgeworth form `ln(2 pi e s^2)/2 - g1^2/12 - g2^2/48` (s^2 = mu1 + mu2,
/// skewness g1 = (mu1 - mu2)/s^3, excess kurtosis g2 = 1/s^2), whose next terms are O(s^-4).
pub fn skellam_entropy_nats(mu1: f64, mu2: f64) -> f64 {
    let var = mu1 + mu2;
    if var > ENTROPY_SUM_MAX_MU {
        let sd = var.sqrt();
        let g1 = (mu1 - mu2) / (var * sd);
        let g2 = 1.0 / var;
        let gauss = 0.5 * ((2.0 * std::f64::consts::PI * std::f64::consts::E).ln() + var.ln());
        return gauss - g1 * g1 / 12.0 - g2 * g2 / 48.0;
    }
    let mean = mu1 - mu2;
    let sd = var.sqrt();
    let half_width = (40.0 * sd + 60.0).ceil() as i64;
    let centre = mean.round() as i64;
    let mut entropy = 0.0;
    for k in centre - half_width..=centre + half_width {
        let lp = skellam_logpmf_nats(k, mu1, mu2);
        if lp.is_finite() {
            entropy -= lp.exp() * lp;
        }
    }
    entropy
}

/// Code lengths of a symmetric Skellam(mu, mu), cached for small |k| (noise and table entries
/// are mostly within a few standard deviations), exact evaluation beyond.
#[derive(Debug, Clone)]
pub struct SymmetricSkellamCode {
    mu: f64,
    cached_nats: Vec<f64>,
}

impl SymmetricSkellamCode {
    /// Precomputes `-ln p(k)` for `|k| <= 8 sd + 16` (at most 2^16 values: a huge mu must not
    /// allocate a table per standard deviation).
    pub fn new(mu: f64) -> Self {
        let limit = (8.0 * (2.0 * mu).sqrt() + 16.0)
            .ceil()
            .min(MAX_CACHED as f64) as usize;
        let cached_nats = (0..=limit)
            .map(|k| -skellam_logpmf_nats(k as i64, mu, mu))
            .collect();
        SymmetricSkellamCode { mu, cached_nats }
    }

    /// The mean parameter mu (= mu1 = mu2).
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// `-ln p(k)` in nats.
    pub fn code_nats(&self, k: i64) -> f64 {
        match self.cached_nats.get(k.unsigned_abs() as usize) {
            Some(&v) => v,
            None => -skellam_logpmf_nats(k, self.mu, self.mu),
        }
    }

    /// `-log2 p(k)` in bits.
    pub fn code_bits(&self, k: i64) -> f64 {
        nats_to_bits(self.code_nats(k))
    }

    /// Total code length in bits of a slice of values (summed in nats, converted once).
    pub fn total_bits(&self, values: &[i64]) -> f64 {
        nats_to_bits(values.iter().map(|&k| self.code_nats(k)).sum::<f64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_code_length_is_the_poisson_edge_and_refuses_bad_means() {
        // Skellam(0, 1) at k = -1 is Poisson(1) at 1: p = e^-1, so 1/ln 2 bits.
        let v = checked_code_length(-1, 0.0, 1.0).unwrap();
        assert!((v["logpmf_nats"].as_f64().unwrap() + 1.0).abs() < 1e-12);
        assert!((v["bits"].as_f64().unwrap() - std::f64::consts::LOG2_E).abs() < 1e-12);
        for (k, mu1, mu2, name) in [
            (0, -1.0, 1.0, "`mu1`"),
            (0, 1.0, f64::NAN, "`mu2`"),
            (0, 0.0, 0.0, "`mu1`"),
            (1, 0.0, 1.0, "`k`"),
        ] {
            let e = checked_code_length(k, mu1, mu2).unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        }
    }

    #[test]
    fn far_apart_means_keep_a_finite_probability() {
        // Skellam(1e-300, 1e300) at 0: ln p = -(mu1 + mu2) + ln I0(2) = -1e300 in f64.
        let v = checked_code_length(0, 1e-300, 1e300).unwrap();
        let lp = v["logpmf_nats"].as_f64().unwrap();
        assert!((lp / -1e300 - 1.0).abs() < 1e-12, "{lp}");
        // At k = 1 the tilt ln(mu1/mu2)/2 = -690.8 is finite too.
        let lp1 = skellam_logpmf_nats(1, 1e-300, 1e300);
        assert!(lp1.is_finite() && lp1 <= lp, "{lp1}");
    }

    #[test]
    fn debye_polynomials_match_known_u1_u2() {
        let polys = debye_polynomials();
        // u1(t) = (3t - 5t^3)/24, u2(t) = (81t^2 - 462t^4 + 385t^6)/1152.
        assert!((polys[1][1] - 3.0 / 24.0).abs() < 1e-16);
        assert!((polys[1][3] + 5.0 / 24.0).abs() < 1e-16);
        assert!((polys[2][2] - 81.0 / 1152.0).abs() < 1e-16);
        assert!((polys[2][4] + 462.0 / 1152.0).abs() < 1e-15);
        assert!((polys[2][6] - 385.0 / 1152.0).abs() < 1e-15);
    }

    #[test]
    fn series_and_debye_agree_at_the_switch() {
        for nu in [0.0, 0.5, 3.0, 20.0, 34.0] {
            let x: f64 = (SERIES_RADIUS * SERIES_RADIUS - nu * nu).sqrt();
            let a = log_ive_series(nu, x);
            let b = log_ive_debye(nu, x, nu.hypot(x));
            assert!((a - b).abs() <= 1e-13 * a.abs().max(1.0), "nu={nu} {a} {b}");
        }
    }

    #[test]
    fn pmf_sums_to_one() {
        for (mu1, mu2) in [(0.5, 0.5), (3.0, 1.0), (50.0, 50.0)] {
            let total: f64 = (-400..=400)
                .map(|k| skellam_logpmf_nats(k, mu1, mu2).exp())
                .sum();
            assert!((total - 1.0).abs() < 1e-12, "{mu1} {mu2} {total}");
        }
    }

    #[test]
    fn asymptotic_entropy_continues_the_sum() {
        // Below the switch the sum and the Edgeworth form agree to 1e-11 relative.
        for (mu1, mu2) in [(2.5e5, 2.5e5), (4e5, 3e5), (4.9e5, 4.9e5)] {
            let sum = skellam_entropy_nats(mu1, mu2);
            let var: f64 = mu1 + mu2;
            let g1 = (mu1 - mu2) / var.powf(1.5);
            let asym = 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E * var).ln()
                - g1 * g1 / 12.0
                - 1.0 / (48.0 * var * var);
            assert!((sum - asym).abs() < 1e-10, "{mu1} {mu2}: {sum} vs {asym}");
        }
        // mu = 1e15: 0.5 ln(4 pi e 1e15).
        let h = skellam_entropy_nats(1e15, 1e15);
        assert!(
            (h - 0.5 * (4.0 * std::f64::consts::PI * std::f64::consts::E * 1e15).ln()).abs()
                < 1e-12
        );
    }

    #[test]
    fn huge_mu_codes_stay_small_and_finite() {
        let code = SymmetricSkellamCode::new(1e15);
        assert_eq!(code.cached_nats.len(), MAX_CACHED + 1);
        let (a, b) = (
            code.code_nats(MAX_CACHED as i64),
            code.code_nats(MAX_CACHED as i64 + 1),
        );
        assert!(
            a.is_finite() && b.is_finite() && (a - b).abs() < 1e-6,
            "{a} {b}"
        );
    }

    #[test]
    fn entropies_match_the_published_values() {
        assert!((skellam_entropy_nats(5000.0, 5000.0) - 6.024109).abs() < 5e-7);
        assert!((skellam_entropy_nats(0.5, 0.5) - 1.402705).abs() < 5e-7);
    }
}
