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

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::code::{Chunk, PrequentialCode, PrequentialConfig, derive_seed, in_pool};
use super::naive::naive_bits;
use super::schedule::order_rows;
use super::switching::mix_with_prior;
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::neural::HeadSpec;
use crate::neural::StdSpec;
use crate::neural::fast::{FastMlp, code_bits_from_outputs};
use crate::neural::gru::{FastGru, GruSpec};
use crate::neural::likelihood::grid_gaussian_nll_nats;
use crate::neural::train::Learner;

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
}

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
    /// position) with ridge `ridge`; continuous Z only, updated after every row.
    Linear { order: usize, ridge: f64 },
    /// Z without W: running Gaussian per dimension (continuous) or Krichevsky-Trofimov counts
    /// per attribute (discrete). The safe fallback the mixture can switch to.
    Marginal,
    /// Each output (dimension or attribute) is a table over one n-gram of W (n = 0..=`order`)
    /// at an unknown position: conjugate cell estimates, Bayesian model averaging over the
    /// positions per output, updated after every row. See [`NgramTable`].
    Ngram { order: usize },
    /// Discrete Z only: whole-message memory backing off to per-attribute rules over
    /// positions and pairs of positions, bijection-aware, with exceptions. See
    /// [`super::rules::RuleLearner`]. Settings: [`super::rules::RuleSettings`] (all
    /// optional in a table; `rules:key=value:...` on the command line).
    Rules(super::rules::RuleSettings),
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
            LearnerSpec::Marginal => "marginal".into(),
            LearnerSpec::Ngram { order } => format!("ngram{order}"),
            LearnerSpec::Rules(s) => format!("rules{}", s.suffix()),
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
    /// rules, linear1, linear2, mlp-linear, mlp256, gru. `rules:key=value:...` sets the rule
    /// learner's [`super::rules::RuleSettings`] ([`Self::parse`] says what is wrong).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::parse(name).ok()
    }

    /// [`Self::from_name`] with the reason of a refusal.
    pub fn parse(name: &str) -> std::result::Result<Self, String> {
        if let Some(rest) = name.strip_prefix("rules:") {
            return super::rules::RuleSettings::parse(rest).map(LearnerSpec::Rules);
        }
        let defaults = OnlineConfig::default().learners;
        let find = |p: fn(&LearnerSpec) -> bool| defaults.iter().find(|s| p(s)).cloned();
        let spec = match name {
            "marginal" => Some(LearnerSpec::Marginal),
            "rules" => Some(LearnerSpec::Rules(Default::default())),
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
                "unknown learner `{}` (marginal, ngram0..ngram3, rules, rules:key=value:..., \
                 linear1, linear2, mlp-linear, mlp256, gru)",
                name.escape_debug()
            )
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

/// Learner entries: a short name or a full table.
fn learners_by_name_or_spec<'de, D>(d: D) -> std::result::Result<Vec<LearnerSpec>, D::Error>
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
                LearnerSpec::Ngram { order: 2 },
                LearnerSpec::Rules(Default::default()),
                LearnerSpec::Linear {
                    order: 1,
                    ridge: 1e-2,
                },
                LearnerSpec::Linear {
                    order: 2,
                    ridge: 1e-2,
                },
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
                LearnerSpec::Marginal => {}
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
        let specs = self.learner_set();
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
                    tables += n_out * cells.min(MAX_NGRAM_CELLS as f64) * per_cell * 8.0;
                }
                LearnerSpec::Linear { order, .. } if matches!(z, Targets::Continuous { .. }) => {
                    // As `BayesLinear::new`: a bias and one-hot n-grams at every position;
                    // beyond MAX_LINEAR_FEATURES the learner does not run.
                    let f = 1.0
                        + (1..=(*order).min(w.n_words))
                            .map(|n| (words - n as f64 + 1.0) * vocab.powi(n as i32))
                            .sum::<f64>();
                    if f <= MAX_LINEAR_FEATURES as f64 {
                        tables += f * f * 8.0 + f * n_out * 8.0;
                    }
                }
                LearnerSpec::Linear { .. } => {}
                LearnerSpec::Rules(s) => {
                    if let Targets::Discrete { n_attr, n_vals, .. } = z {
                        // Worst case as `RuleLearner::new`: every row opens a cell per
                        // context and basis (values, plus a total and an assignment each).
                        let padded =
                            self.pad.is_some() || super::padding::detect_padding(w).is_some();
                        let counts = super::rules::RuleLearner::worst_counts(
                            w.n, w.n_words, *n_attr, *n_vals, s, padded,
                        );
                        if counts <= super::rules::MAX_RULE_COUNTS as f64 {
                            tables += counts * (1.0 + 2.0 / *n_vals as f64) * 8.0;
                        }
                    }
                }
                LearnerSpec::Marginal => {}
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
    let own: Vec<usize>;
    let bounds = match learner.block_rows() {
        Some(k) => {
            own = (first..n).step_by(k.max(1)).chain([n]).collect();
            &own[..]
        }
        None => bounds,
    };
    if first > 0 {
        learner.learn(w, z, &order[..first], first);
    }
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
            super::rules::RuleLearner::new(w, z, s, pad)
                .map(|l| Box::new(l) as Box<dyn OnlineLearner>)
        }
        LearnerSpec::Ngram { order } => {
            NgramTable::new(w, z, *order).map(|l| Box::new(l) as Box<dyn OnlineLearner>)
        }
    }
}

