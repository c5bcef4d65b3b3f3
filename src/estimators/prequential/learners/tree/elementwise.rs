//! Tensor-product binding over a parse tree: a node is `x * g_left + y * g_right` elementwise,
//! where `g` is the role of the child (one vector per role key: the parent's height and the
//! child's category). Dimension j of the root is then
//! `z_j = sum over leaves p of e_j(w_p) * prod over p's path of g_j(role)`, one small
//! multilinear problem per dimension (the word vectors and roles of that dimension), fitted by
//! Levenberg-Marquardt on its normal equations (linear in the word vectors given the roles, in
//! each role given the rest). The generator's binding `x (1 + r_x) + y (1 + r_y)` is this with
//! `g = 1 + r`.

use nalgebra::{DMatrix, DVector};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use super::shape::Keys;
use crate::dataset::TokenData;
use crate::estimators::prequential::code::derive_seed;

/// Role values are drawn around 1 with this spread at a restart.
const RESTART_SPREAD: f64 = 0.5;
fn effort_default_restarts() -> usize {
    3
}

/// Random starts for a dimension stuck far above the others.
const STUCK_RESTARTS: usize = 8;

/// The word vectors and roles, dimension-major.
#[derive(Debug, Clone)]
pub struct Elementwise {
    pub vocab: usize,
    pub dim: usize,
    pub n_roles: usize,
    /// `emb[j * vocab + w]`.
    pub emb: Vec<f64>,
    /// `role[j * n_roles + k]`.
    pub role: Vec<f64>,
}

/// Fitting effort.
#[derive(Debug, Clone, Copy)]
pub struct FitEffort {
    /// Levenberg-Marquardt iterations at most per start.
    pub iters: usize,
    /// Random starts besides the current parameters.
    pub restarts: usize,
}

impl Elementwise {
    pub fn new(vocab: usize, dim: usize, n_roles: usize) -> Self {
        Elementwise {
            vocab,
            dim,
            n_roles,
            emb: vec![0.0; vocab * dim],
            role: vec![1.0; n_roles * dim],
        }
    }

    /// Parameters per dimension.
    pub fn params_per_dim(&self) -> usize {
        self.vocab + self.n_roles
    }

    /// The prediction of dimension `j` of row `r` from that dimension's parameters.
    fn predict_dim(e: &[f64], g: &[f64], keys: &Keys, w: &TokenData, r: usize) -> f64 {
        let m = w.n_words;
        let row = w.row(r);
        let mut acc = 0.0;
        for (p, &t) in row.iter().enumerate() {
            let mut f = e[t as usize];
            for &k in &keys.role[(r * m + p) * keys.depth..(r * m + p + 1) * keys.depth] {
                if k == u32::MAX {
                    break;
                }
                f *= g[k as usize];
            }
            acc += f;
        }
        acc
    }

    /// The predicted root of row `r` (length `dim`).
    pub fn predict(&self, keys: &Keys, w: &TokenData, r: usize, out: &mut [f64]) {
        for (j, o) in out.iter_mut().enumerate() {
            *o = Self::predict_dim(
                &self.emb[j * self.vocab..(j + 1) * self.vocab],
                &self.role[j * self.n_roles..(j + 1) * self.n_roles],
                keys,
                w,
                r,
            );
        }
    }

    /// Fits every dimension on `rows` (targets `y(r, j)`), keeping per dimension the best of the
    /// current parameters and `effort.restarts` random starts (by training loss). Returns the
    /// training mean squared error per dimension.
    pub fn fit(
        &mut self,
        keys: &Keys,
        w: &TokenData,
        y: &(dyn Fn(usize, usize) -> f64 + Sync),
        rows: &[usize],
        effort: FitEffort,
        seed: u64,
    ) -> Vec<f64> {
        // The dimensions side by side: each fits its own parameters from its own seed, so the
        // numbers do not depend on the thread count.
        let fits: Vec<(f64, Vec<f64>)> = (0..self.dim)
            .into_par_iter()
            .map(|j| self.fit_dim(keys, w, y, rows, effort.iters, effort.restarts, seed, j))
            .collect();
        let mut mse = Vec::with_capacity(self.dim);
        for (j, (m, theta)) in fits.into_iter().enumerate() {
            self.set_dim(j, &theta);
            mse.push(m);
        }
        // A dimension whose fit is far worse than the others' sits in a local minimum (the
        // dimensions share their trees and noise): more starts for it.
        let mut sorted = mse.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let stuck: Vec<usize> = (0..self.dim)
            .filter(|&j| mse[j] > 100.0 * median && mse[j] > 0.0)
            .collect();
        let again: Vec<(f64, Vec<f64>)> = stuck
            .par_iter()
            .map(|&j| {
                let restarts = STUCK_RESTARTS;
                self.fit_dim(keys, w, y, rows, effort.iters, restarts, seed ^ 0x5eed, j)
            })
            .collect();
        for (&j, (m, theta)) in stuck.iter().zip(again) {
            self.set_dim(j, &theta);
            mse[j] = mse[j].min(m);
        }
        mse
    }

