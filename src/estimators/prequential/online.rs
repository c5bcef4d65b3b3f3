//! Online prequential coding (Bornschein et al. 2022, "Sequential learning of neural networks
//! for prequential MDL"): the rows are sent one block at a time; each block is coded by the
//! learner's current state, then the learner continues training on everything sent so far
//! (the new block first, then replay of uniformly drawn earlier rows). Nothing is retrained
//! from scratch, and blocks can be small, so rows are coded by models that saw almost all rows
//! before them (the block-wise reference codes a chunk with a model trained on half as many).
//!
//! Ingredients, each optional per learner:
//! - replay: every update draws mini-batches from all rows sent so far;
//! - EMA of the weights: the averaged weights code the next block (smoother than the last step);
//! - forward calibration: a scalar temperature (categorical) or std scale (Gaussian), fitted on
//!   the predictions each sent row got *when it was coded* (so on data the model had not seen
//!   then), applied to the next block.
//!
//! Validity: [`run_learner`] asks a learner to code rows before it lets it learn them; the
//! tests check it with an instrumented learner and by perturbing later rows.

use serde::{Deserialize, Serialize};

use super::code::{Chunk, PrequentialCode, PrequentialConfig, derive_seed, in_pool};

pub use super::learners::{
    BayesLinear, MAX_LINEAR_FEATURES, MAX_NGRAM_CELLS, Marginal, MlpOnline, NetOnline, NgramTable,
    OnlineLearner, OnlineNet, OnlineTraining, build_online_learner, make_online_learner,
};
use super::naive::naive_bits;
use super::schedule::order_rows;
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};

/// One learner of the online scheme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LearnerSpec {
    /// The fast MLP (token embedding -> `hidden` ReLU layers -> head; `hidden = []` is a linear
    /// read-out of the embeddings) trained online with replay.
    Mlp {
        emb_dim: usize,
        hidden: Vec<usize>,
        /// Adam learning rate at the start.
        lr: f64,
        /// The rate is `lr / sqrt(1 + sent / lr_decay_rows)` (0 = constant).
        #[serde(default)]
        lr_decay_rows: usize,
        /// EMA decay of the weights that code (0 = code with the raw weights).
        #[serde(default)]
        ema: f64,
        /// Forward calibration of the predictive temperature / std scale.
        #[serde(default)]
        calibrate: bool,
    },
    /// Bayesian linear regression on one-hot n-gram features of W (n = 1..=`order`, every
    /// position) with ridge `ridge`; continuous Z only, updated after every row (exact inverse
    /// up to [`MAX_LINEAR_FEATURES`] features, sparse sufficient statistics above).
    Linear { order: usize, ridge: f64 },
    /// Bayesian linear regression on sparse features of W, every feature ever seen: bag of
    /// words, word at position, bag of bigrams, bigram at position (continuous Z; see
    /// [`super::learners::sparse_linear`]).
    Sparse {
        #[serde(default)]
        words: bool,
        #[serde(default)]
        positions: bool,
        #[serde(default)]
        bigrams: bool,
        #[serde(default)]
        position_bigrams: bool,
        ridge: f64,
    },
    /// Z without W: a multivariate Gaussian with a shrunk covariance (continuous) or
    /// Krichevsky-Trofimov counts per attribute (discrete). The safe fallback, and part of the
    /// code of K(Z).
    Marginal,
    /// Z without W as whole objects (discrete Z): a memory of the objects sent, new ones drawn
    /// among those not sent yet ([`super::learners::objects`]).
    Objects,
    /// Each output (dimension or attribute) is a table over one n-gram of W (n = 0..=`order`)
    /// at an unknown position: conjugate cell estimates, Bayesian model averaging over the
    /// positions per output, updated after every row. See [`NgramTable`].
    Ngram { order: usize },
    /// Discrete Z only: whole-message memory backing off to per-attribute rules over
    /// positions and pairs of positions, bijection-aware, with exceptions. See
    /// [`super::learners::rules::RuleLearner`]. Settings: [`super::learners::rules::RuleSettings`] (all
    /// optional in a table; `rules:key=value:...` on the command line).
    Rules(super::learners::rules::RuleSettings),
    /// A GRU over the message (padding mask from [`OnlineConfig::pad`]; see
    /// [`crate::neural::gru`]) trained online like the MLP: replay, optional EMA, calibration.
    Gru {
        emb_dim: usize,
        hidden: usize,
        lr: f64,
        #[serde(default)]
        lr_decay_rows: usize,
        #[serde(default)]
        ema: f64,
        #[serde(default)]
        calibrate: bool,
    },
    /// Continuous Z of fixed-length W: Z as the root of a parse tree of W (word categories
    /// learned from W, tensor-product binding and linear rule maps fitted online). See
    /// [`super::learners::tree::TreeLearner`]; settings [`super::learners::tree::TreeSettings`].
    Tree(super::learners::tree::TreeSettings),
}

