//! One step of the online scheme and one switching update, each beside its baseline:
//! - `online_update/raw_adam_steps`: the Adam steps alone (the fast MLP on the same batches);
//! - `online_update/mlp_online_learn`: one online update of [`MlpOnline`] after a block of 32
//!   rows (the same number of steps, with replay sampling and forward calibration);
//! - `online_update/ngram_code_learn_row`: coding and learning one row with the n-gram table;
//! - `switching/sum_baseline`: adding the K learners' bits of a row (what choosing no mixture
//!   costs); `switching/switch_update`: one update of the switching mixture over K = 6;
//! - `sequence_step/mlp_step` (baseline) and `sequence_step/gru_step`: one Adam step (batch 32)
//!   on padded variable-length messages (1-6 tokens) of the default MLP (16-dim embeddings,
//!   256 units) and of the default GRU learner (16-dim embeddings, 64 units, padding mask);
//! - `rule_learner/ngram_language` (baseline), `rule_learner/rules_language`: coding and
//!   learning every row of a language system (2 x 8, h = 0.75, 640 rows) with the n-gram table
//!   and with the rule learner; `rule_learner/lexicon_sampler`: the rule learner's lexicon
//!   sampler alone on the 64 first occurrences (its share of the rule learner's time).
//! - `multivariate_code/diagonal_row` (baseline) and `multivariate_code/cholesky_row`: the code
//!   of one 384-dimensional grid row, one univariate discretised Gaussian per dimension vs
//!   dimension by dimension through a Cholesky factor; `multivariate_code/factorise_384`: the
//!   Cholesky factorisation of a shrunk 384 x 384 covariance (done every 10 % more rows);
//! - `sparse_linear/marginal_row` (baseline) and `sparse_linear/sparse_row`: coding and
//!   learning one row (384-dimensional Z, 15-word sentences over 2,000 words) with the marginal
//!   learner and with the sparse linear learner after 1,000 rows (its refits every 10 % more
//!   rows amortised in); `sparse_linear/refit_1000`:
//!   one refit of the sparse learner's weights (6 conjugate-gradient iterations) on 1,000 rows.

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::dataset::Targets;
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::datasets::variable_length::VarLenParams;
use kcomp::estimators::prequential::learners::lexicon_sampler::LexiconSampler;
use kcomp::estimators::prequential::online::{LearnerSpec, OnlineConfig, make_online_learner};
use kcomp::estimators::prequential::switching::{Mixing, Mixture};
use kcomp::neural::fast::FastMlp;
use kcomp::neural::gru::{FastGru, GruSpec};

