//! Positional and bag-of-symbols disentanglement (Chaabouni et al. 2020, "Compositionality and
//! Generalization in Emergent Languages"), with the definitions of EGG's
//! `egg/core/language_analysis.py`:
//!
//! - posdis: for each message position j whose symbol has non-zero entropy H(m_j),
//!   gap_j = (I(m_j; a_first) - I(m_j; a_second)) / H(m_j), where a_first and a_second are the
//!   attributes with the largest and second-largest mutual information with m_j; posdis is the
//!   mean of gap_j over those positions.
//! - bosdis: the same with the count of each symbol in the message in place of position j.
//!   EGG drops symbol 0, its end-of-sequence symbol; kcomp's own generators (`synth protocol`,
//!   languages, grids) use 0 as an ordinary letter, so kcomp counts every symbol unless an
//!   end-of-sequence symbol is named (`[bosdis] eos = 0` in a panel config, `--set bosdis.eos=0`
//!   beside `--w/--z`): EGG's convention is then `eos = 0`.
//!
//! Entropies are plug-in estimates in bits from the empirical frequencies (EGG uses float32;
//! we use f64, which agrees to the 6 decimals of EGG's doctests). Two choices EGG leaves open:
//! - when every position (or count) is constant, the mean is over no position: EGG returns NaN;
//!   we return `None` ("undefined"), and the estimators report it as an error, never NaN;
//! - with a single attribute EGG has no second MI; we take I(m_j; a_second) = 0.

use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, Targets};
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// Plug-in entropy in bits of the values `xs`.
pub fn entropy_bits<T: Hash + Eq>(xs: impl IntoIterator<Item = T>) -> f64 {
    let mut counts: HashMap<T, usize> = HashMap::new();
    let mut n = 0usize;
    for x in xs {
        *counts.entry(x).or_default() += 1;
        n += 1;
    }
    let n = n as f64;
    // Sum in sorted-count order so the result does not depend on hash order.
    let mut c: Vec<usize> = counts.into_values().collect();
    c.sort_unstable();
    -c.iter()
        .map(|&k| {
            let p = k as f64 / n;
            p * p.log2()
        })
        .sum::<f64>()
}

/// Plug-in mutual information I(x; y) = H(x) + H(y) - H(x, y), in bits.
pub fn mutual_info_bits(x: &[u64], y: &[u64]) -> f64 {
    entropy_bits(x.iter()) + entropy_bits(y.iter()) - entropy_bits(x.iter().zip(y))
}

/// Mean over non-constant columns of `reps` of the normalised gap between the two largest
/// mutual informations with the columns of `attrs` (EGG's `gap_mi_first_second`). Columns are
/// given as vectors of length N. `None` when every column of `reps` is constant or there are no
/// attributes.
pub fn gap_mi_first_second(attrs: &[Vec<u64>], reps: &[Vec<u64>]) -> Option<f64> {
    let gaps: Vec<Gap> = mi_gaps(attrs, reps)?.into_iter().flatten().collect();
    (!gaps.is_empty())
        .then(|| gaps.iter().map(|g| (g.first - g.second) / g.h).sum::<f64>() / gaps.len() as f64)
}

/// A column's two largest mutual informations with the attributes and its entropy (bits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    pub first: f64,
    pub second: f64,
    pub h: f64,
}

impl Gap {
    /// The column says as much about two attributes as about either (it stands for several
    /// attributes at once, as a letter of a grid layout fills several cells): its gap is 0
    /// whatever the language's structure.
    pub fn tied(&self) -> bool {
        self.first > 0.05 * self.h && self.first - self.second <= 1e-9 * self.h.max(1.0)
    }
}

/// [`Gap`] of every column of `reps` (`None` for a constant column); `None` without
/// attributes.
pub fn mi_gaps(attrs: &[Vec<u64>], reps: &[Vec<u64>]) -> Option<Vec<Option<Gap>>> {
    if attrs.is_empty() {
        return None;
    }
    Some(
        reps.iter()
            .map(|y| {
                let h = entropy_bits(y.iter());
                if h <= 0.0 {
                    return None;
                }
                let mut mi: Vec<f64> = attrs.iter().map(|x| mutual_info_bits(x, y)).collect();
                mi.sort_by(|a, b| b.total_cmp(a));
                Some(Gap {
                    first: mi[0],
                    second: mi.get(1).copied().unwrap_or(0.0),
                    h,
                })
            })
            .collect(),
    )
}

