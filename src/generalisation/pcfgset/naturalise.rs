//! Naturalisation of generated PCFG SET data to a target (depth, length) distribution (Hupkes
//! et al. 2020, section 4.3 and Appendix A).
//!
//! The authors drew a large sample with random rule probabilities per instance, partitioned it
//! by the features (depth and length, each cut into increments) and picked from each partition
//! as many members as the target distribution asks, so that the selection has the target's
//! histogram; their target was English WMT 2017 parsed by the Stanford parser, which kcomp
//! does not have. kcomp does the same sampling and selection (steps 2 and 3 of their Appendix
//! A, one increment setting) with the histogram of the published data as the target: the
//! published test and dev sets (14,581 sequences), or any source file (`--target-from`).
//! The selection is exact: each cell gets its quota (the target's share of `--samples`,
//! rounded by largest remainder), so the histogram matches the target up to that rounding.
//! Their step 4 (refitting the grammar's parameters by maximum likelihood on the selection and
//! sampling again) is not needed when the selection itself is the data.
//!
//! Draws are independent, so keeping the first draws that fall into a cell still needing
//! members is a uniform choice among that cell's draws; the kept samples are then shuffled
//! (seeded) so that the splits cut a random order.

use std::path::Path;

use super::generator::{Gen, Sample, interpret};
use super::interpreter::{Semantics, parse};
use crate::error::{KcompError, Result};

/// Depth cells: 1, 2, ..., 9, and 10 or more function applications.
pub const DEPTH_CELLS: usize = 10;
/// Length cells of [`LENGTH_STEP`] tokens: 1-5, 6-10, ..., 46-50, and 51 or more.
pub const LENGTH_CELLS: usize = 11;
/// Tokens per length cell.
pub const LENGTH_STEP: usize = 5;

/// (depth, length) counts of the published test and dev sources (`data/pcfgset/pcfgset/
/// {test,dev}.src` of i-machine-think/am-i-compositional, 14,581 sequences): rows are depth
/// cells, columns length cells. Measured by parsing every line with kcomp's interpreter.
pub const PUBLISHED_HISTOGRAM: [[u64; LENGTH_CELLS]; DEPTH_CELLS] = [
    [166, 59, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [332, 1210, 359, 29, 0, 0, 0, 0, 0, 0, 0],
    [22, 858, 1677, 623, 99, 29, 0, 0, 0, 0, 0],
    [0, 446, 1011, 1010, 590, 235, 68, 17, 12, 3, 0],
    [0, 40, 486, 570, 491, 452, 168, 91, 20, 1, 0],
    [0, 6, 151, 297, 287, 279, 212, 72, 28, 13, 0],
    [0, 1, 44, 135, 189, 181, 127, 64, 58, 17, 6],
    [0, 0, 1, 25, 130, 132, 129, 90, 57, 20, 0],
    [0, 0, 1, 3, 51, 70, 80, 65, 31, 30, 10],
    [0, 0, 0, 0, 15, 56, 69, 82, 37, 15, 41],
];

/// The cell of a sequence of `depth` >= 1 function applications and `length` tokens.
pub fn cell(depth: usize, length: usize) -> usize {
    let d = depth.clamp(1, DEPTH_CELLS) - 1;
    let l = (length.max(1) - 1) / LENGTH_STEP;
    d * LENGTH_CELLS + l.min(LENGTH_CELLS - 1)
}

/// The cell of one input sequence (an error if it does not parse or holds no function).
pub fn cell_of(tokens: &[&str]) -> Result<usize> {
    let expr = parse(tokens)?;
    let depth = expr.depth();
    if depth == 0 {
        return Err(KcompError::Other(
            "a sequence without a function has no depth cell".into(),
        ));
    }
    Ok(cell(depth, tokens.len()))
}

/// The flat histogram (`DEPTH_CELLS x LENGTH_CELLS`, row-major) of the sequences.
pub fn histogram<'a>(sources: impl IntoIterator<Item = &'a str>) -> Result<Vec<u64>> {
    let mut h = vec![0u64; DEPTH_CELLS * LENGTH_CELLS];
    for s in sources {
        let tokens: Vec<&str> = s.split_whitespace().collect();
        h[cell_of(&tokens)?] += 1;
    }
    Ok(h)
}

/// [`PUBLISHED_HISTOGRAM`] flattened.
pub fn published_histogram() -> Vec<u64> {
    PUBLISHED_HISTOGRAM.iter().flatten().copied().collect()
}

/// Total variation distance between two histograms (each normalised; 0 = same shape).
pub fn total_variation(a: &[u64], b: &[u64]) -> f64 {
    let (sa, sb) = (a.iter().sum::<u64>() as f64, b.iter().sum::<u64>() as f64);
    0.5 * a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (x as f64 / sa - y as f64 / sb).abs())
        .sum::<f64>()
}

