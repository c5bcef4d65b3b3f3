//! The training protocol shared by every model implementation: Adam on mini-batches, early
//! stopping with patience and tolerance, restoring the best weights.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::dataset::{Targets, TokenData};
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
    /// Learning-rate decay on plateaus: after every `lr_patience` epochs without improvement
    /// the learning rate is multiplied by `lr_decay` (1 = constant learning rate, the
    /// reference protocol). Helps a model resolve fine-grained continuous targets.
    #[serde(skip_serializing_if = "is_one")]
    pub lr_decay: f64,
    /// Epochs without improvement before each decay (0 = never decay).
    #[serde(skip_serializing_if = "is_zero")]
    pub lr_patience: usize,
}

// Defaults are left out of serialised configurations, so that run fingerprints written
// before these options existed still match.
fn is_one(x: &f64) -> bool {
    *x == 1.0
}

fn is_zero(x: &usize) -> bool {
    *x == 0
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            lr: 1e-3,
            batch_size: 50,
            max_epochs: 10_000,
            patience: 50,
            tolerance: 1e-3,
            lr_decay: 1.0,
            lr_patience: 0,
        }
    }
}

/// Largest `max_epochs` accepted (see [`TrainConfig::validate`]).
pub const MAX_EPOCHS: usize = 100_000;

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
        // Bounds the work of one training (with patience >= max_epochs and tolerance 0 every
        // epoch runs): ten times the default.
        if self.max_epochs > MAX_EPOCHS {
            return Err(KcompError::param(
                "max_epochs",
                format!("must be at most {MAX_EPOCHS}, got {}", self.max_epochs),
            ));
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(KcompError::param("tolerance", "must be >= 0 and finite"));
        }
        if !(self.lr_decay > 0.0 && self.lr_decay <= 1.0) {
            return Err(KcompError::param("lr_decay", "must be in (0, 1]"));
        }
        Ok(())
    }

    /// Whether the learning rate decays on plateaus.
    pub fn decays(&self) -> bool {
        self.lr_decay < 1.0 && self.lr_patience > 0
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
    /// Sets Adam's learning rate.
    fn set_lr(&mut self, lr: f64);
}

/// Trains `learner` on rows `train` with early stopping on `stop_on` (and learning-rate decay
/// on plateaus if configured); restores the best weights. `shuffle_seed` fixes the mini-batch
/// order.
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
    let mut lr = cfg.lr;
    // A warm-started learner may come with a decayed rate: every run starts from cfg.lr.
    learner.set_lr(lr);
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
            if cfg.decays() && since % cfg.lr_patience == 0 {
                lr *= cfg.lr_decay;
                learner.set_lr(lr);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A learner whose losses are scripted, recording every learning rate it is given.
    struct Scripted {
        losses: Vec<f64>,
        epoch: usize,
        lrs: Vec<f64>,
    }

    impl Learner for Scripted {
        fn train_epoch(&mut self, _: &TokenData, _: &Targets, _: &[usize], _: usize) -> f64 {
            self.epoch += 1;
            self.losses[(self.epoch - 1).min(self.losses.len() - 1)]
        }
        fn mean_loss(&mut self, _: &TokenData, _: &Targets, _: &[usize]) -> f64 {
            unreachable!("no validation rows")
        }
        fn code_bits(&mut self, _: &TokenData, _: &Targets, _: &[usize]) -> f64 {
            0.0
        }
        fn save_best(&mut self) {}
        fn restore_best(&mut self) {}
        fn reset_optimizer(&mut self) {}
        fn set_lr(&mut self, lr: f64) {
            self.lrs.push(lr);
        }
    }

    fn run(cfg: &TrainConfig, losses: Vec<f64>) -> (FitReport, Vec<f64>) {
        let w = TokenData::new(2, 1, 2, vec![0, 1]).unwrap();
        let z = Targets::discrete(1, 2, vec![0, 1]).unwrap();
        let mut l = Scripted {
            losses,
            epoch: 0,
            lrs: Vec::new(),
        };
        let r = fit(&mut l, &w, &z, &[0, 1], &[], cfg, StopOn::Training, 0);
        (r, l.lrs)
    }

    #[test]
    fn plateaus_decay_the_learning_rate_and_patience_still_stops() {
        let cfg = TrainConfig {
            lr: 0.01,
            patience: 7,
            tolerance: 0.0,
            lr_decay: 0.5,
            lr_patience: 3,
            ..TrainConfig::default()
        };
        // Improves for 2 epochs, then a plateau: decays after 3 and 6 stale epochs, stops at 7.
        let (r, lrs) = run(&cfg, vec![3.0, 2.0, 2.0]);
        assert_eq!((r.epochs, r.best_epoch, r.best_loss), (9, 2, 2.0));
        assert_eq!(lrs, vec![0.01, 0.005, 0.0025]);
        // Constant rate by default (the reference protocol): only the initial rate is set.
        let (r, lrs) = run(
            &TrainConfig {
                lr_decay: 1.0,
                ..cfg.clone()
            },
            vec![3.0, 2.0, 2.0],
        );
        assert_eq!(r.epochs, 9);
        assert_eq!(lrs, vec![0.01]);
    }

    #[test]
    fn decay_settings_are_validated_and_defaults_not_serialised() {
        for bad in [0.0, -0.5, 1.5, f64::NAN] {
            let cfg = TrainConfig {
                lr_decay: bad,
                ..TrainConfig::default()
            };
            assert!(cfg.validate().is_err(), "{bad}");
        }
        let text = toml::to_string(&TrainConfig::default()).unwrap();
        assert!(
            !text.contains("lr_decay") && !text.contains("lr_patience"),
            "{text}"
        );
    }
}
