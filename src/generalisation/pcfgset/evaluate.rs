//! A model's PCFG SET predictions scored for the five tests with the published conventions
//! (Hupkes et al. 2020, section 6.4 and the repository i-machine-think/am-i-compositional).
//!
//! - Accuracy: a prediction counts if it equals the target exactly after stripping outer
//!   whitespace (`src/evaluate/accuracy.py`), for task accuracy (`pcfgset/`), systematicity
//!   and productivity; systematicity per held-out pair counts the lines holding the pair as
//!   adjacent tokens (`accuracy_per_pattern.py` tests a substring, the same lines here since
//!   no function name ends another).
//! - Consistency: two predictions count if they are equal, correct or not; substitutivity
//!   compares `run=N.txt` with `run=N_synonym.txt` line by line, localism the final unrolled
//!   output with the output for the whole sequence.
//! - Overgeneralisation: per epoch, the accuracy on the exception inputs measured against
//!   the original (rule-following) targets; its peak over training.
//!
//! Every score is a mean over the runs found (3 per model in the published predictions).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Serialize;

use super::interpreter::{DEFAULT_MAX_OUTPUT, Function, Semantics, evaluate_sequence};
use crate::error::{KcompError, Result};
use crate::io::limits::read_text;
use crate::io::table::{decimal, decimal_opt};

/// One line of a prediction file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    pub source: String,
    pub target: String,
    pub prediction: String,
}

/// Reads a prediction file: a header naming the columns `source`, `target` and `prediction`
/// (any order, tab-separated), then one tab-separated line per input.
pub fn read_predictions(path: &Path) -> Result<Vec<Prediction>> {
    let text = read_text(path)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| KcompError::file(path, "is empty"))?
        .split('\t')
        .map(str::trim)
        .collect();
    let col = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            KcompError::file(
                path,
                format!("the header lacks the column `{name}` (source, target, prediction)"),
            )
        })
    };
    let (s, t, p) = (col("source")?, col("target")?, col("prediction")?);
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != header.len() {
            return Err(KcompError::file(
                path,
                format!(
                    "line {}: {} tab-separated fields, the header has {}",
                    i + 2,
                    fields.len(),
                    header.len()
                ),
            ));
        }
        out.push(Prediction {
            source: fields[s].trim().to_owned(),
            target: fields[t].trim().to_owned(),
            prediction: fields[p].trim().to_owned(),
        });
    }
    if out.is_empty() {
        return Err(KcompError::file(path, "holds no predictions"));
    }
    Ok(out)
}

/// Exact-match accuracy (stripped strings, the published convention).
pub fn accuracy(preds: &[Prediction]) -> f64 {
    let hits = preds.iter().filter(|p| p.prediction == p.target).count();
    hits as f64 / preds.len() as f64
}

/// Lines whose target the interpreter does not reproduce (a sanity check of the file; the
/// scores compare with the file's targets, as published).
pub fn target_disagreements(preds: &[Prediction]) -> usize {
    preds
        .iter()
        .filter(
            |p| match evaluate_sequence(&p.source, Semantics::Standard, DEFAULT_MAX_OUTPUT) {
                Ok(v) => !v.iter().copied().eq(p.target.split_whitespace()),
                Err(_) => true,
            },
        )
        .count()
}

/// The systematicity test's four held-out pairs (Hupkes et al. 2020, Table 4).
pub const HELD_OUT_PAIRS: [(Function, Function); 4] = [
    (Function::SwapFirstLast, Function::Repeat),
    (Function::Append, Function::RemoveSecond),
    (Function::Repeat, Function::RemoveSecond),
    (Function::Append, Function::SwapFirstLast),
];

/// Whether `source` holds the two function tokens adjacently, in this order.
pub fn holds_pair(source: &str, pair: (Function, Function)) -> bool {
    let tokens: Vec<&str> = source.split_whitespace().collect();
    tokens
        .windows(2)
        .any(|w| w[0] == pair.0.name() && w[1] == pair.1.name())
}

