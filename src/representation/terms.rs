//! Every term of K(Z) as a code length in bits, measured on a learned W.
//!
//! - K(p_w) + K(W|p_w) = 1 + min(positions code, class code): one bit says which of two codes
//!   of W follows ([`WCodeName`]), and the shorter one is used.
//!   - The positions code: W is sent one position at a time (column m of every row, given
//!     columns 0..m already sent), each column coded prequentially over the rows by kcomp's
//!     online scheme on discrete targets (input = the prefix w_<m, target = w_m; the learners
//!     are [`TermsConfig::prior_learners`], mixed). A decoder reads column 0, then
//!     column 1 given column 0, ...: a causal prior coded online, so the prior's own cost
//!     K(p_w) is inside the sum (coded before learned).
//!   - The class code ([`crate::coding::class_bigram`]): word classes learned from W by the
//!     Bayesian class-bigram model (the tree learner's
//!     [`crate::estimators::prequential::learners::tree::classes::learn_classes`]), stated in a
//!     header under a uniform prior, then every word coded as its class given the previous
//!     word's class times the word given its class under Dirichlet predictive counts (coded
//!     before learned). It finds the parts of speech a grammar's W is made of, which the
//!     positions code's bigram tables over the words do not. Tried at M >= 2 and
//!     V <= [`MAX_CLASS_CODE_VOCAB`]; elsewhere it counts as infinitely long.
//! - K(f) + K(Z|W,f): Z coded prequentially given the learned W by the online scheme on
//!   continuous targets ([`TermsConfig::decoder_learners`]); K(f) is reported as the
//!   prequential sum minus the final model's code, as the `prequential` estimator does.
//! - the sentence space (M, V) is sent first, each with the Elias-delta code, and one bit says
//!   whether Z is sent through W or with the naive code.
//! - K(Z) = 1 + min(space + K(W) + K(Z|W), naive code of Z): never above the naive code by
//!   more than the 1-bit switch. When the naive branch wins, the learned W did not pay: the
//!   description uses the empty sentence, K(Z|W) = K(Z) and C(Z) = 1.
//! - C(Z) = K(Z) / K(Z|W).
//!
//! How W was found does not enter any term: the decoder receives W itself.

use serde::{Deserialize, Serialize};

use crate::coding::class_bigram::{ClassBigramCode, class_bigram_code};
use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::{PrequentialConfig, Scheme, derive_seed};
use crate::estimators::prequential::naive::{elias_delta_bits, naive_bits};
use crate::estimators::prequential::online::{LearnerSpec, LearnerTotal, OnlineConfig};
use crate::estimators::prequential::{Ordering, prequential_code};

/// Largest feature count (1 + M V) at which the Bayesian linear decoder is tried (its update
/// costs F^2 per row).
pub const MAX_DECODER_LINEAR_FEATURES: usize = 512;

/// Largest vocabulary at which the class code of W is tried: the class learner's word
/// features are 2 V + 1 numbers a word and its k-means costs V^2 k a pass (under 1 s CPU at
/// V = 100, N = 5,000).
pub const MAX_CLASS_CODE_VOCAB: usize = 256;

/// Most word classes the class code of W looks for (the learner stops earlier when two more
/// classes do not raise its score).
pub const MAX_CODE_CLASSES: usize = 20;

/// Which code of W a description uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WCodeName {
    /// Column by column under a causal prior (marginal and bigram counts over the prefix).
    #[default]
    Positions,
    /// Learned word classes stated first, then class bigram and word given class.
    ClassBigram,
}

impl WCodeName {
    pub fn name(self) -> &'static str {
        match self {
            WCodeName::Positions => "positions",
            WCodeName::ClassBigram => "class-bigram",
        }
    }
}

/// K(W) of one W: both codes and the choice.
#[derive(Debug, Clone, PartialEq)]
pub struct WCode {
    /// The positions code per position (column m given columns < m).
    pub per_position: Vec<f64>,
    /// The positions code: the sum of `per_position`.
    pub positions_bits: f64,
    /// The class code (`None`: not tried, M < 2 or V > [`MAX_CLASS_CODE_VOCAB`]).
    pub class: Option<ClassBigramCode>,
    /// The shorter code (the positions code on a tie).
    pub code: WCodeName,
    /// K(W) = 1 + min(positions, class): the switch bit plus the shorter code.
    pub bits: f64,
}

