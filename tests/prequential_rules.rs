//! The rule learner: a valid sequential code (each row coded before it is learned,
//! earlier codes blind to later rows), the closed form of a bijective lexicon (about log2 V!
//! bits per attribute), results independent of the thread count, and the prequential K(Z|W)
//! of language systems and protocols against their exact K(Z|W).

use std::collections::HashSet;

use kcomp::dataset::{Dataset, Targets, TokenData};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::protocols::{ProtocolKind, ProtocolParams};
use kcomp::datasets::variable_length::VarLenParams;
use kcomp::estimators::prequential::learners::rules::RuleSettings;
use kcomp::estimators::prequential::online::{
    LearnerSpec, OnlineConfig, OnlineLearner, make_online_learner, online_code, run_learner,
};
use kcomp::estimators::prequential::schedule::order_rows;
use kcomp::estimators::prequential::{
    Ordering, PrequentialConfig, Scheme, language_compositionality,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn language3(h: f64, seed: u64) -> Dataset {
    LanguageSystemConfig {
        n_attr: 3,
        n_vals: 5,
        msg_len: 3,
        vocab: 5,
        repeats: 10,
        holistic_fraction: h,
        seed,
        ..Default::default()
    }
    .dataset()
    .unwrap()
}

/// 2 attributes x 8 values, 2-token messages over 8 symbols (64 objects), `repeats` rows each.
fn language2x8(h: f64, repeats: usize, seed: u64) -> Dataset {
    LanguageSystemConfig {
        repeats,
        holistic_fraction: h,
        seed,
        ..Default::default()
    }
    .dataset()
    .unwrap()
}

fn protocol(kind: ProtocolKind, seed: u64) -> Dataset {
    ProtocolParams {
        kind,
        colours: 8,
        shapes: 8,
        repeats: 20,
        seed,
    }
    .dataset()
    .unwrap()
}

/// The cheap learner set: Z without W, the n-gram tables and the rule learner.
fn fast(seed: u64) -> PrequentialConfig {
    PrequentialConfig {
        seed,
        scheme: Scheme::Online,
        online: OnlineConfig {
            learners: vec![
                LearnerSpec::Marginal,
                LearnerSpec::Ngram { order: 2 },
                LearnerSpec::Rules(Default::default()),
            ],
            ..Default::default()
        },
        ..Default::default()
    }
}

fn rules_bits(w: &TokenData, z: &Targets, first: usize, seed: u64) -> Vec<f64> {
    let cfg = OnlineConfig::default();
    let order = order_rows(z, Ordering::Random, seed);
    let mut l =
        make_online_learner(&LearnerSpec::Rules(Default::default()), &cfg, w, z, 0).unwrap();
    run_learner(
        l.as_mut(),
        w,
        z,
        &order,
        &cfg.boundaries_from(first, order.len()),
    )
}

/// Fails if a row is coded after the learner was shown it, or learned before it was sent.
struct Spy {
    inner: Box<dyn OnlineLearner>,
    seen: HashSet<usize>,
    coded: Vec<usize>,
    first: usize,
}

impl OnlineLearner for Spy {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn block_rows(&self) -> Option<usize> {
        self.inner.block_rows()
    }
    fn code(&mut self, w: &TokenData, z: &Targets, rows: &[usize]) -> Vec<f64> {
        for r in rows {
            assert!(!self.seen.contains(r), "row {r} coded after it was learned");
        }
        self.coded.extend_from_slice(rows);
        self.inner.code(w, z, rows)
    }
    fn learn(&mut self, w: &TokenData, z: &Targets, sent: &[usize], n_new: usize) {
        assert_eq!(
            &sent[self.first..],
            &self.coded[..],
            "learn sees rows never sent"
        );
        self.seen.extend(&sent[sent.len() - n_new..]);
        self.inner.learn(w, z, sent, n_new);
    }
}

#[test]
fn the_rule_learner_codes_every_row_before_learning_it() {
    for data in [
        language3(0.5, 1),
        // Two positions, two attributes: the joint mode's four assignments in play.
        language2x8(0.75, 7, 1),
        protocol(ProtocolKind::NonTriviallyCompositional, 0),
        varlen(400, 2),
    ] {
        let cfg = OnlineConfig::default();
        let order = order_rows(&data.z, Ordering::Random, 3);
        for first in [0, 1, 5] {
            let inner = make_online_learner(
                &LearnerSpec::Rules(Default::default()),
                &cfg,
                &data.w,
                &data.z,
                0,
            )
            .unwrap();
            let mut spy = Spy {
                inner,
                seen: HashSet::new(),
                coded: Vec::new(),
                first,
            };
            let bounds = cfg.boundaries_from(first, order.len());
            let bits = run_learner(&mut spy, &data.w, &data.z, &order, &bounds);
            assert_eq!(spy.coded, order[first..].to_vec());
            assert!(bits.iter().all(|b| b.is_finite() && *b >= 0.0));
        }
    }
}

#[test]
fn changing_a_later_row_changes_no_earlier_code() {
    let data = language3(0.25, 2);
    let order = order_rows(&data.z, Ordering::Random, 7);
    let j = 300;
    let mut z2 = data.z.clone();
    if let Targets::Discrete {
        n_attr,
        n_vals,
        values,
    } = &mut z2
    {
        let v = &mut values[order[j] * *n_attr];
        *v = (*v + 1) % *n_vals as u32;
    }
    let cfg = OnlineConfig::default();
    let run = |z: &Targets| {
        let mut l =
            make_online_learner(&LearnerSpec::Rules(Default::default()), &cfg, &data.w, z, 0)
                .unwrap();
        run_learner(
            l.as_mut(),
            &data.w,
            z,
            &order,
            &cfg.boundaries_from(1, order.len()),
        )
    };
    let (a, b) = (run(&data.z), run(&z2));
    assert_eq!(a[..j - 1], b[..j - 1]);
    assert_ne!(a[j - 1], b[j - 1]);
}

fn log2_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).log2()).sum()
}

