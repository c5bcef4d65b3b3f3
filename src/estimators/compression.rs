//! Compression baselines: K(Z|W) ~ 8 (|C(W, Z)| - |C(W)|) bits for a real compressor C at its
//! strongest setting (zstd level 22, xz preset 9 extreme, bzip2 level 9), and the normalised
//! compression distance NCD(W, Z) = (C(WZ) - min(C(W), C(Z))) / max(C(W), C(Z)) (Cilibrasi &
//! Vitanyi 2005).
//!
//! Serialisation (the choice matters for what the compressor can learn): row by row, `w_i` then
//! `z_i`, so that a message and its meaning sit next to each other and a dictionary or context
//! coder can learn the map w -> z inside its window. Every token takes the smallest fixed byte
//! width (1, 2, 4 or 8 bytes, little endian) that holds its column group's alphabet: W's
//! vocabulary; discrete Z's values; continuous Z's grid indices shifted by their minimum, so the
//! width holds their range. Fixed widths keep row boundaries at fixed offsets (periodic
//! structure compressors exploit); variable-length codes would hide it. C(W) compresses the W
//! rows alone, C(Z) the Z rows alone, C(WZ) the interleaved rows.
//!
//! Rows are written in a seeded random order (the same for all three streams; seed 0 unless
//! set): generators list rows in structured orders (object by object, repeats together) that
//! a compressor would exploit in Z alone, measuring the listing rather than the map w -> z.
//! The shared K(Z) conventions ignore row order too.
//!
//! The difference of two compressed sizes is not itself a prefix code: when |C(WZ)| < |C(W)|
//! (possible on tiny inputs, where headers and block boundaries dominate) the conditional is
//! clamped at 0 bits and a note says so. Compressors carry headers (zstd ~ 10 bytes, xz ~ 60,
//! bzip2 ~ 40) and need data to learn from: on small datasets they are weak estimators.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::io::Read;

use crate::dataset::{Dataset, Targets};
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// A general-purpose compressor at its strongest setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compressor {
    /// zstd at its maximum level (22).
    Zstd,
    /// xz (LZMA2) preset 9 | extreme.
    Xz,
    /// bzip2 at level 9 (900 kB blocks).
    Bzip2,
}

impl Compressor {
    /// All compressors of the panel.
    pub const ALL: [Compressor; 3] = [Compressor::Zstd, Compressor::Xz, Compressor::Bzip2];

    /// Short name used in native fields.
    pub fn name(self) -> &'static str {
        match self {
            Compressor::Zstd => "zstd",
            Compressor::Xz => "xz",
            Compressor::Bzip2 => "bzip2",
        }
    }

    /// Compresses `data` as one stream.
    pub fn compress(self, data: &[u8]) -> Result<Vec<u8>> {
        let fail = |e: std::io::Error| KcompError::Other(format!("{}: {e}", self.name()));
        match self {
            Compressor::Zstd => {
                zstd::bulk::compress(data, *zstd::compression_level_range().end()).map_err(fail)
            }
            Compressor::Xz => {
                liblzma::encode_all(data, 9 | liblzma::stream::PRESET_EXTREME).map_err(fail)
            }
            Compressor::Bzip2 => {
                let mut out = Vec::new();
                bzip2::read::BzEncoder::new(data, bzip2::Compression::best())
                    .read_to_end(&mut out)
                    .map_err(fail)?;
                Ok(out)
            }
        }
    }

    /// Decompresses a stream produced by [`Compressor::compress`].
    pub fn decompress(self, data: &[u8]) -> Result<Vec<u8>> {
        let fail = |e: std::io::Error| KcompError::Other(format!("{}: {e}", self.name()));
        match self {
            Compressor::Zstd => zstd::stream::decode_all(data).map_err(fail),
            Compressor::Xz => liblzma::decode_all(data).map_err(fail),
            Compressor::Bzip2 => {
                let mut out = Vec::new();
                bzip2::read::BzDecoder::new(data)
                    .read_to_end(&mut out)
                    .map_err(fail)?;
                Ok(out)
            }
        }
    }
}

/// Smallest fixed byte width (1, 2, 4 or 8) that holds every value in `0..=max`.
pub fn byte_width(max: u64) -> usize {
    match max {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFFFF_FFFF => 4,
        _ => 8,
    }
}

fn push_le(out: &mut Vec<u8>, value: u64, width: usize) {
    out.extend_from_slice(&value.to_le_bytes()[..width]);
}

/// The three byte streams a compressor sees: W rows, Z rows, and interleaved `w_i z_i` rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Serialised {
    pub w: Vec<u8>,
    pub z: Vec<u8>,
    pub wz: Vec<u8>,
    /// Bytes per W token and per Z value.
    pub w_width: usize,
    pub z_width: usize,
}

