//! Each output a table over one n-gram of W at an unknown position.

use super::super::switching::log2_sum_exp2;
use super::OnlineLearner;
use crate::coding::predictive::OutputDist;
use crate::dataset::{Targets, TokenData};
use crate::neural::likelihood::grid_gaussian_nll_nats;

/// Largest number of table cells per output of [`NgramTable`].
pub const MAX_NGRAM_CELLS: usize = 1 << 18;

/// "Each output is a table over one n-gram of W at an unknown position": for every output
/// (continuous dimension or discrete attribute) and every candidate input (the empty n-gram,
/// then each n-gram of order 1..=`order` at each position), cell estimates of the output given
/// the n-gram's value; the code of an output is the Bayesian mixture over the candidates (so
/// learning which position drives which output costs about log2(#candidates) bits per output).
///
/// - Continuous: a cell's mean has the prior N(mean, var) of all sent values of the output;
///   the noise variance is the pooled within-cell variance of the candidate (plus one prior
///   pseudo-row of one grid cell squared); predictive N(posterior mean, noise + posterior var).
/// - Discrete: Dirichlet(1/V) cell counts (a sparse prior: deterministic maps are cheap).
///
/// The lookup-table generator and the language systems belong to this class: on them it is a
/// near-ideal learner, not a general one.
pub struct NgramTable {
    vocab: usize,
    /// (position, n) per candidate; n = 0 is the single constant cell.
    cands: Vec<(usize, usize)>,
    /// First cell of each candidate.
    cell_off: Vec<usize>,
    n_cells: usize,
    n_out: usize,
    /// Continuous: (dim, lam); discrete: values per attribute in `n_vals`.
    lam: Option<f64>,
    n_vals: usize,
    /// Continuous: per (output, cell) count and sum; discrete: per (output, cell, value) count.
    count: Vec<f64>,
    sum: Vec<f64>,
    /// Continuous: per (output, candidate) within-cell sum of squares and non-empty cells.
    ss: Vec<f64>,
    used: Vec<f64>,
    /// Per output: count, sum and sum of squares of all sent values.
    glob: Vec<(f64, f64, f64)>,
    /// log2 mixture weights per (output, candidate).
    log_w: Vec<f64>,
    /// Per-candidate bits of the last coded row, reused by `learn`.
    last: Option<(usize, Vec<f64>)>,
}

impl NgramTable {
    pub fn new(w: &TokenData, z: &Targets, order: usize) -> Option<Self> {
        let mut cands = vec![(0, 0)];
        let mut cell_off = vec![0];
        let mut n_cells = 1;
        for n in 1..=order.min(w.n_words) {
            let per = w.vocab.checked_pow(n as u32)?;
            if per > MAX_NGRAM_CELLS {
                break;
            }
            for p in 0..=w.n_words - n {
                if n_cells + per > MAX_NGRAM_CELLS {
                    break;
                }
                cands.push((p, n));
                cell_off.push(n_cells);
                n_cells += per;
            }
        }
        let (n_out, lam, n_vals) = match z {
            Targets::Continuous { dim, lam, .. } => (*dim, Some(*lam), 0),
            Targets::Discrete { n_attr, n_vals, .. } => (*n_attr, None, *n_vals),
        };
        let c = cands.len();
        let per_cell = if lam.is_some() { 1 } else { n_vals };
        Some(NgramTable {
            vocab: w.vocab,
            cell_off,
            n_cells,
            n_out,
            lam,
            n_vals,
            count: vec![0.0; n_out * n_cells * per_cell],
            sum: if lam.is_some() {
                vec![0.0; n_out * n_cells]
            } else {
                Vec::new()
            },
            ss: vec![0.0; n_out * c],
            used: vec![0.0; n_out * c],
            glob: vec![(0.0, 0.0, 0.0); n_out],
            log_w: vec![-(c as f64).log2(); n_out * c],
            cands,
            last: None,
        })
    }