fn bench(c: &mut Criterion) {
    let data = generate(&LookupParams {
        samples: 512,
        ..Default::default()
    })
    .unwrap()
    .to_dataset()
    .unwrap();
    let (w, z) = (&data.w, &data.z);
    let sent: Vec<usize> = (0..512).collect();
    let cfg = OnlineConfig {
        epochs: 1.0,
        max_steps: 16,
        ..Default::default()
    };
    // The default scheme's 256-unit MLP learner, as the online code runs it.
    let spec = cfg
        .learners
        .iter()
        .find(|l| matches!(l, LearnerSpec::Mlp { hidden, .. } if hidden.as_slice() == [256]))
        .expect("the default learners include the 256-unit MLP")
        .clone();
    let mut g = c.benchmark_group("online_update");
    g.sample_size(20);
    g.warm_up_time(std::time::Duration::from_millis(500));
    g.measurement_time(std::time::Duration::from_secs(3));
    // 16 Adam steps of batch 32 on 512 sent rows (the last 32 new).
    let mspec = kcomp::estimators::prequential::code::model_spec(
        w,
        z,
        &kcomp::estimators::prequential::ModelConfig {
            emb_dim: 16,
            hidden: vec![256],
            ..Default::default()
        },
    );
    let mut raw = FastMlp::new(&mspec, 0.003, 0);
    g.bench_function("raw_adam_steps", |b| {
        b.iter(|| {
            for s in 0..16 {
                raw.step(w, z, &sent[s * 32..(s + 1) * 32]);
            }
        })
    });
    let mut online = make_online_learner(&spec, &cfg, w, z, 0).unwrap();
    online.code(w, z, &sent[..256]); // a calibration history of 256 rows
    g.bench_function("mlp_online_learn", |b| {
        b.iter(|| online.learn(w, z, &sent, 32))
    });
    let mut ngram = make_online_learner(&LearnerSpec::Ngram { order: 2 }, &cfg, w, z, 0).unwrap();
    ngram.learn(w, z, &sent[..256], 256);
    let mut i = 256;
    g.bench_function("ngram_code_learn_row", |b| {
        b.iter(|| {
            ngram.code(w, z, &sent[i..i + 1]);
            ngram.learn(w, z, &sent[..i + 1], 1);
            i = if i + 1 < 512 { i + 1 } else { 256 };
        })
    });
    g.finish();

    let mut g = c.benchmark_group("switching");
    g.sample_size(50);
    g.measurement_time(std::time::Duration::from_secs(2));
    let rows: Vec<[f64; 6]> = (0..1000)
        .map(|t| std::array::from_fn(|k| 100.0 + ((t * 7 + k * 13) % 17) as f64))
        .collect();
    g.bench_function("sum_baseline", |b| {
        let mut t = 0;
        b.iter(|| {
            t = (t + 1) % rows.len();
            std::hint::black_box(rows[t].iter().sum::<f64>())
        })
    });
    let mut m = Mixture::new(6, Mixing::Switch);
    g.bench_function("switch_update", |b| {
        let mut t = 0;
        b.iter(|| {
            t = (t + 1) % rows.len();
            std::hint::black_box(m.update(&rows[t]))
        })
    });
    g.finish();

    let p = VarLenParams {
        samples: 512,
        ..Default::default()
    };
    let data = p.generate().unwrap();
    let (w, z) = (&data.w, &data.z);
    let model = kcomp::estimators::prequential::ModelConfig {
        emb_dim: 16,
        hidden: vec![256],
        ..Default::default()
    };
    let mspec = kcomp::estimators::prequential::code::model_spec(w, z, &model);
    let mut g = c.benchmark_group("sequence_step");
    g.sample_size(30);
    g.measurement_time(std::time::Duration::from_secs(3));
    let mut mlp = FastMlp::new(&mspec, 0.003, 0);
    let mut t = 0;
    g.bench_function("mlp_step", |b| {
        b.iter(|| {
            mlp.step(w, z, &sent[t * 32..(t + 1) * 32]);
            t = (t + 1) % 16;
        })
    });
    let gspec = GruSpec {
        vocab: w.vocab,
        emb_dim: 16,
        hidden: 64,
        head: mspec.head,
        pad: Some(p.pad()),
    };
    let mut gru = FastGru::new(&gspec, 0.01, 0);
    g.bench_function("gru_step", |b| {
        b.iter(|| {
            gru.step(w, z, &sent[t * 32..(t + 1) * 32]);
            t = (t + 1) % 16;
        })
    });
    g.finish();

    let lang = LanguageSystemConfig {
        repeats: 10,
        holistic_fraction: 0.75,
        ..Default::default()
    }
    .dataset()
    .unwrap();
    let (w, z) = (&lang.w, &lang.z);
    // Rows in a seeded order (the generator lists them object by object).
    let order: Vec<usize> = (0..w.n).map(|i| (i * 397) % w.n).collect();
    let run = |spec: &LearnerSpec| {
        let mut l = make_online_learner(spec, &OnlineConfig::default(), w, z, 0).unwrap();
        let mut bits = 0.0;
        for (k, &r) in order.iter().enumerate() {
            bits += l.code(w, z, &[r])[0];
            l.learn(w, z, &order[..k + 1], 1);
        }
        bits
    };
    let mut g = c.benchmark_group("rule_learner");
    g.sample_size(10);
    g.bench_function("ngram_language", |b| {
        b.iter(|| run(&LearnerSpec::Ngram { order: 2 }))
    });
    g.bench_function("rules_language", |b| {
        b.iter(|| run(&LearnerSpec::Rules(Default::default())))
    });
    let Targets::Discrete { values, .. } = z else {
        unreachable!("language systems have discrete Z")
    };
    let mut firsts = std::collections::HashSet::new();
    let first: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&r| firsts.insert(w.row(r).to_vec()))
        .collect();
    g.bench_function("lexicon_sampler", |b| {
        b.iter(|| {
            let mut s = LexiconSampler::new(w.n_words, w.vocab, 2, 8).unwrap();
            let mut bits = 0.0;
            for &r in &first {
                let zr = &values[2 * r..2 * r + 2];
                bits -= s.learn(w.row(r), zr);
            }
            bits
        })
    });
    g.finish();
}

