//! Estimators of description lengths and compositionality.
//!
//! - [`interface`]: the [`interface::Estimator`] trait every estimator implements;
//! - [`agreement`]: Kendall's tau-b, Spearman's rho and their bootstrap over seeds;
//! - [`compression`]: conditional code lengths from zstd, xz and bzip2, and NCD;
//! - [`disentanglement`]: posdis and bosdis (Chaabouni et al. 2020);
//! - [`ground_truth`]: the exact terms of C(Z) = K(Z)/K(Z|W) for generators whose code we know;
//! - [`topsim`]: topological similarity, the classic baseline;
//! - [`mapping_table`]: seed 001's mapping-table metric for LLM-written programs.

pub mod agreement;
pub mod compression;
pub mod disentanglement;
pub mod ground_truth;
pub mod interface;
pub mod mapping_mdl;
pub mod mapping_table;
pub mod prequential;
pub mod topsim;