/// A bijective lexicon: each of `n_attr` positions carries one attribute through its own random
/// bijection of `v` words onto `v` values; every message uttered `reps` times, random order.
fn bijective(n_attr: usize, v: usize, reps: usize, seed: u64) -> (TokenData, Targets) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let perms: Vec<Vec<u32>> = (0..n_attr)
        .map(|_| {
            let mut p: Vec<u32> = (0..v as u32).collect();
            for i in (1..v).rev() {
                p.swap(i, rng.random_range(0..=i));
            }
            p
        })
        .collect();
    let (mut w, mut z) = (Vec::new(), Vec::new());
    let mut n = 0;
    for _ in 0..reps * v {
        for p in &perms {
            let t = rng.random_range(0..v as u32);
            w.push(t);
            z.push(p[t as usize]);
        }
        n += 1;
    }
    (
        TokenData::new(n, n_attr, v, w).unwrap(),
        Targets::discrete(n_attr, v, z).unwrap(),
    )
}

#[test]
fn a_bijective_lexicon_costs_about_log2_v_factorial_per_attribute() {
    // One attribute, V = 16 words: log2 16! = 44.25 bits. The whole stream, first row
    // included, is coded by the rule learner; it pays for the lexicon, for finding which
    // position speaks (the mixture's prior) and a little for its learned shares.
    for (n_attr, v) in [(1, 16), (1, 8), (3, 8)] {
        for seed in 0..3 {
            let (w, z) = bijective(n_attr, v, 20, seed);
            let total: f64 = rules_bits(&w, &z, 0, seed).iter().sum();
            let lexicon = n_attr as f64 * log2_factorial(v);
            assert!(
                total >= lexicon - 4.0 && total <= lexicon + 6.0 * n_attr as f64,
                "A = {n_attr}, V = {v}, seed {seed}: {total:.1} bits vs log2 V! x A = {lexicon:.1}"
            );
        }
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // A language (re-learning and orphans in play) and padded messages (contexts from the end).
    for data in [language3(0.5, 0), varlen(500, 1)] {
        let run = |threads| {
            let cfg = PrequentialConfig { threads, ..fast(3) };
            online_code(&data.w, &data.z, &cfg, None).unwrap()
        };
        let (a, b) = (run(1), run(2));
        assert_eq!(a.k_data, b.k_data);
        assert_eq!(a.learners, b.learners);
    }
}

fn varlen(samples: usize, seed: u64) -> Dataset {
    VarLenParams {
        samples,
        seed,
        ..Default::default()
    }
    .generate()
    .unwrap()
}

/// Variable-length messages whose meaning sits in the last real token (exact K(Z|W) = 32
/// bits): the padding token is detected from W alone (no `pad` given) and the rule learner,
/// reading positions from the message end, codes the data within 3x the exact K at every N
/// (30-148x before, with position-wise learners only).
#[test]
fn padded_messages_detected_and_within_bounds() {
    for seed in 0..3 {
        for n in [500, 2000] {
            let d = varlen(n, seed);
            let code = online_code(&d.w, &d.z, &fast(seed), None).unwrap();
            let exact = d.exact.as_ref().unwrap().k_z_given_w_bits;
            assert!(
                code.learners.iter().any(|l| l.name == "rules+pad=8"),
                "{:?}",
                code.learners
            );
            let r = code.k_data / exact;
            assert!(r <= 3.0, "N = {n}, seed {seed}: ratio {r:.2}");
        }
    }
}

#[test]
fn z_grouped_order_is_not_used_for_a_code_length() {
    // The online scheme codes `grouped` as the seeded permutation ...
    let data = language3(0.25, 0);
    let run = |ordering| {
        let cfg = PrequentialConfig {
            ordering,
            ..fast(1)
        };
        online_code(&data.w, &data.z, &cfg, None).unwrap().k_data
    };
    assert_eq!(run(Ordering::Grouped), run(Ordering::Random));
    // ... and the reference protocol keeps it, with a warning in its output.
    let cfg = PrequentialConfig {
        ordering: Ordering::Grouped,
        val_size: 100,
        ..Default::default()
    };
    let small = LanguageSystemConfig {
        repeats: 6,
        ..Default::default()
    }
    .dataset()
    .unwrap();
    let r = language_compositionality(&small.w, &small.z, &cfg, None).unwrap();
    assert!(r.warnings.iter().any(|w| w.contains("grouped by Z")));
}

/// prequential / exact K(Z|W) and C on language systems of 3 attributes x 5 values: within
/// the required bounds (3 below 100 exact bits, 2 above) and C strictly decreasing in h from
/// 0 to 0.75. (From 0.75 to 1 it is not on every seed: with three quarters of the objects
/// holistic the lexicon saves a few bits at most, about the learner's noise; here, with 10
/// rows per object, seed 2 codes h = 1 in fewer bits. See experiments/prequential-accuracy.)
#[test]
fn language_systems_within_bounds_and_c_decreasing_in_h() {
    for seed in 0..3 {
        let mut last_c = f64::INFINITY;
        for h in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let data = language3(h, seed);
            let exact = data.exact.as_ref().unwrap().k_z_given_w_bits;
            let r = language_compositionality(&data.w, &data.z, &fast(seed), None).unwrap();
            let ratio = r.k_data / exact;
            let bound = if exact >= 100.0 { 2.0 } else { 3.0 };
            assert!(ratio <= bound, "h = {h}, seed {seed}: ratio {ratio:.2}");
            if h < 1.0 {
                assert!(
                    r.c_l < last_c,
                    "h = {h}, seed {seed}: C {} >= {last_c}",
                    r.c_l
                );
            }
            last_c = r.c_l;
        }
    }
}