/// Serialises `data` row by row (see the module docs), in the order of a seeded random
/// permutation when `shuffle_seed` is set, in the dataset's order otherwise.
pub fn serialise(data: &Dataset, shuffle_seed: Option<u64>) -> Serialised {
    let n = data.n();
    let mut order: Vec<usize> = (0..n).collect();
    if let Some(seed) = shuffle_seed {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
    }
    let w_width = byte_width(data.w.vocab.saturating_sub(1) as u64);
    // Z as unsigned offsets with the width of their range.
    let (z_vals, z_width, z_cols): (Vec<u64>, usize, usize) = match &data.z {
        Targets::Discrete {
            n_attr,
            n_vals,
            values,
        } => (
            values.iter().map(|&v| u64::from(v)).collect(),
            byte_width(n_vals.saturating_sub(1) as u64),
            *n_attr,
        ),
        Targets::Continuous { dim, grid, .. } => {
            let min = grid.iter().copied().min().unwrap_or(0);
            let max = grid.iter().copied().max().unwrap_or(0);
            let offsets: Vec<u64> = grid.iter().map(|&k| k.abs_diff(min)).collect();
            (offsets, byte_width(max.abs_diff(min)), *dim)
        }
    };
    let m = data.w.n_words;
    let mut w = Vec::with_capacity(n * m * w_width);
    let mut z = Vec::with_capacity(n * z_cols * z_width);
    let mut wz = Vec::with_capacity(w.capacity() + z.capacity());
    for &i in &order {
        for &t in data.w.row(i) {
            push_le(&mut w, u64::from(t), w_width);
            push_le(&mut wz, u64::from(t), w_width);
        }
        for &v in &z_vals[i * z_cols..(i + 1) * z_cols] {
            push_le(&mut z, v, z_width);
            push_le(&mut wz, v, z_width);
        }
    }
    Serialised {
        w,
        z,
        wz,
        w_width,
        z_width,
    }
}

/// Compressed sizes of one compressor and what follows from them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompressorResult {
    pub compressor: Compressor,
    /// |C(W)|, |C(Z)|, |C(WZ)| in bytes.
    pub c_w_bytes: usize,
    pub c_z_bytes: usize,
    pub c_wz_bytes: usize,
    /// max(0, 8 (|C(WZ)| - |C(W)|)).
    pub k_z_given_w_bits: f64,
    /// True when |C(WZ)| < |C(W)| and the conditional was clamped at 0.
    pub clamped: bool,
    /// 8 |C(Z)|: the compressor's own K(Z) (for reference; C uses the dataset's K(Z)).
    pub k_z_bits: f64,
    /// NCD(W, Z).
    pub ncd: f64,
}

/// Compresses the three streams with `compressor`.
pub fn measure(compressor: Compressor, s: &Serialised) -> Result<CompressorResult> {
    let c_w = compressor.compress(&s.w)?.len();
    let c_z = compressor.compress(&s.z)?.len();
    let c_wz = compressor.compress(&s.wz)?.len();
    let diff = c_wz as f64 - c_w as f64;
    let (lo, hi) = (c_w.min(c_z) as f64, c_w.max(c_z) as f64);
    Ok(CompressorResult {
        compressor,
        c_w_bytes: c_w,
        c_z_bytes: c_z,
        c_wz_bytes: c_wz,
        k_z_given_w_bits: 8.0 * diff.max(0.0),
        clamped: diff < 0.0,
        k_z_bits: 8.0 * c_z as f64,
        ncd: (c_wz as f64 - lo) / hi,
    })
}

/// Below this many serialised bytes of (W, Z) the estimate carries a small-data note.
pub const SMALL_INPUT_BYTES: usize = 64 * 1024;

/// The compression estimator: the best (smallest) conditional of zstd, xz and bzip2, with every
/// compressor's sizes and NCD as native fields.
#[derive(Debug, Clone)]
pub struct CompressionEstimator {
    /// Seed of the row order (`None`: the dataset's own order).
    pub shuffle_seed: Option<u64>,
}

impl Default for CompressionEstimator {
    fn default() -> Self {
        CompressionEstimator {
            shuffle_seed: Some(0),
        }
    }
}

