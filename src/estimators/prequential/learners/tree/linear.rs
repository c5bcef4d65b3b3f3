//! Linear rule maps over a parse tree: a node is `concat(x, y) A_rule` (A is 2D x D, one per
//! rule key), a leaf is its word's vector, the root is Z's mean.
//!
//! Fitting: the root is linear in the word vectors given the rules and linear in each rule's
//! map given the rest, so the design of each block is exact and cheap: for a node v with input
//! `x_v` and downstream operator `Q_v` (the product of the map blocks on the path from v to the
//! root, `z = h_v Q_v + ...`), the design of its rule map is `x_v (x) Q_v`; for a leaf it is
//! `Q_p`. A step solves the joint normal equations of every block at once (Gauss-Newton on the
//! block designs, Levenberg-Marquardt damping, conjugate gradients with a Jacobi
//! preconditioner): block-by-block alternating least squares crawls on these deep products
//! (measured in docs/prequential.md), the joint step does not.
//!
//! Deep products make the normal equations ill-conditioned, so a step's 40-60 CG iterations
//! solve them only in part and the fit crawls (measured on a width-1 depth-4 grammar: 1-5 %
//! less error per step, and a third of the CG runs thrown away on rejected steps). Two
//! remedies: CG starts from the last step (decayed: Martens 2010, "Deep learning via
//! Hessian-free optimization"), so the Krylov progress carries over from step to step; and a
//! rejected step is first shortened along its direction (backtracking: forward passes only)
//! before the damping grows and CG runs again.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use super::shape::{Bracketing, Child, Keys};
use crate::dataset::TokenData;

const BLOCK_PRECOND: bool = true;
/// Z's value in row `r`, dimension `j` (shared by the threads of a fit).
pub type Target<'a> = dyn Fn(usize, usize) -> f64 + Sync + 'a;
/// Rows per chunk of the parallel sums over rows (fixed, so they do not depend on the threads).
const ROW_CHUNK: usize = 128;
/// CG starts from the last accepted step times this (Martens 2010 uses 0.95).
const WARM_DECAY: f64 = 0.95;
/// Fractions of a step tried, in order, before a re-solve with more damping.
const BACKTRACK: &[f64] = &[1.0, 0.5, 0.25];

/// The word vectors and rule maps.
#[derive(Debug, Clone)]
pub struct LinearTree {
    pub vocab: usize,
    pub dim: usize,
    pub n_rules: usize,
    /// `emb[w * dim + j]`.
    pub emb: Vec<f64>,
    /// Map of rule k: `maps[k * 2 dim * dim + i * dim + j]`.
    pub maps: Vec<f64>,
    /// Prior variance of a map entry (word vectors: 1), set by [`Self::randomize`].
    pub map_var: f64,
    /// Weight of the Gaussian prior in a fit relative to the current mean squared error (0:
    /// least squares; see [`Self::fit`]).
    pub ridge: f64,
    /// Steps a fit may take past its planned ones while each still cuts the objective by more
    /// than [`EXTEND_GAIN`] (a fit from a random start converging fast when its plan ran out;
    /// see [`Self::fit`]).
    pub extend: usize,
    /// Conjugate gradients stop once the quadratic model stops improving (see
    /// `normal::CG_PROGRESS`) instead of running their planned iterations.
    pub truncate_cg: bool,
    /// Gauss-Newton steps the last [`Self::fit`] took, over all its starts.
    pub steps_taken: usize,
    /// Conjugate-gradient iterations the last [`Self::fit`] ran, over all its steps and starts.
    pub cg_taken: usize,
    /// The last [`Self::fit`]'s starts in the order tried (the random ones, then the best of
    /// them and the parameters before the fit, refined): sum of squared errors and steps.
    pub start_outcomes: Vec<(f64, usize)>,
}

/// A step cutting the objective by more than this fraction is far from converged: the fit
/// goes on past its planned steps (up to [`LinearTree::extend`] more). Measured, width 4 depth
/// 1, 1,770 rows: the error fell 44 % a step at the 30th step, 5-10 % a step through most
/// of the descent. Judged over the last [`EXTEND_SPAN`] steps (single steps vary 2-30 %).
const EXTEND_GAIN: f64 = 0.05;
const EXTEND_SPAN: usize = 3;

