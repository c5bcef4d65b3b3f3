//! The discrete auto-encoder that learns sentences W for a continuous representation Z
//! (Elmoznino, Jiralerspong, Bengio, Lajoie, "A complexity-based theory of compositionality",
//! ICML 2025, arXiv 2410.14817, Appendix B, eq. 12), written with burn 0.22.
//!
//! - encoder e(z): an MLP from the D standardised coordinates to M x V logits (or, for vector
//!   quantisation, M vectors matched to a codebook of V entries);
//! - discretisation: [`Discretiser`] (annealed softmax, straight-through Gumbel-softmax, or
//!   straight-through VQ with codebook re-estimation);
//! - prior p_w: a masked autoregressive MLP (MADE) over the M one-hot tokens, causal by
//!   construction: the logits of position m see only the tokens before m;
//! - decoder f(w): an MLP from the M x V one-hot tokens to the mean of a Gaussian, with a learned
//!   per-dimension std, coded at the data's precision lam;
//! - loss: -log p_w(e(z)) - log p(z | f(e(z))) per row (eq. 12).
//!
//! Determinism: every random draw (initialisation, minibatch order, Gumbel noise, codebook
//! restarts) comes from seeded ChaCha8 streams, and burn's `flex` CPU backend is built without
//! its `rayon` feature here (kcomp enables only `std`), so each training run is single-threaded
//! with a fixed reduction order. Threads are used across restarts (independent runs, chosen by
//! their loss with ties broken by index), so the result is identical for any thread count.

mod nets;

use std::sync::mpsc;

use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor, TensorData};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{EpochRecord, LearnedSentences, LearnerConfig, SentenceLearner, SentenceSpace};
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use nets::{Batch, Net, Scaling, Step};

/// Fewest rows the auto-encoder accepts (below this a learned vocabulary means nothing).
pub const MIN_ROWS: usize = 10;
/// Largest M x V and D x hidden the learner builds (checked before allocating).
const MAX_LAYER: usize = 1 << 24;
/// Rows per forward pass when evaluating.
const EVAL_BATCH: usize = 1024;
/// Fraction of the epochs over which the prior's weight rises to 1.
const WARMUP: f64 = 0.3;

/// How the encoder's outputs become discrete tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Discretiser {
    /// Simplicial embedding: the decoder and prior see softmax(logits / t) with t annealed
    /// from 1 to 0.05; tokens are the argmax.
    Softmax,
    /// Straight-through Gumbel-softmax: one-hot samples forward, the softmax gradient backward
    /// (temperature annealed from 1 to 0.1).
    Gumbel,
    /// Straight-through vector quantisation: the nearest of V codebook vectors, commitment and
    /// codebook losses, unused codes re-estimated from encoder outputs after every epoch.
    Vq,
}

impl Discretiser {
    pub fn name(self) -> &'static str {
        match self {
            Discretiser::Softmax => "softmax",
            Discretiser::Gumbel => "gumbel",
            Discretiser::Vq => "vq",
        }
    }
}

/// The auto-encoder learner: a [`SentenceLearner`] trained with burn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutoEncoder {
    pub discretiser: Discretiser,
    /// Independent runs from different seeds; the one with the shortest loss is kept.
    /// They run in parallel (rayon), each on one thread.
    pub restarts: usize,
}

impl Default for AutoEncoder {
    fn default() -> Self {
        AutoEncoder {
            discretiser: Discretiser::Vq,
            restarts: 4,
        }
    }
}

/// The outcome of one training run.
struct RunResult {
    tokens: Vec<u32>,
    curve: Vec<EpochRecord>,
    best_bits: f64,
}

impl SentenceLearner for AutoEncoder {
    fn name(&self) -> &str {
        match self.discretiser {
            Discretiser::Softmax => "autoencoder-softmax",
            Discretiser::Gumbel => "autoencoder-gumbel",
            Discretiser::Vq => "autoencoder-vq",
        }
    }

    /// Positions are learnt, not blocks of dimensions: a sentence may be longer than D (a
    /// grammar's 16 words for 10 dimensions), up to 64.
    fn max_length(&self, _dim: usize) -> usize {
        64
    }

