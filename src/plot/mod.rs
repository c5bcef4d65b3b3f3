//! The one plotting module: figures drawn once through a generic backend and written as PNG
//! and SVG side by side, with labelled axes, optional log axes, error bars and a legend kept
//! outside the data.
//!
//! - [`line_figure`]: one or more panels of series (mean with error bars) against a parameter;
//! - [`heatmap`]: a labelled matrix of values in [-1, 1] (rank agreement).

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{KcompError, Result};

/// One point of a series: x, mean, and the half-width of its error bar (0 for none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub err: f64,
}

/// A labelled series of points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<Point>,
    /// Dashed reference values (e.g. published means) instead of measured ones.
    pub reference: bool,
    /// Palette index: the same label keeps the same colour in every panel of a figure.
    pub color: usize,
}

/// How the x axis is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// Linear; integer ticks when `integer`.
    Linear { integer: bool },
    /// Base-2 logarithmic, for parameters that double.
    Log2,
    /// Categories at 0, 1, 2, ... with these labels.
    Categories(Vec<String>),
}

/// One panel of a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_axis: XAxis,
    /// Base-10 logarithmic y axis when the values span more than a decade (the axis label then
    /// says so); linear otherwise.
    pub y_log: bool,
    pub series: Vec<Series>,
}

/// A figure: panels side by side and a caption under them (what error bars mean, n).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub panels: Vec<Panel>,
    pub caption: String,
}

fn plot_err(path: &Path, e: impl std::fmt::Display) -> KcompError {
    KcompError::file(path, format!("drawing plot: {e}"))
}

/// Colour-blind-safe palette (Okabe-Ito), then Paul Tol's muted scheme for panels with more
/// than eight series (the metric zoo has 17).
const PALETTE: [RGBColor; 16] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
    RGBColor(51, 34, 136),
    RGBColor(136, 34, 85),
    RGBColor(68, 170, 153),
    RGBColor(153, 153, 51),
    RGBColor(204, 102, 119),
    RGBColor(136, 204, 238),
    RGBColor(170, 68, 153),
    RGBColor(17, 119, 51),
];

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const PANEL_W: u32 = 620;
const PANEL_H: u32 = 470;
const LEGEND_H: u32 = 28;
const CAPTION_H: u32 = 40;

/// Chooses the x axis from the values: log2 when they double, integer ticks for integers,
/// categories otherwise.
pub fn x_axis_for(values: &[String]) -> (XAxis, Vec<f64>) {
    let numeric: Option<Vec<f64>> = values.iter().map(|v| v.parse::<f64>().ok()).collect();
    match numeric {
        Some(xs) => {
            let doubling = xs.len() >= 3
                && xs.iter().all(|&x| x > 0.0)
                && xs.windows(2).all(|w| (w[1] / w[0] - 2.0).abs() < 1e-9);
            if doubling {
                (XAxis::Log2, xs)
            } else {
                let integer = xs.iter().all(|x| x.fract() == 0.0);
                (XAxis::Linear { integer }, xs)
            }
        }
        None => (
            XAxis::Categories(values.to_vec()),
            (0..values.len()).map(|i| i as f64).collect(),
        ),
    }
}

/// A readable axis name for a generator parameter.
pub fn parameter_label(parameter: &str) -> String {
    match parameter {
        "holistic_fraction" => "holistic fraction h".into(),
        "length" => "sentence length M (words)".into(),
        "vocab" => "vocabulary size K".into(),
        "dim" => "representation dimension D".into(),
        "ngram" => "n-gram size q".into(),
        "width" => "non-terminals per level".into(),
        "depth" => "grammar depth (levels)".into(),
        "samples" => "samples N".into(),
        "setting" => "layout setting".into(),
        other => other.replace('_', " "),
    }
}

