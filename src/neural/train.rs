//! The training protocol shared by every model implementation: Adam on mini-batches, early
//! stopping with patience and tolerance, restoring the best weights.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::data::{Targets, TokenData};
use crate::error::{KcompError, Result};

/// Optimisation settings (reference emergent protocol: lr 1e-3, batch 50, patience 50,
/// tolerance 1e-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Adam learning rate.
    pub lr: f64,
    /// Mini-batch size.
    pub batch_size: usize,
    /// Hard cap on epochs per training run.
    pub max_epochs: usize,
    /// Epochs without improvement before stopping.
    pub patience: usize,
    /// An epoch improves if its loss is below best - tolerance (loss: mean nats per value).
    pub tolerance: f64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            lr: 1e-3,
            batch_size: 50,
            max_epochs: 10_000,
            patience: 50,
            tolerance: 1e-3,
        }
    }
}

impl TrainConfig {
    /// Validates the settings.
    pub fn validate(&self) -> Result<()> {
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return Err(KcompError::param("lr", "must be positive and finite"));
        }
        if self.batch_size == 0 {
            return Err(KcompError::param("batch_size", "must be at least 1"));
        }
        if self.max_epochs == 0 {
            return Err(KcompError::param("max_epochs", "must be at least 1"));
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(KcompError::param("tolerance", "must be >= 0 and finite"));
        }
        Ok(())
    }
}

/// Which loss drives early stopping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopOn {
    /// Loss on the held-out validation rows (the usual case).
    Validation,
    /// Mean training loss of the epoch (the reference's `allow_final_overfit` for the final
    /// model on all training data).
    Training,
}

/// What a training run did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Epochs run.
    pub epochs: usize,
    /// Epoch (1-based) whose weights were restored.
    pub best_epoch: usize,
    /// Best monitored loss (mean nats per value).
    pub best_loss: f64,
}

/// A trainable model of the family. Implemented by the fast CPU MLP and by the burn MLP.
pub trait Learner {
    /// One pass over `order` in mini-batches of `batch` with Adam; returns the mean batch loss
    /// (mean nats per target value).
    fn train_epoch(&mut self, w: &TokenData, z: &Targets, order: &[usize], batch: usize) -> f64;
    /// Mean training loss (nats per target value, no dropout) on rows `idx`.
    fn mean_loss(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> f64;
    /// Code length in bits of the targets of rows `idx` (discretised for continuous Z).
    fn code_bits(&mut self, w: &TokenData, z: &Targets, idx: &[usize]) -> f64;
    /// Remembers the current weights as the best ones.
    fn save_best(&mut self);
    /// Goes back to the remembered best weights (no-op if none).
    fn restore_best(&mut self);
    /// Forgets Adam's moments (used between warm-started runs).
    fn reset_optimizer(&mut self);
}

/// Trains `learner` on rows `train` with early stopping on `stop_on`; restores the best weights.
/// `shuffle_seed` fixes the mini-batch order.
#[allow(clippy::too_many_arguments)]
pub fn fit<L: Learner + ?Sized>(
    learner: &mut L,
    w: &TokenData,
    z: &Targets,
    train: &[usize],
    val: &[usize],
    cfg: &TrainConfig,
    stop_on: StopOn,
    shuffle_seed: u64,
) -> FitReport {
    let mut rng = ChaCha8Rng::seed_from_u64(shuffle_seed);
    let mut order = train.to_vec();
    let mut best = f64::INFINITY;
    let mut best_epoch = 0;
    let mut since = 0;
    let mut epochs = 0;
    let stop_on = if val.is_empty() {
        StopOn::Training
    } else {
        stop_on
    };
    while epochs < cfg.max_epochs {
        for i in (1..order.len()).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        let train_loss = learner.train_epoch(w, z, &order, cfg.batch_size);
        epochs += 1;
        let loss = match stop_on {
            StopOn::Training => train_loss,
            StopOn::Validation => learner.mean_loss(w, z, val),
        };
        if loss.is_finite() && loss < best - cfg.tolerance {
            best = loss;
            best_epoch = epochs;
            since = 0;
            learner.save_best();
        } else {
            since += 1;
            if since >= cfg.patience {
                break;
            }
        }
    }
    learner.restore_best();
    FitReport {
        epochs,
        best_epoch,
        best_loss: best,
    }
}