impl LearnerSpec {
    /// Short name for reports.
    pub fn name(&self) -> String {
        match self {
            LearnerSpec::Mlp {
                hidden,
                lr,
                ema,
                calibrate,
                ..
            } => {
                let h: Vec<String> = hidden.iter().map(|h| h.to_string()).collect();
                let mut s = if hidden.is_empty() {
                    format!("mlp-linear-lr{lr}")
                } else {
                    format!("mlp{}-lr{lr}", h.join("x"))
                };
                if *ema > 0.0 {
                    s.push_str("-ema");
                }
                if *calibrate {
                    s.push_str("-cal");
                }
                s
            }
            LearnerSpec::Linear { order, ridge } => format!("linear{order}-ridge{ridge}"),
            LearnerSpec::Sparse {
                words,
                positions,
                bigrams,
                position_bigrams,
                ridge,
            } => {
                let parts: Vec<&str> = [
                    (*words, "words"),
                    (*positions, "positions"),
                    (*bigrams, "bigrams"),
                    (*position_bigrams, "position-bigrams"),
                ]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, n)| *n)
                .collect();
                format!("sparse-{}-ridge{ridge}", parts.join("+"))
            }
            LearnerSpec::Marginal => "marginal".into(),
            LearnerSpec::Objects => "objects".into(),
            LearnerSpec::Ngram { order } => format!("ngram{order}"),
            LearnerSpec::Rules(s) => format!("rules{}", s.suffix()),
            LearnerSpec::Tree(_) => "tree".into(),
            LearnerSpec::Gru {
                hidden,
                lr,
                ema,
                calibrate,
                ..
            } => {
                let mut s = format!("gru{hidden}-lr{lr}");
                if *ema > 0.0 {
                    s.push_str("-ema");
                }
                if *calibrate {
                    s.push_str("-cal");
                }
                s
            }
        }
    }

    /// The default spec behind a learner's short name (`--learners`): marginal, ngram0..3,
    /// rules, tree, linear1, linear2, sparse, mlp-linear, mlp256, gru. `rules:key=value:...` sets the rule
    /// learner's [`super::learners::rules::RuleSettings`] ([`Self::parse`] says what is wrong).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::parse(name).ok()
    }

    /// [`Self::from_name`] with the reason of a refusal.
    pub fn parse(name: &str) -> std::result::Result<Self, String> {
        if let Some(rest) = name.strip_prefix("rules:") {
            return super::learners::rules::RuleSettings::parse(rest).map(LearnerSpec::Rules);
        }
        if let Some(rest) = name.strip_prefix("sparse:") {
            return Self::parse_sparse(rest);
        }
        let defaults = OnlineConfig::default().learners;
        let find = |p: fn(&LearnerSpec) -> bool| defaults.iter().find(|s| p(s)).cloned();
        let spec = match name {
            "marginal" => Some(LearnerSpec::Marginal),
            "objects" => Some(LearnerSpec::Objects),
            "sparse" => Some(LearnerSpec::default_sparse()),
            "rules" => Some(LearnerSpec::Rules(Default::default())),
            "tree" => Some(LearnerSpec::Tree(Default::default())),
            "gru" => Some(LearnerSpec::default_sequence()),
            "mlp-linear" => {
                find(|s| matches!(s, LearnerSpec::Mlp { hidden, .. } if hidden.is_empty()))
            }
            "mlp256" => find(|s| matches!(s, LearnerSpec::Mlp { hidden, .. } if hidden == &[256])),
            "linear1" => find(|s| matches!(s, LearnerSpec::Linear { order: 1, .. })),
            "linear2" => find(|s| matches!(s, LearnerSpec::Linear { order: 2, .. })),
            n => n
                .strip_prefix("ngram")
                .and_then(|o| o.parse().ok())
                .filter(|&o| o <= 3)
                .map(|order| LearnerSpec::Ngram { order }),
        };
        spec.ok_or_else(|| {
            format!(
                "unknown learner `{}` (marginal, objects, ngram0..ngram3, rules, \
                 rules:key=value:..., tree, linear1, linear2, sparse, sparse:words:bigrams:..., \
                 mlp-linear, mlp256, gru)",
                name.escape_debug()
            )
        })
    }

    /// The sparse linear learner of the default set: bag of words and bag of bigrams, ridge 5
    /// (on MiniLM embeddings of 5,000 English captions ridge 1, 2, 3, 5, 8, 12 give 6.66, 6.55,
    /// 6.51, 6.49, 6.50, 6.52 million bits; words at positions code worse than Z without W).
    pub fn default_sparse() -> Self {
        LearnerSpec::Sparse {
            words: true,
            positions: false,
            bigrams: true,
            position_bigrams: false,
            ridge: 5.0,
        }
    }

    /// Whether the learner reads W: those that do not (`marginal`, `objects`) run once, in the
    /// code of Z without W, which K(Z|W)'s mixture holds.
    pub fn reads_w(&self) -> bool {
        !matches!(self, LearnerSpec::Marginal | LearnerSpec::Objects)
    }

    /// Networks: trained by gradient steps, the slow learners. The online scheme runs them
    /// after the others and drops one that falls far behind ([`DROP_RATIO`]).
    pub fn is_network(&self) -> bool {
        matches!(self, LearnerSpec::Mlp { .. } | LearnerSpec::Gru { .. })
    }

    /// Whether the learner also runs with W withheld, in the code of K(Z): learners that
    /// never read W run there only; tables and rules run on a W of one constant token; a
    /// regression or a network on no input is a constant predictor, the marginal learner's
    /// class, and is left out (the reason is returned).
    pub fn without_w(&self) -> std::result::Result<(), &'static str> {
        match self {
            LearnerSpec::Marginal
            | LearnerSpec::Objects
            | LearnerSpec::Ngram { .. }
            | LearnerSpec::Rules(_) => Ok(()),
            LearnerSpec::Linear { .. } | LearnerSpec::Sparse { .. } => Err(
                "without W an intercept and the residual covariance: the marginal learner's class",
            ),
            LearnerSpec::Mlp { .. } | LearnerSpec::Gru { .. } => {
                Err("a network over no input predicts a constant: the marginal learner's class")
            }
            LearnerSpec::Tree(_) => {
                Err("a tree over a constant W is one vector: the marginal learner's class")
            }
        }
    }

    /// `sparse:` settings: feature kinds (`words`, `positions`, `bigrams`,
    /// `position-bigrams`; any named replace the default words + bigrams) and `ridge=R`,
    /// `:`-separated.
    fn parse_sparse(rest: &str) -> std::result::Result<Self, String> {
        let LearnerSpec::Sparse { mut ridge, .. } = Self::default_sparse() else {
            unreachable!("the default sparse spec is sparse")
        };
        let mut f = [false; 4];
        for part in rest.split(':').filter(|p| !p.is_empty()) {
            match part {
                "words" => f[0] = true,
                "positions" => f[1] = true,
                "bigrams" => f[2] = true,
                "position-bigrams" => f[3] = true,
                p => match p.strip_prefix("ridge=").map(str::parse::<f64>) {
                    Some(Ok(r)) if r.is_finite() && r > 0.0 => ridge = r,
                    _ => {
                        return Err(format!(
                            "sparse learner setting `{}`: expected words, positions, bigrams, \
                             position-bigrams or ridge=R (R > 0)",
                            p.escape_debug()
                        ));
                    }
                },
            }
        }
        if !f.iter().any(|&x| x) {
            f = [true, false, true, false];
        }
        Ok(LearnerSpec::Sparse {
            words: f[0],
            positions: f[1],
            bigrams: f[2],
            position_bigrams: f[3],
            ridge,
        })
    }

    /// The sequence learner added to the learner set when W is padded ([`OnlineConfig::pad`]).
    pub fn default_sequence() -> Self {
        LearnerSpec::Gru {
            emb_dim: 16,
            hidden: 64,
            lr: 0.01,
            lr_decay_rows: 200,
            ema: 0.0,
            calibrate: true,
        }
    }
}

/// Settings of the online scheme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OnlineConfig {
    /// Rows sent first with the naive code (the learners start after them), continuous Z.
    pub first: usize,
    /// The same for discrete Z: the rule learner codes the second row better than the
    /// uniform code does, so one naive row suffices.
    pub first_discrete: usize,
    /// Geometric block schedule of the neural learners: the block after `t` sent rows has
    /// `max(min_block, growth * t)` rows.
    pub growth: f64,
    /// Smallest block.
    pub min_block: usize,
    /// Replay passes per update: `epochs * sent / batch_size` Adam steps (at least one pass
    /// over the new block, at most `max_steps`).
    pub epochs: f64,
    /// Cap on Adam steps per update.
    pub max_steps: usize,
    /// Mini-batch size.
    pub batch_size: usize,
    /// Rows of recent predictions the calibration is fitted on.
    pub calib_window: usize,
    /// The learners, run side by side (each a table, or a short name: [`LearnerSpec::from_name`]).
    #[serde(deserialize_with = "learners_by_name_or_spec")]
    pub learners: Vec<LearnerSpec>,
    /// How their codes are combined.
    pub mixing: super::switching::Mixing,
    /// The padding token of variable-length messages (W padded at the end to the longest
    /// message). When set, the learner set also holds a GRU over the message with this
    /// padding mask ([`LearnerSpec::default_sequence`], unless `learners` lists a GRU).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pad: Option<u32>,
}

/// Learner entries: a short name or a full table (serde `deserialize_with` for every config that
/// lists learners).
pub fn learners_by_name_or_spec<'de, D>(d: D) -> std::result::Result<Vec<LearnerSpec>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error;
    Vec::<toml::Value>::deserialize(d)?
        .into_iter()
        .map(|v| match v {
            toml::Value::String(n) => LearnerSpec::parse(&n).map_err(D::Error::custom),
            other => other.try_into().map_err(D::Error::custom),
        })
        .collect()
}

