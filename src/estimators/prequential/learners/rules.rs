//! A discrete rule learner for the online scheme: W -> Z read as a lexicon with
//! exceptions, learned without knowing which message positions say what.
//!
//! A row's code is a hierarchy of predictors, each a Bayesian or Dirichlet mixture, so the
//! learner pays only for what the data show:
//!
//! - **whole-message memory** (a Dirichlet-process cell per distinct message, two
//!   concentrations and "no memory" mixed): a message already sent predicts the objects it
//!   named before, and
//!   backs off to the level below for anything new;
//! - **rule or exception** for a new message: the per-attribute rules below with probability
//!   `1 - eps`, an arbitrary object with probability `eps` (both estimated online, the object
//!   drawn uniformly among the objects no other message names yet: a holistic map of n objects
//!   costs about log2 O!/(O - n)!);
//! - **per-attribute rules**: for each attribute a Bayesian mixture over context sets (no
//!   context, each message position, each pair of positions) and two Dirichlet strengths; a
//!   context's cells hold value counts. A cell seen for the first time draws its value
//!   *bijection-aware*: values another cell of the same context already took are less likely
//!   (their share is learned), so a lexicon of V words per attribute costs about log2 V! bits.
//!   The strength 1/32 (near-deterministic cells) takes 3/4 of a context's prior, the
//!   strength 1 (noisy cells) 1/4: lexicons are the common case, and each bit of prior a
//!   hypothesis loses is paid once per attribute in codes of a few tens of bits;
//! - **joint mode** of the rules (beside the full and the single-position mode), when
//!   messages have few positions: every assignment of one position to each attribute, a
//!   Bayesian mixture, each with its own one-value cells whose posterior is filtered with that
//!   assignment's own probability of the row, so a lexicon that only a quarter of the objects
//!   keep is still found (see [`Joint`]).
//!
//! **New messages.** A message no earlier row sent is coded by a Bayesian mixture (prior
//! [`SAMPLER_PRIOR`]) of all the above and the [`LexiconSampler`]: exact Bayes over "a lexicon
//! with holistic exceptions" given each sampled lexicon, the lexicons sampled by MCMC. Where
//! only a quarter of the objects keep their lexicon message, the cells above never tell the
//! lexicon from the exceptions, and the sampler does (language 2 x 8 at h = 0.75: about 292
//! bits against 318 before, h = 1 302).
//!
//! **Bases.** The learner is a Bayesian mixture of such hierarchies, each coding Z in its own
//! basis: Z as given, and (for up to [`RuleSettings::sum_diff_max_attrs`] attributes) every
//! pair of attributes (a, b) replaced by their difference a - b and sum a + b, an invertible
//! map of Z (the sum is coded after the difference, among the sums that difference allows). A
//! message position may say a combination of attributes rather than one of them: in Korbak et
//! al.'s non-trivially compositional protocol the first token names i - j and the second
//! i + j, so in the sum/difference basis each is a one-position lexicon and the learner pays
//! about two lexicons instead of one cell per message.
//!
//! Rows an exception explains teach the rules with their posterior weight only, so holistic
//! exceptions do not blur the lexicon. Every update is a function of rows already coded; `code`
//! changes nothing. Hash maps are only looked up, never iterated, so the result does not depend
//! on their order.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::super::switching::log2_sum_exp2;
use super::OnlineLearner;
use super::lexicon_sampler::LexiconSampler;
use crate::dataset::{Targets, TokenData};

/// Dirichlet strengths of the cell estimators (near-deterministic cells, noisy cells, and
/// cells whose value is drawn afresh every time: infinite strength, the base distribution).
const ALPHAS: [f64; 3] = [1.0 / 32.0, 1.0, f64::INFINITY];
/// Concentrations of the whole-message memory.
/// Prior of the strengths of [`ALPHAS`] in every cell. Each cell learns its own mixture: in
/// one context some cells may be a lexicon entry and others noise (an attribute a message
/// form leaves unsaid), so a per-context strength would pay several bits on every noisy row.
const ALPHA_PRIOR: [f64; 3] = [30.0 / 32.0, 1.0 / 32.0, 1.0 / 32.0];
/// Prior of the full and the single-position mode of the per-attribute rules.
const MODE_PRIOR: [f64; 2] = [0.75, 0.25];
/// The same with the joint mode (full, single, joint), when it runs: the joint mode takes a
/// third of the full mode's share.
const MODE_PRIOR_JOINT: [f64; 3] = [0.5, 0.25, 0.25];
/// The joint mode runs when there are at most this many assignments of one position to
/// every attribute (positions^attributes; 4 for 2-token messages of 2 attributes, 27 for 3 of
/// 3; padded messages double the positions, so variable-length messages go without it).
const JOINT_MAX: usize = 32;

/// Prior of Z as given among the bases (the sum/difference bases share the rest).
const IDENTITY_PRIOR: f64 = 0.75;
/// The last one is infinite: no memory, every row straight from the level below (messages
/// that name many objects at random, e.g. a context-dependent unsaid attribute, where any
/// finite concentration overweights the objects a message named before). Prior
/// [`MEM_PRIOR`].
/// The smallest (1/512) is for messages that always name one object: a repeat then costs
/// about alpha / (n ln 2) bits, 0.1-0.4 bit per message over a few to a hundred repeats at
/// 1/16.
const MEM_ALPHAS: [f64; 4] = [1.0 / 512.0, 1.0 / 16.0, 2.0, f64::INFINITY];
const MEM_PRIOR: [f64; 4] = [0.3, 0.3, 0.3, 0.1];

/// log2 of the memory's P(object) with concentration `al`: the object's count `n_z` among
/// `total` and the level below's log2 P `base` (`base` itself when `al` is infinite).
fn mem_log2(al: f64, n_z: f64, total: f64, base: f64) -> f64 {
    if al.is_infinite() {
        return base;
    }
    log2_sum_exp2([n_z.log2(), al.log2() + base].into_iter()) - (total + al).log2()
}
/// Prior pseudo-count of the rare event in the learned shares (exceptions among new messages,
/// taken values among new cells): Beta(1/8, 7/8), so that a stream without them pays about
/// (1/8) log2 n bits for the share instead of KT's (1/2) log2 n.
const RARE: f64 = 0.125;
/// Settings of the rule learner (`--learners rules:key=value:...`, or a `kind = "rules"` table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleSettings {
    /// Messages up to this length take every pair of positions as a context; longer ones take
    /// adjacent pairs only (the number of contexts, hence time and memory, grows with its
    /// square).
    pub all_pairs_max_len: usize,
    /// Z with up to this many attributes is also coded in the sum/difference bases (one per
    /// pair of attributes: A (A - 1) / 2 more hierarchies, each as costly as the first); 0
    /// turns them off.
    pub sum_diff_max_attrs: usize,
}

impl Default for RuleSettings {
    fn default() -> Self {
        RuleSettings {
            all_pairs_max_len: 12,
            sum_diff_max_attrs: 3,
        }
    }
}

