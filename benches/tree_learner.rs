//! The tree-composition learner beside its baseline, on the same rows of a deep linear grammar
//! (width 1, depth 4: 16 words, D = 10, vocabulary 20, seed 0; 320 rows in random order: the
//! linear rule maps' Gauss-Newton fits at 8, 12, ..., 315 rows, the tensor-product fits, and
//! the word classes):
//! - `tree_learner/marginal_run` (baseline): coding and learning every row with the marginal
//!   learner (a running Gaussian per dimension: the cost of reading the rows and coding them);
//! - `tree_learner/tree_run`: the same rows with the tree learner (word classes, parse, the
//!   tensor-product and linear sub-models' fits at growing checkpoints, the sigma-grid codes).
//!
//! - `tree_learner/tree_run_portable`: the same with `J^T J v` (the Gauss-Newton solve's
//!   product, most of the time) on the portable path (SSE2, D read at run time), the baseline
//!   of the kernel compiled for D (and AVX2); the same bits either way.
//!
//! The ratio tree_run / marginal_run is the tree learner's cost in units of the cheapest code;
//! tree_run_portable / tree_run the compiled kernels' speed-up.

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::datasets::grammar::{Composition, GrammarParams, generate};
use kcomp::estimators::prequential::learners::tree::linear::set_portable_kernels;
use kcomp::estimators::prequential::online::{
    LearnerSpec, OnlineConfig, make_online_learner, run_learner,
};
use rand::SeedableRng;
use rand::seq::SliceRandom;

fn bench(c: &mut Criterion) {
    let data = generate(&GrammarParams {
        samples: 320,
        vocab: 20,
        width: 1,
        depth: 4,
        composition: Composition::Linear,
        seed: 0,
        ..Default::default()
    })
    .unwrap()
    .to_dataset()
    .unwrap();
    let (w, z) = (&data.w, &data.z);
    let mut order: Vec<usize> = (0..data.n()).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(0));
    let cfg = OnlineConfig::default();
    let bounds = cfg.boundaries(order.len());
    let mut g = c.benchmark_group("tree_learner");
    g.sample_size(10);
    g.warm_up_time(std::time::Duration::from_millis(500));
    g.measurement_time(std::time::Duration::from_secs(5));
    for (name, spec, portable) in [
        ("marginal_run", LearnerSpec::Marginal, false),
        ("tree_run", LearnerSpec::Tree(Default::default()), false),
        (
            "tree_run_portable",
            LearnerSpec::Tree(Default::default()),
            true,
        ),
    ] {
        g.bench_function(name, |b| {
            set_portable_kernels(portable);
            b.iter(|| {
                let mut l = make_online_learner(&spec, &cfg, w, z, 0).unwrap();
                std::hint::black_box(run_learner(l.as_mut(), w, z, &order, &bounds))
            })
        });
    }
    set_portable_kernels(false);
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
