//! Scatter plots: labelled points over shaded regions.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::Result;

use super::common::{
    CAPTION_LINE, LEGEND_H, Look, TICK_FONT, caption_lines, color, draw_caption, draw_legend,
    draw_marker, legend_layout, plot_err, text_width, y_tick_in,
};

/// A title's font size: 20 px, smaller for a long title so it fits `width` px (down to 11).
fn title_font(title: &str, width: u32) -> u32 {
    let chars = title.chars().count().max(1) as f64;
    ((width as f64 - 30.0) / (0.6 * chars))
        .floor()
        .clamp(11.0, 20.0) as u32
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
