//! C's floor is 1: an unrelated W (a language's rows shuffled) gets C = K(Z)/K(Z|W) within
//! 1 +- 0.01, on discrete Z (random languages over distinct objects, each object once: the case
//! where K(Z) used to be an i.i.d. code while the rule learner exploited that the rows are
//! distinct objects, C 1.17-1.24) and on small continuous Z (N = 48-200); real languages stay
//! above their controls. K(Z) is the online learners' code of Z without W, and K(Z|W)'s mixture
//! holds it, so K(Z|W) <= K(Z) + 3 bits.

use kcomp::dataset::{Targets, TokenData};
use kcomp::estimators::prequential::code::online_default;
use kcomp::estimators::prequential::online::LearnerSpec;
use kcomp::estimators::prequential::{KzMethod, PrequentialConfig, language_compositionality};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The default learners without the networks (their training would take most of the test's
/// time; they never win on these data).
fn config(seed: u64) -> PrequentialConfig {
    let mut cfg = online_default();
    cfg.seed = seed;
    cfg.online.learners.retain(|l| !l.is_network());
    cfg
}

fn shuffled(w: &TokenData, seed: u64) -> TokenData {
    let mut perm: Vec<usize> = (0..w.n).collect();
    kcomp::rng::shuffle(&mut perm, &mut ChaCha8Rng::seed_from_u64(seed));
    let tokens = perm.iter().flat_map(|&r| w.row(r).to_vec()).collect();
    TokenData::new(w.n, w.n_words, w.vocab, tokens).unwrap()
}

/// Every object of `a` attributes x `v` values once, in a random order; W names the object by
/// one token per attribute (a compositional language over a shuffled alphabet) or by one
/// arbitrary two-token message per object (holistic).
fn distinct_objects(a: usize, v: usize, holistic: bool, seed: u64) -> (TokenData, Targets) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let o = v.pow(a as u32);
    let mut objects: Vec<usize> = (0..o).collect();
    kcomp::rng::shuffle(&mut objects, &mut rng);
    let mut alphabet: Vec<u32> = (0..(a * v) as u32).collect();
    kcomp::rng::shuffle(&mut alphabet, &mut rng);
    let mut messages: Vec<usize> = (0..o).collect();
    kcomp::rng::shuffle(&mut messages, &mut rng);
    let (mut values, mut tokens) = (Vec::new(), Vec::new());
    for &obj in &objects {
        let mut rest = obj;
        let attrs: Vec<u32> = (0..a)
            .map(|_| {
                let x = (rest % v) as u32;
                rest /= v;
                x
            })
            .collect();
        values.extend(&attrs);
        if holistic {
            // A random injective message of `a` tokens over `v` symbols per position.
            let mut m = messages[obj];
            for _ in 0..a {
                tokens.push((m % v) as u32);
                m /= v;
            }
        } else {
            tokens.extend(
                attrs
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| alphabet[i * v + x as usize]),
            );
        }
    }
    let w = TokenData::new(o, a, a * v, tokens).unwrap();
    (w, Targets::discrete(a, v, values).unwrap())
}

#[test]
fn unrelated_w_gets_c_1_on_distinct_objects() {
    for (a, v, seed) in [(2, 10, 0), (2, 10, 1), (2, 25, 2), (3, 5, 3)] {
        for holistic in [false, true] {
            let (w, z) = distinct_objects(a, v, holistic, seed);
            let cfg = config(seed);
            let real = language_compositionality(&w, &z, &cfg, None).unwrap();
            let control =
                language_compositionality(&shuffled(&w, 99 + seed), &z, &cfg, None).unwrap();
            assert_eq!(control.k_z_method, KzMethod::Prequential);
            assert_eq!(real.k_z, control.k_z);
            // K(Z) knows the rows are distinct objects: about log2 O! bits, not O log2 O.
            let o = v.pow(a as u32);
            let log2_fact: f64 = (1..=o).map(|k| (k as f64).log2()).sum();
            assert!(
                control.k_z < log2_fact + 16.0,
                "{a}x{v}: K(Z) {} vs log2 {o}! = {log2_fact:.1}",
                control.k_z
            );
            eprintln!(
                "{a}x{v} holistic={holistic} seed {seed}: K(Z) {:.1}, shuffled K(Z|W) {:.1}, \
                 C {:.4}; real C {:.4}",
                control.k_z, control.k_data, control.c_l, real.c_l
            );
            assert!(
                (control.c_l - 1.0).abs() <= 0.01,
                "{a}x{v} holistic={holistic} seed {seed}: shuffled C = {}",
                control.c_l
            );
            // The language itself: far above its control when compositional; a holistic one
            // (a random bijection) says nothing a shuffled one does not, up to the lexicon.
            if holistic {
                assert!(real.c_l > 0.99, "holistic {a}x{v}: C = {}", real.c_l);
            } else {
                assert!(real.c_l > 2.0, "compositional {a}x{v}: C = {}", real.c_l);
            }
        }
    }
}

