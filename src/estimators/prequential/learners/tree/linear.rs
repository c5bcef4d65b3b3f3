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

use super::shape::{Bracketing, Child, Keys};
use crate::dataset::TokenData;

const BLOCK_PRECOND: bool = true;
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
}

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

    fn cache(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        r: usize,
        pred: &mut [f64],
    ) -> RowCache {
        let d = self.dim;
        let m = br.len;
        let k = br.nodes.len();
        let mut h = Vec::new();
        self.forward(br, keys, w, r, &mut h);
        let root = m + k - 1;
        pred.copy_from_slice(&h[root * d..(root + 1) * d]);
        let mut x = vec![0.0; k * 2 * d];
        for (i, nd) in br.nodes.iter().enumerate() {
            let (l, rr) = (slot(nd.left, m), slot(nd.right, m));
            x[i * 2 * d..i * 2 * d + d].copy_from_slice(&h[l * d..(l + 1) * d]);
            x[i * 2 * d + d..(i + 1) * 2 * d].copy_from_slice(&h[rr * d..(rr + 1) * d]);
        }
        let mut q_node = vec![0.0; k * d * d];
        let mut q_leaf = vec![0.0; m * d * d];
        for j in 0..d {
            q_node[(k - 1) * d * d + j * d + j] = 1.0;
        }
        for i in (0..k).rev() {
            let nd = br.nodes[i];
            let a = &self.maps[keys.rule[r * k + i] as usize * 2 * d * d..][..2 * d * d];
            let qv: Vec<f64> = q_node[i * d * d..(i + 1) * d * d].to_vec();
            for (half, c) in [(0usize, nd.left), (1, nd.right)] {
                let dst = match c {
                    Child::Leaf(p) => &mut q_leaf[p * d * d..(p + 1) * d * d],
                    Child::Node(jn) => &mut q_node[jn * d * d..(jn + 1) * d * d],
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
        RowCache { x, q_node, q_leaf }
    }

    /// Sum of squared errors on `rows`.
    pub fn sse(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        y: &dyn Fn(usize, usize) -> f64,
        rows: &[usize],
    ) -> f64 {
        let mut out = vec![0.0; self.dim];
        rows.iter()
            .map(|&r| {
                self.predict(br, keys, w, r, &mut out);
                out.iter()
                    .enumerate()
                    .map(|(j, &o)| (y(r, j) - o).powi(2))
                    .sum::<f64>()
            })
            .sum()
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
        y: &dyn Fn(usize, usize) -> f64,
        rows: &[usize],
        effort: GnEffort,
        z_scale: f64,
        seed: u64,
    ) -> f64 {
        let height = br.nodes.last().map_or(1, |n| n.height);
        let mut best = self.sse(br, keys, w, y, rows);
        let mut starts = Vec::new();
        for s in 0..effort.restarts {
            let mut t = self.clone();
            t.randomize(
                height,
                z_scale,
                crate::estimators::prequential::code::derive_seed(seed, s as u64),
            );
            let l = t.gauss_newton(br, keys, w, y, rows, effort);
            starts.push((l, t));
        }
        for (l, t) in starts {
            if l < best {
                best = l;
                *self = t;
            }
        }
        let mut cur = self.clone();
        let l = cur.gauss_newton(br, keys, w, y, rows, effort);
        if l <= best {
            *self = cur;
            best = l;
        }
        best
    }

    /// Levenberg-Marquardt-damped Gauss-Newton steps; returns the final sum of squared errors.
    fn gauss_newton(
        &mut self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        y: &dyn Fn(usize, usize) -> f64,
        rows: &[usize],
        effort: GnEffort,
    ) -> f64 {
        let d = self.dim;
        let mut mu = 1e-3;
        let mut cur_sse = self.sse(br, keys, w, y, rows);
        let mut pred = vec![0.0; d];
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
        for _ in 0..effort.steps {
            let lam = ridge_k * cur_sse / (rows.len() * d) as f64;
            let cur = cur_sse + lam * penalty(self);
            let mut caches = Vec::with_capacity(rows.len());
            let mut resid = Vec::with_capacity(rows.len() * d);
            for &r in rows {
                caches.push(self.cache(br, keys, w, r, &mut pred));
                resid.extend((0..d).map(|j| y(r, j) - pred[j]));
            }
            let mut grad = self.jt(br, keys, w, rows, &caches, &resid);
            for (i, g) in grad.iter_mut().enumerate() {
                *g -= lam
                    * if i < ne {
                        self.emb[i]
                    } else {
                        wmap * self.maps[i - ne]
                    };
            }
            let diag = self.diag(br, keys, w, rows, &caches);
            let scale = diag.iter().sum::<f64>() / diag.len() as f64 + 1e-300;
            // The preconditioner's undamped blocks: once per step, whatever the damping tried.
            let blocks = if BLOCK_PRECOND {
                self.blocks(br, keys, w, rows, &caches)
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
                let step = self.pcg(
                    br,
                    keys,
                    w,
                    rows,
                    &caches,
                    &grad,
                    &diag,
                    &damp,
                    &blocks,
                    warm.as_deref(),
                    effort.cg,
                );
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

    /// `J^T J v` for a parameter direction `v` (word vectors then maps), matrix-free and one
    /// row at a time: the node changes forward (`dh_v = concat(dh_l, dh_r) A + x_v dA`), the
    /// root's change pulled back through the maps (reverse mode). The cached downstream
    /// operators are D x D per node and leaf (25 KB a row at D = 10, M = 16): streaming them
    /// twice per CG iteration made the solve memory-bound (measured: 75 % of a deep width-1
    /// run in `jv` and `jt`); the node values fit in L1 and cost the same flops.
    fn jtjv(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
        v: &[f64],
    ) -> Vec<f64> {
        let d = self.dim;
        let m = br.len;
        let k = br.nodes.len();
        let ne = self.emb.len();
        let pb = 2 * d * d;
        // The maps transposed (D x 2D each): the pull-back is then a sum of rows (vectorises;
        // a dot product per input is a serial chain of adds).
        let mut at = vec![0.0; self.maps.len()];
        for (a, t) in self.maps.chunks_exact(pb).zip(at.chunks_exact_mut(pb)) {
            for ii in 0..2 * d {
                for j in 0..d {
                    t[j * 2 * d + ii] = a[ii * d + j];
                }
            }
        }
        let mut out = vec![0.0; self.n_params()];
        let mut dh = vec![0.0; (m + k) * d];
        let mut g = vec![0.0; (m + k) * d];
        let mut gi = vec![0.0; d];
        let mut gin = vec![0.0; 2 * d];
        for (&r, c) in rows.iter().zip(caches) {
            let toks = w.row(r);
            let rules = &keys.rule[r * k..(r + 1) * k];
            for (p, &tok) in toks.iter().enumerate() {
                dh[p * d..(p + 1) * d]
                    .copy_from_slice(&v[tok as usize * d..(tok as usize + 1) * d]);
            }
            for (i, nd) in br.nodes.iter().enumerate() {
                let rule = rules[i] as usize;
                let a = &self.maps[rule * pb..(rule + 1) * pb];
                let da = &v[ne + rule * pb..ne + (rule + 1) * pb];
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                let (head, tail) = dh.split_at_mut((m + i) * d);
                let o = &mut tail[..d];
                o.iter_mut().for_each(|v| *v = 0.0);
                for (half, s) in [(0, slot(nd.left, m)), (1, slot(nd.right, m))] {
                    for (ii, &xv) in head[s * d..(s + 1) * d].iter().enumerate() {
                        if xv != 0.0 {
                            let arow = &a[(half * d + ii) * d..(half * d + ii + 1) * d];
                            o.iter_mut().zip(arow).for_each(|(o, &av)| *o += xv * av);
                        }
                    }
                }
                for (ii, &xv) in x.iter().enumerate() {
                    if xv != 0.0 {
                        let drow = &da[ii * d..(ii + 1) * d];
                        o.iter_mut().zip(drow).for_each(|(o, &av)| *o += xv * av);
                    }
                }
            }
            // Reverse: every node has one parent, so each child's adjoint is set once.
            let root = m + k - 1;
            g[root * d..(root + 1) * d].copy_from_slice(&dh[root * d..(root + 1) * d]);
            for (i, nd) in br.nodes.iter().enumerate().rev() {
                let rule = rules[i] as usize;
                gi.copy_from_slice(&g[(m + i) * d..(m + i + 1) * d]);
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                let ga = &mut out[ne + rule * pb..ne + (rule + 1) * pb];
                for (ii, &xv) in x.iter().enumerate() {
                    if xv != 0.0 {
                        ga[ii * d..(ii + 1) * d]
                            .iter_mut()
                            .zip(&gi)
                            .for_each(|(o, &gv)| *o += xv * gv);
                    }
                }
                gin.iter_mut().for_each(|v| *v = 0.0);
                let t = &at[rule * pb..(rule + 1) * pb];
                for (j, &gv) in gi.iter().enumerate() {
                    if gv != 0.0 {
                        let trow = &t[j * 2 * d..(j + 1) * 2 * d];
                        gin.iter_mut().zip(trow).for_each(|(o, &tv)| *o += gv * tv);
                    }
                }
                let (l, rr) = (slot(nd.left, m), slot(nd.right, m));
                g[l * d..(l + 1) * d].copy_from_slice(&gin[..d]);
                g[rr * d..(rr + 1) * d].copy_from_slice(&gin[d..]);
            }
            for (p, &tok) in toks.iter().enumerate() {
                out[tok as usize * d..(tok as usize + 1) * d]
                    .iter_mut()
                    .zip(&g[p * d..(p + 1) * d])
                    .for_each(|(o, &gv)| *o += gv);
            }
        }
        out
    }

    /// J^T u for per-row root changes `u` (row-major): the normal equations' right side.
    fn jt(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
        u: &[f64],
    ) -> Vec<f64> {
        let d = self.dim;
        self.per_parameter_sums(
            br,
            keys,
            w,
            rows,
            caches,
            |ri, q_row| {
                q_row
                    .iter()
                    .zip(&u[ri * d..(ri + 1) * d])
                    .map(|(x, y)| x * y)
                    .sum()
            },
            |x| x,
        )
    }

    /// The diagonal of J^T J.
    fn diag(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
    ) -> Vec<f64> {
        self.per_parameter_sums(
            br,
            keys,
            w,
            rows,
            caches,
            |_, q_row| q_row.iter().map(|x| x * x).sum(),
            |x| x * x,
        )
    }

    /// The one traversal behind `jt` and `diag`: a word's entry `a` gathers `leaf_row(row, Q_a)`
    /// over its leaves, a rule's entry (input `ii`, output `a`) gathers
    /// `input_weight(x_ii) * leaf_row(row, Q_a)` over its nodes (inputs equal to 0 skipped).
    #[allow(clippy::too_many_arguments)]
    fn per_parameter_sums(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
        q_row_value: impl Fn(usize, &[f64]) -> f64,
        input_weight: impl Fn(f64) -> f64,
    ) -> Vec<f64> {
        let d = self.dim;
        let k = br.nodes.len();
        let ne = self.emb.len();
        let mut g = vec![0.0; self.n_params()];
        let mut per_output = vec![0.0; d];
        for (ri, (&r, c)) in rows.iter().zip(caches).enumerate() {
            for (p, &tok) in w.row(r).iter().enumerate() {
                let q = &c.q_leaf[p * d * d..(p + 1) * d * d];
                let ge = &mut g[tok as usize * d..(tok as usize + 1) * d];
                for (a, gv) in ge.iter_mut().enumerate() {
                    *gv += q_row_value(ri, &q[a * d..(a + 1) * d]);
                }
            }
            for i in 0..k {
                let q = &c.q_node[i * d * d..(i + 1) * d * d];
                for (b, v) in per_output.iter_mut().enumerate() {
                    *v = q_row_value(ri, &q[b * d..(b + 1) * d]);
                }
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                let ga = &mut g[ne + keys.rule[r * k + i] as usize * 2 * d * d..][..2 * d * d];
                for (ii, &xv) in x.iter().enumerate().filter(|&(_, &xv)| xv != 0.0) {
                    let weight = input_weight(xv);
                    for (a, &v) in ga[ii * d..(ii + 1) * d].iter_mut().zip(&per_output) {
                        *a += weight * v;
                    }
                }
            }
        }
        g
    }

    /// The exact diagonal blocks of J^T J: per word (D x D, `sum Q Q^T` over its leaves) and per
    /// rule (2D^2 x 2D^2, `sum (x x^T) (x) (Q Q^T)` over its nodes), row-major.
    fn blocks(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
    ) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let d = self.dim;
        let k = br.nodes.len();
        let pb = 2 * d * d;
        let mut bw = vec![vec![0.0; d * d]; self.vocab];
        // Allocated for the rules present only (a latent key layout has many slots unused).
        let mut br_ = vec![Vec::new(); self.n_rules];
        let mut qq = vec![0.0; d * d];
        let mut sxs = vec![vec![0.0; 4 * d * d]; self.n_rules];
        let mut sqs = vec![vec![0.0; d * d]; self.n_rules];
        let mut counts = vec![0.0; self.n_rules];
        for (&r, c) in rows.iter().zip(caches) {
            for (p, &tok) in w.row(r).iter().enumerate() {
                let q = &c.q_leaf[p * d * d..(p + 1) * d * d];
                let b = &mut bw[tok as usize];
                for a in 0..d {
                    for a2 in 0..d {
                        b[a * d + a2] += q[a * d..(a + 1) * d]
                            .iter()
                            .zip(&q[a2 * d..(a2 + 1) * d])
                            .map(|(x, y)| x * y)
                            .sum::<f64>();
                    }
                }
            }
            for i in 0..k {
                let q = &c.q_node[i * d * d..(i + 1) * d * d];
                for a in 0..d {
                    for a2 in 0..d {
                        qq[a * d + a2] = q[a * d..(a + 1) * d]
                            .iter()
                            .zip(&q[a2 * d..(a2 + 1) * d])
                            .map(|(x, y)| x * y)
                            .sum::<f64>();
                    }
                }
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                let kk = keys.rule[r * k + i] as usize;
                // Kronecker-factored (K-FAC): sum x x^T and sum Q Q^T / count.
                let sx = &mut sxs[kk];
                for (ii, &xi) in x.iter().enumerate() {
                    for (o, &x2) in sx[ii * 2 * d..(ii + 1) * 2 * d].iter_mut().zip(x) {
                        *o += xi * x2;
                    }
                }
                for (o, &v) in sqs[kk].iter_mut().zip(&qq) {
                    *o += v;
                }
                counts[kk] += 1.0;
            }
        }
        for kk in 0..self.n_rules {
            if counts[kk] == 0.0 {
                continue;
            }
            br_[kk] = vec![0.0; pb * pb];
            let b = &mut br_[kk];
            let (sx, sq) = (&sxs[kk], &sqs[kk]);
            for ii in 0..2 * d {
                for i2 in 0..2 * d {
                    let xx = sx[ii * 2 * d + i2] / counts[kk];
                    for a in 0..d {
                        let row =
                            &mut b[(ii * d + a) * pb + i2 * d..(ii * d + a) * pb + i2 * d + d];
                        for (o, &v) in row.iter_mut().zip(&sq[a * d..(a + 1) * d]) {
                            *o = xx * v;
                        }
                    }
                }
            }
        }
        (bw, br_)
    }

    /// Preconditioned conjugate gradients on `(J^T J + diag(damp)) s = b`.
    #[allow(clippy::too_many_arguments)]
    fn pcg(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
        b: &[f64],
        diag: &[f64],
        damp: &[f64],
        blocks: &(Vec<Vec<f64>>, Vec<Vec<f64>>),
        warm: Option<&[f64]>,
        iters: usize,
    ) -> Vec<f64> {
        let n = b.len();
        let minv: Vec<f64> = diag
            .iter()
            .zip(damp)
            .map(|(g, dm)| 1.0 / (g + dm).max(1e-300))
            .collect();
        // Block-Jacobi: the inverse of each damped diagonal block.
        let d = self.dim;
        let ne = self.emb.len();
        let pb = 2 * d * d;
        let chol = |blk: &Vec<f64>, off: usize, size: usize| {
            let mut m = nalgebra::DMatrix::from_row_slice(size, size, blk);
            for i in 0..size {
                m[(i, i)] += damp[off + i];
            }
            m.cholesky()
        };
        let (bw, brl) = blocks;
        let inv_w: Vec<_> = bw
            .iter()
            .enumerate()
            .map(|(t, b)| chol(b, t * d, d))
            .collect();
        let inv_r: Vec<_> = brl
            .iter()
            .enumerate()
            .map(|(k, b)| {
                if b.is_empty() {
                    None
                } else {
                    chol(b, ne + k * pb, pb)
                }
            })
            .collect();
        let apply = |r: &[f64]| -> Vec<f64> {
            let mut z: Vec<f64> = r.iter().zip(&minv).map(|(a, m)| a * m).collect();
            if BLOCK_PRECOND {
                for (t, ch) in inv_w.iter().enumerate() {
                    if let Some(ch) = ch {
                        let v = ch.solve(&nalgebra::DVector::from_column_slice(
                            &r[t * d..(t + 1) * d],
                        ));
                        z[t * d..(t + 1) * d].copy_from_slice(v.as_slice());
                    }
                }
                for (k, ch) in inv_r.iter().enumerate() {
                    if let Some(ch) = ch {
                        let o = ne + k * pb;
                        let v = ch.solve(&nalgebra::DVector::from_column_slice(&r[o..o + pb]));
                        z[o..o + pb].copy_from_slice(v.as_slice());
                    }
                }
            }
            z
        };
        let mut x = vec![0.0; n];
        let mut r = b.to_vec();
        // Warm start (Martens 2010, Hessian-free optimisation): the last step, decayed, when
        // the quadratic model is lower there than at 0.
        if let Some(x0) = warm {
            let mut ax = self.jtjv(br, keys, w, rows, caches, x0);
            for ((h, &xx), &dm) in ax.iter_mut().zip(x0).zip(damp) {
                *h += dm * xx;
            }
            let model: f64 = x0
                .iter()
                .zip(&ax)
                .zip(b)
                .map(|((&xx, &a), &bb)| 0.5 * xx * a - bb * xx)
                .sum();
            if model < 0.0 {
                x.copy_from_slice(x0);
                for ((ri, &bb), &a) in r.iter_mut().zip(b).zip(&ax) {
                    *ri = bb - a;
                }
            }
        }
        let mut z = apply(&r);
        let mut p = z.clone();
        let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let b_norm = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        for _ in 0..iters {
            let mut hp = self.jtjv(br, keys, w, rows, caches, &p);
            for ((h, &pp), &dm) in hp.iter_mut().zip(&p).zip(damp) {
                *h += dm * pp;
            }
            let php: f64 = p.iter().zip(&hp).map(|(a, b)| a * b).sum();
            if php <= 0.0 || !php.is_finite() {
                break;
            }
            let alpha = rz / php;
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * hp[i];
            }
            if r.iter().map(|v| v * v).sum::<f64>().sqrt() < 1e-6 * b_norm {
                break;
            }
            z = apply(&r);
            let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
            let beta = rz_new / rz;
            rz = rz_new;
            for i in 0..n {
                p[i] = z[i] + beta * p[i];
            }
        }
        x
    }
}

/// Index of a child's value among a row's node values (leaves first).
fn slot(c: Child, m: usize) -> usize {
    match c {
        Child::Leaf(p) => p,
        Child::Node(j) => m + j,
    }
}

#[cfg(test)]
mod tests;