impl RuleSettings {
    /// `key=value` pairs joined by `:` (the part of `rules:...` after the name).
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let mut s = RuleSettings::default();
        for kv in text.split(':').filter(|t| !t.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("rules: `{}` is not key=value", kv.escape_debug()))?;
            let n: usize = v.trim().parse().map_err(|_| {
                format!(
                    "rules: `{}` needs a whole number, got `{}`",
                    k.escape_debug(),
                    v.escape_debug()
                )
            })?;
            match k.trim() {
                "all_pairs_max_len" => s.all_pairs_max_len = n,
                "sum_diff_max_attrs" => s.sum_diff_max_attrs = n,
                other => {
                    return Err(format!(
                        "unknown rules setting `{}` (all_pairs_max_len, sum_diff_max_attrs)",
                        other.escape_debug()
                    ));
                }
            }
        }
        s.validate()?;
        Ok(s)
    }

    /// Bounds that keep the context count and the number of bases small.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.all_pairs_max_len > 64 {
            return Err("rules: all_pairs_max_len must be <= 64".into());
        }
        if self.sum_diff_max_attrs > 8 {
            return Err("rules: sum_diff_max_attrs must be <= 8".into());
        }
        Ok(())
    }

    /// The settings as the suffix of a learner name (`""` for the defaults).
    pub fn suffix(&self) -> String {
        let d = RuleSettings::default();
        let mut s = String::new();
        if self.all_pairs_max_len != d.all_pairs_max_len {
            s.push_str(&format!(":all_pairs_max_len={}", self.all_pairs_max_len));
        }
        if self.sum_diff_max_attrs != d.sum_diff_max_attrs {
            s.push_str(&format!(":sum_diff_max_attrs={}", self.sum_diff_max_attrs));
        }
        s
    }

    /// Contexts of messages of length `l`: none, each position, the pairs; with a padding token
    /// (`padded`) also each position counted from the message end.
    pub fn n_contexts(&self, l: usize, padded: bool) -> usize {
        let pairs = if l <= self.all_pairs_max_len {
            l * l.saturating_sub(1) / 2
        } else {
            l.saturating_sub(1)
        };
        let from_end = if padded { l } else { 0 };
        1 + l + pairs + from_end
    }

    /// Hierarchies (bases) run for `n_attr` attributes.
    pub fn n_bases(&self, n_attr: usize) -> usize {
        if n_attr >= 2 && n_attr <= self.sum_diff_max_attrs {
            1 + n_attr * (n_attr - 1) / 2
        } else {
            1
        }
    }
}
/// Largest number of (cell, attribute, value) counts the learner may hold (f64 each).
pub const MAX_RULE_COUNTS: usize = 1 << 26;

/// How a new cell's value is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// Uniform over the values.
    Plain,
    /// Values no other cell of the context took are likelier.
    Global,
}

/// One hypothesis of an attribute's mixture.
#[derive(Debug, Clone, Copy)]
struct Hyp {
    ctx: usize,
    variant: Variant,
    log2_prior: f64,
}

/// A context set: the positions whose tokens index its cells, and its cells.
struct Ctx {
    pos: Vec<usize>,
    cells: HashMap<u64, usize>,
    /// Per (cell, attribute, value) weighted counts.
    counts: Vec<f64>,
    /// Per (cell, attribute) totals and assigned value (`u32::MAX`: none).
    totals: Vec<f64>,
    assigned: Vec<u32>,
    /// Per (attribute, value): cells whose assigned value it is.
    global: Vec<u32>,
    /// Per (cell, attribute): log2 weights of the strengths of [`ALPHAS`].
    alpha_lw: Vec<[f64; 3]>,
    /// Per attribute: weighted (taken events, new-cell events).
    rho: Vec<(f64, f64)>,
}

/// One attribute's cells under one joint assignment. A cell holds one value (a lexicon
/// entry); its posterior over the values is filtered row by row (assumed-density filtering):
/// a row multiplies the posterior of its value by P(row | cell = value) / P(row | cell =
/// another value) = (keep * P(other attributes) + exception) / exception, so a row an
/// exception explains leaves the cell nearly as it was, instead of adding a count the
/// near-deterministic strength would trust.
#[derive(Default)]
struct JointTable {
    cells: HashMap<u64, usize>,
    /// Per (cell, value): posterior probability of the cell's value.
    post: Vec<f64>,
    /// Per cell: the value of posterior above 1/2, if any (u32::MAX otherwise).
    assigned: Vec<u32>,
    /// Per value: cells whose assigned value it is.
    global: Vec<u32>,
    /// Weighted (taken events, new-cell events).
    rho: (f64, f64),
}

/// The joint mode: every assignment of one single-position context to each attribute, each
/// with its own cells, filtered with that assignment's *own* probability of the row (the
/// other attributes read from their cells under the same assignment). Exceptions are equally
/// likely under every assignment, the rule rows only under the right one, so where most
/// objects are holistic the right assignment keeps the evidence of its few lexicon rows,
/// which the per-attribute mixtures (every context taught with the other attributes at their
/// mixtures) spread among many exceptions. It costs one table lookup per assignment and
/// attribute per row, hence [`JOINT_MAX`].
struct Joint {
    /// Per assignment: the context index per attribute.
    assign: Vec<Vec<usize>>,
    log_w: Vec<f64>,
    /// Per (assignment, attribute).
    tables: Vec<JointTable>,
}

/// A distinct message: the objects it named and how often.
#[derive(Default)]
struct MsgCell {
    objects: Vec<(u32, f64)>,
    total: f64,
}

/// What one row costs under the current state, with the parts the update needs.
struct RowEval {
    /// The row's key and cell in every context.
    keys: Vec<u64>,
    cells: Vec<Option<usize>>,
    /// log2 p of the row's value per (attribute, hypothesis).
    hyp: Vec<f64>,
    /// The same per strength of [`ALPHAS`] (the cells' own mixtures learn from it).
    palpha: Vec<[f64; 3]>,
    rule: f64,
    /// log2 P of each attribute's value under its hypothesis mixture, in the full and the
    /// single-position mode, and of the row in each mode (`rule` mixes them).
    rule_a: Vec<f64>,
    single_a: Vec<f64>,
    /// log2 P of the row per joint assignment (empty without the joint mode).
    joint_h: Vec<f64>,
    /// Per joint assignment and attribute: the cell the row falls in, and log2 p of the
    /// row's value.
    joint_cells: Vec<Option<usize>>,
    joint_pa: Vec<f64>,
    modes: Vec<f64>,

    /// log2 (eps P(exception)).
    exc: f64,
    base: f64,
    log2_keep: f64,
    /// log2 P of each memory concentration (seen message).
    mem: Option<[f64; 4]>,
    /// Posterior that the level below the memory produced the row (1 for a new message).
    from_base: f64,
    total: f64,
    obj: Option<u32>,
    /// The object was named by another message before.
    taken_by_other: bool,
    /// The rules' own object for this message (see [`RuleCore::lexicon_object`]) is named by
    /// another message: the message is likelier an exception.
    star_taken: bool,
    /// The rules' object for this message, if they name one.
    star: Option<Vec<u32>>,
    /// The exception's orphan pool was not empty and the row's object is in it.
    orphan_pool: bool,
    in_orphans: bool,
}