/// Small continuous data (N = 48 and 200, D = 6 correlated dimensions): W unrelated to Z gets
/// C within 1 +- 0.01; W that determines Z (a lookup of its tokens plus noise) stays above.
#[test]
fn unrelated_w_gets_c_1_on_small_continuous_data() {
    for (n, seed) in [(48usize, 0u64), (48, 1), (200, 2)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (len, vocab, dim) = (4usize, 6usize, 6usize);
        let tokens: Vec<u32> = (0..n * len)
            .map(|_| rng.random_range(0..vocab as u32))
            .collect();
        let w = TokenData::new(n, len, vocab, tokens).unwrap();
        let table: Vec<f64> = (0..len * vocab * dim)
            .map(|_| rng.random::<f64>() - 0.5)
            .collect();
        let mut values = Vec::new();
        for r in 0..n {
            let common: f64 = rng.random::<f64>() - 0.5;
            for d in 0..dim {
                let signal: f64 = w
                    .row(r)
                    .iter()
                    .enumerate()
                    .map(|(p, &t)| table[(p * vocab + t as usize) * dim + d])
                    .sum();
                values.push(signal + common + 0.05 * (rng.random::<f64>() - 0.5));
            }
        }
        let z = Targets::from_floats(dim, 0.01, &values).unwrap();
        let cfg = config(seed);
        let real = language_compositionality(&w, &z, &cfg, None).unwrap();
        let control = language_compositionality(&shuffled(&w, 7 + seed), &z, &cfg, None).unwrap();
        eprintln!(
            "N = {n}: K(Z) {:.1}, shuffled K(Z|W) {:.1}, C {:.4}; real C {:.4}",
            control.k_z, control.k_data, control.c_l, real.c_l
        );
        assert!(
            (control.c_l - 1.0).abs() <= 0.01,
            "N = {n}: shuffled C = {} (K(Z) {:.1}, K(Z|W) {:.1})",
            control.c_l,
            control.k_z,
            control.k_data
        );
        assert!(
            real.c_l > control.c_l + 0.01,
            "N = {n}: C {} vs shuffled {}",
            real.c_l,
            control.c_l
        );
    }
}

/// The default learner set, networks included, on a small discrete set: same floor.
#[test]
fn the_full_default_set_keeps_the_floor() {
    let (w, z) = distinct_objects(2, 10, true, 5);
    let cfg = PrequentialConfig {
        seed: 5,
        ..online_default()
    };
    assert!(cfg.online.learners.iter().any(LearnerSpec::is_network));
    let control = language_compositionality(&shuffled(&w, 11), &z, &cfg, None).unwrap();
    assert!(
        (control.c_l - 1.0).abs() <= 0.01,
        "shuffled C = {}",
        control.c_l
    );
}

