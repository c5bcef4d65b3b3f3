//! `J^T J v`, the product behind every conjugate-gradient iteration of a linear fit (about
//! half of a grammar run's time, perf), matrix-free, compiled for the common dimensions, two
//! rows at a time.

use std::sync::atomic::{AtomicBool, Ordering};

use super::normal::StepRows;
use super::{LinearTree, RowCache, slot};
use crate::estimators::prequential::learners::tree::MAX_TREE_DIM;

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

/// Rows whose passes run side by side in [`LinearTree::jtjv`]. A node's change is a serial
/// chain of 4D adds into D accumulators (and its adjoint's pull-back one of D adds into 2D),
/// so one row alone waits on the add latency; two rows' independent chains keep the adders
/// busy. Measured (perf samples in the kernel, `tree_probe 2 1 2000 0 linear`, 1 thread): 12 %
/// fewer with two rows than with one; four were no better than two.
const LANES: usize = 2;

/// One row's node changes (`dh`) and adjoints (`g`), leaves first, then the nodes.
struct Lane {
    dh: Vec<f64>,
    g: Vec<f64>,
}

impl LinearTree {
    /// `J^T J v` for a parameter direction `v` (word vectors then maps), matrix-free, row by
    /// row: the node changes forward (`dh_v = concat(dh_l, dh_r) A + x_v dA`), the
    /// root's change pulled back through the maps (reverse mode). The cached downstream
    /// operators are D x D per node and leaf (25 KB a row at D = 10, M = 16): streaming them
    /// twice per CG iteration made the solve memory-bound (measured: 75 % of a deep width-1
    /// run in `jv` and `jt`); the node values fit in L1 and cost the same flops.
    ///
    /// Rows are taken in fixed chunks of [`super::ROW_CHUNK`] (in parallel), the chunks' sums added
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
    pub(super) fn maps_transposed(&self) -> Vec<f64> {
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
    ///
    /// Rows go [`LANES`] at a time: their forward and reverse passes interleaved node by node,
    /// each row's own operations unchanged, then their sums added into `J^T J v` row after row
    /// in the rows' order, so the numbers are those of one row at a time, bit for bit
    /// (`tests::paired_jtjv_gives_the_row_by_row_bits`).
    #[inline(always)]
    fn jtjv_chunk_d<const DC: usize>(&self, s: &StepRows, v: &[f64], at: &[f64]) -> Vec<f64> {
        let d = if DC == 0 { self.dim } else { DC };
        assert!(
            d <= MAX_TREE_DIM,
            "the tree learner fits D <= {MAX_TREE_DIM}"
        );
        let slots = (s.br.len + s.br.nodes.len()) * d;
        let mut lanes: [Lane; LANES] = std::array::from_fn(|_| Lane {
            dh: vec![0.0; slots],
            g: vec![0.0; slots],
        });
        let mut out = vec![0.0; self.n_params()];
        let mut rows = s.rows.chunks_exact(LANES);
        let mut caches = s.caches.chunks_exact(LANES);
        for (r, c) in (&mut rows).zip(&mut caches) {
            let r: [usize; LANES] = std::array::from_fn(|l| r[l]);
            let c: [&RowCache; LANES] = std::array::from_fn(|l| &c[l]);
            self.row_passes::<DC, LANES>(s, v, at, r, c, &mut lanes);
            for ((&row, cache), lane) in r.iter().zip(c).zip(&lanes) {
                self.add_row::<DC>(s, row, cache, lane, &mut out);
            }
        }
        let (first, _) = lanes.split_at_mut(1);
        let first: &mut [Lane; 1] = first.try_into().expect("one lane");
        for (&row, cache) in rows.remainder().iter().zip(caches.remainder()) {
            self.row_passes::<DC, 1>(s, v, at, [row], [cache], first);
            self.add_row::<DC>(s, row, cache, &first[0], &mut out);
        }
        out
    }

    /// The forward pass (node changes `dh = concat(dh_l, dh_r) A + x dA`, leaves `v`'s word
    /// vectors) and the reverse pass (adjoints `g`, the root's change pulled back through the
    /// maps) of `L` rows, interleaved node by node.
    #[inline(always)]
    fn row_passes<const DC: usize, const L: usize>(
        &self,
        s: &StepRows,
        v: &[f64],
        at: &[f64],
        rows: [usize; L],
        caches: [&RowCache; L],
        lanes: &mut [Lane; L],
    ) {
        let d = if DC == 0 { self.dim } else { DC };
        let m = s.br.len;
        let k = s.br.nodes.len();
        let ne = self.emb.len();
        let pb = 2 * d * d;
        let rules: [&[u32]; L] =
            std::array::from_fn(|l| &s.keys.rule[rows[l] * k..(rows[l] + 1) * k]);
        for (lane, &r) in lanes.iter_mut().zip(&rows) {
            for (p, &tok) in s.w.row(r).iter().enumerate() {
                let tok = tok as usize;
                lane.dh[p * d..(p + 1) * d].copy_from_slice(&v[tok * d..(tok + 1) * d]);
            }
        }
        for (i, nd) in s.br.nodes.iter().enumerate() {
            // Where each lane's rule map starts.
            let map: [usize; L] = std::array::from_fn(|l| rules[l][i] as usize * pb);
            let mut acc = [[0.0f64; MAX_TREE_DIM]; L];
            for (half, sc) in [(0, slot(nd.left, m)), (1, slot(nd.right, m))] {
                for ii in 0..d {
                    for l in 0..L {
                        let xv = lanes[l].dh[sc * d + ii];
                        if xv != 0.0 {
                            let a = map[l] + (half * d + ii) * d;
                            acc[l][..d]
                                .iter_mut()
                                .zip(&self.maps[a..a + d])
                                .for_each(|(o, &av)| *o += xv * av);
                        }
                    }
                }
            }
            for ii in 0..2 * d {
                for l in 0..L {
                    let xv = caches[l].x[i * 2 * d + ii];
                    if xv != 0.0 {
                        let a = ne + map[l] + ii * d;
                        acc[l][..d]
                            .iter_mut()
                            .zip(&v[a..a + d])
                            .for_each(|(o, &av)| *o += xv * av);
                    }
                }
            }
            for (lane, acc) in lanes.iter_mut().zip(&acc) {
                lane.dh[(m + i) * d..(m + i + 1) * d].copy_from_slice(&acc[..d]);
            }
        }
        // Reverse: every node has one parent, so each child's adjoint is set once.
        let root = m + k - 1;
        for Lane { dh, g } in lanes.iter_mut() {
            g[root * d..(root + 1) * d].copy_from_slice(&dh[root * d..(root + 1) * d]);
        }
        for (i, nd) in s.br.nodes.iter().enumerate().rev() {
            let map: [usize; L] = std::array::from_fn(|l| rules[l][i] as usize * pb);
            let mut gin = [[0.0f64; 2 * MAX_TREE_DIM]; L];
            for j in 0..d {
                for l in 0..L {
                    let gv = lanes[l].g[(m + i) * d + j];
                    if gv != 0.0 {
                        let t = map[l] + j * 2 * d;
                        gin[l][..2 * d]
                            .iter_mut()
                            .zip(&at[t..t + 2 * d])
                            .for_each(|(o, &tv)| *o += gv * tv);
                    }
                }
            }
            let (sl, sr) = (slot(nd.left, m), slot(nd.right, m));
            for (lane, gin) in lanes.iter_mut().zip(&gin) {
                lane.g[sl * d..(sl + 1) * d].copy_from_slice(&gin[..d]);
                lane.g[sr * d..(sr + 1) * d].copy_from_slice(&gin[d..2 * d]);
            }
        }
    }

    /// Adds row `r`'s part of `J^T J v` (its adjoints in `lane`) into `out`: each rule map's
    /// `x g^T` over the nodes, last node first, then each word's adjoint over the leaves.
    #[inline(always)]
    fn add_row<const DC: usize>(
        &self,
        s: &StepRows,
        r: usize,
        c: &RowCache,
        lane: &Lane,
        out: &mut [f64],
    ) {
        let d = if DC == 0 { self.dim } else { DC };
        let m = s.br.len;
        let k = s.br.nodes.len();
        let ne = self.emb.len();
        let pb = 2 * d * d;
        let rules = &s.keys.rule[r * k..(r + 1) * k];
        for i in (0..k).rev() {
            let rule = rules[i] as usize;
            // A local copy: the compiler then knows the adjoint is not `out`, and vectorises
            // the adds below (they ran as scalars, 30 % of the kernel, perf annotate).
            let mut gi = [0.0f64; MAX_TREE_DIM];
            gi[..d].copy_from_slice(&lane.g[(m + i) * d..(m + i + 1) * d]);
            let ga = &mut out[ne + rule * pb..ne + (rule + 1) * pb];
            for (ii, &xv) in c.x[i * 2 * d..(i + 1) * 2 * d].iter().enumerate() {
                if xv != 0.0 {
                    ga[ii * d..(ii + 1) * d]
                        .iter_mut()
                        .zip(&gi[..d])
                        .for_each(|(o, &gv)| *o += xv * gv);
                }
            }
        }
        for (p, &tok) in s.w.row(r).iter().enumerate() {
            out[tok as usize * d..(tok as usize + 1) * d]
                .iter_mut()
                .zip(&lane.g[p * d..(p + 1) * d])
                .for_each(|(o, &gv)| *o += gv);
        }
    }
}
