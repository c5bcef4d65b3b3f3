//! Bayesian linear regression of continuous Z on one-hot n-gram features of W.

use super::OnlineLearner;
use crate::coding::multivariate::{CovarianceCode, CovarianceSettings};
use crate::coding::predictive::OutputDist;
use crate::dataset::{Targets, TokenData};

/// Bayesian linear regression on one-hot n-gram features (continuous Z): posterior over the
/// weights with ridge prior, shared across output dimensions, updated row by row
/// (Sherman-Morrison); the noise covariance from the standardised prequential residuals (shrunk,
/// with a window of about 100 rows), every row coded dimension by dimension through its
/// Cholesky factor ([`crate::coding::multivariate`]), mixed with a per-dimension code refreshed
/// at every row (the code this learner had before the covariance: never more than 1 bit worse).
pub struct BayesLinear {
    order: usize,
    ridge: f64,
    n_feat: usize,
    vocab: usize,
    n_words: usize,
    dim: usize,
    lam: f64,
    /// Inverse of (ridge I + X^T X), F x F.
    a_inv: Vec<f64>,
    /// X^T Y, F x D.
    xty: Vec<f64>,
    /// The covariance of the standardised residuals.
    residuals: CovarianceCode,
}

/// Forgetting factor of the noise-variance estimate: early residuals, taken when the prior
/// was all the model knew, would inflate it for the rest of the stream (about 100 rows kept).
const RES_FORGET: f64 = 0.99;

/// Largest feature count of [`BayesLinear`] (its update costs F^2 per row).
pub const MAX_LINEAR_FEATURES: usize = 2048;

impl BayesLinear {
    pub fn new(w: &TokenData, z: &Targets, order: usize, ridge: f64) -> Option<Self> {
        let Targets::Continuous { dim, lam, .. } = z else {
            return None;
        };
        let mut n_feat = 1; // bias
        for n in 1..=order.min(w.n_words) {
            let per = (w.vocab as f64).powi(n as i32);
            n_feat += ((w.n_words - n + 1) as f64 * per) as usize;
            if n_feat > MAX_LINEAR_FEATURES || per > 1e6 {
                return None;
            }
        }
        let mut a_inv = vec![0.0; n_feat * n_feat];
        for i in 0..n_feat {
            a_inv[i * n_feat + i] = 1.0 / ridge;
        }
        Some(BayesLinear {
            order,
            ridge,
            n_feat,
            vocab: w.vocab,
            n_words: w.n_words,
            dim: *dim,
            lam: *lam,
            a_inv,
            xty: vec![0.0; n_feat * dim],
            residuals: CovarianceCode::new(
                *dim,
                *lam,
                false,
                CovarianceSettings {
                    forget: RES_FORGET,
                    // A window of ~100 rows estimates a D x D covariance poorly where the
                    // dimensions are independent (lookup tables of 2-grams: +0.9 % bits with
                    // the covariance's own diagonal refreshed every 10 rows, +0.0 % with the
                    // per-row per-dimension code).
                    mix_diagonal: true,
                    ..Default::default()
                },
            ),
        })
    }

    fn features(&self, w: &TokenData, row: usize) -> Vec<usize> {
        let toks = w.row(row);
        let mut f = vec![0];
        let mut off = 1;
        for n in 1..=self.order.min(self.n_words) {
            let per = self.vocab.pow(n as u32);
            for p in 0..=self.n_words - n {
                let idx = toks[p..p + n]
                    .iter()
                    .rev()
                    .fold(0usize, |a, &t| a * self.vocab + t as usize);
                f.push(off + p * per + idx);
            }
            off += (self.n_words - n + 1) * per;
        }
        f
    }

    /// (A^-1 x, x^T A^-1 x) for a one-hot feature set.
    fn solve(&self, f: &[usize]) -> (Vec<f64>, f64) {
        let nf = self.n_feat;
        let mut u = vec![0.0; nf];
        for &j in f {
            // A^-1 is symmetric: column j is row j.
            for (ui, &a) in u.iter_mut().zip(&self.a_inv[j * nf..(j + 1) * nf]) {
                *ui += a;
            }
        }
        let h = f.iter().map(|&j| u[j]).sum();
        (u, h)
    }

    /// Predictive mean per dimension.
    fn mean(&self, u: &[f64]) -> Vec<f64> {
        let d = self.dim;
        let mut mu = vec![0.0; d];
        for (i, &ui) in u.iter().enumerate() {
            if ui != 0.0 {
                for (m, &b) in mu.iter_mut().zip(&self.xty[i * d..(i + 1) * d]) {
                    *m += ui * b;
                }
            }
        }
        mu
    }
}

impl OnlineLearner for BayesLinear {
    fn name(&self) -> String {
        format!("linear{}-ridge{}", self.order, self.ridge)
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let Targets::Continuous { grid, .. } = z else {
            return vec![f64::INFINITY; rows.len()];
        };
        // Before any residual, a tenth of a unit per dimension.
        let fallback = 0.1f64.max(10.0 * self.lam);
        rows.iter()
            .map(|&row| {
                let (u, h) = self.solve(&self.features(w, row));
                let mean = self.mean(&u);
                let k = &grid[row * self.dim..(row + 1) * self.dim];
                self.residuals
                    .bits(k, Some(&mean), (1.0 + h).sqrt(), fallback)
            })
            .collect()
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let Targets::Continuous { grid, .. } = z else {
            return;
        };
        let d = self.dim;
        let nf = self.n_feat;
        for &row in &sent[sent.len() - n_new..] {
            let f = self.features(w, row);
            let (u, h) = self.solve(&f);
            // Standardised residual of the prediction made before this row was learned.
            let mean = self.mean(&u);
            let s = (1.0 + h).sqrt();
            let e: Vec<f64> = (0..d)
                .map(|k| (grid[row * d + k] as f64 * self.lam - mean[k]) / s)
                .collect();
            self.residuals.learn(&e);
            let inv = 1.0 / (1.0 + h);
            for i in 0..nf {
                if u[i] != 0.0 {
                    let ui = u[i] * inv;
                    let rowi = &mut self.a_inv[i * nf..(i + 1) * nf];
                    for (a, &uj) in rowi.iter_mut().zip(&u) {
                        *a -= ui * uj;
                    }
                }
            }
            for &j in &f {
                for k in 0..d {
                    self.xty[j * d + k] += grid[row * d + k] as f64 * self.lam;
                }
            }
        }
    }

    fn predictive(
        &mut self,
        w: &TokenData,
        _z: &Targets,
        rows: &[usize],
    ) -> Option<Vec<Vec<OutputDist>>> {
        Some(
            rows.iter()
                .map(|&row| {
                    let (u, h) = self.solve(&self.features(w, row));
                    let mean = self.mean(&u);
                    // The marginals of the residuals' multivariate code, scaled as `code`
                    // scales them (1 + h); one unit before any residual.
                    let var = self
                        .residuals
                        .marginal_variances()
                        .unwrap_or_else(|| vec![1.0; mean.len()]);
                    mean.iter()
                        .zip(var)
                        .map(|(&m, v)| OutputDist::Gaussian {
                            mean: m / self.lam,
                            sd: (v * (1.0 + h)).sqrt().max(0.25 * self.lam) / self.lam,
                        })
                        .collect()
                })
                .collect(),
        )
    }
}
