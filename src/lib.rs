//! kcomp: estimating compositionality through Kolmogorov complexity.
//!
//! Every description length is in **bits** unless a function name says otherwise
//! (`*_nats`). The crate is organised by concern:
//! - [`coding`]: coding primitives (bits/nats, uniform codes, Skellam, discretised Gaussians);
//! - [`dataset`]: the one (W, Z) dataset type every generator, loader and estimator shares;
//! - [`datasets`]: generators of synthetic data (lookup tables, grammars, ...);
//! - [`estimators`]: estimators of complexity terms (ground truth, topological similarity, ...);
//! - [`sweeps`]: parameter grids, parallel runs, summaries and plots;
//! - [`io`]: interoperability (NumPy `.npy`);
//! - [`cli`]: the `kcomp` command line.

pub mod cli;
pub mod coding;
pub mod dataset;
pub mod datasets;
pub mod error;
pub mod estimators;
pub mod io;
pub mod rng;
pub mod sweeps;

pub use error::{KcompError, Result};
pub mod neural;
pub mod panel;
pub mod plot;
pub mod progress;
pub mod reports;
pub mod sandbox;
