//! `kcomp sweep` (any TOML sweep) and `kcomp reproduce` (seed 004's Figure 2 sweeps, built in).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::datasets::lookup_table::expected_c_per_sample;
use crate::rng::stream::RngKind;
use crate::sweeps::config::SweepConfig;
use crate::sweeps::plot::plot_sweep;
use crate::sweeps::published::{published_mean, quoted_in_notes};
use crate::sweeps::run::SynthSpec;
use crate::sweeps::summary::{SweepResult, progress_bar, run_sweep, write_tables};

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
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::synth::parse_max_memory, allow_hyphen_values = true)]
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
    /// Memory limit, e.g. 4G (default: half the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::synth::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
}

/// The built-in Figure 2 sweep configs (the files of configs/paper/).
pub const PAPER_CONFIGS: [(&str, &str); 7] = [
    (
        "lookup-length.toml",
        include_str!("../../configs/paper/lookup-length.toml"),
    ),
    (
        "lookup-vocab.toml",
        include_str!("../../configs/paper/lookup-vocab.toml"),
    ),
    (
        "lookup-dim.toml",
        include_str!("../../configs/paper/lookup-dim.toml"),
    ),
    (
        "lookup-ngram.toml",
        include_str!("../../configs/paper/lookup-ngram.toml"),
    ),
    (
        "grammar-width.toml",
        include_str!("../../configs/paper/grammar-width.toml"),
    ),
    (
        "grammar-depth.toml",
        include_str!("../../configs/paper/grammar-depth.toml"),
    ),
    (
        "grammar-composition.toml",
        include_str!("../../configs/paper/grammar-composition.toml"),
    ),
];

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

/// Runs the configs with one progress bar and writes tables and plots for each.
fn run_all(
    configs: &[SweepConfig],
    out: &Path,
    nested: bool,
    quiet: bool,
) -> anyhow::Result<Vec<(SweepResult, PathBuf)>> {
    let total: usize = configs
        .iter()
        .map(|c| c.plan().map(|p| p.len()))
        .sum::<crate::Result<usize>>()?;
    let bar = (!quiet).then(|| progress_bar(total as u64, "sweeps"));
    let mut results = Vec::new();
    for config in configs {
        if let Some(b) = &bar {
            b.set_prefix(config.name.clone());
        }
        let result = run_sweep(config, bar.as_ref())?;
        let dir = if nested {
            out.join(&config.name)
        } else {
            out.to_path_buf()
        };
        write_tables(&result, &dir)?;
        plot_sweep(&result, &dir)?;
        results.push((result, dir));
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(results)
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
    let results = run_all(&configs, &args.out, configs.len() > 1, args.quiet)?;
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
    let mut configs = Vec::new();
    for (name, text) in PAPER_CONFIGS {
        let mut config = SweepConfig::from_toml(name, text)?;
        config
            .params
            .insert("rng".into(), toml::Value::String(rng_name(args.rng).into()));
        configs.push(config);
    }
    let start = Instant::now();
    let results = run_all(&configs, &args.out, true, args.quiet)?;
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

fn rng_name(kind: RngKind) -> &'static str {
    match kind {
        RngKind::Kcomp => "kcomp",
        RngKind::Numpy => "numpy",
    }
}

/// Writes comparison.csv/.md; returns their paths and the worst relative difference (%) over
/// the points the notes quote.
fn write_comparison(
    results: &[(SweepResult, PathBuf)],
    out: &Path,
    rng: RngKind,
) -> anyhow::Result<(PathBuf, PathBuf, f64)> {
    let csv_path = out.join("comparison.csv");
    let md_path = out.join("comparison.md");
    let mut csv = csv::Writer::from_path(&csv_path)?;
    csv.write_record([
        "sweep",
        "value",
        "n",
        "c_per_sample_mean",
        "c_per_sample_sem",
        "published_mean",
        "rel_diff_percent",
        "closed_form_expectation",
        "quoted_in_notes",
    ])?;
    let mut md = format!(
        "# Seed 004 Figure 2: our per-sample C(Z) means beside the published means\n\n\
         Stream: {}. 10 seeds per point. rel. diff = (ours - published) / published.\n\
         Closed form (lookup only) = the expectation over seeds. {}\n\n\
         | sweep | value | ours (mean +- s.e.) | published | rel. diff | closed form |\n\
         |---|---|---|---|---|---|\n",
        rng_name(rng),
        crate::sweeps::published::SOURCE
    );
    let mut worst = 0.0f64;
    for (result, _) in results {
        for s in &result.summary {
            let published = published_mean(&result.config.name, &s.value);
            let rel = published.map(|p| 100.0 * (s.c_per_sample.mean - p) / p);
            if quoted_in_notes(&result.config.name, &s.value) {
                worst = worst.max(rel.map(f64::abs).unwrap_or(f64::INFINITY));
            }
            let closed = result
                .runs
                .iter()
                .find(|r| r.planned.value_index == s.value_index)
                .and_then(|r| match &r.planned.spec {
                    SynthSpec::Lookup(p) => expected_c_per_sample(p).ok(),
                    SynthSpec::Grammar(_) => None,
                });
            let fmt = |v: Option<f64>, digits: usize| {
                v.map(|x| format!("{x:.digits$}"))
                    .unwrap_or_else(|| "-".into())
            };
            csv.write_record([
                result.config.name.clone(),
                s.value.clone(),
                s.c_per_sample.n.to_string(),
                s.c_per_sample.mean.to_string(),
                s.c_per_sample.sem().to_string(),
                fmt(published, 6),
                fmt(rel, 5),
                fmt(closed, 6),
                quoted_in_notes(&result.config.name, &s.value).to_string(),
            ])?;
            md.push_str(&format!(
                "| {} | {} | {:.6} +- {:.6} | {} | {} | {} |\n",
                result.config.name,
                s.value,
                s.c_per_sample.mean,
                s.c_per_sample.sem(),
                fmt(published, 6),
                rel.map(|r| format!("{r:+.4}%"))
                    .unwrap_or_else(|| "-".into()),
                fmt(closed, 6),
            ));
        }
    }
    csv.flush()?;
    std::fs::write(&md_path, md).with_context(|| md_path.display().to_string())?;
    Ok((csv_path, md_path, worst))
}
