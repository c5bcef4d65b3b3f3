//! Context-free-grammar representations (Elmoznino et al., ICML 2025, Section 4.1 and Appendix H).
//!
//! Sentences come from a POS-transition sampler (START -> T1 | T2; POS t -> t+1 | t+2, every
//! allowed next word equally likely). Each sentence is parsed by our CYK parser
//! ([`cyk`], documented bracketing) with the grammar of [`cfg`]; its representation is built
//! bottom-up: words have embeddings (K x D); each rule has a linear map (2D x D) applied to the
//! concatenation of its children, or (tensor-product composition) each RHS symbol has a role
//! vector and a node is `x * role_x + x + y * role_y + y`. All parameters are discretised
//! Gaussians (std 1, precision lam). The root value is snapped to the grid, noise (std r) is
//! added, and Z is stored as grid indices.
//!
//! Exact terms (bits): K(p_w) = K log T + T(T+1); K(W|p_w) = the true code length of the
//! sentences under the transition sampler (`reference_compat`: M log K per sentence, the
//! published convention); K(f) = code of embeddings and rule parameters; K(Z|W,f) = code of
//! the noise.

pub mod cfg;
pub mod cyk;

use ndarray::Array2;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::coding::bits::nats_to_bits;
use crate::coding::discretised_gaussian::{DiscretisedGaussian, grid_index};
use crate::dataset::exact::ComplexityTerms;
use crate::datasets::validate;
use crate::error::{KcompError, Result};
use crate::rng::numpy_legacy::NumpyCdf;
use crate::rng::stream::{RngKind, Stream};

use cfg::Grammar;
use cyk::Tree;

/// How a rule combines its children's vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Composition {
    /// `concat(left, right) @ A_rule`, one 2D x D matrix per rule.
    #[default]
    Linear,
    /// Tensor-product binding with one role vector per RHS symbol.
    Tensor,
}

/// Parameters of the grammar generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default, deny_unknown_fields)]
pub struct GrammarParams {
    /// N: number of sentences.
    #[arg(long, default_value_t = GrammarParams::default().samples)]
    pub samples: usize,
    /// M: sentence length (a multiple of 2^depth, so every sentence parses).
    #[arg(long, default_value_t = GrammarParams::default().length)]
    pub length: usize,
    /// K: vocabulary size (word i has POS i % T).
    #[arg(long, default_value_t = GrammarParams::default().vocab)]
    pub vocab: usize,
    /// D: representation dimension.
    #[arg(long, default_value_t = GrammarParams::default().dim)]
    pub dim: usize,
    /// T: number of parts of speech.
    #[arg(long, default_value_t = GrammarParams::default().pos)]
    pub pos: usize,
    /// Non-terminals per level.
    #[arg(long, default_value_t = GrammarParams::default().width)]
    pub width: usize,
    /// Levels of non-terminals.
    #[arg(long, default_value_t = GrammarParams::default().depth)]
    pub depth: usize,
    /// lam: grid spacing.
    #[arg(long, default_value_t = GrammarParams::default().precision, allow_hyphen_values = true)]
    pub precision: f64,
    /// r: noise standard deviation.
    #[arg(long, default_value_t = GrammarParams::default().noise, allow_hyphen_values = true)]
    pub noise: f64,
    /// Standard deviation of embeddings, rule matrices and roles.
    #[arg(long, default_value_t = GrammarParams::default().param_std, allow_hyphen_values = true)]
    pub param_std: f64,
    /// Linear or tensor-product composition.
    #[arg(long, value_enum, default_value_t = GrammarParams::default().composition)]
    pub composition: Composition,
    /// Charge K(W|p_w) = M log K per sentence as the published code does.
    #[arg(long)]
    pub reference_compat: bool,
    /// Seed of every random draw.
    #[arg(long, default_value_t = GrammarParams::default().seed)]
    pub seed: u64,
    /// Random stream.
    #[arg(long, value_enum, default_value_t = GrammarParams::default().rng)]
    pub rng: RngKind,
}

impl Default for GrammarParams {
    fn default() -> Self {
        GrammarParams {
            samples: 1000,
            length: 16,
            vocab: 100,
            dim: 10,
            pos: 5,
            width: 3,
            depth: 2,
            precision: 0.01,
            noise: 0.01,
            param_std: 1.0,
            composition: Composition::Linear,
            reference_compat: false,
            seed: 0,
            rng: RngKind::Kcomp,
        }
    }
}

