//! Generators of synthetic datasets.
//!
//! - [`lookup_table`]: seed 004's lookup-table representations (Section 4.1, Appendix H);
//! - [`protocols`]: the seven test languages of Korbak et al. 2020;
//! - [`grammar`]: seed 004's context-free-grammar representations;
//! - [`validate`]: shared parameter checks;
//! - [`string_grid`]: seed 001's string-to-grid datasets (Python-`random` compatible);
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

/// A seed-004 representation (lookup table or grammar) as a panel [`Dataset`]: W tokens over
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
