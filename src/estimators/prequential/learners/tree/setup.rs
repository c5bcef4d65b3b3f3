//! The tree learner's pieces set up on one generated grammar outside a prequential run (word
//! classes, bracketing and node keys from W; Z as values), for diagnostics (the `*_probe`
//! examples) and for tests that fit one piece at a time.

use super::MAX_CLASSES;
use super::classes::{WordClasses, learn_classes};
use super::latent::LatentKeys;
use super::shape::Bracketing;
use crate::dataset::{Dataset, Targets};
use crate::datasets::grammar::GrammarDataset;
use crate::error::{KcompError, Result};

/// A grammar dataset with the learner's view of it.
pub struct TreeSetup {
    pub data: Dataset,
    /// Word classes learned from W alone.
    pub classes: WordClasses,
    pub br: Bracketing,
    pub dim: usize,
    /// Z's grid step.
    pub lam: f64,
    grid: Vec<i64>,
}

impl TreeSetup {
    pub fn new(g: &GrammarDataset) -> Result<Self> {
        let data = g.to_dataset()?;
        let Targets::Continuous { dim, lam, grid } = &data.z else {
            return Err(KcompError::param("z", "a grammar's Z is continuous"));
        };
        let (dim, lam, grid) = (*dim, *lam, grid.clone());
        let classes = learn_classes(&data.w, MAX_CLASSES);
        let br = Bracketing::new(g.params.length);
        Ok(TreeSetup {
            data,
            classes,
            br,
            dim,
            lam,
            grid,
        })
    }

    /// Node keys over the learned word classes with at most `c` latent categories (1: one rule
    /// per height), every pair in category 0.
    pub fn latent_keys(&self, c: usize) -> LatentKeys {
        LatentKeys::new(
            &self.br,
            &self.classes.of_word,
            self.classes.count,
            c,
            &self.data.w,
        )
    }

    /// Z's value in row `r`, dimension `j`.
    pub fn y(&self, r: usize, j: usize) -> f64 {
        self.grid[r * self.dim + j] as f64 * self.lam
    }

    /// Root mean square of Z over `rows` (the scale a fit starts from).
    pub fn z_scale(&self, rows: &[usize]) -> f64 {
        rms_of_rows(rows, self.dim, |r, j| self.y(r, j))
    }

    /// The generator's first-level category (non-terminal, numbered from 0) of every pair of
    /// learned word classes that heads a first-level node, indexed `left * count + right`.
    pub fn true_pair_categories(&self, g: &GrammarDataset) -> Vec<Option<usize>> {
        let (of_word, n) = (&self.classes.of_word, self.classes.count);
        let mut truth = vec![None; n * n];
        for (a, b, lhs) in g.first_level_nodes() {
            truth[of_word[a] * n + of_word[b]] = Some(lhs - g.params.pos);
        }
        truth
    }
}

/// Root mean square of `y(r, j)` over `rows` and `0..dim` (0 on no rows).
pub fn rms_of_rows(rows: &[usize], dim: usize, y: impl Fn(usize, usize) -> f64) -> f64 {
    if rows.is_empty() || dim == 0 {
        return 0.0;
    }
    let s: f64 = rows
        .iter()
        .flat_map(|&r| (0..dim).map(move |j| (r, j)))
        .map(|(r, j)| y(r, j).powi(2))
        .sum();
    (s / (rows.len() * dim) as f64).sqrt()
}
