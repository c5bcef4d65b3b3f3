//! Bayesian linear regression of continuous Z on sparse features of W, every feature ever seen
//! (no cap): bag of words, word at position, bigrams (bag or at position).
//!
//! Method: **sparse sufficient statistics**. The model is z = B^T x + e, e ~ N(0, S), with the
//! matrix-normal prior B ~ MN(0, I / ridge, S) (an unpenalised intercept), whose predictive for
//! a new row is N(M^T x, (1 + x^T A^-1 x) S) with A = ridge I + X^T X and M = A^-1 X^T Z. Kept
//! exactly: the rows' feature lists (X in CSR, nnz ~ words per row), X^T Z (F x D) and the
//! diagonal of A, all updated per row in O(nnz D). M is refitted when the rows have grown by
//! `refit_growth` (10 %) since the last fit, by conjugate gradients on A M = X^T Z with the
//! Jacobi preconditioner, warm-started from the previous M (a few iterations reach a relative
//! error of 1e-4 in the predictions; each costs two passes over X, O(nnz D)). Why not the
//! alternatives: the exact inverse A^-1 (what [`super::bayes_linear::BayesLinear`] keeps, F^2
//! per row) is 25 million entries at F = 5,000 and F^2 N = 10^11 operations at N = 5,000, and
//! real vocabularies give F = 10^4-10^5 with bigrams; a low-rank A loses the rare words, which
//! carry much of a sentence's meaning; feature hashing (sketching) bounds memory but merges a
//! frequent word's weight with rare ones'. The only approximation is in the predictive
//! variance: x^T A^-1 x is replaced by sum_j x_j^2 / A_jj (the diagonal of A; exact for
//! features that never co-occur), which on MiniLM embeddings of captions changes the code by
//! 0.03 %.
//!
//! The residual covariance S is learned online ([`CovarianceCode`]) from the standardised
//! prequential residuals (z - M^T x) / sqrt(1 + h), each taken when its row was coded (so on a
//! model that had not seen it), and every row is coded dimension by dimension through its
//! Cholesky factor: a real code on the grid.

use std::collections::HashMap;

use super::OnlineLearner;
use crate::coding::multivariate::{CovarianceCode, CovarianceSettings};
use crate::dataset::{Targets, TokenData};

/// Which sparse features of W a [`SparseLinear`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureSet {
    /// Bag of words: the count of each token (padding excluded).
    pub words: bool,
    /// Word at position: one-hot (position, token) for every position (the padding token
    /// included when no padding is known).
    pub positions: bool,
    /// Bag of bigrams: counts of adjacent pairs, with sentence start and end markers.
    pub bigrams: bool,
    /// Bigram at position: one-hot (position, token, next token).
    pub position_bigrams: bool,
}

/// Markers of the sentence start and end in bigrams (no token id reaches them: ids are below
/// the vocabulary size, itself below 2^32 - 2).
const START: u32 = u32::MAX;
const END: u32 = u32::MAX - 1;

/// A feature: its kind and up to three ids (position, tokens).
type Key = (u8, u32, u32, u32);

/// Feature kinds in the key of the feature map.
const INTERCEPT: u8 = 0;
const WORD: u8 = 1;
const POSITION: u8 = 2;
const BIGRAM: u8 = 3;
const POSITION_BIGRAM: u8 = 4;

/// Penalty of the intercept (effectively unpenalised; keeps A positive definite).
const INTERCEPT_RIDGE: f64 = 1e-6;

/// A feature enters the fit once this many rows hold it. A feature seen once has a weight that
/// only fits its own row's residual; leaving it at its prior (mean 0, variance 1 / ridge, as
/// a feature never seen) until it recurs keeps the fitted columns to the recurring features
/// (at N = 29,000 English captions: 31,000 of 90,000 words and bigrams), and so the memory of
/// the refits (4 arrays of columns x D).
pub const MIN_ROWS: u32 = 2;

const INACTIVE: u32 = u32::MAX;

