//! Two-sided Mann-Whitney U test (normal approximation with tie and continuity corrections,
//! as SciPy's `mannwhitneyu(method="asymptotic")`) and the significance grouping of the
//! paper's Table 5.

use statrs::distribution::{ContinuousCDF, Normal};

/// (U of the first sample, two-sided p). p = 1 when either sample is empty or all values tie.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> (f64, f64) {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return (0.0, 1.0);
    }
    let mut all: Vec<(f64, usize)> = a
        .iter()
        .map(|&x| (x, 0))
        .chain(b.iter().map(|&x| (x, 1)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len();
    let mut ranks = vec![0.0; n];
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        for rk in ranks.iter_mut().take(j + 1).skip(i) {
            *rk = r;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let r1: f64 = all
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| x.1 == 0)
        .map(|(_, r)| r)
        .sum();
    let (n1f, n2f, nf) = (n1 as f64, n2 as f64, n as f64);
    let u1 = r1 - n1f * (n1f + 1.0) / 2.0;
    let mu = n1f * n2f / 2.0;
    let var = n1f * n2f / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
    if var <= 0.0 {
        return (u1, 1.0);
    }
    let u = u1.max(n1f * n2f - u1);
    let z = (u - mu - 0.5) / var.sqrt();
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    let p = (2.0 * (1.0 - normal.cdf(z))).clamp(0.0, 1.0);
    (u1, p)
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
    }
}
