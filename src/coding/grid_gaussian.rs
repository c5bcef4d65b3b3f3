//! The discretised univariate Gaussian of continuous values on a grid, in nats (callers
//! convert to bits): the code every continuous learner and the multivariate code
//! ([`super::multivariate`]) build on.
//!
//! Continuous values are coded as integer grid indices `k` at precision `lam`: the probability
//! of `k` under a Gaussian N(mu, sigma) is the Gaussian mass of the cell
//! `[(k - 1/2) lam, (k + 1/2) lam)`, i.e. a difference of two normal CDFs. The masses of all
//! cells telescope to exactly 1, so this is a proper code (not a density).

use statrs::function::erf::erfc;

const LN_2PI_HALF: f64 = 0.918_938_533_204_672_8; // ln(2 pi) / 2

/// ln Q(x) = ln P(N(0,1) > x), accurate far into both tails.
pub fn log_normal_sf(x: f64) -> f64 {
    if x < 30.0 {
        (0.5 * erfc(x / std::f64::consts::SQRT_2)).ln()
    } else {
        // Asymptotic expansion of the Mills ratio.
        let x2 = x * x;
        -0.5 * x2 - x.ln() - LN_2PI_HALF + (1.0 - 1.0 / x2 + 3.0 / (x2 * x2)).ln()
    }
}

/// ln(1 - e^a) for a <= 0, accurate near 0 and near -inf.
fn ln_1m_exp(a: f64) -> f64 {
    if a > -std::f64::consts::LN_2 {
        (-a.exp_m1()).ln()
    } else {
        (-a.exp()).ln_1p()
    }
}

/// ln(Phi(b) - Phi(a)) for a < b, without cancellation in the tails.
pub fn log_normal_mass(a: f64, b: f64) -> f64 {
    debug_assert!(a < b);
    if a >= 0.0 {
        // Q(a) - Q(b), both upper tails.
        let la = log_normal_sf(a);
        let lb = log_normal_sf(b);
        la + ln_1m_exp(lb - la)
    } else if b <= 0.0 {
        // Phi(b) - Phi(a) = Q(-b) - Q(-a).
        let lb = log_normal_sf(-b);
        let la = log_normal_sf(-a);
        lb + ln_1m_exp(la - lb)
    } else {
        // The interval straddles 0: the mass is at least min(Phi(b) - 1/2, 1/2 - Phi(a)).
        let qa = 0.5 * erfc(a / std::f64::consts::SQRT_2); // P(X > a)
        let qb = 0.5 * erfc(b / std::f64::consts::SQRT_2); // P(X > b)
        (qa - qb).ln()
    }
}

/// Below this cell width (in standard deviations, with `width x |centre|` below it too) the
/// cell mass is `w phi(m) (1 + (m^2 - 1) w^2 / 24)`, exact to O((w m)^4) ~ 1e-12 relative:
/// the CDF difference would cancel to 0 there.
const NARROW_CELL: f64 = 1e-3;

/// Negative log-probability (nats) of grid index `k` at precision `lam` under N(mu, sigma):
/// minus the log of the Gaussian mass of the cell, never negative (a cell holds at most all
/// the mass). Finite for every finite input with sigma > 0, also for sigma far above or below
/// lam; a non-finite mu or sigma (a diverged model) gives +inf, which no chunk keeps.
pub fn grid_gaussian_nll_nats(k: i64, lam: f64, mu: f64, sigma: f64) -> f64 {
    if !(mu.is_finite() && sigma.is_finite() && sigma > 0.0) {
        return f64::INFINITY;
    }
    // Width and centre of the cell in standard units; ln w directly, since lam / sigma
    // underflows for sigma ~ 1e300.
    let ln_w = lam.ln() - sigma.ln();
    let m = (k as f64 * lam - mu) / sigma;
    let w = ln_w.exp();
    if ln_w < NARROW_CELL.ln() && w * m.abs() < NARROW_CELL {
        let correction = ((m * m - 1.0) * w * w / 24.0).ln_1p();
        return (-ln_w + 0.5 * m * m + LN_2PI_HALF - correction).max(0.0);
    }
    let lo = ((k as f64 - 0.5) * lam - mu) / sigma;
    let hi = ((k as f64 + 0.5) * lam - mu) / sigma;
    let v = -log_normal_mass(lo, hi);
    if v.is_finite() {
        v.max(0.0)
    } else {
        // Only reachable for absurd standardised distances (> 1e150), where the cell is
        // wide compared with its distance's curvature: the lower edge's asymptotic tail.
        let d = lo.abs().min(hi.abs()).max(1.0);
        0.5 * d * d + d.ln() + LN_2PI_HALF
    }
}

