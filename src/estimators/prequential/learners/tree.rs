//! A learner for tree-structured composition: Z as the root of a parse tree of W whose nodes
//! compose their children.
//!
//! It reads nothing but W and the rows of Z already sent:
//! - **categories** of words from W alone ([`classes`]: the Bayesian class-bigram model, the
//!   number of classes by marginal likelihood; all of W is given to a code of Z given W);
//! - **parse** ([`shape`]): the bracketing a CYK chart of the learned head-driven grammar gives
//!   (every pair of categories has a rule, so the split nearest the middle of each span), node
//!   categories inherited from the head child, rule keys (height, left category, right
//!   category);
//! - **composition**, each a sub-model: tensor-product binding ([`elementwise`]: a node is
//!   `x * g_left + y * g_right` with one role vector per (height, child category)) and linear
//!   rule maps ([`linear`]: a node is `concat(x, y) A_rule`), fitted on the rows sent so far
//!   at growing checkpoints, warm-started;
//! - **predictive**: per sub-model and dimension a Gaussian around the prediction, its standard
//!   deviation a switching mixture over a grid of half-octaves (so it follows the error as the
//!   fit locks in), discretised on Z's grid ([`crate::neural::likelihood`]); the sub-models and
//!   a running marginal Gaussian are mixed per row (hedged mixture,
//!   [`crate::estimators::prequential::switching`]).
//!
//! A sub-model whose code is not ahead of the marginal after enough rows is frozen and leaves
//! the mixture (its fits stop), so on data without tree composition the learner costs little
//! more than the marginal learner. So is a sub-model far behind another one that codes at the
//! noise floor (it can at best tie it), and a linear sub-model that a full-effort fit has not
//! put ahead of the marginal (it does not represent the data): their fits were most of the run's
//! time on tensor grammars and on linear grammars of width 3.
//!
//! Every state change happens in `learn`, from rows already coded; `code` only reads.

pub mod classes;
pub mod elementwise;
pub mod fit_rows;
pub mod latent;
pub mod linear;
mod schedule;
pub mod setup;
pub mod shape;

use serde::{Deserialize, Serialize};

use super::super::code::derive_seed;
use super::super::switching::{Mixing, Mixture, log2_sum_exp2};
use super::OnlineLearner;
use crate::dataset::{Targets, TokenData};
use crate::neural::likelihood::grid_gaussian_nll_nats;
use elementwise::{Elementwise, FitEffort};
use fit_rows::{spread, wide_fit_rows};
use latent::LatentKeys;
use linear::{GnEffort, LinearTree};
use schedule::{FitPlan, RETRY_EFFORT};
use shape::{Bracketing, Categories, Head, Keys};

/// Largest dimension of Z the learner runs on (its per-row operators are D x D per node).
pub const MAX_TREE_DIM: usize = 32;
/// Largest vocabulary (word classes are searched by exchange over every word).
pub const MAX_TREE_VOCAB: usize = 2048;
/// Largest sentence length.
pub const MAX_TREE_WORDS: usize = 64;
/// Most word classes searched.
const MAX_CLASSES: usize = 16;
/// Most latent node categories of the linear sub-models (`TreeSettings::latent`).
const MAX_LATENT: usize = 4;
/// Half-octave grid of predictive standard deviations, from a quarter of a grid step up.
const SIGMA_STEPS: usize = 56;
/// Rows sent before the first fit.
const FIRST_FIT: usize = 8;
/// Checkpoints grow by this factor.
const FIT_GROWTH: f64 = 1.5;
/// Work a run spends on the linear sub-model's fits at most, in row-iterations (rows times
/// Gauss-Newton steps times conjugate-gradient iterations, an upper bound counted before each
/// fit): about 15 s of one core. Counted, not timed, so the numbers do not depend on the load.
const LINEAR_WORK: f64 = 4.0e6;
/// Most steps a full linear fit takes past its 30 while it still converges fast
/// ([`LinearTree::extend`]).
const MAX_EXTEND: usize = 30;

