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
//! Sizes: panels 620 x 470 px (up to 760 px for many categories, whose labels then wrap), at
//! most three panels per row, text 15-20 px; titles, the legend and the caption get as many rows
//! as their text needs, so nothing is clipped. Series differ by marker shape and line style as
//! well as colour (17 estimators share 16 colours). A C plot carries a dashed C = 1 line.

pub mod overlay;

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
    /// A dashed horizontal line, explained in the legend (C = 1 in every C plot).
    pub reference_line: Option<RefLine>,
}

/// A horizontal reference line.
#[derive(Debug, Clone, PartialEq)]
pub struct RefLine {
    pub y: f64,
    pub label: String,
}

impl RefLine {
    /// C = 1: W does not shorten the code of Z (no compositional structure found).
    pub fn c_one() -> Self {
        RefLine {
            y: 1.0,
            label: "C = 1: W does not shorten the code of Z".into(),
        }
    }
}

/// Gives every panel the same y range, over all their points, error bars and reference lines
/// (side-by-side panels of the same quantity are compared by eye).
pub fn share_y_range(panels: &mut [Panel]) {
    let ys: Vec<f64> = panels.iter().flat_map(panel_ys).collect();
    let log = panels.iter().all(|p| p.y_log) && log_worthwhile(&ys);
    let range = range_of(ys.into_iter(), log);
    for p in panels {
        p.y_range = Some(range);
    }
}

/// [`share_y_range`] unless a panel's own values would fill less than a tenth of the shared
/// range (per-sample C within 0.02 of 1 beside totals up to 2.7: shared, its trend and the
/// published crosses vanish into a flat line). Returns whether the range is shared, for the
/// caption to say so.
pub fn share_y_range_if_readable(panels: &mut [Panel]) -> bool {
    let span = |ys: &[f64]| {
        let finite = ys.iter().copied().filter(|y| y.is_finite());
        let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        if hi >= lo { hi - lo } else { 0.0 }
    };
    let all: Vec<f64> = panels.iter().flat_map(panel_ys).collect();
    let shared = span(&all);
    if panels.iter().any(|p| span(&panel_ys(p)) < 0.1 * shared) {
        return false;
    }
    share_y_range(panels);
    true
}

/// The y values a panel must show: points, error bar ends, the reference line.
fn panel_ys(panel: &Panel) -> Vec<f64> {
    panel
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .flat_map(|p| [p.y - p.err, p.y + p.err, p.y])
        })
        .chain(panel.reference_line.as_ref().map(|r| r.y))
        .collect()
}

/// A log axis within one decade gets no tick labels: stay linear there.
fn log_worthwhile(ys: &[f64]) -> bool {
    let positive = || ys.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    positive().fold(f64::NEG_INFINITY, f64::max) / positive().fold(f64::INFINITY, f64::min) > 10.0
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
const RULE_GREY: RGBColor = RGBColor(90, 90, 90);
/// The widest panel: more categories wrap their labels instead of widening the figure.
const PANEL_MAX_W: u32 = 760;
/// Panels per row of a figure.
const COLUMNS: usize = 3;
/// Marker shapes (filled circle, square, triangle, diamond, open circle, open square, inverted
/// triangle): 7, coprime with the 16 colours, so no two of 17 series look alike.
const SHAPES: usize = 7;
/// Series with more points are drawn with thin lines and small markers (99 sweep values).
const DENSE: usize = 25;
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
            PANEL_W
                .max(130 + labels.len() as u32 * (widest + 16))
                .min(PANEL_MAX_W)
        }
        _ => PANEL_W,
    }
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Look {
    /// Line (style by colour index) and marker.
    Measured,
    /// Markers only (a scatter group).
    Marker,
    /// A cross (few reference values).
    Cross,
    /// A dashed line (many reference values, e.g. a naive code per chunk).
    Dashed,
    /// A grey dashed horizontal reference line (C = 1).
    Rule,
}

