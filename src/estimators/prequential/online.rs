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
    OnlineLearner, OnlineNet, OnlineTraining, make_online_learner,
};
use super::naive::naive_bits;
use super::schedule::order_rows;
use super::switching::mix_with_prior;
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
            LearnerSpec::Marginal => "marginal".into(),
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
    /// rules, linear1, linear2, mlp-linear, mlp256, gru. `rules:key=value:...` sets the rule
    /// learner's [`super::learners::rules::RuleSettings`] ([`Self::parse`] says what is wrong).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::parse(name).ok()
    }

    /// [`Self::from_name`] with the reason of a refusal.
    pub fn parse(name: &str) -> std::result::Result<Self, String> {
        if let Some(rest) = name.strip_prefix("rules:") {
            return super::learners::rules::RuleSettings::parse(rest).map(LearnerSpec::Rules);
        }
        let defaults = OnlineConfig::default().learners;
        let find = |p: fn(&LearnerSpec) -> bool| defaults.iter().find(|s| p(s)).cloned();
        let spec = match name {
            "marginal" => Some(LearnerSpec::Marginal),
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
                "unknown learner `{}` (marginal, ngram0..ngram3, rules, rules:key=value:..., \
                 tree, linear1, linear2, mlp-linear, mlp256, gru)",
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
                LearnerSpec::Tree(Default::default()),
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
                LearnerSpec::Tree(s) => {
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
                            this.pad.is_some() || super::padding::detect_padding(w).is_some();
                        let counts = super::learners::rules::RuleLearner::worst_counts(
                            w.n, w.n_words, *n_attr, *n_vals, s, padded,
                        );
                        if counts <= super::learners::rules::MAX_RULE_COUNTS as f64 {
                            tables += counts * (1.0 + 2.0 / *n_vals as f64) * 8.0;
                        }
                    }
                }
                LearnerSpec::Tree(s) => {
                    tables += super::learners::tree::TreeLearner::memory_bytes(w, z, s);
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
    let for_w = cfg.online.for_data(w);
    let oc = &for_w;
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
                // Learners draw seeds by their place among the learners other than the tree
                // learner, which has a stream of its own: adding it to the defaults left every
                // other learner's numbers (and the golden values) unchanged.
                let stream = match spec {
                    LearnerSpec::Tree(_) => TREE_SEED_STREAM,
                    _ => {
                        1_000_003
                            + specs[..k]
                                .iter()
                                .filter(|s| !matches!(s, LearnerSpec::Tree(_)))
                                .count() as u64
                    }
                };
                let seed = derive_seed(cfg.seed, stream);
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