    /// Dimension `j`'s word vectors and roles from `theta` (word vectors, then roles).
    fn set_dim(&mut self, j: usize, theta: &[f64]) {
        let (v, nr) = (self.vocab, self.n_roles);
        self.emb[j * v..(j + 1) * v].copy_from_slice(&theta[..v]);
        self.role[j * nr..(j + 1) * nr].copy_from_slice(&theta[v..]);
    }

    /// One dimension: the current parameters refined and `restarts` random starts. Returns the
    /// best one's training mean squared error and parameters (word vectors, then roles).
    #[allow(clippy::too_many_arguments)]
    fn fit_dim(
        &self,
        keys: &Keys,
        w: &TokenData,
        y: &(dyn Fn(usize, usize) -> f64 + Sync),
        rows: &[usize],
        iters: usize,
        restarts: usize,
        seed: u64,
        j: usize,
    ) -> (f64, Vec<f64>) {
        let (v, nr) = (self.vocab, self.n_roles);
        let effort = FitEffort { iters, restarts };
        {
            let target: Vec<f64> = rows.iter().map(|&r| y(r, j)).collect();
            let mut theta: Vec<f64> = self.emb[j * v..(j + 1) * v]
                .iter()
                .chain(&self.role[j * nr..(j + 1) * nr])
                .copied()
                .collect();
            let mut best = lm(&mut theta, v, keys, w, rows, &target, effort.iters);
            let mut best_theta = theta;
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, j as u64));
            for _ in 0..effort.restarts {
                let mut t = vec![0.0; v + nr];
                // Later starts spread wider (a role of the generator is 1 + N(0, 1)).
                let spread = if restarts > effort_default_restarts() {
                    1.0
                } else {
                    RESTART_SPREAD
                };
                for g in &mut t[v..] {
                    let n: f64 = StandardNormal.sample(&mut rng);
                    *g = 1.0 + spread * n;
                }
                embeddings_given_roles(&mut t, v, keys, w, rows, &target);
                let loss = lm(&mut t, v, keys, w, rows, &target, effort.iters);
                if loss < best {
                    best = loss;
                    best_theta = t;
                }
            }
            (best / rows.len().max(1) as f64, best_theta)
        }
    }
}

/// The sparse gradient of one row's prediction: (index, value) pairs, indices may repeat.
fn row_jacobian(
    theta: &[f64],
    v: usize,
    keys: &Keys,
    w: &TokenData,
    r: usize,
    out: &mut Vec<(usize, f64)>,
) -> f64 {
    out.clear();
    let m = w.n_words;
    let row = w.row(r);
    let mut pred = 0.0;
    let mut path = Vec::with_capacity(keys.depth);
    for (p, &t) in row.iter().enumerate() {
        path.clear();
        for &k in &keys.role[(r * m + p) * keys.depth..(r * m + p + 1) * keys.depth] {
            if k == u32::MAX {
                break;
            }
            path.push(v + k as usize);
        }
        let e = theta[t as usize];
        let f: f64 = path.iter().map(|&i| theta[i]).product();
        pred += e * f;
        out.push((t as usize, f));
        for (s, &i) in path.iter().enumerate() {
            // The product of the other factors (no division: a role may be 0).
            let others: f64 = path
                .iter()
                .enumerate()
                .filter(|&(q, _)| q != s)
                .map(|(_, &i2)| theta[i2])
                .product();
            out.push((i, e * others));
        }
    }
    // Merge repeated indices (a word or a role used by several leaves): fewer products in
    // the normal equations.
    out.sort_unstable_by_key(|p| p.0);
    let mut k = 0;
    for i in 0..out.len() {
        if k > 0 && out[k - 1].0 == out[i].0 {
            out[k - 1].1 += out[i].1;
        } else {
            out[k] = out[i];
            k += 1;
        }
    }
    out.truncate(k);
    pred
}

