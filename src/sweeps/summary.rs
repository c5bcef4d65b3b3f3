//! Running a sweep and writing runs.csv, summary.csv and summary.json.

use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::Serialize;

use crate::error::{KcompError, Result};

use super::config::{PlannedRun, SweepConfig};
use super::run::{RunRecord, run};

/// One finished run of a sweep.
#[derive(Debug, Clone)]
pub struct SweepRun {
    /// The planned run.
    pub planned: PlannedRun,
    /// Its record.
    pub record: RunRecord,
}

/// Mean, sample standard deviation (ddof = 1) and count.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Stat {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 when n = 1).
    pub std: f64,
    /// Number of values.
    pub n: usize,
}

impl Stat {
    /// Statistics of the given values (`None` when empty).
    pub fn of(values: &[f64]) -> Option<Stat> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(Stat {
            mean,
            std: var.sqrt(),
            n,
        })
    }

    /// Standard error of the mean.
    pub fn sem(&self) -> f64 {
        self.std / (self.n as f64).sqrt()
    }
}

/// Per-value summary.
#[derive(Debug, Clone, Serialize)]
pub struct ValueSummary {
    /// The swept value.
    pub value: String,
    /// Its index in the config.
    pub value_index: usize,
    /// C with totals.
    pub c: Stat,
    /// C per sample.
    pub c_per_sample: Stat,
    /// Topological similarity (absent when never computed).
    pub topsim: Option<Stat>,
    /// K(Z) in bits.
    pub k_z_bits: Stat,
    /// K(Z|W) in bits.
    pub k_z_given_w_bits: Stat,
}

/// A finished sweep.
#[derive(Debug, Clone)]
pub struct SweepResult {
    /// Its config.
    pub config: SweepConfig,
    /// All runs in plan order.
    pub runs: Vec<SweepRun>,
    /// One summary per value, in config order.
    pub summary: Vec<ValueSummary>,
}

/// Runs every (value, seed) of a sweep in parallel. Each run owns its seeded streams and
/// results are gathered in plan order, so the numbers do not depend on the thread count.
pub fn run_sweep(config: &SweepConfig, progress: Option<&ProgressBar>) -> Result<SweepResult> {
    let plan = config.plan()?;
    let topsim = config.topsim.then_some(&config.topsim_config);
    let records: Vec<Result<RunRecord>> = plan
        .par_iter()
        .map(|planned| {
            let out = run(&planned.spec, topsim).map(|(record, _)| record);
            if let Some(bar) = progress {
                bar.inc(1);
            }
            out
        })
        .collect();
    let mut runs = Vec::with_capacity(plan.len());
    for (planned, record) in plan.into_iter().zip(records) {
        let record = record.map_err(|e| {
            KcompError::Other(format!(
                "sweep `{}`, {} = {}, seed {}: {e}",
                config.name, config.parameter, planned.value, planned.seed
            ))
        })?;
        runs.push(SweepRun { planned, record });
    }
    let summary = summarise(&runs);
    Ok(SweepResult {
        config: config.clone(),
        runs,
        summary,
    })
}

fn summarise(runs: &[SweepRun]) -> Vec<ValueSummary> {
    let mut out: Vec<ValueSummary> = Vec::new();
    let max_index = runs
        .iter()
        .map(|r| r.planned.value_index)
        .max()
        .unwrap_or(0);
    for index in 0..=max_index {
        let group: Vec<&SweepRun> = runs
            .iter()
            .filter(|r| r.planned.value_index == index)
            .collect();
        let Some(first) = group.first() else { continue };
        let collect = |f: &dyn Fn(&RunRecord) -> f64| -> Vec<f64> {
            group.iter().map(|r| f(&r.record)).collect()
        };
        let topsims: Vec<f64> = group.iter().filter_map(|r| r.record.topsim).collect();
        out.push(ValueSummary {
            value: first.planned.value.clone(),
            value_index: index,
            c: Stat::of(&collect(&|r| r.c)).expect("non-empty group"),
            c_per_sample: Stat::of(&collect(&|r| r.c_per_sample)).expect("non-empty group"),
            topsim: Stat::of(&topsims),
            k_z_bits: Stat::of(&collect(&|r| r.k_z)).expect("non-empty group"),
            k_z_given_w_bits: Stat::of(&collect(&|r| r.k_z_given_w)).expect("non-empty group"),
        });
    }
    out
}

