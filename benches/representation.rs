//! C(Z) of a representation alone at N = 2,000, D = 64 (a lookup table, M = 16, K = 10, q = 1):
//! - one training epoch of the sentence learner (the block-wise k-means baseline: one Lloyd
//!   iteration per block after its k-means++ starts);
//! - the full estimate at one sentence space (learn W, code K(W), K(Z|W) and the naive code);
//!   the default selection runs this once per grid point (35 points at D = 64, then the
//!   refinement of V).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::representation::kmeans::KMeansLearner;
use kcomp::representation::select::{SelectConfig, select};
use kcomp::representation::{LearnerConfig, SentenceLearner, SentenceSpace};

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
        ..Default::default()
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
    let cfg = SelectConfig {
        lengths: Some(vec![16]),
        vocabs: Some(vec![10]),
        learner: LearnerConfig {
            epochs: 50,
            ..Default::default()
        },
        ..Default::default()
    };
    g.bench_function("full_estimate_one_space_n2000_d64", |b| {
        b.iter(|| select(&KMeansLearner::default(), black_box(&z), &cfg, &|_, _| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, representation);
criterion_main!(benches);
