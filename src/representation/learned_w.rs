//! `learned_w`: C(Z) of the representation alone. The dataset's W is ignored: sentences are
//! learned from Z (block-wise k-means, [`super::kmeans`]), the sentence space
//! is chosen by total code length, and every term is coded
//! ([`super::terms`]). The score is the learned C(Z) = K(Z)/K(Z|W_learned);
//! it is a score row, not a K(Z|W) row, because its K(Z|W) is given another W than the
//! dataset's (compare it with the `exact` row's C on generated data).

use super::kmeans::KMeansLearner;
use super::select::{SelectConfig, check_z, select};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// The estimator with its selection settings (seed, grid).
#[derive(Debug, Clone, Default)]
pub struct LearnedWEstimator {
    pub config: SelectConfig,
}

impl Estimator for LearnedWEstimator {
    fn name(&self) -> &str {
        "learned_w"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        if data.is_discrete() {
            return Err("needs continuous Z (learned sentences of a representation)".into());
        }
        check_z(&data.z).map_err(|e| e.to_string())
    }

    fn estimate(&self, data: &Dataset, progress: &Progress) -> Result<Estimate> {
        let learner = KMeansLearner::default();
        let bar = progress.clone();
        let s = select(&learner, &data.z, &self.config, &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        })?;
        let t = &s.terms;
        let mut est = Estimate::score(t.c)
            .with("learner", "kmeans")
            .with("length", t.length)
            .with("vocab", t.vocab)
            .with("k_z_bits", t.k_z_bits)
            .with("k_z_given_w_bits", t.k_z_given_w_bits)
            .with("k_w_bits", t.k_w_bits)
            .with("k_w_code", t.k_w_code.name())
            .with("k_f_bits", t.k_f_bits)
            .with("k_z_given_wf_bits", t.k_z_given_wf_bits)
            .with("naive_bits", t.naive_bits)
            .with("w_paid", t.w_paid)
            .note("C(Z) of Z alone: W learned from Z (the dataset's W is not used)");
        for n in &t.notes {
            est = est.note(n.clone());
        }
        Ok(est)
    }
}
