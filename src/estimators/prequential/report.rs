//! Outputs of a prequential run: JSON summary, CSV curve (units in headers), the curve figure
//! (PNG + SVG), and the figure of a holistic-fraction sweep.

use std::path::{Path, PathBuf};

use super::code::{Chunk, PrequentialResult};
use crate::error::{KcompError, Result};
use crate::plot::{self, Figure, Panel, Point, Series, XAxis};

/// The JSON object printed by `kcomp prequential --json` (all lengths in bits; fields in
/// docs/json.md).
pub fn to_json(r: &PrequentialResult) -> serde_json::Value {
    let single = super::single_run::single_run(&r.chunks, r.k_data, r.k_data_given_f);
    serde_json::json!({
        "bits_saved_per_row": bits_saved_per_row(r),
        "scheme": r.scheme,
        "learners": r.learners,
        "k_data": r.k_data,
        "k_data_given_f": r.k_data_given_f,
        "k_f": r.k_f,
        // The single-run code length of the same run (K_auc, Finzi et al. 2026; null without
        // an encoded row): the model's share of K(Data), and K_auc + K(Data|f), an estimate.
        "k_auc": single.map(|s| s.k_auc_bits),
        "final_loss_bits_per_row": single.map(|s| s.final_loss_bits_per_row),
        "single_run": single.map(|s| s.single_run_bits),
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
        // The online scheme's learners: own code (bits), share of the mixture's bits, final
        // weight (empty for the reference protocol).
        "learners": r.learners,
    })
}

/// (K(Z) - K(Z|W)) / N over the encoded rows (K(Z) and K(Data) cover the same rows): unlike
/// C^L, comparable across N.
pub fn bits_saved_per_row(r: &PrequentialResult) -> f64 {
    crate::estimators::interface::bits_saved_per_row(r.k_z, r.k_data, r.n_encoded)
}

/// The text `kcomp prequential` prints for a run titled `title`.
pub fn to_text(r: &PrequentialResult, title: &str) -> String {
    let k_z_label = format!("K(Z) ({})", format!("{:?}", r.k_z_method).to_lowercase());
    let mut text = format!(
        "{title}\nrows encoded        {}\nrows for validation {}\nK(Z|W) = K(Data)    {:.1} bits\n\
         K(Data|f)           {:.1} bits\nK(f)                {:.1} bits\n{k_z_label:<20}{:.1} bits\n\
         C^L(Z)              {:.4}\nbits saved per row  {:.3}   ((K(Z) - K(Z|W)) / N)\n\
         wall time           {:.1} s\n",
        r.n_encoded,
        r.n_val,
        r.k_data,
        r.k_data_given_f,
        r.k_f,
        r.k_z,
        r.c_l,
        bits_saved_per_row(r),
        r.wall_seconds
    );
    text += &format!(
        "note: {}\n",
        crate::estimators::interface::COMPARABILITY.replace("C grows", "C^L grows")
    );
    if let Some(s) = super::single_run::single_run(&r.chunks, r.k_data, r.k_data_given_f) {
        text += &format!(
            "K_auc (single run)  {:.1} bits  (area of the loss curve above the final {:.3} \
             bits/row; K_auc + K(Data|f) = {:.1} bits, an estimate, not a code)\n",
            s.k_auc_bits, s.final_loss_bits_per_row, s.single_run_bits
        );
    }
    if !r.learners.is_empty() {
        text += "learner             own code   share of the mixture's bits   final weight\n";
        for l in &r.learners {
            text += &format!(
                "{:<20}{:>8.1}   {:>26.1} %   {:>12.3}\n",
                l.name,
                l.bits,
                100.0 * l.share,
                l.final_weight
            );
        }
    }
    if let Some(t) = r
        .learners
        .iter()
        .find_map(|l| l.name.split_once("+pad=").map(|x| x.1.to_string()))
    {
        text += &format!(
            "note: token {t} is padding (given, or detected: it only ever ends a message, as a \
             run); the rule learner also reads positions counted from the message end\n"
        );
    }
    for w in &r.warnings {
        text += &format!("warning: {w}\n");
    }
    if r.k_z_method == super::KzMethod::Analytic {
        text += "note: K(Z) analytic = uniform over the objects (discrete Z) or the naive \
                 Gaussian code at the precision (continuous Z), as `compare --w --z`; `synth` \
                 prints the generator's exact K(Z), smaller on continuous data \
                 (docs/concepts.md)\n";
    }
    text
}