/// Message positions (columns) that are not constant, and those of them tied between two
/// attributes ([`Gap::tied`]).
pub fn tied_positions(attributes: &[Vec<u64>], messages: &[Vec<u64>]) -> (usize, usize) {
    let (Some(a0), Some(m0)) = (attributes.first(), messages.first()) else {
        return (0, 0);
    };
    let gaps =
        mi_gaps(&columns(attributes, a0.len()), &columns(messages, m0.len())).unwrap_or_default();
    let informative = gaps.iter().flatten().count();
    let tied = gaps.iter().flatten().filter(|g| g.tied()).count();
    (tied, informative)
}

/// Symbols (other than `eos`) that occur at more than one message position, and the symbols
/// that occur: a vocabulary shared across positions, which bosdis cannot tell apart.
pub fn shared_symbols(messages: &[Vec<u64>], eos: Option<u64>) -> (usize, usize) {
    let mut positions: std::collections::BTreeMap<u64, (usize, bool)> = Default::default();
    for m in messages {
        for (j, &x) in m.iter().enumerate() {
            if Some(x) == eos {
                continue;
            }
            let e = positions.entry(x).or_insert((j, false));
            if e.0 != j {
                e.1 = true;
            }
        }
    }
    let shared = positions.values().filter(|e| e.1).count();
    (shared, positions.len())
}

fn columns(rows: &[Vec<u64>], width: usize) -> Vec<Vec<u64>> {
    (0..width)
        .map(|j| rows.iter().map(|r| r[j]).collect())
        .collect()
}

/// posdis of `messages` (rows of symbols) for `attributes` (rows of attribute values).
pub fn posdis(attributes: &[Vec<u64>], messages: &[Vec<u64>]) -> Option<f64> {
    let a = columns(attributes, attributes.first()?.len());
    let m = columns(messages, messages.first()?.len());
    gap_mi_first_second(&a, &m)
}

/// bosdis: posdis over the counts of symbols `0..vocab` in each message (symbols `>= vocab`
/// are not counted, as in EGG's histogram of width `vocab_size`), leaving out the
/// end-of-sequence symbol `eos` when there is one (EGG: `Some(0)`).
pub fn bosdis(
    attributes: &[Vec<u64>],
    messages: &[Vec<u64>],
    vocab: usize,
    eos: Option<u64>,
) -> Option<f64> {
    bosdis_detail(attributes, messages, vocab, eos).map(|d| d.0)
}