/// Fitting effort.
#[derive(Debug, Clone, Copy)]
pub struct GnEffort {
    /// Gauss-Newton steps at most.
    pub steps: usize,
    /// Conjugate-gradient iterations per step at most.
    pub cg: usize,
    /// Random starts tried before the current parameters are refined (0 = refine only).
    pub restarts: usize,
}

/// Per-row quantities of a Gauss-Newton step: node inputs, downstream operators of nodes and
/// leaves, the prediction.
/// Kept across a fit's steps and overwritten in place (a fresh one each step allocated and
/// zeroed 48 MB a step at width 4, N = 1,770: a tenth of the fit's time in page faults).
#[derive(Default)]
struct RowCache {
    x: Vec<f64>,
    q_node: Vec<f64>,
    q_leaf: Vec<f64>,
}

impl LinearTree {
    pub fn new(vocab: usize, dim: usize, n_rules: usize) -> Self {
        LinearTree {
            vocab,
            dim,
            n_rules,
            emb: vec![0.0; vocab * dim],
            maps: vec![0.0; n_rules * 2 * dim * dim],
            map_var: 1.0,
            ridge: 0.0,
            extend: 0,
            truncate_cg: false,
            start_outcomes: Vec::new(),
            steps_taken: 0,
            cg_taken: 0,
        }
    }

    pub fn n_params(&self) -> usize {
        self.emb.len() + self.maps.len()
    }

    /// Parameters the rows touch: the vectors of their words and the maps of their rules.
    fn n_params_used(&self, br: &Bracketing, keys: &Keys, w: &TokenData, rows: &[usize]) -> usize {
        let k = br.nodes.len();
        let mut word = vec![false; self.vocab];
        let mut rule = vec![false; self.n_rules];
        for &r in rows {
            w.row(r).iter().for_each(|&t| word[t as usize] = true);
            keys.rule[r * k..(r + 1) * k]
                .iter()
                .for_each(|&q| rule[q as usize] = true);
        }
        let count = |v: &[bool]| v.iter().filter(|&&b| b).count();
        (count(&word) * self.dim + count(&rule) * 2 * self.dim * self.dim).max(1)
    }

    /// Random parameters: word vectors N(0, 1), map entries N(0, s^2) with s such that a root
    /// `height` levels up has about the scale `z_scale`.
    pub fn randomize(&mut self, height: usize, z_scale: f64, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let d = self.dim as f64;
        let per_level = z_scale.max(1e-12).powf(1.0 / height.max(1) as f64);
        let s = per_level / (2.0 * d).sqrt();
        self.map_var = s * s;
        for e in &mut self.emb {
            *e = StandardNormal.sample(&mut rng);
        }
        for a in &mut self.maps {
            let n: f64 = StandardNormal.sample(&mut rng);
            *a = s * n;
        }
        // Every D x D half of every map a scaled random orthogonal matrix (Saxe et al. 2014,
        // "Exact solutions to the nonlinear dynamics of learning in deep linear neural
        // networks", arXiv:1312.6120): products along the tree stay well conditioned (measured:
        // a width-1 depth-1 grammar at N = 1,000 reaches the noise in 20 Gauss-Newton steps,
        // Gaussian maps stall at a training error of 12 after 30).
        let dd = self.dim;
        let so = per_level / 2f64.sqrt();
        for blk in self.maps.chunks_mut(dd * dd) {
            let q = nalgebra::DMatrix::from_row_slice(dd, dd, blk).qr().q();
            for i in 0..dd {
                for j in 0..dd {
                    blk[i * dd + j] = so * q[(i, j)];
                }
            }
        }
    }