/// Legend entries of a figure, every label once in order of appearance:
/// (label, colour index, look).
fn legend_entries(figure: &Figure) -> Vec<(&str, usize, Look)> {
    let mut entries: Vec<(&str, usize, Look)> = Vec::new();
    for s in figure.panels.iter().flat_map(|p| &p.series) {
        if !entries.iter().any(|e| e.0 == s.label) {
            entries.push((&s.label, s.color, look_of(s)));
        }
    }
    // Reference lines are explained in the legend, not over the data.
    for r in figure
        .panels
        .iter()
        .filter_map(|p| p.reference_line.as_ref())
    {
        if !entries.iter().any(|e| e.0 == r.label) {
            entries.push((&r.label, 0, Look::Rule));
        }
    }
    entries
}

fn look_of(s: &Series) -> Look {
    match (s.reference, s.points.len() > DENSE / 2) {
        (false, _) => Look::Measured,
        (true, false) => Look::Cross,
        (true, true) => Look::Dashed,
    }
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
    let rows = grid_rows(&figure.panels);
    let width = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|&i| panel_width(&figure.panels[i]))
                .sum::<u32>()
        })
        .max()
        .unwrap_or(0)
        .max(PANEL_W);
    let labels: Vec<&str> = legend_entries(figure).iter().map(|e| e.0).collect();
    let (_, legend_rows) = legend_layout(&labels, width);
    let caption_h = caption_lines(&figure.caption, width).len() as u32 * CAPTION_LINE + 12;
    let layout = Layout {
        rows,
        legend_h: legend_rows * LEGEND_H,
    };
    let panels_h = layout.rows.len().max(1) as u32 * PANEL_H;
    let size = (width, panels_h + layout.legend_h + caption_h);
    write_both!(stem, size, |root, path| draw_lines(
        root, figure, &layout, path
    ))
}

/// Panel indices per row: at most [`COLUMNS`] panels side by side (four as two by two).
fn grid_rows(panels: &[Panel]) -> Vec<Vec<usize>> {
    let columns = if panels.len() == 4 { 2 } else { COLUMNS };
    (0..panels.len())
        .collect::<Vec<_>>()
        .chunks(columns)
        .map(<[usize]>::to_vec)
        .collect()
}

