//! The test languages ("protocols") of Korbak et al. 2020, "Measuring non-trivial
//! compositionality in emergent communication" (`protocols.py` of
//! tomekkorbak/measuring-non-trivial-compositionality), sized by the number of colours C and
//! shapes S and seeded (ChaCha8). Objects are (colour, shape) pairs; letters are token ids
//! `0..L` with L = C + S unless said otherwise.
//!
//! - `trivially-compositional`: a shuffled alphabet; colours take its first C letters, shapes
//!   the other S; message = colour letter, shape letter.
//! - `non-trivially-compositional`: a shuffled alphabet `a`; object (i, j) says
//!   `a[(i - j) mod L] a[(i + j) mod L]` (EGG's compositional_efficiency example). The map is
//!   injective: equal messages need 2(i - i') = 0 mod L and i - i' = j - j' mod L, so
//!   |i - i'| = |j - j'| = L/2, impossible with C + S = L.
//! - `holistic`: the L^2 two-letter names shuffled; object k takes the k-th.
//! - `random`: every object draws two letters uniformly (names may collide). The reference
//!   keys these objects (shape, colour), the other protocols (colour, shape); we use
//!   (colour, shape) throughout.
//! - `order-sensitive`: one alphabet of C letters (needs S <= C), shuffled once for the colours
//!   and again for the shapes: the same letter means a colour first and a shape second.
//! - `negation`: the reference fixes 11 colours x {box, circle} with messages `cx__` (c box) and
//!   `c!x_` (c "not box"). Generalised: shapes are paired (2k, 2k + 1) and pair k has one letter
//!   y_k; shape 2k says `c y_k _ _`, shape 2k + 1 says `c ! y_k _` (an odd last shape is plain).
//!   Tokens: C colour letters, ceil(S/2) shape letters, then `!`, then `_`. S = 2 is the
//!   reference's protocol (with shuffled colour letters: the reference's are a, b, c, ...).
//! - `context-sensitive`: the trivially compositional lexicon said in a context: `colour`
//!   (`c _`), `shape` (`s _`) or `both` (`c s`), `_` being token L. The reference's meanings are
//!   (context, (colour, shape)), so Z has a third attribute, the context (0 colour, 1 shape,
//!   2 both), and 3 C S objects.
//!
//! Every object is said `repeats` times and the rows are shuffled with the seed, so that row
//! order carries no information about Z.
//!
//! # Exact K(Z|W)
//!
//! The decoder W -> Z that the generator's own program implies, given the kind, C, S and
//! `repeats` (as the language-system terms take their parameters as given). W is given, so the
//! decoder can list which letters occur where; only what the generator drew and W does not show
//! is charged, under uniform codes, in bits:
//!
//! - trivially compositional: letters at position 0 are the colour letters, at position 1 the
//!   shape letters; two per-attribute bijections, log2 C! + log2 S!;
//! - non-trivially compositional: W shows the L letters but not their order in the alphabet:
//!   one permutation, log2 L! (the generator's draw; the decoder then solves i - j and i + j);
//! - holistic: which of the C S distinct messages names which object, a permutation of the
//!   objects, log2 (C S)!;
//! - random: each distinct message m names a set of k_m objects; which objects (a labelled
//!   partition of the objects with the class sizes W shows), log2(O! / prod k_m!), then each
//!   row's object among the k_m candidates, log2 k_m per row (uniform code);
//! - order-sensitive: as trivially compositional, log2 C! + log2 S! (W shows the C letters at
//!   position 0 and the S letters at position 1);
//! - negation: the colour bijection log2 C! and which shape letter names which pair,
//!   log2 ceil(S/2)! (plain = even shape is the fixed program);
//! - context-sensitive: the lexicon log2 C! + log2 S! (the `both` messages show which letters
//!   are colours and which shapes), the context from the message's form (free), and the
//!   attribute a message leaves unsaid under a uniform code: log2 S per `colour` row and
//!   log2 C per `shape` row.
//!
//! K(Z) = N log2 O, uniform over the O objects (O = C S, or 3 C S for context-sensitive).

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::rng::shuffle;
use serde::{Deserialize, Serialize};

use crate::dataset::exact::exact_terms_from_parts;
use crate::dataset::{Dataset, ExactTerms, KzMethod, KzReference, Provenance, Targets, TokenData};
use crate::error::{KcompError, Result};

