//! Language systems: objects Z with `n_attr` attributes of `n_vals` values each, described by
//! messages W of `msg_len` tokens over a vocabulary of `vocab` symbols (Elmoznino et al., ICML 2025, Section 4.2).
//!
//! - **Compositional** part: every attribute value has its own word (a string of
//!   `msg_len / n_attr` tokens, drawn at random without repetition within the attribute); a
//!   message is the concatenation of the words of the object's attributes, in a fixed order.
//! - **Holistic fraction** `h`: `round(h * n_objects)` objects, chosen at random, exchange their
//!   messages through a random permutation (a derangement when possible), so that their message
//!   says nothing systematic about them; `h = 1` gives a random bijection objects -> messages.
//!   The language stays unambiguous for every h.
//! - **Synonyms** `s >= 1`: each attribute value has `s` words; every utterance picks one at
//!   random.
//! - **Word order**: `fixed` (attribute 0 first), `permuted` (one random order of the
//!   attributes for the whole language), `free` (a fresh random order per utterance; the
//!   attributes then draw their words from disjoint parts of the word space so that the
//!   message stays decodable).
//!
//! Every object is uttered `repeats` times. Rows are listed object by object.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::rng::shuffle;
use serde::{Deserialize, Serialize};

use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};

/// Word order of the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum WordOrder {
    /// Attribute 0's word first, then attribute 1's, ...
    #[default]
    Fixed,
    /// One random order of the attributes, the same for every message.
    Permuted,
    /// A fresh random order for every utterance.
    Free,
}

/// Parameters of a language system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LanguageSystemConfig {
    /// Attributes per object (A).
    pub n_attr: usize,
    /// Values per attribute (V).
    pub n_vals: usize,
    /// Tokens per message (L, a multiple of A).
    pub msg_len: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// Utterances per object.
    pub repeats: usize,
    /// Fraction of objects with an arbitrary message, in [0, 1].
    pub holistic_fraction: f64,
    /// Words per attribute value (1 = no synonyms).
    pub synonyms: usize,
    /// Word order.
    pub word_order: WordOrder,
    /// Seed of the language (lexicon, holistic objects, synonym choices).
    pub seed: u64,
}

impl Default for LanguageSystemConfig {
    fn default() -> Self {
        LanguageSystemConfig {
            n_attr: 2,
            n_vals: 8,
            msg_len: 2,
            vocab: 8,
            repeats: 50,
            holistic_fraction: 0.0,
            synonyms: 1,
            word_order: WordOrder::Fixed,
            seed: 0,
        }
    }
}

/// A generated language system.
#[derive(Debug, Clone, PartialEq)]
pub struct LanguageSystem {
    /// Messages, one row per utterance.
    pub w: TokenData,
    /// Objects, one row per utterance.
    pub z: Targets,
    /// Indices of the objects whose message is holistic.
    pub holistic_objects: Vec<usize>,
}

impl LanguageSystemConfig {
    /// Number of objects V^A.
    pub fn n_objects(&self) -> Result<usize> {
        let mut n: usize = 1;
        for _ in 0..self.n_attr {
            n = n
                .checked_mul(self.n_vals)
                .filter(|&n| n <= 10_000_000)
                .ok_or_else(|| KcompError::param("n_vals", "too many objects (V^A > 1e7)"))?;
        }
        Ok(n)
    }