/// Pixel layout of a line figure.
struct Layout {
    rows: Vec<Vec<usize>>,
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
        let lo = 10f64.powf(l - pad);
        // plotters labels a log axis from the first power of ten inside it: values well below
        // that one (0.4 under a first label of 1) would sit under an axis without labels, so
        // the axis then starts at the power of ten below (labels 0.1, 0.2, 0.5).
        let first = 10f64.powf((l - pad).ceil());
        // (A hair below it: plotters starts at the power of ten above its ceil'd logarithm.)
        let lo = if lo < first / 1.9 {
            first / 10.0 * (1.0 - 1e-9)
        } else {
            lo
        };
        (lo, 10f64.powf(h + pad))
    } else {
        // One value (or all equal): a range of +-5 % of it, at least +-0.05, so a single 0 is
        // not drawn on an axis of +-0.00004 that suggests a precision it does not have.
        let pad = if hi > lo {
            0.08 * (hi - lo)
        } else {
            0.05 * hi.abs().max(1.0)
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
    let (plot_area, rest) = root.split_vertically(layout.rows.len().max(1) as u32 * PANEL_H);
    let (legend_area, caption_area) = rest.split_vertically(layout.legend_h);
    let row_breaks: Vec<i32> = (1..layout.rows.len())
        .map(|r| (r as u32 * PANEL_H) as i32)
        .collect();
    let row_areas = plot_area.split_by_breakpoints([] as [i32; 0], &row_breaks);
    for (row_area, row) in row_areas.iter().zip(&layout.rows) {
        let breaks: Vec<i32> = row
            .iter()
            .scan(0, |x, &i| {
                *x += panel_width(&figure.panels[i]) as i32;
                Some(*x)
            })
            .collect();
        // Every break, the row's end included: a short last row keeps panel-sized panels
        // (the remainder stays empty).
        let areas = row_area.split_by_breakpoints(&breaks, [] as [i32; 0]);
        for (area, &i) in areas.iter().zip(row) {
            draw_panel(area, &figure.panels[i], path)?;
        }
    }
    draw_legend(&legend_area, &legend_entries(figure), path)?;
    draw_caption(&caption_area, &figure.caption, path)?;
    root.present().map_err(e)?;
    Ok(())
}

/// Draws marker `shape` (see [`SHAPES`]) of radius `r` px at `at`.
fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    shape: usize,
    r: i32,
    col: RGBColor,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    CT::From: Clone,
{
    let fill = col.filled();
    let open = col.stroke_width(2);
    let e = || EmptyElement::<CT::From, DB>::at(at.clone());
    let t = r + 1;
    match shape % SHAPES {
        0 => area.draw(&(e() + Circle::new((0, 0), r, fill))),
        1 => area.draw(&(e() + Rectangle::new([(-r, -r), (r, r)], fill))),
        2 => area.draw(&(e() + Polygon::new(vec![(0, -t), (t, r), (-t, r)], fill))),
        3 => area.draw(&(e() + Polygon::new(vec![(0, -t), (t, 0), (0, t), (-t, 0)], fill))),
        4 => area.draw(&(e() + Circle::new((0, 0), r, open))),
        5 => area.draw(&(e() + Rectangle::new([(-r, -r), (r, r)], open))),
        _ => area.draw(&(e() + Polygon::new(vec![(0, t), (t, -r), (-t, -r)], fill))),
    }
}

/// Line style of series colour index `i`: solid, dashed, dotted in turn (told apart without
/// colour).
fn dash_of(i: usize) -> Option<(i32, i32)> {
    match i % 3 {
        0 => None,
        1 => Some((9, 5)),
        _ => Some((3, 4)),
    }
}

/// The legend under the panels (never over data): a line and marker per measured series, a
/// marker per scatter group, a cross or dashed line per reference series.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, usize, Look)],
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    let labels: Vec<&str> = entries.iter().map(|e| e.0).collect();
    let (at, _) = legend_layout(&labels, area.dim_in_pixel().0);
    for ((label, ci, look), (x, row)) in entries.iter().zip(at) {
        let (x, y) = (x as i32, (row * LEGEND_H) as i32 + 14);
        let col = color(*ci);
        let line = vec![(x, y), (x + 26, y)];
        match look {
            Look::Cross => area
                .draw(&Cross::new((x + 13, y), 5, col.stroke_width(2)))
                .map_err(e)?,
            Look::Dashed => area
                .draw(&DashedPathElement::new(line, 6, 4, col.stroke_width(2)))
                .map_err(e)?,
            Look::Rule => area
                .draw(&DashedPathElement::new(
                    line,
                    8,
                    5,
                    RULE_GREY.stroke_width(1),
                ))
                .map_err(e)?,
            Look::Marker => draw_marker(area, (x + 13, y), *ci, 5, col).map_err(e)?,
            Look::Measured => {
                match dash_of(*ci) {
                    None => area.draw(&PathElement::new(line, col.stroke_width(2))),
                    Some((d, g)) => {
                        area.draw(&DashedPathElement::new(line, d, g, col.stroke_width(2)))
                    }
                }
                .map_err(e)?;
                draw_marker(area, (x + 13, y), *ci, 5, col).map_err(e)?;
            }
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

/// `label` the first time, empty after (`seen` holds the labels given so far).
fn once(seen: &std::cell::RefCell<Vec<String>>, label: String) -> String {
    if label.is_empty() {
        return label;
    }
    let mut seen = seen.borrow_mut();
    if seen.contains(&label) {
        String::new()
    } else {
        seen.push(label.clone());
        label
    }
}

/// Whether `v` is 1, 2 or 5 times a power of ten.
fn one_two_five(v: f64) -> bool {
    if v <= 0.0 || !v.is_finite() {
        return false;
    }
    let m = v / 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|t| (m - t).abs() < 1e-6 * t)
}

/// Title lines of a panel `width` px wide and their font size: 18 px on up to two lines, else
/// 15 px (wrapped, never clipped or shrunk to illegibility).
fn title_layout(title: &str, width: u32) -> (Vec<String>, u32) {
    for size in [18u32, 15] {
        let max_chars = ((width as f64 - 24.0) / (0.6 * size as f64)).max(10.0) as usize;
        let lines = wrap(title, max_chars);
        if lines.len() <= 2 || size == 15 {
            return (lines, size);
        }
    }
    unreachable!("the loop returns at 15 px")
}

/// Splits a category label into lines of at most `max_chars` characters after '-', '_' or
/// spaces (`h-index-shuffle` -> `h-index-`, `shuffle`).
fn wrap_category(label: &str, max_chars: usize) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    let mut cur = String::new();
    for ch in label.chars() {
        cur.push(ch);
        if matches!(ch, '-' | '_' | ' ') {
            pieces.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        pieces.push(cur);
    }
    let mut lines: Vec<String> = vec![String::new()];
    for p in pieces {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.chars().count() + p.chars().count() > max_chars {
            lines.push(p);
        } else {
            last.push_str(&p);
        }
    }
    lines.into_iter().map(|l| l.trim().to_string()).collect()
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    let (area_w, _) = area.dim_in_pixel();
    let (title_lines, title_size) = title_layout(&panel.title, area_w);
    let line_h = title_size as i32 + 5;
    let title_h = (title_lines.len() as i32 * line_h + 14) as u32;
    let (title_area, chart_area) = area.split_vertically(title_h);
    for (i, line) in title_lines.iter().enumerate() {
        title_area
            .draw(&Text::new(
                line.clone(),
                ((area_w / 2) as i32, 10 + i as i32 * line_h),
                ("sans-serif", title_size)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(e)?;
    }
    let xs = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| x_of(&panel.x_axis, p.x)));
    let (mut x0, mut x1) = range_of(xs, false);
    // Category labels wrap to the room of one category.
    let mut category_lines: Vec<Vec<String>> = Vec::new();
    if let XAxis::Categories(l) = &panel.x_axis {
        (x0, x1) = (-0.5, l.len() as f64 - 0.5);
        let room = (area_w as f64 - 110.0) / l.len().max(1) as f64 - 8.0;
        let max_chars = (room / (0.6 * TICK_FONT as f64)).max(3.0) as usize;
        category_lines = l.iter().map(|c| wrap_category(c, max_chars)).collect();
    }
    let label_lines = category_lines
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(1)
        .max(1) as u32;
    let ys = panel_ys(panel);
    let y_log = panel.y_log && log_worthwhile(&ys);
    let (y0, y1) = panel
        .y_range
        .unwrap_or_else(|| range_of(ys.iter().copied(), y_log));
    let mut builder = ChartBuilder::on(&chart_area);
    builder
        .margin(14)
        .margin_top(4)
        .x_label_area_size(32 + 18 * label_lines)
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
    let x_label = if matches!(panel.x_axis, XAxis::Log2) {
        format!("{}, log scale", panel.x_label)
    } else {
        panel.x_label.clone()
    };
    let categories = matches!(panel.x_axis, XAxis::Categories(_));
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            let seen_y = std::cell::RefCell::new(Vec::new());
            chart
                .configure_mesh()
                .x_desc(x_label.as_str())
                .y_desc(y_label.as_str())
                .x_labels(x_labels)
                // On a log axis plotters adds the 2..9 multiples of each power of ten only
                // when asked for enough labels; the formatter keeps 1, 2 and 5.
                .y_labels(if y_log { 40 } else { 10 })
                // Category labels are drawn below, wrapped.
                .x_label_formatter(&|x| {
                    if categories {
                        String::new()
                    } else {
                        tick_label(&panel.x_axis, *x)
                    }
                })
                .y_label_formatter(&|y| {
                    // A log axis labels 1, 2 and 5 per decade (all nine crowd), and plotters
                    // can place one decade twice: every label once.
                    let text = if y_log && !one_two_five(*y) {
                        String::new()
                    } else {
                        y_tick_in(*y, y1 - y0)
                    };
                    once(&seen_y, text)
                })
                .label_style(("sans-serif", TICK_FONT))
                .axis_desc_style(("sans-serif", 17))
                .light_line_style(TRANSPARENT)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()
                .map_err(e)?;
            let base = chart_area.get_base_pixel();
            for (i, lines) in category_lines.iter().enumerate() {
                let (px, py) = chart.backend_coord(&(i as f64, y0));
                for (k, line) in lines.iter().enumerate() {
                    chart_area
                        .draw(&Text::new(
                            line.clone(),
                            (px - base.0, py - base.1 + 8 + 18 * k as i32),
                            ("sans-serif", TICK_FONT)
                                .into_font()
                                .color(&BLACK)
                                .pos(Pos::new(HPos::Center, VPos::Top)),
                        ))
                        .map_err(e)?;
                }
            }
            if let Some(r) = &panel.reference_line {
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(x0, r.y), (x1, r.y)],
                        8,
                        5,
                        RULE_GREY.stroke_width(1),
                    ))
                    .map_err(e)?;
            }
            // Series dodge within a category so error bars do not overlap; reference values
            // (published means) sit at the category's centre.
            let n_measured = panel.series.iter().filter(|s| !s.reference).count();
            let mut measured_index = 0usize;
            for s in &panel.series {
                let col = color(s.color);
                let dense = s.points.len() > DENSE;
                let dodge = match panel.x_axis {
                    XAxis::Categories(_) if n_measured > 1 && !s.reference => {
                        let k = measured_index as f64 - (n_measured - 1) as f64 / 2.0;
                        k * (0.6 / n_measured as f64).min(0.2)
                    }
                    _ => 0.0,
                };
                if !s.reference {
                    measured_index += 1;
                }
                let x_at = |x: f64| x_of(&panel.x_axis, x) + dodge;
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.y.is_finite() && (!y_log || p.y > 0.0))
                    .map(|p| (x_at(p.x), p.y))
                    .collect();
                let width = if dense { 1 } else { 2 };
                let look = look_of(s);
                // Reference values are markers only, unless they are many (then one dashed
                // line: 99 crosses or a cross per chunk merge into a band).
                if look == Look::Dashed {
                    chart
                        .draw_series(DashedLineSeries::new(
                            pts.clone(),
                            6,
                            4,
                            col.stroke_width(2),
                        ))
                        .map_err(e)?;
                } else if !s.reference && !categories {
                    match dash_of(s.color) {
                        None => chart
                            .draw_series(LineSeries::new(pts.clone(), col.stroke_width(width)))
                            .map_err(e)?,
                        Some((d, g)) => chart
                            .draw_series(DashedLineSeries::new(
                                pts.clone(),
                                d,
                                g,
                                col.stroke_width(width),
                            ))
                            .map_err(e)?,
                    };
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
                                    if dense { 3 } else { 8 },
                                )
                            }),
                    )
                    .map_err(e)?;
                match look {
                    Look::Cross => {
                        chart
                            .draw_series(
                                pts.iter()
                                    .map(|&(x, y)| Cross::new((x, y), 5, col.stroke_width(2))),
                            )
                            .map_err(e)?;
                    }
                    Look::Dashed => {}
                    _ => {
                        let r = if dense { 2 } else { 4 };
                        for &p in &pts {
                            draw_marker(chart.plotting_area(), p, s.color, r, col).map_err(e)?;
                        }
                    }
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

/// Where to write a label of `w` x `h` px for the point at `p` inside `bounds`, overlapping no
/// placed label and no point marker: the first free candidate position around the point (then
/// further out), else the free position nearest to the point anywhere in `bounds`. Returns
/// the text's top-left corner and whether it is far from the point (draw a leader line), or
/// `None` when `bounds` has no free place for it.
fn place_label(
    p: (i32, i32),
    (w, h): (i32, i32),
    bounds: PixelBox,
    taken: &[PixelBox],
) -> Option<((i32, i32), bool)> {
    let free = |b: PixelBox| {
        b.0 >= bounds.0
            && b.1 >= bounds.1
            && b.2 <= bounds.2
            && b.3 <= bounds.3
            && !taken.iter().any(|t| overlaps(*t, b))
    };
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
        if let Some((x, y)) = candidates
            .into_iter()
            .find(|&(x, y)| free((x, y, x + w, y + h)))
        {
            return Some(((x, y), ring > 2));
        }
    }
    // Crowded around the point: scan the whole area (4 px steps) for the nearest free place.
    let mut best: Option<((i32, i32), i64)> = None;
    for y in (bounds.1..=bounds.3 - h).step_by(4) {
        for x in (bounds.0..=bounds.2 - w).step_by(4) {
            if !free((x, y, x + w, y + h)) {
                continue;
            }
            let (dx, dy) = ((x + w / 2 - p.0) as i64, (y + h / 2 - p.1) as i64);
            let d = dx * dx + dy * dy;
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some(((x, y), d));
            }
        }
    }
    best.map(|(at, _)| (at, true))
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
    // A point's label stays inside the shaded region holding the point, so it never reads as
    // belonging to the next region.
    let region_px: Vec<(PixelBox, &Region)> = plot
        .regions
        .iter()
        .map(|r| {
            let (ax, ay) = chart.backend_coord(&(r.x.0.max(x0), r.y.1.min(y1)));
            let (bx, by) = chart.backend_coord(&(r.x.1.min(x1), r.y.0.max(y0)));
            let b = (
                ax.max(bounds.0),
                ay.max(bounds.1),
                bx.min(bounds.2),
                by.min(bounds.3),
            );
            (b, r)
        })
        .collect();
    let bounds_of = |x: f64, y: f64| {
        region_px
            .iter()
            .find(|(_, r)| r.x.0 <= x && x <= r.x.1 && r.y.0 <= y && y <= r.y.1)
            .map_or(bounds, |(b, _)| *b)
    };
    for (_, col_index, points) in &plot.groups {
        let col = color(*col_index);
        // Points of a group drawn on the same spot share one label ("h, v, b").
        let mut spots: Vec<((i32, i32), String, PixelBox)> = Vec::new();
        for p in points {
            let at = chart.backend_coord(&(p.x, p.y));
            match spots
                .iter_mut()
                .find(|(q, _, _)| (q.0 - at.0).abs() <= 2 && (q.1 - at.1).abs() <= 2)
            {
                Some((_, label, _)) => {
                    label.push_str(", ");
                    label.push_str(&p.label);
                }
                None => spots.push((at, p.label.clone(), bounds_of(p.x, p.y))),
            }
        }
        for (at, label, region) in spots {
            draw_marker(&root, at, *col_index, 5, col).map_err(e)?;
            let size = (text_width(&label, 14) as i32, 16);
            let fits = size.0 + 8 <= region.2 - region.0 && size.1 + 8 <= region.3 - region.1;
            // A point outside every region keeps its label out of the regions too, where a
            // free place exists.
            let outside = region == bounds;
            let mut avoid = taken.clone();
            if outside {
                avoid.extend(region_px.iter().map(|(b, _)| *b));
            }
            // In the point's region if it fits there, else outside the regions, else anywhere
            // free in the plot, else (a plot full of labels) beside the point.
            let ((x, y), far) = (if fits {
                place_label(at, size, region, &avoid)
            } else {
                None
            })
            .or_else(|| {
                // Outside every region before inside another one, where it would read as
                // that region's.
                let mut outside_regions = taken.clone();
                outside_regions.extend(region_px.iter().map(|(b, _)| *b));
                place_label(at, size, bounds, &outside_regions)
            })
            .or_else(|| place_label(at, size, bounds, &taken))
            .unwrap_or(((at.0 + 7, at.1 - size.1), false));
            taken.push((x, y, x + size.0, y + size.1));
            if far {
                // To the label's nearest edge.
                let anchor = (at.0.clamp(x, x + size.0), at.1.clamp(y, y + size.1));
                root.draw(&PathElement::new(vec![at, anchor], col.mix(0.6)))
                    .map_err(e)?;
            }
            root.draw(&Text::new(label, (x, y), font.clone().color(&col)))
                .map_err(e)?;
        }
    }
    let entries: Vec<(&str, usize, Look)> = plot
        .groups
        .iter()
        .map(|g| (g.0.as_str(), g.1, Look::Marker))
        .collect();
    draw_legend(&legend_area, &entries, path)?;
    draw_caption(&caption_area, &plot.caption, path)?;
    root.present().map_err(e)?;
    Ok(())
}