/// The seven protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ProtocolKind {
    TriviallyCompositional,
    NonTriviallyCompositional,
    Holistic,
    Random,
    OrderSensitive,
    Negation,
    ContextSensitive,
}

impl ProtocolKind {
    /// Every kind, in the paper's order.
    pub const ALL: [ProtocolKind; 7] = [
        ProtocolKind::TriviallyCompositional,
        ProtocolKind::NonTriviallyCompositional,
        ProtocolKind::Holistic,
        ProtocolKind::Random,
        ProtocolKind::OrderSensitive,
        ProtocolKind::Negation,
        ProtocolKind::ContextSensitive,
    ];
}

/// Parameters of a protocol dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct ProtocolParams {
    /// Which protocol.
    #[arg(long, value_enum)]
    pub kind: ProtocolKind,
    /// Number of colours C (at least 2).
    #[serde(default = "default_size")]
    #[arg(long, default_value_t = default_size())]
    pub colours: usize,
    /// Number of shapes S (at least 2).
    #[serde(default = "default_size")]
    #[arg(long, default_value_t = default_size())]
    pub shapes: usize,
    /// Utterances per object.
    #[serde(default = "default_repeats")]
    #[arg(long, default_value_t = default_repeats())]
    pub repeats: usize,
    /// Seed of the lexicon draws and of the row order.
    #[serde(default)]
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

fn default_size() -> usize {
    5
}

fn default_repeats() -> usize {
    1
}

/// A generated protocol: W, Z and the exact terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Protocol {
    pub w: TokenData,
    pub z: Targets,
    pub exact: ExactTerms,
}

fn log2_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).log2()).sum()
}

impl ProtocolParams {
    /// The memory a run takes, in bytes (`f64`: absurd sizes cannot overflow): per object
    /// (up to 3 per colour x shape, context-sensitive) its message and meaning while generated
    /// (measured ~140 B, 160 counted), per row (objects x repeats) the shuffled W and Z, their
    /// i64 copies and CSV text for `--out` (measured ~60 B, 200 counted).
    pub fn memory_terms(&self) -> Vec<(&'static str, f64)> {
        let objects = self.colours as f64 * self.shapes as f64 * 3.0;
        let rows = objects * self.repeats as f64;
        vec![
            ("colours x shapes", objects * 160.0),
            ("repeats", rows * 200.0),
        ]
    }

    /// Checks the sizes.
    pub fn validate(&self) -> Result<()> {
        if !(2..=1000).contains(&self.colours) {
            return Err(KcompError::param("colours", "must be in 2..=1000"));
        }
        if !(2..=1000).contains(&self.shapes) {
            return Err(KcompError::param("shapes", "must be in 2..=1000"));
        }
        if self.repeats == 0 || self.repeats > 10_000 {
            return Err(KcompError::param("repeats", "must be in 1..=10000"));
        }
        crate::datasets::validate::memory("this protocol", &self.memory_terms())?;
        if self.kind == ProtocolKind::OrderSensitive && self.shapes > self.colours {
            return Err(KcompError::param(
                "shapes",
                "order-sensitive needs shapes <= colours (one alphabet of C letters)",
            ));
        }
        Ok(())
    }

