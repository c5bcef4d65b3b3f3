//! The block-Jacobi preconditioner's solves: each damped diagonal block of `J^T J` factored by
//! nalgebra's Cholesky, solved by hand on contiguous columns.
//!
//! Why by hand: nalgebra's triangular solves run on strided views through generic loops that
//! do not vectorise; at 200 x 200 per rule (D = 10) they were 17 % of a grammar fit's time
//! (perf, `tree_probe 3 1 2000 0 linear`). [`CholeskyFactor::solve_mut`] does the same
//! operations in the same order as `nalgebra::Cholesky::solve_mut` (column axpys forward,
//! eight-accumulator dot products backward), so the fits' bits are unchanged (tested).

/// The lower-triangular Cholesky factor `L` of a damped block, packed by columns (column `i`
/// from its diagonal down, `n - i` entries): the solves stream it twice per conjugate-gradient
/// iteration, and at 200 x 200 (320 KB a rule, D = 10) the blocks of a width-4 layout do not
/// fit in cache, so half the bytes is about half the time.
pub(super) struct CholeskyFactor {
    n: usize,
    l: Vec<f64>,
}

impl CholeskyFactor {
    /// The factor of `block + diag(damp)` (`block` row-major, symmetric), or `None` where that
    /// is not positive definite.
    pub(super) fn new(block: &[f64], damp: &[f64], n: usize) -> Option<Self> {
        let mut m = nalgebra::DMatrix::from_row_slice(n, n, block);
        for (i, &dm) in damp.iter().enumerate().take(n) {
            m[(i, i)] += dm;
        }
        let full = m.cholesky()?.unpack_dirty();
        // Packed: column i's entries from the diagonal down, columns one after another.
        let l = (0..n)
            .flat_map(|i| full.as_slice()[i * n + i..(i + 1) * n].iter().copied())
            .collect();
        Some(CholeskyFactor { n, l })
    }

    /// Solves `L L^T x = b` in place (`b` becomes `x`).
    pub(super) fn solve_mut(&self, b: &mut [f64]) {
        let n = self.n;
        // Forward, L y = b: column by column, y_i fixed, then the rows below updated.
        for i in 0..n {
            let col = self.column(i);
            let yi = b[i] / col[0];
            b[i] = yi;
            let neg = -yi;
            for (bj, &lj) in b[i + 1..].iter_mut().zip(&col[1..]) {
                *bj += neg * lj;
            }
        }
        // Backward, L^T x = y: row by row from the last, each a dot product with the column
        // below the diagonal.
        for i in (0..n).rev() {
            let col = self.column(i);
            let dot = dot8(&col[1..], &b[i + 1..]);
            b[i] = (b[i] - dot) / col[0];
        }
    }

    /// Column `i` of `L` from the diagonal down.
    fn column(&self, i: usize) -> &[f64] {
        let start = i * (2 * self.n + 1 - i) / 2;
        &self.l[start..start + self.n - i]
    }
}

/// `x . y` summed as nalgebra's `dot` sums a dynamic vector: eight interleaved partial sums
/// over whole groups of eight, combined as (0 + 4) + (1 + 5) + (2 + 6) + (3 + 7), then the
/// tail in order.
fn dot8(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let mut acc = [0.0f64; 8];
    let mut i = 0;
    while n - i >= 8 {
        for (a, (&xv, &yv)) in acc.iter_mut().zip(x[i..i + 8].iter().zip(&y[i..i + 8])) {
            *a += xv * yv;
        }
        i += 8;
    }
    let mut res = 0.0;
    res += acc[0] + acc[4];
    res += acc[1] + acc[5];
    res += acc[2] + acc[6];
    res += acc[3] + acc[7];
    for k in i..n {
        res += x[k] * y[k];
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, StandardNormal};

    /// The hand-written solve gives nalgebra's `Cholesky::solve_mut` bit for bit, on sizes
    /// around the dot product's groups of eight and the D = 10 rule block (200), and solves
    /// the system.
    #[test]
    fn solves_give_nalgebra_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for n in [1, 2, 7, 8, 9, 16, 17, 31, 200] {
            let g: Vec<f64> = (0..n * (n + 3))
                .map(|_| StandardNormal.sample(&mut rng))
                .collect();
            // A symmetric positive semi-definite block G G^T (row-major), damped.
            let mut block = vec![0.0; n * n];
            for a in 0..n {
                for b in 0..n {
                    block[a * n + b] = (0..n + 3)
                        .map(|t| g[a * (n + 3) + t] * g[b * (n + 3) + t])
                        .sum();
                }
            }
            let damp: Vec<f64> = (0..n).map(|i| 1e-3 * (1.0 + i as f64)).collect();
            let rhs: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
            let factor = CholeskyFactor::new(&block, &damp, n).expect("positive definite");
            let mut ours = rhs.clone();
            factor.solve_mut(&mut ours);
            let mut m = nalgebra::DMatrix::from_row_slice(n, n, &block);
            for i in 0..n {
                m[(i, i)] += damp[i];
            }
            let mut theirs = nalgebra::DVector::from_column_slice(&rhs);
            m.clone().cholesky().unwrap().solve_mut(&mut theirs);
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(theirs.as_slice()), "n = {n}");
            let back = &m * nalgebra::DVector::from_column_slice(&ours);
            for (a, b) in back.iter().zip(&rhs) {
                assert!(
                    (a - b).abs() < 1e-6 * (1.0 + b.abs()),
                    "n = {n}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn a_block_not_positive_definite_has_no_factor() {
        assert!(CholeskyFactor::new(&[1.0, 2.0, 2.0, 1.0], &[0.0, 0.0], 2).is_none());
    }
}
