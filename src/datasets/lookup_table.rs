//! Lookup-table representations (Elmoznino et al., ICML 2025, Section 4.1 and Appendix H).
//!
//! A sentence `w` of length M over a vocabulary of K words is split into M/q contiguous q-grams.
//! One table of shape (K^q, D q / M), shared by all positions, maps each q-gram (index
//! `sum_j w[pos q + j] K^j`) to a row; the rows are concatenated in position order and noise is
//! added. Table entries are discretised Gaussians (std `table_std`, precision lam), noise has
//! std `r`. Everything lives on the integer grid of spacing lam.
//!
//! Exact terms (bits): K(p_w) = log K + log M; K(W|p_w) = N M log K; K(f) = code of every table
//! entry; K(Z|W,f) = code of the noise.

use std::collections::BTreeMap;

use ndarray::Array2;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::coding::bits::nats_to_bits;
use crate::coding::discretised_gaussian::DiscretisedGaussian;
use crate::coding::skellam::skellam_entropy_nats;
use crate::dataset::exact::ComplexityTerms;
use crate::datasets::validate;
use crate::error::{KcompError, Result};
use crate::rng::stream::{RngKind, Stream};

/// Largest table (entries) kcomp materialises; larger tables are generated row by row on use.
pub const MAX_DENSE_ENTRIES: u128 = 1 << 24;

/// How K(f) charges the lookup table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum TableCost {
    /// Every row of the table (the paper's K(f)); rows too many to materialise are charged
    /// their exact expected cost (entropy per entry times count).
    #[default]
    Full,
    /// Only the rows that occur in the data.
    Used,
}

/// Parameters of the lookup-table generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default, deny_unknown_fields)]
pub struct LookupParams {
    /// N: number of sentences.
    #[arg(long, default_value_t = LookupParams::default().samples)]
    pub samples: usize,
    /// M: sentence length.
    #[arg(long, default_value_t = LookupParams::default().length)]
    pub length: usize,
    /// K: vocabulary size (at least 2).
    #[arg(long, default_value_t = LookupParams::default().vocab)]
    pub vocab: usize,
    /// D: representation dimension (divisible by length / ngram).
    #[arg(long, default_value_t = LookupParams::default().dim)]
    pub dim: usize,
    /// q: n-gram size (disentanglement); must divide M.
    #[arg(long, default_value_t = LookupParams::default().ngram)]
    pub ngram: usize,
    /// lam: grid spacing (precision).
    #[arg(long, default_value_t = LookupParams::default().precision, allow_hyphen_values = true)]
    pub precision: f64,
    /// r: noise standard deviation.
    #[arg(long, default_value_t = LookupParams::default().noise, allow_hyphen_values = true)]
    pub noise: f64,
    /// Standard deviation of table entries.
    #[arg(long, default_value_t = LookupParams::default().table_std, allow_hyphen_values = true)]
    pub table_std: f64,
    /// Seed of every random draw.
    #[arg(long, default_value_t = LookupParams::default().seed)]
    pub seed: u64,
    /// Random stream (kcomp's own, or NumPy's for replaying published runs).
    #[arg(long, value_enum, default_value_t = LookupParams::default().rng)]
    pub rng: RngKind,
    /// How K(f) charges the table: every row (full, the paper's) or only the rows that occur (used).
    #[arg(long, value_enum, default_value_t = LookupParams::default().table_cost)]
    pub table_cost: TableCost,
}

impl Default for LookupParams {
    fn default() -> Self {
        LookupParams {
            samples: 1000,
            length: 16,
            vocab: 10,
            dim: 64,
            ngram: 1,
            precision: 0.01,
            noise: 0.01,
            table_std: 1.0,
            seed: 0,
            rng: RngKind::Kcomp,
            table_cost: TableCost::Full,
        }
    }
}

