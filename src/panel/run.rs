//! Running a panel: every (family, value, seed) dataset through every estimator, in parallel
//! over datasets on the sweep engine ([`crate::sweeps::engine`]), with results that do not
//! depend on the thread count (each dataset and each estimator is seeded from the dataset's own
//! seed; rows are kept in plan order).
//!
//! With an output folder, every dataset's rows are saved as `runs/<family>/<value>_s<seed>.json`
//! together with the settings that produced them; `resume` reads a saved file back when its
//! settings are the same and recomputes it otherwise.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};
use crate::estimators::interface::{EstimateStatus, Estimator, Progress, run_estimator};
use crate::progress::WorkBar;
use crate::sweeps::engine::{EngineOptions, JsonStore, Sharding, Store, run_jobs, safe_file_name};

use super::config::PanelConfig;
use super::{family, registry};

/// One dataset of the plan.
#[derive(Debug, Clone)]
pub struct PlannedDataset {
    pub family_index: usize,
    pub family: String,
    pub kind: String,
    pub parameter: String,
    pub value: toml::Value,
    pub value_index: usize,
    pub seed: u64,
}

impl PlannedDataset {
    /// The value as text (strings without quotes).
    pub fn value_label(&self) -> String {
        value_text(&self.value)
    }
}

/// A family value as tables and figures show it: strings without quotes, a `files` value
/// given as { w, z, name } by its name (else its W file).
pub fn value_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Table(t) => t
            .get("name")
            .or_else(|| t.get("w"))
            .and_then(|v| v.as_str())
            .unwrap_or("files")
            .to_string(),
        other => other.to_string(),
    }
}

/// One row of `runs.csv`: an estimator on a dataset. Lengths in bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelRow {
    pub family: String,
    pub kind: String,
    pub parameter: String,
    pub value: String,
    pub value_index: usize,
    pub seed: u64,
    pub n: usize,
    pub estimator: String,
    /// `ok`, `not_applicable` or `failed`.
    pub status: String,
    /// Why the estimator did not apply or failed.
    pub reason: String,
    pub k_z_given_w_bits: Option<f64>,
    pub k_z_bits: f64,
    pub k_z_method: String,
    /// K(Z)/K(Z|W): grows with N, so compare it between datasets of the same N.
    pub c: Option<f64>,
    /// (K(Z) - K(Z|W)) / N in bits: comparable across N (recomputed from the row's own
    /// fields, so rows saved before the column existed get it too).
    #[serde(default)]
    pub bits_saved_per_row: Option<f64>,
    pub score: Option<f64>,
    pub seconds: f64,
    /// The estimator's native fields as JSON text.
    pub native: String,
    /// Notes joined by "; ".
    pub notes: String,
}

impl crate::sweeps::engine::SavedResult for PanelRow {
    /// A known status, K(Z) finite and non-negative, C recomputed as K(Z)/K(Z|W) exactly as
    /// the estimator interface computes it, scores and times finite.
    fn check_saved(&self) -> std::result::Result<(), String> {
        use crate::sweeps::engine::{check_finite, check_relation};
        if !["ok", "not_applicable", "failed"].contains(&self.status.as_str()) {
            return Err(format!(
                "status = {:?} is not a status kcomp writes",
                self.status
            ));
        }
        check_finite("k_z_bits", self.k_z_bits, Some(0.0))?;
        check_finite("seconds", self.seconds, Some(0.0))?;
        if let Some(k) = self.k_z_given_w_bits {
            check_finite("k_z_given_w_bits", k, None)?;
        }
        match (self.c, self.k_z_given_w_bits) {
            (Some(c), Some(k)) => check_relation("c", c, self.k_z_bits / k, "K(Z) / K(Z|W)")?,
            (Some(c), None) => return Err(format!("c = {c} without K(Z|W)")),
            _ => {}
        }
        if let Some(s) = self.score {
            check_finite("score", s, None)?;
        }
        Ok(())
    }
}

impl PanelRow {
    /// The value the agreement tables rank: C for code lengths, the score otherwise.
    pub fn ranked_value(&self) -> Option<f64> {
        self.c.or(self.score).filter(|v| v.is_finite())
    }
}

/// The finished panel.
#[derive(Debug, Clone)]
pub struct PanelResult {
    pub config: PanelConfig,
    pub plan: Vec<PlannedDataset>,
    /// Rows in plan order, estimators in config order within a dataset.
    pub rows: Vec<PanelRow>,
    /// Datasets read back from a previous run.
    pub resumed: usize,
}

/// Families outer, values, then seeds inner.
pub fn plan(config: &PanelConfig) -> Result<Vec<PlannedDataset>> {
    let seeds = config.seed_values()?;
    let mut plan = Vec::new();
    for (family_index, fam) in config.families.iter().enumerate() {
        for (value_index, value) in fam.values.iter().enumerate() {
            for &seed in &seeds {
                plan.push(PlannedDataset {
                    family_index,
                    family: fam.label(),
                    kind: fam.kind.clone(),
                    parameter: fam.parameter.clone(),
                    value: value.clone(),
                    value_index,
                    seed,
                });
            }
        }
    }
    Ok(plan)
}

