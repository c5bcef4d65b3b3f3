//! Topological similarity (Brighton & Kirby 2006): the correlation, over pairs of samples,
//! between distances in sentence space W and distances in representation space Z.
//!
//! Options: Pearson or Spearman correlation; W distance Hamming, cityblock on one-hot codes
//! (= 2 x Hamming for equal-length sentences, the choice of Elmoznino et al.'s code), Levenshtein
//! edit distance, normalised edit distance or Jaccard distance on token sets; Z distance
//! Euclidean, cosine or Hamming (attributes that differ); all pairs, or a seeded sample of pairs.
//!
//! The default Z distance is `auto`: Hamming on discrete Z (categorical attributes, where the
//! field's usual topsim is Hamming/Hamming and a perfectly compositional language scores 1;
//! Euclidean on attribute *indices* would rank "red" closer to "green" than to "blue" for no
//! reason), Euclidean on continuous Z (the Figure 2 sweeps of Elmoznino et al.). The default W
//! distance, one-hot cityblock, is 2 x Hamming on equal-length messages, so its ranks and its
//! Pearson correlations equal Hamming's; unlike positional Hamming it also counts extra
//! positions of unequal-length messages. The estimator reports the distances it used.
//!
//! EGG (`egg/core/language_analysis.py`, `TopographicSimilarity`) offers `edit`, `jaccard`,
//! `hamming`, `cosine` and `euclidean` for either side, with Spearman's rho. Where its code and
//! the definitions differ:
//! - **Normalised edit distance** is defined as edit(a, b) / mean(|a|, |b|), in [0, 1] for
//!   equal lengths. Before EGG pull request #129 (Oct 2020) the code computed
//!   `editdistance.eval(x, y) / (len(x) + len(y)) / 2`: Python divides left to right, so that is
//!   edit / (2 (|a| + |b|)) = edit / (4 mean), a quarter of the definition. As the edit
//!   distance of two equal-length messages is at most their length L, it could never exceed
//!   L / 4L = 0.25. The factor is the same for every pair, so Pearson's r and Spearman's rho,
//!   hence topsim, are unchanged by it (the maintainers' reply in that thread); only the
//!   distances themselves were off. We compute the definition ([`WDistance::NormalisedEdit`]).
//! - **Jaccard**: EGG passes messages to `scipy.spatial.distance.jaccard`, which is positional.
//!   Before scipy 1.15 it was, among positions where either message is non-zero, the fraction
//!   where they differ (a Hamming distance that skips shared zeros, EOS padding). Since scipy
//!   1.15 it compares only the zero / non-zero pattern of the two vectors (inputs are cast to
//!   booleans), so two messages with non-zero tokens at the same positions are at distance 0
//!   whatever their tokens. Neither is the Jaccard distance of the token sets. We compute the
//!   set version, 1 - |A n B| / |A u B| over the distinct tokens of each message
//!   ([`WDistance::Jaccard`]): it ignores order and repetition, like a bag-of-symbols view.
//! - **Cosine distance to a zero vector** is 1 here (no direction: as far as an orthogonal
//!   vector); scipy and EGG give NaN there, which would make the correlation NaN.
//! - **Translation invariance on continuous Z**: Euclidean and cosine distances on whole blocks
//!   go through |a|^2 + |b|^2 - 2 a.b; Z is centred (column means subtracted) first, so adding a
//!   constant to Z does not lose precision to large norms. (Cosine is not translation
//!   invariant by definition; centring is only applied to Euclidean distances.)
//! - **Ties before Spearman ranks**: distances equal in exact arithmetic can differ in the last
//!   bits (cosine, Euclidean through dot products); they are rounded to 12 significant digits
//!   of the largest distance before ranking, so such pairs tie as they should.

use rand::RngExt;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use statrs::statistics::{Data, OrderStatistics, RankTieBreaker};

use crate::error::{KcompError, Result};
use crate::estimators::topsim_integer::{GemmFloat, IntRows, pearson_hamming_euclidean};

/// Correlation coefficient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Correlation {
    /// Pearson's r.
    #[default]
    Pearson,
    /// Spearman's rho (Pearson on average ranks).
    Spearman,
}

/// Distance between sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum WDistance {
    /// Positions that differ.
    Hamming,
    /// Cityblock distance between one-hot encodings.
    #[default]
    OneHotCityblock,
    /// Levenshtein edit distance.
    Edit,
    /// Edit distance / mean length of the two sentences (0 when both are empty).
    NormalisedEdit,
    /// 1 - |A n B| / |A u B| over the sets of distinct tokens (0 when both are empty).
    Jaccard,
}