/// Writes the JSON summary.
pub fn write_json(r: &PrequentialResult, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(&to_json(r))
        .map_err(|e| KcompError::Other(format!("cannot serialise the result: {e}")))?;
    crate::io::files::atomic_write(path, (text + "\n").as_bytes())
}

/// Writes the curve as CSV, one row per chunk.
pub fn write_csv(r: &PrequentialResult, path: &Path) -> Result<()> {
    // In memory, then written atomically (resume trusts only whole files).
    let mut wtr = csv::Writer::from_writer(Vec::new());
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
    let bytes = wtr
        .into_inner()
        .map_err(|e| KcompError::io(path, e.into_error()))?;
    crate::io::files::atomic_write(path, &bytes)
}

/// Draws the prequential curve (code length per row of each chunk against the rows encoded by
/// the chunk's end, with the naive code for reference) as `<path>` (PNG) and the same stem as
/// SVG. Chunks of growing size (the log-spaced schedules) get a log x axis, which a chunk
/// starting at row 0 could not sit on: hence the chunk's end.
pub fn write_png(r: &PrequentialResult, path: &Path, title: &str) -> Result<()> {
    let per_row = |bits: f64, c: &Chunk| bits / (c.end - c.start).max(1) as f64;
    let prequential: Vec<Point> = r
        .chunks
        .iter()
        .map(|c| Point {
            x: c.end as f64,
            y: c.bits_per_sample,
            err: 0.0,
        })
        .collect();
    let naive: Vec<Point> = r
        .chunks
        .iter()
        .map(|c| Point {
            x: c.end as f64,
            y: per_row(c.naive_bits, c),
            err: 0.0,
        })
        .collect();
    let sizes: Vec<usize> = r.chunks.iter().map(|c| c.end - c.start).collect();
    let growing = sizes.len() >= 3
        && sizes.iter().max() > sizes.iter().min().map(|m| 2 * m).as_ref()
        && r.chunks.first().is_some_and(|c| c.end > 0);
    let x_axis = if growing {
        XAxis::Log2
    } else {
        XAxis::Linear { integer: true }
    };
    // From zero: a code length is read against its size, not against its own variation.
    let y_max = prequential
        .iter()
        .chain(&naive)
        .map(|p: &Point| p.y)
        .fold(0.0, f64::max);
    // The online scheme codes every row with a mixture of learners: no flag bit, no model
    // retrained per chunk.
    let online = !r.learners.is_empty();
    let (x_label, code_label) = if online {
        (
            "rows encoded by the end of the chunk",
            "online scheme: switching mixture of the learners",
        )
    } else {
        (
            "rows encoded by the end of the chunk",
            "prequential: min(model, naive) + 1 flag bit",
        )
    };
    let figure = Figure {
        panels: vec![Panel {
            // The data in the title; the run's settings (after "; ") in the caption, so a long
            // title does not wrap in the middle of a phrase.
            title: format!(
                "Prequential code: {}",
                title.split_once("; ").map_or(title, |t| t.0)
            ),
            x_label: x_label.into(),
            y_label: "code length of the chunk (bits per row)".into(),
            x_axis,
            y_log: false,
            y_range: Some((0.0, 1.08 * y_max + 1e-9)),
            reference_line: None,
            series: vec![
                Series {
                    label: code_label.into(),
                    points: prequential,
                    reference: false,
                    color: 0,
                },
                Series {
                    label: "naive code (no model)".into(),
                    points: naive,
                    reference: true,
                    color: 1,
                },
            ],
        }],
        caption: format!(
            "{}One run, no error bars. {} C^L = K(Z)/K(Z|W) = {:.3}; K(Z|W) = {:.0} bits over \
             {} encoded rows ({} validation rows never encoded); K(Z) = {:.0} bits.",
            title.split_once("; ").map_or(String::new(), |t| {
                let mut c = t.1.chars();
                let first = c.next().map(|f| f.to_uppercase().collect::<String>());
                format!("{}{}. ", first.unwrap_or_default(), c.as_str())
            }),
            if online {
                "Each chunk: the mixture's bits per row, the model trained on the rows before it."
            } else {
                "Each chunk: bits per row of the model trained on the rows before it, or of the \
                 naive code when shorter (+1 flag bit)."
            },
            r.c_l,
            r.k_data,
            r.n_encoded,
            r.n_val,
            r.k_z
        ),
    };
    plot::line_figure(&path.with_extension(""), &figure).map(|_| ())
}

