//! Model choice charged in the code: several learners code the same stream side by side and
//! their per-row predictive distributions are mixed, so the decoder (who runs every learner)
//! needs no side information about which one to trust.
//!
//! - [`Mixing::Bayes`]: the Bayesian mixture with a uniform prior; it never costs more than
//!   `log2 K` bits above the best of K learners in hindsight.
//! - [`Mixing::FixedShare`]: Herbster & Warmuth's fixed share with switching rate `alpha`
//!   (tracks the best learner when it changes along the stream).
//! - [`Mixing::Switch`]: fixed share with the decreasing rate `alpha_t = 1/(t+2)`, the
//!   cheap form of the switch distribution (van Erven et al. 2007) that solves the catch-up
//!   phenomenon: a simple learner wins early, a richer one later, and the code follows both for
//!   at most `log2 K + log2 n` bits above the best single learner.
//!
//! - [`Mixing::Hedged`] (the default): the Bayesian mixture of the two above, prior 3/4 to the
//!   Bayesian one: at most 0.42 bit above it and 2 bits above the switch. When one learner is best from the start
//!   (discrete data, where the rule learner wins at once) it costs about `log2 K + 1` bits
//!   above it instead of the switch's `(K - 1)/K log2 n`, which on a code of 10-50 bits is a
//!   large share; when the best learner changes along the stream it follows the switch.
//!
//! Inputs are per-row code lengths in bits (-log2 of each learner's probability of the row);
//! outputs are per-row code lengths of the mixture.

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};

/// How the learners' codes are combined.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Mixing {
    /// Bayesian mixture, uniform prior.
    Bayes,
    /// Fixed share with constant switching rate `alpha` in [0, 1).
    FixedShare { alpha: f64 },
    /// Fixed share with switching rate 1/(t+2) after row t.
    Switch,
    /// Bayesian mixture of [`Mixing::Bayes`] (prior 3/4) and [`Mixing::Switch`] (1/4).
    #[default]
    Hedged,
}

impl Mixing {
    /// Checks `alpha`.
    pub fn validate(&self) -> Result<()> {
        if let Mixing::FixedShare { alpha } = self
            && !(0.0..1.0).contains(alpha)
        {
            return Err(KcompError::param(
                "online.mixing.alpha",
                format!("must be in [0, 1), got {alpha}"),
            ));
        }
        Ok(())
    }

    /// Switching rate applied after row `t` (0-based).
    fn alpha(&self, t: usize) -> f64 {
        match *self {
            Mixing::Bayes | Mixing::Hedged => 0.0,
            Mixing::FixedShare { alpha } => alpha,
            Mixing::Switch => 1.0 / (t as f64 + 2.0),
        }
    }
}

/// The mixture's code of a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Mixed {
    /// Bits per row.
    pub bits: Vec<f64>,
    /// Weights of the learners after the last row (sum 1).
    pub final_weights: Vec<f64>,
    /// Share of the mixture's bits each learner won: every row's bits split by the learners'
    /// posterior responsibilities for that row (sum 1 when any bits were spent).
    pub shares: Vec<f64>,
}

/// State of the mixture: log2 weights of K learners.
#[derive(Debug, Clone)]
pub struct Mixture {
    mixing: Mixing,
    log_w: Vec<f64>,
    /// The components fixed share redistributes weight to: those of prior weight > 0.
    shared: Vec<bool>,
    t: usize,
    /// [`Mixing::Hedged`]: the switching mixture beside the Bayesian one (`log_w`), and the
    /// log2 weights of the two.
    hedge: Option<(Box<Mixture>, [f64; 2])>,
}

/// log2(sum 2^x), stable; -inf for an empty or all -inf input.
pub fn log2_sum_exp2(x: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = x.clone().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + x.map(|v| (v - m).exp2()).sum::<f64>().log2()
}

impl Mixture {
    /// Uniform weights over `k` learners.
    pub fn new(k: usize, mixing: Mixing) -> Self {
        Self::with_prior(vec![-(k as f64).log2(); k], mixing)
    }

