//! Exact complexity terms of a synthetic representation and its compositionality.
//!
//! Elmoznino et al. (ICML 2025, Section 4.1): K(Z) = K(p_w) + K(W|p_w) + K(f) + K(Z|W,f) and
//! K(Z|W) = K(f) + K(Z|W,f), so C(Z) = K(Z)/K(Z|W). All terms in bits.
//!
//! [`ExactEstimator`] (`exact`) puts a dataset's [`ExactTerms`] into the comparison panel.

use crate::dataset::Dataset;
pub use crate::dataset::exact::{ComplexityTerms, exact_terms_from_parts};
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// The generator's own K(Z|W) as a panel estimator (`exact`); does not apply to datasets
/// without exact terms (files, string-to-grid).
#[derive(Debug, Clone, Default)]
pub struct ExactEstimator;

impl Estimator for ExactEstimator {
    fn name(&self) -> &str {
        "exact"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        match data.exact {
            Some(_) => Ok(()),
            None => {
                Err("the dataset has no exact terms (its generator's program is unknown)".into())
            }
        }
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let exact = data
            .exact
            .as_ref()
            .ok_or_else(|| KcompError::param("exact", "the dataset has no exact terms"))?;
        let mut est = Estimate::code_length(exact.k_z_given_w_bits)
            .with("k_z_bits_exact", exact.k_z_bits)
            .with("c_exact", exact.k_z_bits / exact.k_z_given_w_bits);
        for (name, bits) in &exact.parts {
            est = est.with(name, bits);
        }
        Ok(est)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{KzMethod, KzReference, Provenance, Targets, TokenData};
    use crate::estimators::interface::{EstimateStatus, run_estimator};

    #[test]
    fn exact_estimator_reads_the_terms() {
        let t = ComplexityTerms {
            k_pw: 2.0,
            k_w_given_pw: 60.0,
            k_f: 10.0,
            k_z_given_wf: 8.0,
            samples: 2,
        };
        let w = TokenData::new(2, 1, 2, vec![0, 1]).unwrap();
        let z = Targets::discrete(1, 2, vec![0, 1]).unwrap();
        let kz = KzReference {
            bits: t.k_z(),
            method: KzMethod::Exact,
        };
        let with = Dataset::new(
            w.clone(),
            z.clone(),
            Provenance::default(),
            kz,
            Some(t.to_exact()),
        )
        .unwrap();
        let p = Progress::hidden();
        let row = run_estimator(&ExactEstimator, &with, &p);
        assert_eq!(row.k_z_given_w_bits, Some(18.0));
        assert_eq!(row.c, Some(80.0 / 18.0));
        assert_eq!(row.native["k_f"], 10.0);
        let without = Dataset::new(w, z, Provenance::default(), kz, None).unwrap();
        let row = run_estimator(&ExactEstimator, &without, &p);
        assert!(matches!(row.status, EstimateStatus::NotApplicable(_)));
        let e = exact_terms_from_parts(100.0, &[("a", 1.5), ("b", 2.0)]);
        assert_eq!((e.k_z_given_w_bits, e.parts["b"]), (3.5, 2.0));
    }

    #[test]
    fn identities_hold() {
        let t = ComplexityTerms {
            k_pw: 1.0,
            k_w_given_pw: 100.0,
            k_f: 10.0,
            k_z_given_wf: 40.0,
            samples: 10,
        };
        assert_eq!(t.k_z(), 151.0);
        assert_eq!(t.k_z_given_w(), 50.0);
        assert_eq!(t.c(), 151.0 / 50.0);
        assert_eq!(t.c_per_sample(), (1.0 + 10.0 + 10.0 + 4.0) / 14.0);
    }
}