/// Published C^L(Z) (mean, sd over 5 seeds) of emergent languages from iterated learning,
/// Elmoznino et al.'s emergent-language experiment (quoted in the design notes, representational-compositionality.md).
pub const EMERGENT_C_L_ITERATED: (f64, f64) = (1.946, 0.330);
/// The same without iterated learning.
pub const EMERGENT_C_L_NO_ITERATED: (f64, f64) = (1.017, 0.008);

/// One point of a holistic-fraction sweep: h, mean C^L over seeds, its sd, the seed count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HPoint {
    pub h: f64,
    pub mean: f64,
    pub sd: f64,
    pub n: usize,
}

/// `c_l_vs_h.{png,svg}` of `kcomp prequential --sweep-h`: C^L against the holistic fraction,
/// mean +- 1 sd over seeds, with Elmoznino et al.'s published emergent-language values
/// (iterated learning 1.946, none 1.017; 5 seeds; reference protocol) at the ends of the axis.
pub fn write_h_sweep_figure(
    points: &[HPoint],
    scheme: super::code::Scheme,
    stem: &Path,
) -> Result<Vec<PathBuf>> {
    let scheme_name = match scheme {
        super::code::Scheme::Online => "online scheme",
        super::code::Scheme::Reference => "reference protocol",
    };
    let n = points.iter().map(|p| p.n).max().unwrap_or(0);
    let published = |x: f64, (y, err): (f64, f64)| Point { x, y, err };
    // The published values come from the reference protocol: say so when this run used another.
    let other_protocol = match scheme {
        super::code::Scheme::Online => {
            " They come from another protocol (the reference protocol, not this run's online \
             scheme): compare trends, not values."
        }
        super::code::Scheme::Reference => "",
    };
    let published_label = match scheme {
        super::code::Scheme::Online => {
            "published emergent languages, reference protocol: another protocol (mean +- 1 sd)"
        }
        super::code::Scheme::Reference => {
            "published emergent languages, reference protocol (mean +- 1 sd)"
        }
    };
    let figure = Figure {
        panels: vec![Panel {
            title: "Language compositionality against the holistic fraction".into(),
            x_label: "holistic fraction h (objects with exchanged messages)".into(),
            y_label: "C^L(Z) = K(Z) / K(Z|W)".into(),
            x_axis: XAxis::Linear { integer: false },
            y_log: false,
            y_range: None,
            series: vec![
                Series {
                    label: format!("kcomp, {scheme_name} (mean +- 1 sd over seeds)"),
                    points: points
                        .iter()
                        .map(|p| Point {
                            x: p.h,
                            y: p.mean,
                            err: p.sd,
                        })
                        .collect(),
                    reference: false,
                    color: 0,
                },
                Series {
                    label: published_label.into(),
                    points: vec![
                        published(0.0, EMERGENT_C_L_ITERATED),
                        published(1.0, EMERGENT_C_L_NO_ITERATED),
                    ],
                    reference: true,
                    color: 1,
                },
            ],
            reference_line: Some(plot::RefLine::c_one()),
        }],
        caption: format!(
            "kcomp: {scheme_name}, mean over up to {n} seeds per h; error bars: +-1 sd over \
             seeds. Published (Elmoznino et al., ICML 2025, Figure 3; reference protocol, 5 \
             seeds): emergent languages with iterated learning (1.946, drawn at h = 0) and \
             without (1.017, at h = 1), not runs of this generator.{other_protocol}"
        ),
    };
    plot::line_figure(stem, &figure)
}

