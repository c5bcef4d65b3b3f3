//! Outputs of a prequential run: JSON summary, CSV curve (units in headers), PNG curve.

use std::path::Path;

use plotters::prelude::*;

use super::code::PrequentialResult;
use crate::error::{KcompError, Result};

/// The JSON object printed by `kcomp prequential --json` (all lengths in bits).
pub fn to_json(r: &PrequentialResult) -> serde_json::Value {
    serde_json::json!({
        "k_data": r.k_data,
        "k_data_given_f": r.k_data_given_f,
        "k_f": r.k_f,
        "k_z": r.k_z,
        "c_l": r.c_l,
        "k_z_method": r.k_z_method,
        "units": "bits",
        "n_encoded": r.n_encoded,
        "n_val": r.n_val,
        "final_epochs": r.final_epochs,
        "wall_seconds": r.wall_seconds,
        "chunks": r.chunks,
        "warnings": r.warnings,
    })
}

/// Writes the JSON summary.
pub fn write_json(r: &PrequentialResult, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(&to_json(r))
        .map_err(|e| KcompError::Other(format!("cannot serialise the result: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| KcompError::io(path, e))
}

/// Writes the curve as CSV, one row per chunk.
pub fn write_csv(r: &PrequentialResult, path: &Path) -> Result<()> {
    let mut wtr =
        csv::Writer::from_path(path).map_err(|e| KcompError::file(path, e.to_string()))?;
    let err = |e: csv::Error| KcompError::file(path, e.to_string());
    wtr.write_record([
        "chunk",
        "start_rows",
        "end_rows",
        "model_bits",
        "naive_bits",
        "charged_bits",
        "bits_per_sample",
        "cumulative_bits",
        "used_model",
        "epochs",
    ])
    .map_err(err)?;
    let mut cum = 0.0;
    for (i, c) in r.chunks.iter().enumerate() {
        cum += c.bits;
        wtr.write_record([
            i.to_string(),
            c.start.to_string(),
            c.end.to_string(),
            c.model_bits.map(|b| format!("{b:.6}")).unwrap_or_default(),
            format!("{:.6}", c.naive_bits),
            format!("{:.6}", c.bits),
            format!("{:.6}", c.bits_per_sample),
            format!("{cum:.6}"),
            c.used_model.to_string(),
            c.epochs.to_string(),
        ])
        .map_err(err)?;
    }
    wtr.flush().map_err(|e| KcompError::io(path, e))
}

/// Draws the prequential curve (bits per sample of each chunk against rows encoded, with the
/// naive code for reference) as a PNG.
pub fn write_png(r: &PrequentialResult, path: &Path, title: &str) -> Result<()> {
    let draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let x_max = r.chunks.last().map(|c| c.end).unwrap_or(1) as f64;
        let y_max = r
            .chunks
            .iter()
            .map(|c| {
                c.bits_per_sample
                    .max(c.naive_bits / (c.end - c.start) as f64)
            })
            .fold(0.0f64, f64::max)
            * 1.1
            + 1e-9;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{title}  (C^L = {:.3}, K(Z|W) = {:.0} bits)",
                    r.c_l, r.k_data
                ),
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("rows encoded")
            .y_desc("bits per sample of the next chunk")
            .draw()?;
        let pts: Vec<(f64, f64)> = r
            .chunks
            .iter()
            .map(|c| (c.start as f64, c.bits_per_sample))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), BLUE.stroke_width(2)))?
            .label("prequential (charged)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?;
        let naive: Vec<(f64, f64)> = r
            .chunks
            .iter()
            .map(|c| (c.start as f64, c.naive_bits / (c.end - c.start) as f64))
            .collect();
        chart
            .draw_series(LineSeries::new(naive, RED.stroke_width(1)))?
            .label("naive code")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| KcompError::file(path, format!("cannot draw the curve: {e}")))
}
