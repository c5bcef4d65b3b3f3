//! A panel's figures: per family, every estimator's C (log axis: estimators differ by orders
//! of magnitude) and every score against the family parameter; and a heat map of the
//! rank-agreement matrix (Kendall's tau-b).

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::plot::{self, Figure, Panel, Point, Series, parameter_label, x_axis_for};

use super::run::PanelResult;
use super::tables::{AgreementRow, SummaryRow};

/// Writes `<family>_estimators.{png,svg}` per family and `agreement.{png,svg}` into `dir`.
pub fn plot_panel(
    result: &PanelResult,
    summary: &[SummaryRow],
    agreement: &[AgreementRow],
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let n_seeds = result.config.seed_values()?.len();
    for fam in &result.config.families {
        let label = fam.label();
        let rows: Vec<&SummaryRow> = summary.iter().filter(|r| r.family == label).collect();
        let values: Vec<String> = fam
            .values
            .iter()
            .map(|v| match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        let (short, abbreviated) = abbreviate_categories(&values);
        let (axis, xs) = x_axis_for(&short);
        let mut c_series = Vec::new();
        let mut score_series = Vec::new();
        for (color, est) in result.config.estimators.iter().enumerate() {
            let pick = |mean: fn(&SummaryRow) -> Option<f64>,
                        sd: fn(&SummaryRow) -> Option<f64>| {
                rows.iter()
                    .filter(|r| &r.estimator == est)
                    .filter_map(|r| {
                        Some(Point {
                            x: xs[r.value_index],
                            y: mean(r)?,
                            err: sd(r).unwrap_or(0.0),
                        })
                    })
                    .collect::<Vec<_>>()
            };
            let c = pick(|r| r.c_mean, |r| r.c_sd);
            if !c.is_empty() {
                c_series.push(Series {
                    label: est.clone(),
                    points: c,
                    reference: false,
                    color,
                });
            }
            let s = pick(|r| r.score_mean, |r| r.score_sd);
            if !s.is_empty() {
                score_series.push(Series {
                    label: est.clone(),
                    points: s,
                    reference: false,
                    color,
                });
            }
        }
        let mut x_label = parameter_label(&fam.parameter);
        if abbreviated {
            x_label.push_str(" (initials of hyphenated names)");
        }
        let scaled = scale_heterogeneous_scores(&mut score_series);
        let mut panels = Vec::new();
        if !c_series.is_empty() {
            panels.push(Panel {
                title: format!("{label}: C = K(Z)/K(Z|W)"),
                x_label: x_label.clone(),
                y_label: "C (ratio of code lengths)".into(),
                x_axis: axis.clone(),
                y_log: true,
                y_range: None,
                series: c_series,
            });
        }
        if !score_series.is_empty() {
            panels.push(Panel {
                title: format!("{label}: scores"),
                x_label,
                y_label: if scaled {
                    "score, min-max scaled per estimator".into()
                } else {
                    "score (estimator's own range)".into()
                },
                x_axis: axis,
                y_log: false,
                y_range: None,
                series: score_series,
            });
        }
        if panels.is_empty() {
            continue;
        }
        let k_z_method = result
            .rows
            .iter()
            .find(|r| r.family == label)
            .map_or("", |r| r.k_z_method.as_str());
        let figure = Figure {
            panels,
            caption: format!(
                "Points: mean over {n_seeds} seeds; error bars: +-1 sd over seeds. Every \
                 estimator's C uses the same K(Z) per dataset ({k_z_method}). Estimators absent \
                 from a panel do not apply to this family (summary.md says why)."
            ),
        };
        written.extend(plot::line_figure(
            &dir.join(format!("{label}_estimators")),
            &figure,
        )?);
    }
    written.extend(plot_agreement(result, agreement, dir)?);
    Ok(written)
}

/// Category labels too long to sit side by side (more than 60 characters in all) become the
/// initials of their hyphenated parts (`non-trivially-compositional` -> `NTC`); single words
/// stay. Returns the labels and whether any changed.
fn abbreviate_categories(values: &[String]) -> (Vec<String>, bool) {
    let numeric = values.iter().all(|v| v.parse::<f64>().is_ok());
    if numeric || values.iter().map(String::len).sum::<usize>() <= 60 {
        return (values.to_vec(), false);
    }
    let short: Vec<String> = values
        .iter()
        .map(|v| {
            let parts: Vec<&str> = v.split('-').filter(|p| !p.is_empty()).collect();
            if parts.len() < 2 {
                v.clone()
            } else {
                parts
                    .iter()
                    .filter_map(|p| p.chars().next())
                    .flat_map(char::to_uppercase)
                    .collect()
            }
        })
        .collect();
    let changed = short != values;
    (short, changed)
}

/// When the scores' magnitudes differ by more than 10x between estimators (counts beside
/// correlations), one axis flattens the small ones: each series is then min-max scaled to
/// [0, 1] over its points (error bars scaled alike), which keeps every estimator's ranking
/// visible. Returns whether it scaled.
fn scale_heterogeneous_scores(series: &mut [Series]) -> bool {
    let spans: Vec<f64> = series
        .iter()
        .map(|s| s.points.iter().map(|p| p.y.abs()).fold(0.0, f64::max))
        .filter(|&m| m > 0.0)
        .collect();
    let (lo, hi) = spans
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &m| (l.min(m), h.max(m)));
    if spans.len() < 2 || hi <= 10.0 * lo {
        return false;
    }
    for s in series.iter_mut() {
        let min = s.points.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
        let max = s
            .points
            .iter()
            .map(|p| p.y)
            .fold(f64::NEG_INFINITY, f64::max);
        let range = max - min;
        for p in &mut s.points {
            if range > 0.0 {
                p.y = (p.y - min) / range;
                p.err /= range;
            } else {
                p.y = 0.5;
                p.err = 0.0;
            }
        }
    }
    true
}

/// Heat map of Kendall's tau-b between every pair of estimators, pooled over families (or the
/// single family).
fn plot_agreement(
    result: &PanelResult,
    agreement: &[AgreementRow],
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    let group = if result.config.families.len() > 1 {
        "pooled".to_string()
    } else {
        result.config.families[0].label()
    };
    let names = &result.config.estimators;
    let mut matrix = vec![vec![None; names.len()]; names.len()];
    for (i, row) in matrix.iter_mut().enumerate() {
        row[i] = Some(1.0);
    }
    for r in agreement.iter().filter(|r| r.group == group) {
        let a = names.iter().position(|n| *n == r.estimator_a);
        let b = names.iter().position(|n| *n == r.estimator_b);
        if let (Some(a), Some(b)) = (a, b) {
            matrix[a][b] = r.kendall_tau_b;
            matrix[b][a] = r.kendall_tau_b;
        }
    }
    plot::heatmap(
        &dir.join("agreement"),
        &format!("Rank agreement (Kendall tau-b), {group}"),
        names,
        &matrix,
        "C for code lengths, the score otherwise; n/a: too few common datasets",
    )
}
