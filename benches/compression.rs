//! The compression estimator on the default emergent-language system (2 attributes x 8
//! values, 50 repeats: N = 3200 rows, 12.8 kB serialised), per compressor at its strongest
//! setting and for the whole estimator (three compressors x three streams).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::estimators::compression::{CompressionEstimator, Compressor, measure, serialise};
use kcomp::estimators::interface::{Estimator, Progress};

fn compression(c: &mut Criterion) {
    let data = LanguageSystemConfig::default()
        .dataset()
        .expect("default language");
    let s = serialise(&data, Some(0));
    let mut g = c.benchmark_group("compression_language_n3200");
    g.sample_size(10);
    for comp in Compressor::ALL {
        g.bench_function(comp.name(), |b| {
            b.iter(|| measure(black_box(comp), black_box(&s)).unwrap())
        });
    }
    let p = Progress::hidden();
    let est = CompressionEstimator::default();
    g.bench_function("estimator", |b| {
        b.iter(|| est.estimate(black_box(&data), &p).unwrap())
    });
    g.finish();
}

criterion_group!(benches, compression);
criterion_main!(benches);