    /// The cell of each candidate for row `row`.
    fn cells(&self, w: &TokenData, row: usize) -> Vec<usize> {
        let toks = w.row(row);
        self.cands
            .iter()
            .zip(&self.cell_off)
            .map(|(&(p, n), &off)| {
                off + toks[p..p + n]
                    .iter()
                    .rev()
                    .fold(0usize, |a, &t| a * self.vocab + t as usize)
            })
            .collect()
    }

    /// Predictive (mean, std) of output `d` under each candidate, value units, for the
    /// candidates' `cells` of a row.
    fn cell_gaussians(&self, d: usize, lam: f64, cells: &[usize]) -> Vec<(f64, f64)> {
        let c = self.cands.len();
        let (gn, gs, gq) = self.glob[d];
        let (mu0, v0) = if gn >= 2.0 {
            let m = gs / gn;
            (m, ((gq / gn - m * m).max(0.0)).max(lam * lam))
        } else {
            (0.0, 1e6 * lam * lam)
        };
        cells
            .iter()
            .enumerate()
            .map(|(ci, &cell)| {
                let k = d * self.n_cells + cell;
                let (m, s) = (self.count[k], self.sum[k]);
                let dof = gn - self.used[d * c + ci];
                // One prior pseudo-row of one grid cell squared; inflated while few
                // rows back the estimate (a plug-in stand-in for the Student-t).
                // A vanishing pull towards the output's variance guards against
                // cells that agreed by chance while few rows back the estimate.
                let s2 = (self.ss[d * c + ci] + lam * lam) / (dof + 1.0)
                    * (1.0 + 2.0 / (dof + 1.0))
                    + v0 / ((dof + 1.0) * (dof + 1.0));
                let prec = 1.0 / v0 + m / s2;
                let mean = (mu0 / v0 + s / s2) / prec;
                (mean, (s2 + 1.0 / prec).sqrt())
            })
            .collect()
    }

    /// Bits of every (output, candidate) for `row`, output-major.
    fn candidate_bits(&self, w: &TokenData, z: &Targets, row: usize) -> Vec<f64> {
        let cells = self.cells(w, row);
        let c = self.cands.len();
        let mut out = Vec::with_capacity(self.n_out * c);
        match z {
            Targets::Continuous { dim, lam, grid } => {
                for d in 0..*dim {
                    for (mean, sd) in self.cell_gaussians(d, *lam, &cells) {
                        out.push(
                            grid_gaussian_nll_nats(grid[row * dim + d], *lam, mean, sd)
                                / std::f64::consts::LN_2,
                        );
                    }
                }
            }
            Targets::Discrete {
                n_attr,
                n_vals,
                values,
            } => {
                let alpha = 1.0 / *n_vals as f64;
                for a in 0..*n_attr {
                    let v = values[row * n_attr + a] as usize;
                    for &cell in &cells {
                        let base = (a * self.n_cells + cell) * n_vals;
                        let cnt = &self.count[base..base + n_vals];
                        let tot: f64 = cnt.iter().sum();
                        out.push(((tot + 1.0) / (cnt[v] + alpha)).log2());
                    }
                }
            }
        }
        out
    }
}

