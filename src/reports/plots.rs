//! PNG plots of a report: mean C(P) per setting per model, and the L(P+) vs E(P) plane with
//! the T1/T2/T3 regions.

use super::Cell;
use crate::datasets::string_grid::Setting;
use crate::estimators::mapping_table::score::{LOW_ERRORS, LOW_TABLE_FACTOR};
use plotters::prelude::*;
use std::path::Path;

type PlotResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn models(cells: &[Cell]) -> Vec<String> {
    let mut m: Vec<String> = cells.iter().map(|c| c.model.clone()).collect();
    m.sort();
    m.dedup();
    m
}

fn mean(v: &[f64]) -> Option<f64> {
    crate::sweeps::summary::Stat::of(v).map(|s| s.mean)
}

/// Grouped bars: x = setting, one bar per model, y = mean C(P).
pub fn c_by_setting(cells: &[Cell], path: &Path) -> PlotResult {
    let models = models(cells);
    let root = BitMapBackend::new(path, (1000, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let ns = Setting::ALL.len() as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption("Mean C(P) per setting and model", ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..ns, 0f64..100f64)?;
    chart
        .configure_mesh()
        .y_desc("C(P) [0-100]")
        .x_labels(Setting::ALL.len() * 2 + 1)
        .x_label_formatter(&|x| {
            let i = x.floor() as usize;
            if (x - x.floor() - 0.5).abs() < 1e-9 && i < Setting::ALL.len() {
                Setting::ALL[i].name().to_string()
            } else {
                String::new()
            }
        })
        .draw()?;
    let width = 0.8 / models.len().max(1) as f64;
    for (mi, m) in models.iter().enumerate() {
        let color = Palette99::pick(mi).to_rgba();
        let bars: Vec<Rectangle<(f64, f64)>> = Setting::ALL
            .iter()
            .enumerate()
            .filter_map(|(si, s)| {
                let c = cells.iter().find(|c| &c.model == m && c.setting == *s)?;
                let y = mean(&c.c)?;
                let x0 = si as f64 + 0.1 + mi as f64 * width;
                Some(Rectangle::new([(x0, 0.0), (x0 + width, y)], color.filled()))
            })
            .collect();
        chart
            .draw_series(bars)?
            .label(m.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    Ok(())
}

/// Scatter of (mean L(P+), mean E(P)) per model x setting, with the profile regions.
pub fn plane(cells: &[Cell], path: &Path) -> PlotResult {
    let models = models(cells);
    let root = BitMapBackend::new(path, (900, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    let l_max = cells
        .iter()
        .filter_map(|c| mean(&c.l_plus))
        .fold(330f64, f64::max);
    let mut chart = ChartBuilder::on(&root)
        .caption("L(P+) vs E(P): T1 / T2 / T3", ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..l_max, 0f64..16f64)?;
    chart
        .configure_mesh()
        .x_desc("L(P+) [entries]")
        .y_desc("E(P) [samples]")
        .draw()?;
    let lx = 40.0 * LOW_TABLE_FACTOR;
    let ey = LOW_ERRORS as f64;
    chart.draw_series([
        Rectangle::new([(0.0, 0.0), (lx, ey)], GREEN.mix(0.12).filled()),
        Rectangle::new([(lx, 0.0), (l_max, ey)], BLUE.mix(0.10).filled()),
        Rectangle::new([(0.0, ey), (lx, 16.0)], RED.mix(0.10).filled()),
    ])?;
    for (text, x, y) in [
        ("T1", lx / 2.0, ey / 2.0),
        ("T2", (lx + l_max) / 2.0, ey / 2.0),
        ("T3", lx / 2.0, 9.0),
    ] {
        chart.draw_series(std::iter::once(Text::new(text, (x, y), ("sans-serif", 22))))?;
    }
    for (mi, m) in models.iter().enumerate() {
        let color = Palette99::pick(mi).to_rgba();
        let pts: Vec<(f64, f64, &str)> = cells
            .iter()
            .filter(|c| &c.model == m)
            .filter_map(|c| Some((mean(&c.l_plus)?, mean(&c.errors)?, c.setting.name())))
            .collect();
        chart
            .draw_series(pts.iter().map(|&(x, y, s)| {
                EmptyElement::at((x, y))
                    + Circle::new((0, 0), 5, color.filled())
                    + Text::new(s.to_string(), (6, -6), ("sans-serif", 13))
            }))?
            .label(m.clone())
            .legend(move |(x, y)| Circle::new((x + 5, y), 5, color.filled()));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    Ok(())
}
