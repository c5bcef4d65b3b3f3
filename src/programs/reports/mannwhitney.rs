//! Two-sided Mann-Whitney U test (statrs' `mannwhitneyu`, asymptotic with tie and continuity
//! corrections, as SciPy's `mannwhitneyu(method="asymptotic")`) and the significance grouping
//! of the paper's Table 5.

use statrs::stats_tests::Alternative;
use statrs::stats_tests::mannwhitneyu::{MannWhitneyUMethod, mannwhitneyu};

/// (U of the first sample, two-sided p) from statrs (normal approximation with tie and
/// continuity corrections, SciPy's `method="asymptotic"`). p = 1 when either sample is empty,
/// all values tie, or a value is NaN (no evidence of a difference).
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> (f64, f64) {
    match mannwhitneyu(
        a,
        b,
        MannWhitneyUMethod::AsymptoticInclContinuityCorrection,
        Alternative::TwoSided,
    ) {
        // All values tied: zero variance gives p = NaN or 1; report 1.
        Ok((u, p)) => (u, if p.is_nan() { 1.0 } else { p }),
        Err(_) => (0.0, 1.0),
    }
}

/// Table 5 grouping: items sorted strongest first; a new group starts at the first item that
/// differs significantly (p < alpha) from the current group's strongest member.
pub fn significance_groups(sorted: &[(String, Vec<f64>)], alpha: f64) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut head: Option<&Vec<f64>> = None;
    for (name, vals) in sorted {
        match head {
            Some(h) if mann_whitney_u(h, vals).1 >= alpha => {
                groups
                    .last_mut()
                    .expect("a group exists")
                    .push(name.clone());
            }
            _ => {
                groups.push(vec![name.clone()]);
                head = Some(vals);
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scipy_asymptotic() {
        // scipy.stats.mannwhitneyu([1,2,3,4,5],[6,7,8,9,10], method="asymptotic")
        //   -> U=0.0, p=0.012185780355344813
        let (u, p) = mann_whitney_u(&[1., 2., 3., 4., 5.], &[6., 7., 8., 9., 10.]);
        assert_eq!(u, 0.0);
        assert!((p - 0.012_185_780_355_344_813).abs() < 1e-12, "{p}");
        // with ties: ([1,1,2,3],[1,2,2,4]) -> U=6.0, p=0.6489418131874136
        let (u, p) = mann_whitney_u(&[1., 1., 2., 3.], &[1., 2., 2., 4.]);
        assert_eq!(u, 6.0);
        assert!((p - 0.648_941_813_187_413_6).abs() < 1e-12, "{p}");
        // all tied, empty or NaN: no evidence of a difference
        assert_eq!(mann_whitney_u(&[2., 2.], &[2., 2., 2.]).1, 1.0);
        assert_eq!(mann_whitney_u(&[], &[1.]), (0.0, 1.0));
        assert_eq!(mann_whitney_u(&[f64::NAN, 1.], &[1.]).1, 1.0);
    }
}