/// Settings of a [`SparseLinear`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparseSettings {
    pub features: FeatureSet,
    pub ridge: f64,
    /// Conjugate-gradient iterations per refit (at most; fewer once converged).
    pub cg_iterations: usize,
    /// Refit when the rows learned have grown by this fraction since the last fit.
    pub refit_growth: f64,
}

/// Sparse Bayesian linear regression (see the module doc).
pub struct SparseLinear {
    name: String,
    settings: SparseSettings,
    pad: Option<u32>,
    dim: usize,
    lam: f64,
    /// Feature key -> feature id (every feature seen).
    ids: HashMap<Key, u32>,
    /// Learned rows as CSR: feature ids and values per row.
    row_ptr: Vec<usize>,
    fids: Vec<u32>,
    vals: Vec<f64>,
    /// Z of the learned rows, row-major (values).
    zrows: Vec<f64>,
    /// sum_rows x_j^2 per feature id (A_jj without the penalty), and how many rows hold it.
    sq: Vec<f64>,
    rows_with: Vec<u32>,
    /// Column of each feature id in the fit (`INACTIVE` until it is in [`MIN_ROWS`] rows).
    col: Vec<u32>,
    /// Feature id of each column.
    active: Vec<u32>,
    /// M, columns x D.
    coef: Vec<f64>,
    fitted_rows: usize,
    cov: CovarianceCode,
    /// Standardised residuals of the rows coded last, by row, for `learn`.
    pending: HashMap<usize, Vec<f64>>,
    scratch: Vec<(u32, f64)>,
    note: Option<String>,
}

impl SparseLinear {
    /// `pad`: the padding token (left out of bags and bigrams), if known. `None` for discrete
    /// Z (no Gaussian).
    pub fn new(
        w: &TokenData,
        z: &Targets,
        settings: SparseSettings,
        pad: Option<u32>,
        name: String,
    ) -> Option<Self> {
        let Targets::Continuous { dim, lam, .. } = z else {
            return None;
        };
        let _ = w;
        let cov = CovarianceCode::new(*dim, *lam, false, CovarianceSettings::default());
        let mut s = SparseLinear::with_nothing_seen(name, settings, pad, *dim, *lam, cov);
        let id = s.feature((INTERCEPT, 0, 0, 0));
        s.activate(id);
        Some(s)
    }

    /// The learner before any row: no features, no fit.
    fn with_nothing_seen(
        name: String,
        settings: SparseSettings,
        pad: Option<u32>,
        dim: usize,
        lam: f64,
        cov: CovarianceCode,
    ) -> Self {
        SparseLinear {
            name,
            settings,
            pad,
            dim,
            lam,
            ids: HashMap::new(),
            row_ptr: vec![0],
            fids: Vec::new(),
            vals: Vec::new(),
            zrows: Vec::new(),
            sq: Vec::new(),
            rows_with: Vec::new(),
            col: Vec::new(),
            active: Vec::new(),
            coef: Vec::new(),
            fitted_rows: 0,
            cov,
            pending: HashMap::new(),
            scratch: Vec::new(),
            note: None,
        }
    }

    /// Bytes this learner will hold on `w` (its largest allocations: the rows' feature lists
    /// and values, Z, the feature map, and for the features that enter the fit the weights and
    /// the conjugate-gradient arrays), from the features W actually holds.
    pub fn memory_bytes(
        w: &TokenData,
        dim: usize,
        settings: SparseSettings,
        pad: Option<u32>,
    ) -> f64 {
        // The probe only reads W's feature keys: a one-dimensional covariance keeps it small.
        let cov = CovarianceCode::new(1, 1.0, false, CovarianceSettings::default());
        let probe = SparseLinear::with_nothing_seen(String::new(), settings, pad, dim, 1.0, cov);
        let mut rows_with: HashMap<Key, u32> = HashMap::new();
        let mut nnz = 0usize;
        for r in 0..w.n {
            for (key, _) in probe.keys(w.row(r)) {
                *rows_with.entry(key).or_insert(0) += 1;
                nnz += 1;
            }
        }
        let seen = rows_with.len() as f64;
        let fitted = rows_with.values().filter(|&&c| c >= MIN_ROWS).count() as f64;
        let (n, d) = (w.n as f64, dim as f64);
        nnz as f64 * 16.0
            + seen * 64.0
            + n * d * 16.0
            + fitted * d * 8.0 * 6.0
            + (d * d * 8.0 * 3.0)
    }

