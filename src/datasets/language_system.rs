//! Language systems: objects Z with `n_attr` attributes of `n_vals` values each, described by
//! messages W of `msg_len` tokens over a vocabulary of `vocab` symbols (seed 004, Section 4.2).
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

fn shuffle<T>(v: &mut [T], rng: &mut ChaCha8Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
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

    fn validate(&self) -> Result<usize> {
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
