//! A panel's tables: `runs.csv` (one row per dataset x estimator), `summary.csv` /
//! `summary.md` (mean, sd, n over seeds) and `agreement.csv` (rank agreement between every
//! pair of estimators, per family and pooled, with bootstrap intervals over seeds).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{KcompError, Result};
use crate::estimators::agreement::{self, RankStatistic};
use crate::io::names::markdown_cell;
use crate::io::table::write_csv;
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
    /// Rows N of the datasets (their mean when seeds differ in size): C grows with N.
    pub dataset_rows: f64,
    /// Datasets where the estimator gave a value.
    pub n: usize,
    /// Datasets where it did not apply or failed.
    pub n_missing: usize,
    pub c_mean: Option<f64>,
    /// Sample sd over seeds; empty when fewer than two datasets gave a value.
    pub c_sd: Option<f64>,
    /// (K(Z) - K(Z|W)) / N in bits, comparable across N.
    pub bits_saved_per_row_mean: Option<f64>,
    pub bits_saved_per_row_sd: Option<f64>,
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
            // A standard deviation over one dataset is undefined, not 0.
            let sd = |s: Option<Stat>| s.filter(|s| s.n >= 2).map(|s| s.std);
            let c = pick(|r| r.c);
            let saved = pick(|r| r.bits_saved_per_row);
            let score = pick(|r| r.score);
            let bits = pick(|r| r.k_z_given_w_bits);
            let ok = rows.iter().filter(|r| r.status == "ok").count();
            SummaryRow {
                family: first.family.clone(),
                parameter: first.parameter.clone(),
                value: first.value.clone(),
                value_index: first.value_index,
                estimator: first.estimator.clone(),
                dataset_rows: rows.iter().map(|r| r.n as f64).sum::<f64>() / rows.len() as f64,
                n: ok,
                n_missing: rows.len() - ok,
                c_mean: c.map(|s| s.mean),
                c_sd: sd(c),
                bits_saved_per_row_mean: saved.map(|s| s.mean),
                bits_saved_per_row_sd: sd(saved),
                score_mean: score.map(|s| s.mean),
                score_sd: sd(score),
                k_z_given_w_bits_mean: bits.map(|s| s.mean),
                k_z_given_w_bits_sd: sd(bits),
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
/// enter together), `resamples` times, seeded by `seed`
/// ([`crate::estimators::agreement::agreement`]).
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
                let pair_seed = seed ^ ((gi as u64) << 40) ^ ((ai as u64) << 20) ^ bi as u64;
                let (x, y) = seed_grid(datasets, a, b);
                let stat = |s: RankStatistic| {
                    if x.is_empty() {
                        return None;
                    }
                    agreement::agreement(&x, &y, s, resamples, pair_seed).ok()
                };
                let (tau, rho) = (
                    stat(RankStatistic::KendallTauB),
                    stat(RankStatistic::SpearmanRho),
                );
                out.push(AgreementRow {
                    group: group.clone(),
                    estimator_a: a.clone(),
                    estimator_b: b.clone(),
                    n: x.iter().map(Vec::len).sum(),
                    kendall_tau_b: tau.and_then(|t| t.value),
                    kendall_ci_low: tau.and_then(|t| t.ci95).map(|c| c.lo),
                    kendall_ci_high: tau.and_then(|t| t.ci95).map(|c| c.hi),
                    spearman_rho: rho.and_then(|t| t.value),
                    spearman_ci_low: rho.and_then(|t| t.ci95).map(|c| c.lo),
                    spearman_ci_high: rho.and_then(|t| t.ci95).map(|c| c.hi),
                });
            }
        }
    }
    out
}

/// The (family, value) x seed grids of two estimators' values. The bootstrap resamples whole
/// seeds, so it needs every seed of a row: rows where either estimator misses a seed are left
/// out (and counted out of `n`).
fn seed_grid(
    datasets: &BTreeMap<DatasetKey, BTreeMap<&str, f64>>,
    a: &str,
    b: &str,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut seeds: Vec<u64> = datasets.keys().map(|k| k.2).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let mut rows: BTreeMap<(String, usize), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (key, vals) in datasets {
        if let (Some(&va), Some(&vb)) = (vals.get(a), vals.get(b)) {
            let row = rows.entry((key.0.clone(), key.1)).or_default();
            row.0.push(va);
            row.1.push(vb);
        }
    }
    rows.into_values()
        .filter(|(x, _)| x.len() == seeds.len())
        .unzip()
}