/// Weight of the linear sub-model's Gaussian prior relative to its current mean squared
/// error ([`LinearTree::ridge`]).
const LINEAR_RIDGE: f64 = 1.0;

/// Settings of the tree learner (`kind = "tree"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeSettings {
    /// Rows a fit uses at most (an evenly spaced subsample of the rows sent); a linear layout
    /// with more parameters per dimension than half of it fits on twice them, up to three
    /// times this on short sentences of small D (`wide_fit_rows`).
    pub fit_rows: usize,
    /// Run the tensor-product binding sub-model.
    pub elementwise: bool,
    /// Run the linear rule-map sub-model.
    pub linear: bool,
    /// Most latent node categories of the linear sub-model (1: one rule per height above the
    /// first level). Above 1 the categories and their number are derived from Z's covariance
    /// given the root's child heads until the fit locks in ([`latent`]); one rule per height
    /// until the rows show categories, and then the code is the one-category learner's (the
    /// key layout holds the categories in use only). Default 4, the most: linear grammars of
    /// widths 2-3 need them, and width 1 and tensor grammars, where the rows show one category,
    /// code the same bits as with 1.
    pub latent: usize,
    /// Stop each Gauss-Newton step's conjugate gradients once the quadratic model stops
    /// improving (`LinearTree::truncate_cg`) instead of running their planned iterations: the
    /// linear fits take about half the time, and their outcome changes. Off by default:
    /// measured over the grammar sweep (experiments/prequential-accuracy, every row re-run with
    /// it on), the linear rows' wall time 3,823 -> 1,792 s (width 4 at N = 5,000: 130-155 ->
    /// 54-64 s a run, 1 thread) but linear cells within 2x of the exact K(Z|W) 47 -> 45 of 64 and
    /// Kendall tau-b 0.801 -> 0.794 (width 1's fits, ill-conditioned, run out of steps: depth 2
    /// N = 1,000 1.53 -> 1.93x; with it on category layouts only, width 4 depth 2 N = 5,000
    /// 2.22 -> 3.66x, its 1,770-row fit in a basin at a training error of 1.3).
    pub truncate_cg: bool,
}

impl Default for TreeSettings {
    fn default() -> Self {
        TreeSettings {
            fit_rows: 1500,
            elementwise: true,
            linear: true,
            latent: MAX_LATENT,
            truncate_cg: false,
        }
    }
}

impl TreeSettings {
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.fit_rows < 16 {
            return Err("a tree learner needs fit_rows >= 16".into());
        }
        if !(1..=MAX_LATENT).contains(&self.latent) {
            return Err(format!("a tree learner needs 1 <= latent <= {MAX_LATENT}"));
        }
        if !self.elementwise && !self.linear {
            return Err("a tree learner needs the elementwise or the linear sub-model".into());
        }
        Ok(())
    }
}

enum Model {
    Elementwise(Elementwise),
    Linear(LinearTree),
}

/// One composition hypothesis with its predictive state.
struct Sub {
    model: Model,
    keys: Keys,
    /// The latent categories of a linear sub-model (its keys follow the assignment).
    latent: Option<LatentKeys>,
    /// Per dimension: the mixture over the standard-deviation grid.
    sigma: Vec<Mixture>,
    /// Fitted at least once.
    fitted: bool,
    /// Frozen: out of the mixture, no more fits.
    frozen: bool,
    /// Its own bits and the marginal's over the rows coded since the last fit.
    recent: (f64, f64),
    /// Its fits so far: work, rows needed, full fits, training error ([`FitPlan`]).
    plan: FitPlan,
    /// Latent categories found since the last full fit (its next full fit also tries a random
    /// start).
    grown: bool,
    /// Full-effort fits (neither below the rows needed nor locked in) so far.
    full_fits: usize,
    /// A linear layout's parameters and categories before its first full fit, when that came
    /// below 1.5x its parameters' rows (the second full fit starts from them).
    before_first_full: Option<(LinearTree, LatentKeys)>,
    /// Categories the last category probe found (0: none; see `schedule`).
    last_probe_active: usize,
}

