//! `kcomp compare`: every estimator on the same datasets.

use std::path::PathBuf;

use clap::Args;

use crate::panel::run_panel_file;
use crate::panel::single::{compare_single, single_dataset};

/// Compare estimators of K(Z|W) and compositionality on the same datasets.
///
/// Two forms:
///   kcomp compare CONFIG.toml --out DIR     families x values x seeds (configs/compare/)
///   kcomp compare --w W.npy --z Z.npy       one dataset from files (.npy, .csv, .jsonl)
///   kcomp compare --grid FILE.jsonl --record I   one string-to-grid record
///
/// Every estimator shares the dataset's K(Z) (the family's convention; for files: uniform over
/// the observed values, or the naive Gaussian code for continuous Z with --precision), so C =
/// K(Z)/K(Z|W) is comparable across estimators. Scores that are not code lengths (topsim,
/// posdis, bosdis) are reported as scores. All lengths in bits.
///
/// Examples:
///   kcomp compare configs/compare/default.toml --out results/compare
///   kcomp compare --w W.npy --z Z.npy --estimators prequential,compression --json
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Panel config (TOML; see configs/compare/).
    #[arg(value_name = "CONFIG.toml", conflicts_with_all = ["w", "z"])]
    pub config: Option<PathBuf>,
    /// Output folder of a panel: runs.csv, summary.csv/md, agreement.csv, figures.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Reuse the saved datasets of an earlier run whose settings match.
    #[arg(long)]
    pub resume: bool,
    /// Worker threads (default: all cores). Results are identical for any value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// W file: non-negative integer tokens, one row per sample.
    #[arg(long, value_name = "FILE", requires = "z")]
    pub w: Option<PathBuf>,
    /// Z file: integer attributes, or floats with --precision.
    #[arg(long, value_name = "FILE", requires = "w")]
    pub z: Option<PathBuf>,
    /// String-to-grid file (.jsonl, seed 001's format): compare on one of its records.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["w", "z", "config"])]
    pub grid: Option<PathBuf>,
    /// Record of --grid (0-based; default 0).
    #[arg(long)]
    pub record: Option<usize>,
    /// Layout setting of --grid when the file name does not say it (h, v, b, r, hr, ...).
    #[arg(long)]
    pub setting: Option<String>,
    /// A `kcomp grid report` folder (or its per_answer.csv) for the llm_program estimator.
    #[arg(long, value_name = "PATH")]
    pub llm_report: Option<PathBuf>,
    /// Grid spacing of continuous Z.
    #[arg(long)]
    pub precision: Option<f64>,
    /// Comma-separated estimators (default: all that apply).
    #[arg(long, value_delimiter = ',')]
    pub estimators: Option<Vec<String>>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Refuses options the chosen form would ignore, naming the first one.
fn refuse_ignored(form: &str, given: &[(bool, &str)]) -> crate::error::Result<()> {
    match given.iter().find(|(set, _)| *set) {
        Some((_, name)) => Err(crate::error::KcompError::param(
            *name,
            format!("is not used by {form}; it would be ignored"),
        )),
        None => Ok(()),
    }
}

/// Runs `kcomp compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let threads = args.threads.unwrap_or(0);
    crate::io::limits::check_threads("threads", threads, true)?;
    if let Some(path) = &args.config {
        // The panel's settings come from its config file.
        refuse_ignored(
            "a panel (set it in the config file)",
            &[
                (args.precision.is_some(), "precision"),
                (args.estimators.is_some(), "estimators"),
                (args.record.is_some(), "record"),
                (args.setting.is_some(), "setting"),
                (args.llm_report.is_some(), "llm-report"),
                (args.json, "json"),
            ],
        )?;
        let out = args.out.as_deref();
        print!(
            "{}",
            run_panel_file(path, out, threads, args.resume, args.quiet)?
        );
        return Ok(());
    }
    refuse_ignored(
        "a single dataset (--w/--z or --grid)",
        &[(args.out.is_some(), "out"), (args.resume, "resume")],
    )?;
    if args.grid.is_none() {
        refuse_ignored(
            "--w/--z (only --grid has records and settings)",
            &[
                (args.record.is_some(), "record"),
                (args.setting.is_some(), "setting"),
            ],
        )?;
    }
    let grid = args.grid.as_deref();
    let data = single_dataset(
        grid.map(|g| (g, args.record.unwrap_or(0), args.setting.as_deref())),
        args.w.as_deref().zip(args.z.as_deref()),
        args.precision,
    )?;
    let quiet = args.quiet || args.json;
    let cmp = compare_single(&data, args.estimators, args.llm_report, quiet)?;
    match args.json {
        true => println!("{}", serde_json::to_string_pretty(&cmp)?),
        false => print!("{cmp}"),
    }
    Ok(())
}
