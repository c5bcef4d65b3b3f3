//! Running sweep configs and reproducing Elmoznino et al.'s Figure 2: the seven built-in sweeps of
//! configs/paper, their tables and plots, and the comparison of our per-sample means with the
//! published ones (comparison.csv/.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::datasets::lookup_table::expected_c_per_sample;
use crate::error::{KcompError, Result};
use crate::rng::stream::RngKind;

use super::config::SweepConfig;
use super::engine::Sharding;
use super::plot::plot_sweep;
use super::published::{published_mean, quoted_in_notes};
use super::run::SynthSpec;
use super::summary::{SweepOptions, SweepResult, progress_bar, run_sweep_with, write_tables};

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

/// Runs the configs with one progress bar and writes tables and plots for each.
/// With `nested`, each config writes to `out/<name>/`; every run is saved under `runs/` there
/// when `save`, and read back when `resume` and its settings match. With `sharding`, only a
/// part of the plan (every config's jobs, in config order) runs or is listed, and nothing is
/// returned; a merge returns every result.
pub fn run_all(
    configs: &[SweepConfig],
    out: &Path,
    nested: bool,
    save: bool,
    resume: bool,
    quiet: bool,
    sharding: Option<&Sharding>,
) -> Result<Vec<(SweepResult, PathBuf)>> {
    if let Some(s) = sharding {
        s.set_out(out);
    }
    let total: usize = configs
        .iter()
        .map(|c| c.plan().map(|p| p.len()))
        .sum::<Result<usize>>()?;
    let bar = (!quiet).then(|| progress_bar(total as u64, "runs", "sweeps"));
    let mut results = Vec::new();
    for config in configs {
        if let Some(b) = &bar {
            b.set_prefix(config.name.clone());
        }
        let dir = if nested {
            out.join(&config.name)
        } else {
            out.to_path_buf()
        };
        let options = SweepOptions {
            threads: 0,
            save_dir: (save || resume || sharding.is_some()).then_some(dir.as_path()),
            resume,
            progress: bar.as_ref(),
            sharding,
        };
        let Some(result) = run_sweep_with(config, &options)? else {
            continue;
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

/// `kcomp sweep`: runs the config files (each into `out/<name>/` when there are several,
/// every run saved for `resume`); returns the lines the command prints. With `sharding`, a
/// part of the plan (see [`run_all`]).
pub fn sweep_files(
    paths: &[PathBuf],
    out: &Path,
    resume: bool,
    force: bool,
    quiet: bool,
    sharding: Option<&Sharding>,
) -> Result<String> {
    let configs = paths
        .iter()
        .map(|p| SweepConfig::from_file(p))
        .collect::<Result<Vec<_>>>()?;
    // --resume asks to reuse the folder.
    let stamp = serde_json::json!({"command": "sweep", "configs": &configs});
    crate::io::out_dir::claim(out, &stamp, force || resume)?;
    // One run per output folder (a second one would race the first's saved runs); the
    // parts of a sharded run share the folder by design, so only whole runs and merges lock.
    let _lock = match sharding {
        Some(s) if !s.summarises() => None,
        _ => Some(crate::io::files::lock_dir(out)?),
    };
    let start = Instant::now();
    let results = run_all(
        &configs,
        out,
        configs.len() > 1,
        true,
        resume,
        quiet,
        sharding,
    )?;
    if let Some(s) = sharding.filter(|s| !s.summarises()) {
        return super::engine::finish_part(s);
    }
    let mut text = String::new();
    for (result, dir) in &results {
        let topsim = if result.config.topsim {
            ", topsim.png"
        } else {
            ""
        };
        text += &format!(
            "{}: {} runs -> {}/{{runs.csv, summary.csv, summary.json, c.png{topsim}}}\n",
            result.config.name,
            result.runs.len(),
            dir.display(),
        );
    }
    text += &format!("wall time {:.2} s\n", start.elapsed().as_secs_f64());
    Ok(text)
}

/// `kcomp reproduce`: the built-in sweeps into `out/<sweep>/` and the comparison with the
/// published means; returns the lines the command prints. With `sharding`, a part of the
/// plan (see [`run_all`]).
pub fn reproduce(
    rng: RngKind,
    out: &Path,
    resume: bool,
    force: bool,
    quiet: bool,
    sharding: Option<&Sharding>,
) -> Result<String> {
    let configs = paper_configs(rng)?;
    let stamp = serde_json::json!({"command": "reproduce", "rng": rng_name(rng)});
    crate::io::out_dir::claim(out, &stamp, force || resume)?;
    // One run per output folder (a second one would race the first's saved runs); the
    // parts of a sharded run share the folder by design, so only whole runs and merges lock.
    let _lock = match sharding {
        Some(s) if !s.summarises() => None,
        _ => Some(crate::io::files::lock_dir(out)?),
    };
    let start = Instant::now();
    // Every run is saved, so an interrupted reproduce continues with --resume.
    let results = run_all(&configs, out, true, true, resume, quiet, sharding)?;
    if let Some(s) = sharding.filter(|s| !s.summarises()) {
        return super::engine::finish_part(s);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let runs: usize = results.iter().map(|(r, _)| r.runs.len()).sum();
    let (csv_path, md_path, worst) = write_comparison(&results, out, rng)?;
    let mut text = format!(
        "Figure 2 sweeps of Elmoznino et al. (ICML 2025): {runs} runs in {elapsed:.1} s ({} stream)\n",
        rng_name(rng)
    );
    for (result, dir) in &results {
        text += &format!(
            "  {:<22} {}/{{summary.csv, runs.csv, c.png, topsim.png}}\n",
            result.config.name,
            dir.display()
        );
    }
    text += &format!(
        "comparison with the published means: {} and {}\n\
         largest |relative difference| on the points quoted in the notes: {worst:.4}%\n",
        csv_path.display(),
        md_path.display()
    );
    Ok(text)
}

/// The stream's name as the configs spell it.
pub fn rng_name(kind: RngKind) -> &'static str {
    match kind {
        RngKind::Kcomp => "kcomp",
        RngKind::Numpy => "numpy",
    }
}

/// Writes comparison.csv/.md; returns their paths and the worst relative difference (%) over
/// the points the notes quote.
pub fn write_comparison(
    results: &[(SweepResult, PathBuf)],
    out: &Path,
    rng: RngKind,
) -> Result<(PathBuf, PathBuf, f64)> {
    let csv_path = out.join("comparison.csv");
    let md_path = out.join("comparison.md");
    let csv_err = |e: csv::Error| KcompError::file(&csv_path, e.to_string());
    let mut csv = csv::Writer::from_writer(Vec::new());
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
    ])
    .map_err(csv_err)?;
    let mut md = format!(
        "# Elmoznino et al. (ICML 2025) Figure 2: our per-sample C(Z) means beside the published means\n\n\
         Stream: {}. 10 seeds per point. rel. diff = (ours - published) / published.\n\
         Closed form (lookup only) = the expectation over seeds. {}\n\n\
         | sweep | value | ours (mean +- s.e.) | published | rel. diff | closed form |\n\
         |---|---|---|---|---|---|\n",
        rng_name(rng),
        super::published::SOURCE
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
            ])
            .map_err(csv_err)?;
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
    let bytes = csv
        .into_inner()
        .map_err(|e| KcompError::io(&csv_path, e.into_error()))?;
    crate::io::files::atomic_write(&csv_path, &bytes)?;
    crate::io::files::write_atomic_io(&md_path, md).map_err(|e| KcompError::io(&md_path, e))?;
    Ok((csv_path, md_path, worst))
}

/// The built-in Figure 2 configs with every run on `rng`'s stream.
pub fn paper_configs(rng: RngKind) -> Result<Vec<SweepConfig>> {
    PAPER_CONFIGS
        .iter()
        .map(|(name, text)| {
            let mut config = SweepConfig::from_toml(name, text)?;
            config
                .params
                .insert("rng".into(), toml::Value::String(rng_name(rng).into()));
            Ok(config)
        })
        .collect()
}