impl Sub {
    /// Locked in (well ahead of the marginal): the warm start is near the optimum, a few
    /// refining steps follow the new rows. A fit ahead of the marginal whose training error is
    /// still many grid steps is still converging (deep products of maps are ill-conditioned:
    /// measured 0.7 -> 0.4 over 30 steps at a noise of 0.01): not locked, full effort.
    fn locked(&self, lam: f64) -> bool {
        self.fitted && self.recent.0 < 0.7 * self.recent.1 && self.plan.train_rmse <= 4.0 * lam
    }

    /// A hypothesis not yet fitted, its standard deviation mixture fresh (`sigma`).
    fn new(
        model: Model,
        keys: Keys,
        latent: Option<LatentKeys>,
        sigma: Vec<Mixture>,
        rows_needed: usize,
    ) -> Self {
        Sub {
            model,
            keys,
            latent,
            sigma,
            fitted: false,
            frozen: false,
            recent: (0.0, 0.0),
            plan: FitPlan::new(rows_needed),
            grown: false,
            full_fits: 0,
            before_first_full: None,
            last_probe_active: 0,
        }
    }
}

/// The running marginal Gaussian per dimension (count, sum, sum of squares).
struct RunningMarginal {
    n: f64,
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl RunningMarginal {
    fn params(&self, j: usize) -> (f64, f64) {
        if self.n < 1.0 {
            return (0.0, 1e6);
        }
        let m = self.s1[j] / self.n;
        let var = (self.s2[j] / self.n - m * m).max(0.0) * (1.0 + 1.0 / self.n);
        (m, var.sqrt())
    }
}

/// The tree learner.
pub struct TreeLearner {
    settings: TreeSettings,
    dim: usize,
    lam: f64,
    br: Bracketing,
    n_classes: usize,
    subs: Vec<Sub>,
    marginal: RunningMarginal,
    /// Mixture over [marginal, subs...].
    mix: Mixture,
    next_fit: usize,
    /// Rows sent at the last category probe (or refit; see `schedule`).
    last_probe: usize,
    seed: u64,
    fits: u64,
    /// Per-component bits of the last coded row (reused by `learn`).
    last: Option<(usize, Vec<Vec<f64>>)>,
}

impl TreeLearner {
    /// Whether the learner runs on `w`, `z` ([`Self::new`]), or why not, in one line (the
    /// mixture reports it as the learner's reason for being skipped; checking costs nothing).
    pub fn applies(w: &TokenData, z: &Targets, padded: bool) -> std::result::Result<(), String> {
        let Targets::Continuous { dim, .. } = z else {
            return Err("discrete Z: the tree learner composes continuous vectors".into());
        };
        if padded {
            return Err(
                "W is padded (variable-length sentences): the tree learner parses \
                        fixed-length W only"
                    .into(),
            );
        }
        if w.n_words < 2 {
            return Err("W has one word per row: no tree to compose".into());
        }
        if w.n_words > MAX_TREE_WORDS {
            return Err(format!(
                "W has {} words per row, more than the {MAX_TREE_WORDS} the tree learner parses",
                w.n_words
            ));
        }
        if *dim > MAX_TREE_DIM {
            return Err(format!(
                "Z has {dim} dimensions, more than the {MAX_TREE_DIM} the tree learner fits \
                 (D x D maps per node)"
            ));
        }
        if w.vocab > MAX_TREE_VOCAB {
            return Err(format!(
                "W's vocabulary has {} tokens, more than the {MAX_TREE_VOCAB} the tree learner's \
                 word classes search",
                w.vocab
            ));
        }
        if w.n < 2 {
            return Err("fewer than 2 rows".into());
        }
        Ok(())
    }