    /// Prior log2 weights `log_w` (summing to 1 in probability); the switching side of
    /// [`Mixing::Hedged`] starts from the same prior, and fixed share redistributes uniformly.
    pub fn with_prior(log_w: Vec<f64>, mixing: Mixing) -> Self {
        Mixture {
            mixing,
            shared: log_w.iter().map(|&w| w > f64::NEG_INFINITY).collect(),
            log_w: log_w.clone(),
            t: 0,
            hedge: (mixing == Mixing::Hedged).then(|| {
                let sw = Mixture::with_prior(log_w, Mixing::Switch);
                (Box::new(sw), [0.75f64.log2(), -2.0])
            }),
        }
    }

    /// [`Mixing::Hedged`] whose two sides hold different components: prior log2 weights
    /// `bayes` of the Bayesian side and `switch` of the switching side (each summing to 1; a
    /// component a side does not hold has -inf there, and fixed share never switches to it).
    pub fn hedged_sides(bayes: Vec<f64>, switch: Vec<f64>) -> Self {
        debug_assert_eq!(bayes.len(), switch.len());
        Mixture {
            mixing: Mixing::Hedged,
            shared: bayes.iter().map(|&w| w > f64::NEG_INFINITY).collect(),
            log_w: bayes,
            t: 0,
            hedge: Some((
                Box::new(Mixture::with_prior(switch, Mixing::Switch)),
                [0.75f64.log2(), -2.0],
            )),
        }
    }

    /// Codes one row whose learners' code lengths are `bits` (one per learner); returns the
    /// mixture's bits and updates the weights.
    pub fn update(&mut self, bits: &[f64]) -> f64 {
        self.update_with(bits, |_, _| {})
    }

    /// [`Self::update`], calling `resp(k, posterior_k)` with each learner's responsibility for
    /// the row.
    pub fn update_with(&mut self, bits: &[f64], mut resp: impl FnMut(usize, f64)) -> f64 {
        self.update_dyn(bits, &mut resp)
    }

    /// [`Self::update_with`] behind a trait object (the hedged mixture calls itself).
    fn update_dyn(&mut self, bits: &[f64], resp: &mut dyn FnMut(usize, f64)) -> f64 {
        debug_assert_eq!(bits.len(), self.log_w.len());
        if let Some((sw, top)) = self.hedge.as_mut() {
            // Both mixtures code the row; each learner's responsibility is the two
            // mixtures' responsibilities weighted by their posteriors.
            let (mut rb, mut rs) = (vec![0.0; bits.len()], vec![0.0; bits.len()]);
            let top_prior = *top;
            let joint_b: Vec<f64> = self.log_w.iter().zip(bits).map(|(w, b)| w - b).collect();
            let lb = log2_sum_exp2(joint_b.iter().copied());
            if lb.is_finite() {
                for (i, (w, j)) in self.log_w.iter_mut().zip(&joint_b).enumerate() {
                    *w = j - lb;
                    rb[i] = (j - lb).exp2();
                }
            }
            let ls = -sw.update_dyn(bits, &mut |i, p| rs[i] = p);
            let total = log2_sum_exp2([top_prior[0] + lb, top_prior[1] + ls].into_iter());
            self.t += 1;
            if total == f64::NEG_INFINITY {
                return f64::INFINITY;
            }
            let post = [top_prior[0] + lb - total, top_prior[1] + ls - total];
            for i in 0..bits.len() {
                resp(i, post[0].exp2() * rb[i] + post[1].exp2() * rs[i]);
            }
            *top = post;
            return -total;
        }
        let joint: Vec<f64> = self.log_w.iter().zip(bits).map(|(w, b)| w - b).collect();
        let total = log2_sum_exp2(joint.iter().copied());
        if total == f64::NEG_INFINITY {
            // Every learner gave the row probability 0: nothing to learn from it.
            return f64::INFINITY;
        }
        let a = self.mixing.alpha(self.t);
        // Fixed share redistributes over the components this mixture holds.
        let k = self.shared.iter().filter(|&&s| s).count() as f64;
        for (i, (w, j)) in self.log_w.iter_mut().zip(&joint).enumerate() {
            let post = j - total;
            resp(i, post.exp2());
            *w = if a > 0.0 {
                let share = if self.shared[i] { a / k } else { 0.0 };
                ((1.0 - a) * post.exp2() + share).log2()
            } else {
                post
            };
        }
        self.t += 1;
        -total
    }

    /// Current weights (sum 1).
    pub fn weights(&self) -> Vec<f64> {
        match &self.hedge {
            Some((sw, top)) => {
                let ws = sw.weights();
                self.log_w
                    .iter()
                    .zip(ws)
                    .map(|(w, s)| top[0].exp2() * w.exp2() + top[1].exp2() * s)
                    .collect()
            }
            None => self.log_w.iter().map(|w| w.exp2()).collect(),
        }
    }
}

