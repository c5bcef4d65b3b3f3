//! The baseline sentence learner: block-wise k-means, no autodiff.
//!
//! Z's D dimensions are split into M contiguous blocks (sizes differ by at most one) and each
//! block is clustered into V centroids by k-means (seeded k-means++ starts, Lloyd iterations,
//! the best of a few starts by within-cluster sum of squares). Token m of a row is the cluster
//! of its block m.
//!
//! This is the right structure for Elmoznino et al.'s lookup tables with q = 1 (each block of
//! D/M dimensions is a function of one word plus noise), and a baseline for everything else:
//! it cannot find words spread over dimensions, shared across positions, or composed
//! non-additively. It exists so that `kcomp represent` works on the default build and so the
//! auto-encoder has something to beat; the code-length terms never depend on how W was found.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{EpochRecord, LearnedSentences, LearnerConfig, SentenceLearner, SentenceSpace};
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::derive_seed;

/// Block-wise k-means (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct KMeansLearner {
    /// k-means++ starts per block; the one with the smallest sum of squares is kept.
    pub starts: usize,
}

impl Default for KMeansLearner {
    fn default() -> Self {
        KMeansLearner { starts: 4 }
    }
}

/// The dimensions of block `m` of `length` blocks over `dim` dimensions.
pub fn block_range(dim: usize, length: usize, m: usize) -> std::ops::Range<usize> {
    (m * dim / length)..((m + 1) * dim / length)
}

/// One block's clustering: labels, and per Lloyd iteration (label entropy in bits, sum of
/// squares in grid cells squared).
struct BlockFit {
    labels: Vec<u32>,
    sse: f64,
    curve: Vec<(f64, f64)>,
}

/// Checks that `space` fits `z` (continuous, M <= D, V >= 1).
pub fn check_space(z: &Targets, space: SentenceSpace) -> Result<usize> {
    let Targets::Continuous { dim, .. } = z else {
        return Err(KcompError::param(
            "z",
            "learning sentences needs continuous Z (give --precision)",
        ));
    };
    if space.length == 0 || space.length > *dim {
        return Err(KcompError::param(
            "length",
            format!(
                "sentence length {} must be between 1 and the dimension D = {dim}",
                space.length
            ),
        ));
    }
    if space.vocab == 0 || space.vocab > u32::MAX as usize {
        return Err(KcompError::param(
            "vocab",
            format!("vocabulary size {} must be at least 1", space.vocab),
        ));
    }
    Ok(*dim)
}

impl SentenceLearner for KMeansLearner {
    fn name(&self) -> &str {
        "kmeans"
    }

    fn learn(
        &self,
        z: &Targets,
        space: SentenceSpace,
        config: &LearnerConfig,
        seed: u64,
        progress: &dyn Fn(usize, usize),
    ) -> Result<LearnedSentences> {
        let dim = check_space(z, space)?;
        let Targets::Continuous { grid, .. } = z else {
            unreachable!("checked by check_space");
        };
        let n = z.n();
        let (m_len, v) = (space.length, space.vocab);
        let iters = config.epochs.max(1);
        let starts = self.starts.max(1);
        // Blocks are independent; each has its own seed, so the result is the same for any
        // number of threads. They run in waves of one per thread so that progress (not
        // shareable across threads) is reported from this thread between waves.
        let fit_block = |m: usize| -> BlockFit {
            let r = block_range(dim, m_len, m);
            let width = r.len();
            let x: Vec<f64> = (0..n)
                .flat_map(|i| grid[i * dim + r.start..i * dim + r.end].iter())
                .map(|&g| g as f64)
                .collect();
            (0..starts)
                .map(|s| {
                    let seed = derive_seed(derive_seed(seed, m as u64), s as u64);
                    kmeans(&x, n, width, v, iters, seed)
                })
                .reduce(|a, b| if b.sse < a.sse { b } else { a })
                .expect("at least one start")
        };
        let wave = rayon::current_num_threads().max(1);
        let mut fits: Vec<BlockFit> = Vec::with_capacity(m_len);
        let blocks: Vec<usize> = (0..m_len).collect();
        for chunk in blocks.chunks(wave) {
            let part: Vec<BlockFit> = chunk
                .par_iter()
                .with_max_len(1)
                .map(|&m| fit_block(m))
                .collect();
            fits.extend(part);
            progress(fits.len(), m_len);
        }
        let mut tokens = vec![0u32; n * m_len];
        for (m, fit) in fits.iter().enumerate() {
            for i in 0..n {
                tokens[i * m_len + m] = fit.labels[i];
            }
        }
        let w = TokenData::new(n, m_len, v, tokens)?;
        // The curve: per iteration, the empirical entropy of the labels (what an ideal prior
        // pays per row) and a Gaussian code of the residual at the data's precision.
        let epochs = fits.iter().map(|f| f.curve.len()).max().unwrap_or(0);
        let curve = (0..epochs)
            .map(|t| {
                let at = |f: &BlockFit| f.curve[t.min(f.curve.len() - 1)];
                let prior: f64 = fits.iter().map(|f| at(f).0).sum();
                let sse: f64 = fits.iter().map(|f| at(f).1).sum();
                EpochRecord {
                    epoch: t + 1,
                    prior_bits_per_row: prior,
                    reconstruction_bits_per_row: gaussian_bits_per_row(sse, n, dim),
                }
            })
            .collect();
        Ok(LearnedSentences { w, curve })
    }
}

