//! Each output a table over one n-gram of W at an unknown position.

use super::super::switching::log2_sum_exp2;
use super::OnlineLearner;
use crate::coding::predictive::OutputDist;
use crate::dataset::{Targets, TokenData};
use crate::neural::likelihood::grid_gaussian_nll_nats;

/// Largest number of table cells per output of [`NgramTable`].
pub const MAX_NGRAM_CELLS: usize = 1 << 18;

/// Prior mass of the trigram candidates of each output (see [`NgramTable::new`]).
pub const TRIGRAM_PRIOR: f64 = 1.0 / 32.0;

/// Lowest order of the candidates that sleep on an empty cell (see [`NgramTable::awake`]),
/// continuous outputs: every order but the constant cell. Online mixture on lookup tables,
/// N = 500 and 1,000, seeds 0-2, against none sleeping: q = 2 190-4,570 bits shorter, q = 3
/// at N = 1,000 740-31,800 bits shorter (at N = 500 -630 to +380); sleeping orders 1-2 as
/// well as 3 saves up to 1,350 more bits on q = 1. Discrete outputs' orders 1-2 do not sleep:
/// an empty Dirichlet cell predicts uniformly, not overconfidently, and sleeping there made
/// string-to-grid and context-sensitive protocols up to 6 bits longer (trigrams do, see
/// [`DISCRETE_TRIGRAM_PRIOR`]).
pub const SLEEP_MIN_ORDER: usize = 1;

/// Prior mass of the trigram candidates of each discrete output, and the lowest order that
/// sleeps on an empty cell there. On string-to-grid maps (25 discrete outputs) trigrams at
/// 1/32 awake on empty cells cost the n-gram learner's code up to 1.1 bits while it leads
/// K(Z|W)'s mixture on the first rows (h = 0.25, N = 500, seed 0: 1.2 bits longer than orders
/// 0-2); sleeping trigrams with 1/1,024 of the prior: string-to-grid 5 x 5 and protocols
/// 5 x 5 (N = 500, 1,000, seeds 0-2) within 0.05 bit of orders 0-2 or shorter. Orders 1-2 do
/// not sleep on discrete outputs (see [`SLEEP_MIN_ORDER`]).
pub const DISCRETE_TRIGRAM_PRIOR: f64 = 1.0 / 1024.0;

/// See [`DISCRETE_TRIGRAM_PRIOR`].
pub const DISCRETE_SLEEP_MIN_ORDER: usize = 3;

/// Largest memory of an [`NgramTable`]'s cells, bytes: candidates of the highest orders are
/// left out until the tables fit, and a learner whose unigram tables alone do not fit does
/// not run (e.g. 384-dimensional sentence embeddings over a vocabulary of 5,000 words at 38
/// positions would need 1 GB).
pub const MAX_NGRAM_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

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
    /// The order asked for (candidates of orders 0..=order, as many as fit).
    order: usize,
    /// What was left out, for the report.
    note: Option<String>,
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
    /// Candidates of this order and above sleep on empty cells ([`SLEEP_MIN_ORDER`]).
    sleep_min_order: usize,
    /// Per-candidate bits of the last coded row, reused by `learn`.
    last: Option<(usize, Vec<f64>)>,
}

