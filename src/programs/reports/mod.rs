//! `grid report`: scores a tree of LLM answers (kcomp's layout or the published one, see
//! [`layout`]) with both parsers, and writes per-answer and per model x setting tables
//! ([`tables`]), the result-generation accuracy of the paper's Table 3 beside C(P),
//! Mann-Whitney U groupings (Table 5), Markdown, plots, and optionally the published layout.
//! [`args`] holds the command-line options, checked into [`ReportOptions`].

pub mod args;
pub mod layout;
pub mod mannwhitney;
pub mod plots;
pub mod tables;

use crate::datasets::string_grid::prompt::result_answer_correct;
use crate::datasets::string_grid::{Record, Setting};
use crate::error::{KcompError, Result};
use crate::programs::mapping_table::score::{Scores, TaskSize};
use crate::programs::mapping_table::{AnswerSource, ParserMode, evaluate_modes, unscorable};
use crate::programs::sandbox::SandboxConfig;
use layout::Job;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `kcomp grid report`.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The answer tree (either layout).
    pub dir: PathBuf,
    /// Folder with the datasets `{name}.jsonl`; default: the published ones rebuilt.
    pub data: Option<PathBuf>,
    /// Parser of the tables (both are always computed for the differences table).
    pub parser: ParserMode,
    /// Output folder (default DIR/report).
    pub out: Option<PathBuf>,
    /// Wall-clock limit per sample run.
    pub timeout: Duration,
    /// Significance level of the Mann-Whitney groupings.
    pub alpha: f64,
    /// Result-generation query index; default the last sample (as published).
    pub result_query: Option<usize>,
    /// Draw the PNG plots.
    pub plots: bool,
    /// Run answers with rlimits only when the OS sandbox is missing (unsafe).
    pub allow_unsandboxed: bool,
    /// Also write the tree in the published layout there (`result/`, `result_cg8/`).
    pub write_published: Option<PathBuf>,
    /// Write into output folders that hold another run's files.
    pub force: bool,
}

/// How an answer's status counts in the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Ran and was scored normally.
    Ok,
    /// Ran but hit a limit, crashed, or the sandbox failed.
    Failed,
    /// Empty answer or no program in it.
    Empty,
    /// No record or dataset to score it against, or the file could not be read.
    Unscorable,
}

impl Outcome {
    /// Classifies a status of `per_answer.csv`.
    pub fn of(status: &str) -> Outcome {
        match status {
            "ok" => Outcome::Ok,
            "empty_answer" | "no_program" => Outcome::Empty,
            "timeout" | "output_limit" | "crashed" => Outcome::Failed,
            s if s.starts_with("sandbox_error") || s.starts_with("internal_error") => {
                Outcome::Failed
            }
            _ => Outcome::Unscorable,
        }
    }
}

/// One scored (or failed) answer, with both parsers' scores.
#[derive(Debug, Clone)]
pub struct Row {
    pub model: String,
    pub setting: Setting,
    pub dataset: String,
    pub record: usize,
    /// Status of the selected parser's run (`sandbox_error: <why>` with its reason).
    pub status: String,
    /// Whether there is a rule answer (false: only a result answer was found).
    pub has_rule_answer: bool,
    pub reference: Scores,
    pub robust: Scores,
    pub parser: ParserMode,
    /// The evaluator's stored `_info.json`, if any.
    pub stored: Option<serde_json::Value>,
    /// Whether the result-generation answer (if any) is right (`program_eval_cg.py`).
    pub result_correct: Option<bool>,
    /// The program the reference parser scored (written as `{i}.py`).
    pub program: String,
    /// The raw answer, if any.
    pub answer: Option<String>,
    /// The raw result-generation answer, if any.
    pub result_answer: Option<String>,
}

impl Row {
    /// The selected parser's scores.
    pub fn scores(&self) -> &Scores {
        match self.parser {
            ParserMode::Reference => &self.reference,
            ParserMode::Robust => &self.robust,
        }
    }
}

/// Reads a file of the answer tree `root`: a regular file (no FIFO or device, which would
/// block or never end) that does not lead outside the tree through a symbolic link.
fn read_text(root: &Path, p: &Path) -> std::result::Result<String, String> {
    crate::io::files::check_within(p, root)
        .and_then(|()| {
            crate::io::files::read_capped(p, crate::programs::mapping_table::MAX_ANSWER_BYTES)
        })
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| format!("unreadable: {e}"))
}

