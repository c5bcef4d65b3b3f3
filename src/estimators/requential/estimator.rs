//! Requential coding as a panel [`Estimator`]: K(Z|W) as the code length, K(Z) (the same
//! learners with W withheld) and the paper's other terms as native fields.

use crate::dataset::{Dataset, TokenData};
use crate::error::Result;
use crate::estimators::interface::{Estimate, Estimator, Progress};

use super::code::requential_code;
use super::config::RequentialConfig;

/// The requential estimator with a fixed configuration.
#[derive(Debug, Clone, Default)]
pub struct RequentialEstimator {
    pub config: RequentialConfig,
}

impl Estimator for RequentialEstimator {
    fn name(&self) -> &str {
        "requential"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        self.config.validate().map_err(|e| e.to_string())?;
        if data.n() < 2 {
            return Err(format!("{} row: nothing to learn from", data.n()));
        }
        Ok(())
    }

    fn estimate(&self, data: &Dataset, progress: &Progress) -> Result<Estimate> {
        let code = requential_code(&data.w, &data.z, &self.config, Some(progress))?;
        let mut est = Estimate::code_length(code.total_bits)
            .with("learner", &code.learner)
            .with("teacher", code.teacher)
            .with("k_req_bits", code.k_req_bits)
            .with("rec_overhead_bits", code.rec_overhead_bits)
            .with("model_bits", code.model_bits)
            .with("data_bits", code.data_bits)
            .with("selection_bits", code.selection_bits)
            .with("teacher_data_bits", code.teacher_data_bits)
            .with(
                "paper_estimate_bits",
                code.k_req_bits + code.teacher_data_bits,
            )
            .with("teacher_prequential_bits", code.teacher_prequential_bits)
            .with("teacher_k_auc_bits", code.teacher_k_auc_bits)
            .with("practical_overhead_bits", code.practical_overhead_bits)
            .with("messages", code.messages.len())
            .with("learners", &code.learners);
        if self.config.k_z {
            let blind = TokenData::blind(data.n());
            let kz = requential_code(&blind, &data.z, &self.config, Some(progress))?;
            est = est
                .with("k_z_requential_bits", kz.total_bits)
                .with("c_requential", kz.total_bits / code.total_bits);
        }
        for (name, why) in &code.skipped {
            est = est.note(format!("{name} skipped: {why}"));
        }
        Ok(est.note(
            "expected length of a relative-entropy code (not run: about 2^KL draws per \
             message); data coded by the final student",
        ))
    }
}
