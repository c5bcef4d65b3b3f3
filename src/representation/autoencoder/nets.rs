//! The three networks of the auto-encoder (encoder, causal prior, decoder) and their losses.

use burn::module::{Module, Param};
use burn::nn::Linear;
use burn::tensor::{Device, Tensor, TensorData, activation};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{Discretiser, EVAL_BATCH, tensor};
use crate::error::{KcompError, Result};
use crate::representation::SentenceSpace;

const LN_2: f64 = std::f64::consts::LN_2;
/// ln sqrt(2 pi).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;
/// Dimension of a VQ codebook vector.
const VQ_DIM: usize = 16;
/// Hidden layers of the encoder and the decoder.
const DEPTH: usize = 2;
/// Weight of the VQ commitment loss (van den Oord et al.'s beta).
const VQ_BETA: f32 = 0.25;

/// Z standardised per dimension (the encoder's input and the decoder's target), with what
/// turns a Gaussian code in standardised units back into bits at precision lam.
pub(super) struct Scaling {
    pub n: usize,
    pub dim: usize,
    /// n x dim standardised values.
    pub zn: Vec<f32>,
    /// Per dimension: the lower bound of the variance in standardised units,
    /// (lam / sqrt(2 pi) / s_d)^2, where a perfectly predicted cell costs 0 bits.
    pub floor_var: Vec<f32>,
    /// Nats per row that do not depend on the parameters: sum_d ln s_d + ln sqrt(2 pi) - ln lam.
    pub const_nats_per_row: f64,
}

impl Scaling {
    pub fn new(dim: usize, lam: f64, grid: &[i64]) -> Result<Self> {
        let n = grid.len() / dim;
        let mut mean = vec![0.0f64; dim];
        for row in grid.chunks(dim) {
            for (m, &g) in mean.iter_mut().zip(row) {
                *m += g as f64 * lam;
            }
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        let mut var = vec![0.0f64; dim];
        for row in grid.chunks(dim) {
            for ((v, &g), m) in var.iter_mut().zip(row).zip(&mean) {
                *v += (g as f64 * lam - m).powi(2);
            }
        }
        // A dimension with less spread than one cell is scaled by the cell.
        let scale: Vec<f64> = var.iter().map(|v| (v / n as f64).sqrt().max(lam)).collect();
        if scale
            .iter()
            .chain(&mean)
            .any(|x| !x.is_finite() || x.abs() > 1e30)
        {
            return Err(KcompError::param(
                "z",
                "values too large for single-precision training",
            ));
        }
        let zn = grid
            .chunks(dim)
            .flat_map(|row| {
                row.iter()
                    .zip(&mean)
                    .zip(&scale)
                    .map(|((&g, m), s)| ((g as f64 * lam - m) / s) as f32)
            })
            .collect();
        let floor = lam.ln() - LN_SQRT_2PI;
        Ok(Scaling {
            n,
            dim,
            zn,
            floor_var: scale
                .iter()
                .map(|s| (2.0 * (floor - s.ln())).exp() as f32)
                .collect(),
            const_nats_per_row: scale.iter().map(|s| s.ln() + LN_SQRT_2PI - lam.ln()).sum(),
        })
    }
}

/// The schedule of one training step.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    /// Lower bound of the shared variance (standardised units).
    pub floor: f32,
    /// Softmax temperature.
    pub tau: f64,
    /// Weight of the prior term (warm-up).
    pub beta: f64,
}

/// A minibatch of standardised rows on a device.
pub(super) struct Batch {
    pub zn: Tensor<2>,
    pub rows: usize,
}

impl Batch {
    pub fn new(s: &Scaling, rows: &[usize], dev: &Device) -> Self {
        let d = s.dim;
        let v: Vec<f32> = rows
            .iter()
            .flat_map(|&r| s.zn[r * d..(r + 1) * d].iter().copied())
            .collect();
        Batch {
            zn: tensor(v, [rows.len(), d], dev),
            rows: rows.len(),
        }
    }
}

/// The autoregressive masks of the prior (MADE, Germain et al. 2015): hidden unit h has degree
/// k_h = h mod (M - 1); input position p feeds h when p <= k_h, h feeds output position m when
/// k_h < m, and the direct input-to-output weights connect p to m when p < m. So the logits of
/// position m depend on the tokens before m only.
pub(super) struct Masks {
    m1: Tensor<2>,
    m2: Tensor<2>,
    md: Tensor<2>,
}