/// Writes `<stem>.png` and `<stem>.svg`; returns both paths.
pub fn line_figure(stem: &Path, figure: &Figure) -> Result<Vec<PathBuf>> {
    let mut labels: Vec<&str> = figure
        .panels
        .iter()
        .flat_map(|p| p.series.iter().map(|s| s.label.as_str()))
        .collect();
    labels.sort_unstable();
    labels.dedup();
    let n_series = labels.len() as u32;
    let legend_rows = n_series.div_ceil(4).max(1);
    let size = (
        PANEL_W * figure.panels.len().max(1) as u32,
        PANEL_H + legend_rows * LEGEND_H + CAPTION_H,
    );
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw_lines(root, figure, legend_rows, &png)?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw_lines(root, figure, legend_rows, &svg)?;
    }
    Ok(vec![png, svg])
}

fn range_of(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (0.1, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        let (l, h) = (lo.log10(), hi.log10());
        let pad = ((h - l) * 0.08).max(0.1);
        (10f64.powf(l - pad), 10f64.powf(h + pad))
    } else {
        let pad = if hi > lo {
            0.08 * (hi - lo)
        } else {
            0.05 * hi.abs().max(1e-3)
        };
        (lo - pad, hi + pad)
    }
}

fn x_of(axis: &XAxis, x: f64) -> f64 {
    match axis {
        XAxis::Log2 => x.log2(),
        _ => x,
    }
}

fn tick_label(axis: &XAxis, x: f64) -> String {
    match axis {
        XAxis::Log2 => {
            let v = 2f64.powf(x);
            if (v - v.round()).abs() < 1e-6 {
                format!("{}", v.round())
            } else {
                String::new()
            }
        }
        XAxis::Categories(labels) => {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[i as usize].clone()
            } else {
                String::new()
            }
        }
        XAxis::Linear { integer: true } => {
            if (x - x.round()).abs() < 1e-6 {
                format!("{}", x.round())
            } else {
                String::new()
            }
        }
        XAxis::Linear { integer: false } => format!("{x:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string(),
    }
}