/// The summary as a Markdown table per family.
pub fn summary_markdown(result: &PanelResult, summary: &[SummaryRow]) -> String {
    let mut md = format!(
        "# Panel `{}`\n\nC = K(Z)/K(Z|W) with the dataset's shared K(Z); scores are not code \
         lengths. Mean +- sd over seeds (n = datasets with a value; no sd when n = 1). Lengths \
         in bits. {COMPARABILITY}\n",
        result.config.name
    );
    if result.config.estimators.iter().any(|e| e == "prequential") {
        md.push_str(&format!(
            "\nprequential: the {} (`[prequential.config] scheme`).\n",
            match result.config.prequential.config.scheme {
                crate::estimators::prequential::code::Scheme::Online => "online scheme",
                crate::estimators::prequential::code::Scheme::Reference => "reference protocol",
            }
        ));
    }
    for warning in size_warnings(result) {
        md.push_str(&format!("\n**Warning:** {}\n", markdown_cell(&warning)));
    }
    for fam in &result.config.families {
        let label = fam.label();
        let parameter = markdown_cell(&fam.parameter);
        md.push_str(&format!(
            "\n## {} ({} over `{parameter}`)\n\n| {parameter} | N | estimator | n | C | bits saved / row | score | K(Z\\|W) bits | K(Z) bits | s |\n|---|---|---|---|---|---|---|---|---|---|\n",
            markdown_cell(&label),
            fam.kind,
        ));
        for r in summary.iter().filter(|r| r.family == label) {
            let pm = |m: Option<f64>, s: Option<f64>, d: usize| match (m, s) {
                (Some(m), Some(s)) => format!("{m:.d$} +- {s:.d$}"),
                (Some(m), None) => format!("{m:.d$}"),
                _ => "-".into(),
            };
            md.push_str(&format!(
                "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {:.0} | {:.2} |\n",
                markdown_cell(&r.value),
                r.dataset_rows,
                markdown_cell(&r.estimator),
                r.n,
                pm(r.c_mean, r.c_sd, 3),
                pm(r.bits_saved_per_row_mean, r.bits_saved_per_row_sd, 3),
                pm(r.score_mean, r.score_sd, 3),
                pm(r.k_z_given_w_bits_mean, r.k_z_given_w_bits_sd, 0),
                r.k_z_bits_mean,
                r.seconds_mean
            ));
        }
        md.push_str(&missing_reasons(result, &label));
    }
    md
}

pub use crate::estimators::interface::COMPARABILITY;

/// Warnings for a panel whose rows compare datasets of different N: per family (the values a
/// figure puts side by side), and across families when agreement is pooled over them.
pub fn size_warnings(result: &PanelResult) -> Vec<String> {
    let mut out = Vec::new();
    let range = |ns: &[usize]| -> Option<(usize, usize)> {
        let lo = *ns.iter().min()?;
        let hi = *ns.iter().max()?;
        (lo != hi).then_some((lo, hi))
    };
    let mut all = Vec::new();
    for fam in &result.config.families {
        let label = fam.label();
        let ns: Vec<usize> = result
            .rows
            .iter()
            .filter(|r| r.family == label)
            .map(|r| r.n)
            .collect();
        all.extend_from_slice(&ns);
        if let Some((lo, hi)) = range(&ns) {
            out.push(format!(
                "family {label} compares datasets of different N ({lo} to {hi} rows): C grows \
                 with N, so read bits_saved_per_row across its values, or C only between \
                 datasets of the same N"
            ));
        }
    }
    if out.is_empty()
        && result.config.families.len() > 1
        && let Some((lo, hi)) = range(&all)
    {
        out.push(format!(
            "the pooled agreement ranks datasets of different N ({lo} to {hi} rows) by C, which \
             grows with N: read the per-family agreement, or bits_saved_per_row"
        ));
    }
    out
}

