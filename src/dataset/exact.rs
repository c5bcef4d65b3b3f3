//! Exact complexity terms of generated data (Elmoznino et al., ICML 2025, Section 4.1): K(Z) is the sum
//! K(p_w) + K(W|p_w) + K(f) + K(Z|W,f) and K(Z|W) = K(f) + K(Z|W,f), so C(Z) = K(Z)/K(Z|W).
//! All terms in bits. Generators compute them; the `exact` estimator reports them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::ExactTerms;

/// The four parts of K(Z), totals over the whole dataset, in bits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ComplexityTerms {
    /// K(p_w): the language (distribution over sentences).
    pub k_pw: f64,
    /// K(W|p_w): the sentences given the language, summed over the N samples.
    pub k_w_given_pw: f64,
    /// K(f): the decoder (lookup table, or embeddings and rules).
    pub k_f: f64,
    /// K(Z|W,f): the noise, summed over the N samples.
    pub k_z_given_wf: f64,
    /// N, the number of samples (for the per-sample convention).
    pub samples: usize,
}

impl ComplexityTerms {
    /// K(Z) = K(p_w) + K(W|p_w) + K(f) + K(Z|W,f).
    pub fn k_z(&self) -> f64 {
        self.k_pw + self.k_w_given_pw + self.k_f + self.k_z_given_wf
    }

    /// K(Z|W) = K(f) + K(Z|W,f).
    pub fn k_z_given_w(&self) -> f64 {
        self.k_f + self.k_z_given_wf
    }

    /// C(Z) = K(Z)/K(Z|W) with totals (the paper's formula).
    pub fn c(&self) -> f64 {
        self.k_z() / self.k_z_given_w()
    }

    /// C(Z) in the convention behind the published figures: K(W|p_w) and K(Z|W,f) averaged
    /// over the N samples, K(p_w) and K(f) kept as totals.
    pub fn c_per_sample(&self) -> f64 {
        let n = self.samples as f64;
        let k_w = self.k_w_given_pw / n;
        let k_zwf = self.k_z_given_wf / n;
        (self.k_pw + k_w + self.k_f + k_zwf) / (self.k_f + k_zwf)
    }
}

impl ComplexityTerms {
    /// The dataset-level [`ExactTerms`]: K(Z|W) = K(f) + K(Z|W,f), K(Z) = all four terms, parts
    /// `k_pw`, `k_w_given_pw`, `k_f`, `k_z_given_wf` (totals, the paper's formula).
    pub fn to_exact(&self) -> ExactTerms {
        ExactTerms {
            k_z_given_w_bits: self.k_z_given_w(),
            k_z_bits: self.k_z(),
            parts: BTreeMap::from([
                ("k_pw".to_string(), self.k_pw),
                ("k_w_given_pw".to_string(), self.k_w_given_pw),
                ("k_f".to_string(), self.k_f),
                ("k_z_given_wf".to_string(), self.k_z_given_wf),
            ]),
        }
    }
}

/// [`ExactTerms`] whose K(Z|W) is the sum of the named `parts` (all in bits).
pub fn exact_terms_from_parts(k_z_bits: f64, parts: &[(&str, f64)]) -> ExactTerms {
    ExactTerms {
        k_z_given_w_bits: parts.iter().map(|(_, b)| b).sum(),
        k_z_bits,
        parts: parts.iter().map(|(k, b)| (k.to_string(), *b)).collect(),
    }
}