/// Sentence-like data: 15-word rows over a Zipf-ish vocabulary of 2,000 words, Z of 384
/// correlated dimensions that depend on the words (values ~0.05, grid 0.01).
fn sentences(n: usize) -> (kcomp::dataset::TokenData, Targets) {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let (len, vocab, dim) = (15usize, 2000usize, 384usize);
    let tokens: Vec<u32> = (0..n * len)
        .map(|_| {
            let u: f64 = rng.random::<f64>();
            ((vocab as f64).powf(u) as u32).min(vocab as u32 - 1)
        })
        .collect();
    let w = kcomp::dataset::TokenData::new(n, len, vocab, tokens).unwrap();
    let emb: Vec<f64> = (0..vocab * 8).map(|_| rng.random::<f64>() - 0.5).collect();
    let mix: Vec<f64> = (0..8 * dim).map(|_| rng.random::<f64>() - 0.5).collect();
    let mut values = Vec::with_capacity(n * dim);
    for r in 0..n {
        let mut h = [0.0f64; 8];
        for &t in w.row(r) {
            for (k, hk) in h.iter_mut().enumerate() {
                *hk += emb[t as usize * 8 + k];
            }
        }
        for d in 0..dim {
            let v: f64 = (0..8).map(|k| h[k] * mix[k * dim + d]).sum::<f64>() * 0.01
                + 0.02 * (rng.random::<f64>() - 0.5);
            values.push(v);
        }
    }
    let z = Targets::from_floats(dim, 0.01, &values).unwrap();
    (w, z)
}

fn bench_real(c: &mut Criterion) {
    use kcomp::coding::multivariate::{GaussianFactor, OnlineCovariance};
    use kcomp::estimators::prequential::learners::OnlineLearner;
    let (w, z) = sentences(1200);
    let Targets::Continuous { dim, grid, lam } = &z else {
        unreachable!()
    };
    let mut cov = OnlineCovariance::new(*dim, true);
    for r in 0..1000 {
        let x: Vec<f64> = grid[r * dim..(r + 1) * dim]
            .iter()
            .map(|&k| k as f64 * lam)
            .collect();
        cov.add(&x);
    }
    let shrunk = cov.shrunk(0.5, lam * lam / 12.0);
    let factor = GaussianFactor::from_covariance(&shrunk, *dim).unwrap();
    let diag = GaussianFactor::diagonal(&cov.variances());
    let mean = cov.mean().to_vec();
    let row = &grid[1000 * dim..1001 * dim];
    let mut scratch = Vec::new();
    let mut g = c.benchmark_group("multivariate_code");
    g.sample_size(20);
    g.warm_up_time(std::time::Duration::from_millis(500));
    g.measurement_time(std::time::Duration::from_secs(3));
    g.bench_function("diagonal_row", |b| {
        b.iter(|| diag.bits(row, *lam, &mean, 1.0, &mut scratch))
    });
    g.bench_function("cholesky_row", |b| {
        b.iter(|| factor.bits(row, *lam, &mean, 1.0, &mut scratch))
    });
    g.bench_function("factorise_384", |b| {
        b.iter(|| GaussianFactor::from_covariance(&shrunk, *dim).unwrap())
    });
    g.finish();

    let cfg = OnlineConfig::default();
    let sent: Vec<usize> = (0..1000).collect();
    let warmed = |spec: &LearnerSpec| {
        let mut l = make_online_learner(spec, &cfg, &w, &z, 1).unwrap();
        l.learn(&w, &z, &sent, 1000);
        l
    };
    let mut marginal = warmed(&LearnerSpec::Marginal);
    let mut sparse = warmed(&LearnerSpec::default_sparse());
    let mut g = c.benchmark_group("sparse_linear");
    g.sample_size(10);
    g.warm_up_time(std::time::Duration::from_millis(500));
    g.measurement_time(std::time::Duration::from_secs(3));
    let mut next = 1000;
    let one = |l: &mut Box<dyn OnlineLearner>, next: &mut usize| {
        let r = 1000 + (*next % 200);
        *next += 1;
        let bits = l.code(&w, &z, &[r]);
        // Learning a row it coded, not one past its refit point: the refit is benched apart.
        let sent: Vec<usize> = (0..1000).chain([r]).collect();
        l.learn(&w, &z, &sent, 1);
        bits
    };
    g.bench_function("marginal_row", |b| b.iter(|| one(&mut marginal, &mut next)));
    g.bench_function("sparse_row", |b| b.iter(|| one(&mut sparse, &mut next)));
    g.bench_function("refit_1000", |b| {
        b.iter_batched(
            || {
                let mut l =
                    make_online_learner(&LearnerSpec::default_sparse(), &cfg, &w, &z, 1).unwrap();
                l.learn(&w, &z, &sent[..900], 900);
                l
            },
            |mut l| l.learn(&w, &z, &sent, 100),
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench, bench_real);
criterion_main!(benches);