/// Training settings of one online network.
#[derive(Debug, Clone)]
pub struct OnlineTraining {
    pub lr: f64,
    pub lr_decay_rows: usize,
    pub epochs: f64,
    pub max_steps: usize,
    pub batch_size: usize,
    pub ema: f64,
    pub calibrate: bool,
    pub calib_window: usize,
}

impl OnlineTraining {
    /// A learner's own settings with the scheme's replay budget.
    pub fn new(
        cfg: &OnlineConfig,
        lr: f64,
        lr_decay_rows: usize,
        ema: f64,
        calibrate: bool,
    ) -> Self {
        OnlineTraining {
            lr,
            lr_decay_rows,
            epochs: cfg.epochs,
            max_steps: cfg.max_steps,
            batch_size: cfg.batch_size,
            ema,
            calibrate,
            calib_window: cfg.calib_window,
        }
    }
}

/// A network [`NetOnline`] trains: raw outputs of a head, Adam steps, flat parameters.
pub trait OnlineNet: Send {
    fn head(&self) -> HeadSpec;
    /// Raw outputs (rows x n_outputs) of the current weights.
    fn outputs(&mut self, w: &TokenData, rows: &[usize]) -> Vec<f32>;
    /// One Adam step on `rows`.
    fn step(&mut self, w: &TokenData, z: &Targets, rows: &[usize]);
    fn set_lr(&mut self, lr: f64);
    fn params(&self) -> &[f32];
    fn params_mut(&mut self) -> &mut [f32];
}

/// Both networks have these methods under the same names (`$set_lr` names the learning-rate
/// setter: the MLP's is [`Learner`]'s); the trait forwards to them.
macro_rules! online_net {
    ($t:ty, $set_lr:path) => {
        impl OnlineNet for $t {
            fn head(&self) -> HeadSpec {
                self.spec().head
            }
            fn outputs(&mut self, w: &TokenData, rows: &[usize]) -> Vec<f32> {
                <$t>::outputs(self, w, rows)
            }
            fn step(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) {
                <$t>::step(self, w, z, rows);
            }
            fn set_lr(&mut self, lr: f64) {
                $set_lr(self, lr);
            }
            fn params(&self) -> &[f32] {
                <$t>::params(self)
            }
            fn params_mut(&mut self) -> &mut [f32] {
                <$t>::params_mut(self)
            }
        }
    };
}

online_net!(FastMlp, Learner::set_lr);
online_net!(FastGru, FastGru::set_lr);

/// The fast MLP trained online.
pub type MlpOnline = NetOnline<FastMlp>;

/// A network trained online with replay, optional EMA and forward calibration.
pub struct NetOnline<N: OnlineNet> {
    net: N,
    name: String,
    cfg: OnlineTraining,
    rng: ChaCha8Rng,
    ema: Option<Vec<f32>>,
    /// Log of the std scale (Gaussian) or of the inverse temperature (categorical).
    log_scale: f64,
    /// (row, raw outputs when it was coded), most recent last, at most `calib_window`.
    history: std::collections::VecDeque<(usize, Vec<f32>)>,
}