impl Default for OnlineConfig {
    fn default() -> Self {
        OnlineConfig {
            first: 4,
            first_discrete: 1,
            growth: 0.1,
            min_block: 4,
            epochs: 10.0,
            max_steps: 1000,
            batch_size: 32,
            calib_window: 256,
            learners: vec![
                LearnerSpec::Marginal,
                LearnerSpec::Objects,
                LearnerSpec::Ngram { order: 3 },
                LearnerSpec::Rules(Default::default()),
                LearnerSpec::Linear {
                    order: 1,
                    ridge: 1e-2,
                },
                LearnerSpec::Linear {
                    order: 2,
                    ridge: 1e-2,
                },
                LearnerSpec::default_sparse(),
                LearnerSpec::Mlp {
                    emb_dim: 16,
                    hidden: vec![],
                    lr: 0.01,
                    lr_decay_rows: 200,
                    ema: 0.0,
                    calibrate: true,
                },
                LearnerSpec::Mlp {
                    emb_dim: 16,
                    hidden: vec![256],
                    lr: 0.003,
                    lr_decay_rows: 200,
                    ema: 0.0,
                    calibrate: true,
                },
                LearnerSpec::Tree(Default::default()),
            ],
            mixing: super::switching::Mixing::default(),
            pad: None,
        }
    }
}

impl OnlineConfig {
    /// Whether these are the default settings (left out of serialised configurations).
    pub fn is_default(&self) -> bool {
        *self == OnlineConfig::default()
    }

    /// Checks the settings (errors name the parameter).
    pub fn validate(&self) -> Result<()> {
        if !(self.growth.is_finite() && self.growth > 0.0) {
            return Err(KcompError::param("online.growth", "must be positive"));
        }
        if self.min_block == 0 || self.batch_size == 0 || self.max_steps == 0 {
            return Err(KcompError::param(
                "online",
                "min_block, batch_size and max_steps must be >= 1",
            ));
        }
        if !(self.epochs.is_finite() && self.epochs >= 0.0) {
            return Err(KcompError::param("online.epochs", "must be >= 0"));
        }
        if self.learners.is_empty() {
            return Err(KcompError::param("online.learners", "needs >= 1 learner"));
        }
        for l in &self.learners {
            match l {
                LearnerSpec::Mlp {
                    emb_dim, lr, ema, ..
                } => {
                    if *emb_dim == 0 || !(lr.is_finite() && *lr > 0.0 && *lr <= 10.0) {
                        return Err(KcompError::param(
                            "online.learners",
                            "an MLP needs emb_dim >= 1 and lr in (0, 10]",
                        ));
                    }
                    if !(0.0..1.0).contains(ema) {
                        return Err(KcompError::param(
                            "online.learners",
                            "ema must be in [0, 1)",
                        ));
                    }
                }
                LearnerSpec::Linear { order, ridge } => {
                    if *order == 0 || !(ridge.is_finite() && *ridge > 0.0) {
                        return Err(KcompError::param(
                            "online.learners",
                            "a linear learner needs order >= 1 and ridge > 0",
                        ));
                    }
                }
                LearnerSpec::Gru {
                    emb_dim,
                    hidden,
                    lr,
                    ema,
                    ..
                } => {
                    if *emb_dim == 0
                        || *hidden == 0
                        || !(lr.is_finite() && *lr > 0.0 && *lr <= 10.0)
                        || !(0.0..1.0).contains(ema)
                    {
                        return Err(KcompError::param(
                            "online.learners",
                            "a GRU needs emb_dim >= 1, hidden >= 1, lr in (0, 10], ema in [0, 1)",
                        ));
                    }
                }
                LearnerSpec::Rules(s) => {
                    s.validate()
                        .map_err(|e| KcompError::param("online.learners", e))?;
                }
                LearnerSpec::Sparse {
                    words,
                    positions,
                    bigrams,
                    position_bigrams,
                    ridge,
                } => {
                    if !(ridge.is_finite() && *ridge > 0.0) {
                        return Err(KcompError::param(
                            "online.learners",
                            "a sparse linear learner needs ridge > 0",
                        ));
                    }
                    if !(*words || *positions || *bigrams || *position_bigrams) {
                        return Err(KcompError::param(
                            "online.learners",
                            "a sparse linear learner needs at least one of words, positions, \
                             bigrams, position_bigrams",
                        ));
                    }
                }
                LearnerSpec::Tree(s) => {
                    s.validate()
                        .map_err(|e| KcompError::param("online.learners", e))?;
                }
                LearnerSpec::Marginal | LearnerSpec::Objects => {}
                LearnerSpec::Ngram { order } => {
                    if *order > 3 {
                        return Err(KcompError::param(
                            "online.learners",
                            "an n-gram table learner takes order <= 3",
                        ));
                    }
                }
            }
        }
        self.mixing.validate()
    }

