//! Heat maps of rank agreement in [-1, 1].

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::Result;

use super::common::{
    CAPTION_LINE, caption_lines, draw_caption, plot_err, text_width, wrap, y_tick,
};

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