fn y_tick(y: f64) -> String {
    // Tick positions are sums of float steps: a tick meant as 0 can land at -1e-16.
    let a = if y.abs() < 1e-12 { 0.0 } else { y.abs() };
    let y = if a == 0.0 { 0.0 } else { y };
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{y:.0e}")
    } else if a >= 100.0 {
        format!("{y:.0}")
    } else {
        format!("{y:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Splits `text` into lines of at most `max_chars` characters at spaces.
fn wrap(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.len() + 1 + word.len() > max_chars {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

fn draw_lines<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    figure: &Figure,
    legend_rows: u32,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    root.fill(&WHITE).map_err(e)?;
    let (plot_area, rest) = root.split_vertically(PANEL_H);
    let (legend_area, caption_area) = rest.split_vertically(legend_rows * LEGEND_H);
    let areas = plot_area.split_evenly((1, figure.panels.len().max(1)));
    for (area, panel) in areas.iter().zip(&figure.panels) {
        draw_panel(area, panel, path)?;
    }
    // Legend under the panels, never over data: every label once, in order of appearance.
    let mut entries: Vec<(&str, usize, bool)> = Vec::new();
    for s in figure.panels.iter().flat_map(|p| &p.series) {
        if !entries.iter().any(|e| e.0 == s.label) {
            entries.push((&s.label, s.color, s.reference));
        }
    }
    let width = root.dim_in_pixel().0 as i32;
    let per_row = 4;
    let cell = width / per_row;
    for (i, (label, color_index, reference)) in entries.iter().enumerate() {
        let (r, c) = ((i as i32) / per_row, (i as i32) % per_row);
        let (x, y) = (c * cell + 30, r * LEGEND_H as i32 + 14);
        let col = color(*color_index);
        if *reference {
            legend_area
                .draw(&Cross::new((x + 13, y), 5, col.stroke_width(2)))
                .map_err(e)?;
        } else {
            legend_area
                .draw(&PathElement::new(
                    vec![(x, y), (x + 26, y)],
                    col.stroke_width(3),
                ))
                .map_err(e)?;
            legend_area
                .draw(&Circle::new((x + 13, y), 4, col.filled()))
                .map_err(e)?;
        }
        legend_area
            .draw(&Text::new(
                label.to_string(),
                (x + 32, y - 8),
                ("sans-serif", 16).into_font(),
            ))
            .map_err(e)?;
    }
    let max_chars = (root.dim_in_pixel().0 as usize / 8).max(20);
    for (i, line) in wrap(&figure.caption, max_chars).iter().enumerate() {
        caption_area
            .draw(&Text::new(
                line.clone(),
                (12, 4 + 18 * i as i32),
                ("sans-serif", 15).into_font().color(&RGBColor(60, 60, 60)),
            ))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    let xs = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| x_of(&panel.x_axis, p.x)));
    let (mut x0, mut x1) = range_of(xs, false);
    if let XAxis::Categories(l) = &panel.x_axis {
        (x0, x1) = (-0.5, l.len() as f64 - 0.5);
    }
    let ys = panel.series.iter().flat_map(|s| {
        s.points
            .iter()
            .flat_map(|p| [p.y - p.err, p.y + p.err, p.y])
            .collect::<Vec<_>>()
    });
    let ys: Vec<f64> = ys.collect();
    let positive = || ys.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let span =
        positive().fold(f64::NEG_INFINITY, f64::max) / positive().fold(f64::INFINITY, f64::min);
    // A log axis within one decade gets no tick labels: stay linear there.
    let y_log = panel.y_log && span > 10.0;
    let (y0, y1) = range_of(ys.iter().copied(), y_log);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(50)
        .y_label_area_size(80);
    let x_labels = match &panel.x_axis {
        XAxis::Categories(l) => l.len() * 2 + 1,
        XAxis::Log2 => ((x1 - x0).round() as usize * 2 + 1).clamp(2, 13),
        XAxis::Linear { integer: true } => ((x1 - x0).round() as usize + 1).clamp(2, 11),
        XAxis::Linear { integer: false } => 8,
    };
    let y_label = if y_log {
        format!("{}, log scale", panel.y_label)
    } else {
        panel.y_label.clone()
    };
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(panel.x_label.as_str())
                .y_desc(y_label.as_str())
                .x_labels(x_labels)
                .x_label_formatter(&|x| tick_label(&panel.x_axis, *x))
                .y_label_formatter(&|y| y_tick(*y))
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()
                .map_err(e)?;
            for s in &panel.series {
                let col = color(s.color);
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.y.is_finite() && (!y_log || p.y > 0.0))
                    .map(|p| (x_of(&panel.x_axis, p.x), p.y))
                    .collect();
                let style = if s.reference {
                    col.stroke_width(1)
                } else {
                    col.stroke_width(2)
                };
                if !matches!(panel.x_axis, XAxis::Categories(_)) {
                    if s.reference {
                        chart
                            .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))
                            .map_err(e)?;
                    } else {
                        chart
                            .draw_series(LineSeries::new(pts.clone(), style))
                            .map_err(e)?;
                    }
                }
                chart
                    .draw_series(
                        s.points
                            .iter()
                            .filter(|p| p.err > 0.0 && p.y.is_finite())
                            .map(|p| {
                                let lo = if y_log {
                                    (p.y - p.err).max(p.y * 1e-3)
                                } else {
                                    p.y - p.err
                                };
                                ErrorBar::new_vertical(
                                    x_of(&panel.x_axis, p.x),
                                    lo,
                                    p.y,
                                    p.y + p.err,
                                    col.stroke_width(1),
                                    8,
                                )
                            }),
                    )
                    .map_err(e)?;
                if s.reference {
                    chart
                        .draw_series(
                            pts.iter()
                                .map(|&(x, y)| Cross::new((x, y), 5, col.stroke_width(2))),
                        )
                        .map_err(e)?;
                } else {
                    chart
                        .draw_series(
                            pts.iter()
                                .map(|&(x, y)| Circle::new((x, y), 4, col.filled())),
                        )
                        .map_err(e)?;
                }
            }
        }};
    }
    if y_log {
        finish!(
            builder
                .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
                .map_err(e)?
        );
    } else {
        finish!(builder.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?);
    }
    Ok(())
}