    /// The large allocations of an online run, in bytes (`f64`: absurd sizes cannot
    /// overflow). Every learner lives until the end of the run: per network its parameters,
    /// gradients and Adam moments (and EMA), f32, and the activations of an evaluation batch;
    /// the n-gram tables' cells and the linear learners' F x F inverse, f64; the data and every
    /// learner's per-row bits.
    pub fn memory_terms(&self, w: &TokenData, z: &Targets) -> Vec<(&'static str, f64)> {
        let rows = w.n as f64;
        let outputs = super::code::model_spec(w, z, &Default::default())
            .head
            .n_outputs() as f64;
        let (n_out, per_cell) = match z {
            Targets::Continuous { dim, .. } => (*dim as f64, 2.0),
            Targets::Discrete { n_attr, n_vals, .. } => (*n_attr as f64, *n_vals as f64),
        };
        let batch = rows.min(512.0);
        let (vocab, words) = (w.vocab as f64, w.n_words as f64);
        let (mut nets, mut tables) = (0.0, 0.0);
        let this = self.for_data(w);
        let specs = this.learner_set();
        for spec in &specs {
            match spec {
                LearnerSpec::Mlp {
                    emb_dim,
                    hidden,
                    ema,
                    ..
                } => {
                    let mut widths = vec![words * *emb_dim as f64];
                    widths.extend(hidden.iter().map(|&h| h as f64));
                    widths.push(outputs);
                    let params = vocab * *emb_dim as f64
                        + widths.windows(2).map(|p| p[0] * p[1] + p[1]).sum::<f64>();
                    let copies = if *ema > 0.0 { 5.0 } else { 4.0 };
                    nets += params * copies * 4.0 + batch * widths.iter().sum::<f64>() * 8.0;
                }
                LearnerSpec::Gru {
                    emb_dim,
                    hidden,
                    ema,
                    ..
                } => {
                    let (e, h) = (*emb_dim as f64, *hidden as f64);
                    let params = vocab * e + (e + h + 2.0) * 3.0 * h + (h + 1.0) * outputs;
                    let copies = if *ema > 0.0 { 5.0 } else { 4.0 };
                    nets += params * copies * 4.0 + batch * (words * (e + 5.0 * h) + h) * 4.0;
                }
                LearnerSpec::Ngram { order } => {
                    let mut cells = 1.0;
                    for n in 1..=(*order).min(w.n_words) {
                        let per = vocab.powi(n as i32).min(MAX_NGRAM_CELLS as f64);
                        cells += per * (words - n as f64 + 1.0);
                    }
                    let bytes = n_out * cells.min(MAX_NGRAM_CELLS as f64) * per_cell * 8.0;
                    // As `NgramTable::new`: candidates are left out beyond the byte limit.
                    tables += bytes.min(super::learners::ngram::MAX_NGRAM_BYTES);
                }
                LearnerSpec::Linear { order, .. } if matches!(z, Targets::Continuous { .. }) => {
                    // As `BayesLinear::new`: a bias and one-hot n-grams at every position;
                    // beyond MAX_LINEAR_FEATURES it does not run (it says why).
                    let f = 1.0
                        + (1..=(*order).min(w.n_words))
                            .map(|n| (words - n as f64 + 1.0) * vocab.powi(n as i32))
                            .sum::<f64>();
                    if f <= MAX_LINEAR_FEATURES as f64 {
                        tables += f * f * 8.0 + f * n_out * 8.0;
                    }
                }
                LearnerSpec::Sparse {
                    words: bag,
                    positions,
                    bigrams,
                    position_bigrams,
                    ridge,
                } if matches!(z, Targets::Continuous { .. }) => {
                    let settings = super::learners::SparseSettings {
                        features: super::learners::FeatureSet {
                            words: *bag,
                            positions: *positions,
                            bigrams: *bigrams,
                            position_bigrams: *position_bigrams,
                        },
                        ridge: *ridge,
                        cg_iterations: 0,
                        refit_growth: 0.0,
                    };
                    let pad = super::learners::padding_token(&this, w);
                    tables += super::learners::SparseLinear::memory_bytes(
                        w,
                        n_out as usize,
                        settings,
                        pad,
                    );
                }
                LearnerSpec::Linear { .. } | LearnerSpec::Sparse { .. } => {}
                LearnerSpec::Objects => {
                    if let Targets::Discrete { n_attr, .. } = z {
                        tables += rows * (*n_attr as f64 * 4.0 + 64.0);
                    }
                }
                LearnerSpec::Rules(s) => {
                    if let Targets::Discrete { n_attr, n_vals, .. } = z {
                        // Worst case as `RuleLearner::new`: every row opens a cell per
                        // context and basis (values, plus a total and an assignment each).
                        let padded =
                            this.pad.is_some() || super::padding::detect_padding(w).is_some();
                        let counts = super::learners::rules::RuleLearner::worst_counts(
                            w.n, w.n_words, *n_attr, *n_vals, s, padded,
                        );
                        if counts <= super::learners::rules::MAX_RULE_COUNTS as f64 {
                            tables += counts * (1.0 + 2.0 / *n_vals as f64) * 8.0;
                        }
                    }
                }
                LearnerSpec::Marginal => {
                    if let Targets::Continuous { dim, .. } = z {
                        // The moments, the covariance and its factor.
                        tables += 3.0 * (*dim * *dim) as f64 * 8.0;
                    }
                }
                LearnerSpec::Tree(s) => {
                    tables += super::learners::tree::TreeLearner::memory_bytes(w, z, s);
                }
            }
        }
        let calib = self.calib_window as f64 * outputs * 4.0 * specs.len() as f64;
        vec![
            ("learner networks", nets + calib),
            ("learner tables", tables),
            (
                "w/z rows",
                rows * (words * 4.0 + z.width() as f64 * 8.0 + 8.0 * (specs.len() + 1) as f64),
            ),
        ]
    }

    /// These settings for W: the padding token W carries (kcomp's own padding of a ragged or
    /// text W, or a user's `--pad` translated to W's dense ids) replaces `pad`.
    pub fn for_data(&self, w: &TokenData) -> OnlineConfig {
        OnlineConfig {
            pad: w.pad.or(self.pad),
            ..self.clone()
        }
    }

    /// The learners run on the data: `learners`, plus the default sequence learner when W is
    /// padded and no GRU is listed.
    pub fn learner_set(&self) -> Vec<LearnerSpec> {
        let mut l = self.learners.clone();
        if self.pad.is_some() && !l.iter().any(|s| matches!(s, LearnerSpec::Gru { .. })) {
            l.push(LearnerSpec::default_sequence());
        }
        l
    }

    /// Rows sent with the naive code before the learners start, for targets `z`.
    pub fn first_rows(&self, z: &Targets) -> usize {
        match z {
            Targets::Discrete { .. } => self.first_discrete,
            Targets::Continuous { .. } => self.first,
        }
    }

    /// Update points of the geometric schedule for `n` rows: `first`, then growing blocks.
    pub fn boundaries(&self, n: usize) -> Vec<usize> {
        self.boundaries_from(self.first, n)
    }

    /// [`Self::boundaries`] with `first` naive rows.
    pub fn boundaries_from(&self, first: usize, n: usize) -> Vec<usize> {
        let mut b = vec![first.min(n)];
        let mut t = b[0];
        while t < n {
            let step = ((t as f64 * self.growth).ceil() as usize).max(self.min_block);
            t = (t + step).min(n);
            b.push(t);
        }
        b
    }
}

/// The update points a learner codes by (its own block size, or `bounds`), after it learned
/// the rows before `bounds[0]` (sent with the naive code).
fn start_learner<'a>(
    learner: &mut dyn OnlineLearner,
    w: &TokenData,
    z: &Targets,
    order: &[usize],
    bounds: &'a [usize],
) -> std::borrow::Cow<'a, [usize]> {
    let (first, n) = (bounds[0], order.len());
    let own = match learner.block_rows() {
        Some(k) => (first..n).step_by(k.max(1)).chain([n]).collect(),
        None => bounds.into(),
    };
    if first > 0 {
        learner.learn(w, z, &order[..first], first);
    }
    own
}

/// Codes `order[first..]` with `learner`, block by block, each block before it is learned.
/// `bounds` are the update points (from `first` to `order.len()`) used when the learner has
/// no block size of its own. Returns per-row bits of `order[first..]`.
pub fn run_learner(
    learner: &mut dyn OnlineLearner,
    w: &TokenData,
    z: &Targets,
    order: &[usize],
    bounds: &[usize],
) -> Vec<f64> {
    let first = bounds[0];
    let n = order.len();
    let bounds = start_learner(learner, w, z, order, bounds);
    let mut bits = Vec::with_capacity(n - first);
    for win in bounds.windows(2) {
        let (a, b) = (win[0], win[1]);
        if a == b {
            continue;
        }
        bits.extend(learner.code(w, z, &order[a..b]));
        learner.learn(w, z, &order[..b], b - a);
    }
    bits
}

/// The tree learner's seed stream (the index it had when its sweeps were measured).
const TREE_SEED_STREAM: u64 = 1_000_006;

/// Prior log2 weights of the learners in the mixture: uniform, except that rule learners (which
/// run on discrete Z only, and whose hypotheses include Z without W and one-position tables,
/// the marginal and n-gram learners' classes) share 3/4 of the mass and the others the rest.
/// On discrete codes of a few tens of bits, log2 K of a uniform prior over K learners is a
/// visible share; this costs 0.42 bit instead when a rule learner is best (2 bits more than a
/// uniform prior over 3 when another one is, which is rare).
pub fn learner_prior(is_rules: &[bool]) -> Vec<f64> {
    const RULES_PRIOR: f64 = 0.75;
    let k = is_rules.len();
    let r = is_rules.iter().filter(|&&x| x).count();
    if r == 0 || r == k {
        return vec![-(k as f64).log2(); k];
    }
    is_rules
        .iter()
        .map(|&x| {
            if x {
                RULES_PRIOR.log2() - (r as f64).log2()
            } else {
                (1.0 - RULES_PRIOR).log2() - ((k - r) as f64).log2()
            }
        })
        .collect()
}

