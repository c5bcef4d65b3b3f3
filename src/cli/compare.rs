//! `kcomp compare`: every estimator on the same datasets.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::io::user_data::load_user_data;
use crate::panel::config::PanelConfig;
use crate::panel::run_and_report;
use crate::panel::single::{compare_one, grid_record_dataset, single_config, user_dataset};
use crate::sweeps::summary::progress_bar;

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
    /// Record of --grid (0-based).
    #[arg(long, default_value_t = 0, requires = "grid")]
    pub record: usize,
    /// Layout setting of --grid when the file name does not say it (h, v, b, r, hr, ...).
    #[arg(long, requires = "grid")]
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

/// Runs `kcomp compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let threads = args.threads.unwrap_or(0);
    if let Some(path) = &args.config {
        let out = args
            .out
            .clone()
            .context("a panel needs --out DIR for its tables and figures")?;
        let config = PanelConfig::from_file(path)?;
        let total = crate::panel::run::plan(&config)?.len();
        let bar = progress_bar(total as u64, "datasets");
        if args.quiet {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        let (result, written) = run_and_report(&config, &out, threads, args.resume, &bar)?;
        bar.finish_and_clear();
        println!(
            "{} datasets x {} estimators ({} read back with --resume)",
            result.plan.len(),
            config.estimators.len(),
            result.resumed
        );
        for p in written {
            println!("wrote {}", p.display());
        }
        return Ok(());
    }
    let data = if let Some(grid) = &args.grid {
        grid_record_dataset(grid, args.record, args.setting.as_deref())?
    } else {
        let (Some(w_path), Some(z_path)) = (&args.w, &args.z) else {
            anyhow::bail!(
                "give a panel CONFIG.toml, --w FILE --z FILE or --grid FILE (see kcomp compare --help)"
            );
        };
        let (w, z) = load_user_data(w_path, z_path, args.precision)?;
        let files = vec![w_path.display().to_string(), z_path.display().to_string()];
        user_dataset(w, z, files)?
    };
    let config = single_config(args.estimators, args.llm_report);
    let names = config.estimators.clone();
    let bar = progress_bar(names.len() as u64, "estimators");
    if args.quiet || args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let cmp = compare_one(&data, &names, &config, &bar)?;
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&cmp)?);
        return Ok(());
    }
    println!(
        "N = {}, K(Z) = {:.1} bits ({:?})",
        data.n(),
        cmp.k_z.bits,
        cmp.k_z.method
    );
    println!(
        "{:<21} {:>14} {:>10} {:>10} {:>8}  status",
        "estimator", "K(Z|W) bits", "C", "score", "s"
    );
    for e in &cmp.estimates {
        let f = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |x| format!("{x:.d$}"));
        let status = &e.status;
        println!(
            "{:<21} {:>14} {:>10} {:>10} {:>8.2}  {status}",
            e.estimator,
            f(e.k_z_given_w_bits, 1),
            f(e.c, 3),
            f(e.score, 4),
            e.seconds
        );
    }
    Ok(())
}
