//! The one plotting module: figures drawn once through a generic backend and written as PNG
//! and SVG side by side, with labelled axes, optional log axes, error bars and a legend kept
//! outside the data.
//!
//! - [`line_figure`]: one or more panels of series (mean with error bars) against a parameter
//!   (categories side by side, series dodged so their error bars do not overlap);
//! - [`scatter`]: labelled points over shaded regions, labels placed so they overlap neither
//!   each other nor the points;
//! - [`heatmap`]: a labelled matrix of values in [-1, 1] (rank agreement).
//!
//! Sizes: panels 620 x 470 px (wider for many categories), text 15-20 px; the legend and the
//! caption get as many rows as their text needs, so nothing is clipped.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{KcompError, Result};

/// Draws the same figure into `<stem>.png` and `<stem>.svg` (the body runs once per backend
/// with `$root` and `$path` bound) and evaluates to both paths.
macro_rules! write_both {
    ($stem:expr, $size:expr, |$root:ident, $path:ident| $body:expr) => {{
        let png = $stem.with_extension("png");
        let svg = $stem.with_extension("svg");
        // Each drawn into a temporary file and renamed (io::files::atomic_write_with): a
        // failed or interrupted write never leaves a truncated figure.
        crate::io::files::atomic_write_with(&png, |tmp| {
            let $root = BitMapBackend::new(tmp, $size).into_drawing_area();
            let $path: &Path = &png;
            $body
        })?;
        crate::io::files::atomic_write_with(&svg, |tmp| {
            let $root = SVGBackend::new(tmp, $size).into_drawing_area();
            let $path: &Path = &svg;
            $body
        })?;
        Ok(vec![png, svg])
    }};
}

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
    /// Reference values (e.g. published means), drawn as crosses without a line, instead of
    /// measured ones.
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
    /// Fixed y range (e.g. 0..100 for a score); from the data when `None`.
    pub y_range: Option<(f64, f64)>,
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
const LEGEND_FONT: u32 = 16;
const CAPTION_FONT: u32 = 15;
const CAPTION_LINE: u32 = 19;
const TICK_FONT: u32 = 15;

/// Width in pixels of `text` in the sans-serif font at `size` px, slightly overestimated
/// (DejaVu Sans averages ~0.55 em per character) so that layouts never overlap.
fn text_width(text: &str, size: u32) -> u32 {
    (text.chars().count() as f64 * size as f64 * 0.6).ceil() as u32
}

/// Legend entries flowed left to right in rows of `width` px: (x, row) of each, row count.
fn legend_layout(labels: &[&str], width: u32) -> (Vec<(u32, u32)>, u32) {
    let (mut x, mut row) = (20u32, 0u32);
    let mut at = Vec::with_capacity(labels.len());
    for label in labels {
        let w = 32 + text_width(label, LEGEND_FONT) + 28;
        if x > 20 && x + w > width {
            (x, row) = (20, row + 1);
        }
        at.push((x, row));
        x += w;
    }
    (at, if labels.is_empty() { 0 } else { row + 1 })
}

/// Caption lines for a figure `width` px wide.
fn caption_lines(caption: &str, width: u32) -> Vec<String> {
    let per_char = CAPTION_FONT as f64 * 0.6;
    wrap(
        caption,
        ((width as f64 - 24.0) / per_char).max(20.0) as usize,
    )
}

/// The width a panel needs: wide enough for its category labels side by side.
fn panel_width(panel: &Panel) -> u32 {
    match &panel.x_axis {
        XAxis::Categories(labels) => {
            let widest = labels
                .iter()
                .map(|l| text_width(l, TICK_FONT))
                .max()
                .unwrap_or(0);
            PANEL_W.max(130 + labels.len() as u32 * (widest + 16))
        }
        _ => PANEL_W,
    }
}

/// Legend entries of a figure, every label once in order of appearance:
/// (label, colour index, reference).
fn legend_entries(figure: &Figure) -> Vec<(&str, usize, bool)> {
    let mut entries: Vec<(&str, usize, bool)> = Vec::new();
    for s in figure.panels.iter().flat_map(|p| &p.series) {
        if !entries.iter().any(|e| e.0 == s.label) {
            entries.push((&s.label, s.color, s.reference));
        }
    }
    entries
}

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
        "composition" => "rule composition (semantics)".into(),
        "pos" => "parts of speech T".into(),
        other => other.replace('_', " "),
    }
}

