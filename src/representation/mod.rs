//! C(Z) of a representation alone: learn sentences W for Z, then code every term.
//!
//! Elmoznino, Jiralerspong, Bengio, Lajoie, "A complexity-based theory of compositionality",
//! ICML 2025, arXiv 2410.14817, Section 2 and Appendix B: K(Z) is bounded by
//! K(p_w) + K(W|p_w) + K(f) + K(Z|W,f) for a discrete auto-encoder (encoder e(z) -> M tokens over
//! V words, a causal prior p_w, a decoder f), and C(Z) = K(Z) / K(Z|W).
//!
//! The pipeline: a [`SentenceLearner`] fits W to Z (the discrete auto-encoder, or a baseline);
//! the code-length terms are then measured on the learned W by prequential coding (valid codes,
//! in bits), and model selection over (V, M, size) keeps the shortest total.

//!
//! - [`kmeans`]: the baseline learner (block-wise k-means, no autodiff);
//! - [`terms`]: every term as a code length in bits on a learned W;
//! - [`select`]: MDL selection of (M, V) by the total code length;
//! - [`ami`]: recovery of a true W (adjusted mutual information after matching positions);
//! - [`report`]: the run and outputs of `kcomp represent` (W.npy, terms.json/csv, figure);
//! - [`learned_w`]: the same estimate as the `learned_w` estimator of `kcomp compare`.
//!
//! Dependencies point one way: this module uses `estimators::prequential` (the codes) and
//! `estimators::interface`; no estimator module uses this one (the panel's registry does).

pub mod ami;
pub mod kmeans;
pub mod learned_w;
pub mod report;
pub mod select;
pub mod terms;

use serde::{Deserialize, Serialize};

use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};

/// The learners `kcomp represent --learner` knows.
pub const LEARNERS: &[&str] = &["kmeans", "autoencoder"];

/// The learner behind a name of [`LEARNERS`].
pub fn learner_by_name(name: &str) -> Result<Box<dyn SentenceLearner>> {
    match name {
        "kmeans" => Ok(Box::new(kmeans::KMeansLearner::default())),
        #[cfg(feature = "burn")]
        "autoencoder" => Ok(Box::new(autoencoder::AutoEncoder::default())),
        #[cfg(not(feature = "burn"))]
        "autoencoder" => Err(KcompError::param(
            "learner",
            "the auto-encoder is built with the `burn` feature: rebuild with `--features burn` \
             (e.g. `cargo install --path . --features burn`), or use --learner kmeans",
        )),
        other => Err(KcompError::param(
            "learner",
            format!(
                "unknown learner `{}` (kmeans, autoencoder)",
                other.escape_debug()
            ),
        )),
    }
}

/// The training settings a learner of [`LEARNERS`] runs with when the user gives none:
/// k-means 50 Lloyd iterations at most; the auto-encoder 200 epochs at lr 1e-2 (measured in
/// docs/learned-w.md: lr 1e-3 recovers M = 2 but not M = 4 in 100 epochs).
pub fn default_learner_config(name: &str) -> LearnerConfig {
    match name {
        "autoencoder" => LearnerConfig {
            epochs: 200,
            lr: 1e-2,
            ..Default::default()
        },
        _ => LearnerConfig {
            epochs: 50,
            ..Default::default()
        },
    }
}

/// The sentence space W lives in: M tokens over a vocabulary of V words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentenceSpace {
    /// M: tokens per sentence.
    pub length: usize,
    /// V: vocabulary size.
    pub vocab: usize,
}

/// Training settings shared by every learner (a learner ignores what it has no use for).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnerConfig {
    /// Hidden width of the encoder, prior and decoder networks.
    pub hidden: usize,
    /// Training epochs.
    pub epochs: usize,
    /// Minibatch size.
    pub batch: usize,
    /// Learning rate.
    pub lr: f64,
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            hidden: 128,
            epochs: 200,
            batch: 128,
            lr: 1e-3,
        }
    }
}

/// One epoch of training, per row of Z, in bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochRecord {
    pub epoch: usize,
    /// -log2 p_w(e(z)) averaged over rows.
    pub prior_bits_per_row: f64,
    /// -log2 p(z | f(e(z))) averaged over rows, at the data's precision.
    pub reconstruction_bits_per_row: f64,
}

/// What a learner returns: W (N rows of M tokens below V) and its training curve.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedSentences {
    pub w: TokenData,
    pub curve: Vec<EpochRecord>,
}

/// Fits sentences W to a continuous representation Z (on its integer grid at precision lam).
///
/// Contract: deterministic for a seed whatever the thread count; `z` is
/// [`Targets::Continuous`]; the result has `z.n()` rows of `space.length` tokens below
/// `space.vocab`. `progress(done, total)` is called at least once per epoch.
pub trait SentenceLearner: Send + Sync {
    fn name(&self) -> &str;
    /// The longest sentence this learner can fit to Z of dimension `dim` (default D: a
    /// learner that splits Z's dimensions into positions needs at least one per position).
    fn max_length(&self, dim: usize) -> usize {
        dim
    }
    fn learn(
        &self,
        z: &Targets,
        space: SentenceSpace,
        config: &LearnerConfig,
        seed: u64,
        progress: &dyn Fn(usize, usize),
    ) -> Result<LearnedSentences>;
}

/// The discrete auto-encoder learner (burn; feature `burn`).
#[cfg(feature = "burn")]
pub mod autoencoder;
