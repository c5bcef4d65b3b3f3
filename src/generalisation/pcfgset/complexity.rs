//! PCFG SET as a dataset of the complexity view (Elmoznino et al., ICML 2025): W = the input
//! sequence's tokens, Z = the output's tokens, both padded at the end, with the exact terms of
//! the generating program.
//!
//! Encoding: W tokens are 0 = padding, 1..=10 the functions (in [`Function::ALL`] order), 11 =
//! `,`, then the letters (`A1`, `A2`, ..., `Z<numbers>`); Z values are 0 = padding, then the
//! letters. W has as many columns as the longest input, Z as the longest output.
//!
//! Exact terms (bits; Z is a deterministic function of W):
//! - K(f) = [`REFERENCE_PROGRAM_BITS`]: `l_bits` of kcomp's reference interpreter
//!   (reference.py: the ten functions, their synonyms and the prefix-notation parser), the
//!   programs pipeline's token-stream code; K(Z|W,f) = 0, so K(Z|W) = K(f);
//! - K(p_w): the grammar's parameters: P(unary) and P(function argument) at 8 bits each, the
//!   shortest and longest string argument at log2 64 bits each, the numbers per letter at
//!   log2 1000 bits (the ranges the generator accepts);
//! - K(W|p_w): each input's code length under the grammar with the family's probabilities:
//!   a function costs -log2 P(unary) + log2 6 or -log2 P(binary) + log2 4, an argument
//!   -log2 P(function) or -log2 P(string) + log2(string lengths) + length x log2(letters).
//!   The generator also drops repeated strings and over-long or deep draws and (with
//!   `naturalise`) selects draws by (depth, length); the grammar's code ignores these
//!   selections, so it is an upper bound on K(W|p_w) (a valid code, not the shortest);
//! - K(Z) = K(p_w) + K(W|p_w) + K(f) (the paper's sum with K(Z|W,f) = 0).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::generator::{GeneratorParams, generate};
use super::interpreter::{Expr, Function, parse};
use crate::dataset::{Dataset, ExactTerms, KzMethod, KzReference, Provenance, Targets, TokenData};
use crate::error::{KcompError, Result};

/// kcomp's reference program (Python): the PCFG SET interpreter, reading one sequence on
/// stdin. It reproduces the published targets; its `l_bits` is [`REFERENCE_PROGRAM_BITS`].
pub const REFERENCE_PROGRAM: &str = include_str!("reference.py");

/// `l_bits` of [`REFERENCE_PROGRAM`] (checked against `l_bits` by tests/pcfgset_rules.rs;
/// a constant here so that the dataset family does not import the programs pipeline): K(f) of the
/// `pcfgset` dataset family, the length of the interpreter under the programs pipeline's code.
pub const REFERENCE_PROGRAM_BITS: f64 = 2620.537369246359;

/// The `pcfgset` family's settings (`kind = "pcfgset"` in a compare config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PcfgsetFamilyParams {
    /// Samples drawn (rows kept: those within `max_chars` and `max_target`).
    pub samples: usize,
    /// Numbers per letter: the alphabet is `A1`..`Z<numbers>` (20 = the published 520).
    pub numbers: usize,
    pub prob_unary: f64,
    pub prob_func: f64,
    pub min_string: usize,
    pub max_string: usize,
    /// Inputs written with this many characters or more are dropped.
    pub max_chars: usize,
    /// Rows whose output has more tokens than this are dropped (Z's width).
    pub max_target: usize,
    /// Select draws to the published (depth, length) histogram (`pcfgset generate
    /// --naturalise`).
    pub naturalise: bool,
    pub seed: u64,
}

impl Default for PcfgsetFamilyParams {
    fn default() -> Self {
        let g = GeneratorParams::default();
        PcfgsetFamilyParams {
            samples: 500,
            numbers: g.numbers,
            prob_unary: g.prob_unary,
            prob_func: g.prob_func,
            min_string: g.min_string,
            max_string: g.max_string,
            max_chars: g.max_chars,
            max_target: 64,
            naturalise: false,
            seed: 0,
        }
    }
}

/// Token of `,` in W.
const COMMA: u32 = 11;
/// First letter token in W.
const FIRST_LETTER: u32 = 12;

impl PcfgsetFamilyParams {
    fn generator(&self) -> GeneratorParams {
        GeneratorParams {
            samples: self.samples,
            seed: self.seed,
            prob_unary: self.prob_unary,
            prob_func: self.prob_func,
            min_string: self.min_string,
            max_string: self.max_string,
            numbers: self.numbers,
            max_chars: self.max_chars,
            naturalise: self.naturalise,
            ..Default::default()
        }
    }

    /// Checks the settings (errors name the parameter).
    pub fn validate(&self) -> Result<()> {
        self.generator().validate()?;
        if self.samples > 100_000 {
            return Err(KcompError::param("samples", "must be at most 100000"));
        }
        if !(1..=4096).contains(&self.max_target) {
            return Err(KcompError::param("max_target", "must be in 1..=4096"));
        }
        if self.prob_unary <= 0.0 || self.prob_unary >= 1.0 || self.prob_func <= 0.0 {
            return Err(KcompError::param(
                "prob_unary",
                "the code needs 0 < prob_unary < 1 and prob_func > 0",
            ));
        }
        Ok(())
    }

