//! PNG plots of a sweep: C (per sample and with totals) and topological similarity against the
//! swept parameter, mean +- one standard deviation over seeds.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::error::{KcompError, Result};

use super::summary::{Stat, SweepResult};

struct Panel<'a> {
    title: &'a str,
    y_desc: &'a str,
    points: Vec<(f64, Stat)>,
}

fn plot_err(path: &Path, e: impl std::fmt::Display) -> KcompError {
    KcompError::file(path, format!("drawing plot: {e}"))
}

/// x positions: the numeric values when all parse, else the value indices (categorical).
fn x_positions(result: &SweepResult) -> (Vec<f64>, Option<Vec<String>>) {
    let numeric: Option<Vec<f64>> = result
        .summary
        .iter()
        .map(|s| s.value.parse::<f64>().ok())
        .collect();
    match numeric {
        Some(xs) => (xs, None),
        None => (
            result
                .summary
                .iter()
                .map(|s| s.value_index as f64)
                .collect(),
            Some(result.summary.iter().map(|s| s.value.clone()).collect()),
        ),
    }
}

fn draw_panels(
    path: &Path,
    x_desc: &str,
    labels: Option<&[String]>,
    panels: &[Panel],
) -> Result<()> {
    let root = BitMapBackend::new(path, (560 * panels.len() as u32, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, panel) in areas.iter().zip(panels) {
        let xs: Vec<f64> = panel.points.iter().map(|p| p.0).collect();
        let (mut x0, mut x1) = (
            xs.iter().copied().fold(f64::INFINITY, f64::min),
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        let pad = if x1 > x0 { 0.05 * (x1 - x0) } else { 0.5 };
        x0 -= pad;
        x1 += pad;
        let lo = panel
            .points
            .iter()
            .map(|p| p.1.mean - p.1.std)
            .fold(f64::INFINITY, f64::min);
        let hi = panel
            .points
            .iter()
            .map(|p| p.1.mean + p.1.std)
            .fold(f64::NEG_INFINITY, f64::max);
        let ypad = if hi > lo {
            0.08 * (hi - lo)
        } else {
            0.01 * hi.abs().max(1e-3)
        };
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, (lo - ypad)..(hi + ypad))
            .map_err(|e| plot_err(path, e))?;
        let label_of = |x: &f64| -> String {
            match labels {
                Some(l) => {
                    let i = x.round();
                    if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < l.len() {
                        l[i as usize].clone()
                    } else {
                        String::new()
                    }
                }
                None => format!("{x}"),
            }
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_desc)
            .y_desc(panel.y_desc)
            .x_label_formatter(&label_of)
            .y_label_formatter(&|y| format!("{y:.4}"));
        if let Some(l) = labels {
            mesh.x_labels(l.len() + 2);
        }
        mesh.draw().map_err(|e| plot_err(path, e))?;
        let color = BLUE;
        if labels.is_none() {
            // Categorical values (e.g. composition) get points only: a line would suggest order.
            chart
                .draw_series(LineSeries::new(
                    panel.points.iter().map(|p| (p.0, p.1.mean)),
                    color.stroke_width(2),
                ))
                .map_err(|e| plot_err(path, e))?;
        }
        chart
            .draw_series(panel.points.iter().map(|p| {
                ErrorBar::new_vertical(
                    p.0,
                    p.1.mean - p.1.std,
                    p.1.mean,
                    p.1.mean + p.1.std,
                    color,
                    8,
                )
            }))
            .map_err(|e| plot_err(path, e))?;
        chart
            .draw_series(
                panel
                    .points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1.mean), 4, color.filled())),
            )
            .map_err(|e| plot_err(path, e))?;
    }
    root.present().map_err(|e| plot_err(path, e))?;
    Ok(())
}

/// Writes `c.png` (C per sample and C with totals) and `topsim.png` into `dir`.
pub fn plot_sweep(result: &SweepResult, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| KcompError::io(dir, e))?;
    let (xs, labels) = x_positions(result);
    let x_desc = result.config.parameter.as_str();
    let mut written = Vec::new();
    let c_path = dir.join("c.png");
    let title_ps = format!("{}: C(Z) per sample", result.config.name);
    let title_total = format!("{}: C(Z) with totals", result.config.name);
    draw_panels(
        &c_path,
        x_desc,
        labels.as_deref(),
        &[
            Panel {
                title: &title_ps,
                y_desc: "C(Z) = K(Z)/K(Z|W), per-sample convention",
                points: xs
                    .iter()
                    .zip(&result.summary)
                    .map(|(&x, s)| (x, s.c_per_sample))
                    .collect(),
            },
            Panel {
                title: &title_total,
                y_desc: "C(Z) = K(Z)/K(Z|W), totals",
                points: xs
                    .iter()
                    .zip(&result.summary)
                    .map(|(&x, s)| (x, s.c))
                    .collect(),
            },
        ],
    )?;
    written.push(c_path);
    let topsim_points: Vec<(f64, Stat)> = xs
        .iter()
        .zip(&result.summary)
        .filter_map(|(&x, s)| s.topsim.map(|t| (x, t)))
        .collect();
    if !topsim_points.is_empty() {
        let path = dir.join("topsim.png");
        let title = format!("{}: topological similarity", result.config.name);
        draw_panels(
            &path,
            x_desc,
            labels.as_deref(),
            &[Panel {
                title: &title,
                y_desc: "topological similarity",
                points: topsim_points,
            }],
        )?;
        written.push(path);
    }
    Ok(written)
}