/// One cell of a heat map: a rank correlation in [-1, 1], the datasets behind it and its
/// interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeatCell {
    pub value: Option<f64>,
    /// Datasets the value is computed over.
    pub n: usize,
    /// 95 % interval, when known.
    pub interval: Option<(f64, f64)>,
}

/// Fewer datasets than this give a rank correlation of -1, 0 or 1 whatever the estimators do:
/// such cells are greyed out.
pub const HEAT_MIN_N: usize = 3;

const HEAT_CELL: i32 = 96;

/// Writes a labelled heat map of `cells` (rows x columns; the diagonal is 1) with a colour bar,
/// n and the interval of every cell, as `<stem>.png` and `<stem>.svg`.
pub fn heatmap(
    stem: &Path,
    title: &str,
    labels: &[String],
    cells: &[Vec<HeatCell>],
    caption: &str,
) -> Result<Vec<PathBuf>> {
    let n = labels.len() as i32;
    let widest = labels.iter().map(|l| text_width(l, 15)).max().unwrap_or(0) as i32;
    let grid_right = widest + 24 + n * HEAT_CELL;
    let width = (grid_right + 130).max(640) as u32;
    let title_lines = wrap(title, ((width as f64 - 24.0) / (0.6 * 20.0)) as usize);
    let caption_lines = caption_lines(caption, width);
    let top = 16 + 26 * title_lines.len() as i32 + widest + 16;
    let grid_h = (n * HEAT_CELL).max(220);
    let height = (top + grid_h + 24 + caption_lines.len() as i32 * CAPTION_LINE as i32 + 12) as u32;
    let geometry = HeatGeometry {
        left: widest + 24,
        top,
        title_lines,
        grid_h,
    };
    write_both!(stem, (width, height), |root, path| draw_heatmap(
        root, &geometry, labels, cells, caption, path
    ))
}