/// Distance between representations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ZDistance {
    /// Hamming on discrete Z, Euclidean on continuous Z.
    #[default]
    Auto,
    /// Euclidean distance.
    Euclidean,
    /// 1 - cosine similarity of the values as numbers (on discrete Z: of the attribute
    /// indices, not of one-hot vectors).
    Cosine,
    /// 1 - cosine similarity of the one-hot encodings of discrete attributes (EGG's `cosine`
    /// on the one-hot meanings its games pass): the fraction of attributes that differ.
    CosineOneHot,
    /// Coordinates that differ (for categorical attributes).
    Hamming,
}

/// Topological-similarity settings: `[topsim]` of a config, where a named `convention`
/// (kcomp, egg, elmoznino; [`crate::estimators::topsim_convention`]) sets the three distances
/// and the keys given beside it override them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "crate::estimators::topsim_convention::TopsimSettings")]
pub struct TopsimConfig {
    /// Correlation coefficient.
    pub correlation: Correlation,
    /// Sentence distance.
    pub w_distance: WDistance,
    /// Representation distance.
    pub z_distance: ZDistance,
    /// Use all pairs when N(N-1)/2 is at most this; otherwise sample this many pairs.
    pub max_pairs: usize,
    /// Seed of the pair sample.
    pub seed: u64,
    /// Meaning distances from an N x N matrix file (e.g. human similarity ratings) instead of
    /// distances on Z.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub z_distances: Option<std::path::PathBuf>,
}

impl ZDistance {
    /// The distance used on Z that is `discrete` or not: `Auto` resolved.
    pub fn resolve(self, discrete: bool) -> ZDistance {
        match (self, discrete) {
            (ZDistance::Auto, true) => ZDistance::Hamming,
            (ZDistance::Auto, false) => ZDistance::Euclidean,
            (other, _) => other,
        }
    }
}

impl TopsimConfig {
    /// The settings with the Z distance resolved for discrete or continuous Z.
    pub fn resolved(&self, discrete: bool) -> TopsimConfig {
        TopsimConfig {
            z_distance: self.z_distance.resolve(discrete),
            ..self.clone()
        }
    }
}

impl Default for TopsimConfig {
    fn default() -> Self {
        TopsimConfig {
            correlation: Correlation::Pearson,
            w_distance: WDistance::OneHotCityblock,
            z_distance: ZDistance::Auto,
            max_pairs: 1_000_000,
            seed: 0,
            z_distances: None,
        }
    }
}

/// Topological-similarity options of a command line (`kcomp synth`).
#[derive(Debug, Clone, clap::Args)]
pub struct TopsimOptions {
    /// Skip topological similarity.
    #[arg(long)]
    pub no_topsim: bool,
    /// Correlation between the two distance lists.
    #[arg(long, value_enum, default_value_t = TopsimConfig::default().correlation)]
    pub topsim_correlation: Correlation,
    /// Distance between sentences.
    #[arg(long, value_enum, default_value_t = TopsimConfig::default().w_distance)]
    pub topsim_w_distance: WDistance,
    /// Distance between representations.
    #[arg(long, value_enum, default_value_t = TopsimConfig::default().z_distance)]
    pub topsim_z_distance: ZDistance,
    /// Use all pairs up to this many, else a seeded sample of this many pairs.
    #[arg(long, default_value_t = TopsimConfig::default().max_pairs)]
    pub topsim_max_pairs: usize,
}

impl TopsimOptions {
    /// The configuration, or `None` with `--no-topsim`.
    pub fn config(&self, seed: u64) -> Option<TopsimConfig> {
        (!self.no_topsim).then_some(TopsimConfig {
            correlation: self.topsim_correlation,
            w_distance: self.topsim_w_distance,
            z_distance: self.topsim_z_distance,
            max_pairs: self.topsim_max_pairs,
            seed,
            z_distances: None,
        })
    }
}

/// Distance between two messages. Messages of different lengths (a padded W is read without
/// its padding) differ at every position only one of them has: Hamming counts those positions,
/// as it would count a word against padding, and one-hot cityblock counts them once (one word
/// against nothing), so neither treats padding as a letter.
pub(crate) fn w_distance(kind: WDistance, a: &[i64], b: &[i64]) -> f64 {
    match kind {
        WDistance::Hamming => {
            (a.iter().zip(b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len())) as f64
        }
        WDistance::OneHotCityblock => {
            // One-hot per position: a differing position contributes 2; extra positions 1.
            let differ: usize = a.iter().zip(b).map(|(x, y)| usize::from(x != y)).sum();
            (2 * differ + a.len().abs_diff(b.len())) as f64
        }
        WDistance::Edit => edit_distance(a, b) as f64,
        WDistance::NormalisedEdit => {
            let total = a.len() + b.len();
            if total == 0 {
                0.0
            } else {
                2.0 * edit_distance(a, b) as f64 / total as f64
            }
        }
        WDistance::Jaccard => jaccard_distance(a, b),
    }
}

