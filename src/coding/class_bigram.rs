//! A two-part code of discrete sentences W over word classes: the class-bigram code.
//!
//! Every word of the vocabulary belongs to one class; a row is sent word by word, each word as
//! its class given the previous word's class (the first word's class given a START context)
//! and then the word given its class. The classes are stated first, the rows after them.
//!
//! The decoder knows N (rows), M (words a row) and V (the vocabulary). Header, every field
//! under a stated prior:
//! - u, the number of distinct words that occur in W: uniform over 1..=V (log2 V bits);
//! - which u words: uniform over the C(V, u) subsets (log2 C(V, u) bits);
//! - k, the number of classes: uniform over 1..=u (log2 u bits);
//! - the class of every occurring word: uniform over the k^u labellings (u log2 k bits).
//!
//! Summed over every header, 2^-bits is exactly 1 ([`header_bits`]; test below).
//!
//! Body: the N rows in order, every word coded under Dirichlet predictive counts of the words
//! before it (coded before learned): P(class | previous class) under a symmetric
//! Dirichlet([`ALPHA_TRANSITION`]) over the k classes (one count table per previous class and
//! one for START), times P(word | class) under a symmetric Dirichlet([`BETA_EMISSION`]) over the
//! class's words. Given the header the body sums to exactly 1 over every W of N rows whose words
//! are among the u stated ones, and its length is the closed-form Dirichlet-multinomial marginal
//! likelihood (it does not depend on the order of the rows).
//!
//! The classes themselves can come from anywhere (the code is valid for any assignment); kcomp
//! learns them from W with the Bayesian class-bigram model of the tree learner
//! (`estimators::prequential::learners::tree::classes`), whose score is this body's marginal
//! likelihood. Hand-written: a few count tables; no crate codes W this way.

use crate::coding::bits::log2_binomial;
use crate::dataset::TokenData;
use crate::error::{KcompError, Result};

/// Dirichlet concentration of a transition row (P(class | previous class)).
pub const ALPHA_TRANSITION: f64 = 0.5;
/// Dirichlet concentration of a class's emission (P(word | class)).
pub const BETA_EMISSION: f64 = 1.0;

/// The class-bigram code of one W, in bits.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassBigramCode {
    /// The header: which words occur, the class count, every occurring word's class.
    pub header_bits: f64,
    /// The rows given the header (coded before learned).
    pub body_bits: f64,
    /// The body's bits at each position (column m summed over the rows); sums to `body_bits`.
    pub body_per_position_bits: Vec<f64>,
    /// Number of classes k.
    pub classes: usize,
    /// Number of distinct words that occur, u.
    pub used_words: usize,
}

impl ClassBigramCode {
    /// Header plus body.
    pub fn total_bits(&self) -> f64 {
        self.header_bits + self.body_bits
    }
}

/// Bits of the header for `used` occurring words out of `vocab`, assigned to `classes`
/// classes (the priors of the module documentation).
pub fn header_bits(vocab: usize, used: usize, classes: usize) -> f64 {
    debug_assert!(1 <= used && used <= vocab && 1 <= classes && classes <= used);
    (vocab as f64).log2()
        + log2_binomial(vocab, used)
        + (used as f64).log2()
        + used as f64 * (classes as f64).log2()
}

/// The class-bigram code of `w` with class `of_word[t]` for word `t` and `classes` classes.
/// Classes of words that do not occur are ignored; every occurring word's class must be below
/// `classes`, and `classes` at most the number of occurring words.
pub fn class_bigram_code(
    w: &TokenData,
    of_word: &[usize],
    classes: usize,
) -> Result<ClassBigramCode> {
    if of_word.len() != w.vocab {
        return Err(KcompError::param(
            "classes",
            format!(
                "{} word classes for a vocabulary of {} words",
                of_word.len(),
                w.vocab
            ),
        ));
    }
    let mut occurs = vec![false; w.vocab];
    for &t in &w.tokens {
        occurs[t as usize] = true;
    }
    let used: Vec<usize> = (0..w.vocab).filter(|&t| occurs[t]).collect();
    if used.is_empty() {
        // No words at all (N = 0 or M = 0): nothing to send.
        return Ok(ClassBigramCode {
            header_bits: 0.0,
            body_bits: 0.0,
            body_per_position_bits: vec![0.0; w.n_words],
            classes: 0,
            used_words: 0,
        });
    }
    if classes == 0 || classes > used.len() || used.iter().any(|&t| of_word[t] >= classes) {
        return Err(KcompError::param(
            "classes",
            format!(
                "{classes} classes for {} occurring words, or an occurring word's class is not \
                 below the class count",
                used.len()
            ),
        ));
    }
    let per_position = body_per_position(w, of_word, classes, &occurs);
    Ok(ClassBigramCode {
        header_bits: header_bits(w.vocab, used.len(), classes),
        body_bits: per_position.iter().sum(),
        body_per_position_bits: per_position,
        classes,
        used_words: used.len(),
    })
}

