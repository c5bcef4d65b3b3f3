//! One training step of the emergent-protocol MLP (batch 50; 2 words x 64-dim embeddings ->
//! 256 -> 256 -> 2 x 8 logits) in three implementations:
//! - `sgemm_baseline`: a hand-written f32 MLP of the same shape, one `sgemm` call per matrix
//!   product (forward 3, backward 5), softmax cross-entropy, plain SGD update: the practical
//!   floor on this CPU;
//! - `kcomp_fast`: kcomp's fast path (embedding gather/scatter, the same products, Adam);
//! - `kcomp_burn`: the same model with burn 0.22 (flex CPU backend + autodiff, Adam).

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::dataset::{Targets, TokenData};
use kcomp::neural::burn_mlp::BurnMlp;
use kcomp::neural::fast::FastMlp;
use kcomp::neural::train::Learner;
use kcomp::neural::{HeadSpec, MlpSpec};

const B: usize = 50;
const DIMS: [usize; 4] = [128, 256, 256, 16];

/// `c = a(m x k) b(k x n) + beta c`, row-major with explicit strides for a and b.
#[allow(clippy::too_many_arguments)]
fn sgemm(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    rsa: isize,
    csa: isize,
    b: &[f32],
    rsb: isize,
    csb: isize,
    beta: f32,
    c: &mut [f32],
) {
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            beta,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

struct Baseline {
    w: Vec<Vec<f32>>,
    b: Vec<Vec<f32>>,
    gw: Vec<Vec<f32>>,
    gb: Vec<Vec<f32>>,
    acts: Vec<Vec<f32>>,
    d: Vec<Vec<f32>>,
}

impl Baseline {
    fn new() -> Self {
        let mut s = 1u32;
        let mut rnd = || {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let w = (0..3)
            .map(|l| (0..DIMS[l] * DIMS[l + 1]).map(|_| rnd() * 0.1).collect())
            .collect();
        let b = (0..3).map(|l| vec![0.0; DIMS[l + 1]]).collect();
        let gw = (0..3).map(|l| vec![0.0; DIMS[l] * DIMS[l + 1]]).collect();
        let gb = (0..3).map(|l| vec![0.0; DIMS[l + 1]]).collect();
        let acts = (0..4)
            .map(|l| (0..B * DIMS[l]).map(|_| rnd()).collect())
            .collect();
        let d = (0..4).map(|l| vec![0.0; B * DIMS[l]]).collect();
        Baseline {
            w,
            b,
            gw,
            gb,
            acts,
            d,
        }
    }

    fn step(&mut self, targets: &[usize]) {
        kcomp::neural::flush_denormals();
        for l in 0..3 {
            let (i, o) = (DIMS[l], DIMS[l + 1]);
            let (lo, hi) = self.acts.split_at_mut(l + 1);
            let y = &mut hi[0];
            for r in 0..B {
                y[r * o..(r + 1) * o].copy_from_slice(&self.b[l]);
            }
            sgemm(
                B, i, o, &lo[l], i as isize, 1, &self.w[l], o as isize, 1, 1.0, y,
            );
            if l < 2 {
                y.iter_mut().for_each(|v| *v = v.max(0.0));
            }
        }
        // Softmax cross-entropy over 2 groups of 8.
        let out = &self.acts[3];
        let d = &mut self.d[3];
        for r in 0..B {
            for a in 0..2 {
                let s = &out[r * 16 + a * 8..r * 16 + a * 8 + 8];
                let m = s.iter().fold(f32::MIN, |x, &y| x.max(y));
                let z: f32 = s.iter().map(|&v| (v - m).exp()).sum();
                for v in 0..8 {
                    let p = (s[v] - m).exp() / z;
                    d[r * 16 + a * 8 + v] =
                        (p - if targets[r * 2 + a] == v { 1.0 } else { 0.0 }) / (B * 2) as f32;
                }
            }
        }
        for l in (0..3).rev() {
            let (i, o) = (DIMS[l], DIMS[l + 1]);
            let (dlo, dhi) = self.d.split_at_mut(l + 1);
            sgemm(
                i,
                B,
                o,
                &self.acts[l],
                1,
                i as isize,
                &dhi[0],
                o as isize,
                1,
                0.0,
                &mut self.gw[l],
            );
            self.gb[l].iter_mut().for_each(|g| *g = 0.0);
            for r in 0..B {
                for (g, &x) in self.gb[l].iter_mut().zip(&dhi[0][r * o..(r + 1) * o]) {
                    *g += x;
                }
            }
            sgemm(
                B,
                o,
                i,
                &dhi[0],
                o as isize,
                1,
                &self.w[l],
                1,
                o as isize,
                0.0,
                &mut dlo[l],
            );
            if l > 0 {
                for (dd, &a) in dlo[l].iter_mut().zip(&self.acts[l]) {
                    if a <= 0.0 {
                        *dd = 0.0;
                    }
                }
            }
        }
        for l in 0..3 {
            for (p, &g) in self.w[l].iter_mut().zip(&self.gw[l]) {
                *p -= 1e-3 * g;
            }
            for (p, &g) in self.b[l].iter_mut().zip(&self.gb[l]) {
                *p -= 1e-3 * g;
            }
        }
    }
}

fn data() -> (TokenData, Targets, Vec<usize>) {
    let tokens: Vec<u32> = (0..B * 2).map(|i| (i * 5 % 8) as u32).collect();
    let values: Vec<u32> = (0..B * 2).map(|i| (i * 3 % 8) as u32).collect();
    (
        TokenData::new(B, 2, 8, tokens).unwrap(),
        Targets::discrete(2, 8, values).unwrap(),
        (0..B).collect(),
    )
}

fn spec() -> MlpSpec {
    MlpSpec {
        vocab: 8,
        n_words: 2,
        emb_dim: 64,
        hidden: vec![256, 256],
        dropout: 0.0,
        head: HeadSpec::Categorical {
            n_attr: 2,
            n_vals: 8,
        },
    }
}

fn bench(c: &mut Criterion) {
    let (w, z, rows) = data();
    let targets: Vec<usize> = (0..B * 2).map(|i| i * 3 % 8).collect();
    let mut g = c.benchmark_group("train_step_b50_128-256-256-16");
    g.sample_size(30);
    g.warm_up_time(std::time::Duration::from_millis(500));
    g.measurement_time(std::time::Duration::from_secs(3));
    let mut base = Baseline::new();
    g.bench_function("sgemm_baseline", |b| b.iter(|| base.step(&targets)));
    let mut fast = FastMlp::new(&spec(), 1e-3, 0);
    g.bench_function("kcomp_fast", |b| b.iter(|| fast.step(&w, &z, &rows)));
    let mut burn = BurnMlp::new(&spec(), 1e-3, 0);
    g.bench_function("kcomp_burn", |b| {
        b.iter(|| burn.train_epoch(&w, &z, &rows, B))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
