//! `kcomp represent`: its settings, the run (load Z, select the sentence space, code every
//! term) and its outputs (W.npy, terms.json, terms.csv, grid.csv, curve.csv, the figure).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use super::select::{SelectConfig, Selection, select};
use super::{LearnerConfig, learner_by_name};
use crate::dataset::Targets;
use crate::error::{KcompError, Result};
use crate::estimators::prequential::online::LearnerStatus;
use crate::plot::{self, Figure, Panel, Point, Series, XAxis};

/// The settings of a `kcomp represent` run as given (the command line parses into this; see
/// `cli::represent`), before they are checked and Z is loaded ([`RepresentSettings::resolve`]).
#[derive(Debug, Clone)]
pub struct RepresentSettings {
    /// The representation Z (.npy, .csv or .jsonl; one row per object).
    pub z: PathBuf,
    /// Grid spacing at which Z's values are coded.
    pub precision: f64,
    /// Output folder.
    pub out: PathBuf,
    /// Vocabulary sizes V to try (`None`: the default grid).
    pub vocab: Option<Vec<usize>>,
    /// Sentence lengths M to try (`None`: the default grid).
    pub length: Option<Vec<usize>>,
    /// The sentence learner (one of [`super::LEARNERS`]).
    pub learner: String,
    /// Training epochs (k-means: Lloyd iterations at most); `None`: the learner's default
    /// ([`super::default_learner_config`]).
    pub epochs: Option<usize>,
    /// Learning rate (auto-encoder); `None`: the learner's default.
    pub lr: Option<f64>,
    /// The decoder learners of K(Z|W) by name ([`super::terms::parse_decoders`]); `None`: the
    /// default decoders ([`super::terms::TermsConfig::default`]).
    pub decoders: Option<Vec<String>>,
    pub seed: u64,
    /// Worker threads (0 = all cores); the result does not depend on it.
    pub threads: usize,
    /// Write into an output folder that holds other outputs.
    pub force: bool,
}

/// The files a run writes into its output folder.
pub const OUTPUTS: [&str; 9] = [
    "W.npy",
    "terms.json",
    "terms.csv",
    "grid.csv",
    "curve.csv",
    "represent.png",
    "represent.svg",
    crate::io::out_dir::STAMP,
    crate::io::files::LOCK_FILE,
];

/// Most training epochs (Lloyd iterations for k-means) a run may ask for.
pub const MAX_EPOCHS: usize = 100_000;

/// The checked settings of a run.
#[derive(Debug, Clone)]
pub struct RepresentRun {
    pub z_path: PathBuf,
    pub z: Targets,
    pub out: PathBuf,
    pub learner: String,
    pub select: SelectConfig,
    pub threads: usize,
    pub force: bool,
}

