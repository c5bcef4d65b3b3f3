//! `llm_program`: Xu et al.'s C(P) of LLM-written programs, read from a `kcomp grid report`
//! (`per_answer.csv`), for the string-to-grid dataset they were written for.
//!
//! A report covers the published records (Python seed 0, the published 4x4 shape). A dataset
//! matches when its provenance is that record: family `grid`, seed 0, no holistic inputs, the
//! same setting and record index. The estimate is a score, the mean C(P) in [0, 100] over the
//! report's models (failed and empty answers count as the report scores them); each model's
//! C(P), L(P+), E(P) and status are native fields.
//!
//! When the report has the `l_bits` column (reports written by older kcomp versions lack it), the estimate is a
//! code length in bits instead: the shortest over the models' answers of the program's
//! `l_bits` (its description length under kcomp's fixed token code) plus the bits that
//! correct its wrong samples, log2(d + 1) + log2 C(d, E) + E M (which samples, then their
//! grids cell by cell), with d = 16 samples and M = 16 cells of the published task. A program
//! plus its corrections reproduces the record's outputs from its inputs, so this bounds
//! K(Z|W); the mean C(P) stays a native field. L(P) itself is in table entries, not bits.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::dataset::Dataset;
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// The columns of `per_answer.csv` this estimator reads.
#[derive(Debug, Clone, Deserialize)]
struct AnswerRow {
    model: String,
    setting: String,
    record: usize,
    status: String,
    #[serde(rename = "L(P+) [entries]")]
    l_p_plus: Option<f64>,
    #[serde(rename = "E(P) [samples]")]
    errors: Option<f64>,
    #[serde(rename = "C(P) [0-100]")]
    c_p: Option<f64>,
    /// The program's description length in bits (absent from older reports).
    #[serde(default)]
    l_bits: Option<f64>,
}

/// Samples (d) and cells per grid (M) of the published records this estimator covers.
const PUBLISHED_SAMPLES: usize = 16;
const PUBLISHED_CELLS: usize = 16;

/// Bits that correct `errors` wrong samples of a program: how many, which, and their grids.
pub fn correction_bits(errors: usize) -> f64 {
    let (d, m) = (PUBLISHED_SAMPLES, PUBLISHED_CELLS);
    let e = errors.min(d);
    ((d + 1) as f64).log2() + crate::coding::bits::log2_binomial(d, e) + (e * m) as f64
}

/// C(P) of the answers of a grid report.
#[derive(Debug, Clone)]
pub struct LlmProgramEstimator {
    report: PathBuf,
    rows: Vec<AnswerRow>,
}

impl LlmProgramEstimator {
    /// Reads `per_answer.csv` (or the report folder holding it).
    pub fn from_report(path: &Path) -> Result<Self> {
        let file = if path.is_dir() {
            path.join("per_answer.csv")
        } else {
            path.to_path_buf()
        };
        // A regular file only, read whole (no FIFO or /dev/zero).
        let bytes = crate::io::files::read_capped(&file, crate::io::limits::MAX_TEXT_FILE_BYTES)?;
        let mut reader = csv::Reader::from_reader(&bytes[..]);
        let rows = reader
            .deserialize()
            .collect::<std::result::Result<Vec<AnswerRow>, _>>()
            .map_err(|e| KcompError::file(&file, e.to_string()))?;
        Ok(LlmProgramEstimator { report: file, rows })
    }

    /// The (setting, record) of a dataset that a published report can cover.
    fn key_of(data: &Dataset) -> std::result::Result<(String, usize), String> {
        let p = &data.provenance;
        let num = |k: &str| p.params.get(k).and_then(serde_json::Value::as_f64);
        let published_shape = num("positions") == Some(4.0)
            && num("letters") == Some(2.0)
            && num("side") == Some(4.0);
        if p.family != "grid"
            || p.seed != Some(0)
            || num("holistic_fraction").unwrap_or(0.0) != 0.0
            || !published_shape
        {
            return Err(
                "only published string-to-grid records (seed 0, 4x4) have LLM answers".into(),
            );
        }
        let setting = p.params.get("setting").and_then(|s| s.as_str());
        let record = num("record");
        match (setting, record) {
            (Some(s), Some(r)) => Ok((s.to_string(), r as usize)),
            _ => Err("the dataset does not name its setting and record".into()),
        }
    }
}

impl Estimator for LlmProgramEstimator {
    fn name(&self) -> &str {
        "llm_program"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        let (setting, record) = Self::key_of(data)?;
        if self
            .rows
            .iter()
            .any(|r| r.setting == setting && r.record == record)
        {
            Ok(())
        } else {
            Err(format!(
                "{} has no answer for setting {setting}, record {record}",
                self.report.display()
            ))
        }
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let (setting, record) =
            Self::key_of(data).map_err(|e| KcompError::param("llm_program", e))?;
        let mut per_model = BTreeMap::new();
        let mut c_values = Vec::new();
        let mut best: Option<(f64, String)> = None;
        for r in self
            .rows
            .iter()
            .filter(|r| r.setting == setting && r.record == record)
        {
            c_values.push(r.c_p.unwrap_or(0.0));
            let code_bits = match (r.l_bits, r.errors) {
                (Some(l), Some(e)) if l.is_finite() && l >= 0.0 && e >= 0.0 => {
                    Some(l + correction_bits(e as usize))
                }
                _ => None,
            };
            if let Some(b) = code_bits
                && best.as_ref().is_none_or(|(x, _)| b < *x)
            {
                best = Some((b, r.model.clone()));
            }
            per_model.insert(
                r.model.clone(),
                serde_json::json!({
                    "c_p": r.c_p, "l_p_plus": r.l_p_plus, "errors": r.errors, "status": r.status,
                    "l_bits": r.l_bits, "code_bits": code_bits
                }),
            );
        }
        let mean = c_values.iter().sum::<f64>() / c_values.len().max(1) as f64;
        if let Some((bits, model)) = best {
            return Ok(Estimate::code_length(bits)
                .with("models", per_model)
                .with("mean_c_p", mean)
                .with("shortest_model", model)
                .note(format!(
                    "K(Z|W) <= l_bits + correction bits of the shortest of {} models' programs; \
                     mean C(P) [0-100] {mean:.2}",
                    c_values.len()
                )));
        }
        Ok(Estimate::score(mean)
            .with("models", per_model)
            .note(format!(
                "mean C(P) [0-100] over {} models' answers",
                c_values.len()
            )))
    }
}
