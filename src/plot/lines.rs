//! Line figures: panels of series (mean with error bars) against a parameter.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::Result;

use super::common::{
    CAPTION_LINE, LEGEND_H, Look, RULE_GREY, TICK_FONT, caption_lines, color, dash_of,
    draw_caption, draw_legend, draw_marker, legend_layout, plot_err, text_width, wrap, y_tick,
    y_tick_in,
};

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
pub(super) fn panel_ys(panel: &Panel) -> Vec<f64> {
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
pub(super) fn log_worthwhile(ys: &[f64]) -> bool {
    let positive = || ys.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    positive().fold(f64::NEG_INFINITY, f64::max) / positive().fold(f64::INFINITY, f64::min) > 10.0
}

/// A figure: panels side by side and a caption under them (what error bars mean, n).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub panels: Vec<Panel>,
    pub caption: String,
}

pub(super) const PANEL_W: u32 = 620;
/// The widest panel: more categories wrap their labels instead of widening the figure.
pub(super) const PANEL_MAX_W: u32 = 760;
/// Panels per row of a figure.
pub(super) const COLUMNS: usize = 3;
/// Series with more points are drawn with thin lines and small markers (99 sweep values).
pub(super) const DENSE: usize = 25;
pub(super) const PANEL_H: u32 = 470;

/// The width a panel needs: wide enough for its category labels side by side.
pub(super) fn panel_width(panel: &Panel) -> u32 {
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

/// Legend entries of a figure, every label once in order of appearance:
/// (label, colour index, look).
pub(super) fn legend_entries(figure: &Figure) -> Vec<(&str, usize, Look)> {
    panel_legend_entries(&figure.panels)
}

/// Legend entries of `panels` (see [`legend_entries`]).
fn panel_legend_entries(panels: &[Panel]) -> Vec<(&str, usize, Look)> {
    let mut entries: Vec<(&str, usize, Look)> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !entries.iter().any(|e| e.0 == s.label) {
            entries.push((&s.label, s.color, look_of(s)));
        }
    }
    // Reference lines are explained in the legend, not over the data.
    for r in panels.iter().filter_map(|p| p.reference_line.as_ref()) {
        if !entries.iter().any(|e| e.0 == r.label) {
            entries.push((&r.label, 0, Look::Rule));
        }
    }
    entries
}

pub(super) fn look_of(s: &Series) -> Look {
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
    line_figure_in_rows(stem, figure, grid_rows(&figure.panels))
}

/// [`line_figure`] with `columns` panels per row: for figures that pair one row of a quantity
/// with a row of another (the estimators' cross-check: ratios above, times below), wider than
/// the usual three panels.
pub fn line_figure_columns(stem: &Path, figure: &Figure, columns: usize) -> Result<Vec<PathBuf>> {
    let rows = (0..figure.panels.len())
        .collect::<Vec<_>>()
        .chunks(columns.max(1))
        .map(<[usize]>::to_vec)
        .collect();
    line_figure_in_rows(stem, figure, rows)
}

fn line_figure_in_rows(
    stem: &Path,
    figure: &Figure,
    rows: Vec<Vec<usize>>,
) -> Result<Vec<PathBuf>> {
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
    let per_panel = own_legends(figure, &rows);
    let legend_rows = if per_panel {
        // Each panel's legend under it, as many rows as the longest needs.
        figure
            .panels
            .iter()
            .map(|p| {
                let entries = panel_legend_entries(std::slice::from_ref(p));
                let labels: Vec<&str> = entries.iter().map(|e| e.0).collect();
                legend_layout(&labels, panel_width(p)).1
            })
            .max()
            .unwrap_or(0)
    } else {
        let labels: Vec<&str> = legend_entries(figure).iter().map(|e| e.0).collect();
        legend_layout(&labels, width).1
    };
    let caption_h = caption_lines(&figure.caption, width).len() as u32 * CAPTION_LINE + 12;
    let layout = Layout {
        rows,
        legend_h: legend_rows * LEGEND_H,
        per_panel,
    };
    let panels_h = layout.rows.len().max(1) as u32 * PANEL_H;
    let size = (width, panels_h + layout.legend_h + caption_h);
    write_both!(stem, size, |root, path| draw_lines(
        root, figure, &layout, path
    ))
}

/// Panel indices per row: at most [`COLUMNS`] panels side by side (four as two by two).
pub(super) fn grid_rows(panels: &[Panel]) -> Vec<Vec<usize>> {
    let columns = if panels.len() == 4 { 2 } else { COLUMNS };
    (0..panels.len())
        .collect::<Vec<_>>()
        .chunks(columns)
        .map(<[usize]>::to_vec)
        .collect()
}

/// Pixel layout of a line figure.
pub(super) struct Layout {
    rows: Vec<Vec<usize>>,
    legend_h: u32,
    /// Each panel's legend under it (see [`own_legends`]).
    per_panel: bool,
}

/// Whether each panel gets its own legend under it: one row of several panels that share no
/// legend entry (a training curve beside a grid of code lengths), where one legend under all
/// of them would put one panel's key under the other.
fn own_legends(figure: &Figure, rows: &[Vec<usize>]) -> bool {
    if rows.len() != 1 || figure.panels.len() < 2 {
        return false;
    }
    let labels: Vec<Vec<&str>> = figure
        .panels
        .iter()
        .map(|p| {
            panel_legend_entries(std::slice::from_ref(p))
                .iter()
                .map(|e| e.0)
                .collect()
        })
        .collect();
    labels.iter().enumerate().all(|(i, a)| {
        labels[i + 1..]
            .iter()
            .all(|b| a.iter().all(|l| !b.contains(l)))
    })
}

pub(super) fn range_of(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
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

pub(super) fn x_of(axis: &XAxis, x: f64) -> f64 {
    match axis {
        XAxis::Log2 => x.log2(),
        _ => x,
    }
}

pub(super) fn tick_label(axis: &XAxis, x: f64) -> String {
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

pub(super) fn draw_lines<DB: DrawingBackend>(
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
    if layout.per_panel {
        let breaks: Vec<i32> = layout.rows[0]
            .iter()
            .scan(0, |x, &i| {
                *x += panel_width(&figure.panels[i]) as i32;
                Some(*x)
            })
            .collect();
        let areas = legend_area.split_by_breakpoints(&breaks, [] as [i32; 0]);
        for (area, &i) in areas.iter().zip(&layout.rows[0]) {
            let entries = panel_legend_entries(std::slice::from_ref(&figure.panels[i]));
            draw_legend(area, &entries, path)?;
        }
    } else {
        draw_legend(&legend_area, &legend_entries(figure), path)?;
    }
    draw_caption(&caption_area, &figure.caption, path)?;
    root.present().map_err(e)?;
    Ok(())
}

/// `label` the first time, empty after (`seen` holds the labels given so far).
pub(super) fn once(seen: &std::cell::RefCell<Vec<String>>, label: String) -> String {
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
pub(super) fn one_two_five(v: f64) -> bool {
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
pub(super) fn title_layout(title: &str, width: u32) -> (Vec<String>, u32) {
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
pub(super) fn wrap_category(label: &str, max_chars: usize) -> Vec<String> {
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

pub(super) fn draw_panel<DB: DrawingBackend>(
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
