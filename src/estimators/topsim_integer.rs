//! Topological similarity of integer data in one fused pass: Pearson's r between Hamming
//! distances of equal-length sentences and Euclidean distances of integer vectors, over all
//! pairs, without materialising the N(N-1)/2 distances.
//!
//! This is the setting of Elmoznino et al.'s Figure 2 (one-hot cityblock = 2 x Hamming, Euclidean on
//! the grid indices; both scale factors drop out of r), where topsim was most of a lookup run:
//! writing two 4 MB distance lists per run cost more in page faults than the distances did.
//! What makes one pass exact enough:
//! - integer dot products are exact in f64 below 2^53, whatever the summation order, so the
//!   squared distances `s = |z_i|^2 + |z_j|^2 - 2 z_i.z_j` are exact integers;
//! - the mean Hamming distance is known before the pass, from per-position id counts, so the
//!   covariance is accumulated centred on the W side, `sum (h - mean h) sqrt(s)`, and
//!   `sum h^2` is an exact integer;
//! - the Z side is centred on `sqrt(mean s)`, also known before the pass (`sum s` from the
//!   row sums), which is within the spread of sqrt(s) of its mean.
//!
//! Per-row sums are combined in row order with compensated summation: the result does not
//! depend on the thread count. It agrees with the two-pass [`super::topsim::pearson`] on
//! materialised distances to ~1e-14 (`agrees_with_the_materialised_two_pass_pearson`).

use rayon::prelude::*;

/// Rows of one GEMM block.
const BLOCK: usize = 64;

/// Up to this many pairs, one thread does all the blocks.
const PAIRS_ON_ONE_THREAD: usize = 1 << 21;

/// Per-thread scratch: f32 or f64 dot products of a block; one row's Hamming distances and
/// its pairs' Euclidean distances and centred Hamming distances.
#[derive(Default)]
struct Scratch {
    dots32: Vec<f32>,
    dots64: Vec<f64>,
    row: RowScratch,
}

#[derive(Default)]
struct RowScratch {
    hamming: Vec<u16>,
    dist: Vec<f64>,
    centred_h: Vec<f64>,
}

/// Row-major integer rows.
#[derive(Debug, Clone, Copy)]
pub struct IntRows<'a> {
    /// `rows x width` values, row-major.
    pub values: &'a [i64],
    /// Values per row.
    pub width: usize,
}

impl IntRows<'_> {
    fn rows(&self) -> usize {
        self.values.len().checked_div(self.width).unwrap_or(0)
    }

    fn row(&self, i: usize) -> &[i64] {
        &self.values[i * self.width..(i + 1) * self.width]
    }
}