impl Masks {
    pub fn new(space: SentenceSpace, hidden: usize, dev: &Device) -> Self {
        let (m, v) = (space.length, space.vocab);
        let mv = m * v;
        let degree = |h: usize| h % (m - 1).max(1);
        let pos = |i: usize| i / v;
        let mut m1 = vec![0.0f32; mv * hidden];
        let mut m2 = vec![0.0f32; hidden * mv];
        let mut md = vec![0.0f32; mv * mv];
        for i in 0..mv {
            for h in 0..hidden {
                if pos(i) <= degree(h) && m > 1 {
                    m1[i * hidden + h] = 1.0;
                }
            }
            for o in 0..mv {
                if pos(i) < pos(o) {
                    md[i * mv + o] = 1.0;
                }
            }
        }
        for h in 0..hidden {
            for o in 0..mv {
                if degree(h) < pos(o) {
                    m2[h * mv + o] = 1.0;
                }
            }
        }
        Masks {
            m1: tensor(m1, [mv, hidden], dev),
            m2: tensor(m2, [hidden, mv], dev),
            md: tensor(md, [mv, mv], dev),
        }
    }
}

#[derive(Module, Debug)]
pub(super) struct Mlp {
    layers: Vec<Linear>,
    /// A linear path from input to output beside the hidden layers (decoder only): a lookup
    /// table of the tokens is linear in their one-hot codes, learnt at once through it.
    direct: Option<Linear>,
}

impl Mlp {
    fn new(widths: &[usize], rng: &mut ChaCha8Rng, dev: &Device) -> Self {
        let layers = widths
            .windows(2)
            .map(|w| Linear {
                weight: uniform_param(vec![w[0], w[1]], w[0], rng, dev),
                bias: Some(uniform_param(vec![w[1]], w[0], rng, dev)),
            })
            .collect();
        Mlp {
            layers,
            direct: None,
        }
    }

    fn with_direct(mut self, fan_in: usize, out: usize, dev: &Device) -> Self {
        self.direct = Some(Linear {
            weight: Param::from_data(
                TensorData::new(vec![0.0f32; fan_in * out], [fan_in, out]),
                dev,
            ),
            bias: None,
        });
        self
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let skip = self.direct.as_ref().map(|d| d.forward(x.clone()));
        let mut x = x;
        let last = self.layers.len() - 1;
        for (l, layer) in self.layers.iter().enumerate() {
            x = layer.forward(x);
            if l < last {
                x = activation::relu(x);
            }
        }
        match skip {
            Some(s) => x + s,
            None => x,
        }
    }
}

/// The causal prior p_w: a one-hidden-layer MADE with direct connections.
#[derive(Module, Debug)]
pub(super) struct Prior {
    w1: Param<Tensor<2>>,
    b1: Param<Tensor<1>>,
    w2: Param<Tensor<2>>,
    b2: Param<Tensor<1>>,
    wd: Param<Tensor<2>>,
}

impl Prior {
    fn new(mv: usize, hidden: usize, rng: &mut ChaCha8Rng, dev: &Device) -> Self {
        Prior {
            w1: uniform_param(vec![mv, hidden], mv, rng, dev),
            b1: uniform_param(vec![hidden], mv, rng, dev),
            w2: uniform_param(vec![hidden, mv], hidden, rng, dev),
            b2: Param::from_data(TensorData::new(vec![0.0f32; mv], [mv]), dev),
            wd: Param::from_data(TensorData::new(vec![0.0f32; mv * mv], [mv, mv]), dev),
        }
    }

    /// Logits (B x M V) of every position given the one-hot (or soft) tokens x (B x M V).
    fn forward(&self, x: Tensor<2>, masks: &Masks) -> Tensor<2> {
        let h = x
            .clone()
            .matmul(self.w1.val() * masks.m1.clone())
            .add(self.b1.val().unsqueeze());
        let h = activation::relu(h);
        h.matmul(self.w2.val() * masks.m2.clone())
            .add(self.b2.val().unsqueeze())
            .add(x.matmul(self.wd.val() * masks.md.clone()))
    }
}

/// Encoder, prior and decoder, trained together by one optimiser.
#[derive(Module, Debug)]
pub(super) struct Net {
    enc: Mlp,
    prior: Prior,
    dec: Mlp,
    /// VQ only: V codebook vectors per position (M x V x E).
    codebook: Option<Param<Tensor<3>>>,
    #[module(skip)]
    vq_dim: usize,
    #[module(skip)]
    space: SentenceSpace,
}

