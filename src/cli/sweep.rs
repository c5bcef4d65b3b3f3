//! `kcomp sweep` (any TOML sweep) and `kcomp reproduce` (Elmoznino et al.'s Figure 2 sweeps, built in).

use std::path::PathBuf;

use clap::Args;

use crate::io::limits::{configure, parse_max_memory};
use crate::rng::stream::RngKind;
use crate::sweeps::engine::{ShardArgs, Sharding};
use crate::sweeps::paper::{reproduce, sweep_files};

/// Run a grid of parameter values x seeds from a TOML file.
///
/// Each run is independent and seeded, so results do not depend on --threads. Writes
/// runs.csv (one row per run, all terms in bits), summary.csv and summary.json (mean, std, n per
/// value) and c.png / topsim.png. With several configs, each goes to DIR/<name>/.
///
/// Example: kcomp sweep configs/paper/lookup-length.toml --out results/length
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct SweepArgs {
    /// Sweep config files (see configs/paper/ for examples).
    #[arg(required = true, value_name = "CONFIG.toml")]
    pub configs: Vec<PathBuf>,
    /// Output directory.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Reproduce Elmoznino et al.'s synthetic sweeps (Figure 2: lookup tables and grammars).
///
/// Runs the seven built-in sweeps of configs/paper (about 1,300 runs), writes each sweep's
/// tables and plots to OUT/<sweep>/, and OUT/comparison.{csv,md}: our per-sample means beside
/// the published ones. With the default numpy stream the published runs are replayed seed for
/// seed; --rng kcomp gives an independent replication.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ReproduceArgs {
    /// Output directory.
    #[arg(long, default_value = "results/figure2", value_name = "DIR")]
    pub out: PathBuf,
    /// Random stream for every run.
    #[arg(long, value_enum, default_value_t = RngKind::Numpy)]
    pub rng: RngKind,
    #[command(flatten)]
    pub run: RunArgs,
}

/// How a sweep runs (the options `sweep` and `reproduce` share).
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Worker threads (default: all cores). Results are identical for any value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Read back the runs saved under OUT/.../runs/ whose settings match instead of
    /// recomputing them (an interrupted sweep continues where it stopped).
    #[arg(long)]
    pub resume: bool,
    /// Write into an output folder that holds another run's files.
    #[arg(long)]
    pub force: bool,
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Configures threads and memory, then runs `sweep` with the run's resume, force, quiet and
/// sharding options and prints what it reports.
fn run_with<T: std::fmt::Display>(
    run: &RunArgs,
    sweep: impl FnOnce(bool, bool, bool, Option<&Sharding>) -> crate::error::Result<T>,
) -> anyhow::Result<()> {
    configure(run.threads, run.max_memory)?;
    let sharding = run.shard.sharding()?;
    let report = sweep(run.resume, run.force, run.quiet, sharding.as_ref())?;
    out!("{report}");
    Ok(())
}

/// Runs `kcomp sweep`.
pub fn run_sweep_command(args: SweepArgs) -> anyhow::Result<()> {
    run_with(&args.run, |resume, force, quiet, sharding| {
        sweep_files(&args.configs, &args.out, resume, force, quiet, sharding)
    })
}

/// Runs `kcomp reproduce`.
pub fn run_reproduce(args: ReproduceArgs) -> anyhow::Result<()> {
    run_with(&args.run, |resume, force, quiet, sharding| {
        reproduce(args.rng, &args.out, resume, force, quiet, sharding)
    })
}