    /// Checks every parameter; returns the number of objects V^A.
    pub fn validate(&self) -> Result<usize> {
        if self.n_attr == 0 {
            return Err(KcompError::param("n_attr", "must be >= 1"));
        }
        if self.n_vals < 2 {
            return Err(KcompError::param("n_vals", "must be >= 2"));
        }
        if self.msg_len == 0 || !self.msg_len.is_multiple_of(self.n_attr) {
            return Err(KcompError::param(
                "msg_len",
                format!("must be a positive multiple of n_attr ({})", self.n_attr),
            ));
        }
        if self.vocab < 2 {
            return Err(KcompError::param("vocab", "must be >= 2"));
        }
        if self.repeats == 0 {
            return Err(KcompError::param("repeats", "must be >= 1"));
        }
        if !(0.0..=1.0).contains(&self.holistic_fraction) {
            return Err(KcompError::param("holistic_fraction", "must be in [0, 1]"));
        }
        if self.synonyms == 0 {
            return Err(KcompError::param("synonyms", "must be >= 1"));
        }
        let wl = (self.msg_len / self.n_attr) as u32;
        let space = (self.vocab as f64).powi(wl as i32);
        let per_attr = if self.word_order == WordOrder::Free {
            space / self.n_attr as f64
        } else {
            space
        };
        if per_attr < self.n_vals as f64 * self.synonyms as f64 {
            return Err(KcompError::param(
                "vocab",
                format!(
                    "{} words of {wl} token(s) over {} symbols cannot name {} values x {} synonyms \
                     per attribute",
                    per_attr.floor(),
                    self.vocab,
                    self.n_vals,
                    self.synonyms
                ),
            ));
        }
        if space > 1e9 {
            return Err(KcompError::param("msg_len", "word space too large (> 1e9)"));
        }
        let n_obj = self.n_objects()?;
        let rows = n_obj as f64 * self.repeats as f64;
        crate::datasets::validate::memory(
            "this language system",
            &[
                ("msg_len", space * 8.0),
                (
                    "repeats",
                    rows * ((self.msg_len + self.n_attr) as f64 * 4.0 + 16.0),
                ),
                (
                    "synonyms",
                    (n_obj as f64 + self.n_vals as f64 * self.synonyms as f64)
                        * 8.0
                        * self.n_attr as f64,
                ),
            ],
        )?;
        Ok(n_obj)
    }

