//! The online scheme is a valid code: no row is coded by a learner that has seen it, the
//! per-row lengths sum to the total, and the switching mixture stays within its bound.

use std::collections::HashSet;

use kcomp::dataset::{Dataset, Targets, TokenData};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::estimators::interface::Estimator;
use kcomp::estimators::prequential::estimator::PrequentialEstimator;
use kcomp::estimators::prequential::naive::naive_bits;
use kcomp::estimators::prequential::online::{
    LearnerSpec, OnlineConfig, OnlineLearner, make_online_learner, online_code, run_learner,
};
use kcomp::estimators::prequential::schedule::order_rows;
use kcomp::estimators::prequential::switching::{Mixing, mix};
use kcomp::estimators::prequential::{Ordering, PrequentialConfig, Scheme};

fn lookup(n: usize, q: usize) -> Dataset {
    let p = LookupParams {
        samples: n,
        ngram: q,
        vocab: if q == 1 { 10 } else { 2 },
        seed: 3,
        ..Default::default()
    };
    generate(&p).unwrap().to_dataset().unwrap()
}

fn language(h: f64) -> Dataset {
    LanguageSystemConfig {
        repeats: 4,
        holistic_fraction: h,
        seed: 2,
        ..Default::default()
    }
    .dataset()
    .unwrap()
}

/// Every kind of learner, with the ingredients switched on (EMA, calibration, replay).
fn all_specs() -> Vec<LearnerSpec> {
    vec![
        LearnerSpec::Marginal,
        LearnerSpec::Ngram { order: 2 },
        LearnerSpec::Rules(Default::default()),
        LearnerSpec::Linear {
            order: 1,
            ridge: 1e-2,
        },
        LearnerSpec::Mlp {
            emb_dim: 4,
            hidden: vec![16],
            lr: 0.01,
            lr_decay_rows: 50,
            ema: 0.9,
            calibrate: true,
        },
    ]
}

fn small_online() -> OnlineConfig {
    OnlineConfig {
        first: 8,
        first_discrete: 8,
        epochs: 2.0,
        max_steps: 20,
        batch_size: 8,
        learners: all_specs(),
        ..Default::default()
    }
}

/// Wraps a learner and fails if a row is coded after the learner was shown it.
struct Spy {
    inner: Box<dyn OnlineLearner>,
    seen: HashSet<usize>,
    coded: Vec<usize>,
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
        // `sent` is exactly what was sent: the first block and the coded rows, in order.
        assert_eq!(&sent[8..], &self.coded[..], "learn sees rows never sent");
        self.seen.extend(&sent[sent.len() - n_new..]);
        self.inner.learn(w, z, sent, n_new);
    }
}

#[test]
fn no_row_is_coded_by_a_learner_that_saw_it() {
    for data in [lookup(120, 1), language(0.5)] {
        let cfg = small_online();
        let order = order_rows(&data.z, Ordering::Random, 5);
        let bounds = cfg.boundaries(order.len());
        for spec in &cfg.learners {
            let Some(inner) = make_online_learner(spec, &cfg, &data.w, &data.z, 1) else {
                // Linear learners need continuous Z, the rule learner discrete Z.
                assert!(
                    (matches!(spec, LearnerSpec::Linear { .. }) && data.is_discrete())
                        || (matches!(spec, LearnerSpec::Rules(_)) && !data.is_discrete())
                );
                continue;
            };
            let mut spy = Spy {
                inner,
                seen: HashSet::new(),
                coded: Vec::new(),
            };
            let bits = run_learner(&mut spy, &data.w, &data.z, &order, &bounds);
            // Every row after the first block is coded exactly once, in order.
            assert_eq!(spy.coded, order[8..].to_vec(), "{}", spec.name());
            assert_eq!(bits.len(), order.len() - 8);
            assert!(bits.iter().all(|b| b.is_finite() && *b >= 0.0));
        }
    }
}

/// Changing the target of one row changes nothing coded before it: the code is causal,
/// calibration and EMA included.
#[test]
fn perturbing_a_later_row_leaves_earlier_codes_unchanged() {
    let data = lookup(100, 1);
    let cfg = small_online();
    let order = order_rows(&data.z, Ordering::Random, 5);
    let bounds = cfg.boundaries(order.len());
    let j = 60; // position in the order of the perturbed row
    let mut z2 = data.z.clone();
    if let Targets::Continuous { grid, dim, .. } = &mut z2 {
        for d in 0..*dim {
            grid[order[j] * *dim + d] += 37;
        }
    }
    for spec in &cfg.learners {
        if matches!(spec, LearnerSpec::Rules(_)) {
            continue; // discrete Z only: tests/prequential_rules.rs
        }
        let run = |z: &Targets| {
            let mut l = make_online_learner(spec, &cfg, &data.w, z, 1).unwrap();
            run_learner(l.as_mut(), &data.w, z, &order, &bounds)
        };
        let (a, b) = (run(&data.z), run(&z2));
        let k = j - 8;
        assert_eq!(a[..k], b[..k], "{}", spec.name());
        assert_ne!(a[k], b[k], "{}", spec.name());
    }
}