/// [`bosdis`] with the symbols whose count is informative and those of them tied between two
/// attributes ([`Gap::tied`]): (score, tied, informative).
pub fn bosdis_detail(
    attributes: &[Vec<u64>],
    messages: &[Vec<u64>],
    vocab: usize,
    eos: Option<u64>,
) -> Option<(f64, usize, usize)> {
    let a = columns(attributes, attributes.first()?.len());
    if a.is_empty() {
        return None;
    }
    let n = messages.len();
    // Sparse counts: for each symbol that occurs, the messages holding it and how often. A
    // symbol absent from every message has a constant count (0), which the gap skips, and a
    // symbol's count is 0 in most messages: the work and memory follow the tokens (N x L),
    // never symbols x N (a 10^5 x 10^5 histogram took 22 GB before).
    let mut occurs: std::collections::BTreeMap<u64, Vec<(usize, u64)>> = Default::default();
    let mut sorted = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        sorted.clear();
        sorted.extend(
            m.iter()
                .copied()
                .filter(|&x| Some(x) != eos && x < vocab as u64),
        );
        sorted.sort_unstable();
        for run in sorted.chunk_by(|x, y| x == y) {
            occurs
                .entry(run[0])
                .or_default()
                .push((i, run.len() as u64));
        }
    }
    let attrs: Vec<Attribute> = a.iter().map(|x| Attribute::new(x)).collect();
    let term = |k: usize| match k {
        0 => 0.0,
        k => {
            let p = k as f64 / n as f64;
            -p * p.log2()
        }
    };
    let mut sum = 0.0;
    let mut positions = 0usize;
    let mut tied = 0usize;
    for entries in occurs.values() {
        // H(count): the messages without the symbol have count 0.
        let mut by_count: HashMap<u64, usize> = HashMap::new();
        for &(_, c) in entries {
            *by_count.entry(c).or_default() += 1;
        }
        let mut counts: Vec<usize> = by_count.into_values().collect();
        counts.push(n - entries.len());
        let h = entropy_of_counts(counts, n);
        if h <= 0.0 {
            continue;
        }
        let mut mi: Vec<f64> = attrs
            .iter()
            .map(|x| {
                // H(count, attribute): cells with a non-zero count from the entries; the
                // zero-count cells are each value's total less its non-zero cells.
                let mut joint: HashMap<(u64, u64), usize> = HashMap::new();
                let mut nonzero: HashMap<u64, usize> = HashMap::new();
                for &(i, c) in entries {
                    *joint.entry((c, x.column[i])).or_default() += 1;
                    *nonzero.entry(x.column[i]).or_default() += 1;
                }
                let mut cells: Vec<usize> = joint.into_values().collect();
                cells.sort_unstable();
                let mut h_joint = cells.iter().map(|&k| term(k)).sum::<f64>();
                // The zero-count cells of untouched values sum to the attribute's own terms,
                // less those of the touched values (kept in sorted order for determinism).
                let mut touched: Vec<(u64, usize)> = nonzero.into_iter().collect();
                touched.sort_unstable();
                let mut zero = x.entropy;
                for (v, k) in touched {
                    let total = x.counts[&v];
                    zero += term(total - k) - term(total);
                }
                h_joint += zero;
                x.entropy + h - h_joint
            })
            .collect();
        mi.sort_by(|a, b| b.total_cmp(a));
        let second = mi.get(1).copied().unwrap_or(0.0);
        sum += (mi[0] - second) / h;
        positions += 1;
        let gap = Gap {
            first: mi[0],
            second,
            h,
        };
        tied += usize::from(gap.tied());
    }
    (positions > 0).then(|| (sum / positions as f64, tied, positions))
}

/// One attribute column with its value counts and plug-in entropy (bits).
struct Attribute<'a> {
    column: &'a [u64],
    counts: HashMap<u64, usize>,
    entropy: f64,
}

impl<'a> Attribute<'a> {
    fn new(column: &'a [u64]) -> Self {
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for &v in column {
            *counts.entry(v).or_default() += 1;
        }
        let entropy = entropy_of_counts(counts.values().copied().collect(), column.len());
        Attribute {
            column,
            counts,
            entropy,
        }
    }
}

/// Plug-in entropy in bits of a distribution given by its counts over `n` items (zero counts
/// allowed), summed in sorted-count order like [`entropy_bits`].
fn entropy_of_counts(mut counts: Vec<usize>, n: usize) -> f64 {
    counts.retain(|&k| k > 0);
    counts.sort_unstable();
    let n = n as f64;
    -counts
        .iter()
        .map(|&k| {
            let p = k as f64 / n;
            p * p.log2()
        })
        .sum::<f64>()
}

/// Rows of symbols or attribute values.
type Rows = Vec<Vec<u64>>;

/// Z's attribute rows and W's message rows.
fn discrete_rows(data: &Dataset) -> Result<(Rows, Rows)> {
    let Targets::Discrete { n_attr, values, .. } = &data.z else {
        return Err(KcompError::param("z", "disentanglement needs discrete Z"));
    };
    let attrs = values
        .chunks(*n_attr)
        .map(|r| r.iter().map(|&v| u64::from(v)).collect())
        .collect();
    let msgs = (0..data.n())
        .map(|i| data.w.row(i).iter().map(|&t| u64::from(t)).collect())
        .collect();
    Ok((attrs, msgs))
}

fn discrete_only(data: &Dataset) -> std::result::Result<(), String> {
    if data.is_discrete() {
        Ok(())
    } else {
        Err("needs discrete Z (attributes)".into())
    }
}

/// Bytes bosdis takes at most on `data` (`f64`: absurd sizes cannot overflow): the attribute
/// and message rows (a vector each, with its header and allocator slack), the attribute
/// columns, the sparse (message, count) entries (twice: vector growth) and, per distinct
/// symbol (at most one per token), its map node and entry vector.
fn bosdis_bytes(data: &Dataset) -> f64 {
    let n = data.n() as f64;
    let l = data.w.n_words as f64;
    let a = data.z.width() as f64;
    n * (2.0 * 48.0 + 8.0 * (a + l) + 8.0 * a + 32.0 * l) + n * l * 96.0
}