/// Accuracy on the lines holding a pair (`None` if none does).
pub fn pair_accuracy(preds: &[Prediction], pair: (Function, Function)) -> Option<f64> {
    let hits: Vec<bool> = preds
        .iter()
        .filter(|p| holds_pair(&p.source, pair))
        .map(|p| p.prediction == p.target)
        .collect();
    (!hits.is_empty()).then(|| hits.iter().filter(|&&h| h).count() as f64 / hits.len() as f64)
}

/// Substitutivity scores of one run (Hupkes et al. 2020, Tables 3 and 6).
#[derive(Debug, Clone, PartialEq)]
pub struct Substitutivity {
    /// Pairs with equal predictions, over all pairs.
    pub consistency: f64,
    /// Pairs with both predictions correct, over all pairs.
    pub consistent_correct: f64,
    /// Pairs with equal but incorrect predictions, over all pairs.
    pub consistent_incorrect: f64,
    /// Equal predictions among the pairs where at least one is incorrect (`None` if all
    /// pairs are correct).
    pub consistency_on_incorrect: Option<f64>,
    /// Consistency per synonym function (the one `_twin` token of each line).
    pub per_function: BTreeMap<Function, f64>,
}

/// Scores the synonym test of one run: `original[i]` and `synonym[i]` must be the same input
/// but for `_twin` suffixes.
pub fn substitutivity(
    original: &[Prediction],
    synonym: &[Prediction],
    synonym_path: &Path,
) -> Result<Substitutivity> {
    if original.len() != synonym.len() {
        return Err(KcompError::file(
            synonym_path,
            format!(
                "has {} predictions, the original run has {}",
                synonym.len(),
                original.len()
            ),
        ));
    }
    let n = original.len() as f64;
    let (mut consistent, mut correct, mut incorrect_pairs, mut consistent_incorrect) = (0, 0, 0, 0);
    let mut per_function: BTreeMap<Function, (usize, usize)> = BTreeMap::new();
    for (i, (a, b)) in original.iter().zip(synonym).enumerate() {
        let untwinned: Vec<&str> = b
            .source
            .split_whitespace()
            .map(|t| t.strip_suffix("_twin").unwrap_or(t))
            .collect();
        if !untwinned.iter().copied().eq(a.source.split_whitespace()) {
            return Err(KcompError::file(
                synonym_path,
                format!(
                    "prediction {}: the source is not the original's with `_twin` synonyms",
                    i + 1
                ),
            ));
        }
        let same = a.prediction == b.prediction;
        let both_correct = a.prediction == a.target && b.prediction == b.target;
        consistent += same as usize;
        correct += (same && both_correct) as usize;
        if !both_correct {
            incorrect_pairs += 1;
            consistent_incorrect += same as usize;
        }
        let twin = b
            .source
            .split_whitespace()
            .find_map(|t| t.strip_suffix("_twin").and_then(Function::from_token));
        if let Some((f, _)) = twin {
            let e = per_function.entry(f).or_default();
            e.0 += same as usize;
            e.1 += 1;
        }
    }
    Ok(Substitutivity {
        consistency: consistent as f64 / n,
        consistent_correct: correct as f64 / n,
        consistent_incorrect: consistent_incorrect as f64 / n,
        consistency_on_incorrect: (incorrect_pairs > 0)
            .then(|| consistent_incorrect as f64 / incorrect_pairs as f64),
        per_function: per_function
            .into_iter()
            .map(|(f, (c, t))| (f, c as f64 / t as f64))
            .collect(),
    })
}

/// Localism scores of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Localism {
    pub samples: usize,
    /// Samples whose final unrolled output equals the output for the whole sequence.
    pub consistency: f64,
    /// Samples whose `True`/`False` line disagrees with the recomputed consistency.
    pub flag_disagreements: usize,
}