/// Jaccard distance of the token sets of `a` and `b`.
fn jaccard_distance(a: &[i64], b: &[i64]) -> f64 {
    let sa: std::collections::BTreeSet<i64> = a.iter().copied().collect();
    let sb: std::collections::BTreeSet<i64> = b.iter().copied().collect();
    let union = sa.union(&sb).count();
    if union == 0 {
        0.0
    } else {
        1.0 - sa.intersection(&sb).count() as f64 / union as f64
    }
}

fn edit_distance(a: &[i64], b: &[i64]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

fn z_distance(kind: ZDistance, a: &[f64], b: &[f64]) -> f64 {
    match kind {
        ZDistance::Auto | ZDistance::Euclidean => squared_euclidean(a, b).sqrt(),
        ZDistance::Cosine | ZDistance::CosineOneHot => {
            let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
            let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
            if na == 0.0 || nb == 0.0 {
                1.0
            } else {
                1.0 - dot / (na * nb)
            }
        }
        ZDistance::Hamming => a.iter().zip(b).filter(|(x, y)| x != y).count() as f64,
    }
}

/// Sum of squared differences with four independent accumulators (lets the compiler vectorise;
/// the summation order is fixed, so results are deterministic).
fn squared_euclidean(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            let d = x[l] - y[l];
            acc[l] += d * d;
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| (x - y) * (x - y)).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Equal-length sentences packed as `u32` for fast Hamming-type distances.
struct PackedW {
    flat: Vec<u32>,
    len: usize,
    scale: f64,
}

impl PackedW {
    /// `None` unless the distance is Hamming or one-hot cityblock, all rows have the same
    /// length and every word id fits in `u32`.
    fn new(w: &[Vec<i64>], kind: WDistance) -> Option<Self> {
        let scale = match kind {
            WDistance::Hamming => 1.0,
            WDistance::OneHotCityblock => 2.0,
            WDistance::Edit | WDistance::NormalisedEdit | WDistance::Jaccard => return None,
        };
        let len = w[0].len();
        if w.iter().any(|r| r.len() != len) {
            return None;
        }
        let flat = w
            .iter()
            .flatten()
            .map(|&x| u32::try_from(x).ok())
            .collect::<Option<Vec<u32>>>()?;
        Some(PackedW { flat, len, scale })
    }

    fn distance(&self, i: usize, j: usize) -> f64 {
        let a = &self.flat[i * self.len..(i + 1) * self.len];
        let b = &self.flat[j * self.len..(j + 1) * self.len];
        let differ: u32 = a.iter().zip(b).map(|(x, y)| u32::from(x != y)).sum();
        self.scale * f64::from(differ)
    }
}

/// Rows per block of the Gram-matrix path.
const GRAM_BLOCK: usize = 128;

/// Z flattened row-major with squared norms, for distances through dot products:
/// `|a - b|^2 = |a|^2 + |b|^2 - 2 a.b` (clamped at 0), `cos = a.b / (|a| |b|)`.
struct GramZ {
    flat: Vec<f64>,
    norms2: Vec<f64>,
    n: usize,
    d: usize,
}

impl GramZ {
    /// `centre`: subtract the column means first (Euclidean distances do not change, and large
    /// offsets no longer cost precision in |a|^2 + |b|^2 - 2 a.b).
    fn new(z: &[Vec<f64>], centre: bool) -> Self {
        let d = z[0].len();
        let mut means = vec![0.0; d];
        if centre {
            for row in z {
                for (m, x) in means.iter_mut().zip(row) {
                    *m += x;
                }
            }
            for m in &mut means {
                *m /= z.len() as f64;
            }
        }
        let z: Vec<Vec<f64>> = z
            .iter()
            .map(|r| r.iter().zip(&means).map(|(x, m)| x - m).collect())
            .collect();
        let flat: Vec<f64> = z.iter().flatten().copied().collect();
        let norms2 = z.iter().map(|r| r.iter().map(|x| x * x).sum()).collect();
        GramZ {
            flat,
            norms2,
            n: z.len(),
            d,
        }
    }

    /// Dot products of rows `rows` with rows `rows.start..n` (the pairs j >= i of the block):
    /// a `rows.len() x (n - rows.start)` row-major matrix.
    fn block_dots(&self, rows: std::ops::Range<usize>) -> Vec<f64> {
        let (m, n, k) = (rows.len(), self.n - rows.start, self.d);
        let mut out = vec![0.0; m * n];
        let a = &self.flat[rows.start * k..rows.end * k];
        let b = &self.flat[rows.start * k..];
        f64::gemm_abt(m, k, n, a, b, &mut out);
        out
    }

    fn distance(&self, kind: ZDistance, i: usize, j: usize, dot: f64) -> f64 {
        let (ni, nj) = (self.norms2[i], self.norms2[j]);
        match kind {
            ZDistance::Auto | ZDistance::Euclidean => (ni + nj - 2.0 * dot).max(0.0).sqrt(),
            ZDistance::Cosine | ZDistance::CosineOneHot => {
                if ni == 0.0 || nj == 0.0 {
                    1.0
                } else {
                    1.0 - dot / (ni.sqrt() * nj.sqrt())
                }
            }
            // Not built for Hamming (no dot products needed); direct, for completeness.
            ZDistance::Hamming => z_distance(
                kind,
                &self.flat[i * self.d..(i + 1) * self.d],
                &self.flat[j * self.d..(j + 1) * self.d],
            ),
        }
    }
}

/// Pearson correlation; `None` when either side is constant.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (da, db) = (a - mx, b - my);
        sxy += da * db;
        sxx += da * da;
        syy += db * db;
    }
    if sxx == 0.0 || syy == 0.0 {
        None
    } else {
        Some(sxy / (sxx * syy).sqrt())
    }
}

