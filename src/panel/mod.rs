//! The comparison panel behind `kcomp compare`: dataset families x parameter values x seeds,
//! every estimator on every dataset, and the tables and figures that compare them.
//!
//! - [`config`]: the TOML format;
//! - [`family`]: generator settings -> [`crate::dataset::Dataset`];
//! - [`registry`]: estimator names -> [`crate::estimators::interface::Estimator`]s;
//! - [`run`]: the parallel, deterministic, resumable run;
//! - [`single`]: one dataset (user files, a grid record) through a list of estimators;
//! - [`tables`]: runs.csv, summary.csv/md, agreement.csv;
//! - [`plots`]: C and scores against the family parameter, the agreement heat map;
//! - [`crosscheck`]: every code-length estimator against exact K (ratio, time ratio to the
//!   prequential code), for panels that run `exact` beside them.
//! - [`work`]: expected work of estimators and datasets (the progress bar's ETA).

pub mod config;
pub mod crosscheck;
pub mod family;
pub mod plots;
pub mod registry;
pub mod run;
pub mod single;
pub mod tables;
pub mod work;

pub use config::{FamilySpec, PanelConfig};
pub use run::{PanelResult, PanelRow, run_panel};

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{KcompError, Result};
use crate::progress::WorkBar;
use crate::sweeps::engine::{Sharding, finish_part};
use crate::sweeps::summary::progress_bar;

/// Runs a panel and writes its tables and figures into `out`; returns the result and the
/// files written.
pub fn run_and_report(
    config: &PanelConfig,
    out: &Path,
    threads: usize,
    resume: bool,
    progress: &WorkBar,
) -> Result<(PanelResult, Vec<PathBuf>)> {
    let result = run_panel(config, Some(out), threads, resume, progress)?;
    report(config, result, out)
}

fn report(
    config: &PanelConfig,
    result: PanelResult,
    out: &Path,
) -> Result<(PanelResult, Vec<PathBuf>)> {
    let mut written = tables::write_tables(&result, out)?;
    let summary = tables::summarise(&result);
    let agreement = tables::agreement(&result, config.bootstrap_resamples, config.bootstrap_seed);
    written.extend(plots::plot_panel(&result, &summary, &agreement, out)?);
    if crosscheck::applies(&result) {
        written.extend(crosscheck::write_crosscheck(&result, out)?);
    }
    Ok((result, written))
}

/// What `kcomp compare CONFIG.toml --out DIR` did.
pub enum PanelOutcome {
    /// The tables and figures were written.
    Report(PanelReport),
    /// A part of the plan ran or was listed (`--shard`, `--job`, `--plan`): what it did.
    Part(String),
}

/// What `kcomp compare CONFIG.toml --out DIR` wrote.
pub struct PanelReport {
    pub datasets: usize,
    pub estimators: usize,
    /// Datasets read back with `resume`.
    pub resumed: usize,
    pub written: Vec<PathBuf>,
    /// The results table ([`tables::summary_text`]).
    pub table: String,
    /// Datasets of different N compared side by side ([`tables::size_warnings`]).
    pub warnings: Vec<String>,
}

impl PanelReport {
    /// The report of a finished panel.
    pub fn new(config: &PanelConfig, result: &PanelResult, written: Vec<PathBuf>) -> Self {
        let summary = tables::summarise(result);
        PanelReport {
            datasets: result.plan.len(),
            estimators: config.estimators.len(),
            resumed: result.resumed,
            written,
            table: tables::summary_text(result, &summary),
            warnings: tables::size_warnings(result),
        }
    }
}

/// How `kcomp compare CONFIG` runs: worker threads (0 = all cores), reuse of saved datasets,
/// overwrite of another run's folder, and the progress bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct PanelRunFlags {
    pub threads: usize,
    pub resume: bool,
    pub force: bool,
    pub quiet: bool,
}

