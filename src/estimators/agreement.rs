//! TEMPORARY shim until the agreement module lands (replaced at merge).

/// Kendall's tau-b (ties in both vectors).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || y.len() != n {
        return None;
    }
    let (mut c, mut d, mut tx, mut ty) = (0f64, 0f64, 0f64, 0f64);
    for i in 0..n {
        for j in i + 1..n {
            let a = (x[i] - x[j]).signum() * ((x[i] != x[j]) as i32 as f64);
            let b = (y[i] - y[j]).signum() * ((y[i] != y[j]) as i32 as f64);
            if a == 0.0 && b == 0.0 {
            } else if a == 0.0 {
                tx += 1.0;
            } else if b == 0.0 {
                ty += 1.0;
            } else if a == b {
                c += 1.0;
            } else {
                d += 1.0;
            }
        }
    }
    let den = ((c + d + tx) * (c + d + ty)).sqrt();
    (den > 0.0).then(|| (c - d) / den)
}

/// Spearman's rho (average ranks for ties).
pub fn spearman_rho(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() < 2 || y.len() != x.len() {
        return None;
    }
    let rx = crate::estimators::topsim::average_ranks(x);
    let ry = crate::estimators::topsim::average_ranks(y);
    crate::estimators::topsim::pearson(&rx, &ry).filter(|v| v.is_finite())
}