/// Writes a labelled heat map of `values` (rows x columns, in [-1, 1]; `None` cells grey) as
/// `<stem>.png` and `<stem>.svg`.
pub fn heatmap(
    stem: &Path,
    title: &str,
    labels: &[String],
    values: &[Vec<Option<f64>>],
    caption: &str,
) -> Result<Vec<PathBuf>> {
    let n = labels.len() as u32;
    let cell = 70u32;
    let text_w = 9 * title.len().max(caption.len()) as u32 + 30;
    let size = ((170 + n * cell + 120).max(text_w), 150 + n * cell + 70);
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    draw_heatmap(
        BitMapBackend::new(&png, size).into_drawing_area(),
        title,
        labels,
        values,
        caption,
        cell,
        &png,
    )?;
    draw_heatmap(
        SVGBackend::new(&svg, size).into_drawing_area(),
        title,
        labels,
        values,
        caption,
        cell,
        &svg,
    )?;
    Ok(vec![png, svg])
}

/// Diverging blue-white-red colour for v in [-1, 1].
fn diverging(v: f64) -> RGBColor {
    let v = v.clamp(-1.0, 1.0);
    let mix = |a: u8, b: u8, t: f64| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    if v >= 0.0 {
        RGBColor(mix(255, 33, v), mix(255, 102, v), mix(255, 172, v))
    } else {
        RGBColor(mix(255, 178, -v), mix(255, 24, -v), mix(255, 43, -v))
    }
}

fn draw_heatmap<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    labels: &[String],
    values: &[Vec<Option<f64>>],
    caption: &str,
    cell: u32,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    root.fill(&WHITE).map_err(e)?;
    let (left, top) = (170i32, 150i32);
    let c = cell as i32;
    root.draw(&Text::new(
        title.to_string(),
        (12, 12),
        ("sans-serif", 20).into_font(),
    ))
    .map_err(e)?;
    for (i, label) in labels.iter().enumerate() {
        let style = ("sans-serif", 15).into_font();
        root.draw(&Text::new(
            label.clone(),
            (8, top + i as i32 * c + c / 2 - 8),
            style.clone(),
        ))
        .map_err(e)?;
        // Column labels rotated so long names do not overlap.
        root.draw(&Text::new(
            label.clone(),
            (left + i as i32 * c + c / 2 - 8, top - 8),
            style.transform(FontTransform::Rotate270),
        ))
        .map_err(e)?;
        for (j, v) in values[i].iter().enumerate() {
            let (x, y) = (left + j as i32 * c, top + i as i32 * c);
            let fill = v.map_or(RGBColor(200, 200, 200), diverging);
            root.draw(&Rectangle::new(
                [(x, y), (x + c - 2, y + c - 2)],
                fill.filled(),
            ))
            .map_err(e)?;
            let text = v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"));
            let ink = if v.is_some_and(|v| v.abs() > 0.6) {
                WHITE
            } else {
                BLACK
            };
            root.draw(&Text::new(
                text,
                (x + c / 2 - 16, y + c / 2 - 8),
                ("sans-serif", 15).into_font().color(&ink),
            ))
            .map_err(e)?;
        }
    }
    let bottom = top + labels.len() as i32 * c + 20;
    root.draw(&Text::new(
        caption.to_string(),
        (12, bottom),
        ("sans-serif", 15).into_font().color(&RGBColor(60, 60, 60)),
    ))
    .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}
