//! A panel's figures: per family, every estimator's C (log axis: estimators differ by orders
//! of magnitude, with the C = 1 line) and one small panel per score in its own units (scores
//! differ in range and direction: one shared or min-max scaled axis misleads); and a heat map
//! of the rank-agreement matrix (Kendall's tau-b with n and intervals).

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::plot::{
    self, Figure, HeatCell, Panel, Point, RefLine, Series, parameter_label, x_axis_for,
};

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
        let values: Vec<String> = fam.values.iter().map(super::run::value_text).collect();
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
        // The key of the initials, for the caption.
        let mut key = String::new();
        if abbreviated {
            x_label.push_str(" (initials, key in the caption)");
            let pairs: Vec<String> = short
                .iter()
                .zip(&values)
                .filter(|(s, v)| s != v)
                .map(|(s, v)| format!("{s} = {v}"))
                .collect();
            key = format!(" {}.", pairs.join(", "));
        }
        let what = family_description(&fam.kind, &label, &parameter_label(&fam.parameter));
        let mut panels = Vec::new();
        if !c_series.is_empty() {
            panels.push(Panel {
                title: format!("{what}: C = K(Z)/K(Z|W)"),
                x_label: x_label.clone(),
                y_label: "C (ratio of code lengths)".into(),
                x_axis: axis.clone(),
                y_log: true,
                y_range: None,
                series: c_series,
                reference_line: Some(RefLine::c_one()),
            });
        }
        // One small panel per score, in its own units and direction.
        for s in score_series {
            let (unit, direction) = score_meaning(&s.label);
            panels.push(Panel {
                title: format!("{}: {direction}", s.label),
                x_label: x_label.clone(),
                y_label: unit.into(),
                x_axis: axis.clone(),
                y_log: false,
                y_range: None,
                series: vec![s],
                reference_line: None,
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
        let bars = if n_seeds >= 2 {
            format!("Points: mean over {n_seeds} seeds; error bars: +-1 sd over seeds.")
        } else {
            "n = 1 seed: no error bars.".to_string()
        };
        let figure = Figure {
            panels,
            caption: format!(
                "{what}.{key} {bars} Every estimator's C uses the same K(Z) per dataset \
                 ({k_z_method}). Each score is drawn in its own units. Estimators absent from \
                 the figure do not apply to this family (summary.md says why)."
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

/// A family in words for titles: its generator and parameter (`Language systems over holistic
/// fraction h`), or the user's own label for a `files` family.
fn family_description(kind: &str, label: &str, x_label: &str) -> String {
    let kind = match kind {
        "lookup" => "Lookup tables",
        "grammar" => "Grammars",
        "language" => "Language systems",
        "protocol" => "Test protocols (Korbak et al.)",
        "grid" => "String-to-grid programs",
        "files" => return format!("Your datasets ({label})"),
        other => other,
    };
    format!("{kind} over {x_label}")
}

/// A score's unit and direction, from the registry (docs/estimators.md, "Units and directions
/// of the scores").
fn score_meaning(estimator: &str) -> (&'static str, String) {
    match super::registry::estimator_info(estimator) {
        Some(i) => (
            i.unit,
            match i.direction {
                "higher" | "lower" => format!("{} is more compositional", i.direction),
                d => d.to_string(),
            },
        ),
        None => ("score", "estimator's own range".to_string()),
    }
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
    // Oriented so that blue means "more compositional together": a lower-is-better score
    // enters with its sign flipped (agreement.csv keeps the raw values).
    let flipped: Vec<bool> = names
        .iter()
        .map(|n| super::registry::estimator_info(n).is_some_and(|i| i.direction == "lower"))
        .collect();
    let labels: Vec<String> = names
        .iter()
        .zip(&flipped)
        .map(|(n, &f)| {
            if f {
                format!("{n} (flipped)")
            } else {
                n.clone()
            }
        })
        .collect();
    let mut matrix = vec![vec![HeatCell::default(); names.len()]; names.len()];
    for (i, row) in matrix.iter_mut().enumerate() {
        row[i].value = Some(1.0);
    }
    let mut n_max = 0;
    for r in agreement.iter().filter(|r| r.group == group) {
        let a = names.iter().position(|n| *n == r.estimator_a);
        let b = names.iter().position(|n| *n == r.estimator_b);
        if let (Some(a), Some(b)) = (a, b) {
            let sign = if flipped[a] != flipped[b] { -1.0 } else { 1.0 };
            let interval = r
                .kendall_ci_low
                .zip(r.kendall_ci_high)
                .map(|(lo, hi)| if sign < 0.0 { (-hi, -lo) } else { (lo, hi) });
            let cell = HeatCell {
                value: r.kendall_tau_b.map(|t| sign * t),
                n: r.n,
                interval,
            };
            matrix[a][b] = cell;
            matrix[b][a] = cell;
            n_max = n_max.max(r.n);
        }
    }
    let few = if n_max < plot::HEAT_MIN_N {
        format!(
            " With at most {n_max} datasets every rank correlation is -1, 0 or 1 whatever the \
             estimators do: this matrix carries no information; add values or seeds."
        )
    } else {
        String::new()
    };
    plot::heatmap(
        &dir.join("agreement"),
        &format!("Rank agreement between estimators (Kendall tau-b), {group}"),
        &labels,
        &matrix,
        &format!(
            "Kendall's tau-b between two estimators' values over the datasets both rate (C for \
             code lengths, the score otherwise), oriented so that positive (blue) means they \
             agree on which data is more compositional: scores where lower is more \
             compositional are marked (flipped) and enter with their sign reversed \
             (agreement.csv keeps the raw tau). In brackets: 95 % bootstrap interval over \
             seeds; n: datasets. Grey: fewer than {} datasets in common (too few to rank); \
             n/a: no value.{few}",
            plot::HEAT_MIN_N
        ),
    )
}