    /// The learner for `w`, `z`, or why it does not apply ([`Self::applies`]).
    pub fn new(
        w: &TokenData,
        z: &Targets,
        settings: &TreeSettings,
        padded: bool,
        seed: u64,
    ) -> std::result::Result<Self, String> {
        Self::applies(w, z, padded)?;
        let Targets::Continuous { dim, lam, .. } = z else {
            unreachable!("`applies` refuses discrete Z");
        };
        let classes = classes::learn_classes(w, MAX_CLASSES);
        let br = Bracketing::new(w.n_words);
        let fine = Categories::fine(classes.of_word.clone(), classes.count, Head::Right);
        let mut subs = Vec::new();
        let grid = || {
            (0..*dim)
                .map(|_| Mixture::new(SIGMA_STEPS, Mixing::Switch))
                .collect::<Vec<_>>()
        };
        if settings.elementwise {
            let keys = Keys::new(&br, &fine, w);
            let model = Elementwise::new(w.vocab, *dim, keys.n_roles);
            let rows_needed = model.params_per_dim();
            subs.push(Sub::new(
                Model::Elementwise(model),
                keys,
                None,
                grid(),
                rows_needed,
            ));
        }
        if settings.linear {
            // One rule per height above the first level until (latent >= 2) the rows sent show
            // node categories (at most `latent`; `LatentKeys::init_by_covariance`).
            let mut one = LatentKeys::new(&br, &classes.of_word, classes.count, settings.latent, w);
            one.active = 1;
            let keys = one.keys(&br, w.n);
            let mut model = LinearTree::new(w.vocab, *dim, one.n_rules());
            model.truncate_cg = settings.truncate_cg;
            let rows_needed = one.rows_needed(w.vocab, *dim, 1);
            subs.push(Sub::new(
                Model::Linear(model),
                keys,
                Some(one),
                grid(),
                rows_needed,
            ));
        }
        let k = subs.len() + 1;
        Ok(TreeLearner {
            settings: *settings,
            dim: *dim,
            lam: *lam,
            br,
            n_classes: classes.count,
            subs,
            marginal: RunningMarginal {
                n: 0.0,
                s1: vec![0.0; *dim],
                s2: vec![0.0; *dim],
            },
            mix: Mixture::new(k, Mixing::Hedged),
            next_fit: FIRST_FIT,
            last_probe: 0,
            seed,
            fits: 0,
            last: None,
        })
    }

    /// The number of word classes learned from W.
    pub fn word_classes(&self) -> usize {
        self.n_classes
    }

    fn sigma(&self, k: usize) -> f64 {
        0.25 * self.lam * 2f64.powf(k as f64 / 2.0)
    }

    /// Bits of row `r` per component: [marginal], then per sub-model the per-dimension bits of
    /// every grid standard deviation (flattened dim-major), or empty when the sub is out.
    fn component_bits(&self, w: &TokenData, z: &Targets, r: usize) -> Vec<Vec<f64>> {
        let Targets::Continuous { grid, .. } = z else {
            return Vec::new();
        };
        let d = self.dim;
        let lam = self.lam;
        let mut out = Vec::with_capacity(self.subs.len() + 1);
        let marg: f64 = (0..d)
            .map(|j| {
                let (m, s) = self.marginal.params(j);
                grid_gaussian_nll_nats(grid[r * d + j], lam, m, s.max(0.5 * lam))
            })
            .sum::<f64>()
            / std::f64::consts::LN_2;
        out.push(vec![marg]);
        let mut pred = vec![0.0; d];
        for sub in &self.subs {
            if sub.frozen || !sub.fitted {
                out.push(Vec::new());
                continue;
            }
            match &sub.model {
                Model::Elementwise(m) => m.predict(&sub.keys, w, r, &mut pred),
                Model::Linear(m) => m.predict(&self.br, &sub.keys, w, r, &mut pred),
            }
            let mut bits = Vec::with_capacity(d * SIGMA_STEPS);
            for (j, &mu) in pred.iter().enumerate() {
                for k in 0..SIGMA_STEPS {
                    bits.push(
                        grid_gaussian_nll_nats(grid[r * d + j], lam, mu, self.sigma(k))
                            / std::f64::consts::LN_2,
                    );
                }
            }
            out.push(bits);
        }
        out
    }