    /// Node values of row `r` (leaves then internal nodes, `dim` each) into `h`.
    fn forward(&self, br: &Bracketing, keys: &Keys, w: &TokenData, r: usize, h: &mut Vec<f64>) {
        let d = self.dim;
        let m = br.len;
        let k = br.nodes.len();
        h.clear();
        h.resize((m + k) * d, 0.0);
        for (p, &t) in w.row(r).iter().enumerate() {
            h[p * d..(p + 1) * d].copy_from_slice(&self.emb[t as usize * d..(t as usize + 1) * d]);
        }
        for (i, nd) in br.nodes.iter().enumerate() {
            let a = &self.maps[keys.rule[r * k + i] as usize * 2 * d * d..][..2 * d * d];
            let (l, rr) = (slot(nd.left, m), slot(nd.right, m));
            let (head, out) = h.split_at_mut((m + i) * d);
            let out = &mut out[..d];
            out.iter_mut().for_each(|o| *o = 0.0);
            for (half, c) in [(0, l), (1, rr)] {
                let xin = &head[c * d..(c + 1) * d];
                for (ii, &xv) in xin.iter().enumerate() {
                    if xv == 0.0 {
                        continue;
                    }
                    let arow = &a[(half * d + ii) * d..(half * d + ii + 1) * d];
                    for (o, &av) in out.iter_mut().zip(arow) {
                        *o += xv * av;
                    }
                }
            }
        }
    }

    /// The predicted root of row `r`.
    pub fn predict(&self, br: &Bracketing, keys: &Keys, w: &TokenData, r: usize, out: &mut [f64]) {
        let mut h = Vec::new();
        self.forward(br, keys, w, r, &mut h);
        let d = self.dim;
        let root = br.len + br.nodes.len() - 1;
        out.copy_from_slice(&h[root * d..(root + 1) * d]);
    }

    /// Row `r`'s cache written into `c` (its buffers reused) and its prediction into `pred`
    /// (`h`: scratch for the node values).
    #[allow(clippy::too_many_arguments)]
    fn cache_into(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        r: usize,
        pred: &mut [f64],
        c: &mut RowCache,
        h: &mut Vec<f64>,
    ) {
        let d = self.dim;
        let m = br.len;
        let k = br.nodes.len();
        let RowCache { x, q_node, q_leaf } = c;
        self.forward(br, keys, w, r, h);
        let root = m + k - 1;
        pred.copy_from_slice(&h[root * d..(root + 1) * d]);
        // Every entry of x and q_leaf, and of q_node but the root's, is written below.
        x.resize(k * 2 * d, 0.0);
        q_node.resize(k * d * d, 0.0);
        q_leaf.resize(m * d * d, 0.0);
        q_node[(k - 1) * d * d..].iter_mut().for_each(|v| *v = 0.0);
        for (i, nd) in br.nodes.iter().enumerate() {
            let (l, rr) = (slot(nd.left, m), slot(nd.right, m));
            x[i * 2 * d..i * 2 * d + d].copy_from_slice(&h[l * d..(l + 1) * d]);
            x[i * 2 * d + d..(i + 1) * 2 * d].copy_from_slice(&h[rr * d..(rr + 1) * d]);
        }
        for j in 0..d {
            q_node[(k - 1) * d * d + j * d + j] = 1.0;
        }
        for i in (0..k).rev() {
            let nd = br.nodes[i];
            let a = &self.maps[keys.rule[r * k + i] as usize * 2 * d * d..][..2 * d * d];
            // Children come before their node (as in the forward pass).
            let (below, from_node) = q_node.split_at_mut(i * d * d);
            let qv = &from_node[..d * d];
            for (half, c) in [(0usize, nd.left), (1, nd.right)] {
                let dst = match c {
                    Child::Leaf(p) => &mut q_leaf[p * d * d..(p + 1) * d * d],
                    Child::Node(jn) => &mut below[jn * d * d..(jn + 1) * d * d],
                };
                // Q_child = A_half Q_v (D x D times D x D).
                for ra in 0..d {
                    let arow = &a[(half * d + ra) * d..(half * d + ra + 1) * d];
                    let out = &mut dst[ra * d..(ra + 1) * d];
                    out.iter_mut().for_each(|o| *o = 0.0);
                    for (b, &av) in arow.iter().enumerate() {
                        if av == 0.0 {
                            continue;
                        }
                        for (o, &qq) in out.iter_mut().zip(&qv[b * d..(b + 1) * d]) {
                            *o += av * qq;
                        }
                    }
                }
            }
        }
    }