/// One hierarchy of the rule learner, coding Z in one basis.
struct RuleCore {
    n_attr: usize,
    /// Table stride: the most values any (transformed) attribute takes.
    n_vals: usize,
    /// Values of each (transformed) attribute.
    nvals: Vec<usize>,
    /// `Some((a, b))`: attributes a and b are coded as a - b + (V_b - 1) (at a) and a + b (at b).
    sum_diff: Option<(usize, usize)>,
    /// Values of the original attributes.
    orig_vals: usize,
    vocab: u64,
    ctxs: Vec<Ctx>,
    hyps: Vec<Hyp>,
    /// log2 weights per (attribute, hypothesis).
    log_w: Vec<f64>,
    /// The same in the single-position mode: every attribute reads one position (uniform
    /// prior over them, `-inf` elsewhere). The two modes are mixed jointly over the attributes
    /// (`mode_lw`), so when each attribute reads one position (a lexicon, a grid's cells) the
    /// choice costs log2 (positions) bits per attribute instead of the full prior's share.
    log_w_single: Vec<f64>,
    mode_lw: Vec<f64>,
    joint: Option<Joint>,
    msgs: HashMap<Vec<u32>, MsgCell>,
    /// Interned objects: id and the number of distinct messages that named it.
    objects: HashMap<Vec<u32>, (u32, u32)>,
    /// The same count per object id.
    named: Vec<u32>,
    /// Per object id: the object is an orphan.
    orphan_id: Vec<bool>,
    /// (exception weight, new messages), for messages whose lexicon object is free.
    exc: (f64, f64),
    /// The same for messages whose lexicon object another message already names.
    exc_taken: (f64, f64),
    /// Orphans: the lexicon objects of messages seen naming another object. In a world where
    /// each object has one message, an orphan is provably named by some other message: an
    /// exception draws among the orphans no message names yet (share `orphan_rho`).
    orphans: HashSet<Vec<u32>>,
    /// Orphans some message names.
    orphans_named: usize,
    /// (weight of exceptions whose object was in the orphan pool, weight of exceptions with a
    /// non-empty pool).
    orphan_rho: (f64, f64),
    /// Messages learned as exceptions with the object they named (the orphans are recomputed
    /// from them as the rules mature).
    exc_msgs: Vec<(Vec<u32>, Vec<u32>)>,
    /// Rows learned, and the row count at which the orphans are next recomputed.
    learned: usize,
    next_orphans: usize,
    /// While the rules are re-learned from the rows sent so far: the exception rates (new
    /// message with a free / a taken lexicon object) estimated before, held fixed.
    eps_fixed: Option<[f64; 2]>,
    /// (weight of exceptions naming an object already named, weight of exceptions).
    obj_rho: (f64, f64),
    log2_objects: f64,
    mem_log_w: [f64; 4],
    /// Message length (W's columns) and the padding token, if W has one: context positions
    /// from `l` on count from the message end (`l` is its last real token).
    l: usize,
    pad: Option<u32>,
}

impl RuleCore {
    fn new(
        w: &TokenData,
        n_attr: usize,
        orig_vals: usize,
        sum_diff: Option<(usize, usize)>,
        settings: &RuleSettings,
        pad: Option<u32>,
    ) -> Self {
        let (a, l) = (n_attr, w.n_words);
        let mut nvals = vec![orig_vals; a];
        if let Some((x, y)) = sum_diff {
            nvals[x] = 2 * orig_vals - 1;
            nvals[y] = 2 * orig_vals - 1;
        }
        let v = nvals.iter().copied().max().unwrap_or(orig_vals);
        let mut ctx_pos: Vec<Vec<usize>> = vec![vec![]];
        ctx_pos.extend((0..l).map(|p| vec![p]));
        for p in 0..l {
            for q in p + 1..l {
                if l <= settings.all_pairs_max_len || q == p + 1 {
                    ctx_pos.push(vec![p, q]);
                }
            }
        }
        let mut n_single = l as f64;
        if pad.is_some() {
            // Positions from the end (the last real token, the one before, ...).
            ctx_pos.extend((l..2 * l).map(|p| vec![p]));
            n_single *= 2.0;
        }
        let n_pair = (ctx_pos.len() - 1 - n_single as usize) as f64;
        // Each single position's share of the singles' prior: with a padding token, positions
        // from the end take an eighth (the forward ones keep most of theirs: data whose
        // positions say what they say with or without padding pay 0.2 bit per attribute).
        let single_share = |p: usize| match (pad.is_some(), p < l) {
            (false, _) => 1.0 / l as f64,
            (true, true) => 0.875 / l as f64,
            (true, false) => 0.125 / l as f64,
        };
        // Prior: half to single positions, a quarter each to "no context" and to pairs (a
        // half without pairs), split evenly within.
        let (p_empty, p_single, p_pair) = if n_pair > 0.0 {
            (0.25, 0.5, 0.25)
        } else {
            (0.5, 0.5, 0.0)
        };
        let mut hyps = Vec::new();
        for (c, pos) in ctx_pos.iter().enumerate() {
            let (variants, mass): (&[Variant], f64) = match pos.len() {
                0 => (&[Variant::Plain], p_empty),
                1 => (&[Variant::Global], p_single * single_share(pos[0])),
                _ => (&[Variant::Global], p_pair / n_pair),
            };
            for &variant in variants {
                hyps.push(Hyp {
                    ctx: c,
                    variant,
                    log2_prior: mass.log2(),
                });
            }
        }
        let log_w = (0..a)
            .flat_map(|_| hyps.iter().map(|h| h.log2_prior))
            .collect();
        let log_w_single = (0..a)
            .flat_map(|_| {
                hyps.iter().map(|h| {
                    if ctx_pos[h.ctx].len() == 1 {
                        single_share(ctx_pos[h.ctx][0]).log2()
                    } else {
                        f64::NEG_INFINITY
                    }
                })
            })
            .collect();
        // Joint assignments: one single-position context per attribute, prior the product of
        // the single positions' shares.
        let singles: Vec<usize> = (0..ctx_pos.len())
            .filter(|&c| ctx_pos[c].len() == 1)
            .collect();
        let n_assign = (singles.len() as f64).powi(a as i32);
        let joint = (a >= 2 && n_assign <= JOINT_MAX as f64).then(|| {
            let mut assign: Vec<Vec<usize>> = vec![vec![]];
            for _ in 0..a {
                assign = assign
                    .into_iter()
                    .flat_map(|h| {
                        singles.iter().map(move |&c| {
                            let mut h = h.clone();
                            h.push(c);
                            h
                        })
                    })
                    .collect();
            }
            let log_w = assign
                .iter()
                .map(|h| h.iter().map(|&c| single_share(ctx_pos[c][0]).log2()).sum())
                .collect();
            let tables = (0..assign.len() * a)
                .map(|_| JointTable {
                    global: vec![0; v],
                    ..Default::default()
                })
                .collect();
            Joint {
                assign,
                log_w,
                tables,
            }
        });
        let ctxs = ctx_pos
            .into_iter()
            .map(|pos| Ctx {
                pos,
                cells: HashMap::new(),
                counts: Vec::new(),
                totals: Vec::new(),
                assigned: Vec::new(),
                global: vec![0; a * v],
                alpha_lw: Vec::new(),
                rho: vec![(0.0, 0.0); a],
            })
            .collect();
        RuleCore {
            n_attr: a,
            n_vals: v,
            nvals,
            sum_diff,
            orig_vals,
            vocab: w.vocab as u64,
            ctxs,
            hyps,
            log_w,
            log_w_single,
            mode_lw: match &joint {
                Some(_) => MODE_PRIOR_JOINT.iter().map(|p| p.log2()).collect(),
                None => MODE_PRIOR.iter().map(|p| p.log2()).collect(),
            },
            joint,
            msgs: HashMap::new(),
            objects: HashMap::new(),
            named: Vec::new(),
            orphan_id: Vec::new(),
            exc: (0.0, 0.0),
            exc_taken: (0.0, 0.0),
            orphans: HashSet::new(),
            orphans_named: 0,
            orphan_rho: (0.0, 0.0),
            exc_msgs: Vec::new(),
            learned: 0,
            next_orphans: 8,
            eps_fixed: None,
            obj_rho: (0.0, 0.0),
            log2_objects: a as f64 * (orig_vals as f64).log2(),
            mem_log_w: MEM_PRIOR.map(f64::log2),
            l,
            pad,
        }
    }