    /// The mixture's inputs for a row: each component's total bits.
    fn totals(&self, comps: &[Vec<f64>]) -> Vec<f64> {
        let mut t = vec![comps[0][0]];
        for (sub, bits) in self.subs.iter().zip(&comps[1..]) {
            if bits.is_empty() {
                t.push(f64::INFINITY);
                continue;
            }
            let total: f64 = sub
                .sigma
                .iter()
                .enumerate()
                .map(|(j, mixture)| {
                    let wts = mixture.weights();
                    -log2_sum_exp2(
                        wts.iter()
                            .map(|p| p.log2())
                            .zip(&bits[j * SIGMA_STEPS..(j + 1) * SIGMA_STEPS])
                            .map(|(lw, b)| lw - b),
                    )
                })
                .sum();
            t.push(total);
        }
        t
    }

    fn refit(&mut self, w: &TokenData, z: &Targets, sent: &[usize]) {
        let Targets::Continuous { grid, .. } = z else {
            return;
        };
        let d = self.dim;
        let lam = self.lam;
        let cap = self.settings.fit_rows;
        let rows = spread(sent, cap);
        let y = |r: usize, j: usize| grid[r * d + j] as f64 * lam;
        let z_scale = setup::rms_of_rows(&rows, d, y);
        let n = rows.len();
        self.fits += 1;
        // Sub-models at the noise floor: well ahead of the marginal, training error within two
        // grid steps. Another sub-model far behind one of them can at best tie it: its fits are
        // wasted work.
        let at_floor: Vec<(usize, f64)> = self
            .subs
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.fitted
                    && !s.frozen
                    && s.recent.0 < 0.7 * s.recent.1
                    && s.plan.train_rmse <= 2.0 * lam
            })
            .map(|(i, s)| (i, s.recent.0))
            .collect();
        for (si, sub) in self.subs.iter_mut().enumerate() {
            if sub.frozen {
                continue;
            }
            // Freeze a sub-model that has had rows enough to be determined several times over
            // and is still not ahead of the marginal code.
            // A fit on fewer rows than the sub-model has parameters per dimension interpolates
            // them and predicts little, but it warm-starts the next: a few cheap steps.
            let ahead = sub.recent.0 < sub.recent.1;
            // Freeze a sub-model that has had rows enough to be determined several times over
            // and is still not ahead of the marginal code.
            // (A sub-model with latent categories may need the rows of its largest layout.)
            let needed = sub
                .latent
                .as_ref()
                .map_or(sub.plan.rows_needed, |l| l.rows_needed(w.vocab, d, l.c));
            if sub.fitted && sent.len() > 3 * needed + 256 && !ahead {
                sub.frozen = true;
                continue;
            }
            // Dominated: coding at more than twice the bits of a sub-model at the noise floor.
            let dominated = at_floor
                .iter()
                .any(|&(j, bits)| j != si && sub.recent.0 > 2.0 * bits);
            // A linear fit with full effort behind it that is still not ahead of the marginal
            // does not represent the data (measured: width-3 linear grammars, one rule per
            // height, training error thousands of grid steps). Latent categories (more than
            // one) wait for the rows that show them.
            let hopeless = matches!(sub.model, Model::Linear(_))
                && sub.latent.as_ref().is_none_or(|l| l.c == 1)
                && sub.full_fits > 0
                && !ahead;
            if sub.fitted && (dominated || hopeless) {
                sub.frozen = true;
                continue;
            }
            let locked = sub.locked(lam);
            let recent = sub.recent;
            sub.recent = (0.0, 0.0);
            let (seed, seed_c) = schedule::fit_seeds(self.seed, self.fits, si);
            let early = !locked && n <= 4 * sub.plan.rows_needed;
            match &mut sub.model {
                Model::Elementwise(m) => {
                    let effort = FitEffort {
                        iters: if locked { 10 } else { 40 },
                        restarts: if early { 3 } else { 0 },
                    };
                    let mse = m.fit(&sub.keys, w, &y, &rows, effort, seed);
                    sub.plan.train_rmse = (mse.iter().sum::<f64>() / d as f64).sqrt();
                }
                Model::Linear(m) => {
                    // Latent categories: until the fit locks in, the assignment is re-derived
                    // from Z's covariance given the root's child heads over every row sent
                    // (no map fitted; renamed to keep the fitted maps in place).
                    if let Some(latent) = sub.latent.as_mut().filter(|l| l.c > 1 && !locked) {
                        let before = latent.clone();
                        if latent.init_by_covariance(&self.br, sent, &y, d, seed_c) {
                            sub.keys = latent.keys(&self.br, w.n);
                            sub.plan.rows_needed = latent.rows_needed(w.vocab, d, latent.active);
                            // The key layout holds the categories in use: every rule starts from
                            // the fitted rule of the categories its pairs had.
                            m.maps = latent.carry_maps(&before, &m.maps, 2 * d * d);
                            m.n_rules = latent.n_rules();
                            // From one category to several: the next full fit also tries a
                            // random start.
                            sub.grown &= latent.active > 1;
                            if before.active == 1 && latent.active > 1 && sub.fitted {
                                sub.grown = true;
                            }
                            if latent.active > 1 && sub.plan.work_before_categories.is_none() {
                                sub.plan.work_before_categories = Some(sub.plan.work);
                            }
                            if before.active != latent.active {
                                sub.plan.layout_full_fits = 0;
                            }
                        }
                    }
                    // The chained maps fit from a random start once the rows are about
                    // 1.25-1.5x the parameters per dimension (measured, orthogonal start and
                    // the prior (`LinearTree::ridge`), seed 0: width 3 at 1.25x in 42-45 steps,
                    // width 4 at 1.5x in 38-52 steps, not at 1.25x in 60; least squares from
                    // Gaussian maps needed 2x-2.6x): the first full fit at 1.25x, a second at
                    // 1.5x if the first left the layout behind the marginal; below, cheap steps
                    // (the one-category fit keeps its 4/3x).
                    let categories = sub.latent.as_ref().is_some_and(|l| l.active > 1);
                    let under = if categories {
                        sent.len() * 4 < 5 * sub.plan.rows_needed
                    } else {
                        sent.len() * 3 < sub.plan.rows_needed * 4
                    };
                    // Categories found but too few rows for their maps: the maps copied from
                    // the one-category fit keep coding its predictions; fits on too few rows
                    // only lead the full fit into a worse basin (measured: 11.6 instead of the
                    // noise at 1,520 rows, width 3).
                    if categories && under && sub.fitted {
                        continue;
                    }
                    if !sub.fitted {
                        let height = self.br.nodes.last().map_or(1, |nd| nd.height);
                        m.randomize(height, z_scale, derive_seed(seed, 99));
                    }
                    // Locked in but still a few grid steps off the noise: more refining steps
                    // (measured: width 1 at N = 2,000 stayed at 2.9 grid steps over three
                    // checkpoints of 4 steps).
                    let effort = if locked {
                        GnEffort {
                            steps: if sub.plan.train_rmse > 1.5 * lam {
                                12
                            } else {
                                4
                            },
                            cg: 40,
                            restarts: 0,
                        }
                    } else if under {
                        GnEffort {
                            steps: 10,
                            cg: 40,
                            restarts: 0,
                        }
                    } else {
                        GnEffort {
                            steps: 30,
                            cg: 60,
                            restarts: usize::from(sub.grown),
                        }
                    };
                    // A layout with more parameters per dimension than half the cap fits on
                    // up to twice them: on fewer rows the chained maps settle in a spurious
                    // optimum that fits those rows and predicts held-out rows worse than the
                    // marginal (measured with the generator's categories, `truth_fit_probe`:
                    // width 3 depth 1, 20 words, 1 of 2 random starts at the noise on 1,500
                    // rows, 2 of 2 on 3,000; the grammar panel's width 4 depth 1 N = 4,000
                    // 4.76 -> 3.59x).
                    let wide;
                    // The most rows a fit holds (at least the cap).
                    let most_fit_rows = wide_fit_rows(cap, self.br.len, d);
                    // Locked in: every row sent, up to that most (`FitPlan::refine_allowed`).
                    let (rows, n) = if locked && sent.len() > cap {
                        wide = spread(sent, most_fit_rows);
                        (&wide, wide.len())
                    } else if 2 * sub.plan.rows_needed > cap && sent.len() > cap {
                        wide = spread(sent, (2 * sub.plan.rows_needed).min(most_fit_rows));
                        (&wide, wide.len())
                    } else {
                        (&rows, n)
                    };
                    let cost = |e: &GnEffort| (n * e.steps * (e.cg + 2) * (1 + e.restarts)) as f64;
                    let cheap = GnEffort {
                        steps: 4,
                        cg: 40,
                        restarts: 0,
                    };
                    // Out of budget for a full fit: a few refining steps if they fit, else keep
                    // the last fit (it still codes).
                    let budget = sub.plan.budget(categories);
                    // A category layout whose full fit at 1.5x its parameters' rows or more left
                    // it behind the marginal lacks a category (measured: width 3 seed 1, two of
                    // three categories at 710 rows, a second full fit of them spent the budget
                    // the third needed at 1,598): cheap steps until the layout changes. One
                    // full fit below 1.5x gets a second at 1.5x.
                    let second = sub.plan.layout_full_fits == 1
                        && 2 * sub.plan.last_full_rows < 3 * sub.plan.rows_needed
                        && 2 * sent.len() >= 3 * sub.plan.rows_needed;
                    let behind = sub.plan.layout_full_fits > 0 && !ahead && !second;
                    // A first full fit that stopped above the noise: retried from where it
                    // stopped (`FitPlan::retry_rows`).
                    let retry = sub
                        .plan
                        .retry_rows(categories, lam, most_fit_rows)
                        .is_some_and(|at| {
                            sent.len() >= at && 2 * sent.len() < 3 * sub.plan.rows_needed
                        })
                        && categories
                        && !locked;
                    let effort = if retry {
                        RETRY_EFFORT
                    } else if categories && !locked && behind {
                        cheap
                    } else {
                        effort
                    };
                    // A full fit over the budget with a second start: the one start if it fits.
                    let effort = if effort.restarts > 0 && sub.plan.work + cost(&effort) > budget {
                        GnEffort {
                            restarts: 0,
                            ..effort
                        }
                    } else {
                        effort
                    };
                    let effort = if locked {
                        if !sub.plan.refine_allowed(cost(&effort)) {
                            continue;
                        }
                        effort
                    } else if sub.plan.work + cost(&effort) <= budget {
                        if !under && effort.steps >= 30 && !retry {
                            sub.full_fits += 1;
                            sub.plan.layout_full_fits += 1;
                            sub.plan.last_full_rows = sent.len();
                            if categories
                                && sub.plan.layout_full_fits == 1
                                && 2 * sent.len() < 3 * sub.plan.rows_needed
                            {
                                sub.before_first_full =
                                    sub.latent.as_ref().map(|l| (m.clone(), l.clone()));
                            }
                        }
                        effort
                    } else if sub.fitted && sub.plan.work + cost(&cheap) <= budget {
                        cheap
                    } else {
                        continue;
                    };
                    if effort.steps >= 30 {
                        sub.grown = false;
                    }
                    // A full fit of a category layout still converging fast when its steps
                    // run out goes on, as far as the budget allows (each start). Measured,
                    // seed 0, N = 5,000: width 4 depth 1 at 1,770 rows reached the noise in 38
                    // steps (rmse 20 at 30, locked in 900 rows later: 3.67x -> 2.65x), depth 2
                    // in 52 (4.33x -> 2.22x).
                    let step_cost = (n * (effort.cg + 2) * (1 + effort.restarts)) as f64;
                    m.extend = if effort.steps >= 30 && categories {
                        let reserve = if retry {
                            sub.plan.second_reserve(most_fit_rows)
                        } else {
                            0.0
                        };
                        let left = (budget - sub.plan.work - cost(&effort) - reserve).max(0.0);
                        ((left / step_cost) as usize).min(MAX_EXTEND)
                    } else {
                        0
                    };
                    // The second full fit starts where the first did (its maps carried to the
                    // categories now): the first one's basin held the fits warm-started from
                    // it, and so did a random start (measured: width 4 depth 4 and depth 1,
                    // rmse 85-90 at 1.25x, 92-122 after 30 more steps at 1.5x).
                    if !locked
                        && !under
                        && effort.steps >= 30
                        && second
                        && !ahead
                        && let (Some((start, old)), Some(latent)) =
                            (sub.before_first_full.take(), sub.latent.as_ref())
                    {
                        m.maps = latent.carry_maps(&old, &start.maps, 2 * d * d);
                        m.emb = start.emb;
                        m.n_rules = latent.n_rules();
                    }
                    // The prior leads a fit from a poor start into the data's basin; a
                    // locked-in fit is in it already, and refines by least squares.
                    m.ridge = if locked { 0.0 } else { LINEAR_RIDGE };
                    let sse = m.fit(&self.br, &sub.keys, w, &y, rows, effort, z_scale, seed);
                    let taken = (n * (effort.cg + 2) * m.steps_taken) as f64;
                    if locked {
                        sub.plan.locked_work += cost(&effort).max(taken);
                    } else {
                        sub.plan.work += cost(&effort).max(taken);
                    }
                    sub.plan.train_rmse = (sse / (n * d) as f64).sqrt();
                    if std::env::var_os("KCOMP_TREE_TRACE").is_some() {
                        let c = sub.latent.as_ref().map_or(1, |l| l.active);
                        // Each start's training error and steps (random starts, then the
                        // best refined).
                        let starts: Vec<String> = m
                            .start_outcomes
                            .iter()
                            .map(|&(s, k)| format!("{:.4}/{k}", (s / (n * d) as f64).sqrt()))
                            .collect();
                        eprintln!(
                            "tree linear c={c}: sent {} fit rows {n} steps {} cg {} rmse {:.4} (starts rmse/steps {}) work {:.2e}; since the last fit {:.0} bits, marginal {:.0}",
                            sent.len(),
                            m.steps_taken,
                            m.cg_taken,
                            sub.plan.train_rmse,
                            starts.join(" "),
                            sub.plan.work,
                            recent.0,
                            recent.1
                        );
                    }
                }
            }
            sub.fitted = true;
        }
    }
}

