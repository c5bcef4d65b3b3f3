//! Diagnostic: how many rows the tree learner's linear maps need to lock in (one batch fit on
//! the first N rows, scored on 1,000 held-out rows; not a prequential code).
//! Usage: cargo run --release --example lockin_probe -- WIDTH DEPTH N SEED [STEPS] [STARTS] [RIDGE]
//! RIDGE: the prior's weight (`LinearTree::ridge`, default 1; 0: least squares). Categories from
//! Z's covariance on the N rows (`LatentKeys::init_by_covariance`, at most 4). Prints the
//! training and held-out RMS error (grid step and noise 0.01) every 10 Gauss-Newton steps.
use kcomp::datasets::grammar::{Composition, GrammarParams, generate};
use kcomp::estimators::prequential::learners::tree::linear::{GnEffort, LinearTree};
use kcomp::estimators::prequential::learners::tree::setup::TreeSetup;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: usize| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let n = arg(3, 1000);
    let p = GrammarParams {
        samples: n + 1000,
        vocab: 20,
        width: arg(1, 3),
        depth: arg(2, 2),
        composition: Composition::Linear,
        seed: arg(4, 0) as u64,
        ..Default::default()
    };
    let steps = arg(5, 60);
    let starts = arg(6, 1);
    let s = TreeSetup::new(&generate(&p).unwrap()).unwrap();
    let (d, br, w) = (s.dim, &s.br, &s.data.w);
    let mut latent = s.latent_keys(4);
    let train: Vec<usize> = (0..n).collect();
    let test: Vec<usize> = (n..n + 1000).collect();
    let y = |r: usize, j: usize| s.y(r, j);
    latent.init_by_covariance(br, &train, &y, d, 3);
    let keys = latent.keys(br, s.data.n());
    let z_scale = s.z_scale(&train);
    let height = br.nodes.last().unwrap().height;
    let needed = latent.rows_needed(w.vocab, d, latent.active);
    println!(
        "width={} depth={} N={n} seed={} active={} rows_needed={needed} ({:.2}x) z_scale={z_scale:.1}",
        p.width,
        p.depth,
        p.seed,
        latent.active,
        n as f64 / needed as f64
    );
    let t = std::time::Instant::now();
    let effort = GnEffort {
        steps: 10,
        cg: 60,
        restarts: 0,
    };
    for s in 0..starts {
        let mut m = LinearTree::new(w.vocab, d, latent.n_rules());
        m.ridge = a.get(7).and_then(|s| s.parse().ok()).unwrap_or(1.0);
        m.randomize(height, z_scale, 99 + s as u64);
        for k in (0..steps).step_by(10) {
            let sse = m.fit(br, &keys, w, &y, &train, effort, z_scale, 5);
            let test_sse = m.sse(br, &keys, w, &y, &test);
            println!(
                "start {s} steps {:4} train {:10.4} test {:10.4}  {:.1}s",
                k + 10,
                (sse / (n * d) as f64).sqrt(),
                (test_sse / (1000 * d) as f64).sqrt(),
                t.elapsed().as_secs_f64()
            );
        }
    }
}