struct HeatGeometry {
    left: i32,
    top: i32,
    title_lines: Vec<String>,
    grid_h: i32,
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
    g: &HeatGeometry,
    labels: &[String],
    cells: &[Vec<HeatCell>],
    caption: &str,
    path: &Path,
) -> Result<()> {
    let e = |err: DrawingAreaErrorKind<DB::ErrorType>| plot_err(path, err);
    root.fill(&WHITE).map_err(e)?;
    let (left, top, c) = (g.left, g.top, HEAT_CELL);
    for (i, line) in g.title_lines.iter().enumerate() {
        root.draw(&Text::new(
            line.clone(),
            (12, 12 + 26 * i as i32),
            ("sans-serif", 20).into_font(),
        ))
        .map_err(e)?;
    }
    let centred = |size: u32, ink: RGBColor| {
        ("sans-serif", size)
            .into_font()
            .color(&ink)
            .pos(Pos::new(HPos::Center, VPos::Center))
    };
    for (i, label) in labels.iter().enumerate() {
        let style = ("sans-serif", 15).into_font();
        root.draw(&Text::new(
            label.clone(),
            (left - 8, top + i as i32 * c + c / 2),
            style
                .clone()
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(e)?;
        // Column labels rotated so long names do not overlap.
        root.draw(&Text::new(
            label.clone(),
            (left + i as i32 * c + c / 2 - 8, top - 8),
            style.transform(FontTransform::Rotate270),
        ))
        .map_err(e)?;
        for (j, cell) in cells[i].iter().enumerate() {
            let (x, y) = (left + j as i32 * c, top + i as i32 * c);
            let informative = i == j || cell.n >= HEAT_MIN_N;
            let shown = cell.value.filter(|_| informative);
            let fill = shown.map_or(RGBColor(215, 215, 215), diverging);
            root.draw(&Rectangle::new(
                [(x, y), (x + c - 2, y + c - 2)],
                fill.filled(),
            ))
            .map_err(e)?;
            let ink = if shown.is_some_and(|v| v.abs() > 0.6) {
                WHITE
            } else {
                BLACK
            };
            let (cx, cy) = (x + c / 2 - 1, y + c / 2 - 1);
            let mut lines: Vec<(String, u32)> = Vec::new();
            match (i == j, shown, cell.value) {
                (true, _, _) => lines.push(("1".into(), 16)),
                (false, Some(v), _) => {
                    lines.push((format!("{v:.2}"), 16));
                    if let Some((lo, hi)) = cell.interval {
                        lines.push((format!("[{lo:.2}, {hi:.2}]"), 12));
                    }
                    lines.push((format!("n = {}", cell.n), 12));
                }
                (false, None, Some(_)) => {
                    lines.push((format!("n = {}", cell.n), 13));
                    lines.push(("too few".into(), 12));
                }
                (false, None, None) => lines.push(("n/a".into(), 14)),
            }
            let total = lines.len() as i32;
            for (k, (text, size)) in lines.into_iter().enumerate() {
                let dy = (k as i32 * 2 - (total - 1)) * 8;
                root.draw(&Text::new(text, (cx, cy + dy), centred(size, ink)))
                    .map_err(e)?;
            }
        }
    }
    // Colour bar from -1 (bottom) to 1 (top).
    let bar_x = left + labels.len() as i32 * c + 28;
    let steps = 100;
    for k in 0..steps {
        let v = 1.0 - 2.0 * (k as f64 + 0.5) / steps as f64;
        let y = top + (g.grid_h * k) / steps;
        let y_next = top + (g.grid_h * (k + 1)) / steps;
        root.draw(&Rectangle::new(
            [(bar_x, y), (bar_x + 18, y_next)],
            diverging(v).filled(),
        ))
        .map_err(e)?;
    }
    root.draw(&Rectangle::new(
        [(bar_x, top), (bar_x + 18, top + g.grid_h)],
        BLACK.stroke_width(1),
    ))
    .map_err(e)?;
    for t in [-1.0, -0.5, 0.0, 0.5, 1.0] {
        let y = top + ((1.0 - t) / 2.0 * g.grid_h as f64).round() as i32;
        root.draw(&PathElement::new(
            vec![(bar_x + 18, y), (bar_x + 23, y)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
        root.draw(&Text::new(
            y_tick(t),
            (bar_x + 27, y),
            ("sans-serif", 14)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(e)?;
    }
    root.draw(&Text::new(
        "tau-b".to_string(),
        (bar_x - 4, top - 22),
        ("sans-serif", 14).into_font(),
    ))
    .map_err(e)?;
    let (_, rest) = root.split_vertically((top + g.grid_h + 18) as u32);
    draw_caption(&rest, caption, path)?;
    root.present().map_err(e)?;
    Ok(())
}
