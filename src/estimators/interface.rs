//! The interface every estimator of the comparison panel implements.
//!
//! An [`Estimator`] reads one [`Dataset`] and returns an [`Estimate`]: either a code length for
//! K(Z|W) in bits (then C = K(Z)/K(Z|W) with the dataset's shared K(Z)) or a score that is not a
//! code length (topsim, posdis, ...), plus its own native fields and notes. [`run_estimator`]
//! times it and turns "does not apply" and failures into rows instead of aborting a panel.

use serde::Serialize;
use std::time::Instant;

use crate::dataset::Dataset;
use crate::error::Result;

/// What an estimator measures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// A code length for Z given W, in bits.
    CodeLength { k_z_given_w_bits: f64 },
    /// A score that is not a code length (its range is the estimator's own).
    Score { score: f64 },
}

/// One estimator's answer on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub measure: Measure,
    /// The estimator's own fields (C(P), L(P+), per-compressor lengths, ...).
    pub native: serde_json::Map<String, serde_json::Value>,
    /// Caveats a reader needs (heuristic search, small data, ...).
    pub notes: Vec<String>,
}

impl Estimate {
    /// A code-length estimate with no native fields.
    pub fn code_length(k_z_given_w_bits: f64) -> Self {
        Estimate {
            measure: Measure::CodeLength { k_z_given_w_bits },
            native: serde_json::Map::new(),
            notes: Vec::new(),
        }
    }

    /// A score estimate with no native fields.
    pub fn score(score: f64) -> Self {
        Estimate {
            measure: Measure::Score { score },
            native: serde_json::Map::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a native field.
    pub fn with(mut self, key: &str, value: impl Serialize) -> Self {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.native.insert(key.into(), value);
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// Progress reporting handed to estimators (hidden when not wanted).
pub type Progress = indicatif::ProgressBar;

/// An estimator of K(Z|W), or of a compositionality score, on one dataset.
pub trait Estimator: Send + Sync {
    /// Short stable name used in tables (`exact`, `prequential`, `topsim`, ...).
    fn name(&self) -> &str;

    /// `Err(reason)` when the estimator does not apply to this dataset (e.g. a discrete-only
    /// estimator on continuous Z).
    fn applies_to(&self, _data: &Dataset) -> std::result::Result<(), String> {
        Ok(())
    }

    /// Estimates on `data`.
    fn estimate(&self, data: &Dataset, progress: &Progress) -> Result<Estimate>;
}

/// How one estimator run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum EstimateStatus {
    Ok,
    NotApplicable(String),
    Failed(String),
}

impl std::fmt::Display for EstimateStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EstimateStatus::Ok => write!(f, "ok"),
            EstimateStatus::NotApplicable(r) => write!(f, "not applicable: {r}"),
            EstimateStatus::Failed(r) => write!(f, "failed: {r}"),
        }
    }
}

/// One row of a panel: an estimator on a dataset, with C and its wall time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstimateRow {
    pub estimator: String,
    pub status: EstimateStatus,
    /// K(Z|W) in bits when the estimator gives a code length.
    pub k_z_given_w_bits: Option<f64>,
    /// The dataset's shared K(Z) in bits.
    pub k_z_bits: f64,
    /// K(Z)/K(Z|W) when the estimator gives a code length. It grows with N (K(Z) grows
    /// linearly in N, K(Z|W) more slowly once the rules are learned), so compare C only between
    /// datasets of the same N (and precision, for continuous Z).
    pub c: Option<f64>,
    /// (K(Z) - K(Z|W)) / N in bits when the estimator gives a code length: what knowing W saves
    /// per row, comparable across N.
    pub bits_saved_per_row: Option<f64>,
    /// The score when the estimator gives one.
    pub score: Option<f64>,
    pub native: serde_json::Map<String, serde_json::Value>,
    pub notes: Vec<String>,
    pub seconds: f64,
}

/// When C values compare, said under every table of C.
pub const COMPARABILITY: &str = "C grows with N (K(Z) grows linearly in N, K(Z|W) more \
    slowly once W's rules are learned) and, for continuous Z, depends on the precision: compare \
    C only between datasets of the same N and precision; bits saved per row = (K(Z) - \
    K(Z|W)) / N compares across N.";