impl LookupParams {
    /// Checks every parameter; errors name the offending one.
    pub fn validate(&self) -> Result<()> {
        validate::at_least("samples", self.samples, 1)?;
        validate::at_least("length", self.length, 1)?;
        validate::at_least("vocab", self.vocab, 2)?;
        validate::at_least("dim", self.dim, 1)?;
        validate::at_least("ngram", self.ngram, 1)?;
        validate::divides("ngram", self.ngram, "length", self.length)?;
        let positions = self.length / self.ngram;
        if !self.dim.is_multiple_of(positions) {
            return Err(KcompError::param(
                "dim",
                format!(
                    "dim = {} must be divisible by the number of q-gram positions length/ngram = {}",
                    self.dim, positions
                ),
            ));
        }
        validate::positive("precision", self.precision)?;
        validate::positive("noise", self.noise)?;
        validate::positive("table_std", self.table_std)?;
        validate::not_all_zero("table_std", self.table_std, self.noise, self.precision)?;
        // Table entries (vocab^ngram x dim at most) and noisy values (samples x dim).
        let entries = (self.vocab as f64).powi(self.ngram.min(64) as i32) * self.dim as f64;
        validate::expect_nonzero(
            self.precision,
            &[
                ("table_std", self.table_std, entries),
                ("noise", self.noise, self.samples as f64 * self.dim as f64),
            ],
        )?;
        crate::coding::discretised_gaussian::check_grid(
            self.table_std,
            self.precision,
            "table_std",
        )?;
        crate::coding::discretised_gaussian::check_grid(self.noise, self.precision, "noise")?;
        if self.vocab > u32::MAX as usize {
            return Err(KcompError::param("vocab", "must be below 2^32"));
        }
        let rows = self.table_rows()?;
        if self.rng == RngKind::Numpy && rows * self.row_width() as u128 > MAX_DENSE_ENTRIES {
            return Err(KcompError::param(
                "rng",
                format!(
                    "the numpy stream replays the reference, which materialises all {rows} table rows; \
                     that exceeds {MAX_DENSE_ENTRIES} entries (use the kcomp stream)"
                ),
            ));
        }
        // After the rng check: its message says what to do about a huge numpy table.
        validate::memory("this lookup-table run", &self.memory_terms()?)?;
        Ok(())
    }

    /// The large allocations of a run, in bytes (`f64`: absurd sizes cannot overflow): W,
    /// the noise, Z (grid indices and values), the table (dense, or the used rows).
    pub fn memory_terms(&self) -> Result<Vec<(&'static str, f64)>> {
        let (n, m, d) = (self.samples as f64, self.length as f64, self.dim as f64);
        let rows = self.table_rows()? as f64;
        let width = self.row_width() as f64;
        let dense = rows * width <= MAX_DENSE_ENTRIES as f64 || self.rng == RngKind::Numpy;
        let used_rows = (n * self.positions() as f64).min(rows);
        let table = if dense {
            rows * width * 8.0
        } else {
            used_rows * (width * 8.0 + 96.0)
        };
        Ok(vec![
            ("samples x length", n * m * 8.0 + used_rows * 48.0),
            ("samples x dim", n * d * 8.0 * 4.0),
            ("vocab^ngram x dim", table),
        ])
    }

    /// Number of q-gram positions, M/q.
    pub fn positions(&self) -> usize {
        self.length / self.ngram
    }

    /// Width of one table row, D q / M.
    pub fn row_width(&self) -> usize {
        self.dim / self.positions()
    }

    /// K^q, the number of table rows.
    pub fn table_rows(&self) -> Result<u128> {
        (self.vocab as u128)
            .checked_pow(self.ngram as u32)
            .ok_or_else(|| KcompError::param("ngram", "vocab^ngram exceeds 2^128 table rows"))
    }
}

/// The lookup table: dense, or the rows that occur (generated deterministically per row).
#[derive(Debug, Clone)]
pub enum TableRows {
    /// All K^q rows, row-major.
    Dense(Vec<i64>),
    /// Only the rows used by the data, keyed by row index.
    Sparse(BTreeMap<u128, Vec<i64>>),
}

/// How K(f) was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableCostMethod {
    /// Exact code of every table entry.
    ExactAllRows,
    /// Exact code of the used rows plus the exact expected code of the unused rows.
    ExactUsedPlusExpectedUnused,
    /// Exact code of the used rows only (`--table-cost used`).
    ExactUsedRowsOnly,
}

/// A generated dataset with its exact complexity terms.
#[derive(Debug, Clone)]
pub struct LookupDataset {
    /// The parameters used.
    pub params: LookupParams,
    /// W: N x M word indices.
    pub w: Array2<i64>,
    /// Z: N x D grid indices (value = index x precision).
    pub z: Array2<i64>,
    /// The exact terms in bits.
    pub terms: ComplexityTerms,
    /// K^q as a real number.
    pub table_rows: f64,
    /// Distinct rows occurring in W.
    pub used_rows: usize,
    /// How K(f) was computed.
    pub k_f_method: TableCostMethod,
}

fn row_stream(seed: u64, row: u128) -> Stream {
    // One independent ChaCha stream per row: the table is the same whether materialised or
    // generated on demand, and whatever the order or thread count.
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(b"lookuptb");
    key[16..].copy_from_slice(&row.to_le_bytes());
    Stream::Kcomp(Box::new(ChaCha8Rng::from_seed(key)))
}

/// Generates a lookup-table dataset and its exact terms.
pub fn generate(params: &LookupParams) -> Result<LookupDataset> {
    generate_with_dense_limit(params, MAX_DENSE_ENTRIES)
}

