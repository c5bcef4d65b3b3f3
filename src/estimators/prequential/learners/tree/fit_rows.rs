//! Which rows a fit of the tree learner uses: an evenly spaced subsample of the rows sent, at
//! most `TreeSettings::fit_rows`, widened for linear layouts with many parameters and for
//! locked-in linear fits; and the memory a run holds.

use super::{MAX_CLASSES, MAX_TREE_DIM, MAX_TREE_VOCAB, MAX_TREE_WORDS, TreeLearner, TreeSettings};
use crate::dataset::{Targets, TokenData};

/// A linear layout with more parameters per dimension than half `TreeSettings::fit_rows` fits
/// on twice them, up to this many times `fit_rows` rows and [`WIDE_FIT_BYTES`] of per-row
/// operators ([`wide_fit_rows`]).
pub const WIDE_FIT_ROWS: usize = 3;
/// Bytes of per-row operators a widened fit may hold (short sentences of small D: 4,500 rows
/// of 16 words in D = 10 take 126 MB; 64 words in D = 32 are not widened).
pub const WIDE_FIT_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// Bytes of one fit row's cached node inputs and downstream operators (`m` words, `d` dims).
pub fn fit_row_bytes(m: usize, d: usize) -> f64 {
    let (m, d) = (m as f64, d as f64);
    (m * 2.0 * d + 2.0 * m * d * d + 2.0 * d) * 8.0
}

/// The most rows a fit of the linear sub-model uses: `fit_rows`, or for a layout that needs
/// more, up to [`WIDE_FIT_ROWS`] times it within [`WIDE_FIT_BYTES`].
pub fn wide_fit_rows(fit_rows: usize, m: usize, d: usize) -> usize {
    let by_bytes = (WIDE_FIT_BYTES / fit_row_bytes(m, d)) as usize;
    fit_rows.max(by_bytes.min(WIDE_FIT_ROWS * fit_rows))
}

/// At most `cap` of the rows sent, evenly spaced (all of them if there are no more).
pub fn spread(sent: &[usize], cap: usize) -> Vec<usize> {
    if sent.len() <= cap {
        sent.to_vec()
    } else {
        (0..cap).map(|i| sent[i * sent.len() / cap]).collect()
    }
}

impl TreeLearner {
    /// The large allocations of a run, in bytes (`f64`: absurd sizes cannot overflow), when
    /// the learner applies (0 otherwise): the keys of every row (two sub-models), a fit's
    /// per-row operators, the elementwise normal matrix, the linear parameters.
    pub fn memory_bytes(w: &TokenData, z: &Targets, settings: &TreeSettings) -> f64 {
        let Targets::Continuous { dim, .. } = z else {
            return 0.0;
        };
        if w.n_words < 2
            || w.n_words > MAX_TREE_WORDS
            || *dim > MAX_TREE_DIM
            || w.vocab > MAX_TREE_VOCAB
        {
            return 0.0;
        }
        let (n, m, d, v) = (w.n as f64, w.n_words as f64, *dim as f64, w.vocab as f64);
        let depth = m.log2().ceil() + 1.0;
        let keys = 2.0 * n * (m + m * depth) * 4.0;
        let fit = (wide_fit_rows(settings.fit_rows, w.n_words, *dim) as f64).min(n)
            * fit_row_bytes(w.n_words, *dim);
        let roles = (MAX_CLASSES * MAX_CLASSES) as f64 * depth;
        let normal = (v + roles).powi(2) * 8.0;
        // The linear sub-model (one, whatever `latent`): its rule slots at the most categories
        // (first-level pairs, then (height, category, category) above), four copies in a fit
        // and the start kept for a second full fit, and the rows' heads (two copies while the
        // categories are re-derived).
        let cats = (settings.latent + MAX_CLASSES) as f64;
        let slots = (MAX_CLASSES * MAX_CLASSES) as f64 + depth * cats * cats;
        let linear = (v * d + slots * 2.0 * d * d) * 8.0 * 5.0 + 2.0 * n * m * 8.0;
        keys + fit + normal + linear
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_keeps_every_row_under_the_cap_and_evenly_spaced_ones_over_it() {
        let sent: Vec<usize> = (100..110).collect();
        assert_eq!(spread(&sent, 10), sent);
        assert_eq!(spread(&sent, 20), sent);
        assert_eq!(spread(&sent, 5), vec![100, 102, 104, 106, 108]);
        assert_eq!(spread(&sent, 4), vec![100, 102, 105, 107]);
        assert!(spread(&sent, 0).is_empty());
    }

    #[test]
    fn widened_fits_stay_within_their_byte_bound() {
        // 16 words, D = 10 (grammars): three times the cap.
        assert_eq!(wide_fit_rows(1500, 16, 10), 4500);
        assert!(4500.0 * fit_row_bytes(16, 10) <= WIDE_FIT_BYTES);
        // 64 words, D = 32: a row's operators are ~1 MB, never widened.
        assert_eq!(wide_fit_rows(1500, 64, 32), 1500);
        // In between: as many rows as the bytes allow.
        let rows = wide_fit_rows(1500, 32, 16);
        assert!(rows > 1500 && rows < 4500);
        assert!(rows as f64 * fit_row_bytes(32, 16) <= WIDE_FIT_BYTES);
    }
}