/// Per-row naive bits of the first block: its naive code spread evenly (only the sum counts).
pub fn first_block_bits(z: &Targets, rows: &[usize]) -> Vec<f64> {
    if rows.is_empty() {
        return Vec::new();
    }
    let b = naive_bits(z, rows) / rows.len() as f64;
    vec![b; rows.len()]
}

/// Least prior weight of the code of Z without W in the mixture of K(Z|W): K(Z|W) <= K(Z) + 5
/// bits (so an unrelated W gets C = K(Z)/K(Z|W) of 1 less 5 bits at most). The code without W
/// takes the place the marginal learner had among the learners that read W before it (see
/// [`with_without_w_prior`]); this floor applies only past 8 such places.
pub const WITHOUT_W_PRIOR: f64 = 1.0 / 32.0;

/// Prior log2 weights of the switching side of K(Z|W)'s mixture on discrete Z: the learners
/// that read W and the marginal learner at [`learner_prior`], the code of Z without W not held
/// (-inf; see [`mix_runs`]).
fn switch_side_prior(is_rules: &[bool]) -> Vec<f64> {
    let mut with_marginal = is_rules.to_vec();
    with_marginal.push(false);
    let mut prior = learner_prior(&with_marginal);
    prior.push(f64::NEG_INFINITY);
    prior
}

/// Prior log2 weights of K(Z|W)'s mixture: the learners that read W (`is_rules` marks rule
/// learners) and, last, the code of Z without W, which counts as one more learner that is not a
/// rule learner ([`learner_prior`]): the place of the marginal learner, which read no W either
/// and was one of the mixed learners before the code without W was. Rule learners keep their
/// 3/4, so where they win from the first rows (discrete families, codes of 10-30 bits) nothing
/// moves; where the marginal code wins the first rows (string-to-grid 5 x 5 at N = 500) the
/// mixture follows it at the cost it had (a prior of 1/32 instead cost 3 bits more there, and
/// taking 1/32 from every learner 0.05-0.1 bit on every discrete run). With more than 8 such
/// places the code without W gets [`WITHOUT_W_PRIOR`] and the others share the rest as before.
fn with_without_w_prior(is_rules: &[bool]) -> Vec<f64> {
    let mut with = is_rules.to_vec();
    with.push(false);
    let prior = learner_prior(&with);
    if prior[prior.len() - 1] >= WITHOUT_W_PRIOR.log2() {
        return prior;
    }
    let mut prior = learner_prior(is_rules);
    prior
        .iter_mut()
        .for_each(|w| *w += (1.0 - WITHOUT_W_PRIOR).log2());
    prior.push(WITHOUT_W_PRIOR.log2());
    prior
}

/// A network (trained by gradient steps, run after the other learners) is dropped once, after
/// [`DROP_MIN_ROWS`] rows, its code of the rows so far exceeds the mixture of the learners that ran before it by more than
/// this fraction and [`DROP_SLACK_BITS`]: its weight in the mixture is then below 2^-1000 and
/// it has fallen out of the race for good, while its training would cost most of the run's
/// time (on 384-dimensional sentence embeddings one network diverged to 13-405 million bits,
/// 8x K(Z)). The decision at each row uses only the rows coded, so the code stays valid; a
/// learner whose code is not finite is dropped at once.
pub const DROP_RATIO: f64 = 0.2;

/// See [`DROP_RATIO`].
pub const DROP_SLACK_BITS: f64 = 1000.0;

/// Rows a network codes before it can be dropped ([`DROP_RATIO`]): the first rows of any
/// learner are costly.
pub const DROP_MIN_ROWS: usize = 100;

/// What happened to a learner in an online run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LearnerStatus {
    /// Coded every row.
    #[default]
    Ran,
    /// Does not apply to these data (the note says why).
    Skipped,
    /// Left the mixture part-way (the note says at which row and why).
    Dropped,
}

/// One learner's total in an online run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnerTotal {
    pub name: String,
    /// Its own code of the rows it coded after the first block, bits.
    pub bits: f64,
    /// Its mixture weight after the last row.
    pub final_weight: f64,
    /// Share of the mixture's bits it won (each row's bits split by the learners' posterior
    /// responsibilities): which learner the code rests on.
    #[serde(default)]
    pub share: f64,
    /// Ran, skipped or dropped.
    #[serde(default)]
    pub status: LearnerStatus,
    /// Why it was skipped or dropped, or what to know about how it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Part of the code of Z without W (K(Z), a component of K(Z|W)'s mixture) rather than a
    /// learner that reads W.
    #[serde(default)]
    pub without_w: bool,
}

/// The learners of an online run as a text table: name, own code, share of K(Z|W)'s bits,
/// final weight and status, the code of Z without W's learners marked, then every skipped or
/// dropped learner's reason and every note.
pub fn learner_table(learners: &[LearnerTotal]) -> String {
    let width = learners
        .iter()
        .map(|l| l.name.len())
        .max()
        .unwrap_or(0)
        .max(20);
    let mut text = format!(
        "{:<width$} {:>14} {:>9} {:>12}  status\n",
        "learner", "own code bits", "share %", "final weight"
    );
    for l in learners {
        let status = match l.status {
            LearnerStatus::Ran => "ran",
            LearnerStatus::Skipped => "skipped",
            LearnerStatus::Dropped => "dropped",
        };
        let bits = if l.status == LearnerStatus::Skipped {
            "-".to_string()
        } else {
            format!("{:.1}", l.bits)
        };
        // A padding token the rule learner read is said in a note under the table.
        let name = l
            .name
            .split_once("+pad=")
            .map_or(l.name.as_str(), |(n, _)| n);
        text += &format!(
            "{:<width$} {:>14} {:>9.1} {:>12.3}  {status}{}\n",
            name,
            bits,
            100.0 * l.share,
            l.final_weight,
            if l.without_w {
                " (code of Z without W)"
            } else {
                ""
            },
        );
    }
    for l in learners {
        if let Some(n) = &l.note {
            text += &format!("  {}: {}\n", l.name, n);
        }
    }
    text
}

/// A learner's run: its per-row bits (+inf after a drop), its note, and the drop reason.
struct LearnerRun {
    name: String,
    bits: Vec<f64>,
    note: Option<String>,
    dropped: Option<String>,
    is_rules: bool,
    /// Whether the learner reads W (one that does not is run once, in the code without W).
    reads_w: bool,
    learner: Option<Box<dyn OnlineLearner>>,
}

/// The code of Z without W: K(Z) of the online scheme, coded by the same learners as K(Z|W)
/// with W withheld (those that never read W, and tables and rules on a W of one constant
/// token); the mixture of K(Z|W) holds it as one component.
#[derive(Debug, Clone, PartialEq)]
pub struct WithoutWCode {
    /// Bits of every row in coding order (the first block's naive code spread evenly).
    pub row_bits: Vec<f64>,
    /// The first block's naive bits.
    pub first_bits: f64,
    /// K(Z), bits.
    pub total: f64,
    /// Its learners (shares of this code's bits).
    pub learners: Vec<LearnerTotal>,
    /// The marginal learner's own bits of the rows after the first block, when it ran: the
    /// switching side of K(Z|W)'s mixture holds it as a learner (see [`mix_runs`]).
    pub marginal_bits: Option<Vec<f64>>,
}

