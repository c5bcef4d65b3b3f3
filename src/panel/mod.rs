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