/// The panel's results as `kcomp compare CONFIG --out DIR` prints them: per family, one line
/// per value and a column per estimator (C with the bits saved per row for code lengths, the
/// score for scores; means over seeds), at most six estimators side by side.
pub fn summary_text(result: &PanelResult, summary: &[SummaryRow]) -> String {
    const PER_BLOCK: usize = 6;
    let mut text = String::new();
    let cell = |r: Option<&SummaryRow>| -> String {
        match r {
            Some(r) => match (r.c_mean, r.bits_saved_per_row_mean, r.score_mean) {
                (Some(c), Some(b), _) => format!("{} ({b:.2})", short(c)),
                (Some(c), None, _) => short(c),
                (None, _, Some(s)) => format!("{s:.3}"),
                _ => "-".into(),
            },
            None => "-".into(),
        }
    };
    for fam in &result.config.families {
        let label = fam.label();
        let rows: Vec<&SummaryRow> = summary.iter().filter(|r| r.family == label).collect();
        let mut values: Vec<(usize, &str, f64)> = Vec::new();
        for r in &rows {
            if !values.iter().any(|v| v.0 == r.value_index) {
                values.push((r.value_index, &r.value, r.dataset_rows));
            }
        }
        let first_width = values
            .iter()
            .map(|v| crate::io::names::terminal(v.1).chars().count())
            .chain([fam.parameter.chars().count(), 6])
            .max()
            .unwrap_or(6);
        text += &format!(
            "\n{} ({} over {}): C (bits saved per row) for code lengths, the score for scores; \
             mean over seeds\n",
            crate::io::names::terminal(&label),
            fam.kind,
            crate::io::names::terminal(&fam.parameter)
        );
        for block in result.config.estimators.chunks(PER_BLOCK) {
            let widths: Vec<usize> = block.iter().map(|e| e.len().max(14)).collect();
            text += &format!(
                "{:<first_width$} {:>7}",
                crate::io::names::terminal(&fam.parameter),
                "N"
            );
            for (e, w) in block.iter().zip(&widths) {
                text += &format!(" {e:>w$}");
            }
            text += "\n";
            for (index, value, n) in &values {
                text += &format!(
                    "{:<first_width$} {n:>7.0}",
                    crate::io::names::terminal(value)
                );
                for (e, w) in block.iter().zip(&widths) {
                    let r = rows
                        .iter()
                        .find(|r| r.value_index == *index && &r.estimator == e)
                        .copied();
                    text += &format!(" {:>w$}", cell(r));
                }
                text += "\n";
            }
        }
    }
    text
}

/// C with three significant digits, at least one decimal.
fn short(c: f64) -> String {
    if c.abs() >= 100.0 {
        format!("{c:.0}")
    } else if c.abs() >= 10.0 {
        format!("{c:.1}")
    } else {
        format!("{c:.2}")
    }
}

/// Why estimators gave no value on a family: one line per (estimator, status, reason) with
/// the number of datasets, so a figure's "absent estimators" note has its explanation.
fn missing_reasons(result: &PanelResult, family: &str) -> String {
    let mut reasons: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for r in result
        .rows
        .iter()
        .filter(|r| r.family == family && r.status != "ok")
    {
        *reasons
            .entry((r.estimator.as_str(), r.status.as_str(), r.reason.as_str()))
            .or_default() += 1;
    }
    if reasons.is_empty() {
        return String::new();
    }
    let mut md = String::from("\nNo value (datasets: estimator, status: reason):\n\n");
    for ((estimator, status, reason), n) in reasons {
        md.push_str(&format!(
            "- {n}: {}, {}: {}\n",
            markdown_cell(estimator),
            markdown_cell(status),
            markdown_cell(reason)
        ));
    }
    md
}

/// Writes runs.csv, summary.csv, summary.md and agreement.csv into `dir`.
pub fn write_tables(result: &PanelResult, dir: &Path) -> Result<Vec<PathBuf>> {
    crate::io::files::create_dir_all(dir)?;
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
    crate::io::files::write_atomic_io(&paths[2], summary_markdown(result, &summary))
        .map_err(|e| KcompError::io(&paths[2], e))?;
    write_csv(&paths[3], &agree)?;
    Ok(paths)
}