    /// Row `row` of Z in this core's basis.
    fn zrow(&self, values: &[u32], row: usize) -> Vec<u32> {
        let na = self.n_attr;
        let mut z = values[row * na..(row + 1) * na].to_vec();
        if let Some((a, b)) = self.sum_diff {
            let (x, y) = (z[a], z[b]);
            z[a] = x + self.orig_vals as u32 - 1 - y;
            z[b] = x + y;
        }
        z
    }

    /// Which values attribute `a` may take given the row's attributes before it (`zt`):
    /// every value of its range, except the sum of a sum/difference pair, which must agree
    /// with the difference in parity and keep both attributes in range.
    fn allowed(&self, a: usize, zt: &[u32], out: &mut [bool]) {
        out.iter_mut()
            .enumerate()
            .for_each(|(x, o)| *o = x < self.nvals[a]);
        if let Some((da, sa)) = self.sum_diff
            && sa == a
            && da < a
        {
            let v = self.orig_vals as i64;
            let e = i64::from(zt[da]) - (v - 1);
            for (s, o) in out.iter_mut().enumerate() {
                let s = s as i64;
                let (twice_x, twice_y) = (s + e, s - e);
                *o = *o
                    && twice_x.rem_euclid(2) == 0
                    && (0..2 * v).contains(&twice_x)
                    && (0..2 * v).contains(&twice_y);
            }
        }
    }

    /// The cell key of positions `pos` of a message `toks`: positions from `l` on count from
    /// the end of the message (before its padding).
    fn key(&self, pos: &[usize], toks: &[u32]) -> u64 {
        let l = self.l;
        let len = match self.pad {
            Some(t) if pos.iter().any(|&p| p >= l) => {
                l - toks.iter().rev().take_while(|&&x| x == t).count()
            }
            _ => l,
        };
        pos.iter().fold(0u64, |k, &p| {
            let tok = if p < l {
                toks[p]
            } else {
                // The k-th token from the end (k = p - l + 1), the padding token if shorter.
                len.checked_sub(p - l + 1)
                    .map_or_else(|| self.pad.unwrap_or(0), |i| toks[i])
            };
            k.wrapping_mul(self.vocab) + tok as u64
        })
    }

    /// The key of a message (tokens `toks`) in every context.
    fn ctx_keys(&self, toks: &[u32]) -> Vec<u64> {
        self.ctxs.iter().map(|c| self.key(&c.pos, toks)).collect()
    }

    /// The cell of each context that a message with context keys `keys` falls in, if the
    /// context has it.
    fn cells_of(&self, keys: &[u64]) -> Vec<Option<usize>> {
        self.ctxs
            .iter()
            .zip(keys)
            .map(|(c, k)| c.cells.get(k).copied())
            .collect()
    }

    /// The object the rules name for a message that falls in `cells`: per attribute, the value
    /// that the cells of the hypotheses reading the message (one or two positions) assign, when
    /// hypotheses of posterior at least 1/2 agree on it.
    fn lexicon_object(&self, cells: &[Option<usize>]) -> Option<Vec<u32>> {
        let nh = self.hyps.len();
        let mut score = vec![0.0; self.n_vals];
        (0..self.n_attr)
            .map(|a| {
                score.iter_mut().for_each(|x| *x = 0.0);
                for (h, w) in self.hyps.iter().zip(&self.log_w[a * nh..(a + 1) * nh]) {
                    let c = &self.ctxs[h.ctx];
                    if c.pos.is_empty() {
                        continue;
                    }
                    if let Some(ci) = cells[h.ctx] {
                        let v = c.assigned[ci * self.n_attr + a];
                        if v != u32::MAX {
                            score[v as usize] += w.exp2();
                        }
                    }
                }
                let (v, s) = score
                    .iter()
                    .enumerate()
                    .max_by(|x, y| x.1.total_cmp(y.1).then(y.0.cmp(&x.0)))?;
                (*s > 0.5).then_some(v as u32)
            })
            .collect()
    }

    /// The exception rates of new messages whose lexicon object is free and taken.
    fn eps(&self) -> [f64; 2] {
        self.eps_fixed.unwrap_or([
            (self.exc.0 + RARE) / (self.exc.1 + 1.0),
            (self.exc_taken.0 + 0.5) / (self.exc_taken.1 + 1.0),
        ])
    }

    /// Makes `z` an orphan.
    fn add_orphan(&mut self, z: Vec<u32>) {
        if let Some(&(id, _)) = self.objects.get(&z)
            && !self.orphan_id[id as usize]
        {
            self.orphan_id[id as usize] = true;
            self.orphans_named += 1;
        }
        self.orphans.insert(z);
    }

    /// Recomputes the orphans from the exception messages with the current rules.
    fn recompute_orphans(&mut self) {
        let fresh: Vec<Vec<u32>> = self
            .exc_msgs
            .iter()
            .filter_map(|(toks, z)| {
                self.lexicon_object(&self.cells_of(&self.ctx_keys(toks)))
                    .filter(|s| s != z)
            })
            .collect();
        self.orphans.clear();
        self.orphan_id.iter_mut().for_each(|f| *f = false);
        self.orphans_named = 0;
        for z in fresh {
            self.add_orphan(z);
        }
    }

