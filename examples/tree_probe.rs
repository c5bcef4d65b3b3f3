//! Probe: the tree learner (with the marginal) on one grammar, against the exact K(Z|W).
//! Usage: cargo run --release --example tree_probe -- WIDTH DEPTH N SEED [linear|tensor] [LATENT]
//! [ORDER_SEED] (LATENT: most latent node categories of the linear sub-model, default
//! TreeSettings's; ORDER_SEED: the prequential code's seed, its row order and the learner's
//! random starts, default 0; the sweep uses SEED for both). KCOMP_PROBE_THREADS: threads (default
//! 1; the bits do not depend on it); KCOMP_PROBE_TRUNCATE_CG: `TreeSettings::truncate_cg` on.
use kcomp::datasets::grammar::{Composition, GrammarParams, generate};
use kcomp::estimators::prequential::learners::tree::TreeSettings;
use kcomp::estimators::prequential::online::{LearnerSpec, OnlineConfig, online_code};
use kcomp::estimators::prequential::{Ordering, PrequentialConfig, Scheme};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: usize| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let comp = match a.get(5).map(String::as_str) {
        Some("tensor") => Composition::Tensor,
        _ => Composition::Linear,
    };
    let p = GrammarParams {
        samples: arg(3, 2000),
        vocab: 20,
        width: arg(1, 3),
        depth: arg(2, 2),
        composition: comp,
        seed: arg(4, 0) as u64,
        ..Default::default()
    };
    let g = generate(&p).unwrap();
    let exact = g.terms.k_z_given_w();
    let data = g.to_dataset().unwrap();
    let cfg = PrequentialConfig {
        seed: arg(7, 0) as u64,
        ordering: Ordering::Random,
        val_size: 0,
        scheme: Scheme::Online,
        threads: std::env::var("KCOMP_PROBE_THREADS")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(1),
        online: OnlineConfig {
            learners: vec![
                LearnerSpec::Marginal,
                LearnerSpec::Tree(TreeSettings {
                    latent: arg(6, TreeSettings::default().latent),
                    truncate_cg: std::env::var_os("KCOMP_PROBE_TRUNCATE_CG").is_some(),
                    ..Default::default()
                }),
            ],
            ..Default::default()
        },
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let code = online_code(&data.w, &data.z, &cfg, None).unwrap();
    println!(
        "width={} depth={} N={} seed={}: preq={:.0} exact={:.0} ratio={:.3} C_exact={:.3} K(Z)={:.0} C_preq={:.3} {:.1}s",
        p.width,
        p.depth,
        p.samples,
        p.seed,
        code.k_data,
        exact,
        code.k_data / exact,
        g.terms.c(),
        g.terms.k_z(),
        g.terms.k_z() / code.k_data,
        t.elapsed().as_secs_f64()
    );
    // KCOMP_PROBE_CHUNKS: bits per row of every chunk (where the bits go).
    if std::env::var_os("KCOMP_PROBE_CHUNKS").is_some() {
        for c in &code.chunks {
            println!(
                "rows {:>5}-{:>5}: {:>8.1} bits/row",
                c.start, c.end, c.bits_per_sample
            );
        }
    }
}
