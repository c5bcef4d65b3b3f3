//! The normal equations of a Gauss-Newton step, matrix-free: `J^T u`, the diagonal and the
//! diagonal blocks of `J^T J` (the preconditioner), and the preconditioned conjugate gradients
//! that solve them (`J^T J v` is in `jtjv`). The sums over rows run in fixed row chunks in
//! parallel, added in chunk order, so the numbers do not depend on the thread count (the
//! preconditioner's block sums too, in fixed parts).

use rayon::prelude::*;

/// With [`LinearTree::truncate_cg`], conjugate gradients stop when the quadratic model's
/// decrease over the last `span` iterations (`span` = max([`CG_SPAN`], a tenth of the
/// iterations so far)) is under `span * CG_PROGRESS` of its value (Martens, "Deep learning via
/// Hessian-free optimization", ICML 2010): later iterations refine directions the next
/// Gauss-Newton step re-solves anyway. Measured (`tree_probe`, N = 5,000, seed 0, one thread):
/// conjugate-gradient iterations about halved, width 4 depth 2 118 -> 65 s, width 3 depth 1 54
/// -> 37 s; what it does to the fits' outcome is in `TreeSettings::truncate_cg` (off by default).
const CG_PROGRESS: f64 = 5e-4;
/// Fewest iterations the progress test looks back over.
const CG_SPAN: usize = 10;

use super::cholesky::CholeskyFactor;
use super::{BLOCK_PRECOND, LinearTree, ROW_CHUNK, RowCache};
use crate::dataset::TokenData;
use crate::estimators::prequential::learners::tree::MAX_TREE_DIM;
use crate::estimators::prequential::learners::tree::shape::{Bracketing, Keys};

/// Fixed parts the preconditioner's block sums are split into ([`LinearTree::blocks`]).
const BLOCK_PARTS: usize = 4;

/// `out = Q Q^T` for a D x D `q` (row-major): each entry the sum over `t` of `q[a][t] q[a2][t]`
/// in order, as an iterator's `sum` adds it, but every row's D sums run side by side (against
/// `Q^T`), so they vectorise: the same bits as one dot product after another, faster.
/// `qt`: scratch, D x D.
fn gram(q: &[f64], d: usize, qt: &mut [f64], out: &mut [f64]) {
    for a in 0..d {
        for t in 0..d {
            qt[t * d + a] = q[a * d + t];
        }
    }
    let start: f64 = std::iter::empty::<f64>().sum();
    for a in 0..d {
        let mut acc = [start; MAX_TREE_DIM];
        for t in 0..d {
            let qa = q[a * d + t];
            for (o, &v) in acc[..d].iter_mut().zip(&qt[t * d..(t + 1) * d]) {
                *o += qa * v;
            }
        }
        out[a * d..(a + 1) * d].copy_from_slice(&acc[..d]);
    }
}

/// One part's sums for the preconditioner's blocks: per word `sum Q Q^T`, per rule `sum x x^T`,
/// `sum Q Q^T` and the node count (empty outside the part).
struct BlockSums {
    words: Vec<Vec<f64>>,
    sx: Vec<Vec<f64>>,
    sq: Vec<Vec<f64>>,
    counts: Vec<f64>,
}

/// The rows of one Gauss-Newton step: the bracketing, rule keys and W they are read through,
/// and the rows fitted with their caches (or a chunk of them).
#[derive(Clone, Copy)]
pub(super) struct StepRows<'a> {
    pub br: &'a Bracketing,
    pub keys: &'a Keys,
    pub w: &'a TokenData,
    pub rows: &'a [usize],
    pub caches: &'a [RowCache],
}

impl LinearTree {
    /// The sum over fixed chunks of [`ROW_CHUNK`] rows of `chunk(first row's index, the
    /// chunk)` (a vector over the parameters): chunks in parallel, added in chunk order, so the
    /// numbers do not depend on the thread count.
    pub(super) fn chunked_sums(
        &self,
        s: &StepRows,
        chunk: impl Fn(usize, &StepRows) -> Vec<f64> + Sync,
    ) -> Vec<f64> {
        let parts: Vec<Vec<f64>> = s
            .rows
            .par_chunks(ROW_CHUNK)
            .zip(s.caches.par_chunks(ROW_CHUNK))
            .enumerate()
            .map(|(ci, (rows, caches))| {
                let part = StepRows { rows, caches, ..*s };
                chunk(ci * ROW_CHUNK, &part)
            })
            .collect();
        let mut parts = parts.into_iter();
        let mut out = parts.next().unwrap_or_else(|| vec![0.0; self.n_params()]);
        for part in parts {
            out.iter_mut().zip(&part).for_each(|(o, p)| *o += p);
        }
        out
    }