    /// The learner with a note for the report ([`OnlineLearner::note`]).
    pub fn with_note(mut self, note: String) -> Self {
        self.note = Some(note);
        self
    }

    /// Features seen so far (the intercept included) and those in the fit.
    pub fn n_features(&self) -> (usize, usize) {
        (self.sq.len(), self.active.len())
    }

    /// The id of a feature key, created on first sight.
    fn feature(&mut self, key: Key) -> u32 {
        if let Some(&c) = self.ids.get(&key) {
            return c;
        }
        let c = self.sq.len() as u32;
        self.ids.insert(key, c);
        self.sq.push(0.0);
        self.rows_with.push(0);
        self.col.push(INACTIVE);
        c
    }

    /// Gives feature `id` a column of the fit (its weight starts at the prior mean, 0).
    fn activate(&mut self, id: u32) {
        if self.col[id as usize] == INACTIVE {
            self.col[id as usize] = self.active.len() as u32;
            self.active.push(id);
            self.coef.extend(std::iter::repeat_n(0.0, self.dim));
        }
    }

    /// The feature keys of a row with their values (duplicates summed, sorted by key).
    fn keys(&self, toks: &[u32]) -> Vec<(Key, f64)> {
        let f = self.settings.features;
        let real: Vec<u32> = match self.pad {
            Some(p) => toks.iter().copied().filter(|&t| t != p).collect(),
            None => toks.to_vec(),
        };
        let mut k: Vec<Key> = vec![(INTERCEPT, 0, 0, 0)];
        if f.words {
            k.extend(real.iter().map(|&t| (WORD, t, 0, 0)));
        }
        if f.positions {
            k.extend(
                toks.iter()
                    .enumerate()
                    .map(|(p, &t)| (POSITION, p as u32, t, 0)),
            );
        }
        if f.bigrams && !real.is_empty() {
            let mut prev = START;
            for &t in &real {
                k.push((BIGRAM, prev, t, 0));
                prev = t;
            }
            k.push((BIGRAM, prev, END, 0));
        }
        if f.position_bigrams {
            k.extend(
                toks.windows(2)
                    .enumerate()
                    .map(|(p, b)| (POSITION_BIGRAM, p as u32, b[0], b[1])),
            );
        }
        k.sort_unstable();
        let mut out: Vec<(Key, f64)> = Vec::with_capacity(k.len());
        for key in k {
            match out.last_mut() {
                Some((last, v)) if *last == key => *v += 1.0,
                _ => out.push((key, 1.0)),
            }
        }
        out
    }

    /// Penalty of feature `id` (the intercept is id 0).
    fn ridge(&self, id: u32) -> f64 {
        if id == 0 {
            INTERCEPT_RIDGE
        } else {
            self.settings.ridge
        }
    }

    /// Predictive mean (into `mean`) and h ~ x^T A^-1 x (diagonal approximation; a feature
    /// never learned has prior variance 1 / ridge).
    fn predict(&mut self, toks: &[u32], mean: &mut [f64]) -> f64 {
        mean.iter_mut().for_each(|m| *m = 0.0);
        let keys = self.keys(toks);
        let d = self.dim;
        let mut h = 0.0;
        for (key, x) in keys {
            let id = self.ids.get(&key).copied();
            match id.map(|i| (i, self.col[i as usize])) {
                Some((i, c)) if c != INACTIVE => {
                    let c = c as usize;
                    for (m, &b) in mean.iter_mut().zip(&self.coef[c * d..(c + 1) * d]) {
                        *m += x * b;
                    }
                    h += x * x / (self.sq[i as usize] + self.ridge(i));
                }
                _ => h += x * x / self.settings.ridge,
            }
        }
        h
    }

