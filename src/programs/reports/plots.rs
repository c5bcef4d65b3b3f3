//! Figures of a grid report (PNG and SVG through [`crate::plot`]): mean C(P) per setting and
//! model, and the L(P+) vs E(P) plane with the T1/T2/T3 profile regions.

use std::path::{Path, PathBuf};

use super::Cell;
use crate::datasets::string_grid::Setting;
use crate::error::Result;
use crate::plot::{self, Figure, LabelledPoint, Panel, Point, Region, Scatter, Series, XAxis};
use crate::programs::mapping_table::ParserMode;
use crate::programs::mapping_table::score::{LOW_ERRORS, LOW_TABLE_FACTOR};
use crate::sweeps::summary::Stat;

/// Samples per grid dataset: E(P) counts wrong outputs among them.
const SAMPLES: f64 = 16.0;
/// L(P+) of the fully compositional table (the clip floor of the score).
const IDEAL_TABLE: f64 = 40.0;

fn models(cells: &[Cell]) -> Vec<String> {
    let mut m: Vec<String> = cells.iter().map(|c| c.model.clone()).collect();
    m.sort();
    m.dedup();
    m
}

/// Settings that occur in the report, in the paper's order (no empty categories).
fn settings(cells: &[Cell]) -> Vec<Setting> {
    Setting::ALL
        .iter()
        .copied()
        .filter(|s| cells.iter().any(|c| c.setting == *s))
        .collect()
}

/// Answers per cell as "n = a" or "n = a-b" over the cells.
fn n_range(cells: &[Cell]) -> String {
    let lo = cells.iter().map(|c| c.c.len()).min().unwrap_or(0);
    let hi = cells.iter().map(|c| c.c.len()).max().unwrap_or(0);
    if lo == hi {
        format!("n = {lo}")
    } else {
        format!("n = {lo}-{hi}")
    }
}

/// What the error bars of `c_by_setting` are, given the answers per cell.
fn error_bar_note(cells: &[Cell]) -> &'static str {
    let max = cells.iter().map(|c| c.c.len()).max().unwrap_or(0);
    let min = cells.iter().map(|c| c.c.len()).min().unwrap_or(0);
    if max < 2 {
        "n = 1: no error bars (one answer per model and setting)."
    } else if min < 2 {
        "error bars: +-1 standard error of the mean where n >= 2 (none where n = 1)."
    } else {
        "error bars: +-1 standard error of the mean."
    }
}

/// Which parser measured the tables, as a figure says it.
fn parser_note(parser: ParserMode) -> &'static str {
    match parser {
        ParserMode::Reference => {
            "Tables measured by the reference parser (the published evaluator of Xu et al., \
             ACL 2026: numbers comparable with the paper; it counts only dict and block tables \
             and can be fooled by hidden data; --parser robust reads every literal)."
        }
        ParserMode::Robust => {
            "Tables measured by the robust parser (every literal the program runs; hidden data \
             flagged as failed; not the published evaluator, whose numbers --parser reference \
             gives)."
        }
    }
}

/// `c_by_setting.{png,svg}`: mean C(P) per setting, one series per model, +-1 standard error,
/// under `parser`'s tables.
pub fn c_by_setting(cells: &[Cell], stem: &Path, parser: ParserMode) -> Result<Vec<PathBuf>> {
    let settings = settings(cells);
    let series = models(cells)
        .into_iter()
        .enumerate()
        .map(|(mi, m)| Series {
            points: settings
                .iter()
                .enumerate()
                .filter_map(|(si, s)| {
                    let c = cells.iter().find(|c| c.model == m && c.setting == *s)?;
                    let st = Stat::of(&c.c)?;
                    // A standard error needs two answers; one answer gets no bar.
                    let err = if st.n >= 2 {
                        st.std / (st.n as f64).sqrt()
                    } else {
                        0.0
                    };
                    Some(Point {
                        x: si as f64,
                        y: st.mean,
                        err,
                    })
                })
                .collect(),
            label: m,
            reference: false,
            color: mi,
        })
        .collect();
    let figure = Figure {
        panels: vec![Panel {
            title: format!(
                "Compositionality of LLM programs per layout setting ({} parser)",
                parser.name()
            ),
            x_label: "layout setting of the string-to-grid data".into(),
            y_label: "mean C(P) (score, 0-100)".into(),
            x_axis: XAxis::Categories(settings.iter().map(|s| s.name().to_string()).collect()),
            y_log: false,
            // A little room above 100 so points at the maximum are not cut by the frame.
            y_range: Some((-2.0, 102.0)),
            series,
            reference_line: None,
        }],
        caption: format!(
            "Mean C(P) over all answers of a model and setting ({}; failed and empty answers \
             count, scored as the published evaluator does); {} {}",
            n_range(cells),
            error_bar_note(cells),
            parser_note(parser)
        ),
    };
    plot::line_figure(stem, &figure)
}

/// `plane.{png,svg}`: (mean L(P+), mean E(P)) per model x setting over the profile regions,
/// under `parser`'s tables.
pub fn plane(cells: &[Cell], stem: &Path, parser: ParserMode) -> Result<Vec<PathBuf>> {
    let low_table = IDEAL_TABLE * LOW_TABLE_FACTOR;
    let low_errors = LOW_ERRORS as f64;
    let means = |c: &Cell| Some((Stat::of(&c.l_plus)?.mean, Stat::of(&c.errors)?.mean));
    let l_max = cells
        .iter()
        .filter_map(|c| means(c).map(|m| m.0))
        .fold(2.0 * low_table, f64::max)
        * 1.08;
    // The error axis up to the largest mean (at least twice the T1 bound): all 16 samples
    // when errors run high, else room for T1, where good models crowd.
    let e_max = (cells
        .iter()
        .filter_map(|c| means(c).map(|m| m.1))
        .fold(2.0 * low_errors, f64::max)
        * 1.15)
        .ceil()
        .min(SAMPLES);
    let groups = models(cells)
        .into_iter()
        .enumerate()
        .map(|(mi, m)| {
            let points = cells
                .iter()
                .filter(|c| c.model == m)
                .filter_map(|c| {
                    let (x, y) = means(c)?;
                    Some(LabelledPoint {
                        x,
                        y,
                        label: c.setting.name().to_string(),
                    })
                })
                .collect();
            (m, mi, points)
        })
        .collect();
    let region = |x: (f64, f64), y: (f64, f64), label: &str, color| Region {
        x,
        y,
        label: label.into(),
        color,
    };
    let scatter = Scatter {
        title: format!(
            "Table size against errors: profiles T1 / T2 / T3 ({} parser)",
            parser.name()
        ),
        x_label: "mean L(P+) (mapping-table entries)".into(),
        y_label: "mean E(P) (wrong samples of 16)".into(),
        x_range: (0.0, l_max),
        y_range: (0.0, e_max),
        y_integer: true,
        regions: vec![
            region((0.0, low_table), (0.0, low_errors), "T1", 2),
            region((low_table, l_max), (0.0, low_errors), "T2", 0),
            region((0.0, low_table), (low_errors, e_max), "T3", 1),
        ],
        groups,
        caption: format!(
            "One point per model and setting (label: setting), means over its answers ({}). \
             T1: L(P+) <= {low_table} entries (3 x the ideal {IDEAL_TABLE}) and E(P) <= \
             {low_errors}; T2: larger table, E(P) <= {low_errors}; T3: small table, more \
             errors. {}",
            n_range(cells),
            parser_note(parser)
        ),
    };
    plot::scatter(stem, &scatter)
}
