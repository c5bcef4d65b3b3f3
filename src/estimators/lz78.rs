//! Lempel-Ziv 1978 complexity of W (Ziv & Lempel, "Compression of individual sequences via
//! variable-rate coding", IEEE Trans. Inf. Theory 24(5), 1978): the number of phrases of the
//! incremental parsing, where each new phrase is the longest phrase already in the dictionary
//! plus one symbol, and joins the dictionary. W is serialised as the concatenation of its rows
//! (tokens as symbols), as for [`super::lz76`].
//!
//! LZ76 and LZ78 are different parsings and give different counts on the same sequence: on
//! `1001111011000010`, Kaspar and Schuster's LZ76 has 6 phrases (1.0.01.1110.1100.0010), the
//! LZ78 dictionary 8 (1.0.01.11.10.110.00.010). Packages in the field call both "Lempel-Ziv
//! complexity" (docs/estimators.md lists which computes which); kcomp names each by its
//! variant.
//!
//! Final phrase: a trailing piece that is already in the dictionary adds no entry and is not
//! counted (as the `lempel_ziv_complexity` package counts); native `code_bits`, the length of
//! the LZ78 code of W (each phrase a pointer among the entries so far, `ceil(log2 i)` bits for
//! the i-th, plus a symbol, `log2 b` bits), does send it.

use std::collections::HashMap;

use crate::dataset::Dataset;
use crate::error::{KcompError, Result};
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// The LZ78 parsing of a sequence: complete phrases (dictionary entries) and whether a
/// trailing piece already in the dictionary is left over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lz78Parse {
    pub phrases: usize,
    pub trailing: bool,
}

/// Parses `s` incrementally (a trie keyed by (node, symbol); node 0 is the empty phrase).
pub fn lz78_parse<T: std::hash::Hash + Eq + Copy>(s: &[T]) -> Lz78Parse {
    let mut trie: HashMap<(usize, T), usize> = HashMap::new();
    let mut node = 0usize;
    let mut phrases = 0usize;
    for &x in s {
        match trie.get(&(node, x)) {
            Some(&next) => node = next,
            None => {
                phrases += 1;
                trie.insert((node, x), phrases);
                node = 0;
            }
        }
    }
    Lz78Parse {
        phrases,
        trailing: node != 0,
    }
}

/// LZ78 phrase count of `s` (0 for the empty sequence).
pub fn lz78_complexity<T: std::hash::Hash + Eq + Copy>(s: &[T]) -> usize {
    lz78_parse(s).phrases
}

/// Bits of the LZ78 code of a parse over an alphabet of `b` symbols: phrase i (from 1) sends
/// a dictionary pointer among i entries (the empty phrase included), ceil(log2 i) bits, and
/// one symbol, log2 b bits; a trailing piece sends a pointer only.
pub fn lz78_code_bits(parse: Lz78Parse, b: usize) -> f64 {
    let sym = (b.max(1) as f64).log2();
    let pointer = |i: usize| (i as f64).log2().ceil();
    let mut bits: f64 = (1..=parse.phrases).map(|i| pointer(i) + sym).sum();
    if parse.trailing {
        bits += pointer(parse.phrases + 1);
    }
    bits
}

/// LZ78 complexity of the serialised messages, as a panel score.
#[derive(Debug, Clone, Default)]
pub struct Lz78Estimator;

impl Estimator for Lz78Estimator {
    fn name(&self) -> &str {
        "lz78"
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let s = &data.w.tokens;
        if s.is_empty() {
            return Err(KcompError::param("w", "LZ78 needs a non-empty W"));
        }
        let parse = lz78_parse(s);
        let distinct = s.iter().collect::<std::collections::BTreeSet<_>>().len();
        let n = s.len() as f64;
        let c = parse.phrases as f64;
        // c log_b(c) / n: about 1 for a random sequence over b symbols, long enough.
        let normalised = if distinct > 1 && c > 1.0 {
            c * c.ln() / (distinct as f64).ln() / n
        } else {
            c / n
        };
        Ok(Estimate::score(c)
            .with("normalised", normalised)
            .with("code_bits", lz78_code_bits(parse, distinct))
            .with("trailing_phrase", parse.trailing)
            .with("length", s.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lz(s: &str) -> usize {
        lz78_complexity(s.as_bytes())
    }

    #[test]
    fn the_two_parsings_differ_on_the_classic_example() {
        // LZ78: 1.0.01.11.10.110.00.010 = 8 phrases; LZ76 (Kaspar-Schuster) gives 6.
        assert_eq!(lz("1001111011000010"), 8);
        assert_eq!(
            crate::estimators::lz76::lz76_complexity("1001111011000010".as_bytes()),
            6
        );
        assert_eq!(lz(""), 0);
        assert_eq!(lz("0"), 1);
        // 0.00.000.0000: 4 phrases for 10 zeros.
        assert_eq!(lz("0000000000"), 4);
        // 1.0.10.101.01.010.1010: 7 phrases, nothing left over.
        assert_eq!(lz("1010101010101010"), 7);
        // 0.00 and a trailing "00" already in the dictionary.
        let p = lz78_parse("00000".as_bytes());
        assert_eq!(
            p,
            Lz78Parse {
                phrases: 2,
                trailing: true
            }
        );
        assert_eq!(lz("abcdef"), 6);
    }

    #[test]
    fn code_length_closed_form() {
        // 8 binary phrases: pointers ceil(log2 i) = 0,1,2,2,3,3,3,3 = 17, symbols 8 x 1.
        let p = lz78_parse("1001111011000010".as_bytes());
        assert!(!p.trailing);
        assert_eq!(lz78_code_bits(p, 2), 25.0);
        // A trailing piece costs a pointer among phrases + 1 entries: (0 + 1) + 2 x 1 + 2.
        let p = lz78_parse("00000".as_bytes());
        assert_eq!(lz78_code_bits(p, 2), 5.0);
    }
}