/// Korbak et al.'s protocols at 8 x 8: the compositional ones (the non-trivially
/// compositional one too, through the sum/difference basis) within 3x of their exact K(Z|W),
/// and the non-trivially compositional one clearly shorter than the holistic one.
#[test]
fn protocols_compositional_within_bounds_and_ntc_shorter_than_holistic() {
    let k = |kind, seed| {
        let d = protocol(kind, seed);
        let code = online_code(&d.w, &d.z, &fast(seed), None).unwrap();
        (code.k_data, d.exact.unwrap().k_z_given_w_bits)
    };
    for seed in 0..2 {
        for kind in [
            ProtocolKind::TriviallyCompositional,
            ProtocolKind::NonTriviallyCompositional,
            ProtocolKind::OrderSensitive,
            ProtocolKind::Negation,
        ] {
            let (bits, exact) = k(kind, seed);
            assert!(
                bits <= 3.0 * exact,
                "{kind:?} seed {seed}: {bits:.1} vs {exact:.1}"
            );
        }
        let (ntc, _) = k(ProtocolKind::NonTriviallyCompositional, seed);
        let (hol, _) = k(ProtocolKind::Holistic, seed);
        assert!(
            ntc < 0.5 * hol,
            "seed {seed}: {ntc:.1} vs holistic {hol:.1}"
        );
    }
}