fn csv_err(path: &Path, e: csv::Error) -> KcompError {
    KcompError::file(path, format!("writing CSV: {e}"))
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

/// Writes runs.csv, summary.csv and summary.json into `dir`; returns their paths.
pub fn write_tables(result: &SweepResult, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| KcompError::io(dir, e))?;
    let cfg = &result.config;
    let runs_path = dir.join("runs.csv");
    let mut w = csv::Writer::from_path(&runs_path).map_err(|e| csv_err(&runs_path, e))?;
    w.write_record([
        "sweep",
        "generator",
        "parameter",
        "value",
        "seed",
        "k_pw_bits",
        "k_w_given_pw_bits",
        "k_f_bits",
        "k_z_given_wf_bits",
        "k_z_bits",
        "k_z_given_w_bits",
        "c",
        "c_per_sample",
        "topsim",
    ])
    .map_err(|e| csv_err(&runs_path, e))?;
    for r in &result.runs {
        let rec = &r.record;
        w.write_record([
            cfg.name.clone(),
            cfg.generator.clone(),
            cfg.parameter.clone(),
            r.planned.value.clone(),
            r.planned.seed.to_string(),
            rec.k_pw.to_string(),
            rec.k_w_given_pw.to_string(),
            rec.k_f.to_string(),
            rec.k_z_given_wf.to_string(),
            rec.k_z.to_string(),
            rec.k_z_given_w.to_string(),
            rec.c.to_string(),
            rec.c_per_sample.to_string(),
            opt(rec.topsim),
        ])
        .map_err(|e| csv_err(&runs_path, e))?;
    }
    w.flush().map_err(|e| KcompError::io(&runs_path, e))?;

    let summary_path = dir.join("summary.csv");
    let mut w = csv::Writer::from_path(&summary_path).map_err(|e| csv_err(&summary_path, e))?;
    w.write_record([
        "sweep",
        "parameter",
        "value",
        "n",
        "c_mean",
        "c_std",
        "c_per_sample_mean",
        "c_per_sample_std",
        "topsim_mean",
        "topsim_std",
        "k_z_bits_mean",
        "k_z_given_w_bits_mean",
    ])
    .map_err(|e| csv_err(&summary_path, e))?;
    for s in &result.summary {
        w.write_record([
            cfg.name.clone(),
            cfg.parameter.clone(),
            s.value.clone(),
            s.c.n.to_string(),
            s.c.mean.to_string(),
            s.c.std.to_string(),
            s.c_per_sample.mean.to_string(),
            s.c_per_sample.std.to_string(),
            opt(s.topsim.map(|t| t.mean)),
            opt(s.topsim.map(|t| t.std)),
            s.k_z_bits.mean.to_string(),
            s.k_z_given_w_bits.mean.to_string(),
        ])
        .map_err(|e| csv_err(&summary_path, e))?;
    }
    w.flush().map_err(|e| KcompError::io(&summary_path, e))?;

    let json_path = dir.join("summary.json");
    let json = serde_json::json!({
        "units": "bits (C is a ratio; std is the sample standard deviation, ddof = 1)",
        "sweep": cfg.name,
        "generator": cfg.generator,
        "parameter": cfg.parameter,
        "summary": result.summary,
    });
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&json).expect("serialisable"),
    )
    .map_err(|e| KcompError::io(&json_path, e))?;
    Ok(vec![runs_path, summary_path, json_path])
}

/// A progress bar for `total` runs (hidden when not on a terminal is handled by indicatif).
pub fn progress_bar(total: u64, label: &str) -> ProgressBar {
    crate::progress::bar(total, "runs", &format!("{label:>28}"))
}