/// Positional disentanglement as a panel score in [0, 1].
#[derive(Debug, Clone, Default)]
pub struct PosdisEstimator;

impl Estimator for PosdisEstimator {
    fn name(&self) -> &str {
        "posdis"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        discrete_only(data)
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let (a, m) = discrete_rows(data)?;
        let score = posdis(&a, &m).ok_or_else(|| {
            KcompError::param(
                "w",
                "posdis is undefined: every message position is constant",
            )
        })?;
        let (tied, informative) = tied_positions(&a, &m);
        let estimate = Estimate::score(score)
            .with("tied_positions", tied)
            .with("informative_positions", informative);
        Ok(if tied > 0 {
            estimate.note(format!(
                "{tied} of {informative} informative message positions say as much about two \
                 or more attributes as about one (a symbol stands for several attributes, as a \
                 letter of a grid layout fills several cells): posdis gives them 0 whatever \
                 the language's structure; it measures one attribute per position, so a low \
                 value here does not mean a holistic language"
            ))
        } else {
            estimate
        })
    }
}

/// Settings of bosdis (`[bosdis]` of a panel config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BosdisConfig {
    /// The end-of-sequence symbol, not counted (EGG: 0); `None`: every symbol counts.
    pub eos: Option<u64>,
}

/// Bag-of-symbols disentanglement as a panel score in [0, 1], over W's vocabulary, without the
/// end-of-sequence symbol when one is set.
#[derive(Debug, Clone, Default)]
pub struct BosdisEstimator {
    pub eos: Option<u64>,
}

