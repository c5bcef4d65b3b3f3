//! Conflict count (Kuciński, Korbak, Kołodziej & Miłoś 2021, "Catalytic role of noise and
//! necessity of inductive biases in the emergence of compositional communication"), as in
//! `metrics/conflict_count.py` of tomekkorbak/measuring-non-trivial-compositionality.
//!
//! Each message position is read as one attribute; for a given assignment, a symbol at a
//! position "means" the attribute value it most often co-occurs with there, and every other
//! co-occurrence is a conflict. The score is the smallest total number of conflicts over the
//! assignments (0 for a positional, trivially compositional language; lower is more
//! compositional; it grows with N).
//!
//! The reference takes the permutations of `max_length` positions and needs as many
//! attributes as positions. We generalise to the injective maps between the smaller and the
//! larger of the two sets: with fewer positions than attributes each position takes a distinct
//! attribute; with more positions, each attribute is read at one distinct position and the
//! other positions are not counted. Equal sizes are the reference's metric.

use std::collections::{BTreeMap, HashMap};

use crate::dataset::Dataset;
use crate::error::{KcompError, Result};
use crate::estimators::information::{discrete_only, message_rows, object_rows};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// Most injective maps tried (8! = 40320).
const MAX_ASSIGNMENTS: usize = 40_320;

/// Conflicts of reading position `pos` as attribute `attr`: co-occurrences beyond each
/// symbol's most common value.
fn conflicts_at(objects: &[Vec<u32>], messages: &[Vec<u32>], pos: usize, attr: usize) -> usize {
    let mut meanings: HashMap<u32, BTreeMap<u32, usize>> = HashMap::new();
    for (o, m) in objects.iter().zip(messages) {
        *meanings
            .entry(m[pos])
            .or_default()
            .entry(o[attr])
            .or_default() += 1;
    }
    meanings
        .values()
        .map(|counts| counts.values().sum::<usize>() - counts.values().max().copied().unwrap_or(0))
        .sum()
}

/// Every injective map of `0..k` into `0..n` (k <= n), calling `f` on each.
fn injections(k: usize, n: usize, f: &mut impl FnMut(&[usize])) {
    fn rec(
        k: usize,
        n: usize,
        cur: &mut Vec<usize>,
        used: &mut [bool],
        f: &mut impl FnMut(&[usize]),
    ) {
        if cur.len() == k {
            f(cur);
            return;
        }
        for x in 0..n {
            if !used[x] {
                used[x] = true;
                cur.push(x);
                rec(k, n, cur, used, f);
                cur.pop();
                used[x] = false;
            }
        }
    }
    rec(k, n, &mut Vec::with_capacity(k), &mut vec![false; n], f);
}

/// Number of injective maps between `len` positions and `n_attr` attributes; `None` above
/// 40320.
fn assignments(len: usize, n_attr: usize) -> Option<usize> {
    let (k, n) = (len.min(n_attr), len.max(n_attr));
    (n - k + 1..=n)
        .try_fold(1usize, |acc, f| acc.checked_mul(f))
        .filter(|&c| c <= MAX_ASSIGNMENTS)
}

/// Minimum conflict count of `messages` for `objects`; `None` when the number of assignments
/// exceeds 40320.
pub fn conflict_count(objects: &[Vec<u32>], messages: &[Vec<u32>]) -> Option<usize> {
    let n_attr = objects.first()?.len();
    let len = messages.first()?.len();
    assignments(len, n_attr)?;
    let (k, n) = (len.min(n_attr), len.max(n_attr));
    // Conflicts of every (position, attribute) pair, computed once.
    let table: Vec<Vec<usize>> = (0..len)
        .map(|p| {
            (0..n_attr)
                .map(|a| conflicts_at(objects, messages, p, a))
                .collect()
        })
        .collect();
    let mut best = usize::MAX;
    injections(k, n, &mut |map| {
        let total: usize = map
            .iter()
            .enumerate()
            .map(|(i, &j)| {
                if len <= n_attr {
                    table[i][j]
                } else {
                    table[j][i]
                }
            })
            .sum();
        best = best.min(total);
    });
    Some(best)
}

/// Conflict count as a panel score (lower is more compositional).
#[derive(Debug, Clone, Default)]
pub struct ConflictCountEstimator;

impl Estimator for ConflictCountEstimator {
    fn name(&self) -> &str {
        "conflict_count"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        discrete_only(data)?;
        assignments(data.w.n_words, data.z.width())
            .map(|_| ())
            .ok_or_else(|| {
                format!(
                    "{} positions x {} attributes give more than 40320 position-attribute maps",
                    data.w.n_words,
                    data.z.width()
                )
            })
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let objects = object_rows(data)?;
        let c = conflict_count(&objects, &message_rows(data)).ok_or_else(|| {
            KcompError::param(
                "w",
                "conflict count: more than 40320 position-attribute maps",
            )
        })?;
        Ok(Estimate::score(c as f64).with("per_row", c as f64 / data.n() as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::estimators::information::object_grid as grid;

    #[test]
    fn closed_forms() {
        let objs = grid(3, 4);
        // Positional bijections, in either order: no conflict.
        let msgs: Vec<Vec<u32>> = objs.iter().map(|o| vec![o[0] + 4, o[1]]).collect();
        assert_eq!(conflict_count(&objs, &msgs), Some(0));
        let swapped: Vec<Vec<u32>> = objs.iter().map(|o| vec![o[1], o[0] + 4]).collect();
        assert_eq!(conflict_count(&objs, &swapped), Some(0));
        // Constant language: each position keeps one value of its attribute; reading the
        // 3-valued colour (4 objects each) and 4-valued shape (3 each): 12 - 4 + 12 - 3 = 17.
        let constant = vec![vec![0u32, 0]; 12];
        assert_eq!(conflict_count(&objs, &constant), Some(17));
        // A holistic bijection (object index in both slots): position 0 = object id, the
        // symbol has one object, no conflict at either position.
        let hol: Vec<Vec<u32>> = (0..12).map(|k| vec![k, (k * 5) % 12]).collect();
        assert_eq!(conflict_count(&objs, &hol), Some(0));
    }

    #[test]
    fn more_positions_than_attributes() {
        let objs = grid(2, 2);
        // Negation-like: colour at 0, shape spread over positions 1 and 2.
        let msgs: Vec<Vec<u32>> = objs
            .iter()
            .map(|o| {
                if o[1] == 0 {
                    vec![o[0], 5, 6]
                } else {
                    vec![o[0], 7, 5]
                }
            })
            .collect();
        assert_eq!(conflict_count(&objs, &msgs), Some(0));
    }
}