/// The settings that determine one dataset's rows (saved beside them for `--resume`).
fn settings_of(config: &PanelConfig, planned: &PlannedDataset) -> serde_json::Value {
    let fam = &config.families[planned.family_index];
    let uses_prequential = config.estimators.iter().any(|e| e == "prequential");
    let uses_topsim = config.estimators.iter().any(|e| e.starts_with("topsim"));
    let mut settings = serde_json::json!({
        "kind": fam.kind,
        "parameter": fam.parameter,
        "value": planned.value,
        "params": fam.params,
        "seed": planned.seed,
        "estimators": config.estimators,
        "prequential": uses_prequential.then_some(&config.prequential),
        "topsim": uses_topsim.then_some(&config.topsim),
        "kcomp_version": env!("CARGO_PKG_VERSION"),
    });
    // Only when used, so settings saved before the estimator existed still match.
    if config.estimators.iter().any(|e| e == "llm_program") {
        settings["llm_report"] = serde_json::json!(config.llm_report);
    }
    if config.estimators.iter().any(|e| e == "requential") {
        settings["requential"] = serde_json::json!(config.requential);
    }
    if config.estimators.iter().any(|e| e == "bdm") {
        settings["bdm"] = serde_json::json!(config.bdm);
    }
    if config.estimators.iter().any(|e| e.starts_with("tre")) {
        settings["tre"] = serde_json::json!(config.tre);
    }
    // Rows saved before `[bosdis]` existed dropped symbol 0: they match `eos = 0` only.
    if config.estimators.iter().any(|e| e == "bosdis") && config.bosdis.eos != Some(0) {
        settings["bosdis"] = serde_json::json!(config.bosdis);
    }
    settings
}

fn run_path(dir: &Path, planned: &PlannedDataset) -> PathBuf {
    dir.join("runs").join(&planned.family).join(format!(
        "{}={}_s{}.json",
        planned.parameter,
        safe_file_name(&planned.value_label()),
        planned.seed
    ))
}

/// Runs one dataset through every estimator.
fn run_dataset(
    config: &PanelConfig,
    estimators: &[Box<dyn Estimator>],
    planned: &PlannedDataset,
) -> Result<Vec<PanelRow>> {
    let fam = &config.families[planned.family_index];
    let data = family::generate(fam, &planned.value, planned.seed)
        .map_err(|e| KcompError::param(format!("family {}", planned.family), e.to_string()))?;
    let hidden = Progress::hidden();
    let mut rows = Vec::with_capacity(config.estimators.len());
    for estimator in estimators {
        let row = run_estimator(estimator.as_ref(), &data, &hidden);
        let (status, reason) = match &row.status {
            EstimateStatus::Ok => ("ok", String::new()),
            EstimateStatus::NotApplicable(r) => ("not_applicable", r.clone()),
            EstimateStatus::Failed(r) => ("failed", r.clone()),
        };
        rows.push(PanelRow {
            family: planned.family.clone(),
            kind: planned.kind.clone(),
            parameter: planned.parameter.clone(),
            value: planned.value_label(),
            value_index: planned.value_index,
            seed: planned.seed,
            n: data.n(),
            estimator: row.estimator,
            status: status.into(),
            reason,
            k_z_given_w_bits: row.k_z_given_w_bits,
            k_z_bits: row.k_z_bits,
            k_z_method: serde_json::to_value(data.k_z.method)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            c: row.c,
            bits_saved_per_row: row.bits_saved_per_row,
            score: row.score,
            seconds: row.seconds,
            native: serde_json::Value::Object(row.native).to_string(),
            notes: row.notes.join("; "),
        });
    }
    Ok(rows)
}

/// Runs the panel on `threads` worker threads (0 = all cores). With `out`, saves every
/// dataset's rows as it finishes; with `resume`, reuses saved rows whose settings match.
pub fn run_panel(
    config: &PanelConfig,
    out: Option<&Path>,
    threads: usize,
    resume: bool,
    progress: &WorkBar,
) -> Result<PanelResult> {
    run_panel_part(config, out, threads, resume, progress, None)?
        .ok_or_else(|| KcompError::Other("a panel without sharding has results".into()))
}

/// [`run_panel`] on a part of the plan (`None` unless every row is there: no sharding, or a
/// merge); the part needs `out`.
pub fn run_panel_part(
    config: &PanelConfig,
    out: Option<&Path>,
    threads: usize,
    resume: bool,
    progress: &WorkBar,
    sharding: Option<&Sharding>,
) -> Result<Option<PanelResult>> {
    config.validate()?;
    if let (Some(s), Some(dir)) = (sharding, out) {
        s.set_out(dir);
    }
    let plan = plan(config)?;
    progress.set_length(plan.len() as u64);
    let estimators = config
        .estimators
        .iter()
        .map(|name| registry::build(name, config))
        .collect::<Result<Vec<_>>>()?;
    let store = out.map(|dir| JsonStore {
        path: move |planned: &PlannedDataset| run_path(dir, planned),
        settings: |planned: &PlannedDataset| settings_of(config, planned),
    });
    // Datasets differ by orders of magnitude in cost: the ETA follows their expected work.
    let weights = match sharding {
        Some(s) if s.summarises() => None,
        _ => Some(super::work::plan_weights(config, &plan)),
    };
    let options = EngineOptions {
        threads,
        resume,
        progress,
        weights: weights.as_deref(),
        sharding,
    };
    let Some(finished) = run_jobs(
        &plan,
        store.as_ref().map(|s| s as &dyn Store<_, _>),
        &options,
        |planned| run_dataset(config, &estimators, planned),
    )?
    else {
        return Ok(None);
    };
    let mut rows: Vec<PanelRow> = finished.results.into_iter().flatten().collect();
    for r in &mut rows {
        r.bits_saved_per_row = r
            .k_z_given_w_bits
            .map(|k| crate::estimators::interface::bits_saved_per_row(r.k_z_bits, k, r.n));
    }
    Ok(Some(PanelResult {
        config: config.clone(),
        plan,
        rows,
        resumed: finished.resumed,
    }))
}
