//! The metric zoo on the default protocols: the seven Korbak et al. test languages (5 colours x
//! 5 shapes, 4 utterances per object: 100 rows each, seed 0) through exact K and every score
//! metric of the panel (topsim x 3, posdis, bosdis, entropy, mutual information, context
//! independence, conflict count, LZ76, TRE x 3, compression with NCD). The baseline measured in the same run is
//! exact K alone; a one-pass timing of each estimator and the zoo / exact ratio are printed
//! first so the relative cost can be read without criterion's report.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::dataset::Dataset;
use kcomp::datasets::protocols::{ProtocolKind, ProtocolParams};
use kcomp::estimators::interface::{Estimator, Progress};
use kcomp::panel::PanelConfig;
use kcomp::panel::registry::build;

/// Exact K and the score metrics (no code-length searches or trainings besides TRE's).
const ZOO: [&str; 15] = [
    "exact",
    "topsim",
    "topsim_normalised_edit",
    "topsim_jaccard",
    "posdis",
    "bosdis",
    "entropy",
    "mutual_information",
    "context_independence",
    "conflict_count",
    "lz76",
    "tre",
    "tre_linear",
    "tre_cosine",
    "compression",
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
    let all: Vec<Box<dyn Estimator>> = ZOO
        .iter()
        .map(|n| build(n, &config).expect("registered"))
        .collect();
    let exact: Vec<Box<dyn Estimator>> = vec![build("exact", &config).expect("registered")];

    // One timed pass per estimator over the seven protocols.
    let mut seconds = Vec::new();
    for e in &all {
        let start = Instant::now();
        run_all(std::slice::from_ref(e), &data, &p);
        seconds.push((e.name().to_string(), start.elapsed().as_secs_f64()));
    }
    let total: f64 = seconds.iter().map(|s| s.1).sum();
    let exact_s = seconds[0].1.max(1e-9);
    eprintln!("one pass over the 7 protocols (100 rows each):");
    for (name, s) in &seconds {
        eprintln!("  {name:<24} {:>10.3} ms", s * 1e3);
    }
    eprintln!(
        "  zoo total {:.3} ms = {:.0} x exact alone",
        total * 1e3,
        total / exact_s
    );

    let mut g = c.benchmark_group("zoo_protocols_7x100");
    g.sample_size(10);
    g.bench_function("exact_baseline", |b| b.iter(|| run_all(&exact, &data, &p)));
    g.bench_function("zoo", |b| b.iter(|| run_all(&all, &data, &p)));
    g.finish();
}

criterion_group!(benches, zoo);
criterion_main!(benches);