/// Scores one job: both parsers, the stored scores and the result answer.
fn score_job(
    root: &Path,
    j: &Job,
    recs: &std::result::Result<Vec<Record>, String>,
    parser: ParserMode,
    cfg: &SandboxConfig,
    result_query: Option<usize>,
) -> Row {
    let rec = recs.as_ref().ok().and_then(|r| r.get(j.record));
    let task = rec.map_or_else(TaskSize::default, TaskSize::of_record);
    let read = |p: &Path| read_text(root, p);
    let answer = j.answer.as_deref().map(read).transpose();
    let program = j.program.as_deref().map(read).transpose();
    let result_answer = j.result_answer.as_deref().and_then(|p| read(p).ok());
    let result_correct = match (rec, &result_answer) {
        (Some(rec), Some(a)) => {
            let q = result_query.unwrap_or(rec.output.len() - 1);
            Some(
                rec.output
                    .get(q)
                    .is_some_and(|g| result_answer_correct(a, g)),
            )
        }
        _ => None,
    };
    let stored = j
        .stored_info
        .as_deref()
        .and_then(|p| read(p).ok())
        .and_then(|t| serde_json::from_str(&t).ok());
    let failed = |status: String| {
        let mk = |m| unscorable(m, &task, &status);
        (
            status.clone(),
            mk(ParserMode::Reference),
            mk(ParserMode::Robust),
        )
    };
    let (status, reference, robust, code) = match (recs, rec, &answer, &program) {
        (Err(e), ..) => {
            let (s, a, b) = failed(format!("no_dataset: {e}"));
            (s, a, b, String::new())
        }
        (Ok(r), None, ..) => {
            let (s, a, b) = failed(format!("no_record (dataset has {})", r.len()));
            (s, a, b, String::new())
        }
        (_, _, Err(e), _) | (_, _, _, Err(e)) => {
            let (s, a, b) = failed(e.clone());
            (s, a, b, String::new())
        }
        (_, Some(rec), Ok(answer), Ok(program)) => {
            // The evaluator runs `{i}.py`; the robust parser extracts from the answer itself.
            let sources = match (answer, program) {
                // An empty answer stays an empty answer (not an empty program).
                (Some(a), Some(_)) if a.trim().is_empty() => {
                    [AnswerSource::Answer(a), AnswerSource::Answer(a)]
                }
                (Some(a), Some(p)) => [AnswerSource::Program(p), AnswerSource::Answer(a)],
                (None, Some(p)) => [AnswerSource::Program(p), AnswerSource::Program(p)],
                (Some(a), None) => [AnswerSource::Answer(a), AnswerSource::Answer(a)],
                (None, None) => [AnswerSource::Answer(""), AnswerSource::Answer("")],
            };
            let same = matches!(sources, [AnswerSource::Answer(_), AnswerSource::Answer(_)])
                || answer.is_none();
            let modes = [ParserMode::Reference, ParserMode::Robust];
            let evals = if same {
                // One call: a program both parsers extract alike runs once.
                evaluate_modes(sources[0], rec, &modes, cfg)
            } else {
                evaluate_modes(sources[0], rec, &modes[..1], cfg).and_then(|mut a| {
                    a.extend(evaluate_modes(sources[1], rec, &modes[1..], cfg)?);
                    Ok(a)
                })
            };
            match evals.map(|mut v| (v.remove(0), v.remove(0))) {
                Ok((a, b)) => {
                    use crate::programs::mapping_table::AnswerStatus;
                    // kcomp's own failure on either parser's path is never hidden behind
                    // the selected parser's `ok`.
                    let status = if a.status == AnswerStatus::InternalError {
                        a.status_text()
                    } else if b.status == AnswerStatus::InternalError {
                        b.status_text()
                    } else {
                        match parser {
                            ParserMode::Reference => a.status_text(),
                            ParserMode::Robust => b.status_text(),
                        }
                    };
                    let code = match sources[0] {
                        AnswerSource::Program(p) => p.to_string(),
                        AnswerSource::Answer(a) => {
                            crate::programs::mapping_table::extract(a, ParserMode::Reference)
                        }
                    };
                    let fallback = || unscorable(ParserMode::Reference, &task, "error");
                    (
                        status,
                        a.scores.unwrap_or_else(fallback),
                        b.scores.unwrap_or_else(fallback),
                        code,
                    )
                }
                Err(e) => {
                    let (s, a, b) = failed(format!("error: {e}"));
                    (s, a, b, String::new())
                }
            }
        }
    };
    Row {
        model: j.model.clone(),
        setting: j.setting,
        dataset: j.dataset.clone(),
        record: j.record,
        status,
        has_rule_answer: j.answer.is_some() || j.program.is_some(),
        reference,
        robust,
        parser,
        stored,
        result_correct,
        program: code,
        answer: answer.ok().flatten(),
        result_answer,
    }
}

