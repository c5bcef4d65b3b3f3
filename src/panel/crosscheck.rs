//! The estimators' cross-check against exact K: for a panel that runs `exact` beside other
//! code-length estimators, every estimator's K(Z|W) as a ratio to the exact K(Z|W) of the same
//! dataset, and its wall time as a ratio to the prequential code's on the same dataset (same
//! run, same machine), averaged over seeds. Writes `crosscheck.csv`, `crosscheck.md` and
//! `crosscheck.{png,svg}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::run::{PanelResult, PanelRow};
use crate::error::Result;
use crate::io::names::markdown_cell;
use crate::io::table::write_csv;
use crate::plot::{self, Figure, Panel, Point, RefLine, Series, parameter_label, x_axis_for};

/// What kind of length an estimator reports.
pub fn length_kind(estimator: &str) -> &'static str {
    match estimator {
        "exact" | "prequential" | "mapping_mdl" | "learned_w" => "code",
        "requential" => "expected length of a code",
        "compression" => "difference of two codes",
        "bdm" => "approximation (not a code)",
        "llm_program" => "code (l_bits)",
        _ => "score",
    }
}

/// One row of `crosscheck.csv`: an estimator on one value of a family, over seeds.
#[derive(Debug, Clone, Serialize)]
pub struct CrossRow {
    pub family: String,
    pub parameter: String,
    pub value: String,
    pub value_index: usize,
    pub estimator: String,
    pub kind: &'static str,
    /// Datasets with both this estimator's and the exact K(Z|W).
    pub n: usize,
    pub exact_bits_mean: Option<f64>,
    pub k_z_given_w_bits_mean: Option<f64>,
    /// Mean over seeds of K(Z|W) / exact K(Z|W).
    pub ratio_to_exact_mean: Option<f64>,
    pub ratio_to_exact_min: Option<f64>,
    pub ratio_to_exact_max: Option<f64>,
    pub seconds_mean: f64,
    /// Mean over seeds of seconds / prequential's seconds on the same dataset.
    pub time_ratio_to_prequential_mean: Option<f64>,
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Whether a panel gets a cross-check: it runs `exact` and another code-length estimator.
pub fn applies(result: &PanelResult) -> bool {
    let e = &result.config.estimators;
    e.iter().any(|x| x == "exact") && e.iter().any(|x| x != "exact" && length_kind(x) != "score")
}

/// The cross-check rows, in plan order (families, values) and estimator order.
pub fn crosscheck(result: &PanelResult) -> Vec<CrossRow> {
    // Rows of one dataset: (family, value index, seed).
    let mut datasets: BTreeMap<(String, usize, u64), Vec<&PanelRow>> = BTreeMap::new();
    for r in &result.rows {
        datasets
            .entry((r.family.clone(), r.value_index, r.seed))
            .or_default()
            .push(r);
    }
    let mut out = Vec::new();
    for fam in &result.config.families {
        let label = fam.label();
        for (vi, value) in fam.values.iter().enumerate() {
            for est in &result.config.estimators {
                if length_kind(est) == "score" {
                    continue;
                }
                let (mut ratios, mut times, mut ks, mut exacts, mut secs) =
                    (vec![], vec![], vec![], vec![], vec![]);
                for ((f, v, _), rows) in &datasets {
                    if *f != label || *v != vi {
                        continue;
                    }
                    let find = |name: &str| rows.iter().find(|r| r.estimator == name);
                    let Some(row) = find(est) else { continue };
                    secs.push(row.seconds);
                    if let (Some(p), true) = (find("prequential"), row.status == "ok")
                        && p.status == "ok"
                        && p.seconds > 0.0
                    {
                        times.push(row.seconds / p.seconds);
                    }
                    let exact = find("exact").and_then(|r| r.k_z_given_w_bits);
                    if let (Some(k), Some(x)) = (row.k_z_given_w_bits, exact)
                        && x > 0.0
                    {
                        ratios.push(k / x);
                        ks.push(k);
                        exacts.push(x);
                    }
                }
                out.push(CrossRow {
                    family: label.clone(),
                    parameter: fam.parameter.clone(),
                    value: super::run::value_text(value),
                    value_index: vi,
                    estimator: est.clone(),
                    kind: length_kind(est),
                    n: ratios.len(),
                    exact_bits_mean: mean(&exacts),
                    k_z_given_w_bits_mean: mean(&ks),
                    ratio_to_exact_mean: mean(&ratios),
                    ratio_to_exact_min: ratios.iter().copied().reduce(f64::min),
                    ratio_to_exact_max: ratios.iter().copied().reduce(f64::max),
                    seconds_mean: mean(&secs).unwrap_or(0.0),
                    time_ratio_to_prequential_mean: mean(&times),
                });
            }
        }
    }
    out
}

/// The Markdown table: one row per (family, value), one column per estimator, each cell
/// "ratio to exact (time ratio to prequential)".
pub fn markdown(rows: &[CrossRow], estimators: &[String], n_seeds: usize) -> String {
    let ests: Vec<&String> = estimators
        .iter()
        .filter(|e| *e != "exact" && length_kind(e) != "score")
        .collect();
    let mut s = format!(
        "# Code-length estimators against exact K(Z|W)\n\nEach cell: mean over {n_seeds} \
         seeds of K(Z|W) / exact K(Z|W) [min-max], then (wall time / the prequential code's \
         wall time on the same dataset). 1.00 = exact; below 1 a code beat the generator's \
         own program. `-`: the estimator does not apply.\n\n| family | value | exact K(Z|W) \
         bits | prequential s |"
    );
    for e in &ests {
        s += &format!(" {}, {} |", markdown_cell(e), length_kind(e));
    }
    s += "\n|---|---|---|---|";
    s += &"---|".repeat(ests.len());
    s += "\n";
    let mut keys: Vec<(String, usize, String)> = Vec::new();
    for r in rows {
        let k = (r.family.clone(), r.value_index, r.value.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for (fam, vi, value) in keys {
        let of = |e: &str| {
            rows.iter()
                .find(|r| r.family == fam && r.value_index == vi && r.estimator == e)
        };
        let exact = of("exact")
            .and_then(|r| r.exact_bits_mean)
            .map_or("-".into(), |x| format!("{x:.1}"));
        let preq_s = of("prequential").map_or("-".into(), |r| format!("{:.2}", r.seconds_mean));
        s += &format!(
            "| {} | {} | {exact} | {preq_s} |",
            markdown_cell(&fam),
            markdown_cell(&value)
        );
        for e in &ests {
            let cell = match of(e) {
                Some(r) => match (
                    r.ratio_to_exact_mean,
                    r.ratio_to_exact_min,
                    r.ratio_to_exact_max,
                ) {
                    (Some(m), Some(lo), Some(hi)) => {
                        let t = r.time_ratio_to_prequential_mean.map_or(String::new(), |t| {
                            if t >= 0.01 {
                                format!(" ({t:.2}x time)")
                            } else {
                                format!(" ({t:.1e}x time)")
                            }
                        });
                        if hi - lo > 0.005 {
                            format!("{m:.2} [{lo:.2}-{hi:.2}]{t}")
                        } else {
                            format!("{m:.2}{t}")
                        }
                    }
                    _ => "-".into(),
                },
                None => "-".into(),
            };
            s += &format!(" {cell} |");
        }
        s += "\n";
    }
    s
}

/// Writes the cross-check's CSV, Markdown table and figure into `dir`.
pub fn write_crosscheck(result: &PanelResult, dir: &Path) -> Result<Vec<PathBuf>> {
    let rows = crosscheck(result);
    let n_seeds = result.config.seed_values()?.len();
    let csv = dir.join("crosscheck.csv");
    write_csv(&csv, &rows)?;
    let md = dir.join("crosscheck.md");
    crate::io::files::atomic_write(
        &md,
        markdown(&rows, &result.config.estimators, n_seeds).as_bytes(),
    )?;
    let mut written = vec![csv, md];
    written.extend(figure(result, &rows, n_seeds, dir)?);
    Ok(written)
}

fn figure(
    result: &PanelResult,
    rows: &[CrossRow],
    n_seeds: usize,
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    let mut ratio_panels = Vec::new();
    let mut time_panels = Vec::new();
    for fam in &result.config.families {
        let label = fam.label();
        let values: Vec<String> = fam.values.iter().map(super::run::value_text).collect();
        let (axis, xs) = x_axis_for(&values);
        let mut ratio = Vec::new();
        let mut time = Vec::new();
        for est in &result.config.estimators {
            if est == "exact" || length_kind(est) == "score" {
                continue;
            }
            // Colour by the estimator's place in the registry, so that one estimator has one
            // colour in every panel's figure, whichever estimators a config lists.
            let color = super::registry::ESTIMATORS
                .iter()
                .position(|e| e == est)
                .unwrap_or(super::registry::ESTIMATORS.len());
            let mine: Vec<&CrossRow> = rows
                .iter()
                .filter(|r| r.family == label && &r.estimator == est)
                .collect();
            let pts = |f: fn(&CrossRow) -> Option<f64>| -> Vec<Point> {
                mine.iter()
                    .filter_map(|r| {
                        // A log axis: BDM differences can be negative (said in the caption).
                        Some(Point {
                            x: xs[r.value_index],
                            y: f(r).filter(|y| *y > 0.0)?,
                            err: 0.0,
                        })
                    })
                    .collect()
            };
            let r = pts(|r| r.ratio_to_exact_mean);
            if !r.is_empty() {
                ratio.push(Series {
                    label: est.clone(),
                    points: r,
                    reference: false,
                    color,
                });
            }
            let t = pts(|r| r.time_ratio_to_prequential_mean);
            if !t.is_empty() && est != "prequential" {
                time.push(Series {
                    label: est.clone(),
                    points: t,
                    reference: false,
                    color,
                });
            }
        }
        let x_label = parameter_label(&fam.parameter);
        if !ratio.is_empty() {
            ratio_panels.push(Panel {
                title: format!("{label}: K(Z|W) / exact"),
                x_label: x_label.clone(),
                y_label: "estimate / exact K(Z|W)".into(),
                x_axis: axis.clone(),
                y_log: true,
                y_range: None,
                series: ratio,
                reference_line: Some(RefLine {
                    y: 1.0,
                    label: "exact K(Z|W) (the generator's program)".into(),
                }),
            });
        }
        if !time.is_empty() {
            time_panels.push(Panel {
                title: format!("{label}: time / prequential"),
                x_label,
                y_label: "wall time / prequential's".into(),
                x_axis: axis,
                y_log: true,
                y_range: None,
                series: time,
                reference_line: Some(RefLine {
                    y: 1.0,
                    label: "prequential coding's time".into(),
                }),
            });
        }
    }
    let (ratio_count, time_count) = (ratio_panels.len(), time_panels.len());
    let mut panels = ratio_panels;
    panels.extend(time_panels);
    if panels.is_empty() {
        return Ok(Vec::new());
    }
    let has = |name: &str| result.config.estimators.iter().any(|e| e == name);
    let mut caption = format!(
        "Every code-length estimator against the exact K(Z|W) of the generator's own \
         program (panels \"K(Z|W) / exact\": the ratio, 1 = exact) and its wall time as a \
         ratio to the prequential code's on the same dataset in the same run (panels \"time / \
         prequential\"). Points: means over {n_seeds} seeds; each panel has its own axis."
    );
    if has("bdm") {
        caption.push_str(
            " bdm is an approximation, not a code, and its negative differences are left out \
             (crosscheck.md lists them).",
        );
    }
    if has("requential") {
        caption.push_str(" requential is the expected length of a relative-entropy code.");
    }
    // Ratios in the first row, times in the second, one family per column, when every family
    // has both and four fit side by side; otherwise the usual rows of three.
    let columns = if ratio_count == time_count && ratio_count <= 4 {
        ratio_count
    } else {
        3
    };
    let figure = Figure { panels, caption };
    plot::line_figure_columns(&dir.join("crosscheck"), &figure, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(length_kind("prequential"), "code");
        assert_eq!(length_kind("bdm"), "approximation (not a code)");
        assert_eq!(length_kind("topsim"), "score");
    }
}
