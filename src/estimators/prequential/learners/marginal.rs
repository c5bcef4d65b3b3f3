//! Z without W: the safe fallback of the mixture.

use super::OnlineLearner;
use crate::coding::predictive::OutputDist;
use crate::dataset::{Targets, TokenData};
use crate::neural::likelihood::grid_gaussian_nll_nats;

/// Z without W: a running Gaussian per dimension, or Krichevsky-Trofimov counts per attribute.
pub struct Marginal {
    counts: Vec<f64>,
    sums: Vec<(f64, f64)>,
    n: f64,
}

impl Marginal {
    pub fn new(z: &Targets) -> Self {
        match z {
            Targets::Discrete { n_attr, n_vals, .. } => Marginal {
                counts: vec![0.5; n_attr * n_vals],
                sums: Vec::new(),
                n: 0.0,
            },
            Targets::Continuous { dim, .. } => Marginal {
                counts: Vec::new(),
                sums: vec![(0.0, 0.0); *dim],
                n: 0.0,
            },
        }
    }
}

impl Marginal {
    /// Predictive (mean, std) of dimension `d`, grid units.
    fn gaussian(&self, d: usize) -> (f64, f64) {
        if self.n > 0.0 {
            let (s1, s2) = self.sums[d];
            let m = s1 / self.n;
            let var = (s2 / self.n - m * m).max(0.0) * (1.0 + 1.0 / self.n);
            (m, var.sqrt().max(0.5))
        } else {
            (0.0, 1e3)
        }
    }
}

impl OnlineLearner for Marginal {
    fn name(&self) -> String {
        "marginal".into()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, _w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        match z {
            Targets::Discrete {
                n_attr,
                n_vals,
                values,
            } => rows
                .iter()
                .map(|&r| {
                    (0..*n_attr)
                        .map(|a| {
                            let c = &self.counts[a * n_vals..(a + 1) * n_vals];
                            let tot: f64 = c.iter().sum();
                            (tot / c[values[r * n_attr + a] as usize]).log2()
                        })
                        .sum()
                })
                .collect(),
            Targets::Continuous { dim, grid, .. } => rows
                .iter()
                .map(|&r| {
                    let nats: f64 = (0..*dim)
                        .map(|d| {
                            let (m, s) = self.gaussian(d);
                            grid_gaussian_nll_nats(grid[r * dim + d], 1.0, m, s)
                        })
                        .sum();
                    nats / std::f64::consts::LN_2
                })
                .collect(),
        }
    }

    fn learn(&mut self, _w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        for &r in &sent[sent.len() - n_new..] {
            match z {
                Targets::Discrete {
                    n_attr,
                    n_vals,
                    values,
                } => {
                    for a in 0..*n_attr {
                        self.counts[a * n_vals + values[r * n_attr + a] as usize] += 1.0;
                    }
                }
                Targets::Continuous { dim, grid, .. } => {
                    for d in 0..*dim {
                        let x = grid[r * dim + d] as f64;
                        self.sums[d].0 += x;
                        self.sums[d].1 += x * x;
                    }
                }
            }
            self.n += 1.0;
        }
    }

    fn predictive(
        &mut self,
        _w: &TokenData,
        z: &Targets,
        rows: &[usize],
    ) -> Option<Vec<Vec<OutputDist>>> {
        // Z without W: every row has the same predictive.
        let one: Vec<OutputDist> = match z {
            Targets::Discrete { n_attr, n_vals, .. } => (0..*n_attr)
                .map(|a| {
                    let c = &self.counts[a * n_vals..(a + 1) * n_vals];
                    let tot: f64 = c.iter().sum();
                    OutputDist::Categorical(c.iter().map(|x| x / tot).collect())
                })
                .collect(),
            Targets::Continuous { dim, .. } => (0..*dim)
                .map(|d| {
                    let (mean, sd) = self.gaussian(d);
                    OutputDist::Gaussian { mean, sd }
                })
                .collect(),
        };
        Some(vec![one; rows.len()])
    }
}