/// Scores every answer of the tree (parallel over answers and samples) with a progress bar.
/// Answers that cannot be scored get the scores of the empty program (every sample wrong,
/// C = 0), as the published evaluator gives them, and count in the means.
pub fn score_tree(opts: &ReportOptions, cfg: &SandboxConfig) -> Result<Vec<Row>> {
    if let Some(d) = &opts.data
        && !d.is_dir()
    {
        return Err(KcompError::param(
            "data",
            format!("{} is not an existing directory", d.display()),
        ));
    }
    let jobs = layout::collect_jobs(&opts.dir, opts.out.as_deref())?;
    if jobs.is_empty() {
        return Err(KcompError::file(
            &opts.dir,
            "no answers found (expected MODEL/SETTING/<record>.txt or result/MODEL/DATASET/<record>.py)",
        ));
    }
    let mut datasets: BTreeMap<String, std::result::Result<Vec<Record>, String>> = BTreeMap::new();
    for j in &jobs {
        if !datasets.contains_key(&j.dataset) {
            let d = layout::load_dataset(opts.data.as_deref(), &j.dataset);
            datasets.insert(j.dataset.clone(), d);
        }
    }
    let bar = crate::progress::bar(jobs.len() as u64, "answers", "");
    // Hidden for short runs: indicatif only draws after its first tick interval.
    let rows: Vec<Row> = jobs
        .par_iter()
        .map(|j| {
            let row = score_job(
                &opts.dir,
                j,
                &datasets[&j.dataset],
                opts.parser,
                cfg,
                opts.result_query,
            );
            bar.inc(1);
            row
        })
        .collect();
    bar.finish_and_clear();
    Ok(rows)
}

/// Mean and sample std (ddof = 1); NaN for an empty group (printed as an empty cell).
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    crate::sweeps::summary::Stat::of(v).map_or((f64::NAN, f64::NAN), |s| (s.mean, s.std))
}

/// Per model x dataset aggregates (over answers with a rule answer).
#[derive(Debug, Clone)]
pub struct Cell {
    pub model: String,
    pub setting: Setting,
    pub dataset: String,
    /// Answers scored normally (status ok).
    pub scored: usize,
    pub total: usize,
    /// Answers that hit a limit, crashed or met a sandbox error (scored, counted).
    pub failed: usize,
    /// Empty answers or answers without a program (C = 0, counted).
    pub empty: usize,
    /// Answers without a record to score against (C = 0, counted).
    pub unscorable: usize,
    /// L(P+) per answer.
    pub l_plus: Vec<f64>,
    /// E(P) per answer.
    pub errors: Vec<f64>,
    /// C(P) per answer.
    pub c: Vec<f64>,
    pub log_c: Vec<f64>,
    pub in_acc: Vec<f64>,
    /// Result-generation answers judged, and the accuracy over them in percent.
    pub result_answers: usize,
    pub result_acc: Option<f64>,
}

/// Groups rows by (model, dataset), settings in the published order.
pub fn cells(rows: &[Row]) -> Vec<Cell> {
    let mut map: BTreeMap<(String, usize, String), Cell> = BTreeMap::new();
    for r in rows {
        let idx = Setting::ALL
            .iter()
            .position(|s| *s == r.setting)
            .unwrap_or(Setting::ALL.len());
        let cell = map
            .entry((r.model.clone(), idx, r.dataset.clone()))
            .or_insert_with(|| Cell {
                model: r.model.clone(),
                setting: r.setting,
                dataset: r.dataset.clone(),
                scored: 0,
                total: 0,
                failed: 0,
                empty: 0,
                unscorable: 0,
                l_plus: vec![],
                errors: vec![],
                c: vec![],
                log_c: vec![],
                in_acc: vec![],
                result_answers: 0,
                result_acc: None,
            });
        if let Some(ok) = r.result_correct {
            let right = cell.result_acc.unwrap_or(0.0) * cell.result_answers as f64 / 100.0;
            cell.result_answers += 1;
            let right = right + f64::from(u8::from(ok));
            cell.result_acc = Some(right / cell.result_answers as f64 * 100.0);
        }
        if !r.has_rule_answer {
            continue;
        }
        cell.total += 1;
        match Outcome::of(&r.status) {
            Outcome::Ok => cell.scored += 1,
            Outcome::Failed => cell.failed += 1,
            Outcome::Empty => cell.empty += 1,
            Outcome::Unscorable => cell.unscorable += 1,
        }
        let s = r.scores();
        cell.l_plus.push(s.l_p_plus as f64);
        cell.errors.push(s.errors as f64);
        cell.c.push(s.norm_c);
        cell.log_c.push(s.log_norm_c);
        cell.in_acc.push(s.in_acc);
    }
    map.into_values().collect()
}