    /// Probability that a new cell of `ctx` takes value `v` for attribute `a`, among the
    /// `allowed` values (`n_allowed` of them; `v` is one).
    fn base_q(&self, h: &Hyp, a: usize, v: usize, allowed: &[bool], n_allowed: usize) -> f64 {
        let nv = self.n_vals;
        let c = &self.ctxs[h.ctx];
        match h.variant {
            Variant::Plain => 1.0 / n_allowed as f64,
            Variant::Global => bijection_aware_q(
                &c.global[a * nv..(a + 1) * nv],
                c.rho[a],
                v,
                allowed,
                n_allowed,
            ),
        }
    }

    fn eval(&self, w: &TokenData, values: &[u32], row: usize) -> RowEval {
        let (na, nv) = (self.n_attr, self.n_vals);
        let toks = w.row(row);
        let zt = self.zrow(values, row);
        let zv = &zt[..];
        // Per attribute: the values this row allows, and how many.
        let allowed_a: Vec<(Vec<bool>, usize)> = (0..na)
            .map(|a| {
                let mut al = vec![true; nv];
                self.allowed(a, zv, &mut al);
                let n = al.iter().filter(|&&o| o).count();
                (al, n)
            })
            .collect();
        let keys = self.ctx_keys(toks);
        let cells = self.cells_of(&keys);
        let nh = self.hyps.len();
        let mut hyp = vec![0.0; na * nh];
        let mut palpha = vec![[0.0; 3]; na * nh];
        let mut rule_a = vec![0.0; na];
        let mut single_a = vec![0.0; na];
        for a in 0..na {
            let v = zv[a] as usize;
            let (allowed, n_allowed) = (&allowed_a[a].0, allowed_a[a].1);
            for (k, h) in self.hyps.iter().enumerate() {
                let (cnt, tot, lw) = match cells[h.ctx] {
                    Some(ci) => {
                        let c = &self.ctxs[h.ctx];
                        let ia = ci * na + a;
                        (c.counts[ia * nv + v], c.totals[ia], c.alpha_lw[ia])
                    }
                    None => (0.0, 0.0, ALPHA_PRIOR.map(f64::log2)),
                };
                let q = if tot < 0.5 {
                    self.base_q(h, a, v, allowed, n_allowed)
                } else {
                    1.0 / n_allowed as f64
                };
                let pa = ALPHAS.map(|al| {
                    if al.is_infinite() {
                        q.log2()
                    } else {
                        ((cnt + al * q) / (tot + al)).log2()
                    }
                });
                hyp[a * nh + k] = log2_sum_exp2(lw.iter().zip(&pa).map(|(w, p)| w + p));
                palpha[a * nh + k] = pa;
            }
            let lw = &self.log_w[a * nh..(a + 1) * nh];
            rule_a[a] = log2_sum_exp2(
                lw.iter()
                    .zip(&hyp[a * nh..(a + 1) * nh])
                    .map(|(w, p)| w + p),
            );
            let lw = &self.log_w_single[a * nh..(a + 1) * nh];
            single_a[a] = log2_sum_exp2(
                lw.iter()
                    .zip(&hyp[a * nh..(a + 1) * nh])
                    .map(|(w, p)| w + p),
            );
        }
        let mut modes = vec![rule_a.iter().sum::<f64>(), single_a.iter().sum::<f64>()];
        let (mut joint_h, mut joint_cells, mut joint_pa) = (Vec::new(), Vec::new(), Vec::new());
        if let Some(j) = &self.joint {
            joint_cells = vec![None; j.assign.len() * na];
            joint_pa = vec![0.0; j.assign.len() * na];
            joint_h = j
                .assign
                .iter()
                .enumerate()
                .map(|(hi, h)| {
                    (0..na)
                        .map(|a| {
                            let t = &j.tables[hi * na + a];
                            let cell = t.cells.get(&keys[h[a]]).copied();
                            joint_cells[hi * na + a] = cell;
                            let v = zv[a] as usize;
                            let (al, n_al) = &allowed_a[a];
                            let p = match cell {
                                // The posterior among the values this row allows.
                                Some(c) => {
                                    let post = &t.post[c * nv..(c + 1) * nv];
                                    let tot: f64 =
                                        post.iter().zip(al).filter(|x| *x.1).map(|x| x.0).sum();
                                    if tot > 0.0 { post[v] / tot } else { 0.0 }
                                }
                                None => bijection_aware_q(&t.global, t.rho, v, al, *n_al),
                            };
                            let pa = p.log2();
                            joint_pa[hi * na + a] = pa;
                            pa
                        })
                        .sum::<f64>()
                })
                .collect();
            modes.push(log2_sum_exp2(
                j.log_w.iter().zip(&joint_h).map(|(w, p)| w + p),
            ));
        }
        let rule = log2_sum_exp2(self.mode_lw.iter().zip(&modes).map(|(w, p)| w + p));

        let msg = self.msgs.get(toks);

        let (obj, named_by) = match self.objects.get(zv) {
            Some(&(id, n)) => (Some(id), n),
            None => (None, 0),
        };
        let names = |id: u32| msg.is_some_and(|m| m.objects.iter().any(|x| x.0 == id));
        let in_own = obj.is_some_and(names);
        let taken_by_other = named_by > u32::from(in_own);
        let star = self.lexicon_object(&cells);
        let star_taken = star.as_ref().is_some_and(|s| {
            self.objects
                .get(s)
                .is_some_and(|&(id, n)| n > u32::from(names(id)))
        });
        // The orphan pool: orphans no message other than this one names (the same set for
        // every candidate object).
        let own_only = |orphan: bool| {
            msg.map_or(0, |m| {
                m.objects
                    .iter()
                    .filter(|x| {
                        self.named[x.0 as usize] == 1 && (!orphan || self.orphan_id[x.0 as usize])
                    })
                    .count()
            })
        };
        let pool = self.orphans.len() - self.orphans_named + own_only(true);
        let in_orphans = pool > 0 && !taken_by_other && self.orphans.contains(zv);
        // Exception: an object drawn among the orphan pool (learned share `s`), or uniformly
        // among those no other message names, or (with the learned share `r`) among all
        // objects.
        let exc_log2 = {
            let r = (self.obj_rho.0 + RARE) / (self.obj_rho.1 + 1.0);
            // The pool: objects no message other than this one names, the same set for every
            // candidate object (objects this message alone names stay in it), so the
            // exception's distribution sums to 1.
            let t = (self.objects.len() - own_only(false)) as f64;
            let lo = self.log2_objects;
            let untaken = if lo > 50.0 {
                -lo
            } else {
                -(lo.exp2() - t).max(1.0).log2()
            };
            // Every object named by another message: the draw is among all of them.
            let any = if lo <= 50.0 && lo.exp2() - t < 0.5 {
                -lo
            } else if taken_by_other {
                r.log2() - lo
            } else {
                log2_sum_exp2([(1.0 - r).log2() + untaken, r.log2() - lo].into_iter())
            };
            if pool > 0 {
                let s = (self.orphan_rho.0 + 0.5) / (self.orphan_rho.1 + 1.0);
                let from_pool = if in_orphans {
                    s.log2() - (pool as f64).log2()
                } else {
                    f64::NEG_INFINITY
                };
                log2_sum_exp2([from_pool, (1.0 - s).log2() + any].into_iter())
            } else {
                any
            }
        };
        let eps = self.eps()[usize::from(star_taken)];
        let log2_keep = (1.0 - eps).log2();
        let exc = eps.log2() + exc_log2;
        let base = log2_sum_exp2([log2_keep + rule, exc].into_iter());
        let mut from_base = 1.0;
        let (mem, total) = match msg {
            Some(m) => {
                let n_z = obj
                    .and_then(|o| m.objects.iter().find(|x| x.0 == o))
                    .map_or(0.0, |x| x.1);
                let p = MEM_ALPHAS.map(|al| mem_log2(al, n_z, m.total, base));
                let t = log2_sum_exp2(self.mem_log_w.iter().zip(&p).map(|(w, p)| w + p));
                // A repeat of what the message said before teaches the rules nothing new.
                let b = log2_sum_exp2(
                    self.mem_log_w
                        .iter()
                        .zip(MEM_ALPHAS)
                        .map(|(w, al)| w + mem_log2(al, 0.0, m.total, base)),
                );
                from_base = (b - t).exp2().clamp(0.0, 1.0);
                (Some(p), t)
            }
            None => (None, base),
        };
        RowEval {
            keys,
            cells,
            hyp,
            palpha,
            rule,
            rule_a,
            single_a,
            joint_h,
            joint_cells,
            joint_pa,
            modes,
            exc,
            base,
            log2_keep,
            mem,
            from_base,
            total,
            obj,
            taken_by_other,
            star_taken,
            star,
            orphan_pool: pool > 0,
            in_orphans,
        }
    }

