//! MDL model selection of the sentence space: the learner runs on a grid of (M, V), every
//! result is coded ([`super::terms`]), and the shortest total K(Z) wins. The choice is itself
//! sent (M and V are inside each total), so the winner's K(Z) stays a valid code length.
//!
//! Default grid ([`SelectConfig::default_lengths`], [`SelectConfig::default_vocabs`]): M in
//! 1, 2, 4, ... up to min(D, 64) (up to 64 for the auto-encoder, whose positions are not blocks
//! of dimensions) and V in 2, 4, 8, 16, 32 (at M = 1 also 64, 128, ... up to N: one word per
//! object, the holistic description). Then V is refined at every M whose best
//! grid point is within [`SelectConfig::refine_margin`] of the best total: every V between the
//! best grid value's neighbours (at most [`SelectConfig::refine`], spread geometrically),
//! then bisection towards the best V (midpoints of the gaps either side) until its integer
//! neighbours are tried. Refining every close M, not only the best one, matters when the
//! best V is sharp: a holistic description of repeated objects pays only at V = the number
//! of distinct objects, and between the powers of two a per-dimension quantisation is
//! shorter. A user-given `--vocab` or `--length` list replaces the default list (no
//! refinement of a user list).
//!
//! Grid points run in parallel (rayon); each has its own seed derived from (seed, M, V), and
//! results are gathered in grid order, so the selection is the same for any thread count.

use serde::Serialize;

use super::terms::{Terms, TermsConfig, terms};
use super::{EpochRecord, LearnedSentences, LearnerConfig, SentenceLearner, SentenceSpace};
use crate::dataset::Targets;
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::derive_seed;

/// Settings of a selection.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectConfig {
    /// Sentence lengths M to try (`None`: the default grid for Z's dimension).
    pub lengths: Option<Vec<usize>>,
    /// Vocabulary sizes V to try (`None`: the default grid, refined at every M within
    /// `refine_margin` of the best).
    pub vocabs: Option<Vec<usize>>,
    /// Largest number of vocabulary sizes tried between the best grid value's neighbours at
    /// each refined M before the bisection (default grid only; 0 = no refinement).
    pub refine: usize,
    /// V is refined at every M whose best grid point is within this fraction of the best
    /// total (default 0.05), not only at the best M.
    pub refine_margin: f64,
    pub learner: LearnerConfig,
    pub terms: TermsConfig,
    pub seed: u64,
}

impl Default for SelectConfig {
    fn default() -> Self {
        SelectConfig {
            lengths: None,
            vocabs: None,
            refine: 24,
            refine_margin: 0.05,
            learner: LearnerConfig::default(),
            terms: TermsConfig::default(),
            seed: 0,
        }
    }
}

impl SelectConfig {
    /// M = 1, 2, 4, ... up to min(`max_length`, 64), where `max_length` is the learner's
    /// longest sentence for Z's dimension ([`SentenceLearner::max_length`]: D for k-means).
    pub fn default_lengths(max_length: usize) -> Vec<usize> {
        (0..7)
            .map(|k| 1usize << k)
            .filter(|&m| m <= max_length.min(64))
            .collect()
    }

    /// V = 2, 4, 8, 16, 32.
    pub fn default_vocabs() -> Vec<usize> {
        vec![2, 4, 8, 16, 32]
    }

    /// The vocabulary sizes tried at length `m` for `n` rows: the user's list, else
    /// [`Self::default_vocabs`], and for M = 1 also 64, 128, ... up to N (a holistic
    /// description, one word per object, must be able to compete).
    pub fn vocabs_for(&self, m: usize, n: usize) -> Vec<usize> {
        match &self.vocabs {
            Some(v) => v.clone(),
            None if m == 1 => {
                let mut v = Self::default_vocabs();
                let mut x = 64;
                while x <= n {
                    v.push(x);
                    x *= 2;
                }
                v
            }
            None => Self::default_vocabs(),
        }
    }
}

/// One grid point's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridPoint {
    pub length: usize,
    pub vocab: usize,
    pub k_w_bits: f64,
    pub k_z_given_w_bits: f64,
    /// space + K(W) + K(Z|W) + the 1-bit switch.
    pub total_bits: f64,
    /// The refinement stage (false: the first grid).
    pub refined: bool,
}

/// The selected sentences and everything measured on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub points: Vec<GridPoint>,
    /// Index of the winner in `points`.
    pub best: usize,
    pub learned: LearnedSentences,
    pub terms: Terms,
}

impl Selection {
    /// The winner's training curve.
    pub fn curve(&self) -> &[EpochRecord] {
        &self.learned.curve
    }
}