/// Writes `<stem>.png` and `<stem>.svg`; returns both paths.
pub fn line_figure(stem: &Path, figure: &Figure) -> Result<Vec<PathBuf>> {
    let widths: Vec<u32> = figure.panels.iter().map(panel_width).collect();
    let width = widths.iter().sum::<u32>().max(PANEL_W);
    let labels: Vec<&str> = legend_entries(figure).iter().map(|e| e.0).collect();
    let (_, legend_rows) = legend_layout(&labels, width);
    let caption_h = caption_lines(&figure.caption, width).len() as u32 * CAPTION_LINE + 12;
    let layout = Layout {
        widths,
        legend_h: legend_rows * LEGEND_H,
    };
    let size = (width, PANEL_H + layout.legend_h + caption_h);
    write_both!(stem, size, |root, path| draw_lines(
        root, figure, &layout, path
    ))
}

/// Pixel layout of a line figure.
struct Layout {
    widths: Vec<u32>,
    legend_h: u32,
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
        XAxis::Linear { integer: false } => y_tick(x),
    }
}

fn y_tick(y: f64) -> String {
    y_tick_in(y, 0.0)
}

/// A tick label on an axis spanning `span`: enough decimals that ticks about span / 10 apart
/// read differently (a C axis from 1.0075 to 1.0085 must not show 1.008 three times).
fn y_tick_in(y: f64, span: f64) -> String {
    // Tick positions are sums of float steps: a tick meant as 0 can land at -1e-16.
    let a = if y.abs() < 1e-12 * span.max(1.0) {
        0.0
    } else {
        y.abs()
    };
    let y = if a == 0.0 { 0.0 } else { y };
    // Decimals that separate ticks span / 10 apart (0 when the span is unknown).
    let needed = if span > 0.0 && span.is_finite() {
        (-(span / 10.0).log10()).ceil().clamp(0.0, 12.0) as usize
    } else {
        0
    };
    if a != 0.0 && !(1e-3..1e5).contains(&a) && needed <= 3 {
        format!("{y:.0e}")
    } else {
        let decimals = if a >= 100.0 { needed } else { needed.max(3) };
        let text = format!("{y:.decimals$}");
        if decimals == 0 {
            text
        } else {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }
}

/// A title's font size: 20 px, smaller for a long title so it fits `width` px (down to 11).
fn title_font(title: &str, width: u32) -> u32 {
    let chars = title.chars().count().max(1) as f64;
    ((width as f64 - 30.0) / (0.6 * chars))
        .floor()
        .clamp(11.0, 20.0) as u32
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
    layout: &Layout,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    root.fill(&WHITE).map_err(e)?;
    let (plot_area, rest) = root.split_vertically(PANEL_H);
    let (legend_area, caption_area) = rest.split_vertically(layout.legend_h);
    let breaks: Vec<i32> = layout
        .widths
        .iter()
        .scan(0, |x, &w| {
            *x += w as i32;
            Some(*x)
        })
        .collect();
    let inner = &breaks[..breaks.len().saturating_sub(1)];
    let areas = plot_area.split_by_breakpoints(inner, [] as [i32; 0]);
    for (area, panel) in areas.iter().zip(&figure.panels) {
        draw_panel(area, panel, path)?;
    }
    draw_legend(&legend_area, &legend_entries(figure), path)?;
    draw_caption(&caption_area, &figure.caption, path)?;
    root.present().map_err(e)?;
    Ok(())
}

/// The legend under the panels (never over data): a line and marker per measured series, a
/// cross per reference series.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, usize, bool)],
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    let labels: Vec<&str> = entries.iter().map(|e| e.0).collect();
    let (at, _) = legend_layout(&labels, area.dim_in_pixel().0);
    for ((label, color_index, reference), (x, row)) in entries.iter().zip(at) {
        let (x, y) = (x as i32, (row * LEGEND_H) as i32 + 14);
        let col = color(*color_index);
        if *reference {
            area.draw(&Cross::new((x + 13, y), 5, col.stroke_width(2)))
                .map_err(e)?;
        } else {
            area.draw(&PathElement::new(
                vec![(x, y), (x + 26, y)],
                col.stroke_width(3),
            ))
            .map_err(e)?;
            area.draw(&Circle::new((x + 13, y), 4, col.filled()))
                .map_err(e)?;
        }
        area.draw(&Text::new(
            label.to_string(),
            (x + 32, y - 8),
            ("sans-serif", LEGEND_FONT).into_font(),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// The caption, wrapped to the area's width.
fn draw_caption<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    for (i, line) in caption_lines(caption, area.dim_in_pixel().0)
        .into_iter()
        .enumerate()
    {
        area.draw(&Text::new(
            line,
            (12, 4 + (CAPTION_LINE * i as u32) as i32),
            ("sans-serif", CAPTION_FONT)
                .into_font()
                .color(&RGBColor(60, 60, 60)),
        ))
        .map_err(e)?;
    }
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
    let (y0, y1) = panel
        .y_range
        .unwrap_or_else(|| range_of(ys.iter().copied(), y_log));
    let mut builder = ChartBuilder::on(area);
    let (area_w, _) = area.dim_in_pixel();
    builder
        .caption(
            &panel.title,
            ("sans-serif", title_font(&panel.title, area_w)),
        )
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
                .y_label_formatter(&|y| y_tick_in(*y, y1 - y0))
                .label_style(("sans-serif", TICK_FONT))
                .axis_desc_style(("sans-serif", 17))
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()
                .map_err(e)?;
            let n_series = panel.series.len();
            for (si, s) in panel.series.iter().enumerate() {
                let col = color(s.color);
                // Categories: series side by side within each category, never on top of
                // each other.
                let dodge = match panel.x_axis {
                    XAxis::Categories(_) if n_series > 1 => {
                        (si as f64 - (n_series - 1) as f64 / 2.0) * (0.6 / n_series as f64).min(0.2)
                    }
                    _ => 0.0,
                };
                let x_at = |x: f64| x_of(&panel.x_axis, x) + dodge;
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.y.is_finite() && (!y_log || p.y > 0.0))
                    .map(|p| (x_at(p.x), p.y))
                    .collect();
                let style = if s.reference {
                    col.stroke_width(1)
                } else {
                    col.stroke_width(2)
                };
                // Reference values are markers only: a line would interpolate between
                // published points that need not belong to one curve.
                if !s.reference && !matches!(panel.x_axis, XAxis::Categories(_)) {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), style))
                        .map_err(e)?;
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
                                    x_at(p.x),
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

/// A shaded rectangle of a scatter plot with its name in its top-left corner.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub label: String,
    /// Palette index of the (light) fill.
    pub color: usize,
}

/// A point of a scatter plot with the text written beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledPoint {
    pub x: f64,
    pub y: f64,
    pub label: String,
}