/// Scores a localism run file: samples separated by lines of dashes, each a list of
/// `source -> output` lines (the unrolled steps, then the whole sequence) and a `True`/`False`
/// line.
pub fn localism(path: &Path) -> Result<Localism> {
    let text = read_text(path)?;
    let (mut samples, mut consistent, mut flag_disagreements) = (0, 0, 0);
    let mut outputs: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.chars().all(|c| c == '-') {
            continue;
        }
        if line == "True" || line == "False" {
            if outputs.len() < 2 {
                return Err(KcompError::file(
                    path,
                    format!(
                        "line {}: a sample needs an unrolled and a whole output",
                        i + 1
                    ),
                ));
            }
            let same = outputs[outputs.len() - 1] == outputs[outputs.len() - 2];
            samples += 1;
            consistent += same as usize;
            flag_disagreements += (same != (line == "True")) as usize;
            outputs.clear();
            continue;
        }
        let Some((_, out)) = line.split_once(" ->") else {
            return Err(KcompError::file(
                path,
                format!("line {}: expected `source -> output`", i + 1),
            ));
        };
        outputs.push(out.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    if samples == 0 {
        return Err(KcompError::file(path, "holds no localism samples"));
    }
    Ok(Localism {
        samples,
        consistency: consistent as f64 / samples as f64,
        flag_disagreements,
    })
}

/// One run's overgeneralisation curve: per epoch, the accuracy on the exception inputs against
/// the exception targets (`adapted`, memorisation) and against the original targets
/// (`original`, overgeneralisation).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub adapted: Vec<f64>,
    pub original: Vec<f64>,
}

/// Reads a per-epoch log: `Adapted - Sequence Accuracy[:] x` and `Original - Sequence
/// Accuracy[:] x` lines alternate; lines with `ERROR` are skipped, as in the published
/// plotting script.
pub fn read_curve(path: &Path) -> Result<Curve> {
    let text = read_text(path)?;
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if !line.contains("Sequence Accuracy") || line.contains("ERROR") {
            continue;
        }
        let v: f64 = line
            .split_whitespace()
            .last()
            .and_then(|w| w.parse().ok())
            .filter(|v: &f64| (0.0..=1.0).contains(v))
            .ok_or_else(|| {
                KcompError::file(path, format!("line {}: no accuracy in [0, 1]", i + 1))
            })?;
        let adapted = line.trim_start().starts_with("Adapted");
        if adapted != (values.len() % 2 == 0) {
            return Err(KcompError::file(
                path,
                format!(
                    "line {}: Adapted and Original lines do not alternate",
                    i + 1
                ),
            ));
        }
        values.push(v);
    }
    if values.len() < 2 || values.len() % 2 != 0 {
        return Err(KcompError::file(path, "holds no complete epoch"));
    }
    Ok(Curve {
        adapted: values.iter().step_by(2).copied().collect(),
        original: values.iter().skip(1).step_by(2).copied().collect(),
    })
}