/// Runs the panel of the config file `path` (with `sets` applied) into `out` (required) with
/// a progress bar unless `flags.quiet`; with `sharding`, only a part of the plan, or the merge
/// of the saved parts.
pub fn run_panel_file(
    path: &Path,
    sets: &[String],
    out: Option<&Path>,
    flags: PanelRunFlags,
    sharding: Option<&Sharding>,
) -> Result<PanelOutcome> {
    let PanelRunFlags {
        threads,
        resume,
        force,
        quiet,
    } = flags;
    let out = out.ok_or_else(|| {
        KcompError::Other("a panel needs --out DIR for its tables and figures".into())
    })?;
    let config = PanelConfig::from_file_with(path, sets)?;
    // --resume asks to reuse the folder.
    let stamp = serde_json::json!({"command": "compare", "config": &config});
    crate::io::out_dir::claim(out, &stamp, force || resume)?;
    // One run per output folder (a second one would race the first's saved runs); the
    // parts of a sharded run share the folder by design, so only whole runs and merges lock.
    let _lock = match sharding {
        Some(s) if !s.summarises() => None,
        _ => Some(crate::io::files::lock_dir(out)?),
    };
    let bar = progress_bar(run::plan(&config)?.len() as u64, "datasets", &config.name);
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let result = run::run_panel_part(&config, Some(out), threads, resume, &bar, sharding)?;
    bar.finish_and_clear();
    let Some(result) = result else {
        let sharding = sharding.ok_or_else(|| KcompError::Other("a panel has results".into()))?;
        return Ok(PanelOutcome::Part(finish_part(sharding)?));
    };
    let (result, written) = report(&config, result, out)?;
    Ok(PanelOutcome::Report(PanelReport::new(
        &config, &result, written,
    )))
}

impl fmt::Display for PanelOutcome {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            PanelOutcome::Report(r) => r.fmt(f),
            PanelOutcome::Part(text) => f.write_str(text),
        }
    }
}

/// `kcomp compare --w W --z Z --out DIR`: one dataset from files as a one-dataset panel (a
/// `files` family), so it gets the panel's tables and figures in `out`.
#[allow(clippy::too_many_arguments)]
pub fn run_files_to_folder(
    w: &Path,
    z: &Path,
    w_options: &crate::io::w_input::WOptions,
    precision: Option<f64>,
    mut config: PanelConfig,
    out: &Path,
    threads: usize,
    force: bool,
    quiet: bool,
) -> Result<(PanelReport, Vec<String>)> {
    let name = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let mut value = toml::Table::new();
    value.insert("w".into(), w.display().to_string().into());
    value.insert("z".into(), z.display().to_string().into());
    value.insert("name".into(), format!("{} + {}", name(w), name(z)).into());
    let mut params = toml::Table::new();
    if let Some(p) = precision {
        params.insert("precision".into(), p.into());
    }
    let wo = w_options;
    if wo.format != crate::io::w_input::WFormat::Auto {
        let f = toml::Value::try_from(wo.format)
            .map_err(|e| crate::error::KcompError::Other(e.to_string()))?;
        params.insert("w_format".into(), f);
    }
    match &wo.tokeniser {
        Some(crate::io::text::Tokeniser::Words { keep_case })
        | Some(crate::io::text::Tokeniser::Chars { keep_case }) => {
            let name = wo.tokeniser.as_ref().map(|t| t.name()).unwrap_or_default();
            params.insert(
                "tokeniser".into(),
                name.trim_end_matches("+case").to_string().into(),
            );
            if *keep_case {
                params.insert("keep_case".into(), true.into());
            }
        }
        Some(crate::io::text::Tokeniser::HuggingFace(p)) => {
            params.insert("tokeniser".into(), p.display().to_string().into());
        }
        None => {}
    }
    if let Some(p) = wo.pad {
        params.insert("pad".into(), p.into());
    }
    config.name = "files".into();
    config.families = vec![config::FamilySpec {
        name: Some("files".into()),
        kind: "files".into(),
        parameter: "dataset".into(),
        values: vec![toml::Value::Table(value)],
        params,
    }];
    config.validate()?;
    let stamp = serde_json::json!({"command": "compare", "config": &config});
    crate::io::out_dir::claim(out, &stamp, force)?;
    let bar = progress_bar(1, "datasets", "compare");
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let (result, mut written) = run_and_report(&config, out, threads, false, &bar)?;
    bar.finish_and_clear();
    // What W's dense ids stand for, when they are not the file's own ids.
    let (wd, info) = crate::io::w_input::read_w(w, w_options)?;
    if info.remapped || info.pad_source.is_some() {
        let path = out.join("w_vocabulary.csv");
        crate::io::files::atomic_write(&path, &info.vocabulary_csv(&wd)?)?;
        written.push(path);
    }
    Ok((PanelReport::new(&config, &result, written), info.notes()))
}

impl fmt::Display for PanelReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.table)?;
        if !self.table.is_empty() {
            writeln!(f, "\n{}", tables::COMPARABILITY)?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        writeln!(
            f,
            "{} datasets x {} estimators ({} read back with --resume)",
            self.datasets, self.estimators, self.resumed
        )?;
        for p in &self.written {
            writeln!(f, "wrote {}", p.display())?;
        }
        Ok(())
    }
}
