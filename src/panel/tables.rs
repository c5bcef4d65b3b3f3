//! A panel's tables: `runs.csv` (one row per dataset x estimator), `summary.csv` /
//! `summary.md` (mean, sd, n over seeds) and `agreement.csv` (rank agreement between every
//! pair of estimators, per family and pooled, with bootstrap intervals over seeds).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::error::{KcompError, Result};
use crate::estimators::agreement::{kendall_tau_b, spearman_rho};
use crate::sweeps::summary::Stat;

use super::run::{PanelResult, PanelRow};

/// One row of `summary.csv`: an estimator on one value of a family, over seeds.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub family: String,
    pub parameter: String,
    pub value: String,
    pub value_index: usize,
    pub estimator: String,
    /// Datasets where the estimator gave a value.
    pub n: usize,
    /// Datasets where it did not apply or failed.
    pub n_missing: usize,
    pub c_mean: Option<f64>,
    pub c_sd: Option<f64>,
    pub score_mean: Option<f64>,
    pub score_sd: Option<f64>,
    pub k_z_given_w_bits_mean: Option<f64>,
    pub k_z_given_w_bits_sd: Option<f64>,
    pub k_z_bits_mean: f64,
    pub seconds_mean: f64,
}

/// One row of `agreement.csv`.
#[derive(Debug, Clone, Serialize)]
pub struct AgreementRow {
    /// A family's name, or `pooled` for all datasets of the panel.
    pub group: String,
    pub estimator_a: String,
    pub estimator_b: String,
    /// Datasets where both estimators gave a value.
    pub n: usize,
    pub kendall_tau_b: Option<f64>,
    pub kendall_ci_low: Option<f64>,
    pub kendall_ci_high: Option<f64>,
    pub spearman_rho: Option<f64>,
    pub spearman_ci_low: Option<f64>,
    pub spearman_ci_high: Option<f64>,
}

/// Mean and sd over seeds per (family, value, estimator), in plan order.
pub fn summarise(result: &PanelResult) -> Vec<SummaryRow> {
    let mut groups: BTreeMap<(usize, usize, usize), Vec<&PanelRow>> = BTreeMap::new();
    let family_index: BTreeMap<String, usize> = result
        .config
        .families
        .iter()
        .enumerate()
        .map(|(i, f)| (f.label(), i))
        .collect();
    for row in &result.rows {
        let est = result
            .config
            .estimators
            .iter()
            .position(|e| *e == row.estimator)
            .unwrap_or(usize::MAX);
        let fam = family_index.get(&row.family).copied().unwrap_or(usize::MAX);
        groups
            .entry((fam, row.value_index, est))
            .or_default()
            .push(row);
    }
    groups
        .into_values()
        .map(|rows| {
            let first = rows[0];
            let pick = |f: fn(&PanelRow) -> Option<f64>| -> Option<Stat> {
                Stat::of(&rows.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
            };
            let c = pick(|r| r.c);
            let score = pick(|r| r.score);
            let bits = pick(|r| r.k_z_given_w_bits);
            let ok = rows.iter().filter(|r| r.status == "ok").count();
            SummaryRow {
                family: first.family.clone(),
                parameter: first.parameter.clone(),
                value: first.value.clone(),
                value_index: first.value_index,
                estimator: first.estimator.clone(),
                n: ok,
                n_missing: rows.len() - ok,
                c_mean: c.map(|s| s.mean),
                c_sd: c.map(|s| s.std),
                score_mean: score.map(|s| s.mean),
                score_sd: score.map(|s| s.std),
                k_z_given_w_bits_mean: bits.map(|s| s.mean),
                k_z_given_w_bits_sd: bits.map(|s| s.std),
                k_z_bits_mean: Stat::of(&rows.iter().map(|r| r.k_z_bits).collect::<Vec<_>>())
                    .map_or(f64::NAN, |s| s.mean),
                seconds_mean: Stat::of(&rows.iter().map(|r| r.seconds).collect::<Vec<_>>())
                    .map_or(0.0, |s| s.mean),
            }
        })
        .collect()
}

/// Key of one dataset inside a group.
type DatasetKey = (String, usize, u64);

/// Rank agreement between every pair of estimators, per family and pooled. Intervals: 95 %
/// percentile bootstrap that resamples seeds with replacement (all values of a drawn seed
/// enter together), `resamples` times, seeded by `seed`.
pub fn agreement(result: &PanelResult, resamples: usize, seed: u64) -> Vec<AgreementRow> {
    let estimators = &result.config.estimators;
    // value per (group, dataset, estimator)
    let mut by_group: BTreeMap<String, BTreeMap<DatasetKey, BTreeMap<&str, f64>>> = BTreeMap::new();
    for row in &result.rows {
        let Some(v) = row.ranked_value() else {
            continue;
        };
        let key = (row.family.clone(), row.value_index, row.seed);
        for group in [row.family.clone(), "pooled".to_string()] {
            by_group
                .entry(group)
                .or_default()
                .entry(key.clone())
                .or_default()
                .insert(row.estimator.as_str(), v);
        }
    }
    let mut order: Vec<String> = result.config.families.iter().map(|f| f.label()).collect();
    if result.config.families.len() > 1 {
        order.push("pooled".into());
    }
    let mut out = Vec::new();
    for (gi, group) in order.iter().enumerate() {
        let Some(datasets) = by_group.get(group) else {
            continue;
        };
        for (ai, a) in estimators.iter().enumerate() {
            for (bi, b) in estimators.iter().enumerate().skip(ai + 1) {
                let pairs: Vec<(u64, f64, f64)> = datasets
                    .iter()
                    .filter_map(|(key, vals)| {
                        Some((key.2, *vals.get(a.as_str())?, *vals.get(b.as_str())?))
                    })
                    .collect();
                let pair_seed = seed ^ ((gi as u64) << 40) ^ ((ai as u64) << 20) ^ bi as u64;
                out.push(agreement_row(group, a, b, &pairs, resamples, pair_seed));
            }
        }
    }
    out
}

fn agreement_row(
    group: &str,
    a: &str,
    b: &str,
    pairs: &[(u64, f64, f64)],
    resamples: usize,
    seed: u64,
) -> AgreementRow {
    let xs: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let ys: Vec<f64> = pairs.iter().map(|p| p.2).collect();
    let tau = kendall_tau_b(&xs, &ys);
    let rho = spearman_rho(&xs, &ys);
    let (tau_ci, rho_ci) = bootstrap(pairs, resamples, seed);
    AgreementRow {
        group: group.into(),
        estimator_a: a.into(),
        estimator_b: b.into(),
        n: pairs.len(),
        kendall_tau_b: tau,
        kendall_ci_low: tau_ci.map(|c| c.0),
        kendall_ci_high: tau_ci.map(|c| c.1),
        spearman_rho: rho,
        spearman_ci_low: rho_ci.map(|c| c.0),
        spearman_ci_high: rho_ci.map(|c| c.1),
    }
}

type Interval = Option<(f64, f64)>;

/// Percentile bootstrap over seeds of tau-b and rho.
fn bootstrap(pairs: &[(u64, f64, f64)], resamples: usize, seed: u64) -> (Interval, Interval) {
    let mut seeds: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    seeds.sort_unstable();
    seeds.dedup();
    if seeds.len() < 2 {
        return (None, None);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut taus = Vec::with_capacity(resamples);
    let mut rhos = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for _ in 0..seeds.len() {
            let s = seeds[rng.random_range(0..seeds.len())];
            for p in pairs.iter().filter(|p| p.0 == s) {
                xs.push(p.1);
                ys.push(p.2);
            }
        }
        taus.extend(kendall_tau_b(&xs, &ys));
        rhos.extend(spearman_rho(&xs, &ys));
    }
    (percentile_interval(taus), percentile_interval(rhos))
}

/// The 2.5 % and 97.5 % percentiles (None when empty).
fn percentile_interval(mut v: Vec<f64>) -> Interval {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)];
    Some((at(0.025), at(0.975)))
}

fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let mut w = csv::Writer::from_path(path).map_err(|e| KcompError::file(path, e.to_string()))?;
    for row in rows {
        w.serialize(row)
            .map_err(|e| KcompError::file(path, e.to_string()))?;
    }
    w.flush().map_err(|e| KcompError::io(path, e))
}

/// The summary as a Markdown table per family.
pub fn summary_markdown(result: &PanelResult, summary: &[SummaryRow]) -> String {
    let mut md = format!(
        "# Panel `{}`\n\nC = K(Z)/K(Z|W) with the dataset's shared K(Z); scores are not code \
         lengths. Mean +- sd over seeds (n = datasets with a value). Lengths in bits.\n",
        result.config.name
    );
    for fam in &result.config.families {
        let label = fam.label();
        md.push_str(&format!(
            "\n## {label} ({} over `{}`)\n\n| {} | estimator | n | C | score | K(Z\\|W) bits | K(Z) bits | s |\n|---|---|---|---|---|---|---|---|\n",
            fam.kind, fam.parameter, fam.parameter
        ));
        for r in summary.iter().filter(|r| r.family == label) {
            let pm = |m: Option<f64>, s: Option<f64>, d: usize| match (m, s) {
                (Some(m), Some(s)) => format!("{m:.d$} +- {s:.d$}"),
                _ => "-".into(),
            };
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {:.0} | {:.2} |\n",
                r.value,
                r.estimator,
                r.n,
                pm(r.c_mean, r.c_sd, 3),
                pm(r.score_mean, r.score_sd, 3),
                pm(r.k_z_given_w_bits_mean, r.k_z_given_w_bits_sd, 0),
                r.k_z_bits_mean,
                r.seconds_mean
            ));
        }
    }
    md
}

/// Writes runs.csv, summary.csv, summary.md and agreement.csv into `dir`.
pub fn write_tables(result: &PanelResult, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| KcompError::io(dir, e))?;
    let summary = summarise(result);
    let agree = agreement(
        result,
        result.config.bootstrap_resamples,
        result.config.bootstrap_seed,
    );
    let paths: Vec<PathBuf> = ["runs.csv", "summary.csv", "summary.md", "agreement.csv"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    write_csv(&paths[0], &result.rows)?;
    write_csv(&paths[1], &summary)?;
    std::fs::write(&paths[2], summary_markdown(result, &summary))
        .map_err(|e| KcompError::io(&paths[2], e))?;
    write_csv(&paths[3], &agree)?;
    Ok(paths)
}