/// The 5 x 5 protocols whose exact K(Z|W) is smallest (negation: 9.5 bits, non-trivially
/// compositional: 21.8) within 3x at N = 500 and 5,000 (3 seeds), and context-sensitive 8 x 8
/// at its smallest N (2 utterances per object, 384 rows, exact 799 bits) within 2x: the
/// attribute a message leaves unsaid is drawn afresh per row, which the cells' infinite
/// strength codes at about its entropy.
#[test]
fn small_protocols_within_bounds() {
    let run = |kind, size, repeats, seed| {
        let d = ProtocolParams {
            kind,
            colours: size,
            shapes: size,
            repeats,
            seed,
        }
        .dataset()
        .unwrap();
        let code = online_code(&d.w, &d.z, &fast(seed), None).unwrap();
        let exact = d.exact.unwrap().k_z_given_w_bits;
        code.k_data / exact
    };
    for seed in 0..3 {
        for kind in [
            ProtocolKind::Negation,
            ProtocolKind::NonTriviallyCompositional,
        ] {
            for repeats in [20, 200] {
                let r = run(kind, 5, repeats, seed);
                assert!(
                    r <= 3.0,
                    "{kind:?} 5x5 x{repeats}, seed {seed}: ratio {r:.2}"
                );
            }
        }
        let r = run(ProtocolKind::ContextSensitive, 8, 2, seed);
        assert!(
            r <= 2.0,
            "context-sensitive 8x8 x2, seed {seed}: ratio {r:.2}"
        );
    }
}

/// `rules:key=value:...` sets the rule learner's settings; a bad key or value is refused with
/// a message naming it. Without the sum/difference bases the non-trivially compositional
/// protocol is back to about the holistic price, so the bases are what buys it.
#[test]
fn rule_settings_parse_and_the_sum_difference_basis_matters() {
    let s = LearnerSpec::parse("rules:sum_diff_max_attrs=0:all_pairs_max_len=4").unwrap();
    let LearnerSpec::Rules(set) = &s else {
        panic!("{s:?}")
    };
    assert_eq!((set.sum_diff_max_attrs, set.all_pairs_max_len), (0, 4));
    assert_eq!(s.name(), "rules:all_pairs_max_len=4:sum_diff_max_attrs=0");
    assert_eq!(
        LearnerSpec::parse("rules").unwrap(),
        LearnerSpec::Rules(RuleSettings::default())
    );
    for bad in [
        "rules:foo=1",
        "rules:sum_diff_max_attrs=x",
        "rules:max",
        "rules:all_pairs_max_len=99",
    ] {
        let e = LearnerSpec::parse(bad).unwrap_err();
        assert!(e.contains("rules"), "{bad}: {e}");
    }
    // A TOML table takes the same settings.
    let cfg: OnlineConfig =
        toml::from_str("learners = [{ kind = \"rules\", sum_diff_max_attrs = 0 }, \"marginal\"]")
            .unwrap();
    assert_eq!(cfg.learners[0], no_sum_diff());

    let d = protocol(ProtocolKind::NonTriviallyCompositional, 0);
    let cfg = |spec: LearnerSpec| PrequentialConfig {
        online: OnlineConfig {
            learners: vec![LearnerSpec::Marginal, spec],
            ..Default::default()
        },
        ..fast(0)
    };
    let with = online_code(
        &d.w,
        &d.z,
        &cfg(LearnerSpec::Rules(Default::default())),
        None,
    )
    .unwrap()
    .k_data;
    let without = online_code(&d.w, &d.z, &cfg(no_sum_diff()), None)
        .unwrap()
        .k_data;
    assert!(with < 0.5 * without, "{with:.1} vs {without:.1}");
}