/// Pearson's r between the Hamming distances of `w`'s rows and the Euclidean distances of
/// `z`'s rows over all pairs. `None` when this path does not apply (fewer than 3 rows,
/// mismatched row counts, values so large that squared distances are not exact in f64);
/// `Some(None)` when a distance is constant (r undefined).
pub fn pearson_hamming_euclidean(w: IntRows, z: IntRows) -> Option<Option<f64>> {
    let n = w.rows();
    if n < 3 || z.rows() != n || w.width == 0 || z.width == 0 {
        return None;
    }
    let max_abs = z.values.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
    // Squared distances reach 4 d max^2; f64 holds integers exactly below 2^53.
    if 4 * (z.width as u128) * u128::from(max_abs) * u128::from(max_abs) >= 1u128 << 53 {
        return None;
    }
    let pairs = (n * (n - 1) / 2) as f64;

    let (w_columns, sum_h) = dense_columns(w)?;
    let mean_h = sum_h as f64 / pairs;

    let norms2: Vec<f64> = (0..n)
        .map(|i| z.row(i).iter().map(|&v| (v * v) as f64).sum())
        .collect();
    // sum over pairs of s = n sum |z_i|^2 - |sum z_i|^2, exact in i128.
    let sum_s = {
        let total_norm: i128 = norms2.iter().map(|&x| x as i128).sum();
        let column_sums = (0..z.width).map(|c| (0..n).map(|i| i128::from(z.row(i)[c])).sum());
        n as i128 * total_norm - column_sums.map(|s: i128| s * s).sum::<i128>()
    };
    let centre_r = (sum_s as f64 / pairs).sqrt();

    // Dot products are exact in f32 too while every partial sum stays below 2^24, and the f32
    // GEMM runs twice as many lanes.
    let dots_fit_f32 = (z.width as u128) * u128::from(max_abs) * u128::from(max_abs) < 1 << 24;
    let z_f32: Vec<f32> = if dots_fit_f32 {
        z.values.iter().map(|&v| v as f32).collect()
    } else {
        Vec::new()
    };
    let z_f64: Vec<f64> = if dots_fit_f32 {
        Vec::new()
    } else {
        z.values.iter().map(|&v| v as f64).collect()
    };
    let blocks: Vec<std::ops::Range<usize>> = (0..n.div_ceil(BLOCK))
        .map(|b| b * BLOCK..((b + 1) * BLOCK).min(n))
        .collect();
    let sums = RowInputs {
        w_columns: &w_columns,
        norms2: &norms2,
        n,
        mean_h,
        centre_r,
    };
    let block_sums = |scratch: &mut Scratch, rows: std::ops::Range<usize>| {
        if dots_fit_f32 {
            block_dots(&z_f32, z.width, n, rows.clone(), &mut scratch.dots32);
            sums.block(rows, &scratch.dots32, &mut scratch.row)
        } else {
            block_dots(&z_f64, z.width, n, rows.clone(), &mut scratch.dots64);
            sums.block(rows, &scratch.dots64, &mut scratch.row)
        }
    };
    // A Figure 2 run (half a million pairs, a few ms) runs on its caller's thread: sweeps
    // already keep every core busy with runs, and waking the pool for it cost more than it
    // saved. Larger inputs split their blocks over the pool. Same blocks, same order: same bits.
    let per_block: Vec<Vec<RowSums>> = if n * (n - 1) / 2 <= PAIRS_ON_ONE_THREAD {
        let mut scratch = Scratch::default();
        blocks
            .into_iter()
            .map(|rows| block_sums(&mut scratch, rows))
            .collect()
    } else {
        blocks
            .into_par_iter()
            .map_init(Scratch::default, block_sums)
            .collect()
    };

    let mut sum_r = Compensated::default();
    let mut sum_hr = Compensated::default();
    let mut sum_rc2 = Compensated::default();
    let mut sum_h2: u64 = 0;
    for row in per_block.iter().flatten() {
        sum_r.add(row.r);
        sum_hr.add(row.centred_h_r);
        sum_rc2.add(row.r_minus_centre_sq);
        sum_h2 += row.h2;
    }
    // Exact: P sum h^2 - (sum h)^2 over P.
    let sxx =
        (pairs as i128 * i128::from(sum_h2) - i128::from(sum_h) * i128::from(sum_h)) as f64 / pairs;
    let mean_r = sum_r.value() / pairs;
    let syy = sum_rc2.value() - pairs * (mean_r - centre_r) * (mean_r - centre_r);
    if sxx <= 0.0 || syy <= 0.0 {
        return Some(None);
    }
    Some(Some(sum_hr.value() / (sxx * syy).sqrt()))
}

/// W column-major with each column's ids renumbered densely as u16 (eight comparisons per SSE2
/// instruction; only equality matters), and the sum of Hamming distances over all pairs: per
/// position, the pairs minus the pairs that share the id there. `None` when a column has more
/// than 2^16 distinct ids or rows are longer than 2^16 - 1 (distances would not fit in u16).
fn dense_columns(w: IntRows) -> Option<(Vec<u16>, u64)> {
    let n = w.rows();
    if w.width > usize::from(u16::MAX) {
        return None;
    }
    let pairs = (n * (n - 1) / 2) as u64;
    let mut columns = Vec::with_capacity(n * w.width);
    let mut sum_h = 0;
    for p in 0..w.width {
        let column: Vec<i64> = (0..n).map(|i| w.values[i * w.width + p]).collect();
        let mut ids = column.clone();
        ids.sort_unstable();
        let same: u64 = ids
            .chunk_by(|a, b| a == b)
            .map(|run| (run.len() * (run.len() - 1) / 2) as u64)
            .sum();
        sum_h += pairs - same;
        ids.dedup();
        if ids.len() > 1 << 16 {
            return None;
        }
        columns.extend(
            column
                .iter()
                .map(|id| ids.binary_search(id).expect("id of this column") as u16),
        );
    }
    Some((columns, sum_h))
}