/// Runs `spec` on `w` (or skips it with the reason), watching its cumulative code against
/// `reference` (per-row bits of the same rows) when given.
#[allow(clippy::too_many_arguments)]
fn run_spec(
    spec: &LearnerSpec,
    oc: &OnlineConfig,
    w: &TokenData,
    z: &Targets,
    order: &[usize],
    bounds: &[usize],
    seed: u64,
    reference: Option<&[f64]>,
    suffix: &str,
) -> std::result::Result<LearnerRun, (String, String)> {
    let name = format!("{}{suffix}", spec.name());
    let mut l = build_online_learner(spec, oc, w, z, seed).map_err(|e| (name.clone(), e))?;
    let (bits, dropped) = run_learner_watched(l.as_mut(), w, z, order, bounds, reference);
    Ok(LearnerRun {
        name: format!("{}{suffix}", l.name()),
        note: l.note(),
        bits,
        dropped,
        is_rules: matches!(spec, LearnerSpec::Rules(_)),
        reads_w: l.reads_w(),
        learner: Some(l),
    })
}

/// [`run_learner`], stopping the learner once its code falls behind `reference` (see
/// [`DROP_RATIO`]) or is not finite; the rows after the drop get +inf bits (probability 0: the
/// mixture gives the learner no weight from then on). Returns the bits and the drop reason.
pub fn run_learner_watched(
    learner: &mut dyn OnlineLearner,
    w: &TokenData,
    z: &Targets,
    order: &[usize],
    bounds: &[usize],
    reference: Option<&[f64]>,
) -> (Vec<f64>, Option<String>) {
    let first = bounds[0];
    let n = order.len();
    let bounds = start_learner(learner, w, z, order, bounds);
    let mut bits = Vec::with_capacity(n - first);
    let (mut mine, mut theirs) = (0.0, 0.0);
    for win in bounds.windows(2) {
        let (a, b) = (win[0], win[1]);
        if a == b {
            continue;
        }
        let block = learner.code(w, z, &order[a..b]);
        mine += block.iter().sum::<f64>();
        bits.extend(block);
        let why = if !mine.is_finite() {
            Some(format!("its code of row {b} is not finite (diverged)"))
        } else if let Some(r) = reference {
            theirs += r[a - first..b - first].iter().sum::<f64>();
            let behind = mine > theirs * (1.0 + DROP_RATIO) + DROP_SLACK_BITS;
            (behind && b - first >= DROP_MIN_ROWS).then(|| {
                format!(
                    "after {b} rows its code ({mine:.0} bits) was more than {:.0} % + {:.0} bits \
                     above the mixture of the other learners ({theirs:.0} bits)",
                    100.0 * DROP_RATIO,
                    DROP_SLACK_BITS
                )
            })
        } else {
            None
        };
        if let Some(why) = why {
            bits.resize(n - first, f64::INFINITY);
            return (bits, Some(why));
        }
        learner.learn(w, z, &order[..b], b - a);
    }
    (bits, None)
}

/// Mixes finished runs (plus the marginal learner's bits `marginal` and, last, the code
/// without W's per-row bits `extra`) and returns the per-row bits and the learners' totals.
///
/// K(Z|W)'s mixture (`extra` given, [`Mixing::Hedged`], `marginal` given: discrete Z) has sides
/// that hold different components ([`Mixture::hedged_sides`]):
/// - the Bayesian side: the learners that read W and the code without W as one more learner
///   ([`with_without_w_prior`]), so that K(Z|W) <= K(Z) + 3.4 bits (5.4 past 8 learners)
///   whatever W is;
/// - the switching side: the learners that read W and the marginal learner itself at
///   [`learner_prior`]: the mixture K(Z|W) had before the code without W joined it.
///
/// Why not the code without W in the marginal's place on both sides: a switching code that
/// holds a nested switching code cannot go back to the marginal once the nested code moved
/// on to another of its learners (string-to-grid 5 x 5, h = 0.5, N = 500, seed 2: after row
/// 3 it followed `objects` and paid 2.6 bits more than the marginal at row 8), and on the
/// first rows, which the marginal codes best, the nested code pays its own prior over its
/// learners (1 bit at h = 0, seed 2); 11 of 45 string-to-grid runs (N = 500-1,024) were up to
/// 1.4 bits longer than with the marginal. Holding both the marginal and the code without W
/// on the switching side made protocols up to 2.2 bits longer (one more component to switch
/// among). Other mixings hold the Bayesian side's components at its prior.
fn mix_runs(
    runs: &[LearnerRun],
    marginal: Option<&[f64]>,
    extra: Option<&[f64]>,
    mixing: super::switching::Mixing,
    without_w: bool,
) -> (super::switching::Mixed, Vec<LearnerTotal>) {
    use super::switching::{Mixing, Mixture, mix_in};
    let mut per: Vec<Vec<f64>> = runs.iter().map(|r| r.bits.clone()).collect();
    // Without W the rule learner is a memory of objects and per-attribute counts, no more
    // general than the others; the objects learner, whose hypotheses hold the marginal's and
    // the memory's, takes half of the prior there.
    let is_rules: Vec<bool> = runs.iter().map(|r| r.is_rules && !without_w).collect();
    let mut prior = learner_prior(&is_rules);
    if without_w
        && runs.len() > 1
        && let Some(k) = runs.iter().position(|r| r.name == "objects")
    {
        let rest = (0.5 / (runs.len() - 1) as f64).log2();
        prior = (0..runs.len())
            .map(|i| if i == k { -1.0 } else { rest })
            .collect();
    }
    let mixture = match (extra, marginal, mixing) {
        (None, _, _) => Mixture::with_prior(prior, mixing),
        (Some(bits), Some(m), Mixing::Hedged) => {
            let mut bayes = with_without_w_prior(&is_rules);
            bayes.insert(runs.len(), f64::NEG_INFINITY);
            per.push(m.to_vec());
            per.push(bits.to_vec());
            Mixture::hedged_sides(bayes, switch_side_prior(&is_rules))
        }
        (Some(bits), _, _) => {
            per.push(bits.to_vec());
            Mixture::with_prior(with_without_w_prior(&is_rules), mixing)
        }
    };
    let mixed = mix_in(&per, mixture);
    let totals = runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let coded: Vec<f64> = r.bits.iter().copied().filter(|b| b.is_finite()).collect();
            let (status, note) = match &r.dropped {
                Some(why) => (
                    LearnerStatus::Dropped,
                    Some(match &r.note {
                        Some(n) => format!("dropped: {why}; {n}"),
                        None => format!("dropped: {why}"),
                    }),
                ),
                None => (LearnerStatus::Ran, r.note.clone()),
            };
            LearnerTotal {
                name: r.name.clone(),
                bits: coded.iter().sum(),
                final_weight: mixed.final_weights[k],
                share: mixed.shares[k],
                status,
                note,
                without_w,
            }
        })
        .collect();
    (mixed, totals)
}

fn skipped(name: String, why: String, without_w: bool) -> LearnerTotal {
    LearnerTotal {
        name,
        bits: 0.0,
        final_weight: 0.0,
        share: 0.0,
        status: LearnerStatus::Skipped,
        note: Some(why),
        without_w,
    }
}