impl<N: OnlineNet> NetOnline<N> {
    pub fn new(net: N, name: String, cfg: OnlineTraining, seed: u64) -> Self {
        let ema = (cfg.ema > 0.0).then(|| net.params().to_vec());
        NetOnline {
            net,
            name,
            cfg,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x05EE_D0F0_471E),
            ema,
            log_scale: 0.0,
            history: Default::default(),
        }
    }

    /// Raw outputs of the coding weights (the EMA when enabled).
    fn coding_outputs(&mut self, w: &TokenData, rows: &[usize]) -> Vec<f32> {
        match &mut self.ema {
            Some(avg) => {
                swap_params(&mut self.net, avg);
                let out = self.net.outputs(w, rows);
                swap_params(&mut self.net, avg);
                out
            }
            None => self.net.outputs(w, rows),
        }
    }

    fn history_bits(&self, z: &Targets, log_scale: f64) -> f64 {
        let head = self.net.head();
        self.history
            .iter()
            .map(|(row, out)| {
                code_bits_from_outputs(&head, z, &[*row], &scaled(&head, out, log_scale))[0]
            })
            .sum()
    }

    /// Golden-section search of the log scale on the recorded predictions (the code length is
    /// unimodal in it for both heads).
    fn fit_scale(&mut self, z: &Targets) {
        if self.history.is_empty() {
            return;
        }
        let (mut a, mut b) = (-4.0f64, 4.0f64);
        let g = 0.5 * (5f64.sqrt() - 1.0);
        let mut c = b - g * (b - a);
        let mut d = a + g * (b - a);
        let (mut fc, mut fd) = (self.history_bits(z, c), self.history_bits(z, d));
        for _ in 0..14 {
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - g * (b - a);
                fc = self.history_bits(z, c);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + g * (b - a);
                fd = self.history_bits(z, d);
            }
        }
        let x = 0.5 * (a + b);
        // Keep the identity unless the fit is better (ties, flat curves).
        if self.history_bits(z, x) < self.history_bits(z, 0.0) {
            self.log_scale = x;
        } else {
            self.log_scale = 0.0;
        }
    }
}

fn swap_params<N: OnlineNet>(net: &mut N, other: &mut [f32]) {
    net.params_mut().swap_with_slice(other);
}

/// Outputs with the calibration applied: Gaussian learned std scaled by `e^log_scale`
/// (log-std outputs shifted); categorical logits multiplied by `e^-log_scale` (temperature).
fn scaled(head: &HeadSpec, out: &[f32], log_scale: f64) -> Vec<f32> {
    let mut o = out.to_vec();
    if log_scale == 0.0 {
        return o;
    }
    match *head {
        HeadSpec::Categorical { .. } => {
            let t = (-log_scale).exp() as f32;
            o.iter_mut().for_each(|v| *v *= t);
        }
        HeadSpec::Gaussian {
            dim,
            std: StdSpec::Learned { .. },
        } => {
            let n = head.n_outputs();
            for r in o.chunks_mut(n) {
                r[dim..].iter_mut().for_each(|v| *v += log_scale as f32);
            }
        }
        HeadSpec::Gaussian {
            std: StdSpec::Fixed { .. },
            ..
        } => {}
    }
    o
}

impl<N: OnlineNet> OnlineLearner for NetOnline<N> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn block_rows(&self) -> Option<usize> {
        None
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let head = self.net.head();
        let out = self.coding_outputs(w, rows);
        let o = head.n_outputs();
        let bits = code_bits_from_outputs(&head, z, rows, &scaled(&head, &out, self.log_scale));
        if self.cfg.calibrate {
            for (r, &row) in rows.iter().enumerate() {
                self.history
                    .push_back((row, out[r * o..(r + 1) * o].to_vec()));
                if self.history.len() > self.cfg.calib_window {
                    self.history.pop_front();
                }
            }
        }
        bits
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let c = &self.cfg;
        let n = sent.len();
        let lr = if c.lr_decay_rows > 0 {
            c.lr / (1.0 + n as f64 / c.lr_decay_rows as f64).sqrt()
        } else {
            c.lr
        };
        self.net.set_lr(lr);
        let bs = c.batch_size;
        let new_steps = n_new.div_ceil(bs);
        let steps = ((c.epochs * n as f64 / bs as f64).ceil() as usize)
            .max(new_steps)
            .min(c.max_steps.max(new_steps));
        let new = &sent[n - n_new..];
        let mut batch = Vec::with_capacity(bs);
        for s in 0..steps {
            batch.clear();
            if s < new_steps {
                // The new block first, then replay fills the batch.
                batch.extend_from_slice(&new[s * bs..((s + 1) * bs).min(n_new)]);
            }
            while batch.len() < bs.min(n) {
                batch.push(sent[self.rng.random_range(0..n)]);
            }
            self.net.step(w, z, &batch);
            if let Some(avg) = &mut self.ema {
                let d = self.cfg.ema as f32;
                for (a, &p) in avg.iter_mut().zip(self.net.params()) {
                    *a = d * *a + (1.0 - d) * p;
                }
            }
        }
        if self.cfg.calibrate {
            self.fit_scale(z);
        }
    }
}

