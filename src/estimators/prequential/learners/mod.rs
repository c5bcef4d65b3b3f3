//! The learners of the online prequential scheme ([`super::online`]), one file each. Every
//! learner is a sequential code: [`OnlineLearner::code`] gives a row's bits before
//! [`OnlineLearner::learn`] may see it. The probability codes they share (discretised
//! Gaussians, Dirichlet counts) live in [`crate::coding`] and [`crate::neural::likelihood`].
//!
//! - [`marginal`]: Z without W (running Gaussian, Krichevsky-Trofimov counts);
//! - [`ngram`]: each output a table over one n-gram of W at an unknown position;
//! - [`bayes_linear`]: Bayesian linear regression on one-hot n-gram features;
//! - [`net`]: networks (the fast MLP, the GRU) trained online with replay, EMA, calibration;
//! - [`rules`]: the discrete rule learner, with its [`lexicon_sampler`];
//! - [`tree`]: tree-structured composition (learned word categories, a parse, tensor-product
//!   binding and linear rule maps fitted online).

pub mod bayes_linear;
pub mod lexicon_sampler;
pub mod marginal;
pub mod net;
pub mod ngram;
pub mod rules;
pub mod tree;

pub use bayes_linear::{BayesLinear, MAX_LINEAR_FEATURES};
pub use marginal::Marginal;
pub use net::{MlpOnline, NetOnline, OnlineNet, OnlineTraining};
pub use ngram::{MAX_NGRAM_CELLS, NgramTable};

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
}

/// A learner built from its spec for data `w`, `z`; `None` when it does not apply (a linear
/// learner on discrete Z, or with too many features).
pub fn make_online_learner(
    spec: &LearnerSpec,
    cfg: &OnlineConfig,
    w: &TokenData,
    z: &Targets,
    seed: u64,
) -> Option<Box<dyn OnlineLearner>> {
    match spec {
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
            Some(Box::new(MlpOnline::new(net, spec.name(), training, seed)))
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
            Some(Box::new(NetOnline::new(net, spec.name(), training, seed)))
        }
        LearnerSpec::Linear { order, ridge } => {
            BayesLinear::new(w, z, *order, *ridge).map(|l| Box::new(l) as Box<dyn OnlineLearner>)
        }
        LearnerSpec::Marginal => Some(Box::new(Marginal::new(z))),
        LearnerSpec::Rules(s) => {
            // The padding token given, or else the one W shows (only ever a trailing run).
            let pad = cfg.pad.or_else(|| super::padding::detect_padding(w));
            rules::RuleLearner::new(w, z, s, pad).map(|l| Box::new(l) as Box<dyn OnlineLearner>)
        }
        LearnerSpec::Ngram { order } => {
            NgramTable::new(w, z, *order).map(|l| Box::new(l) as Box<dyn OnlineLearner>)
        }
        LearnerSpec::Tree(s) => {
            let padded = cfg.pad.is_some() || super::padding::detect_padding(w).is_some();
            tree::TreeLearner::new(w, z, s, padded, seed)
                .map(|l| Box::new(l) as Box<dyn OnlineLearner>)
        }
    }
}