    /// Learns row `row`, whose evaluation under the current state is `ev`.
    fn learn_row(&mut self, w: &TokenData, values: &[u32], row: usize, ev: RowEval) {
        let na = self.n_attr;
        let toks = w.row(row).to_vec();
        let zv = self.zrow(values, row);
        // Posterior weights of "the level below the memory produced this row" (`r`) and of
        // "... and it follows the rules" (`u`).
        let r = ev.from_base;
        let u = r * (ev.log2_keep + ev.rule - ev.base).exp2().clamp(0.0, 1.0);
        if let Some(p) = ev.mem {
            for (w, p) in self.mem_log_w.iter_mut().zip(p) {
                *w += p;
            }
            let t = log2_sum_exp2(self.mem_log_w.iter().copied());
            if t.is_finite() {
                self.mem_log_w.iter_mut().for_each(|w| *w -= t);
            }
        }
        let nh = self.hyps.len();
        // Each hypothesis is weighed by the row's probability under the whole model with it
        // (the other attributes at their mixtures, and the exception alternative), so a row
        // an exception explains moves no weight between hypotheses.
        for (mode, per_a) in [&ev.rule_a, &ev.single_a].into_iter().enumerate() {
            self.mode_lw[mode] +=
                r * log2_sum_exp2([ev.log2_keep + ev.modes[mode], ev.exc].into_iter());
            for (a, pa) in per_a.iter().enumerate() {
                let others = ev.log2_keep + ev.modes[mode] - pa;
                let lw = if mode == 0 {
                    &mut self.log_w[a * nh..(a + 1) * nh]
                } else {
                    &mut self.log_w_single[a * nh..(a + 1) * nh]
                };
                for (w, p) in lw.iter_mut().zip(&ev.hyp[a * nh..(a + 1) * nh]) {
                    *w += r * log2_sum_exp2([others + p, ev.exc].into_iter());
                }
                let t = log2_sum_exp2(lw.iter().copied());
                if t.is_finite() {
                    lw.iter_mut().for_each(|w| *w -= t);
                }
            }
        }
        if let Some(j) = self.joint.as_mut() {
            let mode = 2;
            self.mode_lw[mode] +=
                r * log2_sum_exp2([ev.log2_keep + ev.modes[mode], ev.exc].into_iter());
            let nv = self.n_vals;
            let all = vec![true; nv];
            for (hi, h) in j.assign.iter().enumerate() {
                let own = ev.log2_keep + ev.joint_h[hi];
                let t = log2_sum_exp2([own, ev.exc].into_iter());
                j.log_w[hi] += r * t;
                // This assignment's own posterior that the rules produced the row.
                let uh = r * (own - t).exp2().clamp(0.0, 1.0);
                if uh <= 0.0 {
                    continue;
                }
                for (a, &ci) in h.iter().enumerate() {
                    let tab = &mut j.tables[hi * na + a];
                    let v = zv[a] as usize;
                    let cell = match ev.joint_cells[hi * na + a] {
                        Some(c) => c,
                        None => {
                            // A new cell starts from the bijection-aware prior.
                            tab.rho.0 += uh * f64::from(u8::from(tab.global[v] > 0));
                            tab.rho.1 += uh;
                            let id = tab.assigned.len();
                            tab.cells.insert(ev.keys[ci], id);
                            let q: Vec<f64> = (0..nv)
                                .map(|x| bijection_aware_q(&tab.global, tab.rho, x, &all, nv))
                                .collect();
                            let s: f64 = q.iter().sum();
                            tab.post.extend(q.iter().map(|x| x / s));
                            tab.assigned.push(u32::MAX);
                            id
                        }
                    };
                    // P(row | cell = v) / P(row | cell = another value), tempered by the
                    // weight of "the level below the memory produced this row".
                    // (A sum rather than a difference: a value of zero posterior makes its
                    // log2 -inf.)
                    let others: f64 = (0..na)
                        .filter(|&b| b != a)
                        .map(|b| ev.joint_pa[hi * na + b])
                        .sum();
                    let lr = log2_sum_exp2([ev.log2_keep + others, ev.exc].into_iter()) - ev.exc;
                    let post = &mut tab.post[cell * nv..(cell + 1) * nv];
                    let f = (r * lr).exp2();
                    if f.is_finite() {
                        post[v] *= f;
                        let s: f64 = post.iter().sum();
                        post.iter_mut().for_each(|x| *x /= s);
                    } else {
                        post.iter_mut().for_each(|x| *x = 0.0);
                        post[v] = 1.0;
                    }
                    let old = tab.assigned[cell];
                    let new = (0..nv)
                        .find(|&x| post[x] > 0.5)
                        .map_or(u32::MAX, |x| x as u32);
                    if new != old {
                        if old != u32::MAX {
                            tab.global[old as usize] -= 1;
                        }
                        if new != u32::MAX {
                            tab.global[new as usize] += 1;
                        }
                        tab.assigned[cell] = new;
                    }
                }
            }
            let t = log2_sum_exp2(j.log_w.iter().copied());
            if t.is_finite() {
                j.log_w.iter_mut().for_each(|w| *w -= t);
            }
        }
        let t = log2_sum_exp2(self.mode_lw.iter().copied());
        if t.is_finite() {
            self.mode_lw.iter_mut().for_each(|w| *w -= t);
        }
        if u > 0.0 {
            for ci in 0..self.ctxs.len() {
                let pa: Vec<[f64; 3]> = (0..na).map(|a| ev.palpha[a * nh + ci]).collect();
                // Each context learns the row with the posterior that the rules produced it
                // *under that context* (the other attributes at their mixtures), so cells a
                // holistic exception contradicts stay clean.
                let uc: Vec<f64> = (0..na)
                    .map(|a| {
                        let own = ev.log2_keep + ev.modes[0] - ev.rule_a[a] + ev.hyp[a * nh + ci];
                        let t = log2_sum_exp2([own, ev.exc].into_iter());
                        r * (own - t).exp2().clamp(0.0, 1.0)
                    })
                    .collect();
                self.learn_cell(ci, ev.cells[ci], &toks, &zv, &uc, &pa);
            }
        }
        let e = r - u;
        if r > 0.0 {
            let ex = if ev.star_taken {
                &mut self.exc_taken
            } else {
                &mut self.exc
            };
            ex.0 += e;
            ex.1 += r;
            self.obj_rho.0 += e * f64::from(u8::from(ev.taken_by_other));
            self.obj_rho.1 += e;
            if ev.orphan_pool {
                self.orphan_rho.0 += e * f64::from(u8::from(ev.in_orphans));
                self.orphan_rho.1 += e;
            }
        }
        let next_id = self.objects.len() as u32;
        let obj = ev.obj.unwrap_or(next_id);
        let m = self.msgs.entry(toks.clone()).or_default();
        m.total += 1.0;
        let new_pair = match m.objects.iter_mut().find(|x| x.0 == obj) {
            Some(x) => {
                x.1 += 1.0;
                false
            }
            None => {
                m.objects.push((obj, 1.0));
                self.objects.entry(zv.clone()).or_insert((obj, 0)).1 += 1;
                if obj as usize == self.named.len() {
                    self.named.push(0);
                    let orphan = self.orphans.contains(&zv);
                    self.orphan_id.push(orphan);
                    self.orphans_named += usize::from(orphan);
                }
                self.named[obj as usize] += 1;
                true
            }
        };
        // A message seen naming an object its rules do not name: its lexicon object is an
        // orphan.
        if new_pair && e > 0.5 {
            if let Some(s) = ev.star.filter(|s| *s != zv) {
                self.add_orphan(s);
            }
            self.exc_msgs.push((toks, zv));
        }
        self.learned += 1;
        if self.learned >= self.next_orphans {
            self.recompute_orphans();
            self.next_orphans = self.learned + (self.learned / 8).max(8);
        }
    }