/// Mixes `per_learner[k][t]` (bits of row t under learner k) over rows, uniform prior.
pub fn mix(per_learner: &[Vec<f64>], mixing: Mixing) -> Mixed {
    let k = per_learner.len();
    mix_with_prior(per_learner, mixing, vec![-(k as f64).log2(); k])
}

/// [`mix`] with prior log2 weights `log_prior` (one per learner, summing to 1).
pub fn mix_with_prior(per_learner: &[Vec<f64>], mixing: Mixing, log_prior: Vec<f64>) -> Mixed {
    debug_assert_eq!(log_prior.len(), per_learner.len());
    mix_in(per_learner, Mixture::with_prior(log_prior, mixing))
}

/// Codes `per_learner[k][t]` over rows with the mixture `m` (fresh).
pub fn mix_in(per_learner: &[Vec<f64>], mut m: Mixture) -> Mixed {
    let k = per_learner.len();
    let n = per_learner.first().map_or(0, |v| v.len());
    let mut row = vec![0.0; k];
    let mut won = vec![0.0; k];
    let mut post = vec![0.0; k];
    let bits: Vec<f64> = (0..n)
        .map(|t| {
            for (r, l) in row.iter_mut().zip(per_learner) {
                *r = l[t];
            }
            let b = m.update_with(&row, |i, p| post[i] = p);
            if b.is_finite() {
                won.iter_mut().zip(&post).for_each(|(w, p)| *w += p * b);
            }
            b
        })
        .collect();
    let total: f64 = won.iter().sum();
    let shares = won
        .iter()
        .map(|w| if total > 0.0 { w / total } else { 0.0 })
        .collect();
    Mixed {
        bits,
        final_weights: m.weights(),
        shares,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Three learners with random per-row costs; the best one is 0.3 bit/row cheaper.
    fn stream(n: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..3)
            .map(|k| {
                (0..n)
                    .map(|_| rng.random::<f64>() * 4.0 + if k == 1 { 0.0 } else { 0.3 })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn bayes_costs_at_most_log2_k_above_the_best_learner() {
        for seed in 0..5 {
            let s = stream(500, seed);
            let best = s
                .iter()
                .map(|l| l.iter().sum::<f64>())
                .fold(f64::INFINITY, f64::min);
            let mixed: f64 = mix(&s, Mixing::Bayes).bits.iter().sum();
            assert!(mixed <= best + 3f64.log2() + 1e-9, "{mixed} vs {best}");
            // ... and never below the best minus log2 K either for a clear winner here.
            assert!(mixed > best - 3f64.log2());
        }
        // Identical learners: the mixture is exactly each of them.
        let same = vec![vec![1.5; 10]; 4];
        let m = mix(&same, Mixing::Bayes);
        assert!(m.bits.iter().all(|&b| (b - 1.5).abs() < 1e-12));
        assert!(m.final_weights.iter().all(|&w| (w - 0.25).abs() < 1e-12));
    }

    #[test]
    fn switch_bound_and_it_tracks_a_change_of_best_learner() {
        let n = 400;
        let s = stream(n, 9);
        let best = s
            .iter()
            .map(|l| l.iter().sum::<f64>())
            .fold(f64::INFINITY, f64::min);
        let sw: f64 = mix(&s, Mixing::Switch).bits.iter().sum();
        assert!(sw <= best + 3f64.log2() + (n as f64).log2() + 1e-9);
        // Learner 0 is best for the first half, learner 1 for the second (1 bit/row gaps).
        let a: Vec<f64> = (0..n).map(|t| if t < n / 2 { 1.0 } else { 3.0 }).collect();
        let b: Vec<f64> = (0..n).map(|t| if t < n / 2 { 2.0 } else { 1.0 }).collect();
        let best_single = a.iter().sum::<f64>().min(b.iter().sum());
        let two = vec![a, b];
        let bayes: f64 = mix(&two, Mixing::Bayes).bits.iter().sum();
        let sw: f64 = mix(&two, Mixing::Switch).bits.iter().sum();
        let fs: f64 = mix(&two, Mixing::FixedShare { alpha: 0.01 })
            .bits
            .iter()
            .sum();
        // Bayes codes the whole stream with the mixture of the two: exactly -log2(2^-800/2 +
        // 2^-600/2) = 601 bits. The best switching sequence costs n = 400 bits; both trackers
        // get within ~30 bits of it.
        assert!((bayes - (best_single + 1.0)).abs() < 1e-6, "{bayes}");
        assert!(sw < 430.0 && fs < 430.0, "{sw} {fs}");
        assert!(sw < best_single - 150.0);
    }

    #[test]
    fn hedged_stays_within_0_42_bit_of_bayes_and_2_bits_of_switch() {
        let n = 400;
        let a: Vec<f64> = (0..n).map(|t| if t < n / 2 { 1.0 } else { 3.0 }).collect();
        let b: Vec<f64> = (0..n).map(|t| if t < n / 2 { 2.0 } else { 1.0 }).collect();
        for s in [
            stream(500, 3),
            vec![a, b],
            vec![vec![0.5; 300], vec![2.0; 300]],
        ] {
            let total = |m| mix(&s, m).bits.iter().sum::<f64>();
            let (bayes, sw, h) = (
                total(Mixing::Bayes),
                total(Mixing::Switch),
                total(Mixing::Hedged),
            );
            assert!(h <= bayes + 0.75f64.log2().abs() + 1e-9, "{h} vs {bayes}");
            assert!(h <= sw + 2.0 + 1e-9, "{h} vs {sw}");
            assert!(h >= bayes.min(sw) - 1e-9, "{h} vs {bayes} {sw}");
            let m = mix(&s, Mixing::Hedged);
            assert!((m.final_weights.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            assert!((m.shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        // One learner best from the first row: the Bayesian side wins, within log2 K + 0.42
        // bits; with prior 1/2 on that learner, within 1.42 bits.
        let s = vec![vec![0.5; 1000], vec![2.0; 1000], vec![3.0; 1000]];
        let h: f64 = mix(&s, Mixing::Hedged).bits.iter().sum();
        assert!(h <= 500.0 + 3f64.log2() + 0.416 + 1e-9, "{h}");
        let h: f64 = mix_with_prior(&s, Mixing::Hedged, vec![-1.0, -2.0, -2.0])
            .bits
            .iter()
            .sum();
        assert!(h <= 500.0 + 1.416 + 1e-9, "{h}");
    }

    #[test]
    fn hedged_sides_hold_their_own_components() {
        // Learner 0 is best for the first half, learner 1 for the second; learner 2 is the
        // best single learner. The Bayesian side holds 1 and 2, the switching side 0 and 1.
        let n = 400;
        let a: Vec<f64> = (0..n).map(|t| if t < n / 2 { 1.0 } else { 3.0 }).collect();
        let b: Vec<f64> = (0..n).map(|t| if t < n / 2 { 3.0 } else { 1.0 }).collect();
        let c = vec![1.9; n];
        let s = vec![a.clone(), b.clone(), c.clone()];
        let ninf = f64::NEG_INFINITY;
        let m = mix_in(
            &s,
            Mixture::hedged_sides(vec![ninf, -1.0, -1.0], vec![-1.0, -1.0, ninf]),
        );
        let h: f64 = m.bits.iter().sum();
        let bayes: f64 = mix(&[b.clone(), c.clone()], Mixing::Bayes)
            .bits
            .iter()
            .sum();
        let sw: f64 = mix(&[a, b], Mixing::Switch).bits.iter().sum();
        // The hedge of the two sides: within 0.42 bit of the one and 2 bits of the other.
        assert!(h <= bayes + 0.75f64.log2().abs() + 1e-9, "{h} vs {bayes}");
        assert!(h <= sw + 2.0 + 1e-9, "{h} vs {sw}");
        assert!(h >= bayes.min(sw) - 1e-9);
        assert!((m.final_weights.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        // Identical sides: exactly the hedged mixture of that prior.
        let p = vec![-1.0, -2.0, -2.0];
        let same = mix_in(&s, Mixture::hedged_sides(p.clone(), p.clone()));
        assert_eq!(same.bits, mix_with_prior(&s, Mixing::Hedged, p).bits);
    }

    #[test]
    fn alpha_is_checked() {
        assert!(Mixing::FixedShare { alpha: 1.0 }.validate().is_err());
        assert!(Mixing::FixedShare { alpha: 0.1 }.validate().is_ok());
    }
}
