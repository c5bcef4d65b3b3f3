//! The normal equations of a Gauss-Newton step, matrix-free: `J^T J v`, `J^T u`, the diagonal
//! and the diagonal blocks of `J^T J` (the preconditioner), and the preconditioned conjugate
//! gradients that solve them. The sums over rows of `J^T J v`, `J^T u` and the diagonal run in
//! fixed row chunks in parallel, added in chunk order, so the numbers do not depend on the thread
//! count (the preconditioner's block sums, once per step, run on one thread).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

/// Set by [`set_portable_kernels`].
static PORTABLE: AtomicBool = AtomicBool::new(false);

/// Runs `J^T J v` on the portable path (SSE2, the dimension read at run time) instead of the
/// one compiled for the dimension (and AVX2 where the CPU has it). The numbers are the same
/// either way (tested); the switch is the baseline of `cargo bench --bench tree_learner`.
pub fn set_portable_kernels(on: bool) {
    PORTABLE.store(on, Ordering::Relaxed);
}

/// Calls `$body` with the const `$dc` set to `$dim` where it is one of the dimensions compiled
/// for, else to 0 (the run-time dimension).
macro_rules! with_dim {
    ($dim:expr, $dc:ident => $body:expr) => {
        match $dim {
            2 => {
                const $dc: usize = 2;
                $body
            }
            3 => {
                const $dc: usize = 3;
                $body
            }
            4 => {
                const $dc: usize = 4;
                $body
            }
            5 => {
                const $dc: usize = 5;
                $body
            }
            6 => {
                const $dc: usize = 6;
                $body
            }
            8 => {
                const $dc: usize = 8;
                $body
            }
            10 => {
                const $dc: usize = 10;
                $body
            }
            12 => {
                const $dc: usize = 12;
                $body
            }
            16 => {
                const $dc: usize = 16;
                $body
            }
            _ => {
                const $dc: usize = 0;
                $body
            }
        }
    };
}

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

use super::{BLOCK_PRECOND, LinearTree, ROW_CHUNK, RowCache, slot};
use crate::dataset::TokenData;
use crate::estimators::prequential::learners::tree::shape::{Bracketing, Keys};

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
    /// `J^T J v` for a parameter direction `v` (word vectors then maps), matrix-free and one
    /// row at a time: the node changes forward (`dh_v = concat(dh_l, dh_r) A + x_v dA`), the
    /// root's change pulled back through the maps (reverse mode). The cached downstream
    /// operators are D x D per node and leaf (25 KB a row at D = 10, M = 16): streaming them
    /// twice per CG iteration made the solve memory-bound (measured: 75 % of a deep width-1
    /// run in `jv` and `jt`); the node values fit in L1 and cost the same flops.
    ///
    /// Rows are taken in fixed chunks of [`ROW_CHUNK`] (in parallel), the chunks' sums added
    /// in chunk order: the same numbers whatever the thread count.
    pub(super) fn jtjv(&self, s: &StepRows, v: &[f64]) -> Vec<f64> {
        let at = self.maps_transposed();
        self.chunked_sums(s, |_, part| self.jtjv_chunk(part, v, &at))
    }

    /// [`Self::jtjv`] on the portable path only (SSE2, the dimension read at run time): the
    /// reference the compiled-for-D and AVX2 paths must match bit for bit.
    #[cfg(test)]
    pub(super) fn jtjv_portable(&self, s: &StepRows, v: &[f64]) -> Vec<f64> {
        let at = self.maps_transposed();
        self.chunked_sums(s, |_, part| self.jtjv_chunk_d::<0>(part, v, &at))
    }

    /// The maps transposed (D x 2D each): the pull-back is then a sum of rows (vectorises; a
    /// dot product per input is a serial chain of adds).
    fn maps_transposed(&self) -> Vec<f64> {
        let d = self.dim;
        let pb = 2 * d * d;
        let mut at = vec![0.0; self.maps.len()];
        for (a, t) in self.maps.chunks_exact(pb).zip(at.chunks_exact_mut(pb)) {
            for ii in 0..2 * d {
                for j in 0..d {
                    t[j * 2 * d + ii] = a[ii * d + j];
                }
            }
        }
        at
    }

    /// The sum over fixed chunks of [`ROW_CHUNK`] rows of `chunk(first row's index, the
    /// chunk)` (a vector over the parameters): chunks in parallel, added in chunk order, so the
    /// numbers do not depend on the thread count.
    fn chunked_sums(
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

    /// [`Self::jtjv`] over one chunk of rows (`at`: the maps transposed), compiled for the
    /// common dimensions (see `with_dim!`).
    fn jtjv_chunk(&self, s: &StepRows, v: &[f64], at: &[f64]) -> Vec<f64> {
        if PORTABLE.load(Ordering::Relaxed) {
            return self.jtjv_chunk_d::<0>(s, v, at);
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above), the one requirement of the function.
            return unsafe { self.jtjv_chunk_avx2(s, v, at) };
        }
        with_dim!(self.dim, DC => self.jtjv_chunk_d::<DC>(s, v, at))
    }

    /// [`Self::jtjv_chunk`] compiled with AVX2 (4 doubles a vector instead of SSE2's 2). No
    /// fused multiply-adds (Rust never contracts `a * b + c`), so every element is the same
    /// product and sum as on SSE2: the same bits on any x86-64 CPU.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn jtjv_chunk_avx2(&self, s: &StepRows, v: &[f64], at: &[f64]) -> Vec<f64> {
        with_dim!(self.dim, DC => self.jtjv_chunk_d::<DC>(s, v, at))
    }

    /// [`Self::jtjv_chunk`] with the dimension `DC` known when compiled (0: `self.dim`, read
    /// at run time). The same operations in the same order either way (the same bits): a
    /// known `DC` only lets the compiler unroll the D-long loops (measured in
    /// `cargo bench --bench tree_learner`).
    #[inline(always)]
    fn jtjv_chunk_d<const DC: usize>(&self, s: &StepRows, v: &[f64], at: &[f64]) -> Vec<f64> {
        let StepRows {
            br,
            keys,
            w,
            rows,
            caches,
        } = *s;
        let d = if DC == 0 { self.dim } else { DC };
        let m = br.len;
        let k = br.nodes.len();
        let ne = self.emb.len();
        let pb = 2 * d * d;
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
    /// rule (2D^2 x 2D^2, `sum (x x^T) (x) (Q Q^T)` over its nodes), row-major.
    pub(super) fn blocks(&self, s: &StepRows) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let StepRows {
            br,
            keys,
            w,
            rows,
            caches,
        } = *s;
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
            let mut m = nalgebra::DMatrix::from_row_slice(size, size, blk);
            for i in 0..size {
                m[(i, i)] += damp[off + i];
            }
            m.cholesky()
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
                        ch.solve_mut(&mut nalgebra::DVectorViewMut::from_slice(zt, d));
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
                            ch.solve_mut(&mut nalgebra::DVectorViewMut::from_slice(zk, pb));
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