impl Net {
    pub fn new(
        disc: Discretiser,
        space: SentenceSpace,
        s: &Scaling,
        hidden: usize,
        rng: &mut ChaCha8Rng,
        dev: &Device,
    ) -> Self {
        let (m, v) = (space.length, space.vocab);
        let vq_dim = VQ_DIM;
        let code_width = match disc {
            Discretiser::Vq => vq_dim,
            _ => v,
        };
        let mut widths = vec![s.dim];
        widths.extend(std::iter::repeat_n(hidden, DEPTH));
        widths.push(m * code_width);
        let enc = Mlp::new(&widths, rng, dev);
        let prior = Prior::new(m * v, hidden, rng, dev);
        let mut widths = vec![m * code_width];
        widths.extend(std::iter::repeat_n(hidden, DEPTH));
        widths.push(s.dim);
        let dec = Mlp::new(&widths, rng, dev).with_direct(m * code_width, s.dim, dev);
        let codebook = (disc == Discretiser::Vq).then(|| {
            let c: Vec<f32> = (0..m * v * vq_dim).map(|_| normal(rng)).collect();
            Param::from_data(TensorData::new(c, [m, v, vq_dim]), dev)
        });
        Net {
            enc,
            prior,
            dec,
            codebook,
            vq_dim,
            space,
        }
    }

    fn device(&self) -> Device {
        self.prior.b2.val().device()
    }

    /// -ln p_w(x) summed over the rows of x (B x M V, one-hot or soft).
    fn prior_nats(&self, x: Tensor<2>, masks: &Masks) -> Tensor<1> {
        let (m, v) = (self.space.length, self.space.vocab);
        let b = x.dims()[0];
        let logp =
            activation::log_softmax(self.prior.forward(x.clone(), masks).reshape([b, m, v]), 2);
        (x.reshape([b, m, v]) * logp).sum().neg()
    }

    /// Squared residuals (B x D) of the decoder's means f(x) against the standardised rows.
    fn residuals(&self, dec_in: Tensor<2>, zn: Tensor<2>) -> Tensor<2> {
        (zn - self.dec.forward(dec_in)).powi_scalar(2)
    }

    /// -ln p(z | f(x)) summed over the rows of a batch, without the parameter-free constants,
    /// at the one std shared by all dimensions that maximises the likelihood (the RMS residual
    /// of the batch, at least the floor): the profile likelihood, so the std needs no slow
    /// learning. A shared std weighs every dimension alike; a per-dimension std would weigh
    /// the dimensions already reconstructed most, and training then ignores the others (measured:
    /// docs/learned-w.md). Evaluation then fits one std per dimension.
    fn recon_nats(&self, dec_in: Tensor<2>, zn: Tensor<2>, floor_var: f32) -> Tensor<1> {
        let [b, d] = zn.dims();
        let r2 = self.residuals(dec_in, zn);
        let var = (r2.clone().mean() - floor_var).clamp_min(0.0) + floor_var;
        let quad = (r2.sum() / var.clone()).mul_scalar(0.5);
        quad + var.log().mul_scalar(0.5 * (b * d) as f32)
    }

    /// Codebook distances (B x M x V) of the encoder's vectors e (B x M x E) to the
    /// codebook of their position (M x V x E).
    fn vq_distances(e: Tensor<3>, cb: Tensor<3>) -> Tensor<3> {
        let [m, v, _] = cb.dims();
        let et = e.swap_dims(0, 1);
        let e2 = et.clone().powi_scalar(2).sum_dim(2);
        let c2 = cb.clone().powi_scalar(2).sum_dim(2).reshape([m, 1, v]);
        (e2 + c2 - et.matmul(cb.swap_dims(1, 2)).mul_scalar(2.0)).swap_dims(0, 1)
    }

    /// The codebook vectors (B x M x E) of one-hot tokens (B x M x V).
    fn vq_lookup(hard: Tensor<3>, cb: Tensor<3>) -> Tensor<3> {
        hard.swap_dims(0, 1).matmul(cb).swap_dims(0, 1)
    }

