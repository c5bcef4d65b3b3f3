//! One dataset through a list of estimators (`kcomp compare --w --z`), and the K(Z) convention
//! for user files: uniform over the observed alphabets for discrete Z, the naive
//! discretised-Gaussian code for continuous Z.

use serde::Serialize;

use crate::dataset::{Dataset, KzMethod, KzReference, Provenance, Targets, TokenData};
use crate::error::Result;
use crate::estimators::interface::{EstimateRow, Progress, run_estimator};
use crate::estimators::prequential::naive::naive_bits;

use super::config::PanelConfig;
use super::registry;

/// A user's W and Z as a dataset with the user-data K(Z) convention.
pub fn user_dataset(w: TokenData, z: Targets, files: Vec<String>) -> Result<Dataset> {
    let all: Vec<usize> = (0..z.n()).collect();
    let method = match z {
        Targets::Discrete { .. } => KzMethod::Uniform,
        Targets::Continuous { .. } => KzMethod::NaiveGaussian,
    };
    let k_z = KzReference {
        bits: naive_bits(&z, &all),
        method,
    };
    let provenance = Provenance {
        family: "user".into(),
        files,
        ..Provenance::default()
    };
    Dataset::new(w, z, provenance, k_z, None)
}

/// The `--json` answer of a single-dataset comparison.
#[derive(Debug, Serialize)]
pub struct SingleComparison {
    pub dataset: serde_json::Value,
    pub k_z: KzReference,
    pub estimates: Vec<EstimateRow>,
}

/// Runs `names` on `data` with the settings of `config` (prequential, topsim).
pub fn compare_one(
    data: &Dataset,
    names: &[String],
    config: &PanelConfig,
    progress: &Progress,
) -> Result<SingleComparison> {
    let estimators = names
        .iter()
        .map(|n| registry::build(n, config))
        .collect::<Result<Vec<_>>>()?;
    let estimates = estimators
        .iter()
        .map(|e| {
            progress.set_message(e.name().to_string());
            let row = run_estimator(e.as_ref(), data, progress);
            progress.inc(1);
            row
        })
        .collect();
    let z = match &data.z {
        Targets::Discrete { n_attr, n_vals, .. } => {
            serde_json::json!({"kind": "discrete", "attributes": n_attr, "values": n_vals})
        }
        Targets::Continuous { dim, lam, .. } => {
            serde_json::json!({"kind": "continuous", "dim": dim, "precision": lam})
        }
    };
    Ok(SingleComparison {
        dataset: serde_json::json!({
            "n": data.n(),
            "w": {"length": data.w.n_words, "vocab": data.w.vocab},
            "z": z,
            "provenance": data.provenance,
        }),
        k_z: data.k_z,
        estimates,
    })
}