    /// J^T u for per-row root changes `u` (row-major): the normal equations' right side.
    pub(super) fn jt(&self, s: &StepRows, u: &[f64]) -> Vec<f64> {
        let d = self.dim;
        self.per_parameter_sums(
            s,
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
    pub(super) fn diag(&self, s: &StepRows) -> Vec<f64> {
        self.per_parameter_sums(s, |_, q_row| q_row.iter().map(|x| x * x).sum(), |x| x * x)
    }

    /// The one traversal behind `jt` and `diag`: a word's entry `a` gathers `leaf_row(row, Q_a)`
    /// over its leaves, a rule's entry (input `ii`, output `a`) gathers
    /// `input_weight(x_ii) * leaf_row(row, Q_a)` over its nodes (inputs equal to 0 skipped).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn per_parameter_sums(
        &self,
        s: &StepRows,
        q_row_value: impl Fn(usize, &[f64]) -> f64 + Sync,
        input_weight: impl Fn(f64) -> f64 + Sync,
    ) -> Vec<f64> {
        self.chunked_sums(s, |first, part| {
            let mut g = vec![0.0; self.n_params()];
            self.add_parameter_sums(
                part,
                &mut g,
                |ri, q| q_row_value(first + ri, q),
                &input_weight,
            );
            g
        })
    }

    /// [`Self::per_parameter_sums`] of one chunk of rows, added to `g` (`ri`: the row's index
    /// in the chunk).
    #[allow(clippy::too_many_arguments)]
    fn add_parameter_sums(
        &self,
        s: &StepRows,
        g: &mut [f64],
        q_row_value: impl Fn(usize, &[f64]) -> f64,
        input_weight: impl Fn(f64) -> f64,
    ) {
        let StepRows {
            br,
            keys,
            w,
            rows,
            caches,
        } = *s;
        let d = self.dim;
        let k = br.nodes.len();
        let ne = self.emb.len();
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
    }

    /// The exact diagonal blocks of J^T J: per word (D x D, `sum Q Q^T` over its leaves) and per
    /// rule (2D^2 x 2D^2, Kronecker-factored (K-FAC): `(sum x x^T / count) (x) (sum Q Q^T)` over
    /// its nodes), row-major.
    ///
    /// The words and rules fall into [`BLOCK_PARTS`] fixed parts (index mod the parts), summed
    /// side by side, each over every row in order: every block is the same sum in the same
    /// order whatever the thread count (once per Gauss-Newton step; on one thread it was a
    /// sixth of a two-thread fit's time, the other thread idle).
    pub(super) fn blocks(&self, s: &StepRows) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let d = self.dim;
        let pb = 2 * d * d;
        let mut parts: Vec<BlockSums> = (0..BLOCK_PARTS)
            .into_par_iter()
            .map(|part| self.block_sums(s, part))
            .collect();
        let bw: Vec<Vec<f64>> = (0..self.vocab)
            .map(|t| std::mem::take(&mut parts[t % BLOCK_PARTS].words[t]))
            .collect();
        let br: Vec<Vec<f64>> = (0..self.n_rules)
            .into_par_iter()
            .map(|kk| {
                let part = &parts[kk % BLOCK_PARTS];
                let count = part.counts[kk];
                // Allocated for the rules present only (a latent key layout has many slots
                // unused).
                if count == 0.0 {
                    return Vec::new();
                }
                let mut b = vec![0.0; pb * pb];
                let (sx, sq) = (&part.sx[kk], &part.sq[kk]);
                for ii in 0..2 * d {
                    for i2 in 0..2 * d {
                        let xx = sx[ii * 2 * d + i2] / count;
                        for a in 0..d {
                            let row =
                                &mut b[(ii * d + a) * pb + i2 * d..(ii * d + a) * pb + i2 * d + d];
                            for (o, &v) in row.iter_mut().zip(&sq[a * d..(a + 1) * d]) {
                                *o = xx * v;
                            }
                        }
                    }
                }
                b
            })
            .collect();
        (bw, br)
    }

