//! Running a sweep and writing runs.csv, summary.csv and summary.json.

use std::path::{Path, PathBuf};

use crate::progress::WorkBar;
use serde::Serialize;

use crate::error::{KcompError, Result};
use crate::io::table::{decimal, decimal_opt, write_csv};

use super::config::{PlannedRun, SweepConfig};
use super::engine::{EngineOptions, JsonStore, Sharding, Store, run_jobs, safe_file_name};
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
    /// (K(Z) - K(Z|W)) / N, bits (`None` for records saved without it).
    pub bits_saved_per_row: Option<Stat>,
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

/// How a sweep runs.
#[derive(Default)]
pub struct SweepOptions<'a> {
    /// Worker threads (0: the current rayon pool's size).
    pub threads: usize,
    /// Save every run as `<dir>/runs/<value>_s<seed>.json` (with its settings).
    pub save_dir: Option<&'a Path>,
    /// Read back saved runs whose settings match instead of recomputing them.
    pub resume: bool,
    pub progress: Option<&'a WorkBar>,
    /// Run a part of the plan, list it or merge it (needs `save_dir`).
    pub sharding: Option<&'a Sharding>,
}

/// Runs every (value, seed) of a sweep in parallel (see [`run_sweep_with`]).
pub fn run_sweep(config: &SweepConfig, progress: Option<&WorkBar>) -> Result<SweepResult> {
    run_sweep_with(
        config,
        &SweepOptions {
            progress,
            ..Default::default()
        },
    )?
    .ok_or_else(|| KcompError::Other("a sweep without sharding has results".into()))
}

/// Runs every (value, seed) of a sweep on the sweep engine. Each run owns its seeded streams
/// and results are gathered in plan order, so the numbers do not depend on the thread count.
/// `None` when `options.sharding` runs only a part of the plan (or lists it).
pub fn run_sweep_with(config: &SweepConfig, options: &SweepOptions) -> Result<Option<SweepResult>> {
    let plan = config.plan()?;
    let topsim = config.topsim.then_some(&config.topsim_config);
    let hidden = WorkBar::hidden();
    let weights: Vec<f64> = plan.iter().map(|p| p.spec.expected_work()).collect();
    let store = options.save_dir.map(|dir| JsonStore {
        path: move |p: &PlannedRun| {
            dir.join("runs")
                .join(format!("{}_s{}.json", safe_file_name(&p.value), p.seed))
        },
        settings: move |p: &PlannedRun| {
            serde_json::json!({
                "spec": p.spec,
                "topsim": topsim,
                "kcomp_version": env!("CARGO_PKG_VERSION"),
            })
        },
    });
    let engine = EngineOptions {
        threads: options.threads,
        resume: options.resume,
        progress: options.progress.unwrap_or(&hidden),
        weights: Some(&weights),
        sharding: options.sharding,
    };
    let Some(finished) = run_jobs(
        &plan,
        store.as_ref().map(|s| s as &dyn Store<_, _>),
        &engine,
        |planned| {
            run(&planned.spec, topsim)
                .map(|(record, _)| record)
                .map_err(|e| {
                    KcompError::Other(format!(
                        "sweep `{}`, {} = {}, seed {}: {e}",
                        config.name, config.parameter, planned.value, planned.seed
                    ))
                })
        },
    )?
    else {
        return Ok(None);
    };
    let records = finished.results;
    let mut runs = Vec::with_capacity(plan.len());
    for (planned, record) in plan.into_iter().zip(records) {
        runs.push(SweepRun { planned, record });
    }
    let summary = summarise(&runs);
    Ok(Some(SweepResult {
        config: config.clone(),
        runs,
        summary,
    }))
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
            bits_saved_per_row: Stat::of(
                &group
                    .iter()
                    .filter_map(|r| r.record.bits_saved_per_row)
                    .collect::<Vec<_>>(),
            ),
            k_z_bits: Stat::of(&collect(&|r| r.k_z)).expect("non-empty group"),
            k_z_given_w_bits: Stat::of(&collect(&|r| r.k_z_given_w)).expect("non-empty group"),
        });
    }
    out
}