/// kcomp's own generators with each object once (N = 100-625), W's rows permuted: C within
/// 1 +- 0.01 for every kind; the languages themselves above their controls where W says
/// something about the object beyond which objects exist (compositional kinds), and not below
/// them where it does not (holistic and random messages: a bijection of distinct objects).
#[test]
fn unrelated_w_gets_c_1_on_generated_languages_each_object_once() {
    use kcomp::datasets::language_system::LanguageSystemConfig;
    use kcomp::datasets::protocols::{ProtocolKind, ProtocolParams};
    let mut cases: Vec<(String, TokenData, Targets, bool)> = Vec::new();
    for (kind, size, seed) in ProtocolKind::ALL
        .into_iter()
        .map(|k| (k, 10usize, 1u64))
        .chain([(ProtocolKind::TriviallyCompositional, 25, 2)])
    {
        let p = ProtocolParams {
            kind,
            colours: size,
            shapes: size,
            repeats: 1,
            seed,
        }
        .generate()
        .unwrap();
        let informative = !matches!(kind, ProtocolKind::Holistic | ProtocolKind::Random);
        cases.push((format!("{kind:?} {size}x{size}"), p.w, p.z, informative));
    }
    for (a, v, holistic_fraction, seed) in [(2, 10, 0.0, 3), (4, 5, 0.0, 4), (2, 10, 1.0, 5)] {
        let l = LanguageSystemConfig {
            n_attr: a,
            n_vals: v,
            msg_len: a,
            vocab: v,
            repeats: 1,
            holistic_fraction,
            seed,
            ..Default::default()
        }
        .generate()
        .unwrap();
        let name = format!("language {a}x{v} holistic {holistic_fraction}");
        cases.push((name, l.w, l.z, holistic_fraction < 1.0));
    }
    for (i, (name, w, z, informative)) in cases.iter().enumerate() {
        assert!((100..=625).contains(&w.n), "{name}: N = {}", w.n);
        let cfg = config(i as u64);
        let real = language_compositionality(w, z, &cfg, None).unwrap();
        let control =
            language_compositionality(&shuffled(w, 31 + i as u64), z, &cfg, None).unwrap();
        eprintln!(
            "{name} (N = {}): K(Z) {:.1}, shuffled K(Z|W) {:.1}, C {:.4}; real C {:.4}",
            w.n, control.k_z, control.k_data, control.c_l, real.c_l
        );
        assert!(
            (control.c_l - 1.0).abs() <= 0.01,
            "{name}: shuffled C = {}",
            control.c_l
        );
        if *informative {
            assert!(
                real.c_l > control.c_l + 0.01,
                "{name}: C {} vs shuffled {}",
                real.c_l,
                control.c_l
            );
        } else {
            assert!(
                real.c_l >= control.c_l - 0.01,
                "{name}: C {} vs shuffled {}",
                real.c_l,
                control.c_l
            );
        }
    }
}

/// A small open-ended continuous world like the human iterated-learning experiments' 48
/// triangles: meanings are 3 continuous features (size, elongation, rotation), and a language
/// names a coarse bin of each (3 x 4 x 4 categories, one word each, 10 % of the words replaced
/// by a random one). Shuffled: C within 1 +- 0.01; the language: above its control.
#[test]
fn unrelated_w_gets_c_1_on_48_continuous_meanings() {
    for seed in [0u64, 1, 2] {
        let mut rng = ChaCha8Rng::seed_from_u64(100 + seed);
        let n = 48usize;
        let bins = [3usize, 4, 4];
        let vocab: usize = bins.iter().sum();
        let (mut tokens, mut values) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let mut offset = 0u32;
            for &b in &bins {
                let x: f64 = rng.random();
                values.push(x);
                let word = if rng.random::<f64>() < 0.1 {
                    rng.random_range(0..vocab as u32)
                } else {
                    offset + ((x * b as f64) as u32).min(b as u32 - 1)
                };
                tokens.push(word);
                offset += b as u32;
            }
        }
        let w = TokenData::new(n, bins.len(), vocab, tokens).unwrap();
        let z = Targets::from_floats(bins.len(), 0.01, &values).unwrap();
        let cfg = config(seed);
        let real = language_compositionality(&w, &z, &cfg, None).unwrap();
        let control = language_compositionality(&shuffled(&w, 5 + seed), &z, &cfg, None).unwrap();
        eprintln!(
            "48 triangles seed {seed}: K(Z) {:.1}, shuffled K(Z|W) {:.1}, C {:.4}; real C {:.4}",
            control.k_z, control.k_data, control.c_l, real.c_l
        );
        assert!(
            (control.c_l - 1.0).abs() <= 0.01,
            "seed {seed}: shuffled C = {}",
            control.c_l
        );
        assert!(
            real.c_l > control.c_l + 0.01,
            "seed {seed}: C {} vs shuffled {}",
            real.c_l,
            control.c_l
        );
    }
}