impl Estimator for BosdisEstimator {
    fn name(&self) -> &str {
        "bosdis"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        discrete_only(data)
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        crate::io::limits::check_memory("bosdis", "bosdis", bosdis_bytes(data))?;
        let (a, mut m) = discrete_rows(data)?;
        // Padding is not a symbol: a bag of symbols counts the message's own.
        if let Some(p) = data.w.pad {
            for row in &mut m {
                row.retain(|&t| t != u64::from(p));
            }
        }
        let (score, tied, informative) =
            bosdis_detail(&a, &m, data.w.vocab, self.eos).ok_or_else(|| {
                KcompError::param(
                    "w",
                    "bosdis is undefined: every symbol count is constant across messages",
                )
            })?;
        let (shared, symbols) = shared_symbols(&m, self.eos);
        let mut estimate = Estimate::score(score)
            .with("eos", self.eos)
            .with("shared_symbols", shared)
            .with("tied_symbols", tied);
        if tied > 0 {
            estimate = estimate.note(format!(
                "{tied} of {informative} informative symbols say as much about two or more \
                 attributes as about one (a symbol stands for several attributes, as a letter \
                 of a grid layout fills several cells): bosdis gives them 0 whatever the \
                 language's structure"
            ));
        }
        if shared > 0 {
            estimate = estimate.note(format!(
                "{shared} of {symbols} symbols occur at several message positions (a vocabulary \
                 shared across positions): bosdis counts symbols wherever they stand, so it \
                 cannot tell which attribute a reused symbol stands for, and a perfectly \
                 positional code that reuses symbols scores near 0 (posdis reads positions)"
            ));
        }
        Ok(match self.eos {
            Some(eos) => estimate.note(format!(
                "symbol {eos} is treated as end-of-sequence and not counted (bosdis.eos)"
            )),
            None => estimate,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[[u64; 3]]) -> Vec<Vec<u64>> {
        v.iter().map(|r| r.to_vec()).collect()
    }

    /// The sparse bosdis equals EGG's definition computed on the dense histogram (every
    /// symbol 1..vocab counted in every message), on messages with repeats, rare symbols,
    /// symbols >= vocab and EOS.
    #[test]
    fn sparse_bosdis_equals_the_dense_histogram() {
        let mut x = 12345u64;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for (n, len, vocab, n_attr) in [(50, 3, 6, 2), (200, 5, 12, 3), (97, 4, 40, 1)] {
            let attrs: Vec<Vec<u64>> = (0..n)
                .map(|_| (0..n_attr).map(|_| next(4)).collect())
                .collect();
            let msgs: Vec<Vec<u64>> = (0..n)
                .map(|i| {
                    (0..len)
                        .map(|j| match j {
                            0 => attrs[i][0] + 1,
                            _ => next(vocab + 3),
                        })
                        .collect()
                })
                .collect();
            let dense: Vec<Vec<u64>> = (1..vocab)
                .map(|s| {
                    msgs.iter()
                        .map(|m| m.iter().filter(|&&t| t == s).count() as u64)
                        .collect()
                })
                .collect();
            let a = columns(&attrs, n_attr);
            let want = gap_mi_first_second(&a, &dense).unwrap();
            let got = bosdis(&attrs, &msgs, vocab as usize, Some(0)).unwrap();
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }

    #[test]
    fn entropy_and_mi_closed_forms() {
        assert_eq!(entropy_bits([1, 2, 3, 4]), 2.0);
        assert_eq!(entropy_bits([7, 7, 7]), 0.0);
        // y = x on 4 equiprobable values: I = H = 2 bits; independent halves: I = 0.
        assert_eq!(mutual_info_bits(&[0, 1, 2, 3], &[0, 1, 2, 3]), 2.0);
        assert_eq!(mutual_info_bits(&[0, 0, 1, 1], &[0, 1, 0, 1]), 0.0);
    }

    /// EGG's doctest: the miniature language of Chaabouni et al. (2020), Appendix 8.2, has
    /// bosdis 1 (EGG counts symbols 1..3 with vocab_size = 3; all 8 symbols give 1 too).
    #[test]
    fn egg_miniature_language_has_bosdis_one() {
        let attrs: Vec<Vec<u64>> = (0..16).map(|o| vec![o / 4, o % 4]).collect();
        let msgs = rows(&[
            [0, 0, 4],
            [0, 0, 5],
            [0, 0, 6],
            [0, 0, 7],
            [1, 4, 1],
            [1, 5, 1],
            [1, 6, 1],
            [1, 7, 1],
            [2, 4, 2],
            [2, 5, 2],
            [2, 6, 2],
            [2, 7, 2],
            [3, 4, 3],
            [3, 3, 5],
            [3, 3, 6],
            [3, 3, 7],
        ]);
        assert!((bosdis(&attrs, &msgs, 3, Some(0)).unwrap() - 1.0).abs() < 1e-12);
        assert!((bosdis(&attrs, &msgs, 8, Some(0)).unwrap() - 1.0).abs() < 1e-12);
        // Its posdis is low: positions 1 and 2 mix the attributes (gaps 1, 0.049395, 5/21;
        // plug-in entropies evaluated independently in Python).
        assert!((posdis(&attrs, &msgs).unwrap() - 0.429163).abs() < 5e-7);
    }

    #[test]
    fn identity_language_is_one_and_constant_language_is_undefined() {
        let attrs: Vec<Vec<u64>> = (0..64).map(|o| vec![o / 8, o % 8]).collect();
        assert_eq!(posdis(&attrs, &attrs), Some(1.0));
        // Every message the same: no position has entropy, posdis is undefined (EGG: NaN).
        let constant = vec![vec![3u64, 3]; 64];
        assert_eq!(posdis(&attrs, &constant), None);
        assert_eq!(bosdis(&attrs, &constant, 4, None), None);
        // One attribute: the second MI is 0, so a bijective code still scores 1.
        let one: Vec<Vec<u64>> = (0..8).map(|v| vec![v]).collect();
        assert_eq!(posdis(&one, &one), Some(1.0));
    }

    #[test]
    fn holistic_language_scores_low() {
        // Messages that spread both attributes over both positions (a Latin-square code):
        // each position carries a bijection of (a0 + a1) mod 8 and (a0 + 3 a1) mod 8, so each
        // has zero MI with either attribute alone.
        let attrs: Vec<Vec<u64>> = (0..64).map(|o| vec![o / 8, o % 8]).collect();
        let msgs: Vec<Vec<u64>> = attrs
            .iter()
            .map(|a| vec![(a[0] + a[1]) % 8, (a[0] + 3 * a[1]) % 8])
            .collect();
        assert!(posdis(&attrs, &msgs).unwrap().abs() < 1e-12);
    }
}
