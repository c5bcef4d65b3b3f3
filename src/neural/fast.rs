//! The fast CPU path: the embedding -> MLP -> head family written directly in f32 with one
//! `sgemm` (matrixmultiply, single-threaded) per matrix product and a fused Adam update.
//!
//! Initialisation follows PyTorch's defaults (embedding N(0, 1); linear weights and biases
//! U(-1/sqrt(fan_in), 1/sqrt(fan_in))). Everything is deterministic given the seed.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use super::likelihood::{gaussian_nll_density_nats, grid_gaussian_nll_nats, log_softmax};
use super::train::Learner;
use super::{HeadSpec, MlpSpec, StdSpec};
use crate::dataset::{Targets, TokenData};

const ADAM_B1: f32 = 0.9;
const ADAM_B2: f32 = 0.999;
const ADAM_EPS: f32 = 1e-8;
const EVAL_BATCH: usize = 512;

/// `c = alpha * a(m x k) * b(k x n) + beta * c` with explicit strides.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn gemm(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    rsa: usize,
    csa: usize,
    b: &[f32],
    rsb: usize,
    csb: usize,
    beta: f32,
    c: &mut [f32],
) {
    if m == 0 || n == 0 {
        return;
    }
    debug_assert!(c.len() >= m * n);
    debug_assert!(k == 0 || a.len() > (m - 1) * rsa + (k - 1) * csa);
    debug_assert!(k == 0 || b.len() > (k - 1) * rsb + (n - 1) * csb);
    // SAFETY: the asserts above bound every index the kernel touches (row-major `c` with row
    // stride n); slices do not alias because `c` is borrowed mutably.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            rsa as isize,
            csa as isize,
            b.as_ptr(),
            rsb as isize,
            csb as isize,
            beta,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// The fast MLP with its Adam state and workspaces.
#[derive(Debug, Clone)]
pub struct FastMlp {
    spec: MlpSpec,
    widths: Vec<usize>,
    w_off: Vec<usize>,
    b_off: Vec<usize>,
    params: Vec<f32>,
    grads: Vec<f32>,
    adam: Adam,
    best: Option<Vec<f32>>,
    rng: ChaCha8Rng,
    acts: Vec<Vec<f32>>,
    dacts: Vec<Vec<f32>>,
    logp: Vec<f64>,
}

impl FastMlp {
    /// A freshly initialised model (seeded) with learning rate `lr`.
    pub fn new(spec: &MlpSpec, lr: f64, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let widths = spec.widths();
        let n_emb = spec.vocab * spec.emb_dim;
        let mut params = Vec::with_capacity(spec.n_params());
        for _ in 0..n_emb {
            let x: f64 = StandardNormal.sample(&mut rng);
            params.push(x as f32);
        }
        let mut w_off = Vec::new();
        let mut b_off = Vec::new();
        for p in widths.windows(2) {
            let (fan_in, out) = (p[0], p[1]);
            let bound = 1.0 / (fan_in as f64).sqrt();
            w_off.push(params.len());
            for _ in 0..fan_in * out {
                params.push(((rng.random::<f64>() * 2.0 - 1.0) * bound) as f32);
            }
            b_off.push(params.len());
            for _ in 0..out {
                params.push(((rng.random::<f64>() * 2.0 - 1.0) * bound) as f32);
            }
        }
        let n = params.len();
        // The dropout stream is independent of the initialisation stream.
        let drop_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9E37_79B9_7F4A_7C15);
        FastMlp {
            spec: spec.clone(),
            acts: widths.iter().map(|_| Vec::new()).collect(),
            dacts: widths.iter().map(|_| Vec::new()).collect(),
            widths,
            w_off,
            b_off,
            params,
            grads: vec![0.0; n],
            adam: Adam::new(n, lr),
            best: None,
            rng: drop_rng,
            logp: Vec::new(),
        }
    }

    /// The flat parameter vector: embedding (vocab x emb_dim, row-major), then for each layer
    /// its weight (fan_in x fan_out, row-major) and bias.
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// The flat parameter vector, writable (EMA of weights, swapping in averaged weights).
    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    /// Sets the output layer to zero: the untrained model then predicts uniform categorical
    /// distributions (and mean 0 for Gaussian heads).
    pub fn zero_output_layer(&mut self) {
        let l = self.w_off.len() - 1;
        let end = self.b_off[l] + self.widths[l + 1];
        self.params[self.w_off[l]..end]
            .iter_mut()
            .for_each(|p| *p = 0.0);
    }

    /// The model specification.
    pub fn spec(&self) -> &MlpSpec {
        &self.spec
    }

    /// Offsets of each layer's (weight, bias) in [`Self::params`].
    pub fn layer_offsets(&self) -> Vec<(usize, usize)> {
        self.w_off
            .iter()
            .copied()
            .zip(self.b_off.iter().copied())
            .collect()
    }

    fn ensure_workspace(&mut self, bsz: usize) {
        for (l, &w) in self.widths.iter().enumerate() {
            if self.acts[l].len() < bsz * w {
                self.acts[l].resize(bsz * w, 0.0);
                self.dacts[l].resize(bsz * w, 0.0);
            }
        }
    }

    /// Forward pass for rows `rows`; leaves activations in the workspace, outputs in
    /// `acts[last]` (bsz x n_outputs).
    fn forward(&mut self, w: &TokenData, rows: &[usize], train: bool) {
        let bsz = rows.len();
        self.ensure_workspace(bsz);
        let e = self.spec.emb_dim;
        let i0 = self.widths[0];
        {
            let x0 = &mut self.acts[0];
            for (r, &row) in rows.iter().enumerate() {
                for (j, &tok) in w.row(row).iter().enumerate() {
                    let src = &self.params[tok as usize * e..(tok as usize + 1) * e];
                    x0[r * i0 + j * e..r * i0 + (j + 1) * e].copy_from_slice(src);
                }
            }
        }
        let nl = self.widths.len() - 1;
        let p = self.spec.dropout as f32;
        let scale = 1.0 / (1.0 - p);
        for l in 0..nl {
            let (fan_in, out) = (self.widths[l], self.widths[l + 1]);
            let (lo, hi) = self.acts.split_at_mut(l + 1);
            let x = &lo[l][..bsz * fan_in];
            let y = &mut hi[0][..bsz * out];
            let bias = &self.params[self.b_off[l]..self.b_off[l] + out];
            for r in 0..bsz {
                y[r * out..(r + 1) * out].copy_from_slice(bias);
            }
            let wt = &self.params[self.w_off[l]..self.w_off[l] + fan_in * out];
            gemm(bsz, fan_in, out, x, fan_in, 1, wt, out, 1, 1.0, y);
            if l + 1 < nl {
                if train && p > 0.0 {
                    for v in y.iter_mut() {
                        let keep = self.rng.random::<f32>() >= p;
                        *v = if keep && *v > 0.0 { *v * scale } else { 0.0 };
                    }
                } else {
                    for v in y.iter_mut() {
                        if *v < 0.0 {
                            *v = 0.0;
                        }
                    }
                }
            }
        }
    }

    /// Loss (sum of nats over the batch's target values) and, if `grad`, d loss_mean / d out
    /// in `dacts[last]` where loss_mean is the mean over the batch's values.
    fn head_loss(&mut self, z: &Targets, rows: &[usize], grad: bool) -> f64 {
        let nl = self.widths.len() - 1;
        let dout = grad.then_some(&mut self.dacts[nl][..]);
        head_loss(
            &self.spec.head,
            z,
            rows,
            &self.acts[nl],
            dout,
            &mut self.logp,
        )
    }

    /// Backward pass from `dacts[last]`; fills `grads`.
    fn backward(&mut self, w: &TokenData, rows: &[usize]) {
        let bsz = rows.len();
        let nl = self.widths.len() - 1;
        let p = self.spec.dropout as f32;
        let scale = 1.0 / (1.0 - p);
        for l in (0..nl).rev() {
            let (fan_in, out) = (self.widths[l], self.widths[l + 1]);
            let (dlo, dhi) = self.dacts.split_at_mut(l + 1);
            let dy = &dhi[0][..bsz * out];
            let x = &self.acts[l][..bsz * fan_in];
            // dW = x^T dy
            {
                let gw = &mut self.grads[self.w_off[l]..self.w_off[l] + fan_in * out];
                gemm(fan_in, bsz, out, x, 1, fan_in, dy, out, 1, 0.0, gw);
            }
            {
                let gb = &mut self.grads[self.b_off[l]..self.b_off[l] + out];
                gb.iter_mut().for_each(|g| *g = 0.0);
                for r in 0..bsz {
                    for (g, &d) in gb.iter_mut().zip(&dy[r * out..(r + 1) * out]) {
                        *g += d;
                    }
                }
            }
            // dx = dy W^T
            let wt = &self.params[self.w_off[l]..self.w_off[l] + fan_in * out];
            let dx = &mut dlo[l][..bsz * fan_in];
            gemm(bsz, out, fan_in, dy, out, 1, wt, 1, out, 0.0, dx);
            if l > 0 {
                for (d, &a) in dx.iter_mut().zip(x) {
                    *d = if a > 0.0 { *d * scale } else { 0.0 };
                }
            }
        }
        let e = self.spec.emb_dim;
        let i0 = self.widths[0];
        let n_emb = self.spec.vocab * e;
        self.grads[..n_emb].iter_mut().for_each(|g| *g = 0.0);
        let dx0 = &self.dacts[0];
        for (r, &row) in rows.iter().enumerate() {
            for (j, &tok) in w.row(row).iter().enumerate() {
                let g = &mut self.grads[tok as usize * e..(tok as usize + 1) * e];
                for (gg, &d) in g.iter_mut().zip(&dx0[r * i0 + j * e..r * i0 + (j + 1) * e]) {
                    *gg += d;
                }
            }
        }
    }

    fn adam_step(&mut self) {
        self.adam.step(&mut self.params, &self.grads);
    }

    /// One Adam step on the rows `rows`; returns the batch's mean loss (nats per value).
    pub fn step(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> f64 {
        super::flush_denormals();
        self.forward(w, rows, true);
        let total = self.head_loss(z, rows, true);
        self.backward(w, rows);
        self.adam_step();
        total / (rows.len() * z.width()) as f64
    }

    /// Per-row code lengths in bits for rows `idx` (no dropout).
    pub fn row_code_bits(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> Vec<f64> {
        let mut res = Vec::with_capacity(idx.len());
        let nl = self.widths.len() - 1;
        let o = self.widths[nl];
        for rows in idx.chunks(EVAL_BATCH) {
            self.forward(w, rows, false);
            res.extend(code_bits_from_outputs(
                &self.spec.head,
                z,
                rows,
                &self.acts[nl][..rows.len() * o],
            ));
        }
        res
    }

    /// Raw outputs (n x n_outputs) for rows `idx`, no dropout.
    pub fn outputs(&mut self, w: &TokenData, idx: &[usize]) -> Vec<f32> {
        let o = *self.widths.last().unwrap_or(&0);
        let mut res = Vec::with_capacity(idx.len() * o);
        for rows in idx.chunks(EVAL_BATCH) {
            self.forward(w, rows, false);
            let nl = self.widths.len() - 1;
            res.extend_from_slice(&self.acts[nl][..rows.len() * o]);
        }
        res
    }
}

impl Learner for FastMlp {
    fn train_epoch(&mut self, w: &TokenData, z: &Targets, order: &[usize], batch: usize) -> f64 {
        let mut s = 0.0;
        let mut n = 0;
        for rows in order.chunks(batch) {
            s += self.step(w, z, rows);
            n += 1;
        }
        if n == 0 { f64::INFINITY } else { s / n as f64 }
    }

    fn mean_loss(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> f64 {
        let mut total = 0.0;
        for rows in idx.chunks(EVAL_BATCH) {
            self.forward(w, rows, false);
            total += self.head_loss(z, rows, false);
        }
        total / (idx.len() * z.width()).max(1) as f64
    }

    fn code_bits(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> f64 {
        self.row_code_bits(w, z, idx).iter().sum()
    }

    fn save_best(&mut self) {
        match &mut self.best {
            Some(b) => b.copy_from_slice(&self.params),
            None => self.best = Some(self.params.clone()),
        }
    }

    fn restore_best(&mut self) {
        if let Some(b) = &self.best {
            self.params.copy_from_slice(b);
        }
    }

    fn reset_optimizer(&mut self) {
        self.adam.reset();
        self.best = None;
    }

    fn set_lr(&mut self, lr: f64) {
        self.adam.lr = lr as f32;
    }
}

/// Loss of a head's outputs `out` (rows x n_outputs, row-major): the sum of nats over the
/// batch's target values; with `dout`, d loss_mean / d out where loss_mean is the mean over the
/// batch's values. Shared by the fast MLP and the fast GRU. `logp` is a workspace.
pub(crate) fn head_loss(
    head: &HeadSpec,
    z: &Targets,
    rows: &[usize],
    out: &[f32],
    mut dout: Option<&mut [f32]>,
    logp: &mut Vec<f64>,
) -> f64 {
    let bsz = rows.len();
    let o = head.n_outputs();
    let mut total = 0.0f64;
    match (*head, z) {
        (HeadSpec::Categorical { n_attr, n_vals }, Targets::Discrete { values, .. }) => {
            let norm = 1.0 / (bsz * n_attr) as f32;
            logp.resize(n_vals, 0.0);
            for (r, &row) in rows.iter().enumerate() {
                for a in 0..n_attr {
                    let base = r * o + a * n_vals;
                    log_softmax(&out[base..base + n_vals], logp);
                    let t = values[row * n_attr + a] as usize;
                    total -= logp[t];
                    if let Some(dout) = dout.as_deref_mut() {
                        for vv in 0..n_vals {
                            let pr = logp[vv].exp() as f32;
                            let ind = if vv == t { 1.0 } else { 0.0 };
                            dout[base + vv] = (pr - ind) * norm;
                        }
                    }
                }
            }
        }
        (HeadSpec::Gaussian { dim, std }, Targets::Continuous { lam, grid, .. }) => {
            let norm = 1.0 / (bsz * dim) as f64;
            for (r, &row) in rows.iter().enumerate() {
                for d in 0..dim {
                    let x = grid[row * dim + d] as f64 * lam;
                    let mu = out[r * o + d] as f64;
                    match std {
                        StdSpec::Fixed { std } => {
                            total += gaussian_nll_density_nats(x, mu, std);
                            if let Some(dout) = dout.as_deref_mut() {
                                dout[r * o + d] = ((mu - x) / (std * std) * norm) as f32;
                            }
                        }
                        StdSpec::Learned { min_std } => {
                            let raw = out[r * o + dim + d] as f64;
                            let floor = min_std.ln();
                            let ls = raw.max(floor);
                            let sigma = ls.exp();
                            total += gaussian_nll_density_nats(x, mu, sigma);
                            if let Some(dout) = dout.as_deref_mut() {
                                let u = (x - mu) / sigma;
                                dout[r * o + d] = ((mu - x) / (sigma * sigma) * norm) as f32;
                                dout[r * o + dim + d] = if raw > floor {
                                    ((1.0 - u * u) * norm) as f32
                                } else {
                                    0.0
                                };
                            }
                        }
                    }
                }
            }
        }
        _ => panic!("head and targets disagree (validated by the caller)"),
    }
    total
}

/// Adam's moment estimates, step count and learning rate, shared by the fast MLP and the
/// fast GRU.
#[derive(Debug, Clone)]
pub(crate) struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
    pub(crate) lr: f32,
}

impl Adam {
    /// Fresh state for `n` parameters.
    pub(crate) fn new(n: usize, lr: f64) -> Self {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
            lr: lr as f32,
        }
    }

    /// Forgets the moments and the step count (the learning rate stays).
    pub(crate) fn reset(&mut self) {
        self.m.iter_mut().for_each(|x| *x = 0.0);
        self.v.iter_mut().for_each(|x| *x = 0.0);
        self.t = 0;
    }

    /// One fused Adam update of `params` with gradients `grads`.
    pub(crate) fn step(&mut self, params: &mut [f32], grads: &[f32]) {
        self.t += 1;
        let bc1 = 1.0 - ADAM_B1.powi(self.t);
        let bc2 = 1.0 - ADAM_B2.powi(self.t);
        let step = self.lr / bc1;
        let inv_bc2 = 1.0 / bc2;
        for (((p, &g), m), v) in params
            .iter_mut()
            .zip(grads)
            .zip(self.m.iter_mut())
            .zip(self.v.iter_mut())
        {
            *m = ADAM_B1 * *m + (1.0 - ADAM_B1) * g;
            *v = ADAM_B2 * *v + (1.0 - ADAM_B2) * g * g;
            *p -= step * *m / ((*v * inv_bc2).sqrt() + ADAM_EPS);
        }
    }
}

/// Per-row code lengths in bits of the targets of `rows` given the model outputs (row-major,
/// `rows.len() x head.n_outputs()`). Shared by every implementation of the family.
pub fn code_bits_from_outputs(
    head: &HeadSpec,
    z: &Targets,
    rows: &[usize],
    out: &[f32],
) -> Vec<f64> {
    let o = head.n_outputs();
    let mut res = Vec::with_capacity(rows.len());
    match (*head, z) {
        (HeadSpec::Categorical { n_attr, n_vals }, Targets::Discrete { values, .. }) => {
            let mut logp = vec![0.0; n_vals];
            for (r, &row) in rows.iter().enumerate() {
                let mut s = 0.0;
                for a in 0..n_attr {
                    let base = r * o + a * n_vals;
                    log_softmax(&out[base..base + n_vals], &mut logp);
                    s -= logp[values[row * n_attr + a] as usize];
                }
                res.push(s / std::f64::consts::LN_2);
            }
        }
        (HeadSpec::Gaussian { dim, std }, Targets::Continuous { lam, grid, .. }) => {
            for (r, &row) in rows.iter().enumerate() {
                let mut s = 0.0;
                for d in 0..dim {
                    let mu = out[r * o + d] as f64;
                    let sigma = match std {
                        StdSpec::Fixed { std } => std,
                        StdSpec::Learned { min_std } => {
                            (out[r * o + dim + d] as f64).max(min_std.ln()).exp()
                        }
                    };
                    s += grid_gaussian_nll_nats(grid[row * dim + d], *lam, mu, sigma);
                }
                res.push(s / std::f64::consts::LN_2);
            }
        }
        _ => panic!("head and targets disagree (validated by the caller)"),
    }
    res
}