/// A scatter plot: groups of labelled points (one colour and legend entry per group) over
/// shaded regions.
#[derive(Debug, Clone, PartialEq)]
pub struct Scatter {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    /// Integer ticks on the y axis (counts).
    pub y_integer: bool,
    pub regions: Vec<Region>,
    /// (legend label, colour index, points).
    pub groups: Vec<(String, usize, Vec<LabelledPoint>)>,
    pub caption: String,
}

/// Writes a scatter plot as `<stem>.png` and `<stem>.svg`.
pub fn scatter(stem: &Path, plot: &Scatter) -> Result<Vec<PathBuf>> {
    let width = 820u32;
    let labels: Vec<&str> = plot.groups.iter().map(|g| g.0.as_str()).collect();
    let (_, legend_rows) = legend_layout(&labels, width);
    let caption_h = caption_lines(&plot.caption, width).len() as u32 * CAPTION_LINE + 12;
    let legend_h = legend_rows * LEGEND_H;
    let size = (width, 560 + legend_h + caption_h);
    write_both!(stem, size, |root, path| draw_scatter(
        root, plot, legend_h, path
    ))
}

/// Text boxes (x0, y0, x1, y1) in pixels.
type PixelBox = (i32, i32, i32, i32);

fn overlaps(a: PixelBox, b: PixelBox) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Where to write a label of `w` x `h` px for the point at `p`: the first candidate position
/// around it (then further out, with a leader line) inside `bounds` that overlaps no placed
/// label and no point marker. Returns the text's top-left corner and whether it is far from
/// the point (draw a leader line).
fn place_label(
    p: (i32, i32),
    (w, h): (i32, i32),
    bounds: PixelBox,
    taken: &[PixelBox],
) -> ((i32, i32), bool) {
    let mut first_inside = None;
    for ring in 1..=6 {
        let r = 7 * ring;
        let candidates = [
            (p.0 + r, p.1 - h - r / 2),
            (p.0 + r, p.1 + r / 2),
            (p.0 - r - w, p.1 - h - r / 2),
            (p.0 - r - w, p.1 + r / 2),
            (p.0 - w / 2, p.1 - h - r),
            (p.0 - w / 2, p.1 + r),
            (p.0 + r, p.1 - h / 2),
            (p.0 - r - w, p.1 - h / 2),
        ];
        for (x, y) in candidates {
            let b = (x, y, x + w, y + h);
            let inside = b.0 >= bounds.0 && b.1 >= bounds.1 && b.2 <= bounds.2 && b.3 <= bounds.3;
            if !inside {
                continue;
            }
            first_inside.get_or_insert((x, y));
            if !taken.iter().any(|t| overlaps(*t, b)) {
                return ((x, y), ring > 2);
            }
        }
    }
    (first_inside.unwrap_or((p.0 + 7, p.1 - h)), false)
}

