//! Z without W as whole objects (discrete Z): a memory of the objects sent so far, and new
//! objects drawn among those not sent yet.
//!
//! Why: data sets of emergent languages often hold each object once (N = the number of
//! objects, in a random order). A code that knows the rows are distinct objects pays about
//! log2 O! bits for all O of them, one that draws every row afresh O log2 O (26 % more at
//! O = 100). Learners that read W find that out through the messages (the rule learner draws
//! a new message's object among those no other message names), so without this learner the code
//! of Z *without* W, K(Z), would not, and an unrelated W would get C = K(Z)/K(Z|W) of 1.2
//! instead of 1.

use std::collections::HashMap;

use super::super::switching::log2_sum_exp2;
use super::OnlineLearner;
use crate::dataset::{Targets, TokenData};

/// Concentrations of the Dirichlet-process memories mixed (the last one never repeats an
/// object).
const CONCENTRATIONS: [f64; 4] = [1.0 / 16.0, 1.0, 16.0, f64::INFINITY];

/// log2 prior weights of the (base, concentration) components, base-major: 1/2 on every row
/// a new object drawn uniformly (each object once: what this learner is for), 1/4 on new
/// objects from the attributes' estimates, 1/4 split over the memories that repeat objects.
fn prior() -> Vec<f64> {
    let finite = CONCENTRATIONS.iter().filter(|a| a.is_finite()).count() as f64;
    [-1.0, -2.0]
        .iter()
        .flat_map(|&never_repeat| {
            CONCENTRATIONS.iter().map(move |a| {
                if a.is_infinite() {
                    never_repeat
                } else {
                    -3.0 - finite.log2()
                }
            })
        })
        .collect()
}

/// Above this many distinct objects the base measure is no longer restricted to the objects
/// not sent yet (its normaliser costs one pass over the objects per row).
pub const MAX_EXCLUDED_OBJECTS: usize = 8192;

/// A Bayesian mixture of Dirichlet-process memories over whole objects, for each of two base
/// measures restricted to the objects not sent yet (renormalised), so a new object never costs
/// the mass of the old ones: uniform over the possible objects (every object once costs
/// log2 O! bits), or the product of the attributes' Krichevsky-Trofimov estimates (skewed
/// attributes). Prior: see [`prior`].
pub struct Objects {
    n_attr: usize,
    n_vals: usize,
    /// Krichevsky-Trofimov counts per (attribute, value).
    counts: Vec<f64>,
    /// Rows learned.
    n: f64,
    /// Count of each object sent, and the distinct objects in the order first sent.
    seen: HashMap<Vec<u32>, f64>,
    distinct: Vec<Vec<u32>>,
    /// log2 weights of the (base measure, concentration) components.
    log_w: Vec<f64>,
    /// Per-concentration log2 probabilities of the rows coded last, for `learn`.
    pending: HashMap<usize, Vec<f64>>,
    /// Number of possible objects (`n_vals^n_attr`, saturating).
    objects: f64,
}

impl Objects {
    /// `None` for continuous Z.
    pub fn new(z: &Targets) -> Option<Self> {
        let Targets::Discrete { n_attr, n_vals, .. } = z else {
            return None;
        };
        Some(Objects {
            n_attr: *n_attr,
            n_vals: *n_vals,
            counts: vec![0.5; n_attr * n_vals],
            n: 0.0,
            seen: HashMap::new(),
            distinct: Vec::new(),
            log_w: prior(),
            pending: HashMap::new(),
            objects: (*n_vals as f64).powi(*n_attr as i32),
        })
    }

    /// log2 of the product of the attributes' KT estimates of `obj`.
    fn log2_base(&self, obj: &[u32]) -> f64 {
        obj.iter()
            .enumerate()
            .map(|(a, &v)| {
                let c = &self.counts[a * self.n_vals..(a + 1) * self.n_vals];
                let tot: f64 = c.iter().sum();
                (c[v as usize] / tot).log2()
            })
            .sum()
    }

    /// log2 P(obj) under each (base measure, concentration), base-major.
    fn log2_probs(&self, obj: &[u32]) -> Vec<f64> {
        let count = self.seen.get(obj).copied().unwrap_or(0.0);
        let k = self.distinct.len() as f64;
        // Once every object was sent, a memory has no new object to put mass on and the
        // components that never repeat none to draw: they start a new round over all objects
        // and the memories code by their counts alone, so every component stays a complete
        // code (its probabilities sum to 1; tests/prequential_kraft.rs).
        let exhausted = k >= self.objects;
        // A new object: each base restricted to the objects not sent yet.
        let (log2_uniform, log2_kt) = if exhausted {
            (-self.objects.log2(), self.log2_base(obj))
        } else if count > 0.0 {
            (f64::NEG_INFINITY, f64::NEG_INFINITY)
        } else if self.distinct.len() <= MAX_EXCLUDED_OBJECTS {
            let used: f64 = self.distinct.iter().map(|o| self.log2_base(o).exp2()).sum();
            (
                -(self.objects - k).log2(),
                self.log2_base(obj) - (1.0 - used).max(1e-300).log2(),
            )
        } else {
            (-self.objects.log2(), self.log2_base(obj))
        };
        let mut out = Vec::with_capacity(2 * CONCENTRATIONS.len());
        for log2_new in [log2_uniform, log2_kt] {
            for &alpha in &CONCENTRATIONS {
                out.push(if alpha.is_infinite() {
                    log2_new
                } else if exhausted {
                    (count / self.n).log2()
                } else {
                    let total = self.n + alpha;
                    (count / total + alpha / total * log2_new.exp2()).log2()
                });
            }
        }
        out
    }

