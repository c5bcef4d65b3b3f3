//! A small GRU over the message, in plain f32 like [`super::fast`]: token embedding -> one GRU
//! layer (PyTorch's equations) read left to right -> the last real state -> a linear head.
//!
//! Padding mask: a row's length is the position of its first `pad` token (W has one row per
//! message, padded at the end to the longest); the state stops changing after the last real
//! token, so the prediction is that of the real message alone. Trailing padding never enters a
//! computation that reaches a row's output: the same message with more padding gets identical
//! outputs, bit for bit (each row's arithmetic depends only on its own real tokens).
//!
//! Initialisation as PyTorch's `nn.GRU` (weights and biases U(-1/sqrt(H), 1/sqrt(H))), the
//! embedding N(0, 1), the output layer zero (the untrained model predicts uniform categoricals,
//! or N(0, 1) for a Gaussian head). Deterministic given the seed.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use super::HeadSpec;
use super::fast::{Adam, gemm, head_loss};
use crate::dataset::{Targets, TokenData};

const EVAL_BATCH: usize = 512;

/// Shape of a [`FastGru`].
#[derive(Debug, Clone, PartialEq)]
pub struct GruSpec {
    pub vocab: usize,
    pub emb_dim: usize,
    pub hidden: usize,
    pub head: HeadSpec,
    /// The padding token (`None`: every row has `n_words` real tokens).
    pub pad: Option<u32>,
}

/// Offsets of the parameter blocks in the flat vector.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Embedding, vocab x E.
    emb: usize,
    /// Input weights E x 3H (gates r, z, n), then their bias 3H.
    wx: usize,
    bx: usize,
    /// Recurrent weights H x 3H, then their bias 3H.
    wh: usize,
    bh: usize,
    /// Output layer H x O, then its bias O.
    wo: usize,
    bo: usize,
    end: usize,
}

impl Layout {
    fn new(s: &GruSpec) -> Self {
        let (e, h, o) = (s.emb_dim, s.hidden, s.head.n_outputs());
        let wx = s.vocab * e;
        let bx = wx + e * 3 * h;
        let wh = bx + 3 * h;
        let bh = wh + h * 3 * h;
        let wo = bh + 3 * h;
        let bo = wo + h * o;
        Layout {
            emb: 0,
            wx,
            bx,
            wh,
            bh,
            wo,
            bo,
            end: bo + o,
        }
    }
}