    /// Sum of squared errors on `rows`.
    pub fn sse(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        y: &Target<'_>,
        rows: &[usize],
    ) -> f64 {
        // Fixed chunks summed in order: the same number whatever the thread count.
        let parts: Vec<f64> = rows
            .par_chunks(ROW_CHUNK)
            .map(|rs| {
                let d = self.dim;
                let root = br.len + br.nodes.len() - 1;
                let mut h = Vec::new();
                rs.iter()
                    .map(|&r| {
                        self.forward(br, keys, w, r, &mut h);
                        h[root * d..(root + 1) * d]
                            .iter()
                            .enumerate()
                            .map(|(j, &o)| (y(r, j) - o).powi(2))
                            .sum::<f64>()
                    })
                    .sum::<f64>()
            })
            .collect();
        parts.iter().sum()
    }

    /// Fits on `rows` (targets `y(r, j)`): `effort.restarts` random starts (the best kept if
    /// better than the current parameters), then Gauss-Newton steps. Returns the training sum
    /// of squared errors.
    #[allow(clippy::too_many_arguments)]
    pub fn fit(
        &mut self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        y: &Target<'_>,
        rows: &[usize],
        effort: GnEffort,
        z_scale: f64,
        seed: u64,
    ) -> f64 {
        let height = br.nodes.last().map_or(1, |n| n.height);
        let mut best = self.sse(br, keys, w, y, rows);
        let (mut taken, mut cg) = (0, 0);
        // The random starts are independent: fitted side by side (few rows leave a fit's own
        // row chunks little to share out), then taken in order.
        let starts: Vec<(f64, LinearTree)> = (0..effort.restarts)
            .into_par_iter()
            .map(|s| {
                let mut t = self.clone();
                t.randomize(
                    height,
                    z_scale,
                    crate::estimators::prequential::code::derive_seed(seed, s as u64),
                );
                (t.gauss_newton(br, keys, w, y, rows, effort), t)
            })
            .collect();
        let mut outcomes = Vec::with_capacity(starts.len() + 1);
        for (l, t) in starts {
            outcomes.push((l, t.steps_taken));
            taken += t.steps_taken;
            cg += t.cg_taken;
            if l < best {
                best = l;
                *self = t;
            }
        }
        let mut cur = self.clone();
        let l = cur.gauss_newton(br, keys, w, y, rows, effort);
        outcomes.push((l, cur.steps_taken));
        taken += cur.steps_taken;
        cg += cur.cg_taken;
        if l <= best {
            *self = cur;
            best = l;
        }
        self.steps_taken = taken;
        self.cg_taken = cg;
        self.start_outcomes = outcomes;
        best
    }

