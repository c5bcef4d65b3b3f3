//! Batch reports over LLM answer trees `DIR/MODEL/SETTING/<record>.txt` (optionally
//! `<record>.result.txt` for the result-generation prompt): per-answer CSV, per model x
//! setting means and standard deviations, Mann-Whitney U groupings (Table 5), Markdown and
//! PNG plots.

pub mod mannwhitney;
pub mod plots;

use crate::datasets::string_grid::prompt::parse_result_answer;
use crate::datasets::string_grid::{GridSpec, Record, Setting, read_dataset};
use crate::error::{KcompError, Result};
use crate::estimators::mapping_table::{ParserMode, evaluate_answer};
use crate::sandbox::SandboxConfig;
use clap::Args;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `kcomp grid report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Answer tree: MODEL/SETTING/<record>.txt (SETTING: h, v, b, r, hr, h-index-shuffle).
    pub dir: PathBuf,
    /// Folder with the datasets `k=4_u=2_d=16_type=<setting>.jsonl`. Default: the six
    /// published datasets rebuilt in memory (`grid generate --compat rgp --records 30
    /// --seed 0 --setting S` reproduces each byte for byte).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// `reference` or `robust`.
    #[arg(long, default_value = "robust")]
    pub parser: String,
    /// Output folder (default DIR/report).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Wall-clock limit per sample run, in seconds.
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// Significance level of the Mann-Whitney groupings.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Result-generation query index (the sample `<record>.result.txt` answers).
    #[arg(long, default_value_t = 8)]
    pub result_query: usize,
    /// Skip the PNG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// UNSAFE: when the OS sandbox (namespaces, Landlock, seccomp) is unavailable, run the
    /// answers anyway with rlimits only; they can then read and write your files.
    #[arg(long)]
    pub allow_unsandboxed: bool,
}

/// Records and seed of the published datasets (`grid generate --compat rgp`).
pub const PUBLISHED_RECORDS: usize = 30;
/// See [`PUBLISHED_RECORDS`].
pub const PUBLISHED_SEED: i64 = 0;

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
            s if s.starts_with("sandbox_error") => Outcome::Failed,
            _ => Outcome::Unscorable,
        }
    }
}

/// One scored (or failed) answer.
#[derive(Debug, Clone)]
pub struct Row {
    pub model: String,
    pub setting: Setting,
    pub record: usize,
    pub status: String,
    pub scores: Option<crate::estimators::mapping_table::score::Scores>,
    /// Whether the result-generation answer (if any) is right.
    pub result_correct: Option<bool>,
}

struct Job {
    model: String,
    setting: Setting,
    record: usize,
    path: PathBuf,
}

fn list_dirs(p: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(p).map_err(|e| KcompError::file(p, e.to_string()))? {
        let e = e.map_err(|e| KcompError::file(p, e.to_string()))?;
        if e.path().is_dir() {
            v.push((e.file_name().to_string_lossy().into_owned(), e.path()));
        }
    }
    v.sort();
    Ok(v)
}

fn collect_jobs(dir: &Path) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for (model, mdir) in list_dirs(dir)? {
        if model == "report" {
            continue;
        }
        for (sname, sdir) in list_dirs(&mdir)? {
            let Ok(setting) = Setting::parse(&sname) else {
                eprintln!(
                    "warning: {}: unknown setting folder, skipped",
                    sdir.display()
                );
                continue;
            };
            for e in std::fs::read_dir(&sdir).map_err(|e| KcompError::file(&sdir, e.to_string()))? {
                let path = e
                    .map_err(|e| KcompError::file(&sdir, e.to_string()))?
                    .path();
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let Some(stem) = name.strip_suffix(".txt") else {
                    continue;
                };
                if let Ok(record) = stem.parse::<usize>() {
                    jobs.push(Job {
                        model: model.clone(),
                        setting,
                        record,
                        path,
                    });
                }
            }
        }
    }
    jobs.sort_by(|a, b| {
        (&a.model, a.setting.name(), a.record).cmp(&(&b.model, b.setting.name(), b.record))
    });
    Ok(jobs)
}

/// Loads (or, without `data`, rebuilds) the dataset of a setting.
fn load_setting(data: Option<&Path>, setting: Setting) -> std::result::Result<Vec<Record>, String> {
    let spec = GridSpec::default();
    match data {
        Some(d) => read_dataset(&d.join(spec.file_name(setting))).map_err(|e| e.to_string()),
        None => spec
            .generate(setting, PUBLISHED_RECORDS, PUBLISHED_SEED)
            .map_err(|e| e.to_string()),
    }
}

