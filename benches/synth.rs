//! Hot paths of the synthetic-representation pipeline, each against a baseline measured in the
//! same run:
//! - Skellam log-pmf: kcomp's series/Debye evaluation vs a naive direct sum of
//!   `exp(-mu1-mu2) mu1^(k+j) mu2^j / ((k+j)! j!)` in log space (what one would write first);
//! - lookup-table generation and grammar generation + CYK parse at the defaults of Elmoznino et al.
//!   (N = 1000), the units of work of the Figure 2 sweeps;
//! - topological similarity of a default lookup dataset (N = 1000, D = 64: 499,500 pairs): the
//!   fused one-pass path the sweeps take (`topsim_grid`), the general path on materialised
//!   distance lists (`topological_similarity`, what `topsim_grid` ran before), and a direct
//!   pairwise loop (what one would write first).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::coding::skellam::skellam_logpmf_nats;
use kcomp::datasets::grammar::{self, GrammarParams, cfg::Grammar, cyk};
use kcomp::datasets::lookup_table::{self, LookupParams};
use kcomp::estimators::topsim::{TopsimConfig, topological_similarity, topsim_grid};
use kcomp::rng::stream::RngKind;
use statrs::function::gamma::ln_gamma;

/// Baseline: log-sum-exp of the defining series, truncated when terms vanish.
fn naive_skellam_logpmf(k: i64, mu1: f64, mu2: f64) -> f64 {
    let (k, mu1, mu2) = if k < 0 { (-k, mu2, mu1) } else { (k, mu1, mu2) };
    let kf = k as f64;
    let mut logs = Vec::new();
    let mut j = 0.0;
    loop {
        let t = (kf + j) * mu1.ln() + j * mu2.ln() - ln_gamma(kf + j + 1.0) - ln_gamma(j + 1.0);
        logs.push(t);
        if j > mu2 && t < logs.iter().copied().fold(f64::MIN, f64::max) - 40.0 {
            break;
        }
        j += 1.0;
    }
    let m = logs.iter().copied().fold(f64::MIN, f64::max);
    -mu1 - mu2 + m + logs.iter().map(|l| (l - m).exp()).sum::<f64>().ln()
}

fn skellam(c: &mut Criterion) {
    let points: Vec<(i64, f64)> = [0.5, 50.0, 5000.0]
        .iter()
        .flat_map(|&mu| [0i64, 1, 10, 100].map(move |k| (k, mu)))
        .collect();
    let mut g = c.benchmark_group("skellam_logpmf");
    g.bench_function("kcomp", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(k, mu)| skellam_logpmf_nats(black_box(k), mu, mu))
                .sum::<f64>()
        })
    });
    g.bench_function("baseline_direct_series", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(k, mu)| naive_skellam_logpmf(black_box(k), mu, mu))
                .sum::<f64>()
        })
    });
    g.finish();
}

fn generation(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    g.bench_function("lookup_defaults_n1000", |b| {
        b.iter(|| lookup_table::generate(black_box(&LookupParams::default())).unwrap())
    });
    let numpy = LookupParams {
        rng: RngKind::Numpy,
        ..LookupParams::default()
    };
    g.bench_function("lookup_numpy_replay_n1000", |b| {
        b.iter(|| lookup_table::generate(black_box(&numpy)).unwrap())
    });
    g.bench_function("grammar_defaults_n1000", |b| {
        b.iter(|| grammar::generate(black_box(&GrammarParams::default())).unwrap())
    });
    let gr = Grammar::new(5, 3, 2);
    let sentence: Vec<usize> = (0..16).map(|i| (i % 5) + 5 * (i % 3)).collect();
    g.bench_function("cyk_parse_m16", |b| {
        b.iter(|| cyk::parse(&gr, black_box(&sentence)).unwrap())
    });
    g.finish();
}

/// Baseline: every pair's one-hot cityblock and Euclidean distance computed directly, then
/// Pearson's r.
fn naive_topsim(w: &ndarray::Array2<i64>, z: &ndarray::Array2<i64>, lam: f64) -> f64 {
    let n = w.nrows();
    let (mut dw, mut dz) = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in i + 1..n {
            let differ = w
                .row(i)
                .iter()
                .zip(w.row(j))
                .filter(|(a, b)| a != b)
                .count();
            dw.push(2.0 * differ as f64);
            let sq: f64 = z
                .row(i)
                .iter()
                .zip(z.row(j))
                .map(|(a, b)| ((a - b) as f64 * lam).powi(2))
                .sum();
            dz.push(sq.sqrt());
        }
    }
    kcomp::estimators::topsim::pearson(&dw, &dz).unwrap()
}

fn topsim(c: &mut Criterion) {
    let d = lookup_table::generate(&LookupParams::default()).unwrap();
    let cfg = TopsimConfig::default();
    let mut g = c.benchmark_group("topsim_lookup_n1000");
    g.sample_size(10);
    g.bench_function("kcomp", |b| {
        b.iter(|| topsim_grid(black_box(&d.w), &d.z, 0.01, &cfg).unwrap())
    });
    let w_rows: Vec<Vec<i64>> = d.w.rows().into_iter().map(|r| r.to_vec()).collect();
    let z_rows: Vec<Vec<f64>> =
        d.z.rows()
            .into_iter()
            .map(|r| r.iter().map(|&k| k as f64 * 0.01).collect())
            .collect();
    g.bench_function("materialised_distance_lists", |b| {
        b.iter(|| topological_similarity(black_box(&w_rows), &z_rows, &cfg).unwrap())
    });
    g.bench_function("baseline_direct_pairs", |b| {
        b.iter(|| naive_topsim(black_box(&d.w), &d.z, 0.01))
    });
    g.finish();
}

criterion_group!(benches, skellam, generation, topsim);
criterion_main!(benches);