    /// Generates the protocol.
    pub fn generate(&self) -> Result<Protocol> {
        self.validate()?;
        let (c, s) = (self.colours, self.shapes);
        let l = c + s;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        // One message per object; objects are (colour, shape[, context]).
        let mut objects: Vec<Vec<u32>> = Vec::new();
        let mut messages: Vec<Vec<u32>> = Vec::new();
        let mut vocab = l;
        let grid = || (0..c).flat_map(move |i| (0..s).map(move |j| (i, j)));
        let mut alphabet: Vec<u32> = (0..l as u32).collect();
        let mut parts: Vec<(&str, f64)> = Vec::new();
        match self.kind {
            ProtocolKind::TriviallyCompositional | ProtocolKind::ContextSensitive => {
                shuffle(&mut alphabet, &mut rng);
                let pad = l as u32;
                for (i, j) in grid() {
                    let (cl, sl) = (alphabet[i], alphabet[c + j]);
                    if self.kind == ProtocolKind::TriviallyCompositional {
                        objects.push(vec![i as u32, j as u32]);
                        messages.push(vec![cl, sl]);
                    } else {
                        for (ctx, m) in [[cl, pad], [sl, pad], [cl, sl]].into_iter().enumerate() {
                            objects.push(vec![i as u32, j as u32, ctx as u32]);
                            messages.push(m.to_vec());
                        }
                    }
                }
                parts.push(("colour_lexicon", log2_factorial(c)));
                parts.push(("shape_lexicon", log2_factorial(s)));
                if self.kind == ProtocolKind::ContextSensitive {
                    vocab = l + 1;
                    let r = (c * s * self.repeats) as f64;
                    parts.push((
                        "unsaid_attribute",
                        r * ((s as f64).log2() + (c as f64).log2()),
                    ));
                }
            }
            ProtocolKind::NonTriviallyCompositional => {
                shuffle(&mut alphabet, &mut rng);
                for (i, j) in grid() {
                    objects.push(vec![i as u32, j as u32]);
                    let first = (i + l - j) % l;
                    messages.push(vec![alphabet[first], alphabet[(i + j) % l]]);
                }
                parts.push(("alphabet_order", log2_factorial(l)));
            }
            ProtocolKind::Holistic => {
                let mut names: Vec<u32> = (0..(l * l) as u32).collect();
                shuffle(&mut names, &mut rng);
                for (k, (i, j)) in grid().enumerate() {
                    objects.push(vec![i as u32, j as u32]);
                    messages.push(vec![names[k] / l as u32, names[k] % l as u32]);
                }
                parts.push(("object_permutation", log2_factorial(c * s)));
            }
            ProtocolKind::Random => {
                for (i, j) in grid() {
                    objects.push(vec![i as u32, j as u32]);
                    let a = rng.random_range(0..l as u32);
                    let b = rng.random_range(0..l as u32);
                    messages.push(vec![a, b]);
                }
                let mut classes: BTreeMap<&[u32], usize> = BTreeMap::new();
                for m in &messages {
                    *classes.entry(m.as_slice()).or_default() += 1;
                }
                let partition = log2_factorial(c * s)
                    - classes.values().map(|&k| log2_factorial(k)).sum::<f64>();
                let per_row: f64 = classes
                    .values()
                    .map(|&k| (k * self.repeats) as f64 * (k as f64).log2())
                    .sum();
                parts.push(("message_classes", partition));
                parts.push(("ambiguity", per_row));
            }
            ProtocolKind::OrderSensitive => {
                let mut colour_names: Vec<u32> = (0..c as u32).collect();
                shuffle(&mut colour_names, &mut rng);
                let mut shape_names = colour_names.clone();
                shuffle(&mut shape_names, &mut rng);
                vocab = c;
                for (i, j) in grid() {
                    objects.push(vec![i as u32, j as u32]);
                    messages.push(vec![colour_names[i], shape_names[j]]);
                }
                parts.push(("colour_lexicon", log2_factorial(c)));
                parts.push(("shape_lexicon", log2_factorial(s)));
            }
            ProtocolKind::Negation => {
                let pairs = s.div_ceil(2);
                let mut colour_names: Vec<u32> = (0..c as u32).collect();
                shuffle(&mut colour_names, &mut rng);
                let mut pair_names: Vec<u32> = (c as u32..(c + pairs) as u32).collect();
                shuffle(&mut pair_names, &mut rng);
                let (not, pad) = ((c + pairs) as u32, (c + pairs + 1) as u32);
                vocab = c + pairs + 2;
                for (i, j) in grid() {
                    objects.push(vec![i as u32, j as u32]);
                    let (cl, y) = (colour_names[i], pair_names[j / 2]);
                    messages.push(if j % 2 == 0 {
                        vec![cl, y, pad, pad]
                    } else {
                        vec![cl, not, y, pad]
                    });
                }
                parts.push(("colour_lexicon", log2_factorial(c)));
                parts.push(("shape_pair_lexicon", log2_factorial(pairs)));
            }
        }
        let n_obj = objects.len();
        let n_attr = objects[0].len();
        let n_vals = c.max(s).max(if n_attr == 3 { 3 } else { 2 });
        let mut rows: Vec<usize> = (0..n_obj)
            .flat_map(|o| std::iter::repeat_n(o, self.repeats))
            .collect();
        shuffle(&mut rows, &mut rng);
        let width = messages[0].len();
        let tokens = rows.iter().flat_map(|&o| messages[o].clone()).collect();
        let values = rows.iter().flat_map(|&o| objects[o].clone()).collect();
        let n = rows.len();
        let k_z = n as f64 * (n_obj as f64).log2();
        Ok(Protocol {
            w: TokenData::new(n, width, vocab, tokens)?,
            z: Targets::discrete(n_attr, n_vals, values)?,
            exact: exact_terms_from_parts(k_z, &parts),
        })
    }

