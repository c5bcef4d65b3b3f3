//! Shared by every figure kind: the palette, fonts and sizes, marker shapes and line styles,
//! tick labels, text wrapping, the legend and the caption.

use std::path::Path;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::error::{KcompError, Result};

pub(super) fn plot_err(path: &Path, e: impl std::fmt::Display) -> KcompError {
    KcompError::file(path, format!("drawing plot: {e}"))
}

/// Colour-blind-safe palette (Okabe-Ito), then Paul Tol's muted scheme for panels with more
/// than eight series (the metric zoo has 17).
pub(super) const PALETTE: [RGBColor; 16] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    // Okabe-Ito's yellow (240, 228, 66) darkened: the original is barely visible on white.
    RGBColor(181, 158, 0),
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

pub(super) const RULE_GREY: RGBColor = RGBColor(90, 90, 90);
/// Marker shapes (filled circle, square, triangle, diamond, open circle, open square, inverted
/// triangle): 7, coprime with the 16 colours, so no two of 17 series look alike.
pub(super) const SHAPES: usize = 7;
pub(super) const LEGEND_H: u32 = 28;
pub(super) const LEGEND_FONT: u32 = 16;
pub(super) const CAPTION_FONT: u32 = 15;
pub(super) const CAPTION_LINE: u32 = 19;
pub(super) const TICK_FONT: u32 = 15;

/// Width in pixels of `text` in the sans-serif font at `size` px, slightly overestimated
/// (DejaVu Sans averages ~0.55 em per character) so that layouts never overlap.
pub(super) fn text_width(text: &str, size: u32) -> u32 {
    (text.chars().count() as f64 * size as f64 * 0.6).ceil() as u32
}

/// Legend entries flowed left to right in rows of `width` px: (x, row) of each, row count.
pub(super) fn legend_layout(labels: &[&str], width: u32) -> (Vec<(u32, u32)>, u32) {
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
pub(super) fn caption_lines(caption: &str, width: u32) -> Vec<String> {
    let per_char = CAPTION_FONT as f64 * 0.6;
    wrap(
        caption,
        ((width as f64 - 24.0) / per_char).max(20.0) as usize,
    )
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Look {
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

pub(super) fn y_tick(y: f64) -> String {
    y_tick_in(y, 0.0)
}

/// A tick label on an axis spanning `span`: enough decimals that ticks about span / 10 apart
/// read differently (a C axis from 1.0075 to 1.0085 must not show 1.008 three times).
pub(super) fn y_tick_in(y: f64, span: f64) -> String {
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

/// Splits `text` into lines of at most `max_chars` characters at spaces.
pub(super) fn wrap(text: &str, max_chars: usize) -> Vec<String> {
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

/// Draws marker `shape` (see [`SHAPES`]) of radius `r` px at `at`.
pub(super) fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
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
pub(super) fn dash_of(i: usize) -> Option<(i32, i32)> {
    match i % 3 {
        0 => None,
        1 => Some((9, 5)),
        _ => Some((3, 4)),
    }
}

/// The legend under the panels (never over data): a line and marker per measured series, a
/// marker per scatter group, a cross or dashed line per reference series.
pub(super) fn draw_legend<DB: DrawingBackend>(
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
pub(super) fn draw_caption<DB: DrawingBackend>(
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