/// The curve of one run for an overlay: bits per row of each chunk against the rows encoded by
/// its end.
pub fn overlay_curve(label: &str, r: &PrequentialResult) -> plot::overlay::Curve {
    plot::overlay::Curve {
        label: label.to_string(),
        points: r
            .chunks
            .iter()
            .filter(|c| c.end > c.start)
            .map(|c| (c.end as f64, c.bits_per_sample))
            .collect(),
    }
}

/// `overlay.{png,svg}` of several runs on one Z (`kcomp prequential --overlay`,
/// `kcomp.overlay`): one line per W, log x, y zoomed to the learned chunks (the first chunk,
/// sent with the naive code, is drawn but not zoomed to). When every run has the same K(Z),
/// K(Z)/N is drawn as a dashed line (the W-free code per row): a curve under it is what W saves.
pub fn write_overlay(
    runs: &[(String, PrequentialResult)],
    stem: &Path,
    title: &str,
) -> Result<Vec<PathBuf>> {
    let curves: Vec<plot::overlay::Curve> = runs.iter().map(|(l, r)| overlay_curve(l, r)).collect();
    let same_k_z = runs.windows(2).all(|p| {
        (p[0].1.k_z - p[1].1.k_z).abs() <= 1e-9 * p[0].1.k_z.abs()
            && p[0].1.n_encoded + p[0].1.n_val == p[1].1.n_encoded + p[1].1.n_val
    });
    let reference = match (same_k_z, runs.first()) {
        (true, Some((_, r))) if r.n_encoded + r.n_val > 0 => Some(plot::RefLine {
            y: r.k_z / (r.n_encoded + r.n_val) as f64,
            label: format!(
                "K(Z)/N = {:.1} bits per row: the code of Z without W",
                r.k_z / (r.n_encoded + r.n_val) as f64
            ),
        }),
        _ => None,
    };
    let totals: Vec<String> = runs
        .iter()
        .map(|(l, r)| format!("{l}: K(Z|W) = {:.0} bits, C^L = {:.4}", r.k_data, r.c_l))
        .collect();
    let caption = format!(
        "One run per line, no error bars; each point: the bits per row of one chunk, coded by \
         what was learned from the rows before it. The y axis is zoomed to the chunks after \
         the first (sent with the naive code). {}.",
        totals.join("; ")
    );
    plot::overlay::code_length_overlay(stem, title, &curves, 1, reference, &caption)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h_sweep_figure_is_written_as_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let points: Vec<HPoint> = [(0.0, 3.23, 0.2), (0.5, 1.147, 0.05), (1.0, 1.031, 0.01)]
            .map(|(h, mean, sd)| HPoint { h, mean, sd, n: 5 })
            .to_vec();
        let written = write_h_sweep_figure(
            &points,
            crate::estimators::prequential::code::Scheme::Online,
            &dir.path().join("c_l_vs_h"),
        )
        .unwrap();
        assert_eq!(written.len(), 2);
        for p in &written {
            assert!(
                std::fs::metadata(p).unwrap().len() > 1000,
                "{}",
                p.display()
            );
        }
        let svg = std::fs::read_to_string(&written[1]).unwrap();
        assert!(svg.contains("holistic fraction h") && svg.contains("1 sd over seeds"));
        assert!(svg.contains("kcomp, online scheme") && svg.contains("reference protocol"));
        // KCOMP_KEEP_FIGURES=DIR keeps a copy to look at.
        if let Some(keep) = std::env::var_os("KCOMP_KEEP_FIGURES") {
            for p in &written {
                std::fs::copy(p, Path::new(&keep).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
}
