//! In-memory datasets for the models: token sequences W and targets Z.

use crate::error::{KcompError, Result};

/// `n` token sequences of length `n_words`, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenData {
    pub n: usize,
    pub n_words: usize,
    pub vocab: usize,
    pub tokens: Vec<u32>,
    /// The padding token of variable-length messages (padded at the end to `n_words`), when
    /// known: kcomp's own padding token of a ragged or text W, or the one a user named
    /// (`--pad`). Distances and learners read messages without it (see [`TokenData::message`]).
    pub pad: Option<u32>,
}

impl TokenData {
    /// Builds and validates (every token below `vocab`).
    pub fn new(n: usize, n_words: usize, vocab: usize, tokens: Vec<u32>) -> Result<Self> {
        if tokens.len() != n * n_words {
            return Err(KcompError::param(
                "w",
                format!("{} tokens for {n} rows x {n_words} words", tokens.len()),
            ));
        }
        if let Some(bad) = tokens.iter().find(|&&t| t as usize >= vocab) {
            return Err(KcompError::param(
                "w",
                format!("token {bad} is outside the vocabulary of size {vocab}"),
            ));
        }
        Ok(TokenData {
            n,
            n_words,
            vocab,
            tokens,
            pad: None,
        })
    }

    /// The same tokens with `pad` as the padding token: it must be in the vocabulary and occur
    /// only at the ends of messages (a padded position is followed only by padding).
    pub fn with_pad(mut self, pad: u32) -> Result<Self> {
        if pad as usize >= self.vocab {
            return Err(KcompError::param(
                "pad",
                format!(
                    "token {pad} is outside the vocabulary of size {}",
                    self.vocab
                ),
            ));
        }
        for i in 0..self.n {
            let row = self.row(i);
            if let Some(first) = row.iter().position(|&t| t == pad)
                && let Some(k) = row[first..].iter().position(|&t| t != pad)
            {
                return Err(KcompError::param(
                    "pad",
                    format!(
                        "row {}: padding token {pad} at column {} is followed by token {} at \
                         column {} (padding may only end a message)",
                        i + 1,
                        first + 1,
                        row[first + k],
                        first + k + 1
                    ),
                ));
            }
        }
        self.pad = Some(pad);
        Ok(self)
    }

    /// Row `i` without its padding: the message itself.
    pub fn message(&self, i: usize) -> &[u32] {
        let row = self.row(i);
        match self.pad {
            Some(p) => &row[..row.iter().position(|&t| t == p).unwrap_or(row.len())],
            None => row,
        }
    }

    /// A "blind" input: every row is the single token 0 (a model that sees no W).
    pub fn blind(n: usize) -> Self {
        TokenData {
            n,
            n_words: 1,
            vocab: 1,
            tokens: vec![0; n],
            pad: None,
        }
    }

    /// Tokens of row `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.tokens[i * self.n_words..(i + 1) * self.n_words]
    }
}

/// Targets Z, one row per sample.
#[derive(Debug, Clone, PartialEq)]
pub enum Targets {
    /// `n_attr` attributes with values in `0..n_vals`, row-major.
    Discrete {
        n_attr: usize,
        n_vals: usize,
        values: Vec<u32>,
    },
    /// Continuous vectors stored as integer grid indices at precision `lam`
    /// (value = index * lam), row-major `dim` per row.
    Continuous {
        dim: usize,
        lam: f64,
        grid: Vec<i64>,
    },
}

impl Targets {
    /// Number of rows.
    pub fn n(&self) -> usize {
        match self {
            Targets::Discrete { n_attr, values, .. } => values.len() / n_attr.max(&1),
            Targets::Continuous { dim, grid, .. } => grid.len() / dim.max(&1),
        }
    }

    /// Values per row (attributes or dimensions).
    pub fn width(&self) -> usize {
        match self {
            Targets::Discrete { n_attr, .. } => *n_attr,
            Targets::Continuous { dim, .. } => *dim,
        }
    }

    /// Quantises float vectors to the grid of spacing `lam` (round half to even).
    pub fn from_floats(dim: usize, lam: f64, values: &[f64]) -> Result<Self> {
        if !(lam.is_finite() && lam > 0.0) {
            return Err(KcompError::param(
                "precision",
                "must be positive and finite",
            ));
        }
        if dim == 0 || !values.len().is_multiple_of(dim) {
            return Err(KcompError::param("z", "row width does not divide the data"));
        }
        let mut grid = Vec::with_capacity(values.len());
        for (i, &v) in values.iter().enumerate() {
            if !v.is_finite() {
                return Err(KcompError::param(
                    "z",
                    format!(
                        "row {} column {} is not a finite number",
                        i / dim + 1,
                        i % dim + 1
                    ),
                ));
            }
            let k = (v / lam).round_ties_even();
            if k.abs() > 9.0e15 {
                return Err(KcompError::param(
                    "precision",
                    format!("value {v} is too large for the grid at precision {lam}"),
                ));
            }
            grid.push(k as i64);
        }
        Ok(Targets::Continuous { dim, lam, grid })
    }

    /// Validates discrete targets (every value below `n_vals`).
    pub fn discrete(n_attr: usize, n_vals: usize, values: Vec<u32>) -> Result<Self> {
        if n_attr == 0 || !values.len().is_multiple_of(n_attr) {
            return Err(KcompError::param("z", "row width does not divide the data"));
        }
        if n_vals < 2 {
            return Err(KcompError::param("z", "attributes need at least 2 values"));
        }
        if let Some(bad) = values.iter().find(|&&v| v as usize >= n_vals) {
            return Err(KcompError::param(
                "z",
                format!("value {bad} is outside 0..{n_vals}"),
            ));
        }
        Ok(Targets::Discrete {
            n_attr,
            n_vals,
            values,
        })
    }
}
