//! Generators of synthetic datasets.
//!
//! - [`lookup_table`]: Elmoznino et al.'s lookup-table representations (Section 4.1, Appendix H);
//! - [`protocols`]: the seven test languages of Korbak et al. 2020;
//! - [`grammar`]: Elmoznino et al.'s context-free-grammar representations;
//! - [`validate`]: shared parameter checks;
//! - [`string_grid`]: Xu et al.'s string-to-grid datasets (Python-`random` compatible);
//! - [`variable_length`]: padded variable-length messages whose last real token carries Z.

pub mod grammar;
pub mod language_system;
pub mod lookup_table;
pub mod protocols;
pub mod string_grid;
pub mod validate;
pub mod variable_length;

use crate::dataset::exact::ComplexityTerms;
use crate::dataset::{self, Dataset, KzMethod, KzReference, Provenance};
use crate::error::Result;

/// A representation of Elmoznino et al. (lookup table or grammar) as a panel [`Dataset`]: W tokens over
/// `vocab`, Z on the grid at `precision`, K(Z) = the exact four terms (totals), and the exact
/// terms themselves.
pub(crate) fn representation_dataset(
    family: &str,
    params: &impl serde::Serialize,
    seed: u64,
    (w, vocab): (&ndarray::Array2<i64>, usize),
    (z, precision): (&ndarray::Array2<i64>, f64),
    terms: &ComplexityTerms,
) -> Result<Dataset> {
    Dataset::new(
        dataset::tokens_from_array(w, vocab)?,
        dataset::grid_from_array(z, precision),
        Provenance::generated(family, params, seed),
        KzReference {
            bits: terms.k_z(),
            method: KzMethod::Exact,
        },
        Some(terms.to_exact()),
    )
}

/// `to_dataset` of a representation of Elmoznino et al.: one body for both generators.
macro_rules! representation_to_dataset {
    ($generated:ty, $family:literal) => {
        impl $generated {
            #[doc = concat!(
                "The panel [`Dataset`] (family `", $family, "`): W tokens, Z on the grid at the ",
                "generator's precision, K(Z) and the exact terms from [`ComplexityTerms`]."
            )]
            pub fn to_dataset(&self) -> Result<Dataset> {
                representation_dataset(
                    $family,
                    &self.params,
                    self.params.seed,
                    (&self.w, self.params.vocab),
                    (&self.z, self.params.precision),
                    &self.terms,
                )
            }
        }
    };
}
representation_to_dataset!(lookup_table::LookupDataset, "lookup");
representation_to_dataset!(grammar::GrammarDataset, "grammar");

#[cfg(test)]
mod representation_tests {
    use super::*;

    #[test]
    fn to_dataset_keeps_data_and_terms() {
        let same = |d: &Dataset, terms: &ComplexityTerms, shape: (usize, usize, usize), family| {
            assert_eq!((d.n(), d.w.n_words, d.w.vocab), shape);
            assert_eq!(d.k_z.bits, terms.k_z());
            let e = d.exact.as_ref().unwrap();
            assert_eq!(e.k_z_given_w_bits, terms.k_f + terms.k_z_given_wf);
            assert_eq!(d.provenance.family, family);
        };
        let l = lookup_table::generate(&lookup_table::LookupParams {
            samples: 30,
            ..Default::default()
        })
        .unwrap();
        let d = l.to_dataset().unwrap();
        same(&d, &l.terms, (30, 16, 10), "lookup");
        assert_eq!(d.w.row(3)[5] as i64, l.w[[3, 5]]);
        assert_eq!(d.z_rows_f64()[2][7], l.z[[2, 7]] as f64 * 0.01);
        let e = d.exact.unwrap();
        assert_eq!(e.parts["k_pw"], 10f64.log2() + 16f64.log2());
        assert_eq!(d.provenance.seed, Some(0));

        let g = grammar::generate(&grammar::GrammarParams {
            samples: 12,
            ..Default::default()
        })
        .unwrap();
        let d = g.to_dataset().unwrap();
        same(&d, &g.terms, (12, 16, 100), "grammar");
        assert_eq!(d.w.row(11)[15] as i64, g.w[[11, 15]]);
        let e = d.exact.unwrap();
        assert!((e.parts["k_w_given_pw"] - 12.0 * 16.0 * 40f64.log2()).abs() < 1e-9);
    }
}