/// Peaks of the overgeneralisation curves of several runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OvergenPeak {
    /// Maximum over epochs of the mean (over runs) original-target accuracy, over the epochs
    /// every run reached.
    #[serde(serialize_with = "decimal")]
    pub peak_of_mean: f64,
    /// Mean over runs of each run's maximum.
    #[serde(serialize_with = "decimal")]
    pub mean_of_peaks: f64,
    /// The published plotting script's curve: 0 prepended, the first 25 epochs, padded to 28
    /// with the last value, averaged over runs, then a running mean over 3 epochs; its maximum.
    #[serde(serialize_with = "decimal")]
    pub plotted_peak: f64,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Population standard deviation (NumPy's default, as the published scripts use).
fn std(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
}

/// The published plotting script's curve for one series (see [`OvergenPeak::plotted_peak`]).
pub fn plotted_series(series: &[f64]) -> Vec<f64> {
    let mut s = vec![0.0];
    s.extend(series.iter().take(25));
    let last = *s.last().unwrap_or(&0.0);
    s.resize(28, last);
    s
}

/// Peaks of the overgeneralisation curves of several runs.
pub fn overgeneralisation_peak(curves: &[Curve]) -> OvergenPeak {
    let epochs = curves.iter().map(|c| c.original.len()).min().unwrap_or(0);
    let mean_curve: Vec<f64> = (0..epochs)
        .map(|e| mean(&curves.iter().map(|c| c.original[e]).collect::<Vec<_>>()))
        .collect();
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let padded: Vec<Vec<f64>> = curves.iter().map(|c| plotted_series(&c.original)).collect();
    let avg: Vec<f64> = (0..28)
        .map(|e| mean(&padded.iter().map(|p| p[e]).collect::<Vec<_>>()))
        .collect();
    let running: Vec<f64> = avg.windows(3).map(mean).take(26).collect();
    OvergenPeak {
        peak_of_mean: max(&mean_curve),
        mean_of_peaks: mean(&curves.iter().map(|c| max(&c.original)).collect::<Vec<_>>()),
        plotted_peak: max(&running),
    }
}

/// The published architectures' names in the prediction folders, with their display names.
pub const MODELS: [(&str, &str); 3] = [
    ("lstms2s", "LSTMS2S"),
    ("convs2s", "ConvS2S"),
    ("transformer", "Transformer"),
];

/// Paper values (Hupkes et al. 2020, section 7 and Tables 3 and 5; means over 3 runs) for a
/// metric key and a model folder name. Systematicity's Table 3 row is not in the text we
/// hold (only its standard deviations), so it has none.
pub fn paper_value(metric: &str, model: &str) -> Option<f64> {
    let i = MODELS.iter().position(|(m, _)| *m == model)?;
    let row: [f64; 3] = match metric {
        "task_accuracy" => [0.79, 0.85, 0.92],
        "productivity" => [0.30, 0.32, 0.56],
        // Table 5's Consistency row; section 7.4.1's text gives ConvS2S and Transformer the
        // other way round (0.96 and 0.98 "respectively").
        "substitutivity_equally_distributed" => [0.74, 0.96, 0.98],
        "substitutivity_primitive" => [0.62, 0.61, 0.88],
        "localism" => [0.45, 0.57, 0.56],
        // Section 7.6.1: the overgeneralisation peak at an exception percentage of 0.1%.
        "overgeneralisation_peak_0.001" => [0.73, 0.78, 0.84],
        _ => return None,
    };
    Some(row[i])
}

/// One row of the report: a metric of one model, per run and averaged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreRow {
    pub model: String,
    pub metric: String,
    pub runs: usize,
    #[serde(serialize_with = "decimal")]
    pub mean: f64,
    #[serde(serialize_with = "decimal")]
    pub std: f64,
    /// Per-run values separated by spaces.
    pub per_run: String,
    #[serde(serialize_with = "decimal_opt")]
    pub paper: Option<f64>,
}

/// One point of a mean overgeneralisation curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurveRow {
    pub model: String,
    pub ratio: String,
    pub epoch: usize,
    /// Mean over runs of the accuracy against the original targets (overgeneralisation).
    #[serde(serialize_with = "decimal")]
    pub overgeneralisation: f64,
    /// Mean over runs of the accuracy against the exception targets (memorisation).
    #[serde(serialize_with = "decimal")]
    pub memorisation: f64,
}

/// Everything `kcomp pcfgset evaluate` reports.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub rows: Vec<ScoreRow>,
    pub curves: Vec<CurveRow>,
    /// Prediction lines whose target the interpreter does not reproduce, per model.
    pub target_disagreements: BTreeMap<String, usize>,
    /// Localism samples whose published True/False flag disagrees with the recomputation.
    pub localism_flag_disagreements: BTreeMap<String, usize>,
    /// Tests with no prediction files, per model.
    pub missing: Vec<(String, String)>,
}

