//! Up-front parameter checks shared by the generators: every error names its parameter.

use crate::error::{KcompError, Result};

/// `value >= min`.
pub fn at_least(name: &str, value: usize, min: usize) -> Result<()> {
    if value < min {
        return Err(KcompError::param(
            name,
            format!("must be at least {min}, got {value}"),
        ));
    }
    Ok(())
}

/// A positive finite real.
pub fn positive(name: &str, value: f64) -> Result<()> {
    if !(value.is_finite() && value > 0.0) {
        return Err(KcompError::param(
            name,
            format!("must be positive and finite, got {value}"),
        ));
    }
    Ok(())
}

/// `divisor` divides `value`.
pub fn divides(divisor_name: &str, divisor: usize, value_name: &str, value: usize) -> Result<()> {
    if divisor == 0 || !value.is_multiple_of(divisor) {
        return Err(KcompError::param(
            divisor_name,
            format!("{divisor_name} = {divisor} must divide {value_name} = {value}"),
        ));
    }
    Ok(())
}

/// Checks the memory a run needs against the limit ([`crate::io::limits`]). `terms` lists the
/// large allocations as (parameter that drives it, bytes); the error names the largest one.
pub fn memory(what: &str, terms: &[(&str, f64)]) -> Result<()> {
    let total: f64 = terms.iter().map(|t| t.1).sum();
    let name = terms
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|t| t.0)
        .unwrap_or("parameters");
    crate::io::limits::check_memory(name, what, total)
}

/// Bytes of topological similarity over `n` samples (W width `m`, Z width `d`) with at most
/// `max_pairs` pairs: the two distance lists (and their ranks), the rows as `f64`.
pub fn topsim_bytes(n: usize, m: usize, d: usize, max_pairs: usize) -> f64 {
    let n = n as f64;
    let pairs = (n * (n - 1.0) / 2.0).min(max_pairs as f64);
    pairs * 48.0 + n * (m + d) as f64 * 8.0 + n * 64.0
}

/// A finite real (any sign).
pub fn finite(name: &str, value: f64) -> Result<()> {
    if !value.is_finite() {
        return Err(KcompError::param(
            name,
            format!("must be finite, got {value}"),
        ));
    }
    Ok(())
}

/// Refuses a grid so coarse that Z is expected to hold no non-zero value at all: `counts` pairs
/// a standard deviation (in value units) with how many values it draws. A Skellam(mu, mu)
/// value is non-zero with probability about 2 mu for small mu, so the expected number of
/// non-zero values is the sum of 2 mu x count. Below 1, K(Z|W) is ~0 bits and C(Z) =
/// K(Z)/K(Z|W) is a division by rounding noise (C of millions, or negative).
pub fn expect_nonzero(precision: f64, counts: &[(&str, f64, f64)]) -> Result<()> {
    use crate::coding::discretised_gaussian::skellam_mu;
    let expected: f64 = counts
        .iter()
        .map(|&(_, std, n)| 2.0 * skellam_mu(std, precision) * n)
        .sum();
    if expected < 1.0 {
        let names: Vec<&str> = counts.iter().map(|c| c.0).collect();
        return Err(KcompError::param(
            "precision",
            format!(
                "precision {precision:e} is so coarse against {} that Z is expected to hold \
                 {expected:.2e} non-zero values: K(Z|W) is ~0 and C(Z) would be undefined",
                names.join(" and ")
            ),
        ));
    }
    Ok(())
}

/// Refuses a precision so coarse that every value of Z is 0 (both the parameters' and the
/// noise's Skellam mu underflow to 0): K(Z|W) = 0 and C(Z) = K(Z)/K(Z|W) is undefined.
pub fn not_all_zero(std_name: &str, std: f64, noise: f64, precision: f64) -> Result<()> {
    use crate::coding::discretised_gaussian::skellam_mu;
    if skellam_mu(std, precision) == 0.0 && skellam_mu(noise, precision) == 0.0 {
        return Err(KcompError::param(
            "precision",
            format!(
                "precision {precision:e} is so far above {std_name} and noise that every value \
                 of Z is 0: K(Z|W) = 0 and C(Z) is undefined"
            ),
        ));
    }
    Ok(())
}
