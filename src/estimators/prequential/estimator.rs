//! Prequential coding as a panel [`Estimator`].
//!
//! The reference protocol encodes only the training rows: the last `val_size` rows of the
//! ordering steer early stopping and are never sent. To compare with a K(Z) of the whole
//! dataset, the panel charges a code of all N rows that a decoder can follow: the validation
//! rows first, under the naive code (the decoder needs them before any model is trained), then
//! the prequential chunks. K(Z|W) = naive(validation rows) + K(Data).

use crate::dataset::Dataset;
use crate::error::Result;
use crate::estimators::interface::{Estimate, Estimator, Progress};

use super::code::{PrequentialConfig, Scheme, prequential_code};
use super::naive::naive_bits;
use super::schedule::order_rows;

/// The prequential estimator with a fixed configuration; `val_fraction` overrides
/// `config.val_size` per dataset so one configuration serves every N.
#[derive(Debug, Clone)]
pub struct PrequentialEstimator {
    pub config: PrequentialConfig,
    /// Fraction of the rows held out for early stopping (at least 10 rows).
    pub val_fraction: f64,
}

impl Default for PrequentialEstimator {
    fn default() -> Self {
        // The online scheme is the tightest in experiments/prequential-accuracy (lookup tables
        // and language systems); `scheme = "reference"` keeps the block-wise protocol.
        PrequentialEstimator {
            config: PrequentialConfig {
                scheme: Scheme::Online,
                ..Default::default()
            },
            val_fraction: 0.1,
        }
    }
}

impl PrequentialEstimator {
    /// The configuration used on a dataset of `n` rows.
    pub fn config_for(&self, n: usize) -> PrequentialConfig {
        let mut cfg = self.config.clone();
        cfg.val_size = if cfg.scheme == Scheme::Online {
            // The online scheme stops nothing early: every row is encoded.
            0
        } else {
            ((n as f64 * self.val_fraction).round() as usize).max(10)
        };
        cfg
    }
}

impl Estimator for PrequentialEstimator {
    fn name(&self) -> &str {
        "prequential"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        let cfg = self.config_for(data.n());
        super::code::validate(&data.w, &data.z, &cfg).map_err(|e| e.to_string())?;
        if cfg.scheme == Scheme::Online {
            return if cfg.online.first_rows(&data.z) < data.n() {
                Ok(())
            } else {
                Err(format!(
                    "{} rows: no more than the naive first block",
                    data.n()
                ))
            };
        }
        // Too few rows for the chunk schedule: the estimator does not apply to this dataset.
        let n_train = data.n().saturating_sub(cfg.val_size);
        cfg.schedule
            .boundaries(n_train)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn estimate(&self, data: &Dataset, progress: &Progress) -> Result<Estimate> {
        let cfg = self.config_for(data.n());
        let code = prequential_code(&data.w, &data.z, &cfg, Some(progress))?;
        let order = order_rows(&data.z, cfg.ordering, cfg.seed);
        let val_bits = naive_bits(&data.z, &order[data.n() - cfg.val_size..]);
        let k_f = code.k_data - code.k_data_given_f;
        let mut est = Estimate::code_length(val_bits + code.k_data)
            .with("k_data_bits", code.k_data)
            .with("validation_rows_naive_bits", val_bits)
            .with("k_data_given_f_bits", code.k_data_given_f)
            .with("k_f_bits", k_f)
            .with("n_encoded", code.n_encoded)
            .with("n_validation", code.n_val);
        // K_auc of the same run (Finzi et al. 2026): the model's share of the code.
        if let Some(s) =
            super::single_run::single_run(&code.chunks, code.k_data, code.k_data_given_f)
        {
            est = est
                .with("k_auc_bits", s.k_auc_bits)
                .with("final_loss_bits_per_row", s.final_loss_bits_per_row)
                .with("single_run_bits", s.single_run_bits);
        }
        // The scheme is named on every row: the two give different numbers on the same data.
        est = match cfg.scheme {
            Scheme::Online => est
                .with("scheme", "online")
                .with("learners", &code.learners),
            Scheme::Reference => est.with("scheme", "reference"),
        };
        if k_f < 0.0 {
            est =
                est.note("K(f) < 0: the final model codes the data worse than the prequential sum");
        }
        Ok(est)
    }
}