/// K(W) of `w`: 1 bit for which code, then the shorter of the positions code ([`code_w`]) and
/// the class code ([`class_code_w`]). The two run in parallel; the result does not depend on
/// the thread count.
pub fn code_w_choice(w: &TokenData, cfg: &TermsConfig, seed: u64) -> Result<WCode> {
    let (per_position, class) = rayon::join(|| code_w(w, cfg, seed), || class_code_w(w));
    let per_position = per_position?;
    let class = class?;
    let positions_bits: f64 = per_position.iter().sum();
    let class_bits = class.as_ref().map_or(f64::INFINITY, |c| c.total_bits());
    let (code, shorter) = if class_bits < positions_bits {
        (WCodeName::ClassBigram, class_bits)
    } else {
        (WCodeName::Positions, positions_bits)
    };
    Ok(WCode {
        per_position,
        positions_bits,
        class,
        code,
        bits: 1.0 + shorter,
    })
}

/// The class code of `w` over the classes learned from it (`None` where it is not tried: fewer
/// than 2 words a row, or more than [`MAX_CLASS_CODE_VOCAB`] words).
pub fn class_code_w(w: &TokenData) -> Result<Option<ClassBigramCode>> {
    if w.n_words < 2 || w.vocab > MAX_CLASS_CODE_VOCAB || w.n == 0 {
        return Ok(None);
    }
    let learned =
        crate::estimators::prequential::learners::tree::classes::learn_classes(w, MAX_CODE_CLASSES);
    class_bigram_code(w, &learned.of_word, learned.count).map(Some)
}

/// Which learners code each term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TermsConfig {
    /// The causal prior's learners (discrete targets: marginal counts, n-gram tables over the
    /// prefix).
    pub prior_learners: Vec<LearnerSpec>,
    /// The decoder's learners (continuous targets given W). A linear learner is dropped when
    /// 1 + M V exceeds [`MAX_DECODER_LINEAR_FEATURES`].
    pub decoder_learners: Vec<LearnerSpec>,
}

impl Default for TermsConfig {
    fn default() -> Self {
        TermsConfig {
            // Both are normalised predictive distributions (Krichevsky-Trofimov counts;
            // Dirichlet cells averaged over the prefix's n-grams), so the sum over every W is
            // 1 (tests/representation.rs). The rule learner is left out: its code summed to
            // 1.04 over every W of 3 rows x 2 binary words, not a valid code here.
            prior_learners: vec![LearnerSpec::Marginal, LearnerSpec::Ngram { order: 2 }],
            decoder_learners: vec![
                LearnerSpec::Marginal,
                LearnerSpec::Ngram { order: 1 },
                LearnerSpec::Linear {
                    order: 1,
                    ridge: 1e-2,
                },
            ],
        }
    }
}

/// The decoder learners a `--decoders` list names: each a short name of the online scheme's
/// learners ([`LearnerSpec::parse`]: `marginal`, `ngram0`..`ngram3`, `linear1`, `linear2`,
/// `sparse`, `tree`, `mlp256`, ...) or `default` (the decoders of [`TermsConfig::default`]);
/// a learner named twice runs once. Learners of discrete Z only (`objects`, `rules`) are
/// refused: the decoders code continuous Z given W.
pub fn parse_decoders(names: &[String]) -> Result<Vec<LearnerSpec>> {
    let mut out: Vec<LearnerSpec> = Vec::new();
    let push = |spec: LearnerSpec, out: &mut Vec<LearnerSpec>| {
        if !out.contains(&spec) {
            out.push(spec);
        }
    };
    for raw in names {
        let name = raw.trim();
        if name == "default" {
            for spec in TermsConfig::default().decoder_learners {
                push(spec, &mut out);
            }
            continue;
        }
        let spec = LearnerSpec::parse(name).map_err(|e| KcompError::param("decoders", e))?;
        if matches!(spec, LearnerSpec::Objects | LearnerSpec::Rules(_)) {
            return Err(KcompError::param(
                "decoders",
                format!(
                    "`{}` codes discrete Z; the decoders code continuous Z given W (marginal, \
                     ngram0..ngram3, linear1, linear2, sparse, tree, mlp-linear, mlp256, gru, \
                     default)",
                    name.escape_debug()
                ),
            ));
        }
        push(spec, &mut out);
    }
    let check = OnlineConfig {
        learners: out.clone(),
        ..Default::default()
    };
    check
        .validate()
        .map_err(|e| KcompError::param("decoders", e.to_string()))?;
    Ok(out)
}