/// Bayesian linear regression on one-hot n-gram features (continuous Z): posterior over the
/// weights with ridge prior, shared across output dimensions, updated row by row
/// (Sherman-Morrison); per-dimension noise variance from standardised prequential residuals.
pub struct BayesLinear {
    order: usize,
    ridge: f64,
    n_feat: usize,
    vocab: usize,
    n_words: usize,
    dim: usize,
    lam: f64,
    /// Inverse of (ridge I + X^T X), F x F.
    a_inv: Vec<f64>,
    /// X^T Y, F x D.
    xty: Vec<f64>,
    /// Sum of squared standardised residuals per dimension and their count (prior included).
    res2: Vec<f64>,
    n_res: f64,
}

/// Forgetting factor of the noise-variance estimate: early residuals, taken when the prior
/// was all the model knew, would inflate it for the rest of the stream (about 100 rows kept).
const RES_FORGET: f64 = 0.99;

/// Largest feature count of [`BayesLinear`] (its update costs F^2 per row).
pub const MAX_LINEAR_FEATURES: usize = 2048;

impl BayesLinear {
    pub fn new(w: &TokenData, z: &Targets, order: usize, ridge: f64) -> Option<Self> {
        let Targets::Continuous { dim, lam, .. } = z else {
            return None;
        };
        let mut n_feat = 1; // bias
        for n in 1..=order.min(w.n_words) {
            let per = (w.vocab as f64).powi(n as i32);
            n_feat += ((w.n_words - n + 1) as f64 * per) as usize;
            if n_feat > MAX_LINEAR_FEATURES || per > 1e6 {
                return None;
            }
        }
        let mut a_inv = vec![0.0; n_feat * n_feat];
        for i in 0..n_feat {
            a_inv[i * n_feat + i] = 1.0 / ridge;
        }
        Some(BayesLinear {
            order,
            ridge,
            n_feat,
            vocab: w.vocab,
            n_words: w.n_words,
            dim: *dim,
            lam: *lam,
            a_inv,
            xty: vec![0.0; n_feat * dim],
            res2: vec![0.0; *dim],
            n_res: 0.0,
        })
    }

    fn features(&self, w: &TokenData, row: usize) -> Vec<usize> {
        let toks = w.row(row);
        let mut f = vec![0];
        let mut off = 1;
        for n in 1..=self.order.min(self.n_words) {
            let per = self.vocab.pow(n as u32);
            for p in 0..=self.n_words - n {
                let idx = toks[p..p + n]
                    .iter()
                    .rev()
                    .fold(0usize, |a, &t| a * self.vocab + t as usize);
                f.push(off + p * per + idx);
            }
            off += (self.n_words - n + 1) * per;
        }
        f
    }

    /// (A^-1 x, x^T A^-1 x) for a one-hot feature set.
    fn solve(&self, f: &[usize]) -> (Vec<f64>, f64) {
        let nf = self.n_feat;
        let mut u = vec![0.0; nf];
        for &j in f {
            // A^-1 is symmetric: column j is row j.
            for (ui, &a) in u.iter_mut().zip(&self.a_inv[j * nf..(j + 1) * nf]) {
                *ui += a;
            }
        }
        let h = f.iter().map(|&j| u[j]).sum();
        (u, h)
    }

    /// Predictive (mean, std) per dimension.
    fn predict(&self, u: &[f64], h: f64) -> Vec<(f64, f64)> {
        let d = self.dim;
        let mut mu = vec![0.0; d];
        for (i, &ui) in u.iter().enumerate() {
            if ui != 0.0 {
                for (m, &b) in mu.iter_mut().zip(&self.xty[i * d..(i + 1) * d]) {
                    *m += ui * b;
                }
            }
        }
        mu.into_iter()
            .zip(&self.res2)
            .map(|(m, &r)| {
                let s2 = if self.n_res > 0.0 {
                    r / self.n_res
                } else {
                    1.0
                };
                // At least a quarter of a grid cell: below it every code is ~0 bits anyway.
                (m, (s2 * (1.0 + h)).sqrt().max(0.25 * self.lam))
            })
            .collect()
    }
}