/// What a report run did.
#[derive(Debug, Clone)]
pub struct ReportSummary {
    pub answers: usize,
    pub ok: usize,
    pub seconds: f64,
    pub out: PathBuf,
    /// Answers whose stored `_info.json` differs from kcomp's reference scores.
    pub stored_mismatches: usize,
    /// Answers with a stored `_info.json`.
    pub stored: usize,
}

/// Runs `kcomp grid report`.
pub fn run_report(opts: &ReportOptions) -> Result<ReportSummary> {
    if !opts.dir.is_dir() {
        return Err(KcompError::param(
            "dir",
            format!("{} is not an existing directory", opts.dir.display()),
        ));
    }
    if !(opts.alpha > 0.0 && opts.alpha < 1.0) {
        return Err(KcompError::param("alpha", "must be in (0, 1)"));
    }
    let cfg = SandboxConfig {
        timeout: opts.timeout,
        allow_unsandboxed: opts.allow_unsandboxed,
        ..SandboxConfig::default()
    };
    // Refuses before any answer runs if the OS sandbox is missing.
    crate::programs::sandbox::ensure_available(&cfg)?;
    let out = opts.out.clone().unwrap_or_else(|| opts.dir.join("report"));
    let stamp = serde_json::json!({
        "command": "grid report",
        "options": format!("{:?}", ReportOptions { force: false, ..opts.clone() }),
    });
    // Checked now, stamped when written: an interrupted report leaves no folder.
    crate::io::out_dir::check(&out, &stamp, opts.force)?;
    if let Some(dest) = &opts.write_published {
        crate::io::out_dir::check(dest, &stamp, opts.force)?;
    }
    // The default folder is inside the answer tree: a link planted there is not followed.
    if opts.out.is_none() && std::fs::symlink_metadata(&out).is_ok_and(|m| m.is_symlink()) {
        return Err(KcompError::file(
            &out,
            "is a symbolic link; kcomp does not write through links (pass --out)",
        ));
    }
    // One run per output folder: an existing folder is locked before any answer runs; a new
    // one is created (and locked) only once the answers are scored, so an interrupted run
    // leaves nothing behind.
    let mut folders = vec![out.clone()];
    if let Some(dest) = opts.write_published.as_ref().filter(|d| **d != out) {
        folders.push(dest.clone());
    }
    let early: Vec<bool> = folders.iter().map(|f| f.is_dir()).collect();
    let mut locks = Vec::new();
    for (f, _) in folders.iter().zip(&early).filter(|(_, e)| **e) {
        locks.push(crate::io::files::lock_dir(f)?);
    }
    let start = std::time::Instant::now();
    let rows = score_tree(opts, &cfg)?;
    let seconds = start.elapsed().as_secs_f64();
    crate::io::out_dir::claim(&out, &stamp, opts.force)?;
    for (f, _) in folders.iter().zip(&early).filter(|(_, e)| !**e) {
        locks.push(crate::io::files::lock_dir(f)?);
    }
    let diffs = tables::write_outputs(&rows, &out, opts.alpha, opts.plots)?;
    if let Some(dest) = &opts.write_published {
        crate::io::out_dir::claim(dest, &stamp, opts.force)?;
        tables::write_published(&rows, dest)?;
    }
    drop(locks);
    let rule: Vec<&Row> = rows.iter().filter(|r| r.has_rule_answer).collect();
    Ok(ReportSummary {
        answers: rule.len(),
        ok: rule
            .iter()
            .filter(|r| Outcome::of(&r.status) == Outcome::Ok)
            .count(),
        seconds,
        out,
        stored_mismatches: diffs.stored_mismatches,
        stored: rows.iter().filter(|r| r.stored.is_some()).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::Outcome;

    #[test]
    fn statuses_fall_into_the_summary_columns() {
        assert_eq!(Outcome::of("ok"), Outcome::Ok);
        for s in [
            "timeout",
            "output_limit",
            "crashed",
            "sandbox_error: setsid failed",
        ] {
            assert_eq!(Outcome::of(s), Outcome::Failed, "{s}");
        }
        for s in ["empty_answer", "no_program"] {
            assert_eq!(Outcome::of(s), Outcome::Empty, "{s}");
        }
        for s in [
            "no_record (dataset has 30)",
            "no_dataset: x",
            "unreadable: y",
            "error: z",
        ] {
            assert_eq!(Outcome::of(s), Outcome::Unscorable, "{s}");
        }
    }
}