/// [`generate`] with a chosen materialisation limit (tables above it are built row by row).
pub fn generate_with_dense_limit(
    params: &LookupParams,
    dense_limit: u128,
) -> Result<LookupDataset> {
    params.validate()?;
    let (n, m, k, d, q) = (
        params.samples,
        params.length,
        params.vocab,
        params.dim,
        params.ngram,
    );
    let width = params.row_width();
    let positions = params.positions();
    let rows = params.table_rows()?;
    let entry = DiscretisedGaussian::new(params.table_std, params.precision, "table_std")?;
    let noise = DiscretisedGaussian::new(params.noise, params.precision, "noise")?;
    let dense = rows * width as u128 <= dense_limit;

    let mut stream = Stream::new(params.rng, params.seed);
    // The reference samples the whole table first, then W, then the noise.
    let mut table = match (params.rng, dense) {
        (RngKind::Numpy, _) => TableRows::Dense(entry.sample(&mut stream, rows as usize * width)),
        (RngKind::Kcomp, true) => TableRows::Dense(
            (0..rows as u64)
                .into_par_iter()
                .flat_map_iter(|r| entry.sample(&mut row_stream(params.seed, u128::from(r)), width))
                .collect(),
        ),
        (RngKind::Kcomp, false) => TableRows::Sparse(BTreeMap::new()),
    };

    let w_flat: Vec<i64> = (0..n * m).map(|_| stream.below(k as u64) as i64).collect();
    let w = Array2::from_shape_vec((n, m), w_flat).expect("shape n x m");

    let row_index = |sentence: &[i64], pos: usize| -> u128 {
        sentence[pos * q..(pos + 1) * q]
            .iter()
            .rev()
            .fold(0u128, |acc, &word| acc * k as u128 + word as u128)
    };
    // The used rows in increasing order (a sorted vector: cheaper than a set to build).
    let mut used: Vec<u128> = w
        .rows()
        .into_iter()
        .flat_map(|sentence| {
            let s = sentence.to_slice().expect("row-major");
            (0..positions).map(move |pos| row_index(s, pos))
        })
        .collect();
    used.sort_unstable();
    used.dedup();
    if let TableRows::Sparse(map) = &mut table {
        for &r in &used {
            map.insert(r, entry.sample(&mut row_stream(params.seed, r), width));
        }
    }
    let row_of = |r: u128| -> &[i64] {
        match &table {
            TableRows::Dense(v) => &v[r as usize * width..(r as usize + 1) * width],
            TableRows::Sparse(map) => &map[&r],
        }
    };

    let noise_k = noise.sample(&mut stream, n * d);
    let mut z = Array2::<i64>::zeros((n, d));
    for (i, sentence) in w.rows().into_iter().enumerate() {
        let s = sentence.as_slice().expect("row-major");
        let mut zrow = z.row_mut(i);
        for pos in 0..positions {
            let values = row_of(row_index(s, pos));
            for (j, &v) in values.iter().enumerate() {
                let col = pos * width + j;
                zrow[col] = v + noise_k[i * d + col];
            }
        }
    }

    // K(Z|W,f): decode each sentence and code the residual.
    let mut residual_nats = 0.0;
    for (i, sentence) in w.rows().into_iter().enumerate() {
        let s = sentence.as_slice().expect("row-major");
        for pos in 0..positions {
            let values = row_of(row_index(s, pos));
            for (j, &v) in values.iter().enumerate() {
                residual_nats += noise.code().code_nats(z[[i, pos * width + j]] - v);
            }
        }
    }

    let used_bits: f64 = used.iter().map(|&r| entry.total_bits(row_of(r))).sum();
    let (k_f, k_f_method) = match (params.table_cost, &table) {
        (TableCost::Used, _) => (used_bits, TableCostMethod::ExactUsedRowsOnly),
        (TableCost::Full, TableRows::Dense(v)) => {
            (entry.total_bits(v), TableCostMethod::ExactAllRows)
        }
        (TableCost::Full, TableRows::Sparse(_)) => {
            let unused_entries = (rows - used.len() as u128) as f64 * width as f64;
            let per_entry = nats_to_bits(skellam_entropy_nats(entry.mu(), entry.mu()));
            (
                used_bits + unused_entries * per_entry,
                TableCostMethod::ExactUsedPlusExpectedUnused,
            )
        }
    };

    let log2k = (k as f64).log2();
    let terms = ComplexityTerms {
        k_pw: log2k + (m as f64).log2(),
        k_w_given_pw: (n * m) as f64 * log2k,
        k_f,
        k_z_given_wf: nats_to_bits(residual_nats),
        samples: n,
    };
    Ok(LookupDataset {
        params: params.clone(),
        w,
        z,
        terms,
        table_rows: rows as f64,
        used_rows: used.len(),
        k_f_method,
    })
}