    fn learn(
        &self,
        z: &Targets,
        space: SentenceSpace,
        config: &LearnerConfig,
        seed: u64,
        progress: &dyn Fn(usize, usize),
    ) -> Result<LearnedSentences> {
        let scaling = validate(z, space, config, self.restarts)?;
        let restarts = self.restarts;
        let total = restarts * config.epochs;
        // Runs report finished epochs through a channel: `progress` need not be thread-safe.
        let (tx, rx) = mpsc::channel::<()>();
        let results: Vec<RunResult> = std::thread::scope(|s| {
            let worker = s.spawn(|| {
                (0..restarts)
                    .into_par_iter()
                    .map_with(tx, |tx, r| {
                        let run_seed = seed
                            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                            .wrapping_add(r as u64);
                        train_once(self.discretiser, &scaling, space, config, run_seed, &|| {
                            let _ = tx.send(());
                        })
                    })
                    .collect::<Vec<_>>()
            });
            let mut done = 0;
            progress(0, total);
            while rx.recv().is_ok() {
                done += 1;
                progress(done, total);
            }
            worker
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))
        });
        // Shortest loss wins; ties go to the lower restart index (thread-count independent).
        let best = results
            .into_iter()
            .enumerate()
            .min_by(|(i, a), (j, b)| a.best_bits.total_cmp(&b.best_bits).then(i.cmp(j)))
            .map(|(_, r)| r)
            .ok_or_else(|| KcompError::Other("auto-encoder: no training run".into()))?;
        // Fail closed: a W no epoch could score is not a result.
        if !best.best_bits.is_finite() {
            return Err(KcompError::param(
                "lr",
                format!(
                    "the auto-encoder diverged (a non-finite loss in every epoch of every \
                     restart) at lr {}: try a lower learning rate",
                    config.lr
                ),
            ));
        }
        let w = TokenData::new(scaling.n, space.length, space.vocab, best.tokens)?;
        Ok(LearnedSentences {
            w,
            curve: best.curve,
        })
    }
}

/// Checks the inputs and standardises Z (one-line errors, before anything large is allocated).
fn validate(
    z: &Targets,
    space: SentenceSpace,
    config: &LearnerConfig,
    restarts: usize,
) -> Result<Scaling> {
    let (dim, lam, grid) = match z {
        Targets::Continuous { dim, lam, grid } => (*dim, *lam, grid),
        Targets::Discrete { .. } => {
            return Err(KcompError::param(
                "z",
                "the auto-encoder learns W for a continuous Z (numbers on a grid); this Z is categorical",
            ));
        }
    };
    if !(lam.is_finite() && lam > 0.0) {
        return Err(KcompError::param(
            "precision",
            format!("must be positive and finite, not {lam}"),
        ));
    }
    if dim == 0 || !grid.len().is_multiple_of(dim) {
        return Err(KcompError::param("z", "row width does not divide the data"));
    }
    let n = grid.len() / dim;
    if n < MIN_ROWS {
        return Err(KcompError::param(
            "z",
            format!("{n} rows: the auto-encoder needs at least {MIN_ROWS}"),
        ));
    }
    if space.length == 0 {
        return Err(KcompError::param("length", "M must be at least 1"));
    }
    if space.vocab < 2 {
        return Err(KcompError::param("vocab", "V must be at least 2"));
    }
    let h = config.hidden;
    if h == 0 {
        return Err(KcompError::param("hidden", "must be at least 1"));
    }
    let widest = [
        space.length.saturating_mul(space.vocab),
        dim.saturating_mul(h),
        space
            .length
            .saturating_mul(space.vocab)
            .saturating_mul(space.length.saturating_mul(space.vocab)),
        space.length.saturating_mul(space.vocab).saturating_mul(h),
    ];
    if widest.iter().any(|&x| x > MAX_LAYER) {
        return Err(KcompError::param(
            "length",
            format!(
                "M = {}, V = {}, D = {dim}, hidden = {h} make a layer above {MAX_LAYER} weights",
                space.length, space.vocab
            ),
        ));
    }
    if config.epochs == 0 {
        return Err(KcompError::param("epochs", "must be at least 1"));
    }
    if config.batch == 0 {
        return Err(KcompError::param("batch", "must be at least 1"));
    }
    if !(config.lr.is_finite() && config.lr > 0.0) {
        return Err(KcompError::param("lr", "must be positive and finite"));
    }
    if restarts == 0 {
        return Err(KcompError::param("restarts", "must be at least 1"));
    }
    if grid.chunks(dim).all(|row| row == &grid[..dim]) {
        return Err(KcompError::param(
            "z",
            format!(
                "every row is the same point on the grid at precision {lam} (a constant Z, or a \
                 precision coarser than its spread): there is nothing to learn"
            ),
        ));
    }
    Scaling::new(dim, lam, grid)
}

