//! Every term of K(Z) as a code length in bits, measured on a learned W.
//!
//! - K(p_w) + K(W|p_w): W is sent one position at a time (column m of every row, given
//!   columns 0..m already sent), each column coded prequentially over the rows by kcomp's
//!   online scheme on discrete targets (input = the prefix w_<m, target = w_m; the learners
//!   are [`TermsConfig::prior_learners`], mixed). A decoder reads column 0, then
//!   column 1 given column 0, ...: a causal prior coded online, so the prior's own cost
//!   K(p_w) is inside the sum (coded before learned).
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

use crate::dataset::{Targets, TokenData};
use crate::error::{KcompError, Result};
use crate::estimators::prequential::code::{PrequentialConfig, Scheme, derive_seed};
use crate::estimators::prequential::naive::{elias_delta_bits, naive_bits};
use crate::estimators::prequential::online::{LearnerSpec, LearnerTotal, OnlineConfig};
use crate::estimators::prequential::{Ordering, prequential_code};

/// Largest feature count (1 + M V) at which the Bayesian linear decoder is tried (its update
/// costs F^2 per row).
pub const MAX_DECODER_LINEAR_FEATURES: usize = 512;

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
    /// K(p_w) + K(W|p_w): the prequential code of W under a causal prior.
    pub k_w_bits: f64,
    /// K(W) per position (column m given columns < m).
    pub k_w_per_position_bits: Vec<f64>,
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
    let per_position = code_w(w, cfg, seed)?;
    let k_w: f64 = per_position.iter().sum();
    let (k_zw, k_zwf, decoders) = code_z_given_w_learners(w, z, cfg, seed)?;
    let all: Vec<usize> = (0..z.n()).collect();
    let mut t = assemble(
        (w.n_words, w.vocab),
        per_position,
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
    k_w_per_position_bits: Vec<f64>,
    k_w_bits: f64,
    (k_zw, k_zwf): (f64, f64),
    naive: f64,
) -> Terms {
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
        k_w_per_position_bits,
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

    #[test]
    fn a_w_that_does_not_pay_gives_c_one() {
        let t = assemble((2, 4), vec![50.0, 50.0], 100.0, (950.0, 900.0), 1000.0);
        assert!(!t.w_paid);
        assert_eq!(t.k_z_bits, 1001.0);
        assert_eq!(t.c, 1.0);
        let t = assemble((2, 4), vec![50.0, 50.0], 100.0, (500.0, 450.0), 1000.0);
        assert!(t.w_paid);
        // 1 + delta(2) + delta(4) + 100 + 500 = 1 + 4 + 5 + 600.
        assert_eq!(t.k_z_bits, 610.0);
        assert_eq!(t.c, 610.0 / 500.0);
        assert_eq!(t.k_f_bits, 50.0);
    }
}