/// Checks Z before any learning: continuous, at least 10 rows, finite, not constant, and not
/// one grid cell per column (a precision coarser than the data's spread).
pub fn check_z(z: &Targets) -> Result<()> {
    let Targets::Continuous { dim, grid, lam } = z else {
        return Err(KcompError::param(
            "z",
            "learning sentences needs continuous Z (give --precision)",
        ));
    };
    let n = z.n();
    if n < 10 {
        return Err(KcompError::param(
            "z",
            format!("{n} rows: at least 10 are needed to learn sentences"),
        ));
    }
    let varies = |d: usize| (1..n).any(|i| grid[i * dim + d] != grid[d]);
    if !(0..*dim).any(varies) {
        return Err(KcompError::param(
            "z",
            format!(
                "every value falls in one grid cell per column at precision {lam}: Z is \
                 constant at this precision (use a finer --precision, or there is nothing to code)"
            ),
        ));
    }
    Ok(())
}

/// One learner run and its terms at `space`.
fn run_point(
    learner: &dyn SentenceLearner,
    z: &Targets,
    space: SentenceSpace,
    cfg: &SelectConfig,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(LearnedSentences, Terms)> {
    let seed = derive_seed(
        derive_seed(cfg.seed, space.length as u64),
        space.vocab as u64,
    );
    let learned = learner.learn(z, space, &cfg.learner, seed, progress)?;
    let t = terms(&learned.w, z, &cfg.terms, seed)?;
    Ok((learned, t))
}

fn point(t: &Terms, refined: bool) -> GridPoint {
    GridPoint {
        length: t.length,
        vocab: t.vocab,
        k_w_bits: t.k_w_bits,
        k_z_given_w_bits: t.k_z_given_w_learned_bits,
        total_bits: t.learned_total_bits,
        refined,
    }
}

/// Checks Z ([`check_z`]) and the grid `cfg` gives for `learner` (lengths between 1 and the
/// learner's longest sentence, vocabularies of at least 2 words); returns the lengths.
/// `kcomp represent` calls it before it claims its output folder.
pub fn check_grid(
    learner: &dyn SentenceLearner,
    z: &Targets,
    cfg: &SelectConfig,
) -> Result<Vec<usize>> {
    check_z(z)?;
    let dim = z.width();
    let max_length = learner.max_length(dim);
    let lengths = match &cfg.lengths {
        Some(l) => l.clone(),
        None => SelectConfig::default_lengths(max_length),
    };
    let n = z.n();
    let vocabs = cfg.vocabs_for(2, n);
    if lengths.is_empty() || vocabs.is_empty() {
        return Err(KcompError::param("length", "the grid is empty"));
    }
    if let Some(&m) = lengths.iter().find(|&&m| m == 0 || m > max_length) {
        let why = if max_length == dim {
            format!(
                "the dimension D = {dim} ({} splits Z's dimensions)",
                learner.name()
            )
        } else {
            format!("{max_length}")
        };
        return Err(KcompError::param(
            "length",
            format!("sentence length {m} must be between 1 and {why}"),
        ));
    }
    if let Some(&v) = vocabs.iter().find(|&&v| v < 2) {
        return Err(KcompError::param(
            "vocab",
            format!("vocabulary size {v} must be at least 2"),
        ));
    }
    // Checked before any allocation (a learner holds V centroids or embeddings per
    // position): N objects use at most N distinct words, so a larger vocabulary describes
    // nothing more (the default grid stops at N too).
    if let Some(&v) = cfg.vocabs.iter().flatten().find(|&&v| v > n.max(2)) {
        return Err(KcompError::param(
            "vocab",
            format!(
                "vocabulary size {v} is above the N = {n} objects of Z (at most N distinct \
                 words can occur)"
            ),
        ));
    }
    Ok(lengths)
}

/// Most rounds of the bisection stage of the refinement.
const MAX_REFINE_ROUNDS: usize = 16;

/// The vocabulary sizes tried so far at length `m`, ascending.
fn tried_at(points: &[GridPoint], m: usize) -> Vec<usize> {
    let mut v: Vec<usize> = points
        .iter()
        .filter(|p| p.length == m)
        .map(|p| p.vocab)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The best point at length `m` (lowest total; ties to the earlier point).
fn best_at(points: &[GridPoint], m: usize) -> Option<&GridPoint> {
    points
        .iter()
        .filter(|p| p.length == m)
        .min_by(|a, b| a.total_bits.total_cmp(&b.total_bits))
}

/// Stage 1 of the refinement at length `m`: every V strictly between the neighbours of the
/// best grid value (at most `cfg.refine`, spread geometrically), V <= N.
fn first_candidates(
    points: &[GridPoint],
    m: usize,
    cfg: &SelectConfig,
    n: usize,
) -> Vec<SentenceSpace> {
    let Some(best) = best_at(points, m) else {
        return Vec::new();
    };
    let vb = best.vocab;
    let tried = tried_at(points, m);
    let lo = tried
        .iter()
        .copied()
        .filter(|&v| v < vb)
        .max()
        .unwrap_or(2)
        .max(2);
    let hi = tried
        .iter()
        .copied()
        .filter(|&v| v > vb)
        .min()
        .unwrap_or(vb * 2)
        .min(n.max(2));
    let mut cands: Vec<usize> = (lo..=hi).filter(|v| !tried.contains(v)).collect();
    if cands.len() > cfg.refine {
        let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
        cands = (0..cfg.refine)
            .map(|k| {
                (a + (b - a) * (k as f64 + 0.5) / cfg.refine as f64)
                    .exp()
                    .round() as usize
            })
            .collect();
        cands.sort_unstable();
        cands.dedup();
        cands.retain(|v| !tried.contains(v));
    }
    cands
        .into_iter()
        .map(|vocab| SentenceSpace { length: m, vocab })
        .collect()
}

/// Stage 2 of the refinement at length `m`: the midpoints of the gaps between the best V and
/// its nearest tried neighbours (below: down to 2; above: up to twice the best, at most N).
fn bisection_candidates(points: &[GridPoint], m: usize, n: usize) -> Vec<SentenceSpace> {
    let Some(best) = best_at(points, m) else {
        return Vec::new();
    };
    let vb = best.vocab;
    let tried = tried_at(points, m);
    let below = tried.iter().copied().filter(|&v| v < vb).max().unwrap_or(1);
    let above = tried
        .iter()
        .copied()
        .filter(|&v| v > vb)
        .min()
        .unwrap_or((vb * 2).min(n.max(2)) + 1);
    let mut out = Vec::new();
    for v in [(below + vb) / 2, (vb + above).div_ceil(2)] {
        if v >= 2 && v <= n.max(2) && v != vb && !tried.contains(&v) && !out.contains(&v) {
            out.push(v);
        }
    }
    out.into_iter()
        .map(|vocab| SentenceSpace { length: m, vocab })
        .collect()
}

/// Runs the selection. `progress(done, total)` is called after each grid point (the total
/// grows when the refinement starts).
pub fn select(
    learner: &dyn SentenceLearner,
    z: &Targets,
    cfg: &SelectConfig,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Selection> {
    use rayon::prelude::*;
    let lengths = check_grid(learner, z, cfg)?;
    let n = z.n();
    let grid: Vec<SentenceSpace> = lengths
        .iter()
        .flat_map(|&length| {
            cfg.vocabs_for(length, n)
                .into_iter()
                .map(move |vocab| SentenceSpace { length, vocab })
        })
        .collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = std::sync::atomic::AtomicUsize::new(grid.len());
    let tick = || {
        let k = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        progress(k, total.load(std::sync::atomic::Ordering::SeqCst));
    };
    let quiet = |_: usize, _: usize| {};
    let results: Vec<(LearnedSentences, Terms)> = grid
        .par_iter()
        .with_max_len(1)
        .map(|&space| {
            let r = run_point(learner, z, space, cfg, &quiet);
            tick();
            r
        })
        .collect::<Result<_>>()?;
    let mut points: Vec<GridPoint> = results.iter().map(|(_, t)| point(t, false)).collect();
    let mut runs: Vec<(LearnedSentences, Terms)> = results;
    let argmin = |p: &[GridPoint]| {
        (0..p.len())
            .min_by(|&a, &b| p[a].total_bits.total_cmp(&p[b].total_bits))
            .unwrap_or(0)
    };
    if cfg.vocabs.is_none() && cfg.refine > 0 {
        // Refine V at every M whose best grid point is within `refine_margin` of the overall
        // best (a sentence length that could still win once its V is right: the holistic
        // description of repeated objects wins only at V = the number of distinct objects).
        let best_total = points[argmin(&points)].total_bits;
        let mut refined: Vec<usize> = Vec::new();
        for &m in &lengths {
            let at_m = points.iter().filter(|p| p.length == m);
            let b = at_m.map(|p| p.total_bits).fold(f64::INFINITY, f64::min);
            if b <= best_total + cfg.refine_margin * best_total.abs() {
                refined.push(m);
            }
        }
        // Stage 1: at each refined M, every V strictly between the best grid value's
        // neighbours (at most `refine`, spread geometrically). Stage 2: bisection towards the
        // best V at each refined M (the midpoints of the gaps either side of it) until the
        // gaps close; a one-step gap tries the neighbours, so the search ends at a local
        // minimum over the integers.
        let mut cands: Vec<SentenceSpace> = refined
            .iter()
            .flat_map(|&m| first_candidates(&points, m, cfg, n))
            .collect();
        let mut round = 0;
        while !cands.is_empty() && round < MAX_REFINE_ROUNDS {
            round += 1;
            total.fetch_add(cands.len(), std::sync::atomic::Ordering::SeqCst);
            let new: Vec<(LearnedSentences, Terms)> = cands
                .par_iter()
                .with_max_len(1)
                .map(|&space| {
                    let r = run_point(learner, z, space, cfg, &quiet);
                    tick();
                    r
                })
                .collect::<Result<_>>()?;
            for (l, t) in new {
                points.push(point(&t, true));
                runs.push((l, t));
            }
            cands = refined
                .iter()
                .flat_map(|&m| bisection_candidates(&points, m, n))
                .collect();
        }
    }
    let best = argmin(&points);
    let (learned, terms) = runs.swap_remove(best);
    Ok(Selection {
        points,
        best,
        learned,
        terms,
    })
}
