//! Parameter sweeps: a TOML grid of parameter values x seeds, run in parallel with results
//! independent of the thread count, summarised and plotted.
//!
//! - [`run`]: one synthetic run (generator + parameters + seed) and its record;
//! - [`config`]: the sweep TOML format;
//! - [`summary`]: runs.csv, summary.csv (mean, std, n per value), JSON;
//! - [`plot`]: PNG plots of C and topological similarity against the swept parameter.

pub mod config;
pub mod plot;
pub mod published;
pub mod run;
pub mod summary;