impl OnlineLearner for BayesLinear {
    fn name(&self) -> String {
        format!("linear{}-ridge{}", self.order, self.ridge)
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let Targets::Continuous { grid, .. } = z else {
            return vec![f64::INFINITY; rows.len()];
        };
        rows.iter()
            .map(|&row| {
                let (u, h) = self.solve(&self.features(w, row));
                let nats: f64 = self
                    .predict(&u, h)
                    .iter()
                    .enumerate()
                    .map(|(d, &(m, s))| {
                        grid_gaussian_nll_nats(grid[row * self.dim + d], self.lam, m, s)
                    })
                    .sum();
                nats / std::f64::consts::LN_2
            })
            .collect()
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let Targets::Continuous { grid, .. } = z else {
            return;
        };
        let d = self.dim;
        let nf = self.n_feat;
        for &row in &sent[sent.len() - n_new..] {
            let f = self.features(w, row);
            let (u, h) = self.solve(&f);
            // Standardised residual of the prediction made before this row was learned.
            let pred = self.predict(&u, h);
            for (k, &(m, _)) in pred.iter().enumerate() {
                let y = grid[row * d + k] as f64 * self.lam;
                self.res2[k] = RES_FORGET * self.res2[k] + (y - m).powi(2) / (1.0 + h);
            }
            self.n_res = RES_FORGET * self.n_res + 1.0;
            let inv = 1.0 / (1.0 + h);
            for i in 0..nf {
                if u[i] != 0.0 {
                    let ui = u[i] * inv;
                    let rowi = &mut self.a_inv[i * nf..(i + 1) * nf];
                    for (a, &uj) in rowi.iter_mut().zip(&u) {
                        *a -= ui * uj;
                    }
                }
            }
            for &j in &f {
                for k in 0..d {
                    self.xty[j * d + k] += grid[row * d + k] as f64 * self.lam;
                }
            }
        }
    }
}

/// Z without W: a running Gaussian per dimension, or Krichevsky-Trofimov counts per attribute.
pub struct Marginal {
    counts: Vec<f64>,
    sums: Vec<(f64, f64)>,
    n: f64,
}

impl Marginal {
    pub fn new(z: &Targets) -> Self {
        match z {
            Targets::Discrete { n_attr, n_vals, .. } => Marginal {
                counts: vec![0.5; n_attr * n_vals],
                sums: Vec::new(),
                n: 0.0,
            },
            Targets::Continuous { dim, .. } => Marginal {
                counts: Vec::new(),
                sums: vec![(0.0, 0.0); *dim],
                n: 0.0,
            },
        }
    }
}

impl OnlineLearner for Marginal {
    fn name(&self) -> String {
        "marginal".into()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, _w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        match z {
            Targets::Discrete {
                n_attr,
                n_vals,
                values,
            } => rows
                .iter()
                .map(|&r| {
                    (0..*n_attr)
                        .map(|a| {
                            let c = &self.counts[a * n_vals..(a + 1) * n_vals];
                            let tot: f64 = c.iter().sum();
                            (tot / c[values[r * n_attr + a] as usize]).log2()
                        })
                        .sum()
                })
                .collect(),
            Targets::Continuous { dim, grid, .. } => rows
                .iter()
                .map(|&r| {
                    let nats: f64 = (0..*dim)
                        .map(|d| {
                            let (m, s) = if self.n > 0.0 {
                                let (s1, s2) = self.sums[d];
                                let m = s1 / self.n;
                                let var = (s2 / self.n - m * m).max(0.0) * (1.0 + 1.0 / self.n);
                                (m, var.sqrt().max(0.5))
                            } else {
                                (0.0, 1e3)
                            };
                            grid_gaussian_nll_nats(grid[r * dim + d], 1.0, m, s)
                        })
                        .sum();
                    nats / std::f64::consts::LN_2
                })
                .collect(),
        }
    }