impl RepresentSettings {
    /// Checks the options and loads Z.
    pub fn resolve(&self) -> Result<RepresentRun> {
        if !(self.precision.is_finite() && self.precision > 0.0) {
            return Err(KcompError::param(
                "precision",
                format!("must be positive and finite, got {}", self.precision),
            ));
        }
        let learner = learner_by_name(&self.learner)?;
        if let Some(e) = self.epochs
            && !(1..=MAX_EPOCHS).contains(&e)
        {
            return Err(KcompError::param(
                "epochs",
                format!("must be in 1..={MAX_EPOCHS}, got {e}"),
            ));
        }
        if self.lr.is_some() && self.learner == "kmeans" {
            return Err(KcompError::param(
                "lr",
                "the k-means learner has no learning rate (--lr is for --learner autoencoder)",
            ));
        }
        if let Some(lr) = self.lr
            && !(lr.is_finite() && lr > 0.0)
        {
            return Err(KcompError::param(
                "lr",
                format!("must be positive and finite, got {lr}"),
            ));
        }
        let defaults = super::default_learner_config(&self.learner);
        crate::io::limits::check_threads("threads", self.threads, true)?;
        // Before Z is read: an input the run would replace is refused, --force or not.
        crate::io::out_dir::check_inputs(&self.out, &OUTPUTS, &[("z", &self.z)])?;
        let table = crate::io::user_data::read_table(&self.z)?;
        let z = crate::io::user_data::targets_from_table(&table, &self.z, Some(self.precision))?;
        super::select::check_z(&z).map_err(|e| KcompError::file(&self.z, e.to_string()))?;
        let mut terms = super::terms::TermsConfig::default();
        if let Some(names) = &self.decoders {
            terms.decoder_learners = super::terms::parse_decoders(names)?;
        }
        let select = SelectConfig {
            terms,
            lengths: self.length.clone(),
            vocabs: self.vocab.clone(),
            learner: LearnerConfig {
                epochs: self.epochs.unwrap_or(defaults.epochs),
                lr: self.lr.unwrap_or(defaults.lr),
                ..defaults
            },
            seed: self.seed,
            ..Default::default()
        };
        // The grid is checked before the output folder is claimed.
        super::select::check_grid(learner.as_ref(), &z, &select)?;
        Ok(RepresentRun {
            z_path: self.z.clone(),
            z,
            out: self.out.clone(),
            learner: self.learner.clone(),
            select,
            threads: self.threads,
            force: self.force,
        })
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RepresentOutput {
    pub selection: Selection,
    pub files: Vec<PathBuf>,
    pub json: serde_json::Value,
}

impl RepresentRun {
    /// The settings that fill the output folder (its stamp).
    pub fn stamp(&self) -> serde_json::Value {
        json!({
            "command": "represent",
            "z": self.z_path.display().to_string(),
            "precision": match &self.z { Targets::Continuous { lam, .. } => *lam, _ => 0.0 },
            "learner": self.learner,
            "lengths": self.select.lengths,
            "vocabs": self.select.vocabs,
            "epochs": self.select.learner.epochs,
            "lr": self.select.learner.lr,
            "decoders": decoder_names(&self.select),
            "seed": self.select.seed,
        })
    }

    /// Learns, selects, codes and writes the outputs.
    pub fn run(&self, show_progress: bool) -> Result<RepresentOutput> {
        let _lock = crate::io::out_dir::claim_locked(&self.out, &self.stamp(), self.force)?;
        let learner = learner_by_name(&self.learner)?;
        let bar = if show_progress {
            crate::progress::bar(0, "sentence spaces", "represent")
        } else {
            indicatif::ProgressBar::hidden()
        };
        let progress = |done: usize, total: usize| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        };
        let selection = crate::estimators::prequential::code::in_pool(self.threads, || {
            select(learner.as_ref(), &self.z, &self.select, &progress)
        })??;
        bar.finish_and_clear();
        let (files, json) = write_outputs(
            &self.out,
            &selection,
            &self.learner,
            &decoder_names(&self.select),
            &self.z,
        )?;
        Ok(RepresentOutput {
            selection,
            files,
            json,
        })
    }
}

/// One row of terms.csv.
#[derive(Serialize)]
struct TermRow<'a> {
    term: &'a str,
    bits: f64,
    what: &'a str,
}

/// One row of curve.csv.
#[derive(Serialize)]
struct CurveRow {
    epoch: usize,
    prior_bits_per_row: f64,
    reconstruction_bits_per_row: f64,
}

/// The names of the decoder learners a selection codes K(Z|W) with.
pub fn decoder_names(cfg: &SelectConfig) -> Vec<String> {
    cfg.terms
        .decoder_learners
        .iter()
        .map(|l| l.name())
        .collect()
}

/// The JSON of a selection (terms, chosen space, grid).
pub fn selection_json(s: &Selection, learner: &str, decoders: &[String]) -> serde_json::Value {
    json!({
        "learner": learner,
        "decoders": decoders,
        "units": "bits (totals over the N rows)",
        "n": s.learned.w.n,
        "terms": s.terms,
        "grid": s.points,
    })
}