/// Closed-form expectation of the per-sample C(Z) (Elmoznino et al., ICML 2025):
/// `(K(p_w) + M log K + n_tab h1 + D h0) / (n_tab h1 + D h0)`, h1/h0 the entropies of table
/// entries and noise.
pub fn expected_c_per_sample(params: &LookupParams) -> Result<f64> {
    params.validate()?;
    let entry = DiscretisedGaussian::new(params.table_std, params.precision, "table_std")?;
    let noise = DiscretisedGaussian::new(params.noise, params.precision, "noise")?;
    let h1 = nats_to_bits(skellam_entropy_nats(entry.mu(), entry.mu()));
    let h0 = nats_to_bits(skellam_entropy_nats(noise.mu(), noise.mu()));
    let n_tab = params.table_rows()? as f64 * params.row_width() as f64;
    let log2k = (params.vocab as f64).log2();
    let k_pw = log2k + (params.length as f64).log2();
    let den = n_tab * h1 + params.dim as f64 * h0;
    Ok((k_pw + params.length as f64 * log2k + den) / den)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_shapes() {
        let bad = |f: fn(&mut LookupParams)| {
            let mut p = LookupParams::default();
            f(&mut p);
            generate(&p).unwrap_err().to_string()
        };
        assert!(bad(|p| p.ngram = 3).contains("ngram"));
        assert!(bad(|p| p.dim = 60).contains("dim"));
        assert!(bad(|p| p.vocab = 1).contains("vocab"));
        assert!(bad(|p| p.precision = 0.0).contains("precision"));
        assert!(bad(|p| p.samples = 0).contains("samples"));
        // Sizes whose arrays do not fit in memory are refused before allocating.
        assert!(bad(|p| p.samples = 10_000_000_000).contains("samples"));
        assert!(bad(|p| p.dim = 1 << 32).contains("dim"));
        assert!(bad(|p| p.noise = f64::INFINITY).contains("noise"));
        assert!(bad(|p| p.precision = 1e-308).contains("precision"));
    }

    #[test]
    fn z_minus_table_is_small_noise() {
        let p = LookupParams {
            samples: 50,
            ..Default::default()
        };
        let data = generate(&p).unwrap();
        assert_eq!(data.z.dim(), (50, 64));
        assert_eq!(data.k_f_method, TableCostMethod::ExactAllRows);
        // Mean noise code ~ h0 = 1.402705 nats = 2.0237 bits per dimension.
        let per_dim = data.terms.k_z_given_wf / (50.0 * 64.0);
        assert!((per_dim - 2.0237).abs() < 0.1, "{per_dim}");
    }

    #[test]
    fn sparse_and_dense_tables_agree() {
        let p = LookupParams {
            samples: 40,
            vocab: 3,
            ngram: 4,
            ..Default::default()
        };
        let dense = generate(&p).unwrap();
        let sparse = generate_with_dense_limit(&p, 0).unwrap();
        assert_eq!(dense.k_f_method, TableCostMethod::ExactAllRows);
        assert_eq!(
            sparse.k_f_method,
            TableCostMethod::ExactUsedPlusExpectedUnused
        );
        assert_eq!(dense.w, sparse.w);
        assert_eq!(dense.z, sparse.z);
        assert_eq!(dense.terms.k_z_given_wf, sparse.terms.k_z_given_wf);
        // 81 rows x 16 entries; 40 sentences use at most 4 x 40 rows: the expected part is the
        // entropy 6.024109 nats = 8.690 bits per unused entry, close to the realised cost.
        let unused = (81 - sparse.used_rows) as f64 * 16.0;
        assert!(unused > 0.0);
        let gap = (dense.terms.k_f - sparse.terms.k_f).abs();
        assert!(gap < 0.05 * dense.terms.k_f, "gap {gap}");
        let used = LookupParams {
            table_cost: TableCost::Used,
            ..p.clone()
        };
        let used = generate(&used).unwrap();
        let per_entry = used.terms.k_f / (used.used_rows as f64 * 16.0);
        assert!((per_entry - 8.690).abs() < 0.3, "{per_entry}");
    }

    #[test]
    fn huge_tables_are_not_materialised() {
        // K = 10, q = 16: 10^16 rows; only the used ones are built.
        let p = LookupParams {
            samples: 20,
            ngram: 16,
            ..Default::default()
        };
        let data = generate(&p).unwrap();
        assert_eq!(data.table_rows, 1e16);
        assert_eq!(data.used_rows, 20);
        // One row of D = 64 entries per sentence; K(f) ~ 1e16 x 64 entries x 8.69089 bits.
        let h_bits = nats_to_bits(skellam_entropy_nats(5000.0, 5000.0));
        assert!((h_bits - 6.024109 / std::f64::consts::LN_2).abs() < 1e-6);
        assert!((data.terms.k_f / (1e16 * 64.0 * h_bits) - 1.0).abs() < 1e-12);
    }
}
