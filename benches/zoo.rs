//! The metric zoo on the default protocols: the seven Korbak et al. test languages (5 colours x
//! 5 shapes, 4 utterances per object: 100 rows each, seed 0) through exact K and every score
//! metric of the panel (topsim x 3, posdis, bosdis, entropy, mutual information, context
//! independence, conflict count, LZ76, TRE x 3, compression with NCD): every registered
//! estimator but the code-length searches and trainings. Baselines measured in the same run:
//! exact K alone and topsim alone. A one-pass timing of each estimator and the zoo / baseline
//! ratios are printed first so the relative cost can be read without criterion's report.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::dataset::Dataset;
use kcomp::datasets::protocols::{ProtocolKind, ProtocolParams};
use kcomp::estimators::interface::{Estimator, Progress};
use kcomp::panel::PanelConfig;
use kcomp::panel::registry::{ESTIMATORS, build};

/// Estimators left out: searches and trainings that give code lengths (benches/requential_bdm.rs
/// times requential), the one that needs an LLM report and the one that needs pybdm's tables.
/// Everything else is exact K or a score metric.
const LEFT_OUT: [&str; 5] = [
    "mapping_mdl",
    "prequential",
    "requential",
    "llm_program",
    "bdm",
];

fn protocols() -> Vec<Dataset> {
    ProtocolKind::ALL
        .iter()
        .map(|&kind| {
            ProtocolParams {
                kind,
                colours: 5,
                shapes: 5,
                repeats: 4,
                seed: 0,
            }
            .dataset()
            .expect("default protocol")
        })
        .collect()
}

fn run_all(estimators: &[Box<dyn Estimator>], data: &[Dataset], p: &Progress) {
    for d in data {
        for e in estimators {
            // Failures (e.g. an undefined posdis) are rows in a panel; here they still count.
            let _ = black_box(e.estimate(black_box(d), p));
        }
    }
}

fn zoo(c: &mut Criterion) {
    let config = PanelConfig::single_dataset_defaults();
    let data = protocols();
    let p = Progress::hidden();
    let all: Vec<Box<dyn Estimator>> = ESTIMATORS
        .iter()
        .filter(|n| !LEFT_OUT.contains(n))
        .map(|n| build(n, &config).expect("registered"))
        .collect();
    let exact: Vec<Box<dyn Estimator>> = vec![build("exact", &config).expect("registered")];
    let topsim: Vec<Box<dyn Estimator>> = vec![build("topsim", &config).expect("registered")];

    // One timed pass per estimator over the seven protocols.
    let mut seconds = Vec::new();
    for e in &all {
        let start = Instant::now();
        run_all(std::slice::from_ref(e), &data, &p);
        seconds.push((e.name().to_string(), start.elapsed().as_secs_f64()));
    }
    let total: f64 = seconds.iter().map(|s| s.1).sum();
    let of = |name: &str| {
        seconds
            .iter()
            .find(|s| s.0 == name)
            .map_or(f64::NAN, |s| s.1.max(1e-9))
    };
    eprintln!("one pass over the 7 protocols (100 rows each):");
    for (name, s) in &seconds {
        eprintln!("  {name:<24} {:>10.3} ms", s * 1e3);
    }
    eprintln!(
        "  zoo total {:.3} ms = {:.0} x exact alone = {:.1} x topsim alone",
        total * 1e3,
        total / of("exact"),
        total / of("topsim")
    );

    let mut g = c.benchmark_group("zoo_protocols_7x100");
    // Ten samples and short warm-ups keep the whole bench under a minute on 2 cores.
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    g.bench_function("exact_baseline", |b| b.iter(|| run_all(&exact, &data, &p)));
    g.bench_function("topsim_baseline", |b| {
        b.iter(|| run_all(&topsim, &data, &p))
    });
    g.bench_function("zoo", |b| b.iter(|| run_all(&all, &data, &p)));
    g.finish();
}

criterion_group!(benches, zoo);
criterion_main!(benches);
