//! Likelihoods of the heads, in nats (callers convert to bits). The discretised Gaussian of
//! grid values lives in [`crate::coding::grid_gaussian`] (shared with the multivariate code);
//! it is re-exported here for the heads.

pub use crate::coding::grid_gaussian::{
    gaussian_nll_density_nats, grid_gaussian_nll_nats, log_normal_mass, log_normal_sf,
};

/// Log-softmax of `logits` written into `out` (same length); returns nothing.
pub fn log_softmax(logits: &[f32], out: &mut [f64]) {
    let m = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
    let s: f64 = logits.iter().map(|&l| (l as f64 - m).exp()).sum();
    let lse = m + s.ln();
    for (o, &l) in out.iter_mut().zip(logits) {
        *o = l as f64 - lse;
    }
}
