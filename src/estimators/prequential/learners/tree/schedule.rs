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
use super::fit_rows::wide_fit_rows;
use super::linear::GnEffort;
use super::{FIT_GROWTH, LINEAR_WORK, MAX_EXTEND, Model, TreeLearner};

/// Rows sent grow by this factor between two category probes.
const PROBE_GROWTH: f64 = 1.05;

/// Seeds of sub-model `si`'s fit at the refit numbered `fits` (from 1) and of its category
/// grouping.
pub(super) fn fit_seeds(base: u64, fits: u64, si: usize) -> (u64, u64) {
    let seed = derive_seed(base, fits * 16 + si as u64);
    (seed, derive_seed(seed, 77))
}

/// Effort of a category layout's retry ([`FitPlan::retry_rows`]).
pub(super) const RETRY_EFFORT: GnEffort = GnEffort {
    steps: 30,
    cg: 60,
    restarts: 0,
};

/// A sub-model's fits so far: what its fit schedule reads (a field of its own, so the refit
/// can ask while it holds the model mutably).
#[derive(Clone, Copy, Debug)]
pub(super) struct FitPlan {
    /// Work spent on fits so far (row-iterations).
    pub(super) work: f64,
    /// Work spent before latent categories were first found (their layout's budget starts
    /// there).
    pub(super) work_before_categories: Option<f64>,
    /// Parameters per dimension (the rows it needs to be determined).
    pub(super) rows_needed: usize,
    /// Full-effort fits since the latent category count last changed.
    pub(super) layout_full_fits: usize,
    /// Rows sent at the last full-effort fit.
    pub(super) last_full_rows: usize,
    /// Root-mean-square training error of the last fit.
    pub(super) train_rmse: f64,
    /// Work spent on refits once locked in (an allowance of its own: [`Self::refine_allowed`]).
    pub(super) locked_work: f64,
}

impl FitPlan {
    /// No fit yet, `rows_needed` parameters per dimension.
    pub(super) fn new(rows_needed: usize) -> Self {
        FitPlan {
            work: 0.0,
            work_before_categories: None,
            rows_needed,
            layout_full_fits: 0,
            last_full_rows: 0,
            train_rmse: f64::INFINITY,
            locked_work: 0.0,
        }
    }

    /// Whether a locked-in refit of `cost` (row-iterations) fits the allowance of its own
    /// (`LINEAR_WORK`, about 15 s of one core: it bounds long runs, a refit on 4,500 rows
    /// costing about 0.76e6). Such a refit reads every row sent up to the most a fit holds
    /// (`wide_fit_rows`) rather than the cap: its parameters are determined, so more rows only
    /// lower their error, and a prediction from P parameters fitted on n rows pays about
    /// P / (2 n ln 2) bits a row over the noise (3.6 at width 3 depth 1, 7,600 parameters, on
    /// the 1,520 rows of a capped fit). Measured, seed 0, N = 5,000, 1 thread (`tree_probe W D
    /// 5000 0 linear`): width 3 depth 1 276,308 -> 271,254 bits (2.03 -> 2.00x the exact
    /// K(Z|W)), depth 2 277,582 -> 272,549, width 4 depth 1 392,258 -> 389,564, width 1 depth 2
    /// 180,272 -> 179,607.
    pub(super) fn refine_allowed(&self, cost: f64) -> bool {
        self.locked_work + cost <= LINEAR_WORK
    }

    /// Work the fits may spend in a run: latent `categories` found, three times the work from
    /// when they were found (the chained fit of c^2 rules per height needs 30-60 full steps on
    /// 1.25-2x its parameters' rows, twice at width 4; the one-category fits before, hopeless
    /// on widths 3-4, spent 2.6e6 at width 4).
    pub(super) fn budget(&self, categories: bool) -> f64 {
        if categories {
            3.0 * LINEAR_WORK + self.work_before_categories.unwrap_or(0.0)
        } else {
            LINEAR_WORK
        }
    }

    /// Work held back for the second full fit (1.5x the parameters' rows, with its
    /// extension); `most_fit_rows`: the most rows a fit uses.
    pub(super) fn second_reserve(&self, most_fit_rows: usize) -> f64 {
        let rows = (3 * self.rows_needed).div_ceil(2).min(most_fit_rows);
        (rows * (RETRY_EFFORT.steps + MAX_EXTEND) * (RETRY_EFFORT.cg + 2)) as f64
    }

