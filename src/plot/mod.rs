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

// `write_both!` is defined before the figure modules so that they can use it.
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

mod common;
mod heatmap;
mod lines;
pub mod overlay;
mod scatter;

pub use common::color;
pub use heatmap::{HEAT_MIN_N, HeatCell, heatmap};
pub use lines::{
    Figure, Panel, Point, RefLine, Series, XAxis, line_figure, line_figure_columns,
    parameter_label, share_y_range, share_y_range_if_readable, x_axis_for,
};
pub use scatter::{LabelledPoint, Region, Scatter, scatter};