#[test]
fn per_row_codes_sum_to_the_total_and_the_mixture_is_bounded() {
    for data in [lookup(150, 2), language(0.0)] {
        let cfg = PrequentialConfig {
            seed: 4,
            ordering: Ordering::Random,
            val_size: 0,
            scheme: Scheme::Online,
            online: small_online(),
            ..Default::default()
        };
        let code = online_code(&data.w, &data.z, &cfg, None).unwrap();
        let order = order_rows(&data.z, Ordering::Random, 4);
        let first = naive_bits(&data.z, &order[..8]);
        let chunk_sum: f64 = code.chunks.iter().map(|c| c.bits).sum();
        assert!((chunk_sum - code.k_data).abs() < 1e-6 * code.k_data);
        assert_eq!(code.chunks[0].bits, first);
        assert_eq!(code.n_encoded, data.n());
        // Switching costs at most log2 K + log2 n above the best learner in hindsight.
        let k = code.learners.len() as f64;
        let n = (data.n() - 8) as f64;
        let best = code
            .learners
            .iter()
            .map(|l| l.bits)
            .fold(f64::INFINITY, f64::min);
        assert!(
            code.k_data - first <= best + k.log2() + n.log2() + 1e-6,
            "{} vs {best}",
            code.k_data - first
        );
        let w: f64 = code.learners.iter().map(|l| l.final_weight).sum();
        assert!((w - 1.0).abs() < 1e-9);
        // Deterministic whatever the thread count.
        let one = online_code(
            &data.w,
            &data.z,
            &PrequentialConfig {
                threads: 1,
                ..cfg.clone()
            },
            None,
        )
        .unwrap();
        assert_eq!(one.k_data, code.k_data);
    }
}

#[test]
fn bayes_mixture_of_real_learners_costs_at_most_log2_k_more_than_the_best() {
    let data = lookup(150, 1);
    let cfg = small_online();
    let order = order_rows(&data.z, Ordering::Random, 5);
    let bounds = cfg.boundaries(order.len());
    // (The rule learner does not apply to continuous Z.)
    let per: Vec<Vec<f64>> = cfg
        .learners
        .iter()
        .filter_map(|s| make_online_learner(s, &cfg, &data.w, &data.z, 1))
        .map(|mut l| run_learner(l.as_mut(), &data.w, &data.z, &order, &bounds))
        .collect();
    let best = per
        .iter()
        .map(|b| b.iter().sum::<f64>())
        .fold(f64::INFINITY, f64::min);
    let mixed: f64 = mix(&per, Mixing::Bayes).bits.iter().sum();
    assert!(mixed <= best + (per.len() as f64).log2() + 1e-6);
    assert!(mixed >= best - (per.len() as f64).log2() - 1e-6);
}

#[test]
fn online_scheme_through_the_panel_estimator_encodes_every_row() {
    let data = language(0.0);
    let mut est = PrequentialEstimator::default();
    est.config.scheme = Scheme::Online;
    est.config.online = small_online();
    assert!(est.applies_to(&data).is_ok());
    let e = est
        .estimate(&data, &indicatif::ProgressBar::hidden())
        .unwrap();
    let kzw = match e.measure {
        kcomp::estimators::interface::Measure::CodeLength { k_z_given_w_bits } => k_z_given_w_bits,
        _ => unreachable!(),
    };
    assert_eq!(e.native["n_encoded"], data.n());
    assert_eq!(e.native["n_validation"], 0);
    // A compositional language: far below the uniform code of the objects.
    assert!(kzw < 0.5 * data.k_z.bits, "{kzw} vs {}", data.k_z.bits);
}

#[test]
fn the_reference_scheme_is_the_default_and_stays_out_of_serialised_configs() {
    let cfg = PrequentialConfig::default();
    assert_eq!(cfg.scheme, Scheme::Reference);
    let text = toml::to_string(&cfg).unwrap();
    assert!(
        !text.contains("scheme") && !text.contains("online"),
        "{text}"
    );
    let back: PrequentialConfig = toml::from_str("scheme = \"online\"").unwrap();
    assert_eq!(back.scheme, Scheme::Online);
    assert!(toml::from_str::<PrequentialConfig>("scheme = \"bogus\"").is_err());
    let bad = OnlineConfig {
        mixing: Mixing::FixedShare { alpha: 2.0 },
        ..Default::default()
    };
    assert!(bad.validate().is_err());
}