fn no_sum_diff() -> LearnerSpec {
    LearnerSpec::Rules(RuleSettings {
        sum_diff_max_attrs: 0,
        ..Default::default()
    })
}

/// The rule learner's probabilities of every possible Z of a row sum to at most 1 (a valid
/// code), at points along the stream, on data whose messages name several objects (Korbak et
/// al.'s random protocol: once every object is named, an exception's pool must stay the same
/// for every candidate), holistic, negation and non-trivially compositional data (the
/// sum/difference basis).
#[test]
fn every_rows_probabilities_sum_to_at_most_one() {
    let protocols = [
        (ProtocolKind::Random, 5, 80),
        (ProtocolKind::Holistic, 4, 20),
        (ProtocolKind::Negation, 4, 20),
        (ProtocolKind::NonTriviallyCompositional, 4, 20),
        // Padding detected from runs of one (`c _`, `s _`, `c s`): contexts from the end.
        (ProtocolKind::ContextSensitive, 4, 5),
    ]
    .map(|(kind, size, repeats)| {
        let d = ProtocolParams {
            kind,
            colours: size,
            shapes: size,
            repeats,
            seed: 0,
        }
        .dataset()
        .unwrap();
        (format!("{kind:?}"), d)
    });
    // A sparse lexicon: the joint mode's assignments carry weight.
    let language = ("language 2x8 h = 0.75".to_string(), language2x8(0.75, 4, 1));
    for (kind, d) in protocols.into_iter().chain([language]) {
        let Targets::Discrete {
            values,
            n_attr,
            n_vals,
        } = d.z.clone()
        else {
            unreachable!()
        };
        let cfg = OnlineConfig::default();
        let order = order_rows(&d.z, Ordering::Random, 0);
        let spec = LearnerSpec::Rules(Default::default());
        let mut l = make_online_learner(&spec, &cfg, &d.w, &d.z, 0).unwrap();
        let mut worst: f64 = 0.0;
        for (k, &r) in order.iter().enumerate() {
            if k % 37 == 5 {
                let mut total = 0.0;
                for code in 0..(n_vals as u32).pow(n_attr as u32) {
                    let mut v2 = values.clone();
                    for a in 0..n_attr {
                        v2[r * n_attr + a] = code / (n_vals as u32).pow(a as u32) % n_vals as u32;
                    }
                    let z2 = Targets::discrete(n_attr, n_vals, v2).unwrap();
                    total += (-l.code(&d.w, &z2, &[r])[0]).exp2();
                }
                worst = worst.max(total);
            }
            l.learn(&d.w, &d.z, &order[..k + 1], 1);
        }
        assert!(
            worst <= 1.0 + 1e-9,
            "{kind}: a row's probabilities sum to {worst}"
        );
        assert!(worst > 0.5, "{kind}: {worst}");
    }
}

/// Language 2 x 8 at h = 0.75: only 16 of the 64 objects keep their lexicon message. N = 960
/// seed 0 and N = 4,992 seeds 0 and 2 (experiments/prequential-accuracy): before the lexicon
/// sampler the rule learner coded h = 0.75 in 316.9, 318.8 and 321.7 bits against 318.8, 316.3
/// and 318.0 at h = 1 (the last two the wrong way); with it about 292 against 302.
#[test]
fn c_decreases_from_h_three_quarters_to_one_on_a_sparse_lexicon() {
    for (repeats, seed) in [(15, 0), (78, 0), (78, 2)] {
        let k = |h: f64| {
            let d = language2x8(h, repeats, seed);
            let exact = d.exact.as_ref().unwrap().k_z_given_w_bits;
            let r = language_compositionality(&d.w, &d.z, &fast(seed), None).unwrap();
            assert!(r.k_data / exact < 1.1, "h = {h}: {} of {exact}", r.k_data);
            r
        };
        let (a, b) = (k(0.75), k(1.0));
        assert!(a.c_l > b.c_l, "C {} at h = 0.75, {} at h = 1", a.c_l, b.c_l);
        assert!(
            b.k_data - a.k_data > 5.0,
            "{repeats} repeats, seed {seed}: K(Z|W) {} at h = 0.75, {} at h = 1",
            a.k_data,
            b.k_data
        );
    }
}
