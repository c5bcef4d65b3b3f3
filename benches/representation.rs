//! C(Z) of a representation alone at N = 2,000, D = 64 (a lookup table, M = 16, K = 10, q = 1),
//! at its true sentence space (M = 16, V = 10):
//! - one training epoch of each sentence learner: block-wise k-means (one Lloyd iteration per
//!   block after its k-means++ starts) and, with the `burn` feature, the auto-encoder (one
//!   epoch of one restart, with its set-up and the end-of-epoch evaluation);
//! - the full estimate at one sentence space (learn W, code K(W), K(Z|W) and the naive code),
//!   with each learner at its default settings. The default selection runs this once per grid
//!   point (about 60 points at D = 64 with the refinement of V).
//!
//! `cargo bench --features bench,burn --bench representation`; ratios against the k-means
//! epoch measured in the same run are in docs/learned-w.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::representation::kmeans::KMeansLearner;
use kcomp::representation::select::{SelectConfig, select};
use kcomp::representation::{
    LearnerConfig, SentenceLearner, SentenceSpace, default_learner_config,
};

fn representation(c: &mut Criterion) {
    let z = generate(&LookupParams {
        samples: 2000,
        dim: 64,
        ..Default::default()
    })
    .unwrap()
    .to_dataset()
    .unwrap()
    .z;
    let space = SentenceSpace {
        length: 16,
        vocab: 10,
    };
    let one_epoch = LearnerConfig {
        epochs: 1,
        ..default_learner_config("kmeans")
    };
    let mut g = c.benchmark_group("representation");
    g.sample_size(10);
    g.bench_function("kmeans_one_epoch_n2000_d64", |b| {
        b.iter(|| {
            KMeansLearner::default()
                .learn(black_box(&z), space, &one_epoch, 0, &|_, _| {})
                .unwrap()
        })
    });
    let at_true_space = |learner: &str| SelectConfig {
        lengths: Some(vec![16]),
        vocabs: Some(vec![10]),
        learner: default_learner_config(learner),
        ..Default::default()
    };
    let cfg = at_true_space("kmeans");
    g.bench_function("kmeans_full_estimate_one_space_n2000_d64", |b| {
        b.iter(|| select(&KMeansLearner::default(), black_box(&z), &cfg, &|_, _| {}).unwrap())
    });
    #[cfg(feature = "burn")]
    {
        use kcomp::representation::autoencoder::AutoEncoder;
        let one_run = AutoEncoder {
            restarts: 1,
            ..Default::default()
        };
        let one_epoch = LearnerConfig {
            epochs: 1,
            ..default_learner_config("autoencoder")
        };
        g.bench_function("autoencoder_one_epoch_n2000_d64", |b| {
            b.iter(|| {
                one_run
                    .learn(black_box(&z), space, &one_epoch, 0, &|_, _| {})
                    .unwrap()
            })
        });
        let cfg = at_true_space("autoencoder");
        g.bench_function("autoencoder_full_estimate_one_space_n2000_d64", |b| {
            b.iter(|| select(&AutoEncoder::default(), black_box(&z), &cfg, &|_, _| {}).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, representation);
criterion_main!(benches);