/// Distances rounded to 12 significant digits of the largest, so values equal in exact
/// arithmetic but not in the last bits tie before ranking.
pub(crate) fn round_for_ties(mut d: Vec<f64>) -> Vec<f64> {
    let max = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if max > 0.0 && max.is_finite() {
        let q = 10f64.powi(max.log10().floor() as i32 - 11);
        for x in &mut d {
            *x = (*x / q).round() * q;
        }
    }
    d
}

/// Average ranks (1-based), ties sharing their mean rank (statrs).
pub fn average_ranks(x: &[f64]) -> Vec<f64> {
    Data::new(x.to_vec()).ranks(RankTieBreaker::Average)
}

/// Topological similarity of sentences `w` (rows of word ids) and representations `z` (rows of
/// reals; `ZDistance::Auto` is Euclidean here, as rows of reals carry no kind: the estimator
/// resolves it from the dataset). Errors on mismatched or too few rows, and when either
/// distance is constant (the correlation is undefined there).
pub fn topological_similarity(
    w: &[Vec<i64>],
    z: &[Vec<f64>],
    config: &TopsimConfig,
) -> Result<f64> {
    let config = &config.resolved(false);
    if config.z_distance == ZDistance::CosineOneHot {
        let one_hot = crate::estimators::topsim_convention::one_hot_rows(z)?;
        let cosine = TopsimConfig {
            z_distance: ZDistance::Cosine,
            ..config.clone()
        };
        return topological_similarity(w, &one_hot, &cosine);
    }
    if w.len() != z.len() {
        return Err(KcompError::param(
            "topsim",
            format!("W has {} rows but Z has {}", w.len(), z.len()),
        ));
    }
    let n = w.len();
    if n < 3 {
        return Err(KcompError::param("topsim", "needs at least 3 samples"));
    }
    let total_pairs = n * (n - 1) / 2;
    let distances = |i: usize, j: usize| {
        (
            w_distance(config.w_distance, &w[i], &w[j]),
            z_distance(config.z_distance, &z[i], &z[j]),
        )
    };
    let (dw, dz): (Vec<f64>, Vec<f64>) = if total_pairs <= config.max_pairs {
        // All pairs in row order, written in place: one parallel task per block of rows owns
        // the slice of pairs (i, j > i) of its rows. Z distances come from a block Gram matrix
        // (one GEMM per block, only the columns j >= first row of the block) when rows share a
        // width.
        let width = z[0].len();
        let gram = (z.iter().all(|r| r.len() == width) && config.z_distance != ZDistance::Hamming)
            .then(|| GramZ::new(z, config.z_distance != ZDistance::Cosine));
        let packed = PackedW::new(w, config.w_distance);
        let mut dw = vec![0.0; total_pairs];
        let mut dz = vec![0.0; total_pairs];
        let mut tasks = Vec::with_capacity(n.div_ceil(GRAM_BLOCK));
        let (mut rest_w, mut rest_z) = (dw.as_mut_slice(), dz.as_mut_slice());
        for block in 0..n.div_ceil(GRAM_BLOCK) {
            let rows = block * GRAM_BLOCK..((block + 1) * GRAM_BLOCK).min(n);
            let pairs: usize = rows.clone().map(|i| n - 1 - i).sum();
            let (bw, tw) = std::mem::take(&mut rest_w).split_at_mut(pairs);
            let (bz, tz) = std::mem::take(&mut rest_z).split_at_mut(pairs);
            (rest_w, rest_z) = (tw, tz);
            tasks.push((rows, bw, bz));
        }
        tasks.into_par_iter().for_each(|(rows, bw, bz)| {
            let dots = gram.as_ref().map(|g| g.block_dots(rows.clone()));
            let cols = n - rows.start;
            let mut at = 0;
            for i in rows.clone() {
                let len = n - 1 - i;
                let (out_w, out_z) = (&mut bw[at..at + len], &mut bz[at..at + len]);
                for (o, j) in out_w.iter_mut().zip(i + 1..n) {
                    *o = match &packed {
                        Some(p) => p.distance(i, j),
                        None => w_distance(config.w_distance, &w[i], &w[j]),
                    };
                }
                for (o, j) in out_z.iter_mut().zip(i + 1..n) {
                    *o = match (&gram, &dots) {
                        (Some(g), Some(d)) => g.distance(
                            config.z_distance,
                            i,
                            j,
                            d[(i - rows.start) * cols + (j - rows.start)],
                        ),
                        _ => z_distance(config.z_distance, &z[i], &z[j]),
                    };
                }
                at += len;
            }
        });
        (dw, dz)
    } else {
        sampled_pairs(n, config.max_pairs, config.seed)
            .par_iter()
            .map(|&(i, j)| distances(i, j))
            .unzip()
    };
    correlate(dw, dz, config.correlation)
}

