//! Lempel-Ziv 1976 complexity of W (Lempel & Ziv 1976), with the Kaspar & Schuster 1987
//! algorithm: the number of phrases in the exhaustive parsing of a sequence, where each new
//! phrase is the shortest string not reproducible from what came before. W is serialised as
//! the concatenation of its rows (tokens as symbols), so the score depends on the row order.
//! Native field `normalised`: c log_b(n) / n with b the number of distinct symbols (about 1 for
//! random sequences; Kaspar & Schuster's normalisation).
//!
//! Final phrase: when the sequence ends inside a phrase that is a copy of earlier text, that
//! last, incomplete phrase is counted (Kaspar & Schuster's rule, `c += 1` at the end). Some
//! implementations (the `lzcomplexity` package) do not count it, so their value can be one
//! less on the same sequence.

use crate::dataset::Dataset;
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// LZ76 complexity of `s` (0 for the empty sequence).
pub fn lz76_complexity<T: PartialEq>(s: &[T]) -> usize {
    let n = s.len();
    if n < 2 {
        return n;
    }
    // i: start of the candidate copy source, l: start of the current phrase (length k so far),
    // k_max: longest match found for this phrase.
    let (mut i, mut k, mut l, mut k_max, mut c) = (0usize, 1usize, 1usize, 1usize, 1usize);
    loop {
        if s[i + k - 1] == s[l + k - 1] {
            k += 1;
            if l + k > n {
                c += 1;
                break;
            }
        } else {
            k_max = k_max.max(k);
            i += 1;
            if i == l {
                c += 1;
                l += k_max;
                if l + 1 > n {
                    break;
                }
                i = 0;
                k = 1;
                k_max = 1;
            } else {
                k = 1;
            }
        }
    }
    c
}

/// LZ76 complexity of the serialised messages, as a panel score.
#[derive(Debug, Clone, Default)]
pub struct Lz76Estimator;

impl Estimator for Lz76Estimator {
    fn name(&self) -> &str {
        "lz76"
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let s = &data.w.tokens;
        if s.is_empty() {
            return Err(KcompError::param("w", "LZ76 needs a non-empty W"));
        }
        let c = lz76_complexity(s);
        let distinct = s.iter().collect::<std::collections::BTreeSet<_>>().len();
        let n = s.len() as f64;
        let normalised = if distinct > 1 {
            c as f64 * n.ln() / (distinct as f64).ln() / n
        } else {
            c as f64 / n
        };
        Ok(Estimate::score(c as f64)
            .with("normalised", normalised)
            .with("length", s.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lz(s: &str) -> usize {
        lz76_complexity(s.as_bytes())
    }

    #[test]
    fn kaspar_schuster_example_and_closed_forms() {
        // Kaspar & Schuster 1987: 1.0.01.1110.1100.0010 has 6 phrases.
        assert_eq!(lz("1001111011000010"), 6);
        // A constant sequence: the first symbol, then one copy phrase.
        assert_eq!(lz("0000000000"), 2);
        assert_eq!(lz("0"), 1);
        assert_eq!(lz(""), 0);
        // Periodic 01 repeated: 0.1.0101... = 3.
        assert_eq!(lz("0101010101"), 3);
        // All distinct symbols: every symbol a new phrase.
        assert_eq!(lz("abcdef"), 6);
    }

    fn score(tokens: Vec<u32>, vocab: usize) -> (f64, f64) {
        use crate::dataset::{KzMethod, KzReference, Provenance, Targets, TokenData};
        let n = tokens.len() / 2;
        let w = TokenData::new(n, 2, vocab, tokens).unwrap();
        let z = Targets::discrete(1, n, (0..n as u32).collect()).unwrap();
        let kz = KzReference {
            bits: 1.0,
            method: KzMethod::Uniform,
        };
        let d = Dataset::new(w, z, Provenance::default(), kz, None).unwrap();
        let e = Lz76Estimator.estimate(&d, &Progress::hidden()).unwrap();
        match e.measure {
            crate::estimators::interface::Measure::Score { score } => {
                (score, e.native["normalised"].as_f64().unwrap())
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn bijective_constant_and_permuted_languages() {
        // Bijective 2 x 2 language "0 2 | 0 3 | 1 2 | 1 3": 0.2.03.1.21.3 = 6 phrases,
        // normalised 6 log4(8) / 8 = 1.125.
        let (c, normalised) = score(vec![0, 2, 0, 3, 1, 2, 1, 3], 4);
        assert_eq!(c, 6.0);
        assert!((normalised - 1.125).abs() < 1e-12, "{normalised}");
        // Constant language: 2 phrases whatever its length; normalised 2 / n.
        assert_eq!(score(vec![5; 8], 6), (2.0, 0.25));
        // Permuting the rows changes the score (LZ76 reads W as one sequence):
        // "0 2 | 0 3 | 1 3 | 1 2" parses as 0.2.03.1.312 = 5 phrases.
        assert_eq!(score(vec![0, 2, 0, 3, 1, 3, 1, 2], 4).0, 5.0);
    }
}