    /// Teaches cell `cell` of context `ci` the row (tokens `toks`, values `zv`) with weight `u`;
    /// `pa` are the row's log2 p per attribute and strength under the cell before it learns.
    fn learn_cell(
        &mut self,
        ci: usize,
        cell: Option<usize>,
        toks: &[u32],
        zv: &[u32],
        uc: &[f64],
        pa: &[[f64; 3]],
    ) {
        let (na, nv) = (self.n_attr, self.n_vals);
        let key = self.key(&self.ctxs[ci].pos, toks);
        let c = &mut self.ctxs[ci];
        let cell = cell.unwrap_or_else(|| {
            let id = c.totals.len() / na;
            c.cells.insert(key, id);
            c.counts.resize(c.counts.len() + na * nv, 0.0);
            c.totals.resize(c.totals.len() + na, 0.0);
            c.assigned.resize(c.assigned.len() + na, u32::MAX);
            c.alpha_lw
                .resize(c.alpha_lw.len() + na, ALPHA_PRIOR.map(f64::log2));
            id
        });
        for a in 0..na {
            let (v, u) = (zv[a] as usize, uc[a]);
            let ia = cell * na + a;
            let lw = &mut c.alpha_lw[ia];
            lw.iter_mut().zip(pa[a]).for_each(|(w, p)| *w += u * p);
            let t = log2_sum_exp2(lw.iter().copied());
            if t.is_finite() {
                lw.iter_mut().for_each(|w| *w -= t);
            }
            if c.totals[ia] < 0.5 && !c.pos.is_empty() {
                // A new cell: was its value taken (bijection-aware base, learned share)?
                let g = c.global[a * nv + v] > 0;
                c.rho[a].0 += u * f64::from(u8::from(g));
                c.rho[a].1 += u;
            }
            c.counts[ia * nv + v] += u;
            c.totals[ia] += u;
            let old = c.assigned[ia];
            let best = if old == u32::MAX {
                (c.counts[ia * nv + v] >= 0.5).then_some(v as u32)
            } else if old as usize != v && c.counts[ia * nv + v] > c.counts[ia * nv + old as usize]
            {
                Some(v as u32)
            } else {
                None
            };
            if let Some(new) = best {
                if old != u32::MAX {
                    c.global[a * nv + old as usize] -= 1;
                }
                c.global[a * nv + new as usize] += 1;
                c.assigned[ia] = new;
            }
        }
    }
}

/// Probability that a new cell takes value `v` among the `allowed` values (`n_allowed` of
/// them), bijection-aware: a value no cell has taken (`global[x] == 0`) is likelier, with the
/// learned share `rho` = (weighted new cells that took a taken value, weighted new cells) of
/// draws that ignore the other cells.
fn bijection_aware_q(
    global: &[u32],
    rho: (f64, f64),
    v: usize,
    allowed: &[bool],
    n_allowed: usize,
) -> f64 {
    let uniform = 1.0 / n_allowed as f64;
    let n_untaken = global
        .iter()
        .zip(allowed)
        .filter(|(x, ok)| **ok && **x == 0)
        .count();
    if n_untaken == 0 {
        return uniform;
    }
    let r = (rho.0 + RARE) / (rho.1 + 1.0);
    let fresh = if global[v] > 0 {
        0.0
    } else {
        (1.0 - r) / n_untaken as f64
    };
    fresh + r * uniform
}

/// The rule learner (see the module documentation): a Bayesian mixture of [`RuleCore`]s, Z as
/// given (prior [`IDENTITY_PRIOR`]) and each sum/difference basis (the rest, split evenly),
/// mixed on new messages with the [`LexiconSampler`].
pub struct RuleLearner {
    cores: Vec<RuleCore>,
    log_w: Vec<f64>,
    name: String,
    settings: RuleSettings,
    pad: Option<u32>,
    /// Rows sent after which the cores are next re-learned.
    next_relearn: usize,
    /// The lexicon-with-exceptions sampler, mixed with the cores on new messages only, and
    /// the log2 weights of (cores, sampler) there.
    sampler: Option<LexiconSampler>,
    sampler_log_w: [f64; 2],
    /// Messages learned so far (a new one is coded by the mixture with the sampler).
    seen: HashSet<Vec<u32>>,
}

/// Prior of the lexicon sampler against the cores on new messages.
const SAMPLER_PRIOR: f64 = 0.5;
/// The sampler is dropped once its weight falls this many bits below the cores'.
const SAMPLER_DROP_BITS: f64 = 64.0;