    /// The sums behind [`Self::blocks`] of the words and rules in part `part`, over every row in
    /// order (the others' left at zero).
    fn block_sums(&self, s: &StepRows, part: usize) -> BlockSums {
        let StepRows {
            br,
            keys,
            w,
            rows,
            caches,
        } = *s;
        let d = self.dim;
        let k = br.nodes.len();
        let mut sums = BlockSums {
            words: vec![Vec::new(); self.vocab],
            sx: vec![Vec::new(); self.n_rules],
            sq: vec![Vec::new(); self.n_rules],
            counts: vec![0.0; self.n_rules],
        };
        for t in (part..self.vocab).step_by(BLOCK_PARTS) {
            sums.words[t] = vec![0.0; d * d];
        }
        for kk in (part..self.n_rules).step_by(BLOCK_PARTS) {
            sums.sx[kk] = vec![0.0; 4 * d * d];
            sums.sq[kk] = vec![0.0; d * d];
        }
        let mut qq = vec![0.0; d * d];
        let mut qt = vec![0.0; d * d];
        for (&r, c) in rows.iter().zip(caches) {
            for (p, &tok) in w.row(r).iter().enumerate() {
                if tok as usize % BLOCK_PARTS != part {
                    continue;
                }
                gram(&c.q_leaf[p * d * d..(p + 1) * d * d], d, &mut qt, &mut qq);
                for (o, &v) in sums.words[tok as usize].iter_mut().zip(&qq) {
                    *o += v;
                }
            }
            for i in 0..k {
                let kk = keys.rule[r * k + i] as usize;
                if kk % BLOCK_PARTS != part {
                    continue;
                }
                gram(&c.q_node[i * d * d..(i + 1) * d * d], d, &mut qt, &mut qq);
                // A local copy: the compiler then knows it is not the sums, and vectorises.
                let mut x = [0.0f64; 2 * MAX_TREE_DIM];
                x[..2 * d].copy_from_slice(&c.x[i * 2 * d..(i + 1) * 2 * d]);
                let x = &x[..2 * d];
                let sx = &mut sums.sx[kk];
                for (ii, &xi) in x.iter().enumerate() {
                    for (o, &x2) in sx[ii * 2 * d..(ii + 1) * 2 * d].iter_mut().zip(x) {
                        *o += xi * x2;
                    }
                }
                for (o, &v) in sums.sq[kk].iter_mut().zip(&qq) {
                    *o += v;
                }
                sums.counts[kk] += 1.0;
            }
        }
        sums
    }

    /// Preconditioned conjugate gradients on `(J^T J + diag(damp)) s = b`, at most `iters`
    /// iterations (fewer with [`LinearTree::truncate_cg`], see [`CG_PROGRESS`]). Returns the
    /// solution and the iterations run.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pcg(
        &self,
        s: &StepRows,
        b: &[f64],
        diag: &[f64],
        damp: &[f64],
        blocks: &(Vec<Vec<f64>>, Vec<Vec<f64>>),
        warm: Option<&[f64]>,
        iters: usize,
    ) -> (Vec<f64>, usize) {
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
            CholeskyFactor::new(blk, &damp[off..off + size], size)
        };
        let (bw, brl) = blocks;
        let inv_w: Vec<_> = bw
            .par_iter()
            .enumerate()
            .map(|(t, b)| chol(b, t * d, d))
            .collect();
        let inv_r: Vec<_> = brl
            .par_iter()
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
                        let zt = &mut z[t * d..(t + 1) * d];
                        zt.copy_from_slice(&r[t * d..(t + 1) * d]);
                        ch.solve_mut(zt);
                    }
                }
                // Each rule's block on its own (in parallel: no sums across blocks).
                z[ne..]
                    .par_chunks_mut(pb)
                    .zip(inv_r.par_iter())
                    .enumerate()
                    .for_each(|(k, (zk, ch))| {
                        if let Some(ch) = ch {
                            let o = ne + k * pb;
                            zk.copy_from_slice(&r[o..o + pb]);
                            ch.solve_mut(zk);
                        }
                    });
            }
            z
        };
        let mut x = vec![0.0; n];
        let mut r = b.to_vec();
        // Warm start (Martens 2010, Hessian-free optimisation): the last step, decayed, when
        // the quadratic model is lower there than at 0.
        if let Some(x0) = warm {
            let mut ax = self.jtjv(s, x0);
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
        // The quadratic model -b.x + x.A.x / 2 = -x.(b + r) / 2 after each iteration.
        let mut model = Vec::with_capacity(if self.truncate_cg { iters } else { 0 });
        let mut ran = 0;
        for it in 0..iters {
            let mut hp = self.jtjv(s, &p);
            ran += 1;
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
            if self.truncate_cg {
                let q = -0.5
                    * x.iter()
                        .zip(b.iter().zip(&r))
                        .map(|(xi, (bi, ri))| xi * (bi + ri))
                        .sum::<f64>();
                model.push(q);
                let span = CG_SPAN.max(it / 10);
                if it >= span && q < 0.0 && (q - model[it - span]) / q < span as f64 * CG_PROGRESS {
                    break;
                }
            }
            z = apply(&r);
            let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
            let beta = rz_new / rz;
            rz = rz_new;
            for i in 0..n {
                p[i] = z[i] + beta * p[i];
            }
        }
        (x, ran)
    }
}