/// A float type matrixmultiply multiplies.
pub(crate) trait GemmFloat: Copy + Default + Into<f64> {
    /// `c = a b` for row-major `a` (m x k) and the transpose of row-major `b` (n x k).
    fn gemm_abt(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
}

macro_rules! gemm_float {
    ($t:ty, $gemm:path) => {
        impl GemmFloat for $t {
            fn gemm_abt(m: usize, k: usize, n: usize, a: &[$t], b: &[$t], c: &mut [$t]) {
                assert!(a.len() >= m * k && b.len() >= n * k && c.len() >= m * n);
                // SAFETY: `a` is m x k row-major (strides k, 1); `b` is n x k row-major, read
                // as its k x n transpose (strides 1, k); `c` is m x n row-major; the lengths
                // are checked above.
                unsafe {
                    $gemm(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        k as isize,
                        1,
                        b.as_ptr(),
                        1,
                        k as isize,
                        0.0,
                        c.as_mut_ptr(),
                        n as isize,
                        1,
                    );
                }
            }
        }
    };
}
gemm_float!(f32, matrixmultiply::sgemm);
gemm_float!(f64, matrixmultiply::dgemm);

/// Dot products of rows `rows` with rows `rows.start..n`, into `out` (`rows.len() x
/// (n - rows.start)`, row-major).
fn block_dots<T: GemmFloat>(
    z: &[T],
    d: usize,
    n: usize,
    rows: std::ops::Range<usize>,
    out: &mut Vec<T>,
) {
    let (m, cols) = (rows.len(), n - rows.start);
    out.clear();
    out.resize(m * cols, T::default());
    T::gemm_abt(
        m,
        d,
        cols,
        &z[rows.start * d..rows.end * d],
        &z[rows.start * d..],
        out,
    );
}

/// What every row's sums read.
#[derive(Clone, Copy)]
struct RowInputs<'a> {
    w_columns: &'a [u16],
    norms2: &'a [f64],
    n: usize,
    mean_h: f64,
    centre_r: f64,
}

impl RowInputs<'_> {
    /// The sums of each row of a block, from the block's dot products.
    fn block<T: GemmFloat>(
        &self,
        rows: std::ops::Range<usize>,
        dots: &[T],
        scratch: &mut RowScratch,
    ) -> Vec<RowSums> {
        let cols = self.n - rows.start;
        rows.clone()
            .map(|i| {
                let local = (i - rows.start) * cols + (i + 1 - rows.start);
                self.row(i, &dots[local..local + (self.n - 1 - i)], scratch)
            })
            .collect()
    }

    /// Row i's sums: [`row_hamming`] then [`row_sums`], compiled for AVX2 when the CPU has it
    /// (wider lanes than SSE2; without explicit `mul_add` nothing is contracted, so both give
    /// the same bits).
    fn row<T: GemmFloat>(&self, i: usize, dots: &[T], scratch: &mut RowScratch) -> RowSums {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[target_feature(enable = "avx2")]
            fn avx2<T: GemmFloat>(
                inputs: &RowInputs,
                i: usize,
                dots: &[T],
                scratch: &mut RowScratch,
            ) -> RowSums {
                inputs.row_portable(i, dots, scratch)
            }
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2(self, i, dots, scratch) };
        }
        self.row_portable(i, dots, scratch)
    }

    #[inline(always)]
    fn row_portable<T: GemmFloat>(
        &self,
        i: usize,
        dots: &[T],
        scratch: &mut RowScratch,
    ) -> RowSums {
        let RowScratch {
            hamming,
            dist,
            centred_h,
        } = scratch;
        row_hamming(self.w_columns, self.n, i, hamming);
        // Element-wise passes first (they vectorise fully), then the sums in four lanes.
        // s = |z_i|^2 + |z_j|^2 - 2 z_i.z_j is an exact non-negative integer here: no clamp.
        let norm2_i = self.norms2[i];
        dist.clear();
        dist.extend(
            dots.iter()
                .zip(&self.norms2[i + 1..])
                .map(|(&dot, &nj)| (norm2_i + nj - 2.0 * dot.into()).sqrt()),
        );
        centred_h.clear();
        centred_h.extend(hamming.iter().map(|&h| f64::from(h) - self.mean_h));
        let mut sums = row_sums(dist, centred_h, self.centre_r);
        sums.h2 = hamming.iter().map(|&x| u64::from(x) * u64::from(x)).sum();
        sums
    }
}

/// Hamming distances of row `i` to rows `i+1..n`, into `out`.
#[inline(always)]
fn row_hamming(w_columns: &[u16], n: usize, i: usize, out: &mut Vec<u16>) {
    out.clear();
    out.resize(n - 1 - i, 0);
    for column in w_columns.chunks(n) {
        let id = column[i];
        for (h, &other) in out.iter_mut().zip(&column[i + 1..]) {
            *h += u16::from(other != id);
        }
    }
}

/// One row's share of the sums.
#[derive(Debug, Clone, Copy)]
struct RowSums {
    r: f64,
    centred_h_r: f64,
    r_minus_centre_sq: f64,
    h2: u64,
}