#[test]
fn user_facing_configs_default_to_online_unless_reference_keys_are_set() {
    use kcomp::estimators::prequential::run_config::resolve;
    use kcomp::panel::config::PanelPrequential;
    let scheme = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        resolve(None, &[], &sets).unwrap().config.prequential.scheme
    };
    // Nothing set: online, for `kcomp prequential` and for a panel.
    assert_eq!(scheme(&[]), Scheme::Online);
    assert_eq!(scheme(&["prequential.seed=3"]), Scheme::Online);
    assert_eq!(PanelPrequential::default().config.scheme, Scheme::Online);
    let p: PanelPrequential = toml::from_str("[config]\nordering = \"random\"\n").unwrap();
    assert_eq!(p.config.scheme, Scheme::Online);
    // A reference-only key without a scheme is an error naming the key (or the flag) and the
    // protocol it needs, never a silent switch of estimator; an explicit scheme is kept.
    let e = toml::from_str::<PanelPrequential>("[config.train]\nlr = 0.1\n").unwrap_err();
    assert!(
        e.to_string().contains("prequential.config.train")
            && e.to_string().contains("--protocol reference"),
        "{e}"
    );
    let p: PanelPrequential =
        toml::from_str("[config]\nscheme = \"reference\"\n[config.train]\nlr = 0.1\n").unwrap();
    assert_eq!(p.config.scheme, Scheme::Reference);
    for s in ["prequential.val_size=10", "prequential.model.hidden=[8]"] {
        let e = resolve(None, &[], &[s.to_string()])
            .unwrap_err()
            .to_string();
        let key = s.split('=').next().unwrap();
        let head = key.rsplit_once('.').map_or(key, |(a, _)| a);
        assert!(
            (e.contains(key) || e.contains(head)) && e.contains("--protocol reference"),
            "{s}: {e}"
        );
    }
    assert_eq!(
        scheme(&[
            "prequential.scheme=\"reference\"",
            "prequential.val_size=10"
        ]),
        Scheme::Reference
    );
    // An explicit online scheme with a setting only the reference reads: an error naming it,
    // not a silently ignored value.
    let sets: Vec<String> = ["prequential.scheme=\"online\"", "prequential.val_size=9"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let e = resolve(None, &[], &sets).unwrap_err().to_string();
    assert!(e.contains("val_size"), "{e}");
    // A padding token (`--pad`) keeps the online scheme and adds the GRU to its learners.
    let padded = resolve(None, &[], &["prequential.online.pad=8".into()])
        .unwrap()
        .config
        .prequential;
    assert_eq!(padded.scheme, Scheme::Online);
    assert_eq!(padded.online.pad, Some(8));
    let set = padded.online.learner_set();
    assert_eq!(set.len(), padded.online.learners.len() + 1);
    assert_eq!(set.last(), Some(&LearnerSpec::default_sequence()));
    // Saved settings reload as the scheme that made them, and their fingerprints differ.
    let online = resolve(None, &[], &[]).unwrap().config;
    assert_eq!(online.prequential.scheme, Scheme::Online);
    let reference = resolve(None, &[], &["prequential.scheme=\"reference\"".into()])
        .unwrap()
        .config;
    assert_eq!(reference.prequential.scheme, Scheme::Reference);
    let (fo, fr) = (
        online.fingerprint().unwrap(),
        reference.fingerprint().unwrap(),
    );
    assert_ne!(fo, fr);
    assert!(fo.contains("scheme = \"online\""), "{fo}");
    // Both name their scheme, so a saved reference config.toml (which sets reference-only
    // keys) reads back without an error.
    assert!(fr.contains("scheme = \"reference\""), "{fr}");
    let dir = tempfile::tempdir().unwrap();
    for (f, s) in [(&fo, Scheme::Online), (&fr, Scheme::Reference)] {
        let path = dir.path().join("config.toml");
        std::fs::write(&path, f).unwrap();
        let back = resolve(Some(&path), &[], &[]).unwrap().config;
        assert_eq!(back.prequential.scheme, s);
        assert_eq!(back.fingerprint().unwrap(), *f);
    }
    // The shipped named configurations name the reference protocol their figures come from.
    for f in [
        "configs/prequential/emergent.toml",
        "configs/prequential/emergent-holistic.toml",
    ] {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(f);
        let c = resolve(Some(&p), &[], &[]).unwrap().config;
        assert_eq!(c.prequential.scheme, Scheme::Reference, "{f}");
    }
}
