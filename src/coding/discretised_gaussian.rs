//! The discretised Gaussian of Elmoznino et al. (ICML 2025): "mean m, std s, precision lam".
//!
//! Values live on the grid `m + k * lam`, `k` an integer drawn from Skellam(mu, mu) with
//! `mu = (s / lam)^2 / 2` (variance `2 mu = (s/lam)^2` grid steps). A real value `x` is coded by
//! its grid index `round_half_even((x - m) / lam)`. kcomp stores grid indices as `i64`, never
//! floats, so code lengths are exact.

use crate::error::{KcompError, Result};
use crate::rng::stream::Stream;

use super::skellam::SymmetricSkellamCode;

/// Largest Skellam mu of a discretised Gaussian: draws are Poisson(mu) differences held as
/// `i64` and as `f64` (exact below 2^53), so mu + 40 sd must stay well below 2^53.
pub const MAX_GRID_MU: f64 = (1u64 << 50) as f64;

/// A discretised Gaussian with mean 0 on the grid of spacing `lam`.
#[derive(Debug, Clone)]
pub struct DiscretisedGaussian {
    std: f64,
    lam: f64,
    code: SymmetricSkellamCode,
}

impl DiscretisedGaussian {
    /// Validates `std > 0`, `lam > 0` (both finite). `name` prefixes error messages.
    pub fn new(std: f64, lam: f64, name: &str) -> Result<Self> {
        let mu = check_grid(std, lam, name)?;
        Ok(DiscretisedGaussian {
            std,
            lam,
            code: SymmetricSkellamCode::new(mu),
        })
    }
}

/// Checks `std > 0`, `lam > 0` (finite) and that grid indices stay exact (Skellam mu at most
/// [`MAX_GRID_MU`]); returns mu. Cheap: generators call it from their parameter validation.
pub fn check_grid(std: f64, lam: f64, name: &str) -> Result<f64> {
    if !(lam.is_finite() && lam > 0.0) {
        return Err(KcompError::param(
            "precision",
            format!("must be a positive finite grid spacing, got {lam}"),
        ));
    }
    if !(std.is_finite() && std > 0.0) {
        return Err(KcompError::param(
            name,
            format!("standard deviation must be positive and finite, got {std}"),
        ));
    }
    let mu = skellam_mu(std, lam);
    if mu.is_nan() || mu > MAX_GRID_MU {
        return Err(KcompError::param(
            format!("{name}/precision"),
            format!(
                "{name} / precision = {:e} grid steps is too many: grid indices are exact \
                     integers only while {name}/precision <= {:.3e} (Skellam mu <= 2^50)",
                std / lam,
                (2.0 * MAX_GRID_MU).sqrt()
            ),
        ));
    }
    Ok(mu)
}

impl DiscretisedGaussian {
    /// Standard deviation in value units.
    pub fn std(&self) -> f64 {
        self.std
    }

    /// Grid spacing (precision).
    pub fn lam(&self) -> f64 {
        self.lam
    }

    /// The Skellam parameter mu = mu1 = mu2.
    pub fn mu(&self) -> f64 {
        self.code.mu()
    }

    /// The code of grid indices.
    pub fn code(&self) -> &SymmetricSkellamCode {
        &self.code
    }

    /// Draws `count` grid indices (SciPy `skellam.rvs` order: all first Poissons, then seconds).
    pub fn sample(&self, stream: &mut Stream, count: usize) -> Vec<i64> {
        stream.skellam_symmetric(self.mu(), count)
    }

    /// Code length in bits of a grid index.
    pub fn code_bits(&self, k: i64) -> f64 {
        self.code.code_bits(k)
    }

    /// Total code length in bits of many grid indices.
    pub fn total_bits(&self, ks: &[i64]) -> f64 {
        self.code.total_bits(ks)
    }
}

/// `mu = (std / lam)^2 / 2`, evaluated in the reference's order of operations.
pub fn skellam_mu(std: f64, lam: f64) -> f64 {
    let ratio = std / lam;
    ratio * ratio / 2.0
}

/// Grid index of a real value: `round_half_even((x - mean) / lam)`.
pub fn grid_index(x: f64, mean: f64, lam: f64) -> i64 {
    ((x - mean) / lam).round_ties_even() as i64
}

/// Real value of a grid index: `mean + k * lam`.
pub fn grid_value(k: i64, mean: f64, lam: f64) -> f64 {
    mean + k as f64 * lam
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_give_mu_5000_and_half() {
        assert_eq!(skellam_mu(1.0, 0.01), 5000.0);
        assert_eq!(skellam_mu(0.01, 0.01), 0.5);
    }

    #[test]
    fn rounding_is_half_to_even() {
        assert_eq!(grid_index(0.5, 0.0, 1.0), 0);
        assert_eq!(grid_index(1.5, 0.0, 1.0), 2);
        assert_eq!(grid_index(-2.5, 0.0, 1.0), -2);
        assert_eq!(grid_index(0.034, 0.0, 0.01), 3);
        assert!((grid_value(3, 1.0, 0.01) - 1.03).abs() < 1e-12);
    }

    #[test]
    fn bad_parameters_are_rejected() {
        assert!(DiscretisedGaussian::new(1.0, 0.0, "table").is_err());
        assert!(DiscretisedGaussian::new(-1.0, 0.01, "table").is_err());
        assert!(DiscretisedGaussian::new(f64::NAN, 0.01, "noise").is_err());
        // std/precision = 1e308 used to overflow mu and allocate a table per sd.
        let e = DiscretisedGaussian::new(1.0, 1e-308, "table_std")
            .unwrap_err()
            .to_string();
        assert!(e.contains("table_std/precision"), "{e}");
        assert!(DiscretisedGaussian::new(1e308, 0.01, "noise").is_err());
        // Tiny precision within the exact range is fine: mu = 5e13.
        let g = DiscretisedGaussian::new(1.0, 1e-7, "noise").unwrap();
        assert_eq!(g.mu(), 0.5e14);
        // A std far below the precision: mu underflows to 0, every value is 0 (0 bits).
        let g = DiscretisedGaussian::new(1e-300, 1.0, "noise").unwrap();
        assert_eq!(g.code_bits(0), 0.0);
    }
}
