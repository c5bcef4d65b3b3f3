//! Estimators of description lengths and compositionality.
//!
//! - [`interface`]: the [`interface::Estimator`] trait every estimator implements;
//! - [`agreement`]: Kendall's tau-b, Spearman's rho and their bootstrap over seeds;
//! - [`bdm`]: the Block Decomposition Method on CTM tables of a pybdm installation;
//! - [`compression`]: conditional code lengths from zstd, xz and bzip2, and NCD;
//! - [`disentanglement`]: posdis and bosdis (Chaabouni et al. 2020);
//! - [`llm_program`]: C(P) of LLM-written programs from a grid report;
//! - [`ground_truth`]: the exact terms of C(Z) = K(Z)/K(Z|W) for generators whose code we know;
//! - [`topsim`]: topological similarity, the classic baseline ([`topsim_integer`]: its fused
//!   one-pass form on integer data, the Figure 2 setting);
//! - [`information`], [`context_independence`], [`conflict_count`], [`lz76`], [`lz78`]: message
//!   entropy and I(W; Z), context independence, conflict count and Lempel-Ziv complexity (the
//!   1976 exhaustive parsing of Kaspar and Schuster, the 1978 dictionary parsing);
//! - [`tre`]: tree reconstruction error (additive, L1);
//! - [`requential`]: requential coding (a student taught by a teacher's synthetic data);
//!
//! LLM-written programs are scored in `crate::programs`, not here.

pub mod agreement;
pub mod bdm;
pub mod compression;
pub mod conflict_count;
pub mod context_independence;
pub mod disentanglement;
pub mod ground_truth;
pub mod information;
pub mod interface;
pub mod llm_program;
pub mod lz76;
pub mod lz78;
pub mod mapping_mdl;
pub mod prequential;
pub mod requential;
pub mod topsim;
pub mod topsim_convention;
pub mod topsim_integer;
pub mod tre;