/// `count` pairs (i < j) of `n` rows drawn with a stream seeded by `seed`.
pub(crate) fn sampled_pairs(n: usize, count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            loop {
                let i = rng.random_range(0..n);
                let j = rng.random_range(0..n);
                if i != j {
                    break (i.min(j), i.max(j));
                }
            }
        })
        .collect()
}

/// The correlation of two distance lists (ranks after rounding for ties for Spearman).
pub(crate) fn correlate(dw: Vec<f64>, dz: Vec<f64>, correlation: Correlation) -> Result<f64> {
    let r = match correlation {
        Correlation::Pearson => pearson(&dw, &dz),
        Correlation::Spearman => pearson(
            &average_ranks(&round_for_ties(dw)),
            &average_ranks(&round_for_ties(dz)),
        ),
    };
    r.ok_or_else(constant_distance_error)
}

fn constant_distance_error() -> KcompError {
    KcompError::param(
        "topsim",
        "a distance is constant over all pairs, so the correlation is undefined",
    )
}

/// Topological similarity of integer-grid data: `z` grid indices times `lam`.
pub fn topsim_grid(
    w: &ndarray::Array2<i64>,
    z: &ndarray::Array2<i64>,
    lam: f64,
    config: &TopsimConfig,
) -> Result<f64> {
    // The Figure 2 setting in one fused pass (topsim_integer.rs): both scale factors (2 for
    // one-hot cityblock, lam for Z) drop out of Pearson's r.
    let (n, m, d) = (w.nrows(), w.ncols(), z.ncols());
    let fused = config.correlation == Correlation::Pearson
        && matches!(
            config.w_distance,
            WDistance::Hamming | WDistance::OneHotCityblock
        )
        && config.z_distance.resolve(false) == ZDistance::Euclidean
        && n * n.saturating_sub(1) / 2 <= config.max_pairs
        && lam.is_finite()
        && lam > 0.0;
    if let (true, Some(w_flat), Some(z_flat)) = (fused, w.as_slice(), z.as_slice())
        && let Some(r) = pearson_hamming_euclidean(
            IntRows {
                values: w_flat,
                width: m,
            },
            IntRows {
                values: z_flat,
                width: d,
            },
        )
    {
        return r.ok_or_else(constant_distance_error);
    }
    let wr: Vec<Vec<i64>> = w.rows().into_iter().map(|r| r.to_vec()).collect();
    let zr: Vec<Vec<f64>> = z
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|&k| k as f64 * lam).collect())
        .collect();
    topological_similarity(&wr, &zr, config)
}

