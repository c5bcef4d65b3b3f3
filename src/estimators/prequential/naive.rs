//! The "naive" code every chunk may fall back to, and the one the first chunk is sent with.
//!
//! - Discrete Z: uniform over each attribute's values, `A log2 V` bits per row.
//! - Continuous Z (integer grid indices at precision lam): per dimension, a discretised
//!   Gaussian on the grid whose parameters are themselves sent first: the mean as an integer grid
//!   index and the standard deviation as `2^(j/8)` grid cells, both integers coded with the
//!   signed Elias-delta code. The parameters are the chunk's own rounded mean and std.

use crate::dataset::Targets;
use crate::neural::likelihood::grid_gaussian_nll_nats;

/// Length in bits of the Elias-delta code of `n >= 1`.
pub fn elias_delta_bits(n: u64) -> f64 {
    debug_assert!(n >= 1);
    let l = 63 - n.leading_zeros() as u64; // floor(log2 n)
    let ll = 63 - (l + 1).leading_zeros() as u64; // floor(log2(l + 1))
    (l + 2 * ll + 1) as f64
}

/// Signed Elias-delta: zig-zag map then Elias-delta of `map + 1`.
pub fn signed_elias_delta_bits(z: i64) -> f64 {
    let m = if z >= 0 {
        2 * z as u64
    } else {
        2 * z.unsigned_abs() - 1
    };
    elias_delta_bits(m + 1)
}

/// Naive code length in bits of rows `idx`.
pub fn naive_bits(z: &Targets, idx: &[usize]) -> f64 {
    match z {
        Targets::Discrete { n_attr, n_vals, .. } => {
            idx.len() as f64 * *n_attr as f64 * (*n_vals as f64).log2()
        }
        Targets::Continuous { dim, grid, .. } => {
            if idx.is_empty() {
                return 0.0;
            }
            let mut total_nats = 0.0;
            let mut param_bits = 0.0;
            for d in 0..*dim {
                let n = idx.len() as f64;
                let mean = idx.iter().map(|&i| grid[i * dim + d] as f64).sum::<f64>() / n;
                let var = idx
                    .iter()
                    .map(|&i| (grid[i * dim + d] as f64 - mean).powi(2))
                    .sum::<f64>()
                    / n;
                let m = mean.round();
                // std in grid cells, at least half a cell, on a 1/8-octave grid.
                let j = (8.0 * var.sqrt().max(0.5).log2()).round() as i64;
                let sigma = 2f64.powf(j as f64 / 8.0);
                param_bits += signed_elias_delta_bits(m as i64) + signed_elias_delta_bits(j);
                for &i in idx {
                    total_nats += grid_gaussian_nll_nats(grid[i * dim + d], 1.0, m, sigma);
                }
            }
            param_bits + total_nats / std::f64::consts::LN_2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elias_delta_lengths() {
        assert_eq!(elias_delta_bits(1), 1.0);
        assert_eq!(elias_delta_bits(2), 4.0);
        assert_eq!(elias_delta_bits(4), 5.0);
        assert_eq!(elias_delta_bits(16), 9.0);
        assert_eq!(signed_elias_delta_bits(0), 1.0);
        assert_eq!(signed_elias_delta_bits(-1), 4.0);
    }

    #[test]
    fn uniform_discrete() {
        let z = Targets::discrete(2, 8, vec![0, 1, 2, 3]).unwrap();
        assert!((naive_bits(&z, &[0, 1]) - 12.0).abs() < 1e-12);
    }

    #[test]
    fn continuous_near_entropy() {
        // Standard normal data at lam = 0.01: about log2(sqrt(2 pi e)) - log2(0.01) bits.
        let mut v = Vec::new();
        let mut rng = crate::rng::stream::Stream::new(crate::rng::stream::RngKind::Kcomp, 3);
        for _ in 0..4000 {
            let u1: f64 = rng.uniform().max(1e-300);
            let u2: f64 = rng.uniform();
            v.push((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos());
        }
        let z = Targets::from_floats(1, 0.01, &v).unwrap();
        let idx: Vec<usize> = (0..4000).collect();
        let per = naive_bits(&z, &idx) / 4000.0;
        let expect = (2.0 * std::f64::consts::PI * std::f64::consts::E)
            .sqrt()
            .log2()
            + 100f64.log2();
        assert!((per - expect).abs() < 0.05, "{per} vs {expect}");
    }
}