/// Every term, in bits (totals over the N rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Terms {
    /// M and V of the learned sentences.
    pub length: usize,
    pub vocab: usize,
    /// Elias-delta codes of M and V.
    pub space_bits: f64,
    /// K(p_w) + K(W|p_w) = 1 + min(`k_w_positions_bits`, `k_w_class_bits`): the switch bit
    /// and the shorter code of W.
    pub k_w_bits: f64,
    /// The code of W that won.
    #[serde(default)]
    pub k_w_code: WCodeName,
    /// The positions code of W (the prequential code under a causal prior): the sum of
    /// `k_w_per_position_bits`.
    #[serde(default)]
    pub k_w_positions_bits: f64,
    /// The positions code per position (column m given columns < m).
    pub k_w_per_position_bits: Vec<f64>,
    /// The class code of W, header included (`None`: not tried).
    #[serde(default)]
    pub k_w_class_bits: Option<f64>,
    /// The class code's header (which words occur, the class count, every word's class).
    #[serde(default)]
    pub k_w_class_header_bits: Option<f64>,
    /// The number of word classes of the class code.
    #[serde(default)]
    pub k_w_classes: Option<usize>,
    /// K(f) + K(Z|W,f): the prequential code of Z given W.
    pub k_z_given_w_learned_bits: f64,
    /// K(Z|W,f): the final decoder's code of every row.
    pub k_z_given_wf_bits: f64,
    /// K(f): the prequential sum minus K(Z|W,f) (negative values are flagged in `notes`).
    pub k_f_bits: f64,
    /// 1 + space + K(W) + K(Z|W): Z sent through the learned W.
    pub learned_total_bits: f64,
    /// The naive code of Z (per-dimension discretised Gaussian with its parameters sent).
    pub naive_bits: f64,
    /// K(Z) = 1 + min(space + K(W) + K(Z|W), naive).
    pub k_z_bits: f64,
    /// K(Z|W) of the chosen description: the learned one, or K(Z) when W did not pay.
    pub k_z_given_w_bits: f64,
    /// C(Z) = K(Z) / K(Z|W).
    pub c: f64,
    /// Whether Z is cheaper through the learned W than with the naive code.
    pub w_paid: bool,
    pub notes: Vec<String>,
    /// The decoder learners of K(Z|W): own code, share of the bits, status (skipped ones with
    /// the reason).
    #[serde(default)]
    pub decoders: Vec<LearnerTotal>,
}

/// K(p_w) + K(W|p_w) of `w`, per position: column m is coded prequentially over the rows given
/// columns 0..m (see the module documentation). Positions run in parallel; the result does
/// not depend on the thread count.
pub fn code_w(w: &TokenData, cfg: &TermsConfig, seed: u64) -> Result<Vec<f64>> {
    use rayon::prelude::*;
    if w.vocab < 2 {
        // One word: every sentence is the same, nothing to send.
        return Ok(vec![0.0; w.n_words]);
    }
    (0..w.n_words)
        .into_par_iter()
        .with_max_len(1)
        .map(|m| {
            let prefix = if m == 0 {
                TokenData::blind(w.n)
            } else {
                let tokens = (0..w.n).flat_map(|i| w.row(i)[..m].iter().copied());
                TokenData::new(w.n, m, w.vocab, tokens.collect())?
            };
            let target = Targets::discrete(1, w.vocab, (0..w.n).map(|i| w.row(i)[m]).collect())?;
            let pcfg = online_config(cfg.prior_learners.clone(), derive_seed(seed, m as u64));
            Ok(prequential_code(&prefix, &target, &pcfg, None)?.k_data)
        })
        .collect()
}