pub use crate::estimators::topsim_convention::TopsimEstimator;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(w_distance(WDistance::Hamming, &[1, 2, 3], &[1, 5, 6]), 2.0);
        assert_eq!(
            w_distance(WDistance::OneHotCityblock, &[1, 2, 3], &[1, 5, 6]),
            4.0
        );
        assert_eq!(edit_distance(&[1, 2, 3, 4], &[2, 3, 4, 5]), 2);
        assert_eq!(
            z_distance(ZDistance::Euclidean, &[0.0, 3.0], &[4.0, 0.0]),
            5.0
        );
        assert!((z_distance(ZDistance::Cosine, &[1.0, 0.0], &[0.0, 2.0]) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn normalised_edit_and_jaccard_closed_forms() {
        let ne = |a: &[i64], b: &[i64]| w_distance(WDistance::NormalisedEdit, a, b);
        // edit 2 / mean length 4.
        assert_eq!(ne(&[1, 2, 3, 4], &[2, 3, 4, 5]), 0.5);
        // Disjoint equal-length messages reach 1 (EGG before #129: 3 / (2 x 6) = 0.25).
        assert_eq!(ne(&[1, 2, 3], &[4, 5, 6]), 1.0);
        // Two insertions over mean length 3.
        assert_eq!(ne(&[1, 2], &[1, 2, 3, 4]), 2.0 / 3.0);
        assert_eq!(ne(&[], &[]), 0.0);
        assert_eq!(ne(&[], &[7]), 2.0);
        let jac = |a: &[i64], b: &[i64]| w_distance(WDistance::Jaccard, a, b);
        // {1,2,3} vs {2,3,4}: 2 shared of 4.
        assert_eq!(jac(&[1, 2, 3], &[2, 3, 4]), 0.5);
        // Sets ignore order and repetition.
        assert_eq!(jac(&[1, 1, 2], &[2, 1]), 0.0);
        assert_eq!(jac(&[1, 2], &[3, 4]), 1.0);
        assert_eq!(jac(&[], &[]), 0.0);
        assert_eq!(
            z_distance(ZDistance::Hamming, &[1.0, 2.0, 3.0], &[1.0, 0.0, 0.0]),
            2.0
        );
    }

    fn chars(words: &[&str]) -> Vec<Vec<i64>> {
        words
            .iter()
            .map(|w| w.bytes().map(i64::from).collect())
            .collect()
    }

    #[test]
    fn egg_doctest_values() {
        // EGG's TopographicSimilarity doctest: meanings = messages = the words below; Spearman
        // topsim is 1.0 with Hamming/Hamming and with Hamming/normalised edit.
        let words = ["cat", "dog", "pen", "ben", "ten"];
        let w = chars(&words);
        let z: Vec<Vec<f64>> = w
            .iter()
            .map(|r| r.iter().map(|&c| c as f64).collect())
            .collect();
        for w_distance in [WDistance::Hamming, WDistance::NormalisedEdit] {
            let cfg = TopsimConfig {
                correlation: Correlation::Spearman,
                w_distance,
                z_distance: ZDistance::Hamming,
                ..Default::default()
            };
            let r = topological_similarity(&w, &z, &cfg).unwrap();
            assert!((r - 1.0).abs() < 1e-12, "{w_distance:?}: {r}");
        }
    }

    #[test]
    fn korbak_trivially_compositional_protocol_has_topsim_one() {
        // metrics/test_metrics.py of Korbak et al.: Hamming on (colour, shape), raw edit
        // distance on messages, Spearman: 1 on the trivially compositional 5 x 5 protocol.
        use crate::datasets::protocols::{ProtocolKind, ProtocolParams};
        let d = ProtocolParams {
            kind: ProtocolKind::TriviallyCompositional,
            colours: 5,
            shapes: 5,
            repeats: 1,
            seed: 3,
        }
        .dataset()
        .unwrap();
        let cfg = TopsimConfig {
            correlation: Correlation::Spearman,
            w_distance: WDistance::Edit,
            z_distance: ZDistance::Hamming,
            ..Default::default()
        };
        let r = topological_similarity(&d.w_rows(), &d.z_rows_f64(), &cfg).unwrap();
        assert!((r - 1.0).abs() < 1e-12, "{r}");
    }

    #[test]
    fn a_constant_factor_on_distances_leaves_topsim_unchanged() {
        // Why EGG #129 did not change topsim: for equal-length messages normalised edit is
        // edit / L, and EGG's old formula edit / 4L; both correlate identically with Z.
        let w: Vec<Vec<i64>> = (0..30).map(|i| vec![i % 3, (i * 7) % 5, i % 4]).collect();
        let z: Vec<Vec<f64>> = (0..30)
            .map(|i| vec![f64::from(i % 3), f64::from(i % 5)])
            .collect();
        for correlation in [Correlation::Pearson, Correlation::Spearman] {
            let cfg = |w_distance| TopsimConfig {
                correlation,
                w_distance,
                ..Default::default()
            };
            let a = topological_similarity(&w, &z, &cfg(WDistance::Edit)).unwrap();
            let b = topological_similarity(&w, &z, &cfg(WDistance::NormalisedEdit)).unwrap();
            assert!((a - b).abs() < 1e-12, "{a} {b}");
        }
    }

    #[test]
    fn bijective_constant_and_permuted_languages() {
        // Objects of a 4 x 4 grid, Z distance Hamming over attributes.
        let objs: Vec<Vec<f64>> = (0..16)
            .map(|k| vec![f64::from(k / 4), f64::from(k % 4)])
            .collect();
        let bij: Vec<Vec<i64>> = (0..16).map(|k| vec![k / 4, 4 + k % 4]).collect();
        // A permutation of whole messages over objects (k -> 5k + 3 mod 16).
        let perm: Vec<Vec<i64>> = (0..16)
            .map(|k| bij[((5 * k + 3) % 16) as usize].clone())
            .collect();
        for w_distance in [
            WDistance::Hamming,
            WDistance::Edit,
            WDistance::NormalisedEdit,
            WDistance::Jaccard,
        ] {
            let cfg = TopsimConfig {
                correlation: Correlation::Spearman,
                w_distance,
                z_distance: ZDistance::Hamming,
                ..Default::default()
            };
            // Bijective positional language: every W distance equals the Z distance (times a
            // constant: x1, x1, x1/2, x2/3 per differing attribute), so topsim = 1.
            let r = topological_similarity(&bij, &objs, &cfg).unwrap();
            assert!((r - 1.0).abs() < 1e-12, "{w_distance:?}: {r}");
            let p = topological_similarity(&perm, &objs, &cfg).unwrap();
            assert!(p < 0.5, "{w_distance:?}: {p}");
            // Constant language: the W distance is constant, the correlation undefined.
            let constant = vec![vec![1, 5]; 16];
            assert!(topological_similarity(&constant, &objs, &cfg).is_err());
        }
    }

    #[test]
    fn euclidean_topsim_is_translation_invariant_and_near_ties_tie() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let w: Vec<Vec<i64>> = (0..60).map(|i| vec![i % 4, (i / 4) % 5, i % 3]).collect();
        let z: Vec<Vec<f64>> = (0..60)
            .map(|_| (0..6).map(|_| rng.random::<f64>()).collect())
            .collect();
        let cfg = TopsimConfig {
            z_distance: ZDistance::Euclidean,
            ..Default::default()
        };
        let base = topological_similarity(&w, &z, &cfg).unwrap();
        for offset in [1e3, 1e5] {
            let shifted: Vec<Vec<f64>> = z
                .iter()
                .map(|r| r.iter().map(|x| x + offset).collect())
                .collect();
            let t = topological_similarity(&w, &shifted, &cfg).unwrap();
            // Before centring: 1.1e-5 at 1e3 and 2.7e-4 at 1e5.
            assert!((t - base).abs() < 1e-9, "{offset}: {t} vs {base}");
        }
        // Values equal but for the last bits tie.
        let r = round_for_ties(vec![0.1 + 0.2, 0.3, 1.0]);
        assert_eq!(r[0], r[1]);
        assert_ne!(r[1], r[2]);
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(
            average_ranks(&[10.0, 20.0, 10.0, 5.0]),
            vec![2.5, 4.0, 2.5, 1.0]
        );
    }

    #[test]
    fn perfectly_compositional_map_has_topsim_one_and_random_near_zero() {
        // z = one-hot(w) scaled: Euclidean^2 is proportional to Hamming, so Spearman = 1.
        let w: Vec<Vec<i64>> = (0..27).map(|i| vec![i % 3, (i / 3) % 3, i / 9]).collect();
        let z: Vec<Vec<f64>> = w
            .iter()
            .map(|s| {
                let mut v = vec![0.0; 9];
                for (p, &x) in s.iter().enumerate() {
                    v[p * 3 + x as usize] = 1.0;
                }
                v
            })
            .collect();
        let cfg = TopsimConfig {
            correlation: Correlation::Spearman,
            ..Default::default()
        };
        assert!((topological_similarity(&w, &z, &cfg).unwrap() - 1.0).abs() < 1e-12);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let zr: Vec<Vec<f64>> = (0..27)
            .map(|_| (0..9).map(|_| rng.random::<f64>()).collect())
            .collect();
        let r = topological_similarity(&w, &zr, &cfg).unwrap();
        assert!(r.abs() < 0.2, "{r}");
    }

    #[test]
    fn gram_path_matches_direct_distances() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let z: Vec<Vec<f64>> = (0..300)
            .map(|_| (0..7).map(|_| rng.random::<f64>() * 4.0 - 2.0).collect())
            .collect();
        let g = GramZ::new(&z, false);
        // Columns 128..300: the pairs j >= i of rows 128..256.
        let dots = g.block_dots(128..256);
        assert_eq!(dots.len(), 128 * 172);
        for (i, j) in [(128, 128), (130, 299), (255, 256), (200, 200), (129, 140)] {
            let dot = dots[(i - 128) * 172 + (j - 128)];
            for kind in [ZDistance::Euclidean, ZDistance::Cosine] {
                let direct = z_distance(kind, &z[i], &z[j]);
                assert!(
                    (g.distance(kind, i, j, dot) - direct).abs() < 1e-6,
                    "{i} {j}"
                );
            }
        }
    }

    #[test]
    fn sampled_pairs_are_seeded() {
        let w: Vec<Vec<i64>> = (0..40).map(|i| vec![i % 5, i / 5]).collect();
        let z: Vec<Vec<f64>> = w
            .iter()
            .map(|s| vec![s[0] as f64, s[1] as f64 * 2.0])
            .collect();
        let full = topological_similarity(&w, &z, &TopsimConfig::default()).unwrap();
        let cfg = TopsimConfig {
            max_pairs: 400,
            ..Default::default()
        };
        let a = topological_similarity(&w, &z, &cfg).unwrap();
        assert_eq!(a, topological_similarity(&w, &z, &cfg).unwrap());
        assert!((a - full).abs() < 0.1, "sampled {a} vs all pairs {full}");
        let other = TopsimConfig { seed: 9, ..cfg };
        assert_ne!(a, topological_similarity(&w, &z, &other).unwrap());
    }

    #[test]
    fn constant_distances_are_an_error_not_nan() {
        let w = vec![vec![1], vec![1], vec![1]];
        let z = vec![vec![0.0], vec![1.0], vec![2.0]];
        assert!(topological_similarity(&w, &z, &TopsimConfig::default()).is_err());
    }

    #[test]
    fn estimator_matches_the_function_on_dataset_rows() {
        use crate::dataset::{Dataset, KzMethod, KzReference, Provenance, Targets, TokenData};
        use crate::estimators::interface::{Estimator, Measure, Progress};
        let tokens: Vec<u32> = (0..27u32)
            .flat_map(|i| [i % 3, (i / 3) % 3, i / 9])
            .collect();
        let values = tokens.clone();
        let w = TokenData::new(27, 3, 3, tokens).unwrap();
        let z = Targets::discrete(3, 3, values).unwrap();
        let kz = KzReference {
            bits: 27.0 * 27f64.log2(),
            method: KzMethod::Uniform,
        };
        let d = Dataset::new(w, z, Provenance::default(), kz, None).unwrap();
        let est = TopsimEstimator::default();
        let e = est.estimate(&d, &Progress::hidden()).unwrap();
        // Discrete Z: the default resolves to Hamming on Z, so W (each attribute's value as
        // its own word) has 2 x the Z distance on every pair and topsim is exactly 1.
        let hamming = TopsimConfig {
            z_distance: ZDistance::Hamming,
            ..Default::default()
        };
        let direct = topological_similarity(&d.w_rows(), &d.z_rows_f64(), &hamming).unwrap();
        assert_eq!(e.measure, Measure::Score { score: direct });
        assert!((direct - 1.0).abs() < 1e-12, "{direct}");
        assert_eq!(e.native["pairs"], 351);
        assert_eq!(e.native["z_distance"], "hamming");
        assert!(
            e.notes[0].contains("hamming on discrete Z"),
            "{:?}",
            e.notes
        );
        // Euclidean on attribute indices (the old default) is well below 1 on the same
        // language: attribute values 0 and 2 are farther apart than 0 and 1.
        let euclid =
            topological_similarity(&d.w_rows(), &d.z_rows_f64(), &TopsimConfig::default()).unwrap();
        assert!(euclid < 0.95, "{euclid}");
        // An explicit choice is kept and not annotated.
        let est = TopsimEstimator {
            config: TopsimConfig {
                z_distance: ZDistance::Euclidean,
                ..Default::default()
            },
            label: None,
        };
        let e = est.estimate(&d, &Progress::hidden()).unwrap();
        assert_eq!(e.measure, Measure::Score { score: euclid });
        // Only the convention is named; no note about the choice.
        assert_eq!(e.notes.len(), 1, "{:?}", e.notes);
        assert!(e.notes[0].starts_with("convention "), "{:?}", e.notes);
    }
}