/// The temperature of epoch `e` of `epochs`: geometric from `t0` to `t1`.
fn temperature(t0: f64, t1: f64, e: usize, epochs: usize) -> f64 {
    if epochs <= 1 {
        return t1;
    }
    t0 * (t1 / t0).powf(e as f64 / (epochs - 1) as f64)
}

/// The weight of the prior term in epoch `e`: 0 at first, rising linearly to 1 at 30 % of the
/// epochs (warm-up, so the encoder learns to reconstruct before the prior compresses its
/// tokens; the loss recorded is always eq. 12 unweighted).
fn prior_weight(e: usize, epochs: usize) -> f64 {
    let warm = (epochs as f64 * WARMUP).max(1.0);
    (e as f64 / warm).min(1.0)
}

fn train_once(
    disc: Discretiser,
    scaling: &Scaling,
    space: SentenceSpace,
    config: &LearnerConfig,
    seed: u64,
    epoch_done: &dyn Fn(),
) -> RunResult {
    crate::neural::flush_denormals();
    let device: Device = Device::flex().autodiff();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut net = Some(Net::new(
        disc,
        space,
        scaling,
        config.hidden,
        &mut rng,
        &device,
    ));
    let mut optim = AdamConfig::new().with_epsilon(1e-8).init();
    let masks = nets::Masks::new(space, config.hidden, &device);
    let floor = scaling.floor_var.iter().sum::<f32>() / scaling.dim as f32;
    let n = scaling.n;
    let mut order: Vec<usize> = (0..n).collect();
    let (t0, t1) = match disc {
        Discretiser::Softmax => (1.0, 0.05),
        _ => (1.0, 0.1),
    };
    if disc == Discretiser::Vq {
        // Data-dependent codebook: every code starts at the encoder output of a random row.
        let model = net.take().expect("model present");
        let unused = vec![0usize; space.length * space.vocab];
        net = Some(model.restart_dead_codes(&unused, scaling, &mut rng));
    }
    let mut curve = Vec::with_capacity(config.epochs);
    let mut best: Option<(f64, Vec<u32>)> = None;
    for epoch in 0..config.epochs {
        let tau = temperature(t0, t1, epoch, config.epochs);
        let beta = prior_weight(epoch, config.epochs);
        order.shuffle(&mut rng);
        let mut usage = vec![0usize; space.length * space.vocab];
        for rows in batches(&order, config.batch) {
            let model = net.take().expect("model present");
            let batch = Batch::new(scaling, rows, &device);
            let (loss, tokens) =
                model.train_loss(disc, &batch, &masks, Step { floor, tau, beta }, &mut rng);
            for (m, &t) in tokens.iter().enumerate() {
                usage[(m % space.length) * space.vocab + t as usize] += 1;
            }
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            net = Some(optim.step(config.lr, model, grads));
        }
        if disc == Discretiser::Vq {
            let model = net.take().expect("model present");
            net = Some(model.restart_dead_codes(&usage, scaling, &mut rng));
        }
        let model = net.as_ref().expect("model present");
        let (tokens, prior_bits, recon_bits) = model.evaluate(disc, scaling, config.hidden);
        let total = prior_bits + recon_bits;
        curve.push(EpochRecord {
            epoch,
            prior_bits_per_row: prior_bits,
            reconstruction_bits_per_row: recon_bits,
        });
        if total.is_finite() && best.as_ref().is_none_or(|(b, _)| total < *b) {
            best = Some((total, tokens));
        }
        epoch_done();
    }
    let (best_bits, tokens) = best.unwrap_or_else(|| {
        // Every epoch diverged: an infinite loss, so that any finite restart wins (and `learn`
        // refuses the result if none does).
        let model = net.as_ref().expect("model present");
        (
            f64::INFINITY,
            model.evaluate(disc, scaling, config.hidden).0,
        )
    });
    RunResult {
        tokens,
        curve,
        best_bits,
    }
}

/// Splits `order` into n / batch nearly equal minibatches (at least one): no tiny last batch,
/// whose residuals would set the std of a whole step.
fn batches(order: &[usize], batch: usize) -> impl Iterator<Item = &[usize]> {
    let k = (order.len() / batch).max(1);
    (0..k).map(move |i| &order[i * order.len() / k..(i + 1) * order.len() / k])
}

/// Builds a float tensor from row-major values.
fn tensor<const D: usize>(v: Vec<f32>, shape: [usize; D], dev: &Device) -> Tensor<D> {
    Tensor::from_data(TensorData::new(v, shape), dev)
}