/// Bits per row of a Gaussian code of residuals with total sum of squares `sse` (grid cells
/// squared) over `n` rows of `dim` values, with the variance floored at a quarter cell.
pub fn gaussian_bits_per_row(sse: f64, n: usize, dim: usize) -> f64 {
    let var = (sse / (n * dim).max(1) as f64).max(0.25);
    dim as f64 * 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E * var).log2()
}

/// Entropy in bits of the label histogram.
fn label_entropy(labels: &[u32], v: usize) -> f64 {
    let mut counts = vec![0usize; v];
    for &l in labels {
        counts[l as usize] += 1;
    }
    let n = labels.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// k-means of `n` points of `width` values into `v` clusters: k-means++ start, then Lloyd
/// iterations until no label changes (at most `iters`). Ties go to the lower cluster index.
fn kmeans(x: &[f64], n: usize, width: usize, v: usize, iters: usize, seed: u64) -> BlockFit {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let point = |i: usize| &x[i * width..(i + 1) * width];
    let dist =
        |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(p, q)| (p - q).powi(2)).sum() };
    // k-means++: the first centre uniformly, each next one with probability proportional to
    // the squared distance to the nearest centre chosen so far.
    let mut centres: Vec<f64> = Vec::with_capacity(v * width);
    let first = rng.random_range(0..n);
    centres.extend_from_slice(point(first));
    let mut nearest: Vec<f64> = (0..n).map(|i| dist(point(i), point(first))).collect();
    for _ in 1..v {
        let total: f64 = nearest.iter().sum();
        let pick = if total > 0.0 {
            let mut u = rng.random::<f64>() * total;
            let mut pick = n - 1;
            for (i, &d) in nearest.iter().enumerate() {
                if u < d {
                    pick = i;
                    break;
                }
                u -= d;
            }
            pick
        } else {
            // Fewer distinct points than clusters: the extra centres stay empty duplicates.
            rng.random_range(0..n)
        };
        centres.extend_from_slice(point(pick));
        for (i, d) in nearest.iter_mut().enumerate() {
            *d = d.min(dist(point(i), point(pick)));
        }
    }
    let mut labels = vec![u32::MAX; n];
    let mut curve = Vec::new();
    let mut sse = 0.0;
    for _ in 0..iters {
        let mut changed = false;
        sse = 0.0;
        for (i, label) in labels.iter_mut().enumerate() {
            let p = point(i);
            let (mut best, mut best_d) = (0u32, f64::INFINITY);
            for c in 0..v {
                let d = dist(p, &centres[c * width..(c + 1) * width]);
                if d < best_d {
                    (best, best_d) = (c as u32, d);
                }
            }
            if *label != best {
                *label = best;
                changed = true;
            }
            sse += best_d;
        }
        curve.push((label_entropy(&labels, v), sse));
        if !changed {
            break;
        }
        let mut sums = vec![0.0; v * width];
        let mut counts = vec![0usize; v];
        for (i, &l) in labels.iter().enumerate() {
            counts[l as usize] += 1;
            for (s, &p) in sums[l as usize * width..].iter_mut().zip(point(i)) {
                *s += p;
            }
        }
        for c in 0..v {
            // An empty cluster keeps its centre.
            if counts[c] > 0 {
                for j in 0..width {
                    centres[c * width + j] = sums[c * width + j] / counts[c] as f64;
                }
            }
        }
    }
    BlockFit { labels, sse, curve }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_dimension_once() {
        for (d, m) in [(64, 16), (10, 3), (7, 7), (5, 1)] {
            let all: Vec<usize> = (0..m).flat_map(|k| block_range(d, m, k)).collect();
            assert_eq!(all, (0..d).collect::<Vec<_>>());
        }
    }

    #[test]
    fn separated_clusters_are_found() {
        // Two blocks of one dimension; block 0 has 3 clusters, block 1 has 2.
        let mut grid = Vec::new();
        for i in 0..60i64 {
            grid.push((i % 3) * 1000 + i % 5);
            grid.push((i % 2) * 1000 - i % 7);
        }
        let z = Targets::Continuous {
            dim: 2,
            lam: 0.01,
            grid,
        };
        let space = SentenceSpace {
            length: 2,
            vocab: 3,
        };
        let cfg = LearnerConfig {
            epochs: 50,
            ..Default::default()
        };
        let out = KMeansLearner::default()
            .learn(&z, space, &cfg, 7, &|_, _| {})
            .unwrap();
        // Same cluster iff same true label, per block.
        for i in 0..60 {
            for j in 0..60 {
                let w = &out.w;
                assert_eq!(w.row(i)[0] == w.row(j)[0], i % 3 == j % 3);
            }
        }
        assert!(!out.curve.is_empty());
    }
}