    /// Levenberg-Marquardt-damped Gauss-Newton steps; returns the final sum of squared errors.
    fn gauss_newton(
        &mut self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        y: &Target<'_>,
        rows: &[usize],
        effort: GnEffort,
    ) -> f64 {
        let d = self.dim;
        let mut mu = 1e-3;
        let mut cur_sse = self.sse(br, keys, w, y, rows);
        let mut prev: Option<Vec<f64>> = None;
        let ne = self.emb.len();
        // The prior's weight relative to the data's (parameters over equations) capped below
        // 3/4: more pulls every fit to zero (measured: width 3 at 1.3x its parameters' rows).
        let ridge_k = self
            .ridge
            .min(0.75 * (rows.len() * d) as f64 / self.n_params_used(br, keys, w, rows) as f64);
        let wmap = 1.0 / self.map_var.max(1e-300);
        let penalty = |t: &LinearTree| -> f64 {
            t.emb.iter().map(|v| v * v).sum::<f64>()
                + wmap * t.maps.iter().map(|v| v * v).sum::<f64>()
        };
        let mut step_no = 0;
        // The error after each step (the extension looks at the last few: single steps vary).
        let mut history = vec![cur_sse];
        let still_fast = |h: &[f64]| {
            h.len() > EXTEND_SPAN
                && h[h.len() - 1]
                    < h[h.len() - 1 - EXTEND_SPAN] * (1.0 - EXTEND_GAIN).powi(EXTEND_SPAN as i32)
        };
        self.steps_taken = 0;
        self.cg_taken = 0;
        let mut caches: Vec<RowCache> = rows.iter().map(|_| RowCache::default()).collect();
        let mut preds = vec![0.0; rows.len() * d];
        while step_no < effort.steps
            || (step_no < effort.steps + self.extend && still_fast(&history))
        {
            step_no += 1;
            self.steps_taken = step_no;
            let lam = ridge_k * cur_sse / (rows.len() * d) as f64;
            let cur = cur_sse + lam * penalty(self);
            caches
                .par_iter_mut()
                .zip(preds.par_chunks_mut(d))
                .zip(rows.par_iter())
                .for_each_init(Vec::new, |h, ((c, pred), &r)| {
                    self.cache_into(br, keys, w, r, pred, c, h)
                });
            let resid: Vec<f64> = rows
                .iter()
                .zip(preds.chunks(d))
                .flat_map(|(&r, pred)| (0..d).map(move |j| y(r, j) - pred[j]))
                .collect();
            let step_rows = StepRows {
                br,
                keys,
                w,
                rows,
                caches: &caches,
            };
            let mut grad = self.jt(&step_rows, &resid);
            for (i, g) in grad.iter_mut().enumerate() {
                *g -= lam
                    * if i < ne {
                        self.emb[i]
                    } else {
                        wmap * self.maps[i - ne]
                    };
            }
            let diag = self.diag(&step_rows);
            let scale = diag.iter().sum::<f64>() / diag.len() as f64 + 1e-300;
            // The preconditioner's undamped blocks: once per step, whatever the damping tried.
            let blocks = if BLOCK_PRECOND {
                self.blocks(&step_rows)
            } else {
                (vec![], vec![])
            };
            let mut accepted = false;
            while mu < 1e8 {
                let damp: Vec<f64> = diag
                    .iter()
                    .enumerate()
                    .map(|(i, &g)| mu * g + 1e-9 * scale + lam * if i < ne { 1.0 } else { wmap })
                    .collect();
                let warm: Option<Vec<f64>> = prev
                    .as_ref()
                    .map(|p| p.iter().map(|v| WARM_DECAY * v).collect());
                let (step, iterations) = self.pcg(
                    &step_rows,
                    &grad,
                    &diag,
                    &damp,
                    &blocks,
                    warm.as_deref(),
                    effort.cg,
                );
                self.cg_taken += iterations;
                // The step, then (rejected) shorter ones along it before a re-solve with more
                // damping: a backtracking costs forward passes, a re-solve a full CG run.
                let mut found = None;
                for &frac in BACKTRACK {
                    let mut trial = self.clone();
                    for (t, s) in trial.emb.iter_mut().zip(&step[..ne]) {
                        *t += frac * s;
                    }
                    for (t, s) in trial.maps.iter_mut().zip(&step[ne..]) {
                        *t += frac * s;
                    }
                    let new_sse = trial.sse(br, keys, w, y, rows);
                    let new = new_sse + lam * penalty(&trial);
                    if new.is_finite() && new < cur {
                        found = Some((frac, new, new_sse, trial));
                        break;
                    }
                }
                if let Some((frac, new, new_sse, trial)) = found {
                    let gain = (cur - new) / cur.max(1e-300);
                    *self = trial;
                    cur_sse = new_sse;
                    prev = Some(step.iter().map(|v| frac * v).collect());
                    // A shortened step: the model overshot, damp a little more next time.
                    mu = if frac < 1.0 {
                        mu * 2.0
                    } else {
                        (mu / 3.0).max(1e-10)
                    };
                    // A step gaining under 1e-4 of the error: converged (measured on the deep
                    // width-1 grammar at N = 5,000: the same bits as 1e-10, a quarter less time).
                    accepted = gain > 1e-4;
                    history.push(cur_sse);
                    break;
                }
                mu *= 4.0;
            }
            if !accepted {
                break;
            }
        }
        cur_sse
    }
}

/// Index of a child's value among a row's node values (leaves first).
fn slot(c: Child, m: usize) -> usize {
    match c {
        Child::Leaf(p) => p,
        Child::Node(j) => m + j,
    }
}

mod cholesky;
mod jtjv;
mod normal;
pub use jtjv::set_portable_kernels;
use normal::StepRows;
#[cfg(test)]
mod tests;