    /// The training loss (nats per row) of one minibatch, and the tokens it chose (B x M).
    pub fn train_loss(
        &self,
        disc: Discretiser,
        batch: &Batch,
        masks: &Masks,
        step: Step,
        rng: &mut ChaCha8Rng,
    ) -> (Tensor<1>, Vec<u32>) {
        let Step { floor, tau, beta } = step;
        let dev = self.device();
        let (m, v) = (self.space.length, self.space.vocab);
        let b = batch.rows;
        let logits = self.enc.forward(batch.zn.clone());
        let (loss, tokens) = match disc {
            Discretiser::Softmax | Discretiser::Gumbel => {
                let mut y = logits;
                if disc == Discretiser::Gumbel {
                    let g: Vec<f32> = (0..b * m * v).map(|_| gumbel(rng)).collect();
                    y = y + tensor(g, [b, m * v], &dev);
                }
                let yv = to_vec(y.clone());
                let tokens = argmax_rows(&yv, v);
                let soft = activation::softmax(y.div_scalar(tau as f32).reshape([b, m, v]), 2)
                    .reshape([b, m * v]);
                let x = if disc == Discretiser::Gumbel {
                    let hard = tensor(one_hot(&tokens, v), [b, m * v], &dev);
                    hard - soft.clone().detach() + soft
                } else {
                    soft
                };
                let loss = self.prior_nats(x.clone(), masks).mul_scalar(beta as f32)
                    + self.recon_nats(x, batch.zn.clone(), floor);
                (loss, tokens)
            }
            Discretiser::Vq => {
                let cb = self.codebook.as_ref().expect("VQ codebook").val();
                let e = logits.reshape([b, m, self.vq_dim]);
                let dist = to_vec(Self::vq_distances(e.clone().detach(), cb.clone().detach()));
                let tokens = argmin_rows(&dist, v);
                let hard = tensor(one_hot(&tokens, v), [b, m, v], &dev);
                let q = Self::vq_lookup(hard.clone(), cb);
                let q_st = e.clone() + (q.clone() - e.clone()).detach();
                let commit = (e.clone() - q.clone().detach()).powi_scalar(2).sum();
                let codebook = (q - e.detach()).powi_scalar(2).sum();
                let loss = self.prior_nats(hard.reshape([b, m * v]), masks)
                    + self.recon_nats(q_st.reshape([b, m * self.vq_dim]), batch.zn.clone(), floor)
                    + codebook
                    + commit.mul_scalar(VQ_BETA);
                (loss, tokens)
            }
        };
        (loss.div_scalar(b as f32), tokens)
    }

    /// The tokens of every row (argmax / nearest code) and the loss of the hard tokens in bits
    /// per row: (tokens, prior bits, reconstruction bits).
    pub fn evaluate(&self, disc: Discretiser, s: &Scaling, hidden: usize) -> (Vec<u32>, f64, f64) {
        let net = self.valid();
        let dev = net.device();
        let (m, v) = (self.space.length, self.space.vocab);
        let masks = Masks::new(self.space, hidden, &dev);
        let mut tokens = Vec::with_capacity(s.n * m);
        let mut prior = 0.0f64;
        let mut r2 = vec![0.0f64; s.dim];
        let rows: Vec<usize> = (0..s.n).collect();
        for chunk in rows.chunks(EVAL_BATCH) {
            let batch = Batch::new(s, chunk, &dev);
            let b = batch.rows;
            let out = net.enc.forward(batch.zn.clone());
            let t = match disc {
                Discretiser::Vq => {
                    let cb = net.codebook.as_ref().expect("VQ codebook").val();
                    argmin_rows(
                        &to_vec(Self::vq_distances(out.reshape([b, m, self.vq_dim]), cb)),
                        v,
                    )
                }
                _ => argmax_rows(&to_vec(out), v),
            };
            let hard = tensor(one_hot(&t, v), [b, m * v], &dev);
            let dec_in = match disc {
                Discretiser::Vq => {
                    let cb = net.codebook.as_ref().expect("VQ codebook").val();
                    Self::vq_lookup(hard.clone().reshape([b, m, v]), cb)
                        .reshape([b, m * self.vq_dim])
                }
                _ => hard.clone(),
            };
            prior += net.prior_nats(hard, &masks).into_scalar::<f32>() as f64;
            let r = to_vec(net.residuals(dec_in, batch.zn).sum_dim(0));
            r2.iter_mut().zip(&r).for_each(|(a, &x)| *a += x as f64);
            tokens.extend(t);
        }
        let n = s.n as f64;
        // The std of each dimension is its RMS residual over all rows (at least the floor).
        let recon: f64 = r2
            .iter()
            .zip(&s.floor_var)
            .map(|(&r, &f)| {
                let var = (r / n).max(f as f64);
                0.5 * n * var.ln() + 0.5 * r / var
            })
            .sum();
        (
            tokens,
            prior / n / LN_2,
            (recon / n + s.const_nats_per_row) / LN_2,
        )
    }

