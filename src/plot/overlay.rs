//! Several code-length curves on one Z: the code length per row of each chunk against the rows
//! encoded by its end, one line per W, log x, the y axis zoomed to the learned part of the
//! curves (differences of 1 % between languages are visible, which an axis from 0 hides).

use std::path::{Path, PathBuf};

use super::{Figure, Panel, Point, RefLine, Series, XAxis, line_figure};
use crate::error::{KcompError, Result};

/// One W's curve: (rows encoded by the end of the chunk, bits per row of the chunk).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// The y range that shows the curves: their lowest and highest points after `skip` leading
/// points of each (the first chunks, coded before anything was learned, sit far above),
/// with 5 % of the span as margin; the reference line is kept in view when it lies within one
/// span of the data (a far one would squash the curves).
pub fn zoomed_range(curves: &[Curve], skip: usize, reference: Option<f64>) -> Option<(f64, f64)> {
    let ys: Vec<f64> = curves
        .iter()
        .flat_map(|c| {
            let from = if c.points.len() > skip { skip } else { 0 };
            c.points[from..].iter().map(|p| p.1)
        })
        .filter(|y| y.is_finite())
        .collect();
    let mut lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let span = hi - lo;
    if let Some(r) = reference.filter(|r| r.is_finite() && *r >= lo - span && *r <= hi + span) {
        lo = lo.min(r);
        hi = hi.max(r);
    }
    let margin = ((hi - lo) * 0.05).max(hi.abs() * 1e-4).max(1e-9);
    Some((lo - margin, hi + margin))
}

/// Draws `curves` as `<stem>.png` and `<stem>.svg`: log-2 x axis (rows encoded), y zoomed to
/// the data after each curve's first `skip` points, an optional dashed reference (e.g. K(Z)/N,
/// the W-free code per row).
pub fn code_length_overlay(
    stem: &Path,
    title: &str,
    curves: &[Curve],
    skip: usize,
    reference: Option<RefLine>,
    caption: &str,
) -> Result<Vec<PathBuf>> {
    if curves.is_empty() || curves.iter().all(|c| c.points.is_empty()) {
        return Err(KcompError::Other(
            "an overlay needs at least one curve".into(),
        ));
    }
    if curves
        .iter()
        .flat_map(|c| &c.points)
        .any(|p| !(p.0 > 0.0 && p.0.is_finite()))
    {
        return Err(KcompError::Other(
            "an overlay's x values (rows encoded) must be positive for its log axis".into(),
        ));
    }
    let y_range = zoomed_range(curves, skip, reference.as_ref().map(|r| r.y));
    let series = curves
        .iter()
        .enumerate()
        .map(|(i, c)| Series {
            label: c.label.clone(),
            points: c
                .points
                .iter()
                .map(|&(x, y)| Point { x, y, err: 0.0 })
                .collect(),
            reference: false,
            color: i,
        })
        .collect();
    let figure = Figure {
        panels: vec![Panel {
            title: title.to_string(),
            x_label: "rows encoded by the end of the chunk".into(),
            y_label: "code length of the chunk (bits per row)".into(),
            x_axis: XAxis::Log2,
            y_log: false,
            y_range,
            series,
            reference_line: reference,
        }],
        caption: caption.to_string(),
    };
    line_figure(stem, &figure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(label: &str, ys: &[f64]) -> Curve {
        Curve {
            label: label.into(),
            points: ys
                .iter()
                .enumerate()
                .map(|(i, &y)| (4.0 * 2f64.powi(i as i32), y))
                .collect(),
        }
    }

    #[test]
    fn the_range_zooms_to_the_learned_part() {
        let c = [
            curve("a", &[3000.0, 1700.0, 1650.0]),
            curve("b", &[3000.0, 1720.0, 1660.0]),
        ];
        let (lo, hi) = zoomed_range(&c, 1, None).unwrap();
        assert!(lo < 1650.0 && lo > 1640.0, "{lo}");
        assert!(hi > 1720.0 && hi < 1730.0, "{hi}");
        // A reference line close by is kept in view; a far one is not.
        let (lo, _) = zoomed_range(&c, 1, Some(1600.0)).unwrap();
        assert!(lo < 1600.0);
        let (lo, _) = zoomed_range(&c, 1, Some(10.0)).unwrap();
        assert!(lo > 1600.0);
        // Too few points to skip: all are used.
        assert!(zoomed_range(&[curve("c", &[5.0])], 3, None).is_some());
    }

    #[test]
    fn draws_png_and_svg_and_refuses_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("overlay");
        let c = [
            curve("English", &[3000.0, 1700.0, 1650.0, 1640.0]),
            curve("German", &[3000.0, 1710.0, 1662.0, 1651.0]),
        ];
        let written = code_length_overlay(&stem, "t", &c, 1, None, "caption").unwrap();
        let png = std::fs::read(&written[0]).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
        assert!(
            std::fs::read_to_string(&written[1])
                .unwrap()
                .contains("German")
        );
        assert!(code_length_overlay(&stem, "t", &[], 0, None, "").is_err());
        let zero = [Curve {
            label: "x".into(),
            points: vec![(0.0, 1.0)],
        }];
        assert!(code_length_overlay(&stem, "t", &zero, 0, None, "").is_err());
    }
}
