//! Figures of a sweep (PNG and SVG through [`crate::plot`]): C(Z) in both conventions and
//! topological similarity against the swept parameter, mean +- 1 sd over seeds, with the
//! published per-sample means of Elmoznino et al. (ICML 2025, Figure 2) overlaid where kcomp
//! reproduces them. Titles describe the sweep (generator and parameter), not the config name;
//! both C panels share one y range and carry the C = 1 line.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::plot::{
    self, Figure, Panel, Point, RefLine, Series, parameter_label, share_y_range_if_readable,
    x_axis_for,
};

use super::published::published_mean;
use super::summary::{Stat, SweepResult};

fn points(xs: &[f64], stats: impl Iterator<Item = Option<Stat>>) -> Vec<Point> {
    xs.iter()
        .zip(stats)
        .filter_map(|(&x, s)| {
            s.map(|s| Point {
                x,
                y: s.mean,
                err: s.std,
            })
        })
        .collect()
}

/// Writes `c.{png,svg}` (C per sample and C with totals) and `topsim.{png,svg}` into `dir`.
pub fn plot_sweep(result: &SweepResult, dir: &Path) -> Result<Vec<PathBuf>> {
    crate::io::files::create_dir_all(dir)?;
    let values: Vec<String> = result.summary.iter().map(|s| s.value.clone()).collect();
    let (axis, xs) = x_axis_for(&values);
    let x_label = parameter_label(&result.config.parameter);
    let name = &result.config.name;
    let what = format!(
        "{} over {}",
        generator_description(&result.config.generator),
        x_label
    );
    let n = result.summary.first().map_or(0, |s| s.c.n);
    let mut per_sample = vec![Series {
        label: "kcomp (per-sample convention)".into(),
        points: points(&xs, result.summary.iter().map(|s| Some(s.c_per_sample))),
        reference: false,
        color: 0,
    }];
    let published: Vec<Point> = xs
        .iter()
        .zip(&values)
        .filter_map(|(&x, v)| published_mean(name, v).map(|y| Point { x, y, err: 0.0 }))
        .collect();
    if !published.is_empty() {
        per_sample.push(Series {
            label: "published mean (Elmoznino et al., ICML 2025, Fig. 2)".into(),
            points: published,
            reference: true,
            color: 1,
        });
    }
    let mut c_panels = vec![
        Panel {
            title: format!("{what}: C(Z), per-sample convention"),
            x_label: x_label.clone(),
            y_label: "C(Z) = K(Z)/K(Z|W)".into(),
            x_axis: axis.clone(),
            y_log: false,
            y_range: None,
            series: per_sample,
            reference_line: Some(RefLine::c_one()),
        },
        Panel {
            title: format!("{what}: C(Z), totals"),
            x_label: x_label.clone(),
            y_label: "C(Z) = K(Z)/K(Z|W)".into(),
            x_axis: axis.clone(),
            y_log: false,
            y_range: None,
            series: vec![Series {
                label: "kcomp (totals)".into(),
                points: points(&xs, result.summary.iter().map(|s| Some(s.c))),
                reference: false,
                color: 0,
            }],
            reference_line: Some(RefLine::c_one()),
        },
    ];
    let axes = if share_y_range_if_readable(&mut c_panels) {
        "Both panels share the y axis."
    } else {
        "Each panel has its own y axis: the two conventions differ too much in range for one."
    };
    let c_figure = Figure {
        panels: c_panels,
        caption: format!(
            "Mean over {n} seeds; error bars: +-1 sd over seeds. Published means: Elmoznino et \
             al.'s per-seed data (10 seeds). {axes}"
        ),
    };
    let mut written = plot::line_figure(&dir.join("c"), &c_figure)?;
    let topsim = points(&xs, result.summary.iter().map(|s| s.topsim));
    if !topsim.is_empty() {
        let figure = Figure {
            panels: vec![Panel {
                title: format!("{what}: topological similarity"),
                x_label,
                y_label: "topological similarity (correlation)".into(),
                x_axis: axis,
                y_log: false,
                y_range: None,
                series: vec![Series {
                    label: "kcomp".into(),
                    points: topsim,
                    reference: false,
                    color: 0,
                }],
                reference_line: None,
            }],
            caption: format!("Mean over {n} seeds; error bars: +-1 sd over seeds."),
        };
        written.extend(plot::line_figure(&dir.join("topsim"), &figure)?);
    }
    Ok(written)
}

/// A sweep generator in words, for titles.
fn generator_description(generator: &str) -> String {
    match generator {
        "lookup" => "Lookup tables".into(),
        "grammar" => "Grammars".into(),
        other => other.replace(['_', '-'], " "),
    }
}