/// (K(Z) - K(Z|W)) / N: the bits per row that knowing W saves. Unlike C = K(Z)/K(Z|W), which
/// grows with N for a compositional code, it compares datasets of different sizes; for
/// continuous Z both lengths carry about the same D log2(1/precision) bits per row, which
/// cancel here, so it depends little on the precision (C tends to 1 as the grid gets finer).
pub fn bits_saved_per_row(k_z_bits: f64, k_z_given_w_bits: f64, n: usize) -> f64 {
    (k_z_bits - k_z_given_w_bits) / n.max(1) as f64
}

/// Runs `estimator` on `data`: checks that it applies, times it and computes C with the
/// dataset's K(Z). Failures and non-applicable datasets become rows with a status.
pub fn run_estimator(
    estimator: &dyn Estimator,
    data: &Dataset,
    progress: &Progress,
) -> EstimateRow {
    let mut row = EstimateRow {
        estimator: estimator.name().to_string(),
        status: EstimateStatus::Ok,
        k_z_given_w_bits: None,
        k_z_bits: data.k_z.bits,
        c: None,
        bits_saved_per_row: None,
        score: None,
        native: serde_json::Map::new(),
        notes: Vec::new(),
        seconds: 0.0,
    };
    if let Err(reason) = estimator.applies_to(data) {
        row.status = EstimateStatus::NotApplicable(reason);
        return row;
    }
    let start = Instant::now();
    let result = estimator.estimate(data, progress);
    row.seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(est) => {
            match est.measure {
                Measure::CodeLength { k_z_given_w_bits } => {
                    row.k_z_given_w_bits = Some(k_z_given_w_bits);
                    row.c = Some(data.k_z.bits / k_z_given_w_bits);
                    row.bits_saved_per_row = Some(bits_saved_per_row(
                        data.k_z.bits,
                        k_z_given_w_bits,
                        data.n(),
                    ));
                }
                Measure::Score { score } => row.score = Some(score),
            }
            row.native = est.native;
            row.notes = est.notes;
            if row.c.is_some_and(|c| c < 1.0) {
                row.notes.push(
                    "C < 1: this code of Z given W (rules, table or model plus corrections) is \
                     longer than K(Z) without W; W, as this estimator reads it, does not pay for \
                     what it costs to describe (few rows per rule, or no attribute-wise map)"
                        .into(),
                );
            }
        }
        Err(err) => row.status = EstimateStatus::Failed(err.to_string()),
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{KzMethod, KzReference, Provenance, Targets, TokenData};
    use crate::error::KcompError;

    struct Fixed(Option<f64>);
    impl Estimator for Fixed {
        fn name(&self) -> &str {
            "fixed"
        }
        fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
            if data.is_discrete() {
                Ok(())
            } else {
                Err("needs discrete Z".into())
            }
        }
        fn estimate(&self, _data: &Dataset, _p: &Progress) -> Result<Estimate> {
            self.0
                .map(|b| Estimate::code_length(b).with("entries", 3))
                .ok_or_else(|| KcompError::Other("no estimate".into()))
        }
    }

    fn data(discrete: bool) -> Dataset {
        let w = TokenData::new(2, 1, 2, vec![0, 1]).unwrap();
        let z = if discrete {
            Targets::discrete(1, 2, vec![0, 1]).unwrap()
        } else {
            Targets::from_floats(1, 0.1, &[0.0, 1.0]).unwrap()
        };
        let kz = KzReference {
            bits: 12.0,
            method: KzMethod::Uniform,
        };
        Dataset::new(w, z, Provenance::default(), kz, None).unwrap()
    }

    #[test]
    fn rows_carry_c_status_and_native_fields() {
        let p = Progress::hidden();
        let row = run_estimator(&Fixed(Some(4.0)), &data(true), &p);
        assert_eq!(row.status, EstimateStatus::Ok);
        assert_eq!(row.c, Some(3.0));
        // (12 - 4) bits over 2 rows.
        assert_eq!(row.bits_saved_per_row, Some(4.0));
        assert_eq!(row.native["entries"], 3);
        let row = run_estimator(&Fixed(Some(4.0)), &data(false), &p);
        assert_eq!(
            row.status,
            EstimateStatus::NotApplicable("needs discrete Z".into())
        );
        assert_eq!(row.c, None);
        let row = run_estimator(&Fixed(None), &data(true), &p);
        assert_eq!(row.status, EstimateStatus::Failed("no estimate".into()));
    }
}