fn write_outputs(
    dir: &Path,
    s: &Selection,
    learner: &str,
    decoders: &[String],
    z: &Targets,
) -> Result<(Vec<PathBuf>, serde_json::Value)> {
    let w = &s.learned.w;
    let arr = ndarray::Array2::from_shape_vec(
        (w.n, w.n_words),
        w.tokens.iter().map(|&t| t as i64).collect(),
    )
    .map_err(|e| KcompError::Other(format!("W shape: {e}")))?;
    let w_path = dir.join("W.npy");
    crate::io::npy::write_npy(&w_path, &arr)?;
    let json = selection_json(s, learner, decoders);
    let json_path = dir.join("terms.json");
    crate::io::files::atomic_write(
        &json_path,
        serde_json::to_string_pretty(&json)
            .expect("serialisable")
            .as_bytes(),
    )?;
    let t = &s.terms;
    let rows = [
        TermRow {
            term: "k_pw_plus_k_w_given_pw",
            bits: t.k_w_bits,
            what: "K(p_w) + K(W|p_w) = 1 + min(positions code, class code): the shorter code of W",
        },
        TermRow {
            term: "k_w_positions",
            bits: t.k_w_positions_bits,
            what: "positions code of W: column by column under a causal prior",
        },
        TermRow {
            term: "k_f",
            bits: t.k_f_bits,
            what: "K(f): prequential sum minus the final decoder's code",
        },
        TermRow {
            term: "k_z_given_wf",
            bits: t.k_z_given_wf_bits,
            what: "K(Z|W,f): the final decoder's code of Z",
        },
        TermRow {
            term: "k_z_given_w_learned",
            bits: t.k_z_given_w_learned_bits,
            what: "K(f) + K(Z|W,f): prequential code of Z given the learned W",
        },
        TermRow {
            term: "space",
            bits: t.space_bits,
            what: "M and V, Elias-delta",
        },
        TermRow {
            term: "naive",
            bits: t.naive_bits,
            what: "naive code of Z (discretised Gaussian per dimension)",
        },
        TermRow {
            term: "k_z",
            bits: t.k_z_bits,
            what: "K(Z) = 1 + min(space + K(W) + K(Z|W), naive)",
        },
        TermRow {
            term: "k_z_given_w",
            bits: t.k_z_given_w_bits,
            what: "K(Z|W) of the chosen description",
        },
    ];
    let class_row = t.k_w_class_bits.map(|bits| TermRow {
        term: "k_w_class_bigram",
        bits,
        what: "class code of W: learned word classes, then class bigram and word given class",
    });
    let rows: Vec<&TermRow> = rows.iter().chain(class_row.as_ref()).collect();
    let csv_path = dir.join("terms.csv");
    // `bits` in the header says the unit.
    crate::io::table::write_records(
        &csv_path,
        std::iter::once(vec![
            "term".to_string(),
            "bits".to_string(),
            "what".to_string(),
        ])
        .chain(rows.iter().map(|r| {
            vec![
                r.term.to_string(),
                format!("{}", r.bits),
                r.what.to_string(),
            ]
        }))
        .chain(std::iter::once(vec![
            "c".to_string(),
            format!("{}", t.c),
            "C(Z) = K(Z) / K(Z|W) (a ratio, no unit)".to_string(),
        ])),
    )?;
    let grid_path = dir.join("grid.csv");
    crate::io::table::write_csv(&grid_path, &s.points)?;
    let curve_path = dir.join("curve.csv");
    crate::io::table::write_csv(
        &curve_path,
        s.learned.curve.iter().map(|e| CurveRow {
            epoch: e.epoch,
            prior_bits_per_row: e.prior_bits_per_row,
            reconstruction_bits_per_row: e.reconstruction_bits_per_row,
        }),
    )?;
    let mut files = vec![w_path, json_path, csv_path, grid_path, curve_path];
    files.extend(figure(&dir.join("represent"), s, z, learner)?);
    Ok((files, json))
}

