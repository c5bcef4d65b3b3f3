//! The prequential engine on small data: real values, not just "it runs".

use kcomp::coding::bits::nats_to_bits;
use kcomp::dataset::{Targets, TokenData};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::estimators::prequential::{
    ModelConfig, PrequentialConfig, Schedule, language_compositionality, prequential_code,
};
use kcomp::neural::fast::FastMlp;
use kcomp::neural::train::{Learner, TrainConfig};
use kcomp::neural::{HeadSpec, MlpSpec};

fn small_language(h: f64, seed: u64) -> (TokenData, Targets) {
    let ls = LanguageSystemConfig {
        n_attr: 2,
        n_vals: 4,
        msg_len: 2,
        vocab: 4,
        repeats: 10,
        holistic_fraction: h,
        seed,
        ..Default::default()
    }
    .generate()
    .unwrap();
    (ls.w, ls.z)
}

fn small_cfg() -> PrequentialConfig {
    PrequentialConfig {
        seed: 1,
        val_size: 20,
        schedule: Schedule::Increment { min: 10, step: 10 },
        model: ModelConfig {
            emb_dim: 8,
            hidden: vec![32],
            ..Default::default()
        },
        train: TrainConfig {
            lr: 1e-2,
            batch_size: 10,
            max_epochs: 200,
            patience: 10,
            tolerance: 1e-3,
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn bits_not_nats() {
    assert!((nats_to_bits(std::f64::consts::LN_2) - 1.0).abs() < 1e-15);
    // An untrained model with a zero output layer codes each 8-valued attribute with exactly
    // log2 8 = 3 bits (2.079 nats would be the wrong unit).
    let spec = MlpSpec {
        vocab: 8,
        n_words: 2,
        emb_dim: 4,
        hidden: vec![8],
        dropout: 0.0,
        head: HeadSpec::Categorical {
            n_attr: 2,
            n_vals: 8,
        },
    };
    let mut m = FastMlp::new(&spec, 1e-3, 0);
    m.zero_output_layer();
    let w = TokenData::new(3, 2, 8, vec![0, 1, 2, 3, 4, 5]).unwrap();
    let z = Targets::discrete(2, 8, vec![0, 7, 3, 3, 1, 6]).unwrap();
    let bits = m.code_bits(&w, &z, &[0, 1, 2]);
    assert!((bits - 18.0).abs() < 1e-5, "{bits}");
}

#[test]
fn untrained_model_code_equals_uniform_code() {
    // An untrained model (output layer at its zero initialisation) codes every row with the
    // uniform code, A log2 V bits, whatever the data: in the fast and the burn implementation.
    let ls = LanguageSystemConfig::default().generate().unwrap();
    let spec = MlpSpec {
        vocab: 8,
        n_words: 2,
        emb_dim: 16,
        hidden: vec![32, 32],
        dropout: 0.0,
        head: HeadSpec::Categorical {
            n_attr: 2,
            n_vals: 8,
        },
    };
    let mut m = FastMlp::new(&spec, 1e-3, 11);
    m.zero_output_layer();
    let idx: Vec<usize> = (0..ls.w.n).collect();
    let uniform = ls.w.n as f64 * 6.0;
    let bits = m.code_bits(&ls.w, &ls.z, &idx);
    assert!(
        (bits - uniform).abs() < 1e-6 * uniform,
        "{bits} vs {uniform}"
    );
    #[cfg(feature = "burn")]
    {
        let mut b = kcomp::neural::burn_mlp::BurnMlp::from_fast(&m, 1e-3, 11);
        let bits_burn = b.code_bits(&ls.w, &ls.z, &idx);
        assert!((bits_burn - uniform).abs() < 1e-6 * uniform, "{bits_burn}");
    }
}

#[test]
fn a_model_that_cannot_learn_costs_the_uniform_code_plus_flags_at_most() {
    let (w, z) = small_language(0.0, 3);
    let mut cfg = small_cfg();
    cfg.train.lr = 1e-20;
    cfg.train.max_epochs = 1;
    let code = prequential_code(&w, &z, &cfg, None).unwrap();
    assert_eq!(code.n_encoded, 140);
    let uniform = 140.0 * 2.0 * 2.0; // 2 attributes x log2 4 bits
    let flags = (code.chunks.len() - 1) as f64;
    assert!(code.k_data <= uniform + flags + 1e-9, "{}", code.k_data);
    assert!(code.k_data > 0.9 * uniform, "{}", code.k_data);
    for c in &code.chunks[1..] {
        let m = c.model_bits.unwrap();
        assert!((c.bits - (m.min(c.naive_bits) + 1.0)).abs() < 1e-12);
    }
}

#[test]
fn bayes_optimal_toy_compresses_far_below_uniform() {
    // Z is a fixed function of W and rows come in random order: after a few chunks the model
    // knows the mapping, so K(Z|W) must be far below K(Z).
    let (w, z) = small_language(0.0, 5);
    let mut cfg = small_cfg();
    cfg.ordering = kcomp::estimators::prequential::Ordering::Random;
    let r = language_compositionality(&w, &z, &cfg, None).unwrap();
    assert!((r.k_z - 560.0).abs() < 1e-9);
    assert!(
        r.k_data < 0.5 * r.k_z,
        "K(Z|W) = {} vs K(Z) = {}",
        r.k_data,
        r.k_z
    );
    assert!(r.c_l > 2.0, "C^L = {}", r.c_l);
    // The final model knows the mapping: K(Data|f) is small and K(f) positive.
    assert!(r.k_data_given_f < 0.1 * r.k_z, "{}", r.k_data_given_f);
    assert!(r.k_f > 0.0);
}

#[test]
fn deterministic_across_thread_counts() {
    let (w, z) = small_language(0.5, 2);
    let mut cfg = small_cfg();
    cfg.threads = 1;
    let a = language_compositionality(&w, &z, &cfg, None).unwrap();
    cfg.threads = 2;
    let b = language_compositionality(&w, &z, &cfg, None).unwrap();
    assert_eq!(a.k_data.to_bits(), b.k_data.to_bits());
    assert_eq!(a.k_data_given_f.to_bits(), b.k_data_given_f.to_bits());
    assert_eq!(a.chunks, b.chunks);
}

#[test]
fn warm_start_runs_and_compresses() {
    let (w, z) = small_language(0.0, 5);
    let mut cfg = small_cfg();
    cfg.ordering = kcomp::estimators::prequential::Ordering::Random;
    cfg.warm_start = true;
    let r = language_compositionality(&w, &z, &cfg, None).unwrap();
    assert!(r.c_l > 1.5, "C^L = {}", r.c_l);
}

#[test]
fn prequential_k_z_of_uniform_objects_is_near_analytic() {
    let (w, z) = small_language(0.0, 5);
    let mut cfg = small_cfg();
    cfg.k_z = kcomp::estimators::prequential::KzMethod::Prequential;
    let r = language_compositionality(&w, &z, &cfg, None).unwrap();
    // Objects are uniform: a model without W cannot beat the uniform code by much, and min()
    // with the uniform code plus flags bounds it above.
    let uniform = 560.0;
    let flags = (r.chunks.len() - 1) as f64;
    assert!(r.k_z <= uniform + flags + 1e-9, "{}", r.k_z);
    assert!(r.k_z > 0.9 * uniform, "{}", r.k_z);
}

#[test]
fn continuous_targets_are_coded_on_the_grid() {
    // Z = a fixed vector per token (two words, 2 dims each) + nothing: learnable.
    let n = 200;
    let mut tokens = Vec::new();
    let mut vals = Vec::new();
    for i in 0..n {
        let (a, b) = ((i * 7) % 5, (i * 3) % 4);
        tokens.extend([a as u32, b as u32]);
        vals.extend([a as f64 * 0.5, b as f64 - 1.0]);
    }
    let w = TokenData::new(n, 2, 5, tokens).unwrap();
    let z = Targets::from_floats(2, 0.05, &vals).unwrap();
    let mut cfg = small_cfg();
    cfg.ordering = kcomp::estimators::prequential::Ordering::Random;
    cfg.val_size = 40;
    cfg.schedule = Schedule::Increment { min: 20, step: 20 };
    cfg.model.std = kcomp::neural::StdSpec::Learned { min_std: 0.01 };
    let r = language_compositionality(&w, &z, &cfg, None).unwrap();
    assert!(r.k_data.is_finite() && r.k_data > 0.0);
    assert!(
        r.c_l > 1.5,
        "C^L = {} (K(Z) {} K(Z|W) {})",
        r.c_l,
        r.k_z,
        r.k_data
    );
}

#[cfg(feature = "burn")]
#[test]
fn burn_and_fast_give_the_same_code_lengths() {
    let (w, z) = small_language(0.0, 5);
    let mut cfg = small_cfg();
    cfg.schedule = Schedule::Increment { min: 40, step: 50 };
    cfg.train.max_epochs = 5;
    cfg.train.patience = 100;
    let fast = prequential_code(&w, &z, &cfg, None).unwrap();
    cfg.backend = kcomp::estimators::prequential::ModelBackend::Burn;
    let burn = prequential_code(&w, &z, &cfg, None).unwrap();
    for (a, b) in fast.chunks.iter().zip(&burn.chunks) {
        let (ma, mb) = (a.model_bits.unwrap_or(0.0), b.model_bits.unwrap_or(0.0));
        assert!((ma - mb).abs() <= 1e-3 * ma.abs().max(1.0), "{ma} vs {mb}");
    }
    assert!(
        (fast.k_data_given_f - burn.k_data_given_f).abs() <= 1e-3 * fast.k_data_given_f,
        "{} vs {}",
        fast.k_data_given_f,
        burn.k_data_given_f
    );
}