impl OnlineLearner for NgramTable {
    fn name(&self) -> String {
        let order = self.cands.last().map_or(0, |c| c.1);
        format!("ngram{order}")
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let c = self.cands.len();
        let mut res = Vec::with_capacity(rows.len());
        for &row in rows {
            let cb = self.candidate_bits(w, z, row);
            let bits: f64 = (0..self.n_out)
                .map(|o| {
                    let lw = &self.log_w[o * c..(o + 1) * c];
                    -log2_sum_exp2(lw.iter().zip(&cb[o * c..(o + 1) * c]).map(|(w, b)| w - b))
                })
                .sum();
            res.push(bits);
            self.last = Some((row, cb));
        }
        res
    }

    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        let c = self.cands.len();
        for &row in &sent[sent.len() - n_new..] {
            // Only rows this learner coded move the weights (the first block was sent naively).
            let coded = match self.last.take() {
                Some((r, cb)) if r == row => Some(cb),
                _ => None,
            };
            for o in (0..self.n_out).filter(|_| coded.is_some()) {
                let cb = coded.as_deref().unwrap_or_default();
                let lw = &mut self.log_w[o * c..(o + 1) * c];
                lw.iter_mut()
                    .zip(&cb[o * c..(o + 1) * c])
                    .for_each(|(w, b)| *w -= b);
                let tot = log2_sum_exp2(lw.iter().copied());
                if tot.is_finite() {
                    lw.iter_mut().for_each(|w| *w -= tot);
                }
            }
            let cells = self.cells(w, row);
            match z {
                Targets::Continuous { dim, grid, .. } => {
                    let lam = self.lam.unwrap_or(1.0);
                    for d in 0..*dim {
                        let y = grid[row * dim + d] as f64 * lam;
                        let g = &mut self.glob[d];
                        *g = (g.0 + 1.0, g.1 + y, g.2 + y * y);
                        for (ci, &cell) in cells.iter().enumerate() {
                            let k = d * self.n_cells + cell;
                            let m = self.count[k];
                            if m > 0.0 {
                                let mean = self.sum[k] / m;
                                self.ss[d * c + ci] += (y - mean).powi(2) * m / (m + 1.0);
                            } else {
                                self.used[d * c + ci] += 1.0;
                            }
                            self.count[k] += 1.0;
                            self.sum[k] += y;
                        }
                    }
                }
                Targets::Discrete { n_attr, values, .. } => {
                    let nv = self.n_vals;
                    for a in 0..*n_attr {
                        let v = values[row * n_attr + a] as usize;
                        self.glob[a].0 += 1.0;
                        for &cell in &cells {
                            self.count[(a * self.n_cells + cell) * nv + v] += 1.0;
                        }
                    }
                }
            }
        }
    }

    /// Continuous: per output the mixture over candidates (the code's own distribution);
    /// discrete: the mixture of the candidates' Dirichlet predictives, itself a categorical.
    fn predictive(
        &mut self,
        w: &TokenData,
        _z: &Targets,
        rows: &[usize],
    ) -> Option<Vec<Vec<OutputDist>>> {
        let c = self.cands.len();
        let mut res = Vec::with_capacity(rows.len());
        for &row in rows {
            let cells = self.cells(w, row);
            let mut outs = Vec::with_capacity(self.n_out);
            for o in 0..self.n_out {
                let lw = &self.log_w[o * c..(o + 1) * c];
                match self.lam {
                    Some(lam) => {
                        let comps = self
                            .cell_gaussians(o, lam, &cells)
                            .into_iter()
                            .zip(lw)
                            .filter(|(_, w)| w.is_finite())
                            .map(|((m, s), &w)| (w, m / lam, s / lam))
                            .collect();
                        outs.push(OutputDist::GaussianMixture(comps));
                    }
                    None => {
                        let nv = self.n_vals;
                        let alpha = 1.0 / nv as f64;
                        let mut p = vec![0.0; nv];
                        for (&cell, &wt) in cells.iter().zip(lw) {
                            let weight = wt.exp2();
                            if weight == 0.0 {
                                continue;
                            }
                            let base = (o * self.n_cells + cell) * nv;
                            let cnt = &self.count[base..base + nv];
                            let tot: f64 = cnt.iter().sum();
                            for (pv, &k) in p.iter_mut().zip(cnt) {
                                *pv += weight * (k + alpha) / (tot + 1.0);
                            }
                        }
                        let s: f64 = p.iter().sum();
                        p.iter_mut().for_each(|x| *x /= s);
                        outs.push(OutputDist::Categorical(p));
                    }
                }
            }
            res.push(outs);
        }
        Some(res)
    }
}
