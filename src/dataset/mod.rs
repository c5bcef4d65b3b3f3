//! The one dataset type every generator and loader produces and every estimator consumes.
//!
//! A [`Dataset`] is W (N token sequences, [`TokenData`]) and Z (N rows of discrete attributes or
//! of continuous values on an integer grid, [`Targets`]), with where it came from
//! ([`Provenance`]), the K(Z) that every estimator shares ([`KzReference`], the family's
//! convention: see `shared/notes/estimator-panel.md`), and the generator's exact terms when
//! its program is known ([`ExactTerms`]). All lengths are in bits.

pub mod exact;
mod tables;

pub use tables::{Targets, TokenData};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::error::{KcompError, Result};

/// Where a dataset came from: its family, the parameters that determine it and its seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Provenance {
    /// Family name (`lookup`, `grammar`, `language`, `grid`, `user`, ...).
    pub family: String,
    /// Every parameter that determines the data, as written in configs.
    pub params: BTreeMap<String, serde_json::Value>,
    /// Seed of the generator (`None` for files).
    pub seed: Option<u64>,
    /// Files the data was read from, if any.
    pub files: Vec<String>,
}

impl Provenance {
    /// Provenance of a generated dataset from its serialisable parameter struct.
    pub fn generated(family: &str, params: &impl Serialize, seed: u64) -> Self {
        let params = match serde_json::to_value(params) {
            Ok(serde_json::Value::Object(map)) => map.into_iter().collect(),
            _ => BTreeMap::new(),
        };
        Provenance {
            family: family.into(),
            params,
            seed: Some(seed),
            files: Vec::new(),
        }
    }
}

/// How a dataset's K(Z) was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KzMethod {
    /// The generator's exact K(Z) (lookup tables, grammars).
    Exact,
    /// Uniform over the objects or cells (language systems, string-to-grid, discrete files).
    Uniform,
    /// The naive discretised-Gaussian code of continuous values (continuous files).
    NaiveGaussian,
    /// Prequential coding without W.
    Prequential,
}

impl KzMethod {
    /// How this K(Z) was obtained, in words, for the line under a table (docs/concepts.md,
    /// "K(Z) of a dataset", says why the commands differ on the same data).
    pub fn describe(self) -> &'static str {
        match self {
            KzMethod::Exact => "exact: the generator's own program",
            KzMethod::Uniform => "uniform code over the observed values of each attribute",
            KzMethod::NaiveGaussian => "naive discretised-Gaussian code of Z at --precision",
            KzMethod::Prequential => "prequential code of Z without W",
        }
    }

    /// What a reader must know before comparing this K(Z) with another command's, if anything.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            KzMethod::NaiveGaussian => Some(
                "no generator is known, so this K(Z) is an upper bound: `kcomp synth` prints \
                 the exact (smaller) K(Z) of the data it generates, so C on its files is larger \
                 here (docs/concepts.md, \"K(Z) of a dataset\")",
            ),
            _ => None,
        }
    }
}

/// The K(Z) shared by every estimator on one dataset, in bits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KzReference {
    pub bits: f64,
    pub method: KzMethod,
}

/// The generator's own program: K(Z|W) and K(Z) in bits, with the named parts they sum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactTerms {
    pub k_z_given_w_bits: f64,
    pub k_z_bits: f64,
    /// Named parts (`k_f`, `k_z_given_wf`, ...), in bits.
    pub parts: BTreeMap<String, f64>,
}

/// W, Z and what is known about them.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    pub w: TokenData,
    pub z: Targets,
    pub provenance: Provenance,
    pub k_z: KzReference,
    pub exact: Option<ExactTerms>,
}

impl Dataset {
    /// Assembles a dataset, checking that W and Z have the same rows and that K(Z) is a
    /// finite positive length.
    pub fn new(
        w: TokenData,
        z: Targets,
        provenance: Provenance,
        k_z: KzReference,
        exact: Option<ExactTerms>,
    ) -> Result<Self> {
        if w.n != z.n() {
            return Err(KcompError::param(
                "dataset",
                format!("W has {} rows but Z has {}", w.n, z.n()),
            ));
        }
        if !(k_z.bits.is_finite() && k_z.bits > 0.0) {
            return Err(KcompError::param(
                "k_z",
                format!("K(Z) must be a positive number of bits, got {}", k_z.bits),
            ));
        }
        Ok(Dataset {
            w,
            z,
            provenance,
            k_z,
            exact,
        })
    }

    /// Number of rows N.
    pub fn n(&self) -> usize {
        self.w.n
    }

    /// True when Z is discrete (attributes with finitely many values).
    pub fn is_discrete(&self) -> bool {
        matches!(self.z, Targets::Discrete { .. })
    }

    /// W as rows of `i64` word ids (the layout of the synthetic generators and topsim), each
    /// row without its padding when W has a padding token ([`TokenData::message`]): a distance
    /// between messages never counts padding as letters.
    pub fn w_rows(&self) -> Vec<Vec<i64>> {
        (0..self.w.n)
            .map(|i| self.w.message(i).iter().map(|&t| t as i64).collect())
            .collect()
    }

    /// Z as rows of reals: attribute values, or grid index x precision.
    pub fn z_rows_f64(&self) -> Vec<Vec<f64>> {
        match &self.z {
            Targets::Discrete { n_attr, values, .. } => values
                .chunks(*n_attr)
                .map(|r| r.iter().map(|&v| v as f64).collect())
                .collect(),
            Targets::Continuous { dim, lam, grid } => grid
                .chunks(*dim)
                .map(|r| r.iter().map(|&k| k as f64 * lam).collect())
                .collect(),
        }
    }
}

/// W as [`TokenData`] from an `N x M` array of word ids in `0..vocab`.
pub fn tokens_from_array(w: &ndarray::Array2<i64>, vocab: usize) -> Result<TokenData> {
    let tokens = w
        .iter()
        .map(|&t| u32::try_from(t).map_err(|_| KcompError::param("w", format!("token {t}"))))
        .collect::<Result<Vec<u32>>>()?;
    TokenData::new(w.nrows(), w.ncols(), vocab, tokens)
}

/// Z as continuous [`Targets`] from an `N x D` array of grid indices at precision `lam`.
pub fn grid_from_array(z: &ndarray::Array2<i64>, lam: f64) -> Targets {
    Targets::Continuous {
        dim: z.ncols(),
        lam,
        grid: z.iter().copied().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatched_rows_are_an_error() {
        let w = TokenData::new(2, 1, 2, vec![0, 1]).unwrap();
        let z = Targets::discrete(1, 2, vec![0, 1, 1]).unwrap();
        let kz = KzReference {
            bits: 3.0,
            method: KzMethod::Uniform,
        };
        let err = Dataset::new(w, z, Provenance::default(), kz, None).unwrap_err();
        assert!(err.to_string().contains("W has 2 rows but Z has 3"));
    }

    #[test]
    fn continuous_rows_scale_by_precision() {
        let w = TokenData::new(2, 1, 2, vec![0, 1]).unwrap();
        let z = grid_from_array(&ndarray::array![[1, -2], [3, 4]], 0.5);
        let kz = KzReference {
            bits: 10.0,
            method: KzMethod::Exact,
        };
        let d = Dataset::new(w, z, Provenance::default(), kz, None).unwrap();
        assert_eq!(d.z_rows_f64(), vec![vec![0.5, -1.0], vec![1.5, 2.0]]);
        assert_eq!(d.w_rows(), vec![vec![0], vec![1]]);
    }
}