impl GrammarParams {
    /// Checks every parameter; errors name the offending one.
    pub fn validate(&self) -> Result<()> {
        validate::at_least("samples", self.samples, 1)?;
        validate::at_least("pos", self.pos, 3)?;
        validate::at_least("vocab", self.vocab, 2)?;
        if self.vocab < self.pos {
            return Err(KcompError::param(
                "vocab",
                format!(
                    "every part of speech needs a word: vocab = {} < pos = {}",
                    self.vocab, self.pos
                ),
            ));
        }
        validate::at_least("dim", self.dim, 1)?;
        validate::at_least("width", self.width, 1)?;
        validate::at_least("depth", self.depth, 1)?;
        if self.depth > 20 {
            return Err(KcompError::param("depth", "must be at most 20"));
        }
        let block = 1usize << self.depth;
        if self.length == 0 || !self.length.is_multiple_of(block) {
            return Err(KcompError::param(
                "length",
                format!(
                    "length = {} must be a positive multiple of 2^depth = {block} so every sentence parses",
                    self.length
                ),
            ));
        }
        validate::positive("precision", self.precision)?;
        validate::positive("noise", self.noise)?;
        validate::positive("param_std", self.param_std)?;
        validate::not_all_zero("param_std", self.param_std, self.noise, self.precision)?;
        crate::coding::discretised_gaussian::check_grid(
            self.param_std,
            self.precision,
            "param_std",
        )?;
        crate::coding::discretised_gaussian::check_grid(self.noise, self.precision, "noise")?;
        validate::memory("this grammar run", &self.memory_terms())
    }

    /// The large allocations of a run, in bytes (`f64`: absurd sizes cannot overflow): the
    /// transition CDFs (K+1 rows of K), the rule table and matrices, W, Z, parse trees and the
    /// CYK charts of the sentences parsed at once (one per worker thread).
    pub fn memory_terms(&self) -> Vec<(&'static str, f64)> {
        let (n, m, k, d, t) = (
            self.samples as f64,
            self.length as f64,
            self.vocab as f64,
            self.dim as f64,
            self.pos as f64,
        );
        let width = self.width as f64;
        let symbols = t + self.depth as f64 * width;
        let rules = 2.0 * t + self.depth as f64 * width * width;
        let params = match self.composition {
            Composition::Linear => rules * 2.0 * d * d,
            Composition::Tensor => symbols * d,
        } + k * d;
        let threads = rayon::current_num_threads() as f64;
        vec![
            ("vocab", (k + 1.0) * k * 8.0 + k * 48.0),
            ("width x depth", symbols * symbols * 16.0 + rules * 24.0),
            ("width x dim", params * 8.0),
            ("vocab x dim", k * d * 8.0),
            ("samples x dim", n * d * 8.0 * 5.0 + n * 64.0),
            ("samples x length", n * m * (8.0 + 2.0 * 64.0)),
            ("length", threads * m * (m + 1.0) * (symbols * 40.0 + 32.0)),
        ]
    }
}

/// Grid indices are exact integers (in `f64` and after adding noise) below this magnitude.
const EXACT_GRID: f64 = 9_007_199_254_740_992.0 / 4.0;

/// A generated grammar dataset with its exact terms.
#[derive(Debug, Clone)]
pub struct GrammarDataset {
    /// The parameters used.
    pub params: GrammarParams,
    /// The grammar.
    pub grammar: Grammar,
    /// W: N x M word indices.
    pub w: Array2<i64>,
    /// Z: N x D grid indices.
    pub z: Array2<i64>,
    /// Parse trees, one per sentence.
    pub trees: Vec<Tree>,
    /// The exact terms in bits.
    pub terms: ComplexityTerms,
}

impl GrammarDataset {
    /// `(left word, right word, parent symbol)` of every node of every parse tree whose two
    /// children are words: the generator's first-level non-terminal of each pair of words, the
    /// truth a learner of hidden node categories is checked against.
    pub fn first_level_nodes(&self) -> Vec<(usize, usize, usize)> {
        fn walk(t: &Tree, out: &mut Vec<(usize, usize, usize)>) {
            if let Tree::Node {
                lhs, left, right, ..
            } = t
            {
                if let (Tree::Leaf { word: a, .. }, Tree::Leaf { word: b, .. }) =
                    (&**left, &**right)
                {
                    out.push((*a, *b, *lhs));
                }
                walk(left, out);
                walk(right, out);
            }
        }
        let mut out = Vec::new();
        for t in &self.trees {
            walk(t, &mut out);
        }
        out
    }
}

/// Sampled decoder parameters, as grid indices.
struct Decoder {
    embeddings: Vec<i64>,
    rule_matrices: Vec<Vec<i64>>,
    roles: Vec<Vec<i64>>,
}