impl NgramTable {
    /// The tables for data `w`, `z`, or why they do not fit ([`MAX_NGRAM_BYTES`]).
    pub fn new(w: &TokenData, z: &Targets, order: usize) -> std::result::Result<Self, String> {
        // Bytes per table cell: a count and a sum per output (continuous), or a count per
        // value and output (discrete).
        let per_cell_bytes = match z {
            Targets::Continuous { dim, .. } => 16.0 * *dim as f64,
            Targets::Discrete { n_attr, n_vals, .. } => 8.0 * (*n_attr * *n_vals) as f64,
        };
        let max_cells = MAX_NGRAM_CELLS.min((MAX_NGRAM_BYTES / per_cell_bytes) as usize);
        let mut cands = vec![(0, 0)];
        let mut cell_off = vec![0];
        let mut n_cells = 1;
        let mut left_out: Vec<String> = Vec::new();
        for n in 1..=order.min(w.n_words) {
            let positions = w.n_words - n + 1;
            let per = match w.vocab.checked_pow(n as u32) {
                Some(p) if p <= max_cells => p,
                _ => {
                    left_out.push(format!("order {n} ({}^{n} cells per position)", w.vocab));
                    continue;
                }
            };
            let fit = ((max_cells - n_cells) / per).min(positions);
            if fit < positions {
                if n == 1 {
                    return Err(format!(
                        "one table per position over {} tokens needs {:.0} MB for {} \
                         positions, more than {:.0} MB",
                        w.vocab,
                        (positions * per) as f64 * per_cell_bytes / 1048576.0,
                        positions,
                        MAX_NGRAM_BYTES / 1048576.0
                    ));
                }
                left_out.push(format!(
                    "order {n} at {} of {positions} positions",
                    positions - fit
                ));
            }
            for p in 0..fit {
                cands.push((p, n));
                cell_off.push(n_cells);
                n_cells += per;
            }
        }
        let note = (!left_out.is_empty()).then(|| {
            format!(
                "left out (tables over 2^18 cells per output or {:.0} MB): {}",
                MAX_NGRAM_BYTES / 1048576.0,
                left_out.join(", ")
            )
        });
        let (n_out, lam, n_vals) = match z {
            Targets::Continuous { dim, lam, .. } => (*dim, Some(*lam), 0),
            Targets::Discrete { n_attr, n_vals, .. } => (*n_attr, None, *n_vals),
        };
        let c = cands.len();
        let per_cell = if lam.is_some() { 1 } else { n_vals };
        // Prior over one output's candidates: 31/32 uniform over those of orders 0-2, 1/32
        // over the trigrams (when any; 1/1,024 on discrete outputs), so that trigrams cost
        // 0.05 bit per output where they do not help (uniform over all, 0.4-0.5 bit per
        // output on lookup tables and string-to-grid maps, 4-10 bits per code) and
        // log2(32 x their count) where they do (3-gram lookup tables, whose code is thousands
        // of bits).
        let high = cands.iter().filter(|&&(_, n)| n >= 3).count();
        let low = c - high;
        let tri = if lam.is_some() {
            TRIGRAM_PRIOR
        } else {
            DISCRETE_TRIGRAM_PRIOR
        };
        let prior: Vec<f64> = cands
            .iter()
            .map(|&(_, n)| {
                if high == 0 {
                    -(c as f64).log2()
                } else if n >= 3 {
                    (tri / high as f64).log2()
                } else {
                    ((1.0 - tri) / low as f64).log2()
                }
            })
            .collect();
        Ok(NgramTable {
            order,
            note,
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
            log_w: (0..n_out).flat_map(|_| prior.iter().copied()).collect(),
            cands,
            sleep_min_order: if lam.is_some() {
                SLEEP_MIN_ORDER
            } else {
                DISCRETE_SLEEP_MIN_ORDER
            },
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

    /// Per (output, candidate), output-major: whether the candidate predicts `cells` of a row
    /// from data. A candidate of order >= `sleep_min_order` whose cell is empty sleeps: it
    /// predicts as the mixture of the awake candidates of its output (a "specialist" in the
    /// sense of Freund, Schapire, Singer and Warmuth, STOC 1997), so that it neither gains
    /// nor loses weight until its cell holds data; otherwise a trigram candidate predicting
    /// every output's mean from empty cells outweighs the overconfident low orders on the
    /// first rows and gives the weight back later.
    fn awake(&self, cells: &[usize]) -> Vec<bool> {
        let per_cell = if self.lam.is_some() { 1 } else { self.n_vals };
        (0..self.n_out)
            .flat_map(|o| {
                self.cands.iter().zip(cells).map(move |(&(_, n), &cell)| {
                    let base = (o * self.n_cells + cell) * per_cell;
                    n < self.sleep_min_order
                        || self.count[base..base + per_cell].iter().any(|&k| k > 0.0)
                })
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
        format!("ngram{}", self.order)
    }

    fn note(&self) -> Option<String> {
        self.note.clone()
    }

    fn block_rows(&self) -> Option<usize> {
        Some(1)
    }

    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        let c = self.cands.len();
        let mut res = Vec::with_capacity(rows.len());
        for &row in rows {
            let mut cb = self.candidate_bits(w, z, row);
            let awake = self.awake(&self.cells(w, row));
            let bits: f64 = (0..self.n_out)
                .map(|o| {
                    let lw = &self.log_w[o * c..(o + 1) * c];
                    let cbo = &mut cb[o * c..(o + 1) * c];
                    let on = &awake[o * c..(o + 1) * c];
                    if on.iter().any(|&a| a) && on.iter().any(|&a| !a) {
                        // Sleeping candidates are charged the awake candidates' mixture, so
                        // that the Bayes update leaves their weight where it was.
                        let idx = || (0..c).filter(|&i| on[i]);
                        let mix = log2_sum_exp2(idx().map(|i| lw[i]))
                            - log2_sum_exp2(idx().map(|i| lw[i] - cbo[i]));
                        for i in (0..c).filter(|&i| !on[i]) {
                            cbo[i] = mix;
                        }
                    }
                    -log2_sum_exp2(lw.iter().zip(cbo.iter()).map(|(w, b)| w - b))
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
            let awake = self.awake(&cells);
            let mut outs = Vec::with_capacity(self.n_out);
            for o in 0..self.n_out {
                // Sleeping candidates predict as the awake ones' mixture: leaving them out and
                // renormalising is the same distribution (when none is awake, all count).
                let on = &awake[o * c..(o + 1) * c];
                let any = on.iter().any(|&a| a);
                let lw: Vec<f64> = self.log_w[o * c..(o + 1) * c]
                    .iter()
                    .zip(on)
                    .map(|(&w, &a)| if a || !any { w } else { f64::NEG_INFINITY })
                    .collect();
                let norm = log2_sum_exp2(lw.iter().copied());
                let lw: Vec<f64> = lw.iter().map(|w| w - norm).collect();
                let lw = &lw[..];
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Sleeping candidates keep a valid code: each row's bits are -log2 of the predictive's
    /// probability of the coded value, and a candidate whose cell was empty keeps its weight.
    #[test]
    fn sleeping_candidates_code_as_the_awake_mixture() {
        let toks = vec![
            0, 1, 2, 1, 1, 0, 2, 0, 1, 0, 1, 2, 1, 2, 0, 0, 1, 2, 2, 2, 2,
        ];
        let w = TokenData::new(7, 3, 3, toks).unwrap();
        let z = Targets::discrete(2, 3, vec![0, 1, 2, 1, 0, 0, 1, 2, 0, 1, 2, 2, 0, 1]).unwrap();
        let mut t = NgramTable::new(&w, &z, 3).unwrap();
        // Discrete tables sleep from order 3 by default; the mechanism is the same for both kinds,
        // and only discrete predictives give exact probabilities to check against.
        assert_eq!(t.sleep_min_order, DISCRETE_SLEEP_MIN_ORDER);
        t.sleep_min_order = 1;
        let c = t.cands.len();
        assert_eq!(c, 1 + 3 + 2 + 1);
        let mut sent = vec![0];
        t.learn(&w, &z, &sent, 1);
        let mut slept = 0;
        for row in 1..7 {
            let before = t.log_w.clone();
            let pred = t.predictive(&w, &z, &[row]).unwrap().remove(0);
            let want: f64 = (0..2)
                .map(|a| match &pred[a] {
                    OutputDist::Categorical(p) => -p[z_value(&z, row, a)].log2(),
                    _ => unreachable!(),
                })
                .sum();
            let bits = t.code(&w, &z, &[row])[0];
            assert!((bits - want).abs() < 1e-9, "row {row}: {bits} vs {want}");
            let awake = t.awake(&t.cells(&w, row));
            sent.push(row);
            t.learn(&w, &z, &sent, 1);
            for o in 0..2 {
                let on = &awake[o * c..(o + 1) * c];
                for i in (0..c).filter(|&i| !on[i]) {
                    slept += 1;
                    assert!((t.log_w[o * c + i] - before[o * c + i]).abs() < 1e-9);
                }
            }
        }
        assert!(slept > 0);
    }

    fn z_value(z: &Targets, row: usize, a: usize) -> usize {
        match z {
            Targets::Discrete { n_attr, values, .. } => values[row * n_attr + a] as usize,
            _ => unreachable!(),
        }
    }
}