/// Negative log-density (nats) of x under N(mu, sigma) (the training loss of Gaussian heads).
pub fn gaussian_nll_density_nats(x: f64, mu: f64, sigma: f64) -> f64 {
    let u = (x - mu) / sigma;
    0.5 * u * u + sigma.ln() + LN_2PI_HALF
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_masses_sum_to_one() {
        for &(mu, sigma, lam) in &[(0.3, 1.0, 0.1), (-2.0, 0.05, 0.01), (5.0, 3.0, 0.5)] {
            let centre = (mu / lam) as i64;
            let span = (12.0 * sigma / lam) as i64 + 5;
            let total: f64 = (centre - span..=centre + span)
                .map(|k| (-grid_gaussian_nll_nats(k, lam, mu, sigma)).exp())
                .sum();
            assert!((total - 1.0).abs() < 1e-9, "total {total}");
        }
    }

    #[test]
    fn tails_are_finite_and_increasing() {
        let mut prev = 0.0;
        for k in [10, 100, 1_000, 10_000, 1_000_000] {
            let v = grid_gaussian_nll_nats(k, 0.01, 0.0, 0.01);
            assert!(v.is_finite() && v > prev, "k={k} v={v}");
            prev = v;
        }
        // Far tail: -ln p ~ d^2/2.
        let v = grid_gaussian_nll_nats(1000, 1.0, 0.0, 1.0);
        assert!((v / (0.5 * 999.5f64.powi(2)) - 1.0).abs() < 1e-2);
        // Symmetry.
        let a = grid_gaussian_nll_nats(-40, 0.1, 0.0, 0.3);
        let b = grid_gaussian_nll_nats(40, 0.1, 0.0, 0.3);
        assert!((a - b).abs() < 1e-9 * a);
    }

    #[test]
    fn huge_and_tiny_std_never_give_negative_lengths() {
        // Closed form for lam << sigma: -ln p = -ln(lam/sigma) + m^2/2 + ln(2 pi)/2.
        for (k, lam, mu, sigma) in [
            (0, 0.01, 0.0, 1e300),
            (12345, 0.01, 3.0, 1e300),
            (-7, 1e-10, 0.0, 1e307),
            (1, 1.0, 0.0, 1e30),
        ] {
            let v = grid_gaussian_nll_nats(k, lam, mu, sigma);
            let m: f64 = (k as f64 * lam - mu) / sigma;
            let want = sigma.ln() - lam.ln() + 0.5 * m * m + LN_2PI_HALF;
            assert!(
                v > 0.0 && (v - want).abs() < 1e-9 * want,
                "{k} {sigma}: {v} vs {want}"
            );
        }
        // sigma = 1e300 at lam = 0.01: 700.3 nats (1010.4 bits) per value.
        let v = grid_gaussian_nll_nats(5, 0.01, 0.0, 1e300);
        assert!((v - (1e302f64.ln() + LN_2PI_HALF)).abs() < 1e-9);
        // Tiny sigma: the value's own cell holds all the mass (0 nats), its neighbours none.
        assert_eq!(grid_gaussian_nll_nats(3, 0.01, 0.03, 1e-300), 0.0);
        assert!(grid_gaussian_nll_nats(4, 0.01, 0.03, 1e-300) > 1e10);
        // A diverged model: +inf, never negative.
        assert_eq!(
            grid_gaussian_nll_nats(0, 0.01, 0.0, f64::INFINITY),
            f64::INFINITY
        );
        assert_eq!(
            grid_gaussian_nll_nats(0, 0.01, f64::NAN, 1.0),
            f64::INFINITY
        );
    }

    #[test]
    fn narrow_and_wide_forms_agree_at_the_switch() {
        // Cells just above and below the switch width give the same length to 1e-10.
        for m in [0.0, 0.3, 1.5] {
            let sigma = 1.0;
            let below = grid_gaussian_nll_nats(0, 0.999e-3, -m, sigma);
            let above = grid_gaussian_nll_nats(0, 1.001e-3, -m, sigma);
            let d = (below - above) - (1.001f64 / 0.999).ln();
            assert!(d.abs() < 1e-8, "m={m}: {below} {above} {d}");
        }
    }

    #[test]
    fn small_cells_match_density() {
        // For lam << sigma, -ln p(k) ~ -ln(lam * density).
        let (lam, mu, sigma) = (1e-4, 0.2, 1.5);
        let k = 3000;
        let x = k as f64 * lam;
        let exact = grid_gaussian_nll_nats(k, lam, mu, sigma);
        let approx = gaussian_nll_density_nats(x, mu, sigma) - lam.ln();
        assert!((exact - approx).abs() < 1e-6);
    }
}