    fn learn(&mut self, _w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        for &r in &sent[sent.len() - n_new..] {
            match z {
                Targets::Discrete {
                    n_attr,
                    n_vals,
                    values,
                } => {
                    for a in 0..*n_attr {
                        self.counts[a * n_vals + values[r * n_attr + a] as usize] += 1.0;
                    }
                }
                Targets::Continuous { dim, grid, .. } => {
                    for d in 0..*dim {
                        let x = grid[r * dim + d] as f64;
                        self.sums[d].0 += x;
                        self.sums[d].1 += x * x;
                    }
                }
            }
            self.n += 1.0;
        }
    }
}

/// One learner's total in an online run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnerTotal {
    pub name: String,
    /// Its own code of the rows after the first block, bits.
    pub bits: f64,
    /// Its mixture weight after the last row.
    pub final_weight: f64,
    /// Share of the mixture's bits it won (each row's bits split by the learners' posterior
    /// responsibilities): which learner the code rests on.
    #[serde(default)]
    pub share: f64,
}

/// A learner after its run, with its per-row bits.
type LearnerRun = (Box<dyn OnlineLearner>, Vec<f64>);

/// The online scheme: every learner of `cfg.online` codes the ordered rows (in parallel, one
/// thread each), the first `first` rows go with the naive code, and the learners' codes are
/// mixed. All N rows are encoded (no validation rows: nothing stops early).
pub fn online_code(
    w: &TokenData,
    z: &Targets,
    cfg: &PrequentialConfig,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<PrequentialCode> {
    let oc = &cfg.online;
    oc.validate()?;
    let order = order_rows(z, cfg.ordering.for_code_length(), cfg.seed);
    let n = order.len();
    let first = oc.first_rows(z);
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
    if let Some(pb) = progress {
        pb.set_length(pb.length().unwrap_or(0) + specs.len() as u64);
    }
    let jobs = || -> Vec<Option<LearnerRun>> {
        use rayon::prelude::*;
        specs
            .par_iter()
            .with_max_len(1)
            .enumerate()
            .map(|(k, spec)| {
                let seed = derive_seed(cfg.seed, 1_000_003 + k as u64);
                let res = make_online_learner(spec, oc, w, z, seed).map(|mut l| {
                    let bits = run_learner(l.as_mut(), w, z, &order, &bounds);
                    (l, bits)
                });
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                res
            })
            .collect()
    };
    let runs: Vec<LearnerRun> = in_pool(cfg.threads, jobs)?.into_iter().flatten().collect();
    if runs.is_empty() {
        return Err(KcompError::param(
            "online.learners",
            "no learner applies to these data (linear learners need continuous Z)",
        ));
    }
    let per: Vec<Vec<f64>> = runs.iter().map(|(_, b)| b.clone()).collect();
    let is_rules: Vec<bool> = runs
        .iter()
        .map(|(l, _)| l.name().starts_with("rules"))
        .collect();
    let mixed = mix_with_prior(&per, oc.mixing, learner_prior(&is_rules));
    let first_rows = &order[..bounds[0]];
    let first_bits = naive_bits(z, first_rows);
    let k_data = first_bits + mixed.bits.iter().sum::<f64>();
    // K(Data|f): the final state of the learner the mixture trusts most codes every row.
    let best = (0..runs.len())
        .max_by(|&a, &b| mixed.final_weights[a].total_cmp(&mixed.final_weights[b]))
        .unwrap_or(0);
    let mut runs = runs;
    let k_data_given_f = runs[best].0.code(w, z, &order).iter().sum();
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
    let learners = runs
        .iter()
        .zip(&per)
        .zip(mixed.final_weights.iter().zip(&mixed.shares))
        .map(|(((l, _), b), (&fw, &share))| LearnerTotal {
            name: l.name(),
            bits: b.iter().sum(),
            final_weight: fw,
            share,
        })
        .collect();
    Ok(PrequentialCode {
        k_data,
        k_data_given_f,
        chunks,
        final_epochs: 0,
        n_encoded: n,
        n_val: 0,
        learners,
    })
}

/// Largest number of table cells per output of [`NgramTable`].
pub const MAX_NGRAM_CELLS: usize = 1 << 18;

/// "Each output is a table over one n-gram of W at an unknown position": for every output
/// (continuous dimension or discrete attribute) and every candidate input (the empty n-gram,
/// then each n-gram of order 1..=`order` at each position), cell estimates of the output given
/// the n-gram's value; the code of an output is the Bayesian mixture over the candidates (so
/// learning which position drives which output costs about log2(#candidates) bits per output).
///
/// - Continuous: a cell's mean has the prior N(mean, var) of all sent values of the output;
///   the noise variance is the pooled within-cell variance of the candidate (plus one prior
///   pseudo-row of one grid cell squared); predictive N(posterior mean, noise + posterior var).
/// - Discrete: Dirichlet(1/V) cell counts (a sparse prior: deterministic maps are cheap).
///
/// The lookup-table generator and the language systems belong to this class: on them it is a
/// near-ideal learner, not a general one.
pub struct NgramTable {
    vocab: usize,
    /// (position, n) per candidate; n = 0 is the single constant cell.
    cands: Vec<(usize, usize)>,
    /// First cell of each candidate.
    cell_off: Vec<usize>,
    n_cells: usize,
    n_out: usize,
    /// Continuous: (dim, lam); discrete: values per attribute in `n_vals`.
    lam: Option<f64>,
    n_vals: usize,
    /// Continuous: per (output, cell) count and sum; discrete: per (output, cell, value) count.
    count: Vec<f64>,
    sum: Vec<f64>,
    /// Continuous: per (output, candidate) within-cell sum of squares and non-empty cells.
    ss: Vec<f64>,
    used: Vec<f64>,
    /// Per output: count, sum and sum of squares of all sent values.
    glob: Vec<(f64, f64, f64)>,
    /// log2 mixture weights per (output, candidate).
    log_w: Vec<f64>,
    /// Per-candidate bits of the last coded row, reused by `learn`.
    last: Option<(usize, Vec<f64>)>,
}

impl NgramTable {
    pub fn new(w: &TokenData, z: &Targets, order: usize) -> Option<Self> {
        let mut cands = vec![(0, 0)];
        let mut cell_off = vec![0];
        let mut n_cells = 1;
        for n in 1..=order.min(w.n_words) {
            let per = w.vocab.checked_pow(n as u32)?;
            if per > MAX_NGRAM_CELLS {
                break;
            }
            for p in 0..=w.n_words - n {
                if n_cells + per > MAX_NGRAM_CELLS {
                    break;
                }
                cands.push((p, n));
                cell_off.push(n_cells);
                n_cells += per;
            }
        }
        let (n_out, lam, n_vals) = match z {
            Targets::Continuous { dim, lam, .. } => (*dim, Some(*lam), 0),
            Targets::Discrete { n_attr, n_vals, .. } => (*n_attr, None, *n_vals),
        };
        let c = cands.len();
        let per_cell = if lam.is_some() { 1 } else { n_vals };
        Some(NgramTable {
            vocab: w.vocab,
            cell_off,
            n_cells,
            n_out,
            lam,
            n_vals,
            count: vec![0.0; n_out * n_cells * per_cell],
            sum: if lam.is_some() {
                vec![0.0; n_out * n_cells]
            } else {
                Vec::new()
            },
            ss: vec![0.0; n_out * c],
            used: vec![0.0; n_out * c],
            glob: vec![(0.0, 0.0, 0.0); n_out],
            log_w: vec![-(c as f64).log2(); n_out * c],
            cands,
            last: None,
        })
    }

    /// The cell of each candidate for row `row`.
    fn cells(&self, w: &TokenData, row: usize) -> Vec<usize> {
        let toks = w.row(row);
        self.cands
            .iter()
            .zip(&self.cell_off)
            .map(|(&(p, n), &off)| {
                off + toks[p..p + n]
                    .iter()
                    .rev()
                    .fold(0usize, |a, &t| a * self.vocab + t as usize)
            })
            .collect()
    }

    /// Bits of every (output, candidate) for `row`, output-major.
    fn candidate_bits(&self, w: &TokenData, z: &Targets, row: usize) -> Vec<f64> {
        let cells = self.cells(w, row);
        let c = self.cands.len();
        let mut out = Vec::with_capacity(self.n_out * c);
        match z {
            Targets::Continuous { dim, lam, grid } => {
                for d in 0..*dim {
                    let (gn, gs, gq) = self.glob[d];
                    let (mu0, v0) = if gn >= 2.0 {
                        let m = gs / gn;
                        (m, ((gq / gn - m * m).max(0.0)).max(lam * lam))
                    } else {
                        (0.0, 1e6 * lam * lam)
                    };
                    for (ci, &cell) in cells.iter().enumerate() {
                        let k = d * self.n_cells + cell;
                        let (m, s) = (self.count[k], self.sum[k]);
                        let dof = gn - self.used[d * c + ci];
                        // One prior pseudo-row of one grid cell squared; inflated while few
                        // rows back the estimate (a plug-in stand-in for the Student-t).
                        // A vanishing pull towards the output's variance guards against
                        // cells that agreed by chance while few rows back the estimate.
                        let s2 = (self.ss[d * c + ci] + lam * lam) / (dof + 1.0)
                            * (1.0 + 2.0 / (dof + 1.0))
                            + v0 / ((dof + 1.0) * (dof + 1.0));
                        let prec = 1.0 / v0 + m / s2;
                        let mean = (mu0 / v0 + s / s2) / prec;
                        let sd = (s2 + 1.0 / prec).sqrt();
                        out.push(
                            grid_gaussian_nll_nats(grid[row * dim + d], *lam, mean, sd)
                                / std::f64::consts::LN_2,
                        );
                    }
                }
            }
            Targets::Discrete {
                n_attr,
                n_vals,
                values,
            } => {
                let alpha = 1.0 / *n_vals as f64;
                for a in 0..*n_attr {
                    let v = values[row * n_attr + a] as usize;
                    for &cell in &cells {
                        let base = (a * self.n_cells + cell) * n_vals;
                        let cnt = &self.count[base..base + n_vals];
                        let tot: f64 = cnt.iter().sum();
                        out.push(((tot + 1.0) / (cnt[v] + alpha)).log2());
                    }
                }
            }
        }
        out
    }
}

impl OnlineLearner for NgramTable {
    fn name(&self) -> String {
        let order = self.cands.last().map_or(0, |c| c.1);
        format!("ngram{order}")
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let c = self.cands.len();
        let mut res = Vec::with_capacity(rows.len());
        for &row in rows {
            let cb = self.candidate_bits(w, z, row);
            let bits: f64 = (0..self.n_out)
                .map(|o| {
                    let lw = &self.log_w[o * c..(o + 1) * c];
                    -super::switching::log2_sum_exp2(
                        lw.iter().zip(&cb[o * c..(o + 1) * c]).map(|(w, b)| w - b),
                    )
                })
                .sum();
            res.push(bits);
            self.last = Some((row, cb));
        }
        res
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let c = self.cands.len();
        for &row in &sent[sent.len() - n_new..] {
            // Only rows this learner coded move the weights (the first block was sent naively).
            let coded = match self.last.take() {
                Some((r, cb)) if r == row => Some(cb),
                _ => None,
            };
            for o in (0..self.n_out).filter(|_| coded.is_some()) {
                let cb = coded.as_deref().unwrap_or_default();
                let lw = &mut self.log_w[o * c..(o + 1) * c];
                lw.iter_mut()
                    .zip(&cb[o * c..(o + 1) * c])
                    .for_each(|(w, b)| *w -= b);
                let tot = super::switching::log2_sum_exp2(lw.iter().copied());
                if tot.is_finite() {
                    lw.iter_mut().for_each(|w| *w -= tot);
                }
            }
            let cells = self.cells(w, row);
            match z {
                Targets::Continuous { dim, grid, .. } => {
                    let lam = self.lam.unwrap_or(1.0);
                    for d in 0..*dim {
                        let y = grid[row * dim + d] as f64 * lam;
                        let g = &mut self.glob[d];
                        *g = (g.0 + 1.0, g.1 + y, g.2 + y * y);
                        for (ci, &cell) in cells.iter().enumerate() {
                            let k = d * self.n_cells + cell;
                            let m = self.count[k];
                            if m > 0.0 {
                                let mean = self.sum[k] / m;
                                self.ss[d * c + ci] += (y - mean).powi(2) * m / (m + 1.0);
                            } else {
                                self.used[d * c + ci] += 1.0;
                            }
                            self.count[k] += 1.0;
                            self.sum[k] += y;
                        }
                    }
                }
                Targets::Discrete { n_attr, values, .. } => {
                    let nv = self.n_vals;
                    for a in 0..*n_attr {
                        let v = values[row * n_attr + a] as usize;
                        self.glob[a].0 += 1.0;
                        for &cell in &cells {
                            self.count[(a * self.n_cells + cell) * nv + v] += 1.0;
                        }
                    }
                }
            }
        }
    }
}
