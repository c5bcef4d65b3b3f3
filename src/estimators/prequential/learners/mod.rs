//! The learners of the online prequential scheme ([`super::online`]), one file each. Every
//! learner is a sequential code: [`OnlineLearner::code`] gives a row's bits before
//! [`OnlineLearner::learn`] may see it. The probability codes they share (discretised
//! Gaussians, Dirichlet counts) live in [`crate::coding`] and [`crate::neural::likelihood`].
//!
//! - [`marginal`]: Z without W (running Gaussian, Krichevsky-Trofimov counts);
//! - [`ngram`]: each output a table over one n-gram of W at an unknown position;
//! - [`bayes_linear`]: Bayesian linear regression on one-hot n-gram features (exact, F^2 per
//!   row: up to [`MAX_LINEAR_FEATURES`] features);
//! - [`sparse_linear`]: Bayesian linear regression on sparse features of W (bag of words, word
//!   at position, bigrams), every feature ever seen (sparse sufficient statistics);
//! - [`objects`]: Z without W as whole objects (discrete): a memory of the objects sent, new
//!   ones drawn among those not sent yet;
//! - [`net`]: networks (the fast MLP, the GRU) trained online with replay, EMA, calibration;
//! - [`rules`]: the discrete rule learner, with its [`lexicon_sampler`];
//! - [`tree`]: tree-structured composition (learned word categories, a parse, tensor-product
//!   binding and linear rule maps fitted online).

pub mod bayes_linear;
pub mod lexicon_sampler;
pub mod marginal;
pub mod net;
pub mod ngram;
pub mod objects;
pub mod rules;
pub mod sparse_linear;
pub mod tree;

pub use bayes_linear::{BayesLinear, MAX_LINEAR_FEATURES};
pub use marginal::Marginal;
pub use net::{MlpOnline, NetOnline, OnlineNet, OnlineTraining};
pub use ngram::{MAX_NGRAM_CELLS, NgramTable};
pub use objects::Objects;
pub use sparse_linear::{FeatureSet, SparseLinear, SparseSettings};

use super::online::{LearnerSpec, OnlineConfig};
use crate::coding::predictive::OutputDist;
use crate::dataset::{Targets, TokenData};
use crate::neural::fast::FastMlp;
use crate::neural::gru::{FastGru, GruSpec};

/// A learner that codes rows, then learns them. `code` must not change what the learner will
/// predict for any row except through `learn`.
pub trait OnlineLearner: Send {
    /// Short name for reports.
    fn name(&self) -> String;
    /// Rows per update: `Some(1)` for learners whose update is cheap (updated after every row),
    /// `None` to follow the geometric block schedule of [`OnlineConfig`].
    fn block_rows(&self) -> Option<usize>;
    /// Per-row code lengths in bits of `rows` under the current state (no learning).
    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64>;
    /// Learns after a block: `sent` are all rows sent so far, the last `n_new` of them new.
    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize);
    /// The predictive distribution of each of `rows` under the current state (one
    /// [`OutputDist`] per output: dimension or attribute, continuous ones in grid units) when
    /// the learner has it in closed form; `None` otherwise (requential coding,
    /// `crate::estimators::requential`, then skips the learner). Like `code`, it must not
    /// change what the learner will predict.
    fn predictive(
        &mut self,
        _w: &TokenData,
        _z: &Targets,
        _rows: &[usize],
    ) -> Option<Vec<Vec<OutputDist>>> {
        None
    }
    /// Whether the learner reads W at all. One that does not (the marginal, whole objects)
    /// codes Z without W: the online scheme runs it once, for K(Z), and K(Z|W)'s mixture
    /// holds that code of Z without W as one component.
    fn reads_w(&self) -> bool {
        true
    }
    /// What a reader should know about how this learner ran on these data (candidates or
    /// features it left out, the method it fell back to), if anything.
    fn note(&self) -> Option<String> {
        None
    }
}

/// A learner built from its spec for data `w`, `z`; `None` when it does not apply (see
/// [`build_online_learner`] for the reason).
pub fn make_online_learner(
    spec: &LearnerSpec,
    cfg: &OnlineConfig,
    w: &TokenData,
    z: &Targets,
    seed: u64,
) -> Option<Box<dyn OnlineLearner>> {
    build_online_learner(spec, cfg, w, z, seed).ok()
}

/// The grid spacing of continuous Z (1 for discrete Z, where it is not read).
fn lam_of(z: &Targets) -> f64 {
    match z {
        Targets::Continuous { lam, .. } => *lam,
        Targets::Discrete { .. } => 1.0,
    }
}