/// The GRU with its Adam state and the activations of the last forward pass.
#[derive(Debug, Clone)]
pub struct FastGru {
    spec: GruSpec,
    lay: Layout,
    params: Vec<f32>,
    grads: Vec<f32>,
    adam: Adam,
    /// Real length of each row of the batch.
    lens: Vec<usize>,
    /// Per time step: inputs (B x E), states before the step (B x H; one more at the end),
    /// gates r, z, candidate n and the recurrent part of n's pre-activation (B x H each).
    xs: Vec<f32>,
    hs: Vec<f32>,
    rs: Vec<f32>,
    zs: Vec<f32>,
    ns: Vec<f32>,
    ghn: Vec<f32>,
    out: Vec<f32>,
    dout: Vec<f32>,
    logp: Vec<f64>,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl FastGru {
    /// A freshly initialised model (seeded) with learning rate `lr`.
    pub fn new(spec: &GruSpec, lr: f64, seed: u64) -> Self {
        let lay = Layout::new(spec);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut params = Vec::with_capacity(lay.end);
        for _ in 0..lay.wx {
            let x: f64 = StandardNormal.sample(&mut rng);
            params.push(x as f32);
        }
        let bound = 1.0 / (spec.hidden as f64).sqrt();
        for _ in lay.wx..lay.wo {
            params.push(((rng.random::<f64>() * 2.0 - 1.0) * bound) as f32);
        }
        params.resize(lay.end, 0.0);
        let n = params.len();
        FastGru {
            spec: spec.clone(),
            lay,
            params,
            grads: vec![0.0; n],
            adam: Adam::new(n, lr),
            lens: Vec::new(),
            xs: Vec::new(),
            hs: Vec::new(),
            rs: Vec::new(),
            zs: Vec::new(),
            ns: Vec::new(),
            ghn: Vec::new(),
            out: Vec::new(),
            dout: Vec::new(),
            logp: Vec::new(),
        }
    }

    /// The model's shape.
    pub fn spec(&self) -> &GruSpec {
        &self.spec
    }

    /// The flat parameter vector.
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// The flat parameter vector, writable.
    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    /// Gradients of the last [`Self::loss_and_grad`] (mean nats per target value).
    pub fn grads(&self) -> &[f32] {
        &self.grads
    }

    /// Sets the Adam learning rate.
    pub fn set_lr(&mut self, lr: f64) {
        self.adam.lr = lr as f32;
    }

    /// Real length of a row: the tokens before the first padding token.
    pub fn real_len(&self, w: &TokenData, row: usize) -> usize {
        let toks = w.row(row);
        match self.spec.pad {
            Some(p) => toks.iter().position(|&t| t == p).unwrap_or(toks.len()),
            None => toks.len(),
        }
    }

    /// Forward pass; outputs in `self.out` (B x O).
    fn forward(&mut self, w: &TokenData, rows: &[usize]) {
        let (e, h) = (self.spec.emb_dim, self.spec.hidden);
        let (b, h3) = (rows.len(), 3 * h);
        let o = self.spec.head.n_outputs();
        self.lens.clear();
        for &r in rows {
            let l = self.real_len(w, r);
            self.lens.push(l);
        }
        let steps = self.lens.iter().copied().max().unwrap_or(0);
        self.xs.clear();
        self.xs.resize(steps * b * e, 0.0);
        self.hs.clear();
        self.hs.resize((steps + 1) * b * h, 0.0);
        for buf in [&mut self.rs, &mut self.zs, &mut self.ns, &mut self.ghn] {
            buf.clear();
            buf.resize(steps * b * h, 0.0);
        }
        let lay = self.lay;
        let p = &self.params;
        let mut gx = vec![0.0f32; b * h3];
        let mut gh = vec![0.0f32; b * h3];
        for t in 0..steps {
            let x = &mut self.xs[t * b * e..(t + 1) * b * e];
            for (r, &row) in rows.iter().enumerate() {
                if t < self.lens[r] {
                    let tok = w.row(row)[t] as usize;
                    x[r * e..(r + 1) * e].copy_from_slice(&p[tok * e..(tok + 1) * e]);
                }
            }
            for r in 0..b {
                gx[r * h3..(r + 1) * h3].copy_from_slice(&p[lay.bx..lay.bx + h3]);
                gh[r * h3..(r + 1) * h3].copy_from_slice(&p[lay.bh..lay.bh + h3]);
            }
            let wx = &p[lay.wx..lay.wx + e * h3];
            gemm(b, e, h3, x, e, 1, wx, h3, 1, 1.0, &mut gx);
            let (prev, next) = self.hs.split_at_mut((t + 1) * b * h);
            let hp = &prev[t * b * h..];
            let hn = &mut next[..b * h];
            let wh = &p[lay.wh..lay.wh + h * h3];
            gemm(b, h, h3, hp, h, 1, wh, h3, 1, 1.0, &mut gh);
            let k = t * b * h;
            for r in 0..b {
                for j in 0..h {
                    let i = r * h + j;
                    if t >= self.lens[r] {
                        // Masked: the state carries over unchanged.
                        hn[i] = hp[i];
                        continue;
                    }
                    let (gxr, ghr) = (&gx[r * h3..], &gh[r * h3..]);
                    let rg = sigmoid(gxr[j] + ghr[j]);
                    let zg = sigmoid(gxr[h + j] + ghr[h + j]);
                    let ng = (gxr[2 * h + j] + rg * ghr[2 * h + j]).tanh();
                    hn[i] = (1.0 - zg) * ng + zg * hp[i];
                    self.rs[k + i] = rg;
                    self.zs[k + i] = zg;
                    self.ns[k + i] = ng;
                    self.ghn[k + i] = ghr[2 * h + j];
                }
            }
        }
        self.out.clear();
        for _ in 0..b {
            self.out.extend_from_slice(&p[lay.bo..lay.bo + o]);
        }
        let hl = &self.hs[steps * b * h..(steps + 1) * b * h];
        gemm(
            b,
            h,
            o,
            hl,
            h,
            1,
            &p[lay.wo..lay.wo + h * o],
            o,
            1,
            1.0,
            &mut self.out,
        );
    }

    /// Back-propagation through time from `self.dout`; fills `grads`.
    fn backward(&mut self, w: &TokenData, rows: &[usize]) {
        let (e, h) = (self.spec.emb_dim, self.spec.hidden);
        let (b, h3) = (rows.len(), 3 * h);
        let o = self.spec.head.n_outputs();
        let lay = self.lay;
        let steps = self.lens.iter().copied().max().unwrap_or(0);
        self.grads.iter_mut().for_each(|g| *g = 0.0);
        let (p, g) = (&self.params, &mut self.grads);
        let hl = &self.hs[steps * b * h..(steps + 1) * b * h];
        gemm(
            h,
            b,
            o,
            hl,
            1,
            h,
            &self.dout,
            o,
            1,
            0.0,
            &mut g[lay.wo..lay.bo],
        );
        for r in 0..b {
            for (gb, &d) in g[lay.bo..lay.end].iter_mut().zip(&self.dout[r * o..]) {
                *gb += d;
            }
        }
        // dh = dout Wo^T
        let mut dh = vec![0.0f32; b * h];
        gemm(
            b,
            o,
            h,
            &self.dout,
            o,
            1,
            &p[lay.wo..lay.bo],
            1,
            o,
            0.0,
            &mut dh,
        );
        let mut dgx = vec![0.0f32; b * h3];
        let mut dgh = vec![0.0f32; b * h3];
        let mut dx = vec![0.0f32; b * e];
        for t in (0..steps).rev() {
            let k = t * b * h;
            let hp = &self.hs[k..k + b * h];
            for r in 0..b {
                let live = t < self.lens[r];
                for j in 0..h {
                    let i = r * h + j;
                    let (gx, gh) = (&mut dgx[r * h3..], &mut dgh[r * h3..]);
                    if !live {
                        gx[j] = 0.0;
                        gx[h + j] = 0.0;
                        gx[2 * h + j] = 0.0;
                        gh[j] = 0.0;
                        gh[h + j] = 0.0;
                        gh[2 * h + j] = 0.0;
                        continue;
                    }
                    let (rg, zg, ng) = (self.rs[k + i], self.zs[k + i], self.ns[k + i]);
                    let d = dh[i];
                    let dn = d * (1.0 - zg);
                    let dz = d * (hp[i] - ng);
                    let dan = dn * (1.0 - ng * ng);
                    let dar = dan * self.ghn[k + i] * rg * (1.0 - rg);
                    let daz = dz * zg * (1.0 - zg);
                    gx[j] = dar;
                    gx[h + j] = daz;
                    gx[2 * h + j] = dan;
                    gh[j] = dar;
                    gh[h + j] = daz;
                    gh[2 * h + j] = dan * rg;
                    // The direct path h -> h'.
                    dh[i] = d * zg;
                }
            }
            let x = &self.xs[t * b * e..(t + 1) * b * e];
            gemm(e, b, h3, x, 1, e, &dgx, h3, 1, 1.0, &mut g[lay.wx..lay.bx]);
            gemm(h, b, h3, hp, 1, h, &dgh, h3, 1, 1.0, &mut g[lay.wh..lay.bh]);
            for r in 0..b {
                for (gb, &d) in g[lay.bx..lay.wh].iter_mut().zip(&dgx[r * h3..]) {
                    *gb += d;
                }
                for (gb, &d) in g[lay.bh..lay.wo].iter_mut().zip(&dgh[r * h3..]) {
                    *gb += d;
                }
            }
            // dh (masked rows: passed through) += dgh Wh^T; dx = dgx Wx^T.
            gemm(
                b,
                h3,
                h,
                &dgh,
                h3,
                1,
                &p[lay.wh..lay.bh],
                1,
                h3,
                1.0,
                &mut dh,
            );
            gemm(
                b,
                h3,
                e,
                &dgx,
                h3,
                1,
                &p[lay.wx..lay.bx],
                1,
                h3,
                0.0,
                &mut dx,
            );
            for (r, &row) in rows.iter().enumerate() {
                if t < self.lens[r] {
                    let tok = w.row(row)[t] as usize;
                    let ge = &mut g[lay.emb + tok * e..lay.emb + (tok + 1) * e];
                    for (gg, &d) in ge.iter_mut().zip(&dx[r * e..(r + 1) * e]) {
                        *gg += d;
                    }
                }
            }
        }
    }

    /// Mean loss (nats per target value) of the rows and its gradient in [`Self::grads`].
    pub fn loss_and_grad(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> f64 {
        self.forward(w, rows);
        self.dout.clear();
        self.dout.resize(self.out.len(), 0.0);
        let total = head_loss(
            &self.spec.head,
            z,
            rows,
            &self.out,
            Some(&mut self.dout),
            &mut self.logp,
        );
        self.backward(w, rows);
        total / (rows.len() * z.width()) as f64
    }

    /// One Adam step on the rows `rows`; returns the batch's mean loss (nats per value).
    pub fn step(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> f64 {
        super::flush_denormals();
        let loss = self.loss_and_grad(w, z, rows);
        self.adam.step(&mut self.params, &self.grads);
        loss
    }

    /// Raw outputs (n x n_outputs) for rows `idx`.
    pub fn outputs(&mut self, w: &TokenData, idx: &[usize]) -> Vec<f32> {
        let mut res = Vec::with_capacity(idx.len() * self.spec.head.n_outputs());
        for rows in idx.chunks(EVAL_BATCH) {
            self.forward(w, rows);
            res.extend_from_slice(&self.out);
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neural::StdSpec;

    fn tiny(head: HeadSpec) -> FastGru {
        let spec = GruSpec {
            vocab: 4,
            emb_dim: 3,
            hidden: 5,
            head,
            pad: Some(3),
        };
        let mut g = FastGru::new(&spec, 0.01, 7);
        // A non-zero output layer, so that every gradient path is exercised.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let lay = g.lay;
        for x in &mut g.params[lay.wo..lay.end] {
            *x = (rng.random::<f32>() - 0.5) * 0.8;
        }
        g
    }

    /// Four messages of lengths 3, 1, 2, 0 padded with token 3 to 4 columns.
    fn msgs() -> TokenData {
        TokenData::new(
            4,
            4,
            4,
            vec![0, 1, 2, 3, 2, 3, 3, 3, 1, 0, 3, 3, 3, 3, 3, 3],
        )
        .unwrap()
    }

    /// Central finite differences (f64 evaluation of the f32 model) against the analytic
    /// gradient, for every parameter, on both heads.
    #[test]
    fn backward_matches_finite_differences() {
        let w = msgs();
        let rows = [0, 1, 2, 3];
        let cases = [
            (
                HeadSpec::Categorical {
                    n_attr: 2,
                    n_vals: 3,
                },
                Targets::Discrete {
                    n_attr: 2,
                    n_vals: 3,
                    values: vec![0, 2, 1, 1, 2, 0, 0, 0],
                },
            ),
            (
                HeadSpec::Gaussian {
                    dim: 2,
                    std: StdSpec::Learned { min_std: 1e-3 },
                },
                Targets::Continuous {
                    dim: 2,
                    lam: 0.1,
                    grid: vec![3, -2, 7, 1, 0, 5, -4, 2],
                },
            ),
        ];
        for (head, z) in cases {
            let mut g = tiny(head);
            g.loss_and_grad(&w, &z, &rows);
            let analytic = g.grads().to_vec();
            let eps = 1e-2f32;
            let mut worst = 0.0f64;
            for (i, &a) in analytic.iter().enumerate() {
                let x = g.params[i];
                g.params[i] = x + eps;
                let up = g.loss_and_grad(&w, &z, &rows);
                g.params[i] = x - eps;
                let down = g.loss_and_grad(&w, &z, &rows);
                g.params[i] = x;
                let num = (up - down) / (2.0 * eps as f64);
                let err = (num - a as f64).abs() / (1e-2 + num.abs());
                worst = worst.max(err);
            }
            // The padding token's embedding never enters a computation.
            let e = g.spec.emb_dim;
            assert!(analytic[3 * e..4 * e].iter().all(|&d| d == 0.0));
            eprintln!("{head:?}: worst relative error {worst:.2e}");
            assert!(worst < 1e-3, "{head:?}: worst relative error {worst}");
        }
    }

    #[test]
    fn trailing_padding_changes_nothing() {
        let g0 = tiny(HeadSpec::Categorical {
            n_attr: 1,
            n_vals: 3,
        });
        let w = msgs();
        // The same messages padded to 7 columns.
        let mut toks = Vec::new();
        for r in 0..4 {
            toks.extend_from_slice(w.row(r));
            toks.extend_from_slice(&[3, 3, 3]);
        }
        let w7 = TokenData::new(4, 7, 4, toks).unwrap();
        let (mut a, mut b) = (g0.clone(), g0);
        assert_eq!(a.outputs(&w, &[0, 1, 2, 3]), b.outputs(&w7, &[0, 1, 2, 3]));
        // Training on either gives the same weights, bit for bit.
        let z = Targets::Discrete {
            n_attr: 1,
            n_vals: 3,
            values: vec![0, 1, 2, 1],
        };
        for _ in 0..5 {
            assert_eq!(
                a.step(&w, &z, &[0, 1, 2, 3]),
                b.step(&w7, &z, &[0, 1, 2, 3])
            );
        }
        assert_eq!(a.params(), b.params());
    }
}