/// Sums over the pairs (i, j > i) of row i from their distances and centred Hamming
/// distances, in four lanes (a fixed order: deterministic, and it vectorises).
#[inline(always)]
fn row_sums(dist: &[f64], centred_h: &[f64], centre_r: f64) -> RowSums {
    let mut r = [0.0f64; 4];
    let mut hr = [0.0f64; 4];
    let mut rc = [0.0f64; 4];
    let (d4, d_tail) = dist.as_chunks::<4>();
    let (h4, h_tail) = centred_h.as_chunks::<4>();
    for (d, h) in d4.iter().zip(h4) {
        for l in 0..4 {
            r[l] += d[l];
            hr[l] += h[l] * d[l];
            rc[l] += (d[l] - centre_r) * (d[l] - centre_r);
        }
    }
    // The last (fewer than four) pairs, lane by lane.
    for (l, (&d, &h)) in d_tail.iter().zip(h_tail).enumerate() {
        r[l] += d;
        hr[l] += h * d;
        rc[l] += (d - centre_r) * (d - centre_r);
    }
    let fold = |a: [f64; 4]| (a[0] + a[1]) + (a[2] + a[3]);
    RowSums {
        r: fold(r),
        centred_h_r: fold(hr),
        r_minus_centre_sq: fold(rc),
        h2: 0,
    }
}

/// Neumaier's compensated sum.
#[derive(Debug, Default)]
struct Compensated {
    sum: f64,
    carry: f64,
}

impl Compensated {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.carry += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    fn value(&self) -> f64 {
        self.sum + self.carry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::topsim::pearson;
    use rand::{RngExt, SeedableRng};

    fn materialised(w: IntRows, z: IntRows) -> Option<f64> {
        let n = w.rows();
        let (mut dw, mut dz) = (Vec::new(), Vec::new());
        for i in 0..n {
            for j in i + 1..n {
                let h = w
                    .row(i)
                    .iter()
                    .zip(w.row(j))
                    .filter(|(a, b)| a != b)
                    .count();
                let s: i64 = z
                    .row(i)
                    .iter()
                    .zip(z.row(j))
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                dw.push(h as f64);
                dz.push((s as f64).sqrt());
            }
        }
        pearson(&dw, &dz)
    }

    #[test]
    fn agrees_with_the_materialised_two_pass_pearson() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        // Sizes around the block edge, small and large ranges of values.
        for &(n, m, d, vocab, range) in &[
            (3, 1, 1, 2, 5),
            (65, 4, 3, 3, 1_000),
            (130, 8, 16, 5, 300),
            (200, 16, 64, 10, 30_000),
        ] {
            let w: Vec<i64> = (0..n * m).map(|_| rng.random_range(0..vocab)).collect();
            let z: Vec<i64> = (0..n * d)
                .map(|_| rng.random_range(-range..=range))
                .collect();
            let (w, z) = (
                IntRows {
                    values: &w,
                    width: m,
                },
                IntRows {
                    values: &z,
                    width: d,
                },
            );
            let fused = pearson_hamming_euclidean(w, z).unwrap().unwrap();
            let reference = materialised(w, z).unwrap();
            assert!(
                (fused - reference).abs() < 1e-13,
                "n {n}: {fused} vs {reference}"
            );
        }
    }

    #[test]
    fn closed_forms_and_undefined_cases() {
        // Z = one-hot of W's single word times 7: distance 7 sqrt(2) exactly when the words
        // differ, so r = 1.
        let w = [0i64, 1, 2, 0, 1];
        let z: Vec<i64> = w
            .iter()
            .flat_map(|&x| (0..3).map(move |k| if k == x { 7 } else { 0 }))
            .collect();
        let r = pearson_hamming_euclidean(
            IntRows {
                values: &w,
                width: 1,
            },
            IntRows {
                values: &z,
                width: 3,
            },
        );
        assert!((r.unwrap().unwrap() - 1.0).abs() < 1e-15);
        // All sentences differ everywhere: constant Hamming distance, r undefined.
        let w = [0i64, 1, 2, 3];
        let z = [0i64, 1, 5, 9];
        fn one(values: &[i64]) -> IntRows<'_> {
            IntRows { values, width: 1 }
        }
        assert_eq!(pearson_hamming_euclidean(one(&w), one(&z)), Some(None));
        // Values too large for exact squared distances: not this path.
        let z = [0i64, 1 << 26, 5, 9];
        assert_eq!(pearson_hamming_euclidean(one(&w), one(&z)), None);
        assert_eq!(pearson_hamming_euclidean(one(&w[..2]), one(&[0, 1])), None);
    }
}