/// The figure: the winner's training curve (bits per row against epoch) and the total code
/// length of every grid point against V, one line per M, beside the naive code.
fn figure(stem: &Path, s: &Selection, z: &Targets, learner: &str) -> Result<Vec<PathBuf>> {
    // k-means has Lloyd iterations, not epochs of gradient training.
    let step = if learner == "kmeans" {
        "k-means iteration (Lloyd)"
    } else {
        "epoch"
    };
    let n = z.n() as f64;
    let curve = &s.learned.curve;
    let pts = |f: &dyn Fn(&super::EpochRecord) -> f64| -> Vec<Point> {
        curve
            .iter()
            .map(|e| Point {
                x: e.epoch as f64,
                y: f(e),
                err: 0.0,
            })
            .collect()
    };
    let training = Panel {
        title: format!(
            "Fit of the sentences at M = {}, V = {} ({learner})",
            s.terms.length, s.terms.vocab
        ),
        x_label: step.into(),
        y_label: "bits per row".into(),
        x_axis: XAxis::Linear { integer: true },
        y_log: false,
        y_range: None,
        series: vec![
            Series {
                label: "prior -log2 p_w(e(z))".into(),
                points: pts(&|e| e.prior_bits_per_row),
                reference: false,
                color: 0,
            },
            Series {
                label: "reconstruction -log2 p(z|f(e(z)))".into(),
                points: pts(&|e| e.reconstruction_bits_per_row),
                reference: false,
                color: 1,
            },
        ],
        reference_line: None,
    };
    let mut lengths: Vec<usize> = s.points.iter().map(|p| p.length).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let series: Vec<Series> = lengths
        .iter()
        .enumerate()
        .map(|(k, &m)| {
            let mut p: Vec<Point> = s
                .points
                .iter()
                .filter(|p| p.length == m)
                .map(|p| Point {
                    x: p.vocab as f64,
                    y: p.total_bits / n,
                    err: 0.0,
                })
                .collect();
            p.sort_by(|a, b| a.x.total_cmp(&b.x));
            Series {
                label: format!("M = {m}"),
                points: p,
                reference: false,
                color: k + 2,
            }
        })
        .collect();
    let totals = Panel {
        title: "Total code length per sentence space".into(),
        x_label: "vocabulary size V".into(),
        y_label: "K(Z) through W, bits per row".into(),
        // The grid doubles V (2, 4, ..., 32 and up to N at M = 1): a linear axis crushed it.
        x_axis: XAxis::Log2,
        y_log: false,
        y_range: None,
        series,
        // The naive code is one number, not a measurement per V: a dashed line, explained
        // in the legend.
        reference_line: Some(plot::RefLine {
            y: s.terms.naive_bits / n,
            label: format!(
                "naive code of Z, {:.1} bits per row",
                s.terms.naive_bits / n
            ),
        }),
    };
    let figure = Figure {
        panels: vec![training, totals],
        caption: format!(
            "Left: the selected sentence space's fit, bits per row by {step} ({} points). Right: \
             space + K(W) + K(Z|W) per row for every (M, V) tried; dashed: the naive code of Z. \
             Selected: M = {}, V = {}; K(Z) = {:.1} bits, C(Z) = {:.3}{}.",
            curve.len(),
            s.terms.length,
            s.terms.vocab,
            s.terms.k_z_bits,
            s.terms.c,
            if s.terms.w_paid {
                ""
            } else {
                " (the learned W did not pay)"
            }
        ),
    };
    plot::line_figure(stem, &figure)
}

/// The text `kcomp represent` prints.
pub fn to_text(out: &RepresentOutput) -> String {
    let t = &out.selection.terms;
    let mut s = String::new();
    s.push_str(&format!(
        "sentence space: M = {} words over V = {} (chosen by total code length among {} tried)\n",
        t.length,
        t.vocab,
        out.selection.points.len()
    ));
    s.push_str(&format!(
        "K(p_w) + K(W|p_w)  {:>14.1} bits\nK(f) + K(Z|W,f)    {:>14.1} bits  (K(f) {:.1}, K(Z|W,f) {:.1})\n",
        t.k_w_bits, t.k_z_given_w_learned_bits, t.k_f_bits, t.k_z_given_wf_bits
    ));
    s.push_str(&format!(
        "  code of W: {} (positions code {:.1} bits; {})\n",
        t.k_w_code.name(),
        t.k_w_positions_bits,
        match (t.k_w_class_bits, t.k_w_classes) {
            (Some(b), Some(k)) => format!("class code {b:.1} bits, {k} word classes"),
            _ => "class code not tried: M < 2 or V > 256".to_string(),
        }
    ));
    s.push_str(&format!(
        "naive code of Z    {:>14.1} bits\nK(Z)               {:>14.1} bits\nK(Z|W)             {:>14.1} bits\nC(Z) = K(Z)/K(Z|W) {:>14.4}\n",
        t.naive_bits, t.k_z_bits, t.k_z_given_w_bits, t.c
    ));
    if let Some(top) = t
        .decoders
        .iter()
        .filter(|d| d.status == LearnerStatus::Ran)
        .max_by(|a, b| a.share.total_cmp(&b.share))
    {
        s.push_str(&format!(
            "the code of Z given the learned W rests on the decoder {} ({:.0} % of its bits)\n",
            crate::io::names::terminal(&top.name),
            100.0 * top.share
        ));
    }
    for note in &t.notes {
        s.push_str(&format!("note: {note}\n"));
    }
    for f in &out.files {
        s.push_str(&format!(
            "wrote {}\n",
            crate::io::names::terminal(&f.display().to_string())
        ));
    }
    s
}