fn draw_scatter<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    plot: &Scatter,
    legend_h: u32,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    root.fill(&WHITE).map_err(e)?;
    let (plot_area, rest) = root.split_vertically(560);
    let (legend_area, caption_area) = rest.split_vertically(legend_h);
    let (x0, x1) = plot.x_range;
    let (y0, y1) = plot.y_range;
    let (area_w, _) = plot_area.dim_in_pixel();
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(&plot.title, ("sans-serif", title_font(&plot.title, area_w)))
        .margin(14)
        .margin_right(24)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    let y_ticks = if plot.y_integer {
        ((y1 - y0).round() as usize + 1).clamp(2, 17)
    } else {
        10
    };
    let integer = plot.y_integer;
    chart
        .configure_mesh()
        .x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
        .y_labels(y_ticks)
        .x_label_formatter(&|x| y_tick_in(*x, x1 - x0))
        .y_label_formatter(&|y| {
            if integer && (y - y.round()).abs() > 1e-6 {
                String::new()
            } else {
                y_tick_in(*y, y1 - y0)
            }
        })
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(e)?;
    for r in &plot.regions {
        let fill = color(r.color).mix(0.12);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(r.x.0, r.y.0), (r.x.1, r.y.1)],
                fill.filled(),
            )))
            .map_err(e)?;
    }
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let bounds = (xr.start + 2, yr.start + 2, xr.end - 2, yr.end - 2);
    // Region names first (top-left inside corner), so point labels avoid them.
    let mut taken: Vec<PixelBox> = Vec::new();
    for r in &plot.regions {
        let (px, py) = chart.backend_coord(&(r.x.0.max(x0), r.y.1.min(y1)));
        let (w, h) = (text_width(&r.label, 18) as i32, 20);
        let at = (px + 6, py + 4);
        taken.push((at.0, at.1, at.0 + w, at.1 + h));
        root.draw(&Text::new(
            r.label.clone(),
            at,
            ("sans-serif", 18).into_font().color(&RGBColor(80, 80, 80)),
        ))
        .map_err(e)?;
    }
    let font = ("sans-serif", 14).into_font();
    let markers: Vec<(i32, i32)> = plot
        .groups
        .iter()
        .flat_map(|g| g.2.iter().map(|p| chart.backend_coord(&(p.x, p.y))))
        .collect();
    taken.extend(markers.iter().map(|&(x, y)| (x - 6, y - 6, x + 6, y + 6)));
    for (_, col_index, points) in &plot.groups {
        let col = color(*col_index);
        // Points of a group drawn on the same spot share one label ("h, v, b").
        let mut spots: Vec<((i32, i32), String)> = Vec::new();
        for p in points {
            let at = chart.backend_coord(&(p.x, p.y));
            match spots
                .iter_mut()
                .find(|(q, _)| (q.0 - at.0).abs() <= 2 && (q.1 - at.1).abs() <= 2)
            {
                Some((_, label)) => {
                    label.push_str(", ");
                    label.push_str(&p.label);
                }
                None => spots.push((at, p.label.clone())),
            }
        }
        for (at, label) in spots {
            root.draw(&Circle::new(at, 5, col.filled())).map_err(e)?;
            let size = (text_width(&label, 14) as i32, 16);
            let ((x, y), far) = place_label(at, size, bounds, &taken);
            taken.push((x, y, x + size.0, y + size.1));
            if far {
                let anchor = (x.clamp(at.0.min(x), x + size.0), y + size.1 / 2);
                root.draw(&PathElement::new(vec![at, anchor], col.mix(0.6)))
                    .map_err(e)?;
            }
            root.draw(&Text::new(label, (x, y), font.clone().color(&col)))
                .map_err(e)?;
        }
    }
    let entries: Vec<(&str, usize, bool)> = plot
        .groups
        .iter()
        .map(|g| (g.0.as_str(), g.1, false))
        .collect();
    draw_legend(&legend_area, &entries, path)?;
    draw_caption(&caption_area, &plot.caption, path)?;
    root.present().map_err(e)?;
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
    crate::io::files::atomic_write_with(&png, |tmp| {
        draw_heatmap(
            BitMapBackend::new(tmp, size).into_drawing_area(),
            title,
            labels,
            values,
            caption,
            cell,
            &png,
        )
    })?;
    crate::io::files::atomic_write_with(&svg, |tmp| {
        draw_heatmap(
            SVGBackend::new(tmp, size).into_drawing_area(),
            title,
            labels,
            values,
            caption,
            cell,
            &svg,
        )
    })?;
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