/// A folder or file name made safe to print: anything but `[A-Za-z0-9_.=-]` becomes `_`.
pub fn safe_name(name: &str) -> String {
    name.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.=-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Files `run=N.txt` (or, with `suffix`, `run=N{suffix}.txt`) in a folder, by run number.
fn run_files(dir: &Path, suffix: &str) -> Result<BTreeMap<u32, PathBuf>> {
    let mut out = BTreeMap::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    let re = Regex::new(&format!(r"^run=(\d{{1,6}}){}\.txt$", regex::escape(suffix)))
        .expect("static pattern");
    for entry in std::fs::read_dir(dir).map_err(|e| KcompError::io(dir, e))? {
        let entry = entry.map_err(|e| KcompError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(c) = re.captures(name) {
            out.insert(c[1].parse().expect("digits"), entry.path());
        }
    }
    Ok(out)
}

/// Overgeneralisation logs in a folder: ratio -> run -> path, from names ending in
/// `ratio=R_run=N.txt`.
fn overgen_files(dir: &Path) -> Result<BTreeMap<String, BTreeMap<u32, PathBuf>>> {
    let mut out: BTreeMap<String, BTreeMap<u32, PathBuf>> = BTreeMap::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    let re = Regex::new(r"(?:^|_)ratio=([0-9]*\.?[0-9]+)_run=(\d{1,6})\.txt$").expect("static");
    for entry in std::fs::read_dir(dir).map_err(|e| KcompError::io(dir, e))? {
        let entry = entry.map_err(|e| KcompError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(c) = re.captures(name) {
            out.entry(c[1].to_owned())
                .or_default()
                .insert(c[2].parse().expect("digits"), entry.path());
        }
    }
    Ok(out)
}

fn row(model: &str, metric: &str, values: &[f64]) -> ScoreRow {
    ScoreRow {
        model: model.to_owned(),
        metric: metric.to_owned(),
        runs: values.len(),
        mean: mean(values),
        std: std(values),
        per_run: values
            .iter()
            .map(|v| format!("{v:.4}"))
            .collect::<Vec<_>>()
            .join(" "),
        paper: paper_value(metric, model),
    }
}

/// Scores one model's folder of the published `model_predictions/<model>/` layout.
pub fn evaluate_model(dir: &Path, model: &str, report: &mut Report) -> Result<()> {
    let mut disagreements = 0;
    let mut any = false;
    for (test, metric) in [
        ("pcfgset", "task_accuracy"),
        ("systematicity", "systematicity"),
        ("productivity", "productivity"),
    ] {
        let files = run_files(&dir.join(test), "")?;
        if files.is_empty() {
            report.missing.push((model.to_owned(), test.to_owned()));
            continue;
        }
        any = true;
        let mut values = Vec::new();
        let mut pairs: Vec<Vec<f64>> = vec![Vec::new(); HELD_OUT_PAIRS.len()];
        for path in files.values() {
            let preds = read_predictions(path)?;
            disagreements += target_disagreements(&preds);
            values.push(accuracy(&preds));
            if test == "systematicity" {
                for (k, pair) in HELD_OUT_PAIRS.iter().enumerate() {
                    if let Some(a) = pair_accuracy(&preds, *pair) {
                        pairs[k].push(a);
                    }
                }
            }
        }
        report.rows.push(row(model, metric, &values));
        for (k, (a, b)) in HELD_OUT_PAIRS.iter().enumerate() {
            if !pairs[k].is_empty() {
                let name = format!("systematicity_{}_{}", a.name(), b.name());
                report.rows.push(row(model, &name, &pairs[k]));
            }
        }
    }
    for condition in ["equally_distributed", "primitive"] {
        let sub = dir.join("substitutivity").join(condition);
        let originals = run_files(&sub, "")?;
        let synonyms = run_files(&sub, "_synonym")?;
        let runs: Vec<u32> = originals
            .keys()
            .filter(|r| synonyms.contains_key(r))
            .copied()
            .collect();
        if runs.is_empty() {
            report
                .missing
                .push((model.to_owned(), format!("substitutivity/{condition}")));
            continue;
        }
        any = true;
        let mut scores = Vec::new();
        for r in runs {
            let a = read_predictions(&originals[&r])?;
            let b = read_predictions(&synonyms[&r])?;
            disagreements += target_disagreements(&a);
            scores.push(substitutivity(&a, &b, &synonyms[&r])?);
        }
        let base = format!("substitutivity_{condition}");
        let col = |f: &dyn Fn(&Substitutivity) -> Option<f64>| -> Vec<f64> {
            scores.iter().filter_map(f).collect()
        };
        report
            .rows
            .push(row(model, &base, &col(&|s| Some(s.consistency))));
        report.rows.push(row(
            model,
            &format!("{base}_consistent_correct"),
            &col(&|s| Some(s.consistent_correct)),
        ));
        report.rows.push(row(
            model,
            &format!("{base}_consistent_incorrect"),
            &col(&|s| Some(s.consistent_incorrect)),
        ));
        let on_incorrect = col(&|s| s.consistency_on_incorrect);
        if !on_incorrect.is_empty() {
            report.rows.push(row(
                model,
                &format!("{base}_consistency_on_incorrect"),
                &on_incorrect,
            ));
        }
        for f in Function::ALL {
            let v = col(&|s| s.per_function.get(&f).copied());
            if !v.is_empty() {
                report
                    .rows
                    .push(row(model, &format!("{base}_{}", f.name()), &v));
            }
        }
    }
    let files = run_files(&dir.join("localism"), "")?;
    if files.is_empty() {
        report.missing.push((model.to_owned(), "localism".into()));
    } else {
        any = true;
        let mut values = Vec::new();
        let mut flags = 0;
        for path in files.values() {
            let l = localism(path)?;
            values.push(l.consistency);
            flags += l.flag_disagreements;
        }
        report.rows.push(row(model, "localism", &values));
        report
            .localism_flag_disagreements
            .insert(model.to_owned(), flags);
    }
    let ratios = overgen_files(&dir.join("overgeneralisation"))?;
    if ratios.is_empty() {
        report
            .missing
            .push((model.to_owned(), "overgeneralisation".into()));
    }
    for (ratio, files) in &ratios {
        any = true;
        let curves = files
            .values()
            .map(|p| read_curve(p))
            .collect::<Result<Vec<_>>>()?;
        let peak = overgeneralisation_peak(&curves);
        let per_run: Vec<f64> = curves
            .iter()
            .map(|c| c.original.iter().copied().fold(0.0, f64::max))
            .collect();
        let mut r = row(model, &format!("overgeneralisation_peak_{ratio}"), &per_run);
        // The row's mean is the peak of the mean curve; mean_of_peaks and the plotting
        // script's peak go in their own rows.
        r.mean = peak.peak_of_mean;
        report.rows.push(r);
        let mut r = row(
            model,
            &format!("overgeneralisation_mean_of_peaks_{ratio}"),
            &per_run,
        );
        r.paper = None;
        report.rows.push(r);
        let mut r = row(
            model,
            &format!("overgeneralisation_plotted_peak_{ratio}"),
            &[peak.plotted_peak],
        );
        r.per_run = String::new();
        report.rows.push(r);
        let epochs = curves.iter().map(|c| c.original.len()).min().unwrap_or(0);
        for e in 0..epochs {
            report.curves.push(CurveRow {
                model: model.to_owned(),
                ratio: ratio.clone(),
                epoch: e + 1,
                overgeneralisation: mean(&curves.iter().map(|c| c.original[e]).collect::<Vec<_>>()),
                memorisation: mean(&curves.iter().map(|c| c.adapted[e]).collect::<Vec<_>>()),
            });
        }
    }
    if !any {
        return Err(KcompError::file(
            dir,
            "holds none of the prediction folders (pcfgset/, systematicity/, productivity/, substitutivity/, localism/, overgeneralisation/)",
        ));
    }
    report
        .target_disagreements
        .insert(model.to_owned(), disagreements);
    Ok(())
}

/// Scores every model folder under `root` (the published `model_predictions/` folder, or the
/// repository root holding it). Models are the subfolders, in name order.
pub fn evaluate_folder(root: &Path) -> Result<Report> {
    let base = if root.join("model_predictions").is_dir() {
        root.join("model_predictions")
    } else {
        root.to_path_buf()
    };
    if !base.is_dir() {
        return Err(KcompError::file(root, "is not a directory"));
    }
    let mut models: Vec<(String, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(&base).map_err(|e| KcompError::io(&base, e))? {
        let entry = entry.map_err(|e| KcompError::io(&base, e))?;
        if entry.path().is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            models.push((safe_name(&name), entry.path()));
        }
    }
    models.sort();
    if models.is_empty() {
        return Err(KcompError::file(root, "holds no model folders"));
    }
    let mut report = Report::default();
    // The published predictions take seconds per model.
    let bar = crate::progress::bar(models.len() as u64, "models", "pcfgset evaluate");
    for (name, path) in models {
        bar.set_message(name.clone());
        evaluate_model(&path, &name, &mut report)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(report)
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<12} {:<58} {:>4} {:>7} {:>7} {:>6}  per run",
            "model", "metric", "runs", "mean", "std", "paper"
        )?;
        for r in &self.rows {
            let paper = r
                .paper
                .map(|p| format!("{p:.2}"))
                .unwrap_or_else(|| "-".into());
            writeln!(
                f,
                "{:<12} {:<58} {:>4} {:>7.4} {:>7.4} {:>6}  {}",
                r.model, r.metric, r.runs, r.mean, r.std, paper, r.per_run
            )?;
        }
        for (model, n) in &self.target_disagreements {
            if *n > 0 {
                writeln!(
                    f,
                    "{model}: {n} prediction lines whose target the interpreter does not reproduce"
                )?;
            }
        }
        for (model, n) in &self.localism_flag_disagreements {
            if *n > 0 {
                writeln!(
                    f,
                    "{model}: {n} localism samples whose True/False flag disagrees with the recomputation"
                )?;
            }
        }
        for (model, test) in &self.missing {
            writeln!(f, "{model}: no {test} predictions")?;
        }
        Ok(())
    }
}

/// Draws the mean overgeneralisation and memorisation curves, one panel per exception ratio
/// and two series per model, into `<stem>.png` and `<stem>.svg` (the paper's Table 7 as
/// lines). `None` when the report has no curves.
pub fn overgeneralisation_figure(report: &Report, stem: &Path) -> Result<Option<Vec<PathBuf>>> {
    use crate::plot::{Figure, Panel, Point, Series, XAxis, line_figure};
    if report.curves.is_empty() {
        return Ok(None);
    }
    let mut ratios: Vec<&str> = report.curves.iter().map(|c| c.ratio.as_str()).collect();
    ratios.dedup();
    ratios.sort_by(|a, b| {
        let f = |s: &str| s.parse::<f64>().unwrap_or(f64::INFINITY);
        f(a).total_cmp(&f(b))
    });
    ratios.dedup();
    let mut models: Vec<&str> = report.curves.iter().map(|c| c.model.as_str()).collect();
    models.sort();
    models.dedup();
    let panels = ratios
        .iter()
        .map(|&ratio| {
            let mut series = Vec::new();
            for (m, &model) in models.iter().enumerate() {
                let rows: Vec<&CurveRow> = report
                    .curves
                    .iter()
                    .filter(|c| c.model == model && c.ratio == ratio)
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                let line = |label: &str, color: usize, f: &dyn Fn(&CurveRow) -> f64| Series {
                    label: format!("{model} {label}"),
                    points: rows
                        .iter()
                        .map(|c| Point {
                            x: c.epoch as f64,
                            y: f(c),
                            err: 0.0,
                        })
                        .collect(),
                    reference: false,
                    color,
                };
                series.push(line("overgeneralisation", 2 * m, &|c| c.overgeneralisation));
                series.push(line("memorisation", 2 * m + 1, &|c| c.memorisation));
            }
            Panel {
                title: format!("exceptions: {}% of occurrences", percent(ratio)),
                x_label: "epoch".into(),
                y_label: "accuracy".into(),
                x_axis: XAxis::Linear { integer: true },
                y_log: false,
                y_range: Some((0.0, 1.0)),
                series,
                reference_line: None,
            }
        })
        .collect();
    let figure = Figure {
        panels,
        caption: "PCFG SET overgeneralisation test (Hupkes et al., JAIR 2020): accuracy on the \
                  exception inputs against the original targets (overgeneralisation) and the \
                  exception targets (memorisation), means over runs, per epoch."
            .into(),
    };
    line_figure(stem, &figure).map(Some)
}

/// A ratio as a percentage for titles (`0.001` -> `0.1`).
fn percent(ratio: &str) -> String {
    match ratio.parse::<f64>() {
        Ok(r) => format!("{}", (r * 100.0 * 1e6).round() / 1e6),
        Err(_) => ratio.to_owned(),
    }
}