/// One learner run to do: its index in the learner set, its spec, the W it reads (the data's
/// or the blind one) and the suffix of its name.
type Job<'a> = (usize, &'a LearnerSpec, &'a TokenData, &'static str);

/// Seed salt of the learners that read W and of those coding Z without W.
const SALT_W: u64 = 1_000_003;
const SALT_WITHOUT_W: u64 = 2_000_003;
const WITHOUT_W: &str = " (without W)";

/// Runs `jobs` in parallel (one thread each) and returns the runs in job order, or each
/// skipped learner's name and reason.
#[allow(clippy::too_many_arguments)]
fn run_all(
    jobs: &[Job],
    oc: &OnlineConfig,
    z: &Targets,
    order: &[usize],
    bounds: &[usize],
    cfg: &PrequentialConfig,
    reference: Option<&[f64]>,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Vec<std::result::Result<LearnerRun, (String, String)>>> {
    let work = || {
        use rayon::prelude::*;
        jobs.par_iter()
            .with_max_len(1)
            .map(|&(k, spec, w, suffix)| {
                let salt = if suffix.is_empty() {
                    SALT_W
                } else {
                    SALT_WITHOUT_W
                };
                // The tree learner draws from a stream of its own: naming it leaves every other
                // learner's seed (and number) unchanged.
                let seed = match spec {
                    LearnerSpec::Tree(_) => derive_seed(cfg.seed, TREE_SEED_STREAM),
                    _ => derive_seed(cfg.seed, salt + k as u64),
                };
                let r = run_spec(spec, oc, w, z, order, bounds, seed, reference, suffix);
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                r
            })
            .collect::<Vec<_>>()
    };
    in_pool(cfg.threads, work)
}

/// The codes of Z without W computed in this process, by data and settings: `compare` computes
/// the dataset's K(Z) and then the estimator's K(Z|W), which mixes the same code in (at
/// N = 29,000 sentence embeddings it takes 8 s). Bounded; results are identical either way.
type CacheKey = (u64, String);
static WITHOUT_W_CACHE: std::sync::Mutex<Vec<(CacheKey, std::sync::Arc<WithoutWCode>)>> =
    std::sync::Mutex::new(Vec::new());
const CACHE_ENTRIES: usize = 8;

fn cache_key(z: &Targets, cfg: &PrequentialConfig) -> CacheKey {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match z {
        Targets::Discrete {
            n_attr,
            n_vals,
            values,
        } => (0u8, n_attr, n_vals, values).hash(&mut h),
        Targets::Continuous { dim, lam, grid } => (1u8, dim, lam.to_bits(), grid).hash(&mut h),
    }
    let settings = serde_json::to_string(&(&cfg.online, cfg.seed, cfg.ordering.for_code_length()))
        .unwrap_or_default();
    (h.finish(), settings)
}

fn cached(key: &CacheKey) -> Option<std::sync::Arc<WithoutWCode>> {
    let cache = WITHOUT_W_CACHE.lock().ok()?;
    cache.iter().find(|(k, _)| k == key).map(|(_, c)| c.clone())
}

fn remember(key: CacheKey, code: &WithoutWCode) {
    if let Ok(mut cache) = WITHOUT_W_CACHE.lock() {
        if cache.iter().any(|(k, _)| *k == key) {
            return;
        }
        if cache.len() >= CACHE_ENTRIES {
            cache.remove(0);
        }
        cache.push((key, std::sync::Arc::new(code.clone())));
    }
}

/// The code of Z without W for the online scheme's settings `cfg` ([`WithoutWCode`]).
pub fn without_w_code(
    z: &Targets,
    cfg: &PrequentialConfig,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<WithoutWCode> {
    let oc = &cfg.online;
    oc.validate()?;
    let key = cache_key(z, cfg);
    if let Some(c) = cached(&key) {
        return Ok((*c).clone());
    }
    let order = order_rows(z, cfg.ordering.for_code_length(), cfg.seed);
    let first = oc.first_rows(z);
    check_first(z, first, order.len())?;
    let bounds = oc.boundaries_from(first, order.len());
    let blind = TokenData::blind(order.len());
    let specs = oc.learner_set();
    let (todo, skipped_here) = without_w_plan(&specs);
    let jobs: Vec<Job> = todo
        .iter()
        .map(|&(k, s)| (k, s, &blind, WITHOUT_W))
        .collect();
    let results = run_all(&jobs, oc, z, &order, &bounds, cfg, None, progress)?;
    let code = without_w_mix(results, skipped_here, z, &order, &bounds, oc)?;
    remember(key, &code);
    Ok(code)
}

fn check_first(z: &Targets, first: usize, n: usize) -> Result<()> {
    if first >= n {
        let key = match z {
            Targets::Discrete { .. } => "online.first_discrete",
            Targets::Continuous { .. } => "online.first",
        };
        return Err(KcompError::param(
            key,
            format!("{first} naive rows leave nothing to learn from out of {n}"),
        ));
    }
    Ok(())
}

/// The learners of the code of Z without W (by index in `specs`; `marginal` appended when the
/// list has none) and those that are left out there, with the reason.
fn without_w_plan(specs: &[LearnerSpec]) -> (Vec<(usize, &LearnerSpec)>, Vec<LearnerTotal>) {
    static MARGINAL: LearnerSpec = LearnerSpec::Marginal;
    let mut skipped_here = Vec::new();
    let mut todo = Vec::new();
    // K(Z) needs a code of Z without W: the marginal learner when the list has none.
    if !specs.iter().any(|s| s.without_w().is_ok()) {
        todo.push((specs.len(), &MARGINAL));
    }
    for (k, spec) in specs.iter().enumerate() {
        match spec.without_w() {
            Ok(()) => todo.push((k, spec)),
            Err(why) => skipped_here.push(skipped(
                format!("{}{WITHOUT_W}", spec.name()),
                why.to_string(),
                true,
            )),
        }
    }
    (todo, skipped_here)
}

/// The code of Z without W from its learners' runs.
fn without_w_mix(
    results: Vec<std::result::Result<LearnerRun, (String, String)>>,
    mut skipped_here: Vec<LearnerTotal>,
    z: &Targets,
    order: &[usize],
    bounds: &[usize],
    oc: &OnlineConfig,
) -> Result<WithoutWCode> {
    let mut runs = Vec::new();
    for r in results {
        match r {
            Ok(mut run) => {
                if !run.reads_w {
                    // Never reads W: one code for both K(Z) and K(Z|W), under its own name.
                    run.name = run.name.trim_end_matches(WITHOUT_W).to_string();
                }
                run.learner = None;
                runs.push(run);
            }
            Err((name, why)) => skipped_here.push(skipped(name, why, true)),
        }
    }
    if runs.is_empty() {
        return Err(KcompError::param(
            "online.learners",
            "no learner codes Z without W (add marginal)",
        ));
    }
    let marginal_bits = runs
        .iter()
        .find(|r| !r.reads_w && r.name == "marginal")
        .map(|r| r.bits.clone());
    let first_rows = &order[..bounds[0]];
    let first_bits = naive_bits(z, first_rows);
    let (mixed, mut learners) = mix_runs(&runs, None, None, oc.mixing, true);
    learners.extend(skipped_here);
    let mut row_bits = first_block_bits(z, first_rows);
    row_bits.extend(&mixed.bits);
    let total = first_bits + mixed.bits.iter().sum::<f64>();
    Ok(WithoutWCode {
        row_bits,
        first_bits,
        total,
        learners,
        marginal_bits,
    })
}

/// The online scheme: the learners code the ordered rows (in parallel, one thread each), the
/// first `first` rows go with the naive code, and the codes are mixed. First the code of Z
/// without W ([`WithoutWCode`], K(Z)); then the learners that read W, mixed with that code as
/// one more component (prior [`with_without_w_prior`]): K(Z|W) <= K(Z) + 5 bits; networks run last
/// and leave when they fall far behind ([`DROP_RATIO`]). All N rows are encoded (no validation
/// rows: nothing stops early).
pub fn online_code(
    w: &TokenData,
    z: &Targets,
    cfg: &PrequentialConfig,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<PrequentialCode> {
    Ok(online_code_with_k_z(w, z, cfg, progress)?.0)
}

/// [`online_code`] and the code of Z without W it mixed in.
pub fn online_code_with_k_z(
    w: &TokenData,
    z: &Targets,
    cfg: &PrequentialConfig,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(PrequentialCode, WithoutWCode)> {
    // The padding token W carries (kcomp's own, or `--pad`) joins the settings.
    let for_w = cfg.online.for_data(w);
    let oc = &for_w;
    oc.validate()?;
    let order = order_rows(z, cfg.ordering.for_code_length(), cfg.seed);
    let n = order.len();
    let first = oc.first_rows(z);
    check_first(z, first, n)?;
    if let Some(p) = oc.pad
        && p as usize >= w.vocab
    {
        return Err(KcompError::param(
            "online.pad",
            format!("token {p} is outside the vocabulary of size {}", w.vocab),
        ));
    }
    let specs = oc.learner_set();
    let bounds = oc.boundaries_from(first, n);
    let blind = TokenData::blind(n);
    // The code of Z without W (K(Z)) and the learners that read W, networks apart: first the
    // code without W's learners and the other readers side by side, then the networks, which
    // race the mixture of all of those.
    let key = cache_key(z, cfg);
    let known = cached(&key);
    let (todo_kz, skipped_kz) = without_w_plan(&specs);
    let readers: Vec<(usize, &LearnerSpec)> = specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.reads_w())
        .collect();
    let (cheap, nets): (Vec<_>, Vec<_>) = readers.iter().partition(|(_, s)| !s.is_network());
    let mut jobs: Vec<Job> = Vec::new();
    if known.is_none() {
        jobs.extend(todo_kz.iter().map(|&(k, s)| (k, s, &blind, WITHOUT_W)));
    }
    let n_kz_jobs = jobs.len();
    jobs.extend(cheap.iter().map(|&(k, s)| (k, s, w, "")));
    if let Some(pb) = progress {
        pb.set_length(pb.length().unwrap_or(0) + (jobs.len() + nets.len()) as u64);
    }
    let mut results = run_all(&jobs, oc, z, &order, &bounds, cfg, None, progress)?;
    let reader_results = results.split_off(n_kz_jobs);
    let kz = match known {
        Some(c) => (*c).clone(),
        None => {
            let code = without_w_mix(results, skipped_kz, z, &order, &bounds, oc)?;
            remember(key, &code);
            code
        }
    };
    let kz_rows = &kz.row_bits[bounds[0]..];
    // On discrete Z the switching side of the mixture holds the marginal learner itself; on
    // continuous Z the code without W (the marginal's covariance code mixed with per-dimension
    // tables on a constant W), which codes the first rows better than the marginal alone
    // (Multi30K English, N = 5,000: the marginal in its place made K(Z|W) 488 bits longer).
    let marginal_rows = match z {
        Targets::Discrete { .. } => kz.marginal_bits.as_deref(),
        Targets::Continuous { .. } => None,
    };
    let mut runs: Vec<LearnerRun> = Vec::new();
    let mut skipped_w: Vec<LearnerTotal> = Vec::new();
    let mut collect = |results: Vec<std::result::Result<LearnerRun, (String, String)>>,
                       runs: &mut Vec<LearnerRun>| {
        for r in results {
            match r {
                Ok(run) => runs.push(run),
                Err((name, why)) => skipped_w.push(skipped(name, why, false)),
            }
        }
    };
    collect(reader_results, &mut runs);
    if !nets.is_empty() {
        let (before, _) = mix_runs(&runs, marginal_rows, Some(kz_rows), oc.mixing, false);
        let net_jobs: Vec<Job> = nets.iter().map(|&(k, s)| (k, s, w, "")).collect();
        let results = run_all(
            &net_jobs,
            oc,
            z,
            &order,
            &bounds,
            cfg,
            Some(&before.bits),
            progress,
        )?;
        collect(results, &mut runs);
    }
    let (mixed, mut learners) = mix_runs(&runs, marginal_rows, Some(kz_rows), oc.mixing, false);
    // The code without W's learners, with their shares of K(Z|W)'s bits.
    let kz_share = mixed.shares.last().copied().unwrap_or(0.0);
    let kz_weight = mixed.final_weights.last().copied().unwrap_or(0.0);
    // The marginal learner's own place in the mixture (its switching side), when it has one.
    let direct = (mixed.shares.len() == runs.len() + 2)
        .then(|| (mixed.shares[runs.len()], mixed.final_weights[runs.len()]));
    for l in &kz.learners {
        let mut l = l.clone();
        l.share *= kz_share;
        l.final_weight *= kz_weight;
        if let Some((share, weight)) = direct
            && l.name == "marginal"
        {
            l.share += share;
            l.final_weight += weight;
        }
        learners.push(l);
    }
    learners.extend(skipped_w);
    let first_rows = &order[..bounds[0]];
    let first_bits = kz.first_bits;
    let k_data = first_bits + mixed.bits.iter().sum::<f64>();
    // K(Data|f): the final state of the learner that reads W the mixture trusts most codes
    // every row (the code without W when no such learner ran to the end).
    let best = runs
        .iter_mut()
        .enumerate()
        .filter(|(_, r)| r.dropped.is_none() && r.learner.is_some())
        .max_by(|a, b| mixed.final_weights[a.0].total_cmp(&mixed.final_weights[b.0]))
        .map(|(_, r)| r);
    let k_data_given_f = match best {
        Some(r) => r
            .learner
            .as_mut()
            .map(|l| l.code(w, z, &order).iter().sum())
            .unwrap_or(kz.total),
        None => kz.total,
    };
    let mut chunks = vec![Chunk {
        start: 0,
        end: bounds[0],
        model_bits: None,
        naive_bits: first_bits,
        bits: first_bits,
        bits_per_sample: first_bits / bounds[0].max(1) as f64,
        used_model: false,
        epochs: 0,
    }];
    for win in bounds.windows(2) {
        let (a, b) = (win[0], win[1]);
        let mb: f64 = mixed.bits[a - bounds[0]..b - bounds[0]].iter().sum();
        chunks.push(Chunk {
            start: a,
            end: b,
            model_bits: Some(mb),
            naive_bits: naive_bits(z, &order[a..b]),
            bits: mb,
            bits_per_sample: mb / (b - a) as f64,
            used_model: true,
            epochs: 0,
        });
    }
    let _ = first_rows;
    Ok((
        PrequentialCode {
            k_data,
            k_data_given_f,
            chunks,
            final_epochs: 0,
            n_encoded: n,
            n_val: 0,
            learners,
        },
        kz,
    ))
}