/// The transition sampler: allowed next words and the NumPy-style CDFs over the vocabulary.
struct Transitions {
    /// Row `K` is START; row `w` gives the distribution of the word after word `w`.
    cdfs: Vec<NumpyCdf>,
    /// log2 of the number of allowed next words, per row.
    log2_choices: Vec<f64>,
}

impl Transitions {
    fn new(vocab: usize, t: usize) -> Self {
        let row = |next_pos: [usize; 2]| -> (NumpyCdf, f64) {
            let allowed: Vec<bool> = (0..vocab).map(|w| next_pos.contains(&(w % t))).collect();
            let count = allowed.iter().filter(|&&a| a).count() as f64;
            let p: Vec<f64> = allowed
                .iter()
                .map(|&a| if a { 1.0 / count } else { 0.0 })
                .collect();
            (NumpyCdf::new(&p), count.log2())
        };
        let by_pos: Vec<(NumpyCdf, f64)> = (0..t)
            .map(|pos| row([(pos + 1) % t, (pos + 2) % t]))
            .collect();
        let start = row([0, 1]);
        let mut cdfs = Vec::with_capacity(vocab + 1);
        let mut log2_choices = Vec::with_capacity(vocab + 1);
        for w in 0..vocab {
            cdfs.push(by_pos[w % t].0.clone());
            log2_choices.push(by_pos[w % t].1);
        }
        cdfs.push(start.0);
        log2_choices.push(start.1);
        Transitions { cdfs, log2_choices }
    }
}

