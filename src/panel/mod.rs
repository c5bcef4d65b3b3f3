//! The comparison panel behind `kcomp compare`: dataset families x parameter values x seeds,
//! every estimator on every dataset, and the tables and figures that compare them.
//!
//! - [`config`]: the TOML format;
//! - [`family`]: generator settings -> [`crate::dataset::Dataset`];
//! - [`registry`]: estimator names -> [`crate::estimators::interface::Estimator`]s;
//! - [`run`]: the parallel, deterministic, resumable run;
//! - [`single`]: one dataset (user files, a grid record) through a list of estimators;
//! - [`tables`]: runs.csv, summary.csv/md, agreement.csv;
//! - [`plots`]: C and scores against the family parameter, the agreement heat map.

pub mod config;
pub mod family;
pub mod plots;
pub mod registry;
pub mod run;
pub mod single;
pub mod tables;

pub use config::{FamilySpec, PanelConfig};
pub use run::{PanelResult, PanelRow, run_panel};

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{KcompError, Result};
use crate::estimators::interface::Progress;
use crate::sweeps::summary::progress_bar;

/// Runs a panel and writes its tables and figures into `out`; returns the result and the
/// files written.
pub fn run_and_report(
    config: &PanelConfig,
    out: &Path,
    threads: usize,
    resume: bool,
    progress: &Progress,
) -> Result<(PanelResult, Vec<PathBuf>)> {
    let result = run_panel(config, Some(out), threads, resume, progress)?;
    let mut written = tables::write_tables(&result, out)?;
    let summary = tables::summarise(&result);
    let agreement = tables::agreement(&result, config.bootstrap_resamples, config.bootstrap_seed);
    written.extend(plots::plot_panel(&result, &summary, &agreement, out)?);
    Ok((result, written))
}

/// What `kcomp compare CONFIG.toml --out DIR` did.
pub struct PanelReport {
    pub datasets: usize,
    pub estimators: usize,
    /// Datasets read back with `resume`.
    pub resumed: usize,
    pub written: Vec<PathBuf>,
}

/// Runs the panel of the config file `path` into `out` (required) with a progress bar unless
/// `quiet`.
pub fn run_panel_file(
    path: &Path,
    out: Option<&Path>,
    threads: usize,
    resume: bool,
    quiet: bool,
) -> Result<PanelReport> {
    let out = out.ok_or_else(|| {
        KcompError::Other("a panel needs --out DIR for its tables and figures".into())
    })?;
    let config = PanelConfig::from_file(path)?;
    let _lock = crate::io::files::lock_dir(out)?;
    let bar = progress_bar(run::plan(&config)?.len() as u64, "datasets");
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let (result, written) = run_and_report(&config, out, threads, resume, &bar)?;
    bar.finish_and_clear();
    Ok(PanelReport {
        datasets: result.plan.len(),
        estimators: config.estimators.len(),
        resumed: result.resumed,
        written,
    })
}

impl fmt::Display for PanelReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
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