/// Scores every answer of the tree (parallel over answers and samples) with a progress bar.
/// Answers that cannot be scored get the scores of the empty program (every sample wrong,
/// C = 0), as the published evaluator gives them, and count in the means.
pub fn score_tree(
    dir: &Path,
    data: Option<&Path>,
    mode: ParserMode,
    cfg: &SandboxConfig,
    result_query: usize,
) -> Result<Vec<Row>> {
    if let Some(d) = data
        && !d.is_dir()
    {
        return Err(KcompError::param(
            "data",
            format!("{} is not a folder", d.display()),
        ));
    }
    let jobs = collect_jobs(dir)?;
    if jobs.is_empty() {
        return Err(KcompError::file(
            dir,
            "no answers found (expected MODEL/SETTING/<record>.txt)",
        ));
    }
    let mut datasets: BTreeMap<&'static str, std::result::Result<Vec<Record>, String>> =
        BTreeMap::new();
    for j in &jobs {
        datasets
            .entry(j.setting.name())
            .or_insert_with(|| load_setting(data, j.setting));
    }
    let bar = crate::progress::bar(jobs.len() as u64, "answers", "");
    // Hidden for short runs: indicatif only draws after its first tick interval.
    let rows: Vec<Row> = jobs
        .par_iter()
        .map(|j| {
            let row = |status: String, scores: Option<_>, result_correct| Row {
                model: j.model.clone(),
                setting: j.setting,
                record: j.record,
                status,
                scores: scores.or_else(|| {
                    Some(crate::estimators::mapping_table::unscorable(
                        mode,
                        crate::estimators::mapping_table::score::TaskSize::default().d,
                    ))
                }),
                result_correct,
            };
            let out = match &datasets[j.setting.name()] {
                Err(e) => row(format!("no_dataset: {e}"), None, None),
                Ok(recs) => match recs.get(j.record) {
                    None => row(
                        format!("no_record (dataset has {})", recs.len()),
                        None,
                        None,
                    ),
                    Some(rec) => match std::fs::read(&j.path) {
                        Err(e) => row(format!("unreadable: {e}"), None, None),
                        Ok(bytes) => {
                            let answer = String::from_utf8_lossy(&bytes);
                            let result_correct = std::fs::read(j.path.with_extension("result.txt"))
                                .ok()
                                .map(|b| {
                                    let a = String::from_utf8_lossy(&b).into_owned();
                                    rec.output.get(result_query).is_some_and(|gold| {
                                        parse_result_answer(&a).is_some_and(|g| g == gold.trim())
                                    })
                                });
                            match evaluate_answer(&answer, rec, mode, cfg) {
                                Ok(ev) => row(ev.status_text(), ev.scores, result_correct),
                                Err(e) => row(format!("error: {e}"), None, result_correct),
                            }
                        }
                    },
                },
            };
            bar.inc(1);
            out
        })
        .collect();
    bar.finish_and_clear();
    Ok(rows)
}

/// Mean and sample std (ddof = 1); NaN for an empty group (printed as an empty cell).
fn mean_std(v: &[f64]) -> (f64, f64) {
    crate::sweeps::summary::Stat::of(v).map_or((f64::NAN, f64::NAN), |s| (s.mean, s.std))
}

fn fmt(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        String::new()
    }
}

/// Per model x setting aggregates.
#[derive(Debug, Clone)]
pub struct Cell {
    pub model: String,
    pub setting: Setting,
    /// Answers scored normally (status ok).
    pub scored: usize,
    pub total: usize,
    /// Answers that hit a limit, crashed or met a sandbox error (scored, counted).
    pub failed: usize,
    /// Empty answers or answers without a program (C = 0, counted).
    pub empty: usize,
    /// Answers without a record to score against (C = 0, counted).
    pub unscorable: usize,
    pub l_plus: Vec<f64>,
    pub errors: Vec<f64>,
    pub c: Vec<f64>,
    pub result_acc: Option<f64>,
}

/// Groups rows by (model, setting).
pub fn cells(rows: &[Row]) -> Vec<Cell> {
    let mut map: BTreeMap<(String, usize), Cell> = BTreeMap::new();
    for r in rows {
        let idx = Setting::ALL
            .iter()
            .position(|s| *s == r.setting)
            .unwrap_or(0);
        let cell = map.entry((r.model.clone(), idx)).or_insert_with(|| Cell {
            model: r.model.clone(),
            setting: r.setting,
            scored: 0,
            total: 0,
            failed: 0,
            empty: 0,
            unscorable: 0,
            l_plus: vec![],
            errors: vec![],
            c: vec![],
            result_acc: None,
        });
        cell.total += 1;
        match Outcome::of(&r.status) {
            Outcome::Ok => cell.scored += 1,
            Outcome::Failed => cell.failed += 1,
            Outcome::Empty => cell.empty += 1,
            Outcome::Unscorable => cell.unscorable += 1,
        }
        // Every answer counts in the means (score_tree fills the unscorable ones).
        if let Some(s) = &r.scores {
            cell.l_plus.push(s.l_plus);
            cell.errors.push(s.c_error as f64);
            cell.c.push(s.norm_c);
        }
    }
    for cell in map.values_mut() {
        let res: Vec<bool> = rows
            .iter()
            .filter(|r| r.model == cell.model && r.setting == cell.setting)
            .filter_map(|r| r.result_correct)
            .collect();
        if !res.is_empty() {
            cell.result_acc =
                Some(100.0 * res.iter().filter(|b| **b).count() as f64 / res.len() as f64);
        }
    }
    map.into_values().collect()
}