impl Estimator for CompressionEstimator {
    fn name(&self) -> &str {
        "compression"
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        use rayon::prelude::*;
        let s = serialise(data, self.shuffle_seed);
        // One task per compressor (each compresses its three streams in turn): the sizes do
        // not depend on the thread count, and at most one xz encoder (~670 MB at preset 9e)
        // runs per thread.
        let results = Compressor::ALL
            .par_iter()
            .with_max_len(1)
            .map(|&c| measure(c, &s))
            .collect::<Result<Vec<_>>>()?;
        let best = results
            .iter()
            .min_by(|a, b| a.k_z_given_w_bits.total_cmp(&b.k_z_given_w_bits))
            .expect("three compressors");
        let mut est = Estimate::code_length(best.k_z_given_w_bits)
            .with("best", best.compressor.name())
            .with("serialised_wz_bytes", s.wz.len())
            .with("w_width_bytes", s.w_width)
            .with("z_width_bytes", s.z_width)
            .with("shuffle_seed", self.shuffle_seed);
        for r in &results {
            est = est.with(r.compressor.name(), r);
        }
        if s.wz.len() < SMALL_INPUT_BYTES {
            est = est.note(format!(
                "compression needs thousands of rows to rank datasets; N = {} ({} bytes \
                 serialised, below {} KB): compressor headers and the cost of learning w -> z \
                 dominate, so K(Z|W) is overestimated and C can rank a holistic language above \
                 a compositional one",
                data.n(),
                s.wz.len(),
                SMALL_INPUT_BYTES / 1024
            ));
        }
        for r in results.iter().filter(|r| r.clamped) {
            est = est.note(format!(
                "{}: |C(WZ)| < |C(W)|, conditional clamped at 0 bits",
                r.compressor.name()
            ));
        }
        Ok(est)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{KzMethod, KzReference, Provenance, TokenData};

    fn dataset(w: TokenData, z: Targets) -> Dataset {
        let kz = KzReference {
            bits: 1.0,
            method: KzMethod::Uniform,
        };
        Dataset::new(w, z, Provenance::default(), kz, None).unwrap()
    }

    #[test]
    fn widths_and_layout() {
        assert_eq!(byte_width(0), 1);
        assert_eq!(byte_width(255), 1);
        assert_eq!(byte_width(256), 2);
        assert_eq!(byte_width(70_000), 4);
        assert_eq!(byte_width(1 << 40), 8);
        // Vocab 300 -> 2 bytes per token; continuous Z from -1 to 1 -> range 2 -> 1 byte.
        let w = TokenData::new(2, 1, 300, vec![1, 299]).unwrap();
        let z = Targets::Continuous {
            dim: 2,
            lam: 0.5,
            grid: vec![-1, 1, 0, -1],
        };
        let d = dataset(w, z);
        let s = serialise(&d, None);
        assert_eq!((s.w_width, s.z_width), (2, 1));
        assert_eq!(s.w, vec![1, 0, 43, 1]);
        assert_eq!(s.z, vec![0, 2, 1, 0]);
        assert_eq!(s.wz, vec![1, 0, 0, 2, 43, 1, 1, 0]);
        // A shuffle permutes whole rows, the same way in every stream.
        let t = (1..20)
            .map(|seed| serialise(&d, Some(seed)))
            .find(|t| t.w != s.w)
            .unwrap();
        assert_eq!(t.w, vec![43, 1, 1, 0]);
        assert_eq!(t.z, vec![1, 0, 0, 2]);
        assert_eq!(t.wz, vec![43, 1, 1, 0, 1, 0, 0, 2]);
    }

    #[test]
    fn every_compressor_round_trips() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let data: Vec<u8> = (0..5000).map(|_| rng.random_range(0..4u8)).collect();
        for c in Compressor::ALL {
            let packed = c.compress(&data).unwrap();
            assert!(packed.len() < data.len(), "{}", c.name());
            assert_eq!(c.decompress(&packed).unwrap(), data, "{}", c.name());
        }
    }

    #[test]
    fn deterministic_z_costs_far_less_than_random_z() {
        // z = w (a copy): the conditional should be tiny next to an independent uniform Z.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 4000;
        let tokens: Vec<u32> = (0..n).map(|_| rng.random_range(0..16)).collect();
        let w = TokenData::new(n, 1, 16, tokens.clone()).unwrap();
        let copy = Targets::discrete(1, 16, tokens).unwrap();
        let rand_z: Vec<u32> = (0..n).map(|_| rng.random_range(0..16)).collect();
        let random = Targets::discrete(1, 16, rand_z).unwrap();
        let p = Progress::hidden();
        let det = CompressionEstimator::default()
            .estimate(&dataset(w.clone(), copy), &p)
            .unwrap();
        let rnd = CompressionEstimator::default()
            .estimate(&dataset(w, random), &p)
            .unwrap();
        let bits = |e: &Estimate| match e.measure {
            crate::estimators::interface::Measure::CodeLength { k_z_given_w_bits } => {
                k_z_given_w_bits
            }
            _ => unreachable!(),
        };
        // Independent Z has entropy 4 bits per row: no compressor beats that much.
        assert!(bits(&rnd) > 0.9 * 4.0 * n as f64, "{}", bits(&rnd));
        // A copy is learnable: under 1 bit per row (4000 rows gave 2368 bits with xz/zstd/bzip2
        // at their strongest; Z alone costs 4 bits per row).
        assert!(bits(&det) < n as f64, "{}", bits(&det));
        assert!(
            det.notes
                .iter()
                .any(|n| n.contains("needs thousands of rows"))
        );
    }
}