    /// VQ: every code of a position that no row used this epoch restarts at that position's
    /// encoder output for a random row (seeded), so the vocabulary does not collapse.
    pub fn restart_dead_codes(self, usage: &[usize], s: &Scaling, rng: &mut ChaCha8Rng) -> Self {
        let (m, v, e) = (self.space.length, self.space.vocab, self.vq_dim);
        let dead: Vec<usize> = (0..m * v).filter(|&c| usage[c] == 0).collect();
        let Some(cb) = self.codebook.as_ref() else {
            return self;
        };
        if dead.is_empty() {
            return self;
        }
        let dev = self.device();
        let mut values = to_vec(cb.val());
        let rows: Vec<usize> = dead.iter().map(|_| rng.random_range(0..s.n)).collect();
        let valid = self.valid();
        let out = to_vec(valid.enc.forward(Batch::new(s, &rows, &valid.device()).zn));
        for (k, &c) in dead.iter().enumerate() {
            let pos = c / v;
            let src = &out[(k * m + pos) * e..(k * m + pos + 1) * e];
            for (j, &x) in src.iter().enumerate() {
                values[c * e + j] = x + 0.01 * normal(rng);
            }
        }
        let mut net = self;
        net.codebook = net
            .codebook
            .map(|p| p.map(|_| tensor(values, [m, v, e], &dev).require_grad()));
        net
    }
}

fn to_vec<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_to_vec::<f32>().expect("f32 tensor")
}

/// Index of the largest value of each row of width `v`.
fn argmax_rows(x: &[f32], v: usize) -> Vec<u32> {
    x.chunks(v)
        .map(|r| {
            let mut best = 0;
            for (i, &a) in r.iter().enumerate() {
                if a > r[best] {
                    best = i;
                }
            }
            best as u32
        })
        .collect()
}

/// Index of the smallest value of each row of width `v`.
fn argmin_rows(x: &[f32], v: usize) -> Vec<u32> {
    x.chunks(v)
        .map(|r| {
            let mut best = 0;
            for (i, &a) in r.iter().enumerate() {
                if a < r[best] {
                    best = i;
                }
            }
            best as u32
        })
        .collect()
}

fn one_hot(tokens: &[u32], v: usize) -> Vec<f32> {
    let mut x = vec![0.0f32; tokens.len() * v];
    for (i, &t) in tokens.iter().enumerate() {
        x[i * v + t as usize] = 1.0;
    }
    x
}

/// PyTorch's default initialisation: uniform in +-1/sqrt(fan_in).
fn uniform_param<const D: usize>(
    shape: Vec<usize>,
    fan_in: usize,
    rng: &mut ChaCha8Rng,
    dev: &Device,
) -> Param<Tensor<D>> {
    let bound = 1.0 / (fan_in.max(1) as f32).sqrt();
    let len: usize = shape.iter().product();
    let v: Vec<f32> = (0..len).map(|_| rng.random_range(-bound..bound)).collect();
    Param::from_data(TensorData::new(v, shape), dev)
}

fn gumbel(rng: &mut ChaCha8Rng) -> f32 {
    // u in (0, 1): the open interval keeps both logarithms finite.
    let u: f64 = (rng.random::<u64>() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let u = u.max(f64::MIN_POSITIVE);
    (-(-u.ln()).ln()) as f32
}

fn normal(rng: &mut ChaCha8Rng) -> f32 {
    use rand_distr::{Distribution, StandardNormal};
    let x: f64 = StandardNormal.sample(rng);
    x as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The prior is causal: the logits of position m do not change when any token at m or
    /// after changes (so -log p_w is a valid sequential code), and they do change with earlier
    /// tokens (the masks do not cut everything).
    #[test]
    fn prior_logits_depend_only_on_earlier_tokens() {
        let (m, v, h) = (4, 3, 16);
        let space = SentenceSpace {
            length: m,
            vocab: v,
        };
        let dev = Device::flex();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut prior = Prior::new(m * v, h, &mut rng, &dev);
        let wd: Vec<f32> = (0..m * v * m * v).map(|_| normal(&mut rng)).collect();
        prior.wd = Param::from_data(TensorData::new(wd, [m * v, m * v]), &dev);
        let masks = Masks::new(space, h, &dev);
        let logits = |tokens: &[u32]| -> Vec<f32> {
            to_vec(prior.forward(tensor(one_hot(tokens, v), [1, m * v], &dev), &masks))
        };
        let base = [0u32, 1, 2, 0];
        let l0 = logits(&base);
        for changed in 0..m {
            let mut t = base;
            t[changed] = (t[changed] + 1) % v as u32;
            let l1 = logits(&t);
            for pos in 0..m {
                let same = l0[pos * v..(pos + 1) * v] == l1[pos * v..(pos + 1) * v];
                assert_eq!(same, pos <= changed, "token {changed} vs logits of {pos}");
            }
        }
    }
}
