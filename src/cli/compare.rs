//! `kcomp compare`: every estimator on the same datasets.

use std::path::PathBuf;

use clap::Args;

use crate::panel::single::{
    PrequentialOverrides, SingleSettings, compare_single, single_config, single_dataset,
};
use crate::panel::{run_files_to_folder, run_panel_file};
use crate::sweeps::engine::ShardArgs;

/// Compare estimators of K(Z|W) and compositionality on the same datasets.
///
/// Two forms:
///   kcomp compare CONFIG.toml --out DIR     families x values x seeds (configs/compare/)
///   kcomp compare --w W.npy --z Z.npy       one dataset from files (.npy, .csv, .jsonl;
///                                           W also sentences, .txt: see --tokeniser)
///   kcomp compare --w W.npy --z Z.npy --out DIR   the same with tables and figures
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
///   kcomp compare --w W.npy --z Z.npy --estimators topsim --set topsim.correlation=spearman
///   kcomp compare --w captions.txt --z Z.npy --precision 0.01 --estimators prequential
///   kcomp compare --estimators list              every estimator's unit and direction
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompareArgs {
    /// Panel config (TOML; see configs/compare/).
    #[arg(value_name = "CONFIG.toml", conflicts_with_all = ["w", "z"])]
    pub config: Option<PathBuf>,
    /// Output folder: runs.csv, summary.csv/md, agreement.csv, figures (a panel, or one
    /// dataset from --w/--z).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Reuse the saved datasets of an earlier run whose settings match.
    #[arg(long)]
    pub resume: bool,
    /// Write into an output folder that holds another run's files.
    #[arg(long)]
    pub force: bool,
    /// Worker threads (default: all cores). Results are identical for any value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// W file: non-negative integer tokens, one row per sample (rows of different lengths in
    /// .csv/.jsonl are padded), or sentences, one per line (.txt, or --w-format text).
    #[arg(long, value_name = "FILE", requires = "z")]
    pub w: Option<PathBuf>,
    /// How W is read (sentences, ragged rows, padding).
    #[command(flatten)]
    pub w_input: crate::io::w_input::WArgs,
    /// Z file: integer attributes, or floats with --precision.
    #[arg(long, value_name = "FILE", requires = "w")]
    pub z: Option<PathBuf>,
    /// String-to-grid file (.jsonl, Xu et al.'s format): compare on one of its records.
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
    /// Comma-separated estimators (default: all that apply, except learned_w and llm_program):
    /// exact, learned_w, mapping_mdl, prequential, compression (code lengths, bits); topsim,
    /// topsim_normalised_edit, topsim_jaccard, posdis, bosdis, entropy, mutual_information,
    /// context_independence, conflict_count, lz76, tre, tre_linear, tre_cosine, llm_program
    /// (scores). `--estimators list` prints each with its unit, direction and the data it
    /// applies to.
    #[arg(long, value_delimiter = ',')]
    pub estimators: Option<Vec<String>>,
    /// Prequential coding scheme on --w/--z or --grid: online (default) or reference.
    #[arg(long, value_enum, conflicts_with = "config")]
    pub protocol: Option<crate::estimators::prequential::Scheme>,
    /// Learners of the online prequential scheme, comma-separated: marginal, objects,
    /// ngram0..ngram3, rules, linear1, linear2, sparse (or sparse:words:bigrams:positions:
    /// position-bigrams:ridge=R), tree, mlp-linear, mlp256, gru (default: marginal, objects,
    /// ngram3, rules, linear1, linear2, sparse, mlp-linear, mlp256, tree; those that apply to
    /// the data run, the others are reported as skipped with the reason).
    #[arg(long, value_delimiter = ',', conflicts_with = "config")]
    pub learners: Option<Vec<String>>,
    /// Estimator settings for --w/--z or --grid: a TOML file with the estimator sections of a
    /// panel config ([topsim], [tre], [prequential], estimators, llm_report).
    #[arg(
        long = "config",
        id = "settings",
        value_name = "FILE",
        conflicts_with = "config"
    )]
    pub settings: Option<PathBuf>,
    /// Set one setting, KEY=VALUE with a dotted key (repeatable), after the config file:
    /// e.g. --set topsim.z_distance=euclidean, or --protocol reference --set
    /// prequential.config.train.lr=0.003 (training settings are the reference protocol's).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// A panel's plan in parts (datasets are the jobs).
    #[command(flatten)]
    pub shard: ShardArgs,
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
    if args.estimators.as_deref() == Some(&["list".to_string()][..]) {
        out!("{}", crate::panel::registry::estimator_table());
        return Ok(());
    }
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
        let sharding = args.shard.sharding()?;
        out!(
            "{}",
            run_panel_file(
                path,
                &args.set,
                out,
                crate::panel::PanelRunFlags {
                    threads,
                    resume: args.resume,
                    force: args.force,
                    quiet: args.quiet,
                },
                sharding.as_ref()
            )?
        );
        return Ok(());
    }
    if args.shard.sharding()?.is_some() {
        anyhow::bail!("--shard, --job, --merge and --plan need a panel config (CONFIG.toml)");
    }
    let preq = PrequentialOverrides {
        scheme: args.protocol,
        learners: args.learners,
    };
    // --protocol first, so that the reference protocol's training settings given with --set
    // are read as such (a later --set of the scheme still wins).
    let mut sets: Vec<String> = args
        .protocol
        .and_then(|p| clap::ValueEnum::to_possible_value(&p))
        .map(|v| format!("prequential.config.scheme={}", v.get_name()))
        .into_iter()
        .collect();
    sets.extend(args.set.iter().cloned());
    let settings = SingleSettings::load(args.settings.as_deref(), &sets)?;
    if let (Some(out), Some(w), Some(z)) = (&args.out, &args.w, &args.z) {
        // One dataset with a run folder: the panel's tables and figures for it.
        let mut config = single_config(args.estimators, args.llm_report, settings)?;
        preq.apply(&mut config.prequential.config, &config.estimators)?;
        let (report, w_notes) = run_files_to_folder(
            w,
            z,
            &args.w_input.options()?,
            args.precision,
            config,
            out,
            threads,
            args.force,
            args.quiet || args.json,
        )?;
        out!("{report}");
        for n in w_notes {
            outln!("note (W): {n}");
        }
        return Ok(());
    }
    refuse_ignored(
        "a single dataset (--w/--z or --grid)",
        &[(args.resume, "resume")],
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
    if args.out.is_some() && args.grid.is_some() {
        return Err(crate::error::KcompError::param(
            "out",
            "a run folder is written for a panel or --w/--z, not for --grid (use --json)",
        )
        .into());
    }
    let grid = args.grid.as_deref();
    let data = single_dataset(
        grid.map(|g| (g, args.record.unwrap_or(0), args.setting.as_deref())),
        args.w.as_deref().zip(args.z.as_deref()),
        &args.w_input.options()?,
        args.precision,
    )?;
    let quiet = args.quiet || args.json;
    let cmp = compare_single(
        &data,
        args.estimators,
        args.llm_report,
        settings,
        &preq,
        quiet,
    )?;
    match args.json {
        true => outln!("{}", serde_json::to_string_pretty(&cmp)?),
        false => out!("{cmp}"),
    }
    Ok(())
}