/// The body's bits per position: the rows in order under the Dirichlet predictive counts, the
/// emission of class c over the words with `stated[t]` in c.
fn body_per_position(w: &TokenData, of_word: &[usize], k: usize, stated: &[bool]) -> Vec<f64> {
    let mut class_size = vec![0.0f64; k];
    for (t, &s) in stated.iter().enumerate() {
        if s {
            class_size[of_word[t]] += 1.0;
        }
    }
    // Context k is START.
    let mut trans = vec![0.0f64; (k + 1) * k];
    let mut trans_total = vec![0.0f64; k + 1];
    let mut emit = vec![0.0f64; w.vocab];
    let mut emit_total = vec![0.0f64; k];
    let mut per_position = vec![0.0f64; w.n_words];
    let kk = k as f64;
    for r in 0..w.n {
        let mut prev = k;
        for (m, &t) in w.row(r).iter().enumerate() {
            let t = t as usize;
            let c = of_word[t];
            let p_class = (trans[prev * k + c] + ALPHA_TRANSITION)
                / (trans_total[prev] + kk * ALPHA_TRANSITION);
            let p_word =
                (emit[t] + BETA_EMISSION) / (emit_total[c] + class_size[c] * BETA_EMISSION);
            per_position[m] -= p_class.log2() + p_word.log2();
            trans[prev * k + c] += 1.0;
            trans_total[prev] += 1.0;
            emit[t] += 1.0;
            emit_total[c] += 1.0;
            prev = c;
        }
    }
    per_position
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::function::gamma::ln_gamma;

    /// Every W of `n` rows x `m` words over `v` words.
    fn every_w(n: usize, m: usize, v: usize) -> Vec<TokenData> {
        let cells = n * m;
        (0..v.pow(cells as u32))
            .map(|mut x| {
                let tokens = (0..cells)
                    .map(|_| {
                        let t = (x % v) as u32;
                        x /= v;
                        t
                    })
                    .collect();
                TokenData::new(n, m, v, tokens).unwrap()
            })
            .collect()
    }

    /// Summed over every header (u words of V, which ones, k classes, every labelling),
    /// 2^-bits is 1.
    #[test]
    fn header_prior_sums_to_one() {
        for v in 1..=6usize {
            let mut sum = 0.0;
            for u in 1..=v {
                let subsets = 2f64.powf(log2_binomial(v, u));
                for k in 1..=u {
                    let labellings = (k as f64).powi(u as i32);
                    sum += subsets * labellings * 2f64.powf(-header_bits(v, u, k));
                }
            }
            assert!((sum - 1.0).abs() < 1e-12, "V = {v}: {sum}");
        }
    }

    /// Given the header, the body sums to 1 over every W of 2 rows x 2 words over 3 words (81
    /// W), for every class assignment of the 3 words.
    #[test]
    fn body_sums_to_one_over_every_w() {
        let all = every_w(2, 2, 3);
        for (of_word, k) in [
            (vec![0, 0, 0], 1),
            (vec![0, 0, 1], 2),
            (vec![1, 0, 1], 2),
            (vec![0, 1, 2], 3),
        ] {
            // The header states all 3 words: every W over them (one that leaves a word out
            // included) is in the body's sum.
            let sum: f64 = all
                .iter()
                .map(|w| 2f64.powf(-body_given_all_used(w, &of_word, k)))
                .sum();
            assert!((sum - 1.0).abs() < 1e-12, "{of_word:?}: {sum}");
        }
    }

    /// The body with every vocabulary word stated as occurring.
    fn body_given_all_used(w: &TokenData, of_word: &[usize], k: usize) -> f64 {
        body_per_position(w, of_word, k, &vec![true; w.vocab])
            .iter()
            .sum()
    }

    /// On a W that uses every word, the module's body is the helper's, and it equals the closed
    /// form: a product of Dirichlet-multinomial marginal likelihoods (transition rows and class
    /// emissions), whatever the order of the rows.
    #[test]
    fn body_is_the_closed_form_marginal_likelihood() {
        let tokens = vec![0, 1, 2, 3, 2, 1, 0, 0, 3, 3, 1, 2, 2, 0, 1, 1];
        let w = TokenData::new(4, 4, 4, tokens.clone()).unwrap();
        let of_word = [0, 1, 1, 0];
        let code = class_bigram_code(&w, &of_word, 2).unwrap();
        assert!((code.body_bits - body_given_all_used(&w, &of_word, 2)).abs() < 1e-9);
        let sum_pos: f64 = code.body_per_position_bits.iter().sum();
        assert!((sum_pos - code.body_bits).abs() < 1e-9);
        // Closed form.
        let k = 2usize;
        let mut trans = vec![0.0; (k + 1) * k];
        let mut emit = [0.0; 4];
        for r in 0..w.n {
            let mut prev = k;
            for &t in w.row(r) {
                let c = of_word[t as usize];
                trans[prev * k + c] += 1.0;
                emit[t as usize] += 1.0;
                prev = c;
            }
        }
        let dm = |counts: &[f64], a: f64| {
            let tot: f64 = counts.iter().sum();
            ln_gamma(a * counts.len() as f64) - ln_gamma(a * counts.len() as f64 + tot)
                + counts
                    .iter()
                    .map(|&n| ln_gamma(a + n) - ln_gamma(a))
                    .sum::<f64>()
        };
        let mut ln_p = 0.0;
        for ctx in 0..=k {
            ln_p += dm(&trans[ctx * k..(ctx + 1) * k], ALPHA_TRANSITION);
        }
        ln_p += dm(&[emit[0], emit[3]], BETA_EMISSION) + dm(&[emit[1], emit[2]], BETA_EMISSION);
        let closed = -ln_p / std::f64::consts::LN_2;
        assert!(
            (code.body_bits - closed).abs() < 1e-9,
            "{} {closed}",
            code.body_bits
        );
        // Rows reversed: the same length.
        let rev: Vec<u32> = (0..4)
            .rev()
            .flat_map(|r| tokens[r * 4..r * 4 + 4].to_vec())
            .collect();
        let w2 = TokenData::new(4, 4, 4, rev).unwrap();
        let c2 = class_bigram_code(&w2, &of_word, 2).unwrap();
        assert!((c2.body_bits - code.body_bits).abs() < 1e-9);
        // Header: log2 4 + log2 C(4, 4) + log2 4 + 4 log2 2 = 2 + 0 + 2 + 4.
        assert!((code.header_bits - 8.0).abs() < 1e-12);
    }

    /// Every W of 2 rows x 2 words over 3 words coded with its best header (every class
    /// assignment of its occurring words tried): the two-part code's Kraft sum is at most 1.
    #[test]
    fn two_part_code_satisfies_kraft() {
        let mut sum = 0.0;
        for w in every_w(2, 2, 3) {
            let mut best = f64::INFINITY;
            for labels in 0..27usize {
                let of_word = [labels % 3, labels / 3 % 3, labels / 9];
                for k in 1..=3 {
                    if let Ok(c) = class_bigram_code(&w, &of_word, k) {
                        best = best.min(c.total_bits());
                    }
                }
            }
            sum += 2f64.powf(-best);
        }
        assert!(sum <= 1.0 && sum > 0.05, "{sum}");
    }

    #[test]
    fn bad_assignments_are_refused() {
        let w = TokenData::new(1, 2, 3, vec![0, 1]).unwrap();
        assert!(class_bigram_code(&w, &[0, 0], 1).is_err());
        assert!(class_bigram_code(&w, &[0, 1, 0], 1).is_err());
        assert!(class_bigram_code(&w, &[0, 0, 0], 3).is_err());
        // An unused word's class is ignored.
        assert!(class_bigram_code(&w, &[0, 0, 7], 1).is_ok());
    }
}
