//! `llm_program`: seed 001's C(P) of LLM-written programs, read from a `kcomp grid report`
//! (`per_answer.csv`), for the string-to-grid dataset they were written for.
//!
//! A report covers the published records (Python seed 0, the published 4x4 shape). A dataset
//! matches when its provenance is that record: family `grid`, seed 0, no holistic inputs, the
//! same setting and record index. The estimate is a score, the mean C(P) in [0, 100] over the
//! report's models (failed and empty answers count as the report scores them); each model's
//! C(P), L(P+), E(P) and status are native fields. L(P) is in table entries, not bits, so this
//! is not a code length.

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
        for r in self
            .rows
            .iter()
            .filter(|r| r.setting == setting && r.record == record)
        {
            c_values.push(r.c_p.unwrap_or(0.0));
            per_model.insert(
                r.model.clone(),
                serde_json::json!({
                    "c_p": r.c_p, "l_p_plus": r.l_p_plus, "errors": r.errors, "status": r.status
                }),
            );
        }
        let mean = c_values.iter().sum::<f64>() / c_values.len().max(1) as f64;
        Ok(Estimate::score(mean)
            .with("models", per_model)
            .note(format!(
                "mean C(P) [0-100] over {} models' answers",
                c_values.len()
            )))
    }
}