    /// Adds a row to the statistics.
    fn add_row(&mut self, toks: &[u32], zrow: &[f64]) {
        let keys = self.keys(toks);
        self.scratch.clear();
        for (key, x) in keys {
            let id = self.feature(key);
            self.scratch.push((id, x));
        }
        for &(id, x) in &self.scratch {
            self.sq[id as usize] += x * x;
            self.rows_with[id as usize] += 1;
            self.fids.push(id);
            self.vals.push(x);
        }
        self.row_ptr.push(self.fids.len());
        self.zrows.extend_from_slice(zrow);
    }

    /// y = A v (columns x D, row-major) over the learned rows and the fitted columns.
    fn apply(&self, v: &[f64], u: &mut [f64], y: &mut [f64]) {
        let d = self.dim;
        let rows = self.row_ptr.len() - 1;
        // u = X v
        for r in 0..rows {
            let ur = &mut u[r * d..(r + 1) * d];
            ur.iter_mut().for_each(|x| *x = 0.0);
            for i in self.row_ptr[r]..self.row_ptr[r + 1] {
                let c = self.col[self.fids[i] as usize];
                if c == INACTIVE {
                    continue;
                }
                let (c, x) = (c as usize, self.vals[i]);
                for (a, &b) in ur.iter_mut().zip(&v[c * d..(c + 1) * d]) {
                    *a += x * b;
                }
            }
        }
        // y = X^T u + ridge v
        for (c, yc) in y.chunks_mut(d).enumerate() {
            let r = self.ridge(self.active[c]);
            for (a, &b) in yc.iter_mut().zip(&v[c * d..(c + 1) * d]) {
                *a = r * b;
            }
        }
        self.add_xt(u, y);
    }

    /// y += X^T u over the fitted columns.
    fn add_xt(&self, u: &[f64], y: &mut [f64]) {
        let d = self.dim;
        let rows = self.row_ptr.len() - 1;
        for r in 0..rows {
            let ur = &u[r * d..(r + 1) * d];
            for i in self.row_ptr[r]..self.row_ptr[r + 1] {
                let c = self.col[self.fids[i] as usize];
                if c == INACTIVE {
                    continue;
                }
                let (c, x) = (c as usize, self.vals[i]);
                for (a, &b) in y[c * d..(c + 1) * d].iter_mut().zip(ur) {
                    *a += x * b;
                }
            }
        }
    }

