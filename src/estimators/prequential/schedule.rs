//! Data orderings and chunk schedules of the prequential code.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::rng::shuffle;
use serde::{Deserialize, Serialize};

use crate::dataset::Targets;
use crate::error::{KcompError, Result};

/// How the rows are ordered before the split into encoded rows and validation rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Ordering {
    /// A seeded random permutation of the rows.
    Random,
    /// Rows grouped by their Z value (object): groups in random order, rows shuffled within
    /// each group (the reference's `scramble_data_by: z`). The validation rows are then whole
    /// objects never encoded, and every chunk boundary of a multiple of the repeat count starts
    /// a new object.
    #[default]
    Grouped,
}

impl Ordering {
    /// The ordering behind a code length kcomp reports as such: grouping by Z would tell the
    /// decoder which rows share an object (uncharged information about Z whenever W is not
    /// injective: synonyms, holistic exceptions), so `grouped` becomes the seeded permutation.
    /// Only the reference scheme (the published protocol) keeps Z-grouping, flagged in its
    /// output.
    pub fn for_code_length(self) -> Ordering {
        match self {
            Ordering::Grouped => Ordering::Random,
            o => o,
        }
    }
}

/// Where the chunk boundaries fall (numbers of encoded rows after which a model is trained).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Schedule {
    /// `min, min + step, min + 2 step, ...` up to the number of training rows (which is always
    /// the last boundary, even when `step` does not divide it).
    Increment { min: usize, step: usize },
    /// `n` boundaries log-spaced from `min` to the number of training rows (as `numpy.logspace`
    /// truncated to integers; duplicates removed).
    Log { min: usize, n: usize },
    /// Explicit fractions of the training rows, increasing in (0, 1]; 1 is appended if absent.
    Fractions { fractions: Vec<f64> },
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule::Increment { min: 50, step: 50 }
    }
}

impl Schedule {
    /// The boundaries for `n_train` training rows: strictly increasing, first >= 1, last =
    /// `n_train`, at least two of them (one model trained before the end).
    pub fn boundaries(&self, n_train: usize) -> Result<Vec<usize>> {
        let mut b: Vec<usize> = match self {
            Schedule::Increment { min, step } => {
                if *min == 0 || *step == 0 {
                    return Err(KcompError::param(
                        "schedule",
                        "increment `min` and `step` must be >= 1",
                    ));
                }
                (*min..=n_train).step_by(*step).collect()
            }
            Schedule::Log { min, n } => {
                if *min == 0 || *n < 2 {
                    return Err(KcompError::param(
                        "schedule",
                        "log schedule needs `min` >= 1 and `n` >= 2",
                    ));
                }
                if n_train < *min {
                    Vec::new()
                } else {
                    let (lo, hi) = ((*min as f64).log10(), (n_train as f64).log10());
                    (0..*n)
                        .map(|i| {
                            let e = lo + (hi - lo) * i as f64 / (*n - 1) as f64;
                            (10f64.powf(e) + 1e-9).floor() as usize
                        })
                        .collect()
                }
            }
            Schedule::Fractions { fractions } => {
                let mut prev = 0.0;
                for &f in fractions {
                    if !(f.is_finite() && f > prev && f <= 1.0) {
                        return Err(KcompError::param(
                            "schedule",
                            "fractions must be increasing, in (0, 1]",
                        ));
                    }
                    prev = f;
                }
                fractions
                    .iter()
                    .map(|f| (f * n_train as f64).round() as usize)
                    .collect()
            }
        };
        b.retain(|&x| x >= 1 && x <= n_train);
        if b.last() != Some(&n_train) && n_train > 0 {
            b.push(n_train);
        }
        b.dedup();
        if b.len() < 2 {
            return Err(KcompError::param(
                "schedule",
                format!(
                    "too few rows for the schedule: {n_train} training rows give {} boundary; \
                     at least 2 are needed (add rows, lower the first chunk or the validation size)",
                    b.len()
                ),
            ));
        }
        Ok(b)
    }
}

/// The row order for `ordering` with `seed`.
pub fn order_rows(z: &Targets, ordering: Ordering, seed: u64) -> Vec<usize> {
    let n = z.n();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    match ordering {
        Ordering::Random => {
            let mut idx: Vec<usize> = (0..n).collect();
            shuffle(&mut idx, &mut rng);
            idx
        }
        Ordering::Grouped => {
            let width = z.width();
            let mut groups: BTreeMap<Vec<i64>, Vec<usize>> = BTreeMap::new();
            for i in 0..n {
                let key: Vec<i64> = match z {
                    Targets::Discrete { values, .. } => values[i * width..(i + 1) * width]
                        .iter()
                        .map(|&v| v as i64)
                        .collect(),
                    Targets::Continuous { grid, .. } => grid[i * width..(i + 1) * width].to_vec(),
                };
                groups.entry(key).or_default().push(i);
            }
            let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
            shuffle(&mut groups, &mut rng);
            for g in groups.iter_mut() {
                shuffle(g, &mut rng);
            }
            groups.into_iter().flatten().collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increment_matches_reference() {
        let b = Schedule::Increment { min: 50, step: 50 }
            .boundaries(2800)
            .unwrap();
        assert_eq!(b.len(), 56);
        assert_eq!(b[0], 50);
        assert_eq!(*b.last().unwrap(), 2800);
        let b = Schedule::Increment { min: 10, step: 30 }
            .boundaries(75)
            .unwrap();
        assert_eq!(b, vec![10, 40, 70, 75]);
    }

    #[test]
    fn log_and_fractions() {
        let b = Schedule::Log { min: 10, n: 3 }.boundaries(1000).unwrap();
        assert_eq!(b, vec![10, 100, 1000]);
        let b = Schedule::Fractions {
            fractions: vec![0.1, 0.5],
        }
        .boundaries(200)
        .unwrap();
        assert_eq!(b, vec![20, 100, 200]);
        assert!(
            Schedule::Increment { min: 50, step: 50 }
                .boundaries(50)
                .is_err()
        );
        assert!(
            Schedule::Fractions {
                fractions: vec![0.5, 0.2]
            }
            .boundaries(100)
            .is_err()
        );
    }

    #[test]
    fn grouped_order_keeps_objects_together() {
        let z = Targets::discrete(1, 3, vec![0, 1, 2, 0, 1, 2, 0, 1, 2]).unwrap();
        let o = order_rows(&z, Ordering::Grouped, 7);
        let vals: Vec<u32> = o.iter().map(|&i| [0, 1, 2][i % 3]).collect();
        for c in vals.chunks(3) {
            assert!(c.iter().all(|&v| v == c[0]), "{vals:?}");
        }
    }
}