impl OnlineLearner for TreeLearner {
    fn name(&self) -> String {
        "tree".into()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let mut mix = self.mix.clone();
        rows.iter()
            .map(|&r| {
                let comps = self.component_bits(w, z, r);
                let t = self.totals(&comps);
                let b = mix.update(&t);
                self.last = Some((r, comps));
                b
            })
            .collect()
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let Targets::Continuous { grid, .. } = z else {
            return;
        };
        let d = self.dim;
        for &r in &sent[sent.len() - n_new..] {
            let comps = match self.last.take() {
                Some((lr, c)) if lr == r => c,
                _ => self.component_bits(w, z, r),
            };
            let t = self.totals(&comps);
            self.mix.update(&t);
            for (sub, (bits, &tot)) in self.subs.iter_mut().zip(comps[1..].iter().zip(&t[1..])) {
                if bits.is_empty() {
                    continue;
                }
                sub.recent.0 += tot;
                sub.recent.1 += t[0];
                for (j, mixture) in sub.sigma.iter_mut().enumerate() {
                    mixture.update(&bits[j * SIGMA_STEPS..(j + 1) * SIGMA_STEPS]);
                }
            }
            self.marginal.n += 1.0;
            for j in 0..d {
                let x = grid[r * d + j] as f64 * self.lam;
                self.marginal.s1[j] += x;
                self.marginal.s2[j] += x * x;
            }
        }
        let lam = self.lam;
        let y = |r: usize, j: usize| grid[r * d + j] as f64 * lam;
        if sent.len() >= self.next_fit || self.categories_due(&y, sent) {
            self.refit(w, z, sent);
            self.next_fit = self.next_checkpoint(sent.len());
            self.last_probe = sent.len();
        }
    }
}