    /// Preconditioned conjugate gradients on A M = X^T Z, from the current M, one scalar
    /// recursion per output column.
    fn refit(&mut self) {
        for id in 0..self.sq.len() as u32 {
            if self.rows_with[id as usize] >= MIN_ROWS {
                self.activate(id);
            }
        }
        let d = self.dim;
        let f = self.active.len();
        let rows = self.row_ptr.len() - 1;
        let mut u = vec![0.0; rows * d];
        // The right-hand side X^T Z, recomputed from the rows (cheaper in memory than keeping
        // it for every feature).
        let mut rhs = vec![0.0; f * d];
        self.add_xt(&self.zrows, &mut rhs);
        let mut r = vec![0.0; f * d];
        self.apply(&self.coef, &mut u, &mut r);
        for (ri, &b) in r.iter_mut().zip(&rhs) {
            *ri = b - *ri;
        }
        let precond: Vec<f64> = self
            .active
            .iter()
            .map(|&id| 1.0 / (self.sq[id as usize] + self.ridge(id)))
            .collect();
        let mut zv: Vec<f64> = r
            .chunks(d)
            .zip(&precond)
            .flat_map(|(rc, &p)| rc.iter().map(move |&x| x * p))
            .collect();
        let mut p = zv.clone();
        let col_dot = |a: &[f64], b: &[f64]| -> Vec<f64> {
            let mut s = vec![0.0; d];
            for (ac, bc) in a.chunks(d).zip(b.chunks(d)) {
                for ((si, &x), &y) in s.iter_mut().zip(ac).zip(bc) {
                    *si += x * y;
                }
            }
            s
        };
        let mut rz = col_dot(&r, &zv);
        let rhs_norm = col_dot(&rhs, &rhs);
        drop(rhs);
        let mut ap = vec![0.0; f * d];
        for _ in 0..self.settings.cg_iterations {
            let rr = col_dot(&r, &r);
            let converged = rr
                .iter()
                .zip(&rhs_norm)
                .all(|(&a, &b)| a <= 1e-12 * b.max(f64::MIN_POSITIVE));
            if converged {
                break;
            }
            self.apply(&p, &mut u, &mut ap);
            let pap = col_dot(&p, &ap);
            let alpha: Vec<f64> = rz
                .iter()
                .zip(&pap)
                .map(|(&a, &b)| if b > 0.0 { a / b } else { 0.0 })
                .collect();
            for c in 0..f {
                for j in 0..d {
                    self.coef[c * d + j] += alpha[j] * p[c * d + j];
                    r[c * d + j] -= alpha[j] * ap[c * d + j];
                }
            }
            for (c, &pc) in precond.iter().enumerate() {
                for j in 0..d {
                    zv[c * d + j] = r[c * d + j] * pc;
                }
            }
            let rz_new = col_dot(&r, &zv);
            let beta: Vec<f64> = rz_new
                .iter()
                .zip(&rz)
                .map(|(&a, &b)| if b > 0.0 { a / b } else { 0.0 })
                .collect();
            for c in 0..f {
                for j in 0..d {
                    p[c * d + j] = zv[c * d + j] + beta[j] * p[c * d + j];
                }
            }
            rz = rz_new;
        }
        self.fitted_rows = rows;
    }

    /// The row's values (grid index x lam).
    fn values(&self, z: &Targets, row: usize) -> Vec<f64> {
        match z {
            Targets::Continuous { dim, grid, lam } => grid[row * dim..(row + 1) * dim]
                .iter()
                .map(|&k| k as f64 * lam)
                .collect(),
            Targets::Discrete { .. } => Vec::new(),
        }
    }
}

impl OnlineLearner for SparseLinear {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn note(&self) -> Option<String> {
        let (seen, fitted) = self.n_features();
        let features = format!("{seen} features, {fitted} in the fit (seen in {MIN_ROWS}+ rows)");
        Some(match &self.note {
            Some(n) => format!("{n}; {features}"),
            None => features,
        })
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let Targets::Continuous { grid, .. } = z else {
            return vec![f64::INFINITY; rows.len()];
        };
        let d = self.dim;
        let mut mean = vec![0.0; d];
        rows.iter()
            .map(|&row| {
                let h = self.predict(w.row(row), &mut mean);
                let scale = (1.0 + h).sqrt();
                let k = &grid[row * d..(row + 1) * d];
                // Before any residual: a tenth of a unit per dimension.
                let bits = self
                    .cov
                    .bits(k, Some(&mean), scale, 0.1f64.max(10.0 * self.lam));
                let res: Vec<f64> = k
                    .iter()
                    .zip(&mean)
                    .map(|(&k, &m)| (k as f64 * self.lam - m) / scale)
                    .collect();
                self.pending.insert(row, res);
                bits
            })
            .collect()
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let d = self.dim;
        let mut mean = vec![0.0; d];
        for &row in &sent[sent.len() - n_new..] {
            let zrow = self.values(z, row);
            let res = match self.pending.remove(&row) {
                Some(r) => r,
                None => {
                    let h = self.predict(w.row(row), &mut mean);
                    let s = (1.0 + h).sqrt();
                    zrow.iter().zip(&mean).map(|(&v, &m)| (v - m) / s).collect()
                }
            };
            self.cov.learn(&res);
            self.add_row(w.row(row), &zrow);
        }
        self.pending.clear();
        let rows = self.row_ptr.len() - 1;
        if rows as f64 >= (self.fitted_rows as f64 * (1.0 + self.settings.refit_growth)).max(1.0) {
            self.refit();
        }
    }
}