/// Generates a grammar dataset and its exact terms.
pub fn generate(params: &GrammarParams) -> Result<GrammarDataset> {
    params.validate()?;
    let (n, m, k, d, t) = (
        params.samples,
        params.length,
        params.vocab,
        params.dim,
        params.pos,
    );
    let grammar = Grammar::new(t, params.width, params.depth);
    let entry = DiscretisedGaussian::new(params.param_std, params.precision, "param_std")?;
    let noise = DiscretisedGaussian::new(params.noise, params.precision, "noise")?;
    let mut stream = Stream::new(params.rng, params.seed);

    // Draw order of the reference: roles (tensor), embeddings, one matrix per rule; W; noise.
    let roles = match params.composition {
        Composition::Tensor => (0..grammar.rhs_symbols())
            .map(|_| entry.sample(&mut stream, d))
            .collect(),
        Composition::Linear => Vec::new(),
    };
    let embeddings = entry.sample(&mut stream, k * d);
    let rule_matrices = match params.composition {
        Composition::Linear => grammar
            .rules
            .iter()
            .map(|_| entry.sample(&mut stream, 2 * d * d))
            .collect(),
        Composition::Tensor => Vec::new(),
    };
    let decoder = Decoder {
        embeddings,
        rule_matrices,
        roles,
    };

    let transitions = Transitions::new(k, t);
    let mut w = Array2::<i64>::zeros((n, m));
    let mut prev = vec![k; n];
    for col in 0..m {
        for (row, p) in prev.iter_mut().enumerate() {
            let word = stream.categorical(&transitions.cdfs[*p]);
            w[[row, col]] = word as i64;
            *p = word;
        }
    }
    let true_log2_pw: f64 = w
        .rows()
        .into_iter()
        .map(|s| {
            let mut prev = k;
            s.iter()
                .map(|&word| {
                    let bits = transitions.log2_choices[prev];
                    prev = word as usize;
                    bits
                })
                .sum::<f64>()
        })
        .sum();

    let trees: Vec<Tree> = w
        .rows()
        .into_iter()
        .collect::<Vec<_>>()
        .par_iter()
        .map(|s| {
            let words: Vec<usize> = s.iter().map(|&x| x as usize).collect();
            cyk::parse(&grammar, &words)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| KcompError::Other("a sampled sentence did not parse".into()))?;

    let lam = params.precision;
    // Deep trees multiply parameter values: a root value off the exact grid (|index| >= 2^53,
    // or not finite) cannot be coded exactly and is refused rather than saturated.
    let means: Vec<Vec<i64>> = trees
        .par_iter()
        .map(|tree| {
            decode(tree, &decoder, params)
                .iter()
                .map(|&v| {
                    let g = v / lam;
                    (g.abs() < EXACT_GRID).then(|| grid_index(v, 0.0, lam))
                })
                .collect::<Option<Vec<i64>>>()
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            KcompError::param(
                "param_std",
                format!(
                    "decoded representations exceed 2^53 grid steps at precision {lam} \
                     (param_std {} compounded over the tree); lower param_std or depth, or raise precision",
                    params.param_std
                ),
            )
        })?;
    let noise_k = noise.sample(&mut stream, n * d);
    let mut z = Array2::<i64>::zeros((n, d));
    for i in 0..n {
        for j in 0..d {
            z[[i, j]] = means[i][j] + noise_k[i * d + j];
        }
    }
    // K(Z|W,f): decode again and code the residual on the grid.
    let residual_nats: f64 = (0..n)
        .map(|i| {
            (0..d)
                .map(|j| noise.code().code_nats(z[[i, j]] - means[i][j]))
                .sum::<f64>()
        })
        .sum();

    let k_f = entry.total_bits(&decoder.embeddings)
        + decoder
            .rule_matrices
            .iter()
            .chain(decoder.roles.iter())
            .map(|v| entry.total_bits(v))
            .sum::<f64>();
    let k_w_given_pw = if params.reference_compat {
        (n * m) as f64 * (k as f64).log2()
    } else {
        true_log2_pw
    };
    let terms = ComplexityTerms {
        k_pw: k as f64 * (t as f64).log2() + (t * (t + 1)) as f64,
        k_w_given_pw,
        k_f,
        k_z_given_wf: nats_to_bits(residual_nats),
        samples: n,
    };
    Ok(GrammarDataset {
        params: params.clone(),
        grammar,
        w,
        z,
        trees,
        terms,
    })
}

/// The real-valued representation of a parse tree (before snapping to the grid and noise).
fn decode(tree: &Tree, decoder: &Decoder, params: &GrammarParams) -> Vec<f64> {
    let d = params.dim;
    let lam = params.precision;
    match tree {
        Tree::Leaf { word, .. } => decoder.embeddings[word * d..(word + 1) * d]
            .iter()
            .map(|&k| k as f64 * lam)
            .collect(),
        Tree::Node {
            rule, left, right, ..
        } => {
            let x = decode(left, decoder, params);
            let y = decode(right, decoder, params);
            match params.composition {
                Composition::Linear => {
                    let a = &decoder.rule_matrices[*rule];
                    (0..d)
                        .map(|col| {
                            let mut acc = 0.0;
                            for (row, &v) in x.iter().chain(y.iter()).enumerate() {
                                acc += v * (a[row * d + col] as f64 * lam);
                            }
                            acc
                        })
                        .collect()
                }
                Composition::Tensor => {
                    let rx = &decoder.roles[left.symbol()];
                    let ry = &decoder.roles[right.symbol()];
                    (0..d)
                        .map(|j| {
                            x[j] * (rx[j] as f64 * lam)
                                + x[j]
                                + (y[j] * (ry[j] as f64 * lam) + y[j])
                        })
                        .collect()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_parameters() {
        let bad = |f: fn(&mut GrammarParams)| {
            let mut p = GrammarParams::default();
            f(&mut p);
            generate(&p).unwrap_err().to_string()
        };
        assert!(bad(|p| p.length = 10).contains("length"));
        assert!(bad(|p| p.vocab = 1).contains("vocab"));
        assert!(bad(|p| p.pos = 2).contains("pos"));
        assert!(bad(|p| p.noise = -1.0).contains("noise"));
        // Sizes whose arrays do not fit in memory are refused before allocating.
        assert!(bad(|p| p.vocab = 4_294_967_295).contains("vocab"));
        assert!(bad(|p| p.width = 100_000).contains("width"));
        assert!(bad(|p| p.dim = 100_000).contains("dim"));
        assert!(bad(|p| p.length = 1 << 20).contains("length"));
        assert!(bad(|p| p.param_std = 1e308).contains("param_std"));
        assert!(bad(|p| p.precision = f64::NAN).contains("precision"));
        assert!(bad(|p| p.samples = 0).contains("samples"));
    }

    #[test]
    fn true_sentence_code_is_m_log_40_for_defaults() {
        let p = GrammarParams {
            samples: 20,
            ..Default::default()
        };
        let data = generate(&p).unwrap();
        assert!((data.terms.k_w_given_pw - 20.0 * 16.0 * 40f64.log2()).abs() < 1e-9);
        let compat = generate(&GrammarParams {
            reference_compat: true,
            ..p
        })
        .unwrap();
        assert!((compat.terms.k_w_given_pw - 20.0 * 16.0 * 100f64.log2()).abs() < 1e-9);
        // K(p_w) = 100 log2 5 + 30 bits.
        assert!((data.terms.k_pw - (100.0 * 5f64.log2() + 30.0)).abs() < 1e-12);
        assert_eq!(data.trees.len(), 20);
        // Noise costs ~ h0 = 2.0237 bits per dimension.
        assert!((data.terms.k_z_given_wf / 200.0 - 2.0237).abs() < 0.3);
    }
}
