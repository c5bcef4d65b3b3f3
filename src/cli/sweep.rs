//! `kcomp sweep` (any TOML sweep) and `kcomp reproduce` (seed 004's Figure 2 sweeps, built in).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::rng::stream::RngKind;
use crate::sweeps::config::SweepConfig;
use crate::sweeps::paper::{paper_configs, rng_name, run_all, write_comparison};

/// Run a grid of parameter values x seeds from a TOML file.
///
/// Each run is independent and seeded, so results do not depend on --threads. Writes
/// runs.csv (one row per run, all terms in bits), summary.csv and summary.json (mean, std, n per
/// value) and c.png / topsim.png. With several configs, each goes to DIR/<name>/.
///
/// Example: kcomp sweep configs/paper/lookup-length.toml --out results/length
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Sweep config files (see configs/paper/ for examples).
    #[arg(required = true, value_name = "CONFIG.toml")]
    pub configs: Vec<PathBuf>,
    /// Output directory.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
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
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

/// Reproduce seed 004's synthetic sweeps (Figure 2: lookup tables and grammars).
///
/// Runs the seven built-in sweeps of configs/paper (about 1,300 runs), writes each sweep's
/// tables and plots to OUT/<sweep>/, and OUT/comparison.{csv,md}: our per-sample means beside
/// the published ones. With the default numpy stream the published runs are replayed seed for
/// seed; --rng kcomp gives an independent replication.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Output directory.
    #[arg(long, default_value = "results/figure2", value_name = "DIR")]
    pub out: PathBuf,
    /// Random stream for every run.
    #[arg(long, value_enum, default_value_t = RngKind::Numpy)]
    pub rng: RngKind,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Read back the runs saved under OUT/.../runs/ whose settings match instead of
    /// recomputing them (an interrupted sweep continues where it stopped).
    #[arg(long)]
    pub resume: bool,
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

fn set_threads(threads: Option<usize>, max_memory: Option<u64>) -> anyhow::Result<()> {
    if let Some(bytes) = max_memory {
        crate::io::limits::set_max_memory(bytes);
    }
    if let Some(n) = threads {
        crate::io::limits::check_threads("threads", n, false)?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("configuring the thread pool")?;
    }
    Ok(())
}

/// Runs `kcomp sweep`.
pub fn run_sweep_command(args: SweepArgs) -> anyhow::Result<()> {
    set_threads(args.threads, args.max_memory)?;
    let configs = args
        .configs
        .iter()
        .map(|p| SweepConfig::from_file(p))
        .collect::<crate::Result<Vec<_>>>()?;
    let start = Instant::now();
    let results = run_all(
        &configs,
        &args.out,
        configs.len() > 1,
        true,
        args.resume,
        args.quiet,
    )?;
    for (result, dir) in &results {
        println!(
            "{}: {} runs -> {}/{{runs.csv, summary.csv, summary.json, c.png{}}}",
            result.config.name,
            result.runs.len(),
            dir.display(),
            if result.config.topsim {
                ", topsim.png"
            } else {
                ""
            }
        );
    }
    println!("wall time {:.2} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// Runs `kcomp reproduce`.
pub fn run_reproduce(args: ReproduceArgs) -> anyhow::Result<()> {
    set_threads(args.threads, args.max_memory)?;
    let configs = paper_configs(args.rng)?;
    let start = Instant::now();
    let results = run_all(&configs, &args.out, true, false, args.resume, args.quiet)?;
    let elapsed = start.elapsed().as_secs_f64();
    let runs: usize = results.iter().map(|(r, _)| r.runs.len()).sum();
    let (csv_path, md_path, worst) = write_comparison(&results, &args.out, args.rng)?;
    println!(
        "seed-004 Figure 2 sweeps: {runs} runs in {elapsed:.1} s ({} stream)",
        rng_name(args.rng)
    );
    for (result, dir) in &results {
        println!(
            "  {:<22} {}/{{summary.csv, runs.csv, c.png, topsim.png}}",
            result.config.name,
            dir.display()
        );
    }
    println!(
        "comparison with the published means: {} and {}",
        csv_path.display(),
        md_path.display()
    );
    println!("largest |relative difference| on the points quoted in the notes: {worst:.4}%");
    Ok(())
}
