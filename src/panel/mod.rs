//! The comparison panel behind `kcomp compare`: dataset families x parameter values x seeds,
//! every estimator on every dataset, and the tables and figures that compare them.
//!
//! - [`config`]: the TOML format;
//! - [`family`]: generator settings -> [`crate::dataset::Dataset`];
//! - [`registry`]: estimator names -> [`crate::estimators::interface::Estimator`]s;
//! - [`run`]: the parallel, deterministic, resumable run;
//! - [`single`]: one dataset (user files) through a list of estimators;
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

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::estimators::interface::Progress;

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