/// The online scheme with `learners`, a seeded random row order, every row encoded, on the
/// caller's thread pool.
fn online_config(learners: Vec<LearnerSpec>, seed: u64) -> PrequentialConfig {
    PrequentialConfig {
        seed,
        ordering: Ordering::Random,
        val_size: 0,
        threads: 0,
        scheme: Scheme::Online,
        online: OnlineConfig {
            learners,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The decoder learners used for sentences of `length` x `vocab` (the linear learner only
/// when its feature count is small).
pub fn decoder_learners(cfg: &TermsConfig, length: usize, vocab: usize) -> Vec<LearnerSpec> {
    let features = 1 + length.saturating_mul(vocab);
    cfg.decoder_learners
        .iter()
        .filter(|l| {
            !matches!(l, LearnerSpec::Linear { .. }) || features <= MAX_DECODER_LINEAR_FEATURES
        })
        .cloned()
        .collect()
}

/// K(f) + K(Z|W,f) of `z` given `w`: (prequential sum, final decoder's code).
pub fn code_z_given_w(
    w: &TokenData,
    z: &Targets,
    cfg: &TermsConfig,
    seed: u64,
) -> Result<(f64, f64)> {
    let (k, kf, _) = code_z_given_w_learners(w, z, cfg, seed)?;
    Ok((k, kf))
}

/// [`code_z_given_w`] with every decoder learner's report (own code, share of the bits,
/// status: which learner the code of Z given W rests on).
pub fn code_z_given_w_learners(
    w: &TokenData,
    z: &Targets,
    cfg: &TermsConfig,
    seed: u64,
) -> Result<(f64, f64, Vec<LearnerTotal>)> {
    let learners = decoder_learners(cfg, w.n_words, w.vocab);
    let pcfg = online_config(learners, derive_seed(seed, 1 << 40));
    let code = prequential_code(w, z, &pcfg, None)?;
    Ok((code.k_data, code.k_data_given_f, code.learners))
}

/// Bits of the sentence space (M, V), Elias-delta each.
pub fn space_bits(length: usize, vocab: usize) -> f64 {
    elias_delta_bits(length.max(1) as u64) + elias_delta_bits(vocab.max(1) as u64)
}

/// Every term for learned sentences `w` of `z`.
pub fn terms(w: &TokenData, z: &Targets, cfg: &TermsConfig, seed: u64) -> Result<Terms> {
    if w.n != z.n() {
        return Err(KcompError::param(
            "w",
            format!("W has {} rows but Z has {}", w.n, z.n()),
        ));
    }
    let k_w = code_w_choice(w, cfg, seed)?;
    let (k_zw, k_zwf, decoders) = code_z_given_w_learners(w, z, cfg, seed)?;
    let all: Vec<usize> = (0..z.n()).collect();
    let mut t = assemble(
        (w.n_words, w.vocab),
        k_w,
        (k_zw, k_zwf),
        naive_bits(z, &all),
    );
    t.decoders = decoders;
    Ok(t)
}

/// The terms from their measured parts (the closed-form rules of the module documentation).
pub fn assemble(
    (length, vocab): (usize, usize),
    k_w: WCode,
    (k_zw, k_zwf): (f64, f64),
    naive: f64,
) -> Terms {
    let k_w_bits = k_w.bits;
    let space = space_bits(length, vocab);
    let learned_total = 1.0 + space + k_w_bits + k_zw;
    let w_paid = learned_total < 1.0 + naive;
    let k_z = learned_total.min(1.0 + naive);
    let k_z_given_w = if w_paid { k_zw } else { k_z };
    let mut notes = Vec::new();
    if !w_paid {
        notes.push(format!(
            "the learned W did not pay: space + K(W) + K(Z|W) = {:.1} bits >= the naive code \
             of Z ({naive:.1} bits); K(Z) is the naive code and C(Z) = 1",
            learned_total - 1.0
        ));
    }
    let k_f = k_zw - k_zwf;
    if k_f < 0.0 {
        notes
            .push("K(f) < 0: the final decoder codes Z worse than the prequential sum".to_string());
    }
    Terms {
        length,
        vocab,
        space_bits: space,
        k_w_bits,
        k_w_code: k_w.code,
        k_w_positions_bits: k_w.positions_bits,
        k_w_per_position_bits: k_w.per_position,
        k_w_class_bits: k_w.class.as_ref().map(|c| c.total_bits()),
        k_w_class_header_bits: k_w.class.as_ref().map(|c| c.header_bits),
        k_w_classes: k_w.class.as_ref().map(|c| c.classes),
        k_z_given_w_learned_bits: k_zw,
        k_z_given_wf_bits: k_zwf,
        k_f_bits: k_f,
        learned_total_bits: learned_total,
        naive_bits: naive,
        k_z_bits: k_z,
        k_z_given_w_bits: k_z_given_w,
        c: k_z / k_z_given_w,
        w_paid,
        notes,
        decoders: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A K(W) of 100 bits (the positions code, 99 bits, plus the switch bit).
    fn k_w_100() -> WCode {
        WCode {
            per_position: vec![50.0, 49.0],
            positions_bits: 99.0,
            class: None,
            code: WCodeName::Positions,
            bits: 100.0,
        }
    }

    #[test]
    fn a_w_that_does_not_pay_gives_c_one() {
        let t = assemble((2, 4), k_w_100(), (950.0, 900.0), 1000.0);
        assert!(!t.w_paid);
        assert_eq!(t.k_z_bits, 1001.0);
        assert_eq!(t.c, 1.0);
        let t = assemble((2, 4), k_w_100(), (500.0, 450.0), 1000.0);
        assert!(t.w_paid);
        // 1 + delta(2) + delta(4) + 100 + 500 = 1 + 4 + 5 + 600.
        assert_eq!(t.k_z_bits, 610.0);
        assert_eq!(t.c, 610.0 / 500.0);
        assert_eq!(t.k_f_bits, 50.0);
    }
}