    /// The rows at which a category layout's (`categories`) first full fit, below 1.35x its parameters'
    /// rows and stopped above the noise (`lam`: the grid step), is retried from where it
    /// stopped, if the budget holds the retry and then the second full fit. Measured, seed 0,
    /// 1 thread: width 3 depth 1 at N = 2,000 and 5,000, the 950-row fits stopped at a
    /// training error of 94 and 14, the retries on 1,026 rows reached the noise in 42 and 11
    /// steps (2.93 -> 2.71x, 2.14 -> 2.03x the exact K(Z|W)); width 4 (depths 1 and 3): the
    /// retries on 1,593 rows stopped at 73-98, and the second full fit, which reached the
    /// noise, would have run out of budget after them.
    pub(super) fn retry_rows(
        &self,
        categories: bool,
        lam: f64,
        most_fit_rows: usize,
    ) -> Option<usize> {
        let at = (27 * self.rows_needed).div_ceil(20);
        let retry = (at.min(most_fit_rows) * RETRY_EFFORT.steps * (RETRY_EFFORT.cg + 2)) as f64;
        let due = categories
            && self.layout_full_fits == 1
            && self.train_rmse > 4.0 * lam
            && 20 * self.last_full_rows < 27 * self.rows_needed
            && self.work + retry + self.second_reserve(most_fit_rows) <= self.budget(categories);
        due.then_some(at)
    }
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
    /// dimension, and 1.35x to retry a first one that stopped above the noise) fall before it
    /// (up to half the rows earlier).
    pub(super) fn next_checkpoint(&self, sent: usize) -> usize {
        let mut next = ((sent as f64 * FIT_GROWTH).ceil() as usize).max(sent + 1);
        for sub in self.subs.iter().filter(|s| !s.frozen) {
            if sub.latent.as_ref().is_some_and(|l| l.active > 1) {
                let (first, second) = (
                    (5 * sub.plan.rows_needed).div_ceil(4),
                    (3 * sub.plan.rows_needed).div_ceil(2),
                );
                // The retry of a first full fit that stopped above the noise (`refit`).
                let most_fit_rows = wide_fit_rows(self.settings.fit_rows, self.br.len, self.dim)
                    .max(self.settings.fit_rows);
                let retry = sub.plan.retry_rows(true, self.lam, most_fit_rows);
                for full in [Some(first), retry, Some(second)].into_iter().flatten() {
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

    /// The retry of a category layout's first full fit: due at 1.35x the parameters' rows
    /// when that fit came earlier and stopped above the noise, and the budget holds the retry
    /// and the second full fit after it (width 3 depth 1 at N = 5,000, seed 0: 760 rows
    /// needed, first fit at 950 rows stopped at 14 grid units; budget 3 x 4e6 + 1.3e6).
    #[test]
    fn a_first_full_fit_above_the_noise_is_retried_within_the_budget() {
        let lam = 0.01;
        let plan = FitPlan {
            work: 5.33e6,
            work_before_categories: Some(1.3e6),
            layout_full_fits: 1,
            last_full_rows: 950,
            train_rmse: 14.3,
            ..FitPlan::new(760)
        };
        assert_eq!(plan.budget(true), 13.3e6);
        assert_eq!(plan.budget(false), 4e6);
        // The second full fit: 1,140 rows, 60 steps of 62 row-iterations each.
        assert_eq!(plan.second_reserve(4500), 1140.0 * 60.0 * 62.0);
        assert_eq!(plan.retry_rows(true, lam, 4500), Some(1026));
        // 1,026 rows x 30 steps x 62 + the reserve: due up to 7.15e6 spent.
        let spent = |work| FitPlan { work, ..plan };
        assert_eq!(spent(7.1e6).retry_rows(true, lam, 4500), Some(1026));
        assert_eq!(spent(7.2e6).retry_rows(true, lam, 4500), None);
        // One category; locked in (within 4 grid steps), fitted twice, first fit at 1.35x.
        assert_eq!(plan.retry_rows(false, lam, 4500), None);
        let not_due = [
            FitPlan {
                train_rmse: 0.03,
                ..plan
            },
            FitPlan {
                layout_full_fits: 2,
                ..plan
            },
            FitPlan {
                last_full_rows: 1026,
                ..plan
            },
        ];
        for p in not_due {
            assert_eq!(p.retry_rows(true, lam, 4500), None);
        }
    }

    #[test]
    fn a_locked_in_refit_spends_an_allowance_of_its_own() {
        // With the fits' budget spent, a refit of 4 steps of 42 row-iterations on 4,500 rows
        // still runs, until the locked-in refits themselves have spent 4e6.
        let refit = 4.0 * 42.0 * 4500.0;
        let plan = FitPlan {
            work: 20e6,
            work_before_categories: Some(1.3e6),
            ..FitPlan::new(760)
        };
        assert!(plan.work > plan.budget(true));
        assert!(plan.refine_allowed(refit));
        let spent = |locked_work| FitPlan {
            locked_work,
            ..plan
        };
        assert!(spent(4e6 - refit).refine_allowed(refit));
        assert!(!spent(4e6 - refit + 1.0).refine_allowed(refit));
    }

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