    fn object(&self, z: &Targets, row: usize) -> Vec<u32> {
        match z {
            Targets::Discrete { n_attr, values, .. } => {
                values[row * n_attr..(row + 1) * n_attr].to_vec()
            }
            Targets::Continuous { .. } => Vec::new(),
        }
    }
}

impl OnlineLearner for Objects {
    fn name(&self) -> String {
        "objects".into()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn reads_w(&self) -> bool {
        false
    }

    fn code(&mut self, _w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        rows.iter()
            .map(|&row| {
                let obj = self.object(z, row);
                let lp = self.log2_probs(&obj);
                let mix = log2_sum_exp2(self.log_w.iter().zip(&lp).map(|(w, p)| w + p));
                self.pending.insert(row, lp);
                -mix
            })
            .collect()
    }

    fn learn(&mut self, _w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        for &row in &sent[sent.len() - n_new..] {
            let obj = self.object(z, row);
            // Only rows this learner coded move the weights (the first rows go naively).
            if let Some(lp) = self.pending.remove(&row) {
                for (w, p) in self.log_w.iter_mut().zip(&lp) {
                    *w += p;
                }
                let tot = log2_sum_exp2(self.log_w.iter().copied());
                if tot.is_finite() {
                    self.log_w.iter_mut().for_each(|w| *w -= tot);
                }
            }
            for (a, &v) in obj.iter().enumerate() {
                self.counts[a * self.n_vals + v as usize] += 1.0;
            }
            let c = self.seen.entry(obj.clone()).or_insert(0.0);
            if *c == 0.0 {
                self.distinct.push(obj);
            }
            *c += 1.0;
            self.n += 1.0;
        }
        self.pending.clear();
        let _ = self.n_attr;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every object once, in a random order: about log2 O! bits (plus the mixture's choice of
    /// concentration); a code that draws afresh pays O log2 O.
    #[test]
    fn distinct_objects_cost_about_log2_factorial() {
        let (a, v) = (2usize, 10usize);
        let o = v.pow(a as u32);
        let mut perm: Vec<usize> = (0..o).collect();
        use rand::SeedableRng;
        crate::rng::shuffle(&mut perm, &mut rand_chacha::ChaCha8Rng::seed_from_u64(7));
        let values: Vec<u32> = perm
            .iter()
            .flat_map(|&i| [(i / v) as u32, (i % v) as u32])
            .collect();
        let z = Targets::discrete(a, v, values).unwrap();
        let w = TokenData::blind(o);
        let mut l = Objects::new(&z).unwrap();
        let mut total = 0.0;
        for r in 0..o {
            total += l.code(&w, &z, &[r])[0];
            let sent: Vec<usize> = (0..=r).collect();
            l.learn(&w, &z, &sent, 1);
        }
        let log2_fact: f64 = (1..=o).map(|k| (k as f64).log2()).sum();
        assert!(
            total < log2_fact + 8.0,
            "{total} vs log2 {o}! = {log2_fact}"
        );
        assert!(total > log2_fact - 1.0, "{total} vs {log2_fact}");
    }

    /// Every row's probabilities over all objects sum to at most 1, along the stream.
    #[test]
    fn probabilities_sum_to_at_most_one() {
        let (a, v) = (2usize, 3usize);
        let values: Vec<u32> = [0, 1, 2, 2, 0, 1, 0, 1, 1, 1, 2, 0, 0, 0]
            .iter()
            .map(|&x| x as u32)
            .collect();
        let z = Targets::discrete(a, v, values).unwrap();
        let w = TokenData::blind(z.n());
        let mut l = Objects::new(&z).unwrap();
        for r in 0..z.n() {
            let mut total = 0.0;
            for x in 0..v as u32 {
                for y in 0..v as u32 {
                    let lp = l.log2_probs(&[x, y]);
                    total += log2_sum_exp2(l.log_w.iter().zip(&lp).map(|(w, p)| w + p)).exp2();
                }
            }
            assert!(total <= 1.0 + 1e-12, "row {r}: {total}");
            assert!(total > 0.999, "row {r}: {total}");
            l.code(&w, &z, &[r]);
            let sent: Vec<usize> = (0..=r).collect();
            l.learn(&w, &z, &sent, 1);
        }
    }
}