    /// Letters in the alphabet.
    fn letters(&self) -> usize {
        26 * self.numbers
    }

    /// Index (0-based) of a letter token in the alphabet.
    fn letter(&self, t: &str) -> Result<u32> {
        let mut chars = t.chars();
        let c = chars.next().filter(char::is_ascii_uppercase);
        let k: Option<usize> = chars.as_str().parse().ok();
        match (c, k) {
            (Some(c), Some(k)) if (1..=self.numbers).contains(&k) => {
                Ok(((c as u8 - b'A') as usize * self.numbers + k - 1) as u32)
            }
            _ => Err(KcompError::Other(format!(
                "token {} is not a letter of the alphabet",
                super::interpreter::quote(t)
            ))),
        }
    }

    /// K(p_w) in bits (see the module docs).
    pub fn k_pw_bits(&self) -> f64 {
        8.0 + 8.0 + 2.0 * 64f64.log2() + 1000f64.log2()
    }

    /// The code length of one input under the grammar, in bits.
    pub fn source_bits(&self, expr: &Expr<'_>) -> f64 {
        let pu = self.prob_unary;
        let pf = self.prob_func;
        let lengths = (self.max_string - self.min_string + 1) as f64;
        let letter = (self.letters() as f64).log2();
        let arg = |e: &Expr<'_>| -> f64 {
            match e {
                Expr::Str(s) => -(1.0 - pf).log2() + lengths.log2() + s.len() as f64 * letter,
                _ => -pf.log2() + self.source_bits(e),
            }
        };
        match expr {
            Expr::Str(_) => 0.0,
            Expr::Unary(_, x) => -pu.log2() + 6f64.log2() + arg(x),
            Expr::Binary(_, a, b) => -(1.0 - pu).log2() + 4f64.log2() + arg(a) + arg(b),
        }
    }

    /// Generates the dataset.
    pub fn dataset(&self) -> Result<Dataset> {
        self.validate()?;
        let samples = generate(&self.generator())?;
        let mut rows: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        let mut k_w = 0.0;
        for s in &samples {
            if s.target.len() > self.max_target {
                continue;
            }
            let tokens: Vec<&str> = s.source.iter().map(String::as_str).collect();
            k_w += self.source_bits(&parse(&tokens)?);
            let w = tokens
                .iter()
                .map(|t| match Function::from_token(t) {
                    Some((f, _)) => {
                        Ok(1 + Function::ALL.iter().position(|&g| g == f).unwrap_or(0) as u32)
                    }
                    None if *t == "," => Ok(COMMA),
                    None => Ok(FIRST_LETTER + self.letter(t)?),
                })
                .collect::<Result<Vec<u32>>>()?;
            let z = s
                .target
                .iter()
                .map(|t| Ok(1 + self.letter(t)?))
                .collect::<Result<Vec<u32>>>()?;
            rows.push((w, z));
        }
        if rows.is_empty() {
            return Err(KcompError::param(
                "max_target",
                "every generated output is longer than max_target",
            ));
        }
        let n = rows.len();
        let w_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(1);
        let z_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(1);
        let mut w = Vec::with_capacity(n * w_width);
        let mut z = Vec::with_capacity(n * z_width);
        for (wr, zr) in &rows {
            w.extend(wr.iter().copied().chain(std::iter::repeat(0)).take(w_width));
            z.extend(zr.iter().copied().chain(std::iter::repeat(0)).take(z_width));
        }
        let vocab = FIRST_LETTER as usize + self.letters();
        let w = TokenData::new(n, w_width, vocab, w)?;
        let z = Targets::discrete(z_width, self.letters() + 1, z)?;
        let k_pw = self.k_pw_bits();
        let k_f = REFERENCE_PROGRAM_BITS;
        let k_z = k_pw + k_w + k_f;
        let parts = BTreeMap::from([
            ("k_pw".to_string(), k_pw),
            ("k_w_given_pw".to_string(), k_w),
            ("k_f".to_string(), k_f),
            ("k_z_given_wf".to_string(), 0.0),
        ]);
        Dataset::new(
            w,
            z,
            Provenance::generated("pcfgset", self, self.seed),
            KzReference {
                bits: k_z,
                method: KzMethod::Exact,
            },
            Some(ExactTerms {
                k_z_given_w_bits: k_f,
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
    fn source_code_length_by_hand() {
        let p = PcfgsetFamilyParams::default();
        // `append swap_first_last F G H , I J`: binary (P 0.25, 1 of 4), a function argument
        // (P 0.25) that is unary (P 0.75, 1 of 6) over a 3-letter string, and a 2-letter
        // string; strings cost P 0.75, 1 of 4 lengths and log2 520 per letter.
        let tokens: Vec<&str> = "append swap_first_last F1 G1 H1 , I1 J1"
            .split(' ')
            .collect();
        let bits = p.source_bits(&parse(&tokens).unwrap());
        let l = 520f64.log2();
        let s = |k: f64| -(0.75f64).log2() + 2.0 + k * l;
        let want = 2.0 + 2.0 + 2.0 + (-(0.75f64).log2() + 6f64.log2()) + s(3.0) + s(2.0);
        assert!((bits - want).abs() < 1e-9, "{bits} vs {want}");
    }
}
