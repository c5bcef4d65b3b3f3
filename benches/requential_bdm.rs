//! The new estimators' hot paths, each beside a baseline measured in the same run:
//! - requential coding of a 500-row lookup table (q = 2; learners ngram2 and linear1) against the
//!   online prequential code of the same data with the same two learners;
//! - BDM of a 12,000-symbol binary string (ignore and recursive partitions) on a synthetic
//!   complete 12-block table (pybdm's tables are not shipped) against LZ76 and LZ78 of the
//!   same string;
//! - the closed-form KL bound of two 8-component grid-Gaussian mixtures (the n-gram learner's
//!   predictive) against the KL of two single Gaussians.
//!
//! A one-pass timing with the ratios is printed first.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::coding::predictive::{OutputDist, guarded_kl_bits, kl_bits};
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::estimators::bdm::ctm::{ShapeTable, key_of};
use kcomp::estimators::bdm::{CtmTable, Partition, bdm};
use kcomp::estimators::prequential::code::{PrequentialConfig, online_default, prequential_code};
use kcomp::estimators::prequential::online::{LearnerSpec, OnlineConfig};
use kcomp::estimators::requential::{RequentialConfig, requential_code};

fn learners() -> Vec<LearnerSpec> {
    vec![
        LearnerSpec::Ngram { order: 2 },
        LearnerSpec::from_name("linear1").expect("default learner"),
    ]
}

/// Every normalised binary block of length 1..=12 with an invented value.
fn synthetic_table() -> CtmTable {
    let mut shapes = BTreeMap::new();
    for len in 1..=12usize {
        let mut t = ShapeTable::default();
        for code in 0..(1u32 << (len - 1)) {
            let bits: Vec<u8> = (0..len)
                .map(|i| {
                    if i == 0 {
                        0
                    } else {
                        ((code >> (len - 1 - i)) & 1) as u8
                    }
                })
                .collect();
            let v = len as f64 + code.count_ones() as f64 * 0.25;
            t.missing = t.missing.max(v + 1.0);
            t.values.insert(key_of(&bits), v);
        }
        shapes.insert(vec![len], t);
    }
    CtmTable {
        name: "SYNTHETIC-B2-D12".into(),
        nsymbols: 2,
        ndim: 1,
        block: 12,
        shapes,
    }
}

fn mixture(shift: f64) -> OutputDist {
    OutputDist::GaussianMixture(
        (0..8)
            .map(|c| (-3.0, c as f64 * 10.0 + shift, 1.0 + c as f64 * 0.1))
            .collect(),
    )
}

fn time<T>(f: impl Fn() -> T) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}

fn benches(c: &mut Criterion) {
    let d = generate(&LookupParams {
        samples: 500,
        length: 4,
        vocab: 4,
        dim: 8,
        ngram: 2,
        ..Default::default()
    })
    .expect("lookup")
    .to_dataset()
    .expect("dataset");
    let req = RequentialConfig {
        learners: learners(),
        k_z: false,
        threads: 1,
        ..Default::default()
    };
    let pre = PrequentialConfig {
        threads: 1,
        online: OnlineConfig {
            learners: learners(),
            ..Default::default()
        },
        ..online_default()
    };
    let run_req = || requential_code(&d.w, &d.z, &req, None).expect("requential");
    let run_pre = || prequential_code(&d.w, &d.z, &pre, None).expect("prequential");

    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let s: Vec<u8> = (0..12_000)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng & 1) as u8
        })
        .collect();
    let table = synthetic_table();
    let run_bdm = |p: Partition| bdm(&table, &s, &[s.len()], None, p).expect("bdm");
    let (p, q) = (mixture(0.0), mixture(0.7));
    let g = OutputDist::Gaussian {
        mean: 0.0,
        sd: 30.0,
    };
    let (a, b) = (
        OutputDist::Gaussian { mean: 0.0, sd: 1.0 },
        OutputDist::Gaussian { mean: 0.7, sd: 1.1 },
    );

    let (tr, tp) = (time(run_req), time(run_pre));
    let (tb, t76, t78) = (
        time(|| run_bdm(Partition::Ignore)),
        time(|| kcomp::estimators::lz76::lz76_complexity(&s)),
        time(|| kcomp::estimators::lz78::lz78_complexity(&s)),
    );
    // Ratios as "x the baseline's time", to three decimals, since BDM (a table lookup
    // per block) and LZ can differ by orders of magnitude.
    eprintln!(
        "one pass: requential {tr:.3} s = {:.3}x the prequential code ({tp:.3} s); BDM of \
         12,000 symbols {:.3} ms = {:.3}x LZ76 ({:.3} ms), {:.3}x LZ78 ({:.3} ms)",
        tr / tp,
        tb * 1e3,
        tb / t76,
        t76 * 1e3,
        tb / t78,
        t78 * 1e3
    );

    let mut grp = c.benchmark_group("requential");
    grp.sample_size(10);
    grp.bench_function("requential lookup 500 rows", |bch| bch.iter(run_req));
    grp.bench_function("baseline: prequential online, same learners", |bch| {
        bch.iter(run_pre)
    });
    grp.finish();
    let mut grp = c.benchmark_group("bdm");
    grp.bench_function("bdm ignore 12000 symbols", |bch| {
        bch.iter(|| run_bdm(Partition::Ignore))
    });
    grp.bench_function("bdm recursive 12000 symbols", |bch| {
        bch.iter(|| run_bdm(Partition::Recursive { min_length: 2 }))
    });
    grp.bench_function("baseline: lz76 12000 symbols", |bch| {
        bch.iter(|| kcomp::estimators::lz76::lz76_complexity(black_box(&s)))
    });
    grp.bench_function("lz78 12000 symbols", |bch| {
        bch.iter(|| kcomp::estimators::lz78::lz78_complexity(black_box(&s)))
    });
    grp.finish();
    let mut grp = c.benchmark_group("kl");
    grp.bench_function("guarded mixture KL bound (8 components)", |bch| {
        bch.iter(|| guarded_kl_bits(black_box(&p), black_box(&q), &g, 1.0 / 1024.0))
    });
    grp.bench_function("baseline: Gaussian KL", |bch| {
        bch.iter(|| kl_bits(black_box(&a), black_box(&b)))
    });
    grp.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