/// The padding token the learners use: the one given, or else the one W shows (a token that
/// only ever ends a message as a trailing run).
pub fn padding_token(cfg: &OnlineConfig, w: &TokenData) -> Option<u32> {
    cfg.pad.or_else(|| super::padding::detect_padding(w))
}

/// A learner built from its spec for data `w`, `z`, or why it does not apply to them (the
/// online scheme reports the reason).
pub fn build_online_learner(
    spec: &LearnerSpec,
    cfg: &OnlineConfig,
    w: &TokenData,
    z: &Targets,
    seed: u64,
) -> std::result::Result<Box<dyn OnlineLearner>, String> {
    const CONTINUOUS_ONLY: &str = "a Gaussian regression: continuous Z only";
    let learner: Box<dyn OnlineLearner> = match spec {
        LearnerSpec::Mlp {
            emb_dim,
            hidden,
            lr,
            lr_decay_rows,
            ema,
            calibrate,
        } => {
            let model = super::code::ModelConfig {
                emb_dim: *emb_dim,
                hidden: hidden.clone(),
                ..Default::default()
            };
            let mspec = super::code::model_spec(w, z, &model);
            let training = OnlineTraining::new(cfg, *lr, *lr_decay_rows, *ema, *calibrate);
            let net = FastMlp::new(&mspec, *lr, seed);
            Box::new(
                MlpOnline::new(net, spec.name(), training, seed)
                    .with_residual_covariance(lam_of(z)),
            )
        }
        LearnerSpec::Gru {
            emb_dim,
            hidden,
            lr,
            lr_decay_rows,
            ema,
            calibrate,
        } => {
            let gspec = GruSpec {
                vocab: w.vocab,
                emb_dim: *emb_dim,
                hidden: *hidden,
                head: super::code::model_spec(w, z, &Default::default()).head,
                pad: cfg.pad,
            };
            let training = OnlineTraining::new(cfg, *lr, *lr_decay_rows, *ema, *calibrate);
            let net = FastGru::new(&gspec, *lr, seed);
            Box::new(
                NetOnline::new(net, spec.name(), training, seed)
                    .with_residual_covariance(lam_of(z)),
            )
        }
        LearnerSpec::Linear { order, ridge } => {
            if !matches!(z, Targets::Continuous { .. }) {
                return Err(CONTINUOUS_ONLY.into());
            }
            match BayesLinear::new(w, z, *order, *ridge) {
                Some(l) => Box::new(l),
                None => {
                    return Err(format!(
                        "more than {MAX_LINEAR_FEATURES} one-hot features (word at every \
                         position{}): the exact inverse costs F^2 per row; the sparse learner \
                         reads every feature (`--learners sparse:positions` for words at \
                         positions)",
                        if *order >= 2 {
                            ", bigram at every position"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
        LearnerSpec::Sparse {
            words,
            positions,
            bigrams,
            position_bigrams,
            ridge,
        } => {
            let settings = SparseSettings {
                features: FeatureSet {
                    words: *words,
                    positions: *positions,
                    bigrams: *bigrams,
                    position_bigrams: *position_bigrams,
                },
                ridge: *ridge,
                cg_iterations: SPARSE_CG_ITERATIONS,
                refit_growth: SPARSE_REFIT_GROWTH,
            };
            Box::new(
                SparseLinear::new(w, z, settings, padding_token(cfg, w), spec.name())
                    .ok_or(CONTINUOUS_ONLY)?,
            )
        }
        LearnerSpec::Marginal => Box::new(Marginal::new(z)),
        LearnerSpec::Objects => Box::new(Objects::new(z).ok_or("whole objects: discrete Z only")?),
        LearnerSpec::Rules(s) => {
            // The padding token given, or else the one W shows (only ever a trailing run).
            let pad = padding_token(cfg, w);
            Box::new(
                rules::RuleLearner::new(w, z, s, pad)
                    .ok_or("the rule learner codes discrete Z only")?,
            )
        }
        LearnerSpec::Ngram { order } => Box::new(NgramTable::new(w, z, *order)?),
        LearnerSpec::Tree(s) => {
            let padded = cfg.pad.is_some() || super::padding::detect_padding(w).is_some();
            Box::new(tree::TreeLearner::new(w, z, s, padded, seed)?)
        }
    };
    Ok(learner)
}

/// Conjugate-gradient iterations per refit of the sparse linear learners (warm-started: 6 reach
/// a relative error of about 1e-5 in the predictions on real sentences).
pub const SPARSE_CG_ITERATIONS: usize = 6;

/// The sparse linear learners refit when the rows have grown by this fraction.
pub const SPARSE_REFIT_GROWTH: f64 = 0.1;