fn loss(theta: &[f64], v: usize, keys: &Keys, w: &TokenData, rows: &[usize], y: &[f64]) -> f64 {
    let (e, g) = theta.split_at(v);
    rows.iter()
        .zip(y)
        .map(|(&r, &t)| (t - Elementwise::predict_dim(e, g, keys, w, r)).powi(2))
        .sum()
}

/// Word vectors by least squares with the roles fixed (the prediction is linear in them).
fn embeddings_given_roles(
    theta: &mut [f64],
    v: usize,
    keys: &Keys,
    w: &TokenData,
    rows: &[usize],
    y: &[f64],
) {
    let mut a = DMatrix::<f64>::zeros(v, v);
    let mut b = DVector::<f64>::zeros(v);
    let mut jac = Vec::new();
    for (&r, &t) in rows.iter().zip(y) {
        row_jacobian(theta, v, keys, w, r, &mut jac);
        let e_part: Vec<(usize, f64)> = jac.iter().copied().filter(|&(i, _)| i < v).collect();
        for &(i, fi) in &e_part {
            b[i] += fi * t;
            for &(k, fk) in &e_part {
                a[(i, k)] += fi * fk;
            }
        }
    }
    let scale = (0..v).map(|i| a[(i, i)]).sum::<f64>() / v as f64;
    for i in 0..v {
        a[(i, i)] += 1e-9 * scale + 1e-12;
    }
    if let Some(ch) = a.cholesky() {
        let x = ch.solve(&b);
        theta[..v].copy_from_slice(x.as_slice());
    }
}

/// Levenberg-Marquardt on one dimension; returns the final sum of squared errors.
fn lm(
    theta: &mut [f64],
    v: usize,
    keys: &Keys,
    w: &TokenData,
    rows: &[usize],
    y: &[f64],
    iters: usize,
) -> f64 {
    let p = theta.len();
    let mut cur = loss(theta, v, keys, w, rows, y);
    let mut mu = 1e-3;
    let mut jac = Vec::new();
    let mut slow = 0;
    for _ in 0..iters {
        let mut flat = vec![0.0; p * p];
        let mut b = DVector::<f64>::zeros(p);
        for (&r, &t) in rows.iter().zip(y) {
            let pred = row_jacobian(theta, v, keys, w, r, &mut jac);
            let res = t - pred;
            for &(i, fi) in &jac {
                b[i] += fi * res;
                let col = &mut flat[i * p..(i + 1) * p];
                for &(k, fk) in &jac {
                    col[k] += fi * fk;
                }
            }
        }
        let a = DMatrix::from_vec(p, p, flat);
        let diag: Vec<f64> = (0..p).map(|i| a[(i, i)]).collect();
        let scale = diag.iter().sum::<f64>() / p as f64 + 1e-300;
        let mut accepted = false;
        while mu < 1e10 {
            let mut m = a.clone();
            for i in 0..p {
                m[(i, i)] += mu * diag[i] + 1e-9 * scale;
            }
            let Some(ch) = m.cholesky() else {
                mu *= 4.0;
                continue;
            };
            let step = ch.solve(&b);
            let trial: Vec<f64> = theta.iter().zip(step.iter()).map(|(t, s)| t + s).collect();
            let new = loss(&trial, v, keys, w, rows, y);
            if new.is_finite() && new < cur {
                let gain = (cur - new) / cur.max(1e-300);
                theta.copy_from_slice(&trial);
                cur = new;
                mu = (mu / 3.0).max(1e-12);
                accepted = true;
                // Three steps in a row that gain next to nothing: converged.
                slow = if gain < 1e-9 { slow + 1 } else { 0 };
                if slow >= 3 {
                    return cur;
                }
                break;
            }
            mu *= 4.0;
        }
        if !accepted {
            break;
        }
    }
    cur
}