    /// The protocol as a panel [`Dataset`] (family `protocol`, K(Z) uniform over objects).
    pub fn dataset(&self) -> Result<Dataset> {
        let p = self.generate()?;
        let k_z = KzReference {
            bits: p.exact.k_z_bits,
            method: KzMethod::Uniform,
        };
        Dataset::new(
            p.w,
            p.z,
            Provenance::generated("protocol", self, self.seed),
            k_z,
            Some(p.exact),
        )
    }
}

/// The table `kcomp synth protocol` prints: the exact terms of `data` (bits).
pub fn protocol_text(kind: ProtocolKind, data: &Dataset) -> Result<String> {
    let exact = data
        .exact
        .as_ref()
        .ok_or_else(|| KcompError::Other("the dataset has no exact terms".into()))?;
    let mut text = format!("protocol {kind:?}: N = {} (lengths in bits)\n", data.n());
    let rows = exact
        .parts
        .iter()
        .map(|(name, bits)| (name.as_str(), *bits));
    let totals = [("K(Z|W)", exact.k_z_given_w_bits), ("K(Z)", exact.k_z_bits)];
    for (name, bits) in rows.chain(totals) {
        text += &format!("  {name:<20} {bits:>14.4}\n");
    }
    Ok(text)
}

/// Writes W.npy/Z.npy (int64) and W.csv/Z.csv (one row per utterance, no header) into `dir`;
/// returns the paths written.
pub fn write_protocol(dir: &std::path::Path, data: &Dataset) -> Result<Vec<std::path::PathBuf>> {
    use ndarray::Array2;
    let Targets::Discrete { n_attr, values, .. } = &data.z else {
        return Err(KcompError::param("z", "protocols have discrete Z"));
    };
    crate::io::files::create_dir_all(dir)?;
    let w: Vec<i64> = data.w.tokens.iter().map(|&t| i64::from(t)).collect();
    let z: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
    let w = Array2::from_shape_vec((data.n(), data.w.n_words), w)
        .map_err(|e| KcompError::param("w", e.to_string()))?;
    let z = Array2::from_shape_vec((data.n(), *n_attr), z)
        .map_err(|e| KcompError::param("z", e.to_string()))?;
    let mut written = Vec::new();
    for (name, a) in [("W", &w), ("Z", &z)] {
        let npy = dir.join(format!("{name}.npy"));
        crate::io::npy::write_npy(&npy, a)?;
        let csv = dir.join(format!("{name}.csv"));
        let text: String = a
            .rows()
            .into_iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|v| v.to_string()).collect();
                cells.join(",") + "\n"
            })
            .collect();
        crate::io::files::write_atomic_io(&csv, text).map_err(|e| KcompError::io(&csv, e))?;
        written.push(npy);
        written.push(csv);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn params(kind: ProtocolKind, c: usize, s: usize) -> ProtocolParams {
        ProtocolParams {
            kind,
            colours: c,
            shapes: s,
            repeats: 1,
            seed: 7,
        }
    }

    fn lf(n: usize) -> f64 {
        log2_factorial(n)
    }

    /// Distinct (message, object) pairs.
    fn pairs(p: &Protocol) -> HashMap<Vec<u32>, HashSet<Vec<u32>>> {
        let Targets::Discrete { n_attr, values, .. } = &p.z else {
            unreachable!()
        };
        let mut m: HashMap<Vec<u32>, HashSet<Vec<u32>>> = HashMap::new();
        for i in 0..p.w.n {
            m.entry(p.w.row(i).to_vec())
                .or_default()
                .insert(values[i * n_attr..(i + 1) * n_attr].to_vec());
        }
        m
    }

    #[test]
    fn unambiguous_protocols_and_closed_forms() {
        use ProtocolKind::*;
        // C = S = 5: log2 5! = 6.9069 bits; log2 10! = 21.7910; log2 25! = 83.6815.
        for (kind, want) in [
            (TriviallyCompositional, 2.0 * lf(5)),
            (NonTriviallyCompositional, lf(10)),
            (Holistic, lf(25)),
            (OrderSensitive, 2.0 * lf(5)),
            (Negation, lf(5) + lf(3)),
        ] {
            let p = params(kind, 5, 5).generate().unwrap();
            let m = pairs(&p);
            assert_eq!(m.len(), 25, "{kind:?} is a bijection");
            assert!(m.values().all(|o| o.len() == 1));
            assert!((p.exact.k_z_given_w_bits - want).abs() < 1e-9, "{kind:?}");
            assert!((p.exact.k_z_bits - 25.0 * 25f64.log2()).abs() < 1e-9);
        }
        assert!((lf(10) - 21.791_061).abs() < 1e-5);
        assert!((lf(25) - 83.681_514).abs() < 1e-5);
    }

    #[test]
    fn structure_of_each_kind() {
        use ProtocolKind::*;
        // Non-trivial: letters at (i - j) and (i + j) mod L of one alphabet.
        let p = params(NonTriviallyCompositional, 3, 4).generate().unwrap();
        let Targets::Discrete { values, .. } = &p.z else {
            unreachable!()
        };
        let mut alpha = [None; 7];
        for r in 0..p.w.n {
            let (i, j) = (values[2 * r] as usize, values[2 * r + 1] as usize);
            let m = p.w.row(r);
            for (pos, letter) in [((i + 7 - j) % 7, m[0]), ((i + j) % 7, m[1])] {
                assert_eq!(*alpha[pos].get_or_insert(letter), letter);
            }
        }
        // Order-sensitive: the same letters in both positions.
        let p = params(OrderSensitive, 4, 4).generate().unwrap();
        let first: HashSet<u32> = (0..p.w.n).map(|r| p.w.row(r)[0]).collect();
        let second: HashSet<u32> = (0..p.w.n).map(|r| p.w.row(r)[1]).collect();
        assert_eq!(first, second);
        // Negation with 2 shapes is the reference's `cx__` / `c!x_`.
        let p = params(Negation, 3, 2).generate().unwrap();
        assert_eq!(p.w.vocab, 6);
        let Targets::Discrete { values, .. } = &p.z else {
            unreachable!()
        };
        for r in 0..p.w.n {
            let m = p.w.row(r);
            if values[2 * r + 1] == 0 {
                assert_eq!((m[1], m[2], m[3]), (3, 5, 5));
            } else {
                assert_eq!((m[1], m[2], m[3]), (4, 3, 5));
            }
        }
        assert!((p.exact.k_z_given_w_bits - lf(3)).abs() < 1e-9);
        // Context-sensitive: 3 C S objects, unsaid attributes charged per row.
        let p = params(ContextSensitive, 2, 3).generate().unwrap();
        assert_eq!(p.w.n, 18);
        let want = lf(2) + lf(3) + 6.0 * (3f64.log2() + 1.0);
        assert!((p.exact.k_z_given_w_bits - want).abs() < 1e-9);
        assert!((p.exact.k_z_bits - 18.0 * 18f64.log2()).abs() < 1e-9);
    }

    #[test]
    fn random_charges_classes_and_ambiguity() {
        let p = ProtocolParams {
            repeats: 2,
            ..params(ProtocolKind::Random, 3, 3)
        }
        .generate()
        .unwrap();
        let m = pairs(&p);
        let sizes: Vec<usize> = m.values().map(|o| o.len()).collect();
        let want = lf(9) - sizes.iter().map(|&k| lf(k)).sum::<f64>()
            + sizes
                .iter()
                .map(|&k| 2.0 * k as f64 * (k as f64).log2())
                .sum::<f64>();
        assert!((p.exact.k_z_given_w_bits - want).abs() < 1e-9);
        assert_eq!(p.w.n, 18);
    }

    #[test]
    fn seeded_and_validated() {
        let a = params(ProtocolKind::Holistic, 4, 3).generate().unwrap();
        let b = params(ProtocolKind::Holistic, 4, 3).generate().unwrap();
        assert_eq!(a, b);
        let bad = params(ProtocolKind::OrderSensitive, 3, 4)
            .generate()
            .unwrap_err();
        assert!(bad.to_string().contains("shapes"));
        assert!(params(ProtocolKind::Random, 1, 4).validate().is_err());
    }
}
