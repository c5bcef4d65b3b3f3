//! Variable-length messages whose meaning sits in the last real token: each row is a message of
//! 1..=`max_len` tokens drawn uniformly from `vocab` real tokens, padded at the end with the
//! token `vocab` (W's vocabulary is `vocab + 1`); each of the `n_attr` attributes of Z is a
//! fixed random function of the message's last real token. The position that matters varies
//! from row to row, so position-wise learners (n-gram tables at fixed positions, one-hot
//! features) see it only through every (position, length) combination, while a sequence model
//! with a padding mask reads it directly.
//!
//! Exact terms: Z is a deterministic function of W, so K(Z|W,f) = 0 and K(Z|W) is the cost of
//! the function, a table of `vocab x n_attr` values (`vocab * n_attr * log2 n_vals` bits; the
//! choice of "the last real token" among a few rules is not charged). K(Z) is the uniform code
//! of the attributes, `N * n_attr * log2 n_vals` bits.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, ExactTerms, KzMethod, KzReference, Provenance, Targets, TokenData};
use crate::error::{KcompError, Result};

/// Parameters of the generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VarLenParams {
    /// Rows N.
    pub samples: usize,
    /// Longest message (W has this many columns).
    pub max_len: usize,
    /// Real tokens (the padding token is `vocab`).
    pub vocab: usize,
    /// Attributes of Z.
    pub n_attr: usize,
    /// Values per attribute.
    pub n_vals: usize,
    pub seed: u64,
}

impl Default for VarLenParams {
    fn default() -> Self {
        VarLenParams {
            samples: 500,
            max_len: 6,
            vocab: 8,
            n_attr: 2,
            n_vals: 4,
            seed: 0,
        }
    }
}

impl VarLenParams {
    /// Checks the sizes (errors name the parameter).
    pub fn validate(&self) -> Result<()> {
        for (name, v, lo, hi) in [
            ("samples", self.samples, 1, 10_000_000),
            ("max_len", self.max_len, 1, 1024),
            ("vocab", self.vocab, 1, 1 << 20),
            ("n_attr", self.n_attr, 1, 1024),
            ("n_vals", self.n_vals, 2, 1 << 16),
        ] {
            if !(lo..=hi).contains(&v) {
                return Err(KcompError::param(
                    name,
                    format!("must be in {lo}..={hi}, got {v}"),
                ));
            }
        }
        Ok(())
    }

    /// The padding token.
    pub fn pad(&self) -> u32 {
        self.vocab as u32
    }

    /// Generates the dataset (W padded with [`Self::pad`]).
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let (a, v) = (self.n_attr, self.n_vals);
        let table: Vec<u32> = (0..self.vocab * a)
            .map(|_| rng.random_range(0..v as u32))
            .collect();
        let mut tokens = Vec::with_capacity(self.samples * self.max_len);
        let mut values = Vec::with_capacity(self.samples * a);
        for _ in 0..self.samples {
            let len = rng.random_range(1..=self.max_len);
            let mut last = 0;
            for _ in 0..len {
                last = rng.random_range(0..self.vocab);
                tokens.push(last as u32);
            }
            tokens.extend(std::iter::repeat_n(self.pad(), self.max_len - len));
            values.extend_from_slice(&table[last * a..(last + 1) * a]);
        }
        let w = TokenData::new(self.samples, self.max_len, self.vocab + 1, tokens)?;
        let z = Targets::discrete(a, v, values)?;
        let per = (v as f64).log2();
        let k_z = self.samples as f64 * a as f64 * per;
        let table_bits = (self.vocab * a) as f64 * per;
        let parts = BTreeMap::from([
            ("table".to_string(), table_bits),
            ("residual".to_string(), 0.0),
        ]);
        Dataset::new(
            w,
            z,
            Provenance::generated("variable_length", self, self.seed),
            KzReference {
                bits: k_z,
                method: KzMethod::Uniform,
            },
            Some(ExactTerms {
                k_z_given_w_bits: table_bits,
                k_z_bits: k_z,
                parts,
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_padded_and_z_follows_the_last_real_token() {
        let p = VarLenParams {
            samples: 300,
            ..Default::default()
        };
        let d = p.generate().unwrap();
        assert_eq!((d.w.n_words, d.w.vocab), (6, 9));
        let Targets::Discrete { values, .. } = &d.z else {
            unreachable!()
        };
        let mut seen: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut lengths = std::collections::BTreeSet::new();
        for r in 0..d.n() {
            let row = d.w.row(r);
            let len = row.iter().position(|&t| t == p.pad()).unwrap_or(row.len());
            assert!(len >= 1 && row[len..].iter().all(|&t| t == p.pad()));
            lengths.insert(len);
            let z = values[r * 2..r * 2 + 2].to_vec();
            // The same last token always means the same attributes.
            assert_eq!(seen.entry(row[len - 1]).or_insert_with(|| z.clone()), &z);
        }
        assert_eq!(lengths.len(), 6);
        let ex = d.exact.unwrap();
        assert_eq!(ex.k_z_given_w_bits, 8.0 * 2.0 * 2.0);
        assert_eq!(d.k_z.bits, 300.0 * 2.0 * 2.0);
        assert_eq!(p.generate().unwrap().w, d.w, "deterministic");
        assert!(VarLenParams { n_vals: 1, ..p }.generate().is_err());
    }
}