/// Runs `kcomp grid report`.
pub fn run_report(a: ReportArgs) -> Result<()> {
    let mode = ParserMode::parse(&a.parser)?;
    let timeout = crate::cli::grid::timeout_of(a.timeout)?;
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        return Err(KcompError::param("alpha", "must be in (0, 1)"));
    }
    let cfg = SandboxConfig {
        timeout,
        allow_unsandboxed: a.allow_unsandboxed,
        ..SandboxConfig::default()
    };
    // Refuses before any answer runs if the OS sandbox is missing.
    crate::sandbox::ensure_available(&cfg)?;
    let start = std::time::Instant::now();
    let rows = score_tree(&a.dir, a.data.as_deref(), mode, &cfg, a.result_query)?;
    let elapsed = start.elapsed();
    let out = a.out.clone().unwrap_or_else(|| a.dir.join("report"));
    std::fs::create_dir_all(&out).map_err(|e| KcompError::file(&out, e.to_string()))?;
    write_outputs(&rows, &out, a.alpha, !a.no_plots)?;
    let ok = rows
        .iter()
        .filter(|r| Outcome::of(&r.status) == Outcome::Ok)
        .count();
    eprintln!(
        "scored {} answers ({} ok, {} failed, empty or unscorable, counted as scored by the published evaluator) in {:.1} s; wrote {}",
        rows.len(),
        ok,
        rows.len() - ok,
        elapsed.as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// Writes per_answer.csv, summary.csv, groups.csv, report.md and (optionally) the plots.
pub fn write_outputs(rows: &[Row], out: &Path, alpha: f64, plots: bool) -> Result<()> {
    let csv_err = |p: &Path, e: csv::Error| KcompError::file(p, e.to_string());
    let p = out.join("per_answer.csv");
    let mut w = csv::Writer::from_path(&p).map_err(|e| csv_err(&p, e))?;
    w.write_record([
        "model",
        "setting",
        "record",
        "status",
        "n_dict",
        "m_dict",
        "n_block",
        "m_block",
        "L(P+) [entries]",
        "E(P) [samples]",
        "L(P) [entries]",
        "C(P) [0-100]",
        "log C(P) [0-100]",
        "in_acc [%]",
        "profile",
        "result_correct",
    ])
    .map_err(|e| csv_err(&p, e))?;
    for r in rows {
        let mut rec = vec![
            r.model.clone(),
            r.setting.name().into(),
            r.record.to_string(),
            r.status.clone(),
        ];
        match &r.scores {
            Some(s) => rec.extend([
                s.c_dict_n.to_string(),
                s.c_dict_m.to_string(),
                s.c_block_n.to_string(),
                s.c_block_m.to_string(),
                fmt(s.l_plus),
                s.c_error.to_string(),
                fmt(s.c_length),
                fmt(s.norm_c),
                fmt(s.log_norm_c),
                fmt(s.in_acc),
                s.profile.clone(),
            ]),
            None => rec.extend(std::iter::repeat_n(String::new(), 11)),
        }
        rec.push(r.result_correct.map(|b| b.to_string()).unwrap_or_default());
        w.write_record(&rec).map_err(|e| csv_err(&p, e))?;
    }
    w.flush().map_err(|e| KcompError::file(&p, e.to_string()))?;

    let cells = cells(rows);
    let p = out.join("summary.csv");
    let mut w = csv::Writer::from_path(&p).map_err(|e| csv_err(&p, e))?;
    w.write_record([
        "model",
        "setting",
        "answers",
        "scored",
        "failed",
        "empty",
        "unscorable",
        "mean L(P+) [entries]",
        "std L(P+) [entries]",
        "mean E(P) [samples]",
        "std E(P) [samples]",
        "mean C(P) [0-100]",
        "std C(P) [0-100]",
        "result accuracy [%]",
    ])
    .map_err(|e| csv_err(&p, e))?;
    let mut md = String::from(
        "# Mapping-table report\n\nL(P+) in mapping-table entries, E(P) in samples (of 16), C(P) in [0, 100]. Means are over all answers: failed (timeout, output limit, crash, sandbox error), empty (no program) and unscorable (no record) answers count as the published evaluator scores them (the empty program: E = 16, C = 0).\n\n| model | setting | answers | ok | failed | empty | unscorable | L(P+) | E(P) | C(P) | result acc. [%] |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &cells {
        let (lm, ls) = mean_std(&c.l_plus);
        let (em, es) = mean_std(&c.errors);
        let (cm, cs) = mean_std(&c.c);
        let acc = c.result_acc.map(fmt).unwrap_or_default();
        w.write_record([
            c.model.clone(),
            c.setting.name().into(),
            c.total.to_string(),
            c.scored.to_string(),
            c.failed.to_string(),
            c.empty.to_string(),
            c.unscorable.to_string(),
            fmt(lm),
            fmt(ls),
            fmt(em),
            fmt(es),
            fmt(cm),
            fmt(cs),
            acc.clone(),
        ])
        .map_err(|e| csv_err(&p, e))?;
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} ± {} | {} ± {} | {} ± {} | {} |\n",
            c.model,
            c.setting.name(),
            c.total,
            c.scored,
            c.failed,
            c.empty,
            c.unscorable,
            fmt(lm),
            fmt(ls),
            fmt(em),
            fmt(es),
            fmt(cm),
            fmt(cs),
            acc
        ));
    }
    w.flush().map_err(|e| KcompError::file(&p, e.to_string()))?;

    // Table 5: per setting and metric, models ranked strongest first, grouped by significance.
    let p = out.join("groups.csv");
    let mut w = csv::Writer::from_path(&p).map_err(|e| csv_err(&p, e))?;
    w.write_record(["setting", "metric", "group", "model", "mean"])
        .map_err(|e| csv_err(&p, e))?;
    md.push_str(&format!(
        "\n## Significance groups (Mann-Whitney U, p < {alpha}; strongest first)\n\n| setting | metric | groups |\n|---|---|---|\n"
    ));
    for setting in Setting::ALL {
        let here: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.setting == setting && !c.c.is_empty())
            .collect();
        if here.len() < 2 {
            continue;
        }
        for (metric, pick, higher_better) in [
            (
                "L(P+)",
                (|c: &Cell| c.l_plus.clone()) as fn(&Cell) -> Vec<f64>,
                false,
            ),
            ("E(P)", |c: &Cell| c.errors.clone(), false),
            ("C(P)", |c: &Cell| c.c.clone(), true),
        ] {
            let mut items: Vec<(String, Vec<f64>)> =
                here.iter().map(|c| (c.model.clone(), pick(c))).collect();
            items.sort_by(|a, b| {
                let (ma, mb) = (mean_std(&a.1).0, mean_std(&b.1).0);
                if higher_better {
                    mb.total_cmp(&ma)
                } else {
                    ma.total_cmp(&mb)
                }
            });
            let groups = mannwhitney::significance_groups(&items, alpha);
            let mut text = Vec::new();
            for (gi, g) in groups.iter().enumerate() {
                let mut parts = Vec::new();
                for m in g {
                    let mean = mean_std(
                        &items
                            .iter()
                            .find(|i| &i.0 == m)
                            .map(|i| i.1.clone())
                            .unwrap_or_default(),
                    )
                    .0;
                    w.write_record([setting.name(), metric, &(gi + 1).to_string(), m, &fmt(mean)])
                        .map_err(|e| csv_err(&p, e))?;
                    parts.push(format!("{m} {}", fmt(mean)));
                }
                text.push(format!("({})", parts.join(", ")));
            }
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                setting.name(),
                metric,
                text.join(" ")
            ));
        }
    }
    w.flush().map_err(|e| KcompError::file(&p, e.to_string()))?;
    md.push_str(&format!(
        "\nProfiles: T1 = L(P+) <= {} and E(P) <= {}; T2 = larger table, E(P) <= {}; T3 = small table, more errors.\n",
        40.0 * crate::estimators::mapping_table::score::LOW_TABLE_FACTOR,
        crate::estimators::mapping_table::score::LOW_ERRORS,
        crate::estimators::mapping_table::score::LOW_ERRORS
    ));
    if plots {
        for (name, res) in [
            (
                "c_by_setting.png",
                plots::c_by_setting(&cells, &out.join("c_by_setting")),
            ),
            ("plane.png", plots::plane(&cells, &out.join("plane"))),
        ] {
            match res {
                Ok(_) => md.push_str(&format!("\n![{name}]({name})\n")),
                Err(e) => eprintln!("warning: plot {name} not written: {e}"),
            }
        }
    }
    let p = out.join("report.md");
    std::fs::write(&p, md).map_err(|e| KcompError::file(&p, e.to_string()))?;
    Ok(())
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
