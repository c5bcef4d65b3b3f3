//! When the tree learner refits: a geometric schedule of checkpoints, the full fits of a
//! latent-category layout as soon as its rows allow them, and a refit as soon as the rows
//! sent show more categories than the layout holds.
//!
//! The category probe: the latent categories are found from Z's covariance given the root's
//! child heads (`LatentKeys::init_by_covariance`, no map fitted), which costs a pass over the
//! rows sent, while a refit fits every sub-model. Between checkpoints 1.5x apart the grouping
//! waits up to half the rows it needs (measured, width 2 depth 1, seed 0: refused at 473 rows,
//! two of ten pairs short of their 50 rows, found at the 710-row checkpoint, its first full
//! fit due at 575). So every 5 % more rows the grouping runs on its own, and a refit follows
//! at once when two probes in a row find the same count, larger than the layout holds (with
//! the probe: found at 577 rows, 2.30x -> 2.01x the exact K(Z|W) at N = 2,000). A probe runs
//! with the seed the refit will use, on the same rows: the refit finds the same grouping.

use super::super::super::code::derive_seed;
use super::{FIT_GROWTH, Model, TreeLearner};

/// Rows sent grow by this factor between two category probes.
const PROBE_GROWTH: f64 = 1.05;

/// Seeds of sub-model `si`'s fit at the refit numbered `fits` (from 1) and of its category
/// grouping.
pub(super) fn fit_seeds(base: u64, fits: u64, si: usize) -> (u64, u64) {
    let seed = derive_seed(base, fits * 16 + si as u64);
    (seed, derive_seed(seed, 77))
}

impl TreeLearner {
    /// Whether the rows sent show more latent categories than some linear sub-model's layout
    /// holds (a sub-model the next refit would regroup: not frozen, not locked in). Probes at
    /// most every [`PROBE_GROWTH`] more rows.
    pub(super) fn categories_due(&mut self, y: &super::linear::Target<'_>, sent: &[usize]) -> bool {
        if (sent.len() as f64) < self.last_probe as f64 * PROBE_GROWTH {
            return false;
        }
        self.last_probe = sent.len();
        let next_fits = self.fits + 1;
        let mut due = false;
        for (si, sub) in self.subs.iter_mut().enumerate() {
            let Some(latent) = sub.latent.as_ref() else {
                continue;
            };
            if sub.frozen
                || !matches!(sub.model, Model::Linear(_))
                || latent.c < 2
                || latent.active >= latent.c
                || sub.locked(self.lam)
            {
                continue;
            }
            let mut probe = latent.clone();
            let (_, seed_c) = fit_seeds(self.seed, next_fits, si);
            let found = if probe.init_by_covariance(&self.br, sent, y, self.dim, seed_c) {
                probe.active
            } else {
                0
            };
            // Two probes in a row must agree: a grouping of a few hundred rows can pick a
            // count away from the true one (width 3 depth 1, seed 0: four categories at 549
            // rows, two at 577-606, three from 637 on).
            due |= found > latent.active && sub.last_probe_active == found;
            sub.last_probe_active = found;
        }
        due
    }

    /// The row count of the next refit after one at `sent` rows: the geometric schedule, or
    /// sooner where a latent-category layout's full fits (1.25x and 1.5x its parameters per
    /// dimension) fall before it (up to half the rows earlier).
    pub(super) fn next_checkpoint(&self, sent: usize) -> usize {
        let mut next = ((sent as f64 * FIT_GROWTH).ceil() as usize).max(sent + 1);
        for sub in self.subs.iter().filter(|s| !s.frozen) {
            if sub.latent.as_ref().is_some_and(|l| l.active > 1) {
                let (first, second) = (
                    (5 * sub.rows_needed).div_ceil(4),
                    (3 * sub.rows_needed).div_ceil(2),
                );
                for full in [first, second] {
                    if full > sent && full < next {
                        next = full;
                    }
                }
            }
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::super::TreeSettings;
    use super::*;
    use crate::datasets::grammar::{Composition, GrammarParams, generate};
    use crate::estimators::prequential::learners::OnlineLearner;

    /// A refit between checkpoints comes when two probes in a row find more categories than
    /// the layout holds, and the refit's grouping is the probes' (same rows, same seed): a
    /// small width-2 grammar (D = 4, 8 words) coded one row at a time.
    #[test]
    fn a_category_probe_brings_the_refit_forward_with_its_grouping() {
        let p = GrammarParams {
            samples: 400,
            length: 8,
            vocab: 20,
            dim: 4,
            width: 2,
            depth: 1,
            composition: Composition::Linear,
            seed: 3,
            ..Default::default()
        };
        let data = generate(&p).unwrap().to_dataset().unwrap();
        let settings = TreeSettings {
            latent: 2,
            ..Default::default()
        };
        let mut l = TreeLearner::new(&data.w, &data.z, &settings, false, 5).unwrap();
        let latent_sub = l
            .subs
            .iter()
            .position(|s| s.latent.as_ref().is_some_and(|k| k.c == 2))
            .unwrap();
        let order: Vec<usize> = (0..data.n()).collect();
        let mut brought_forward = Vec::new();
        for b in 1..=order.len() {
            l.code(&data.w, &data.z, &order[b - 1..b]);
            let (fits, next, active) = (
                l.fits,
                l.next_fit,
                l.subs[latent_sub].latent.as_ref().unwrap().active,
            );
            l.learn(&data.w, &data.z, &order[..b], 1);
            let sub = &l.subs[latent_sub];
            if l.fits > fits && b < next {
                let now = sub.latent.as_ref().unwrap().active;
                assert!(now > active, "a probe refit at {b} rows: {active} -> {now}");
                assert_eq!(now, sub.last_probe_active);
                brought_forward.push((b, next));
            }
        }
        assert!(!brought_forward.is_empty());
        assert_eq!(l.subs[latent_sub].latent.as_ref().unwrap().active, 2);
    }
}