/// One row of runs.csv (lengths in bits).
#[derive(Serialize)]
struct RunRow<'a> {
    sweep: &'a str,
    generator: &'a str,
    parameter: &'a str,
    value: &'a str,
    seed: u64,
    #[serde(serialize_with = "decimal")]
    k_pw_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_w_given_pw_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_f_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_z_given_wf_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_z_bits: f64,
    #[serde(serialize_with = "decimal")]
    k_z_given_w_bits: f64,
    #[serde(serialize_with = "decimal")]
    c: f64,
    #[serde(serialize_with = "decimal")]
    c_per_sample: f64,
    #[serde(serialize_with = "decimal_opt")]
    bits_saved_per_row: Option<f64>,
    #[serde(serialize_with = "decimal_opt")]
    topsim: Option<f64>,
}

/// One row of summary.csv: mean and sample sd over the seeds of one value.
#[derive(Serialize)]
struct SummaryCsvRow<'a> {
    sweep: &'a str,
    parameter: &'a str,
    value: &'a str,
    n: usize,
    #[serde(serialize_with = "decimal")]
    c_mean: f64,
    #[serde(serialize_with = "decimal")]
    c_std: f64,
    #[serde(serialize_with = "decimal")]
    c_per_sample_mean: f64,
    #[serde(serialize_with = "decimal")]
    c_per_sample_std: f64,
    #[serde(serialize_with = "decimal_opt")]
    bits_saved_per_row_mean: Option<f64>,
    #[serde(serialize_with = "decimal_opt")]
    topsim_mean: Option<f64>,
    #[serde(serialize_with = "decimal_opt")]
    topsim_std: Option<f64>,
    #[serde(serialize_with = "decimal")]
    k_z_bits_mean: f64,
    #[serde(serialize_with = "decimal")]
    k_z_given_w_bits_mean: f64,
}

/// Writes runs.csv, summary.csv and summary.json into `dir`; returns their paths.
pub fn write_tables(result: &SweepResult, dir: &Path) -> Result<Vec<PathBuf>> {
    crate::io::files::create_dir_all(dir)?;
    let cfg = &result.config;
    let runs_path = dir.join("runs.csv");
    write_csv(
        &runs_path,
        result.runs.iter().map(|r| {
            let rec = &r.record;
            RunRow {
                sweep: &cfg.name,
                generator: &cfg.generator,
                parameter: &cfg.parameter,
                value: &r.planned.value,
                seed: r.planned.seed,
                k_pw_bits: rec.k_pw,
                k_w_given_pw_bits: rec.k_w_given_pw,
                k_f_bits: rec.k_f,
                k_z_given_wf_bits: rec.k_z_given_wf,
                k_z_bits: rec.k_z,
                k_z_given_w_bits: rec.k_z_given_w,
                c: rec.c,
                c_per_sample: rec.c_per_sample,
                bits_saved_per_row: rec.bits_saved_per_row,
                topsim: rec.topsim,
            }
        }),
    )?;
    let summary_path = dir.join("summary.csv");
    write_csv(
        &summary_path,
        result.summary.iter().map(|s| SummaryCsvRow {
            sweep: &cfg.name,
            parameter: &cfg.parameter,
            value: &s.value,
            n: s.c.n,
            c_mean: s.c.mean,
            c_std: s.c.std,
            c_per_sample_mean: s.c_per_sample.mean,
            c_per_sample_std: s.c_per_sample.std,
            bits_saved_per_row_mean: s.bits_saved_per_row.map(|t| t.mean),
            topsim_mean: s.topsim.map(|t| t.mean),
            topsim_std: s.topsim.map(|t| t.std),
            k_z_bits_mean: s.k_z_bits.mean,
            k_z_given_w_bits_mean: s.k_z_given_w_bits.mean,
        }),
    )?;

    let json_path = dir.join("summary.json");
    let json = serde_json::json!({
        "units": "bits (C is a ratio; std is the sample standard deviation, ddof = 1)",
        "sweep": cfg.name,
        "generator": cfg.generator,
        "parameter": cfg.parameter,
        "summary": result.summary,
    });
    crate::io::files::write_atomic_io(
        &json_path,
        serde_json::to_string_pretty(&json).expect("serialisable"),
    )
    .map_err(|e| KcompError::io(&json_path, e))?;
    Ok(vec![runs_path, summary_path, json_path])
}

/// A progress bar over `total` items named `unit` (runs, datasets, estimators) with `label`
/// in front, whose ETA follows the items' expected work.
pub fn progress_bar(total: u64, unit: &str, label: &str) -> WorkBar {
    crate::progress::work_bar(total, unit, &format!("{label:>28}"))
}