/// Per-cell quotas summing to `n`: the target's shares of `n`, rounded by largest remainder
/// (each quota within 1 of its share; ties go to the lower cell).
pub fn quotas(target: &[u64], n: usize) -> Vec<usize> {
    let total = target.iter().sum::<u64>() as f64;
    let shares: Vec<f64> = target
        .iter()
        .map(|&c| c as f64 / total * n as f64)
        .collect();
    let mut q: Vec<usize> = shares.iter().map(|s| s.floor() as usize).collect();
    let mut order: Vec<usize> = (0..q.len()).collect();
    order.sort_by(|&i, &j| {
        let (ri, rj) = (shares[i] - q[i] as f64, shares[j] - q[j] as f64);
        rj.total_cmp(&ri).then(i.cmp(&j))
    });
    let missing = n - q.iter().sum::<usize>();
    for &i in order.iter().take(missing) {
        q[i] += 1;
    }
    q
}

fn target_of(path: Option<&Path>) -> Result<Vec<u64>> {
    let Some(path) = path else {
        return Ok(published_histogram());
    };
    let text = crate::io::limits::read_text(path)?;
    let h = histogram(text.lines().filter(|l| !l.trim().is_empty()))
        .map_err(|e| KcompError::file(path, e.to_string()))?;
    if h.iter().all(|&c| c == 0) {
        return Err(KcompError::file(path, "holds no sequence"));
    }
    Ok(h)
}

/// Draws with per-sample rule probabilities until every cell has its quota of `--samples`,
/// then shuffles the kept samples. Rule probabilities: P(unary) uniform in [0, 1], P(function
/// argument) uniform below 0.9 / (2 - P(unary)) (the expected number of nested functions per
/// function stays below 0.9, so every draw ends).
pub(super) fn naturalised(g: &mut Gen<'_>) -> Result<Vec<Sample>> {
    let p = g.params().clone();
    let target = target_of(p.target_from.as_deref())?;
    let mut quota = quotas(&target, p.samples);
    let mut missing = p.samples;
    let mut kept: Vec<Sample> = Vec::with_capacity(p.samples);
    let max_draws = p.samples.saturating_mul(p.max_draws);
    g.defer(p.max_chars);
    let mut draws = 0usize;
    while missing > 0 && draws < max_draws {
        draws += 1;
        let pu = g.rng().uniform();
        let pf = g.rng().uniform() * 0.9 / (2.0 - pu);
        let Some(source) = g.draw(pu, pf)? else {
            g.commit(false);
            continue;
        };
        let tokens: Vec<&str> = source.iter().map(String::as_str).collect();
        let c = cell_of(&tokens)?;
        if quota[c] == 0 {
            g.commit(false);
            continue;
        }
        g.commit(true);
        quota[c] -= 1;
        missing -= 1;
        let target = interpret(&source, Semantics::Standard)?;
        kept.push(Sample { source, target });
    }
    if missing > 0 {
        let unfilled: Vec<String> = quota
            .iter()
            .enumerate()
            .filter(|(_, q)| **q > 0)
            .map(|(c, q)| {
                let (d, l) = (c / LENGTH_CELLS + 1, c % LENGTH_CELLS);
                format!(
                    "depth {d}{}, {}-{} tokens: {q} missing",
                    if d == DEPTH_CELLS { "+" } else { "" },
                    l * LENGTH_STEP + 1,
                    if l + 1 == LENGTH_CELLS {
                        "".to_string()
                    } else {
                        ((l + 1) * LENGTH_STEP).to_string()
                    }
                )
            })
            .collect();
        return Err(KcompError::param(
            "max-draws",
            format!(
                "{draws} draws left cells of the target unfilled ({}); raise --max-draws or \
                 --max-chars, or lower --samples",
                unfilled.join("; ")
            ),
        ));
    }
    // Fisher-Yates with the generator's stream.
    for i in (1..kept.len()).rev() {
        let j = g.rng().below(i as u64 + 1) as usize;
        kept.swap(i, j);
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_sum_to_n_and_stay_within_one_of_the_shares() {
        let t = published_histogram();
        assert_eq!(t.iter().sum::<u64>(), 14_581);
        for n in [1, 7, 100, 2000, 14_581] {
            let q = quotas(&t, n);
            assert_eq!(q.iter().sum::<usize>(), n);
            for (&c, &k) in t.iter().zip(&q) {
                let share = c as f64 / 14_581.0 * n as f64;
                assert!((k as f64 - share).abs() < 1.0, "{k} vs {share}");
            }
        }
        assert_eq!(
            quotas(&t, 14_581),
            t.iter().map(|&c| c as usize).collect::<Vec<_>>()
        );
    }

    #[test]
    fn cells() {
        assert_eq!(cell(1, 3), 0);
        assert_eq!(cell(1, 6), 1);
        assert_eq!(cell(2, 51), LENGTH_CELLS + 10);
        assert_eq!(cell(40, 500), DEPTH_CELLS * LENGTH_CELLS - 1);
        assert_eq!(cell_of(&["copy", "A", "B"]).unwrap(), 0);
        assert!(cell_of(&["A", "B"]).is_err());
    }
}
