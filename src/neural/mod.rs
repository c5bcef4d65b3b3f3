//! Neural models for prequential coding: token embedding -> concatenation -> MLP -> heads.
//!
//! Two interchangeable implementations of the same model family share one specification
//! ([`MlpSpec`]) and one training protocol ([`TrainConfig`]):
//! - [`fast`]: a specialised CPU implementation (f32, one `sgemm` per matrix product, Adam),
//!   the default; it is what the prequential engine uses on CPU;
//! - [`burn_mlp`]: the same model written with burn 0.22 (`flex` CPU backend + autodiff, or a
//!   GPU backend with the `gpu-wgpu` feature); the general path, built with the `burn` feature.
//!
//! Both can be initialised from the same parameter vector, so that they give the same code
//! lengths (checked in the tests). Every code length returned here is in **bits**.

#[cfg(feature = "burn")]
pub mod burn_mlp;
pub mod fast;
pub mod gru;
pub mod likelihood;
pub mod train;

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};

/// Sets flush-to-zero and denormals-are-zero for SSE arithmetic on the current thread.
///
/// Training on data the model has memorised drives gradients and Adam moments into the
/// subnormal range, where x86 arithmetic is up to 100x slower; this made steps 3x slower than
/// the sgemm baseline in long runs. Flushing them to zero is deterministic and changes code
/// lengths only below 1e-38 relative. No-op on other architectures.
#[inline]
pub fn flush_denormals() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: reads and writes the MXCSR control register of the current thread only; setting
    // the FTZ (bit 15) and DAZ (bit 6) flags is defined on every x86_64 CPU (SSE2 baseline).
    unsafe {
        let mut csr: u32 = 0;
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
        csr |= 0x8040;
        std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags));
    }
}
pub use train::{FitReport, Learner, StopOn, TrainConfig};

/// Standard deviation of a Gaussian head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StdSpec {
    /// The same fixed standard deviation for every dimension and sample.
    Fixed { std: f64 },
    /// Predicted per sample and dimension (log-std output), floored at `min_std`.
    Learned { min_std: f64 },
}

/// Output head of the model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum HeadSpec {
    /// One categorical distribution over `n_vals` values per attribute.
    Categorical { n_attr: usize, n_vals: usize },
    /// A Gaussian per dimension (mean predicted; std fixed or learned); codes are discretised.
    Gaussian { dim: usize, std: StdSpec },
}

impl HeadSpec {
    /// Number of MLP outputs the head needs.
    pub fn n_outputs(&self) -> usize {
        match *self {
            HeadSpec::Categorical { n_attr, n_vals } => n_attr * n_vals,
            HeadSpec::Gaussian {
                dim,
                std: StdSpec::Fixed { .. },
            } => dim,
            HeadSpec::Gaussian {
                dim,
                std: StdSpec::Learned { .. },
            } => 2 * dim,
        }
    }
}

/// Shape of the model: `n_words` tokens from a vocabulary of `vocab`, each embedded in
/// `emb_dim` dimensions, concatenated, then an MLP with `hidden` ReLU layers (dropout after
/// each) and the head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MlpSpec {
    pub vocab: usize,
    pub n_words: usize,
    pub emb_dim: usize,
    pub hidden: Vec<usize>,
    pub dropout: f64,
    pub head: HeadSpec,
}

impl MlpSpec {
    /// Checks every size is positive and the dropout rate is in [0, 1).
    pub fn validate(&self) -> Result<()> {
        if self.vocab == 0 {
            return Err(KcompError::param("vocab", "must be at least 1"));
        }
        if self.n_words == 0 {
            return Err(KcompError::param("n_words", "must be at least 1"));
        }
        if self.emb_dim == 0 {
            return Err(KcompError::param("emb_dim", "must be at least 1"));
        }
        if self.hidden.contains(&0) {
            return Err(KcompError::param(
                "hidden",
                "every hidden size must be >= 1",
            ));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(KcompError::param("dropout", "must be in [0, 1)"));
        }
        match self.head {
            HeadSpec::Categorical { n_attr, n_vals } => {
                if n_attr == 0 || n_vals < 2 {
                    return Err(KcompError::param(
                        "z",
                        "categorical targets need >= 1 attribute and >= 2 values",
                    ));
                }
            }
            HeadSpec::Gaussian { dim, std } => {
                if dim == 0 {
                    return Err(KcompError::param("z", "continuous targets need >= 1 dim"));
                }
                let s = match std {
                    StdSpec::Fixed { std } => std,
                    StdSpec::Learned { min_std } => min_std,
                };
                if !(s.is_finite() && s > 0.0) {
                    return Err(KcompError::param("std", "must be positive and finite"));
                }
            }
        }
        Ok(())
    }

    /// Input width of the MLP (`n_words * emb_dim`).
    pub fn input_dim(&self) -> usize {
        self.n_words * self.emb_dim
    }

    /// Layer widths from input to output.
    pub fn widths(&self) -> Vec<usize> {
        let mut w = vec![self.input_dim()];
        w.extend(self.hidden.iter().copied());
        w.push(self.head.n_outputs());
        w
    }

    /// Number of trainable parameters.
    pub fn n_params(&self) -> usize {
        let w = self.widths();
        self.vocab * self.emb_dim + w.windows(2).map(|p| p[0] * p[1] + p[1]).sum::<usize>()
    }
}