    /// Generates the language system.
    pub fn generate(&self) -> Result<LanguageSystem> {
        let n_obj = self.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let (a_n, v_n, s_n) = (self.n_attr, self.n_vals, self.synonyms);
        let wl = self.msg_len / a_n;
        let space = self.vocab.pow(wl as u32);
        // Lexicon: words[a][v][s] = index of a token string in 0..space.
        let mut words = vec![vec![vec![0usize; s_n]; v_n]; a_n];
        let mut pool: Vec<usize> = (0..space).collect();
        shuffle(&mut pool, &mut rng);
        let per_attr = space / a_n;
        for (a, wa) in words.iter_mut().enumerate() {
            let mut own: Vec<usize> = if self.word_order == WordOrder::Free {
                pool[a * per_attr..(a + 1) * per_attr].to_vec()
            } else {
                let mut p: Vec<usize> = (0..space).collect();
                shuffle(&mut p, &mut rng);
                p
            };
            own.truncate(v_n * s_n);
            for (v, wv) in wa.iter_mut().enumerate() {
                wv.copy_from_slice(&own[v * s_n..(v + 1) * s_n]);
            }
        }
        let mut attr_order: Vec<usize> = (0..a_n).collect();
        if self.word_order == WordOrder::Permuted {
            shuffle(&mut attr_order, &mut rng);
        }
        // Holistic objects exchange their message forms.
        let n_hol = (self.holistic_fraction * n_obj as f64).round() as usize;
        let mut objs: Vec<usize> = (0..n_obj).collect();
        shuffle(&mut objs, &mut rng);
        let mut hol: Vec<usize> = objs[..n_hol].to_vec();
        hol.sort_unstable();
        let mut form: Vec<usize> = (0..n_obj).collect();
        if n_hol >= 2 {
            let mut perm = hol.clone();
            // Rejection-sample a derangement (expected e tries); fall back to any permutation.
            for _ in 0..100 {
                shuffle(&mut perm, &mut rng);
                if perm.iter().zip(&hol).all(|(p, h)| p != h) {
                    break;
                }
            }
            for (h, p) in hol.iter().zip(&perm) {
                form[*h] = *p;
            }
        }
        let attrs_of = |o: usize| -> Vec<usize> {
            let mut vals = vec![0; a_n];
            let mut r = o;
            for a in (0..a_n).rev() {
                vals[a] = r % v_n;
                r /= v_n;
            }
            vals
        };
        let n = n_obj * self.repeats;
        let mut tokens = Vec::with_capacity(n * self.msg_len);
        let mut values = Vec::with_capacity(n * a_n);
        let mut order = attr_order.clone();
        for (o, &f) in form.iter().enumerate() {
            let z_vals = attrs_of(o);
            let f_vals = attrs_of(f);
            for _ in 0..self.repeats {
                values.extend(z_vals.iter().map(|&v| v as u32));
                if self.word_order == WordOrder::Free {
                    shuffle(&mut order, &mut rng);
                }
                for &a in &order {
                    let s = if s_n > 1 { rng.random_range(0..s_n) } else { 0 };
                    let mut word = words[a][f_vals[a]][s];
                    for _ in 0..wl {
                        tokens.push((word % self.vocab) as u32);
                        word /= self.vocab;
                    }
                }
            }
        }
        Ok(LanguageSystem {
            w: TokenData::new(n, self.msg_len, self.vocab, tokens)?,
            z: Targets::discrete(a_n, v_n, values)?,
            holistic_objects: hol,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn messages(ls: &LanguageSystem) -> HashMap<Vec<u32>, Vec<u32>> {
        let mut m = HashMap::new();
        let Targets::Discrete { n_attr, values, .. } = &ls.z else {
            unreachable!()
        };
        for i in 0..ls.w.n {
            m.insert(
                ls.w.row(i).to_vec(),
                values[i * n_attr..(i + 1) * n_attr].to_vec(),
            );
        }
        m
    }

    #[test]
    fn compositional_is_positional_and_unambiguous() {
        let ls = LanguageSystemConfig::default().generate().unwrap();
        assert_eq!(ls.w.n, 3200);
        let m = messages(&ls);
        assert_eq!(m.len(), 64);
        // Word at position 0 depends only on attribute 0.
        let mut w0: HashMap<u32, HashSet<u32>> = HashMap::new();
        for (msg, z) in &m {
            w0.entry(msg[0]).or_default().insert(z[0]);
        }
        assert!(w0.values().all(|s| s.len() == 1));
    }

    #[test]
    fn holistic_fraction_counts_and_bijection() {
        for h in [0.25, 1.0] {
            let cfg = LanguageSystemConfig {
                holistic_fraction: h,
                ..Default::default()
            };
            let ls = cfg.generate().unwrap();
            assert_eq!(ls.holistic_objects.len(), (h * 64.0) as usize);
            assert_eq!(messages(&ls).len(), 64, "still a bijection");
        }
    }

    #[test]
    fn synonyms_and_free_order() {
        let cfg = LanguageSystemConfig {
            vocab: 40,
            synonyms: 2,
            word_order: WordOrder::Free,
            ..Default::default()
        };
        let ls = cfg.generate().unwrap();
        let m = messages(&ls);
        assert!(m.len() > 64);
        let bad = LanguageSystemConfig {
            synonyms: 2,
            ..Default::default()
        };
        assert!(bad.generate().is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Exact K(Z|W) of a language system and its panel dataset.
//
// The language's own decoder W -> Z, as a program whose random parts are charged under uniform
// codes (the family's parameters A, V, L, vocab, s, word-order kind and h are given, as the
// lookup-table terms take D, K and M as given). With S = vocab^(L/A) word forms, O = V^A objects
// and n_h holistic objects, in bits:
//
// - lexicon, fixed or permuted order: each attribute names its V values with disjoint sets of s
//   words out of S (the slot tells the attribute): A log2(S! / ((S - V s)! (s!)^V));
// - lexicon, free order: one map word -> (attribute, value), injective over all A V s words
//   (that is what lets the decoder read a word anywhere): log2(S! / ((S - A V s)! (s!)^(A V)));
//   synonyms cost only through their sets: which synonym an utterance uses is W's business;
// - word order: log2(A!) for the one permutation of a permuted language, 0 for fixed and free;
// - holistic exceptions: which objects are holistic and which object each of their messages
//   now names, an injective map of n_h objects into O: log2(O! / (O - n_h)!) =
//   log2 C(O, n_h) + log2 n_h!. The generator draws a derangement; we charge any permutation
//   (valid even for its fallback; at most log2 e = 1.44 bits more). With n_h < 2 nothing is
//   exchanged and nothing is charged.
//
// K(Z|W) is their sum (repeats cost nothing: each row's z is decoded from its w). Near h = 1 a
// bare table message -> object (log2 (S^A)! / (S^A - O)!) can be shorter than lexicon plus
// exceptions; the exact term stays the language's own program.
// K(Z) = N log2(V^A): uniform over the objects (Elmoznino et al.'s convention).
// ---------------------------------------------------------------------------------------------

/// log2(n! / (n - k)!), the falling factorial, exact summation for moderate k.
fn log2_falling(n: f64, k: usize) -> f64 {
    if k > 100_000 {
        use statrs::function::gamma::ln_gamma;
        return (ln_gamma(n + 1.0) - ln_gamma(n - k as f64 + 1.0)) / std::f64::consts::LN_2;
    }
    (0..k).map(|i| (n - i as f64).log2()).sum()
}

fn log2_factorial(k: usize) -> f64 {
    log2_falling(k as f64, k)
}

impl LanguageSystemConfig {
    /// Exact terms of the language's decoder (see the derivation above) for `n_holistic`
    /// holistic objects and `samples` rows; parts `lexicon`, `word_order`,
    /// `holistic_exceptions`.
    pub fn exact_terms(&self, n_holistic: usize, samples: usize) -> Result<ExactTerms> {
        let n_obj = self.validate()?;
        let (a, v, s) = (self.n_attr, self.n_vals, self.synonyms);
        let space = (self.vocab as f64).powi((self.msg_len / a) as i32);
        let lexicon = match self.word_order {
            WordOrder::Free => log2_falling(space, a * v * s) - (a * v) as f64 * log2_factorial(s),
            _ => a as f64 * (log2_falling(space, v * s) - v as f64 * log2_factorial(s)),
        };
        let order = match self.word_order {
            WordOrder::Permuted => log2_factorial(a),
            _ => 0.0,
        };
        let exceptions = if n_holistic >= 2 {
            log2_falling(n_obj as f64, n_holistic)
        } else {
            0.0
        };
        let k_z = samples as f64 * (n_obj as f64).log2();
        Ok(exact_terms_from_parts(
            k_z,
            &[
                ("lexicon", lexicon),
                ("word_order", order),
                ("holistic_exceptions", exceptions),
            ],
        ))
    }

    /// Generates the language system as a panel [`Dataset`] (family `language`).
    pub fn dataset(&self) -> Result<Dataset> {
        self.generate()?.to_dataset(self)
    }
}

impl LanguageSystem {
    /// The panel [`Dataset`] of a system generated from `config`: provenance (family
    /// `language`), K(Z) = N log2(V^A) (uniform over objects) and the exact terms.
    pub fn to_dataset(&self, config: &LanguageSystemConfig) -> Result<Dataset> {
        let exact = config.exact_terms(self.holistic_objects.len(), self.w.n)?;
        let k_z = KzReference {
            bits: exact.k_z_bits,
            method: KzMethod::Uniform,
        };
        Dataset::new(
            self.w.clone(),
            self.z.clone(),
            Provenance::generated("language", config, config.seed),
            k_z,
            Some(exact),
        )
    }
}

use crate::dataset::exact::exact_terms_from_parts;
use crate::dataset::{Dataset, ExactTerms, KzMethod, KzReference, Provenance};

#[cfg(test)]
mod exact_tests {
    use super::*;

    fn log2_fact(n: u32) -> f64 {
        (1..=n).map(|i| f64::from(i).log2()).sum()
    }

    #[test]
    fn compositional_lexicon_is_a_bijection_per_attribute() {
        // A = 2, V = 8, L = 2, vocab 8, h = 0: each attribute's lexicon is a bijection of the
        // 8 values onto the 8 words, log2 8! = 15.2992 bits; K(Z|W) = 2 log2 8! = 30.5984.
        let cfg = LanguageSystemConfig::default();
        let d = cfg.dataset().unwrap();
        let e = d.exact.as_ref().unwrap();
        assert!((e.k_z_given_w_bits - 2.0 * log2_fact(8)).abs() < 1e-9);
        assert!((e.k_z_given_w_bits - 30.598_410).abs() < 1e-5);
        assert_eq!(e.parts["holistic_exceptions"], 0.0);
        // K(Z) = 3200 x log2 64 = 19200 bits; exact C ~ 627.5.
        assert_eq!(d.k_z.bits, 19200.0);
        assert_eq!(d.k_z.method, KzMethod::Uniform);
        assert!((d.k_z.bits / e.k_z_given_w_bits - 627.483).abs() < 1e-3);
        assert_eq!(d.provenance.family, "language");
        assert_eq!(d.provenance.params["n_vals"], 8);
        // The lexicon is what the data shows: 8 distinct words per slot.
        for slot in 0..2 {
            let words: std::collections::HashSet<u32> =
                (0..d.n()).map(|i| d.w.row(i)[slot]).collect();
            assert_eq!(words.len(), 8);
        }
    }

    #[test]
    fn order_synonyms_and_holistic_closed_forms() {
        // Permuted, A = 3, V = 4, L = 3, vocab 5: 3 log2(5!/1!) + log2 3!.
        let cfg = LanguageSystemConfig {
            n_attr: 3,
            n_vals: 4,
            msg_len: 3,
            vocab: 5,
            repeats: 2,
            word_order: WordOrder::Permuted,
            ..Default::default()
        };
        let e = cfg.exact_terms(0, 128).unwrap();
        let want = 3.0 * log2_fact(5) + 6f64.log2();
        assert!((e.k_z_given_w_bits - want).abs() < 1e-9);
        assert!((e.k_z_bits - 128.0 * 6.0).abs() < 1e-9);
        // Free order with 2 synonyms over 40 words: one injective map of 32 words in sets of 2:
        // log2(40! / 8!) - 16 log2 2!.
        let free = LanguageSystemConfig {
            vocab: 40,
            synonyms: 2,
            word_order: WordOrder::Free,
            ..Default::default()
        };
        let e = free.exact_terms(0, 3200).unwrap();
        let want = log2_fact(40) - log2_fact(8) - 16.0;
        assert!((e.k_z_given_w_bits - want).abs() < 1e-9);
        // h = 0.25 of 64 objects: 16 holistic, log2(64!/48!) on top of the lexicon.
        let hol = LanguageSystemConfig {
            holistic_fraction: 0.25,
            ..Default::default()
        };
        let d = hol.dataset().unwrap();
        let e = d.exact.unwrap();
        let want_exc = log2_fact(64) - log2_fact(48);
        assert!((e.parts["holistic_exceptions"] - want_exc).abs() < 1e-9);
        assert!((e.k_z_given_w_bits - 2.0 * log2_fact(8) - want_exc).abs() < 1e-9);
        // A single holistic object keeps its own message: nothing to charge.
        assert_eq!(
            cfg.exact_terms(1, 128).unwrap().parts["holistic_exceptions"],
            0.0
        );
    }

    #[test]
    fn falling_factorial_paths_agree() {
        let exact: f64 = (0..200_000).map(|i| (1e9 - i as f64).log2()).sum();
        assert!((log2_falling(1e9, 200_000) - exact).abs() < 1e-3 * 1.0);
        assert!((log2_factorial(10) - 3_628_800f64.log2()).abs() < 1e-12);
    }
}