/// Rows sent at the first re-learning; each next one comes after [`RELEARN_FACTOR`] times as
/// many.
const RELEARN_FIRST: usize = 16;
const RELEARN_FACTOR: usize = 4;

impl RuleLearner {
    /// `None` for continuous Z or when the worst-case tables exceed [`MAX_RULE_COUNTS`].
    /// With a padding token `pad` the contexts also count positions from the message end, and
    /// the name says so (`rules+pad=T`).
    pub fn new(
        w: &TokenData,
        z: &Targets,
        settings: &RuleSettings,
        pad: Option<u32>,
    ) -> Option<Self> {
        let Targets::Discrete { n_attr, n_vals, .. } = z else {
            return None;
        };
        let (a, v) = (*n_attr, *n_vals);
        let mut bases = vec![None];
        if settings.n_bases(a) > 1 {
            for x in 0..a {
                bases.extend((x + 1..a).map(|y| Some((x, y))));
            }
        }
        // Worst case: every row opens a new cell in every context of every basis.
        let worst = Self::worst_counts(w.n, w.n_words, a, v, settings, pad.is_some());
        if worst > MAX_RULE_COUNTS as f64 {
            return None;
        }
        let k = bases.len();
        let log_w = (0..k)
            .map(|i| match (i, k) {
                (_, 1) => 0.0,
                (0, _) => IDENTITY_PRIOR.log2(),
                _ => (1.0 - IDENTITY_PRIOR).log2() - ((k - 1) as f64).log2(),
            })
            .collect();
        Some(RuleLearner {
            cores: bases
                .into_iter()
                .map(|b| RuleCore::new(w, a, v, b, settings, pad))
                .collect(),
            log_w,
            name: match pad {
                Some(t) => format!("rules{}+pad={t}", settings.suffix()),
                None => format!("rules{}", settings.suffix()),
            },
            settings: *settings,
            pad,
            next_relearn: RELEARN_FIRST,
            sampler: match pad {
                Some(_) => None,
                None => LexiconSampler::new(w.n_words, w.vocab, a, v),
            },
            sampler_log_w: [(1.0 - SAMPLER_PRIOR).log2(), SAMPLER_PRIOR.log2()],
            seen: HashSet::new(),
        })
    }

    /// (cell, attribute, value) counts the tables may reach: `n` rows, each opening a cell in
    /// every context of every basis (a sum/difference basis has up to 2 V - 1 values).
    pub fn worst_counts(
        n: usize,
        l: usize,
        a: usize,
        v: usize,
        s: &RuleSettings,
        padded: bool,
    ) -> f64 {
        let bases = s.n_bases(a) as f64;
        let width = if bases > 1.0 {
            2.0 * v as f64
        } else {
            v as f64
        };
        n as f64 * s.n_contexts(l, padded) as f64 * a as f64 * width * bases
    }

    /// log2 P of row `row` per core.
    fn core_log2p(&self, w: &TokenData, values: &[u32], row: usize) -> Vec<f64> {
        self.cores
            .iter()
            .map(|c| c.eval(w, values, row).total)
            .collect()
    }

    /// log2 P of row `row` given the cores' mixture `core`: on a new message, mixed with the
    /// sampler.
    fn with_sampler(&mut self, w: &TokenData, values: &[u32], row: usize, core: f64) -> f64 {
        let msg = w.row(row);
        let Some(s) = self.sampler.as_mut().filter(|_| !self.seen.contains(msg)) else {
            return core;
        };
        let a = s.n_attr();
        let lex = s.log2p(msg, &values[row * a..(row + 1) * a]);
        let [wc, ws] = self.sampler_log_w;
        log2_sum_exp2([wc + core, ws + lex].into_iter())
    }

    /// On a new message (the cores' mixture gave it `core`): the sampler learns it, then the
    /// Bayes update of (cores, sampler); the sampler is dropped when it falls
    /// [`SAMPLER_DROP_BITS`] behind or stops learning.
    fn learn_sampler(&mut self, msg: &[u32], values: &[u32], r: usize, core: f64) {
        let Some(s) = self.sampler.as_mut() else {
            return;
        };
        self.seen.insert(msg.to_vec());
        if !s.active() {
            self.sampler = None;
            return;
        }
        let a = s.n_attr();
        let lex = s.learn(msg, &values[r * a..(r + 1) * a]);
        let lw = &mut self.sampler_log_w;
        lw[0] += core;
        lw[1] += lex;
        let t = log2_sum_exp2(lw.iter().copied());
        lw.iter_mut().for_each(|x| *x -= t);
        if lw[1].is_nan() || lw[1] <= lw[0] - SAMPLER_DROP_BITS {
            self.sampler = None;
        }
    }
}

impl OnlineLearner for RuleLearner {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let Targets::Discrete { values, .. } = z else {
            unreachable!("the rule learner is built for discrete Z only")
        };
        rows.iter()
            .map(|&r| {
                let p = self.core_log2p(w, values, r);
                let core = log2_sum_exp2(self.log_w.iter().zip(&p).map(|(w, p)| w + p));
                -self.with_sampler(w, values, r, core)
            })
            .collect()
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let Targets::Discrete { values, .. } = z else {
            return;
        };
        for &r in &sent[sent.len() - n_new..] {
            let evs: Vec<RowEval> = self.cores.iter().map(|c| c.eval(w, values, r)).collect();
            if self.sampler.is_some() && !self.seen.contains(w.row(r)) {
                let core = log2_sum_exp2(self.log_w.iter().zip(&evs).map(|(w, e)| w + e.total));
                self.learn_sampler(w.row(r), values, r, core);
            }
            if self.cores.len() > 1 {
                self.log_w
                    .iter_mut()
                    .zip(&evs)
                    .for_each(|(w, e)| *w += e.total);
                let t = log2_sum_exp2(self.log_w.iter().copied());
                if t.is_finite() {
                    self.log_w.iter_mut().for_each(|w| *w -= t);
                }
            }
            for (c, ev) in self.cores.iter_mut().zip(evs) {
                c.learn_row(w, values, r, ev);
            }
        }
        // Early rows were learned with the exception rate of the prior (a holistic exception
        // then taught the cells as if the rules made it): on a geometric schedule, each core
        // learns every row sent so far again, afresh, with the rates estimated so far.
        if sent.len() >= self.next_relearn {
            for c in self.cores.iter_mut() {
                let mut fresh = RuleCore::new(
                    w,
                    c.n_attr,
                    c.orig_vals,
                    c.sum_diff,
                    &self.settings,
                    self.pad,
                );
                fresh.eps_fixed = Some(c.eps());
                for &r in sent {
                    let ev = fresh.eval(w, values, r);
                    fresh.learn_row(w, values, r, ev);
                }
                fresh.eps_fixed = None;
                *c = fresh;
            }
            self.next_relearn = sent.len() * RELEARN_FACTOR;
        }
    }
}
