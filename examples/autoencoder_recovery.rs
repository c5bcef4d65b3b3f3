//! How well the discrete auto-encoder recovers the true W of a lookup-table representation:
//! per-position adjusted mutual information (best permutation of positions), the loss curve's
//! end, and seconds per epoch. Needs the `burn` feature.
//!
//! `cargo run --release --features burn --example autoencoder_recovery -- --disc gumbel
//!  --samples 2000 --length 4 --vocab 8 --dim 64`

use std::time::Instant;

use clap::Parser;
use kcomp::dataset::Targets;
use kcomp::datasets::lookup_table::{LookupParams, generate};
use kcomp::representation::ami::adjusted_mutual_info as ami;
use kcomp::representation::autoencoder::{AutoEncoder, Discretiser};
use kcomp::representation::{LearnerConfig, SentenceLearner, SentenceSpace};

#[derive(Parser)]
struct Args {
    #[arg(long, value_enum, default_value_t = Discretiser::Gumbel)]
    disc: Discretiser,
    #[arg(long, default_value_t = 2000)]
    samples: usize,
    #[arg(long, default_value_t = 4)]
    length: usize,
    #[arg(long, default_value_t = 8)]
    vocab: usize,
    #[arg(long, default_value_t = 64)]
    dim: usize,
    #[arg(long, default_value_t = 1)]
    ngram: usize,
    /// Learned sentence length (default: the true M).
    #[arg(long)]
    learn_length: Option<usize>,
    /// Learned vocabulary (default: the true K).
    #[arg(long)]
    learn_vocab: Option<usize>,
    #[arg(long, default_value_t = 100)]
    epochs: usize,
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    #[arg(long, default_value_t = 128)]
    batch: usize,
    #[arg(long, default_value_t = 1e-3)]
    lr: f64,
    #[arg(long, default_value_t = 1)]
    restarts: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Data: lookup (the generator) or noise (Z drawn i.i.d. Gaussian, the same shape).
    #[arg(long, default_value = "lookup")]
    data: String,
}

/// Mean over true positions of the AMI with the learned position matched to it (best
/// assignment, dynamic programming over subsets of learned positions).
fn best_permutation_ami(true_w: &[u32], m_true: usize, learned: &[u32], m_learn: usize) -> f64 {
    let n = true_w.len() / m_true;
    let col =
        |w: &[u32], m: usize, j: usize| -> Vec<u32> { (0..n).map(|i| w[i * m + j]).collect() };
    let s: Vec<Vec<f64>> = (0..m_true)
        .map(|i| {
            let t = col(true_w, m_true, i);
            (0..m_learn)
                .map(|j| ami(&t, &col(learned, m_learn, j)))
                .collect()
        })
        .collect();
    if std::env::var_os("AMI_MATRIX").is_some() {
        for row in &s {
            eprintln!(
                "{}",
                row.iter()
                    .map(|x| format!("{x:.2}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
    // dp over masks of used learned positions, assigning true positions in order.
    let full = 1usize << m_learn;
    let mut dp = vec![f64::NEG_INFINITY; full];
    dp[0] = 0.0;
    let mut best = f64::NEG_INFINITY;
    for mask in 0..full {
        if dp[mask] == f64::NEG_INFINITY {
            continue;
        }
        let i = mask.count_ones() as usize;
        if i == m_true.min(m_learn) {
            best = best.max(dp[mask]);
            continue;
        }
        for j in 0..m_learn {
            if mask & (1 << j) == 0 {
                let v = dp[mask] + s[i][j];
                if v > dp[mask | (1 << j)] {
                    dp[mask | (1 << j)] = v;
                }
            }
        }
    }
    best / m_true as f64
}

fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let params = LookupParams {
        samples: a.samples,
        length: a.length,
        vocab: a.vocab,
        dim: a.dim,
        ngram: a.ngram,
        seed: a.seed,
        ..LookupParams::default()
    };
    let ds = generate(&params)?;
    let mut grid: Vec<i64> = ds.z.iter().copied().collect();
    if a.data == "noise" {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(a.seed);
        let nd = Normal::new(0.0, 1.0 / params.precision).unwrap();
        grid.iter_mut()
            .for_each(|g| *g = nd.sample(&mut rng).round() as i64);
    }
    let z = Targets::Continuous {
        dim: a.dim,
        lam: params.precision,
        grid,
    };
    let space = SentenceSpace {
        length: a.learn_length.unwrap_or(a.length),
        vocab: a.learn_vocab.unwrap_or(a.vocab),
    };
    let cfg = LearnerConfig {
        hidden: a.hidden,
        epochs: a.epochs,
        batch: a.batch,
        lr: a.lr,
    };
    let learner = AutoEncoder {
        discretiser: a.disc,
        restarts: a.restarts,
    };
    let t = Instant::now();
    let out = learner.learn(&z, space, &cfg, a.seed, &|_, _| {})?;
    let secs = t.elapsed().as_secs_f64();
    if std::env::var_os("CURVE").is_some() {
        for r in out.curve.iter().step_by(10) {
            eprintln!(
                "epoch {} prior {:.2} recon {:.2}",
                r.epoch, r.prior_bits_per_row, r.reconstruction_bits_per_row
            );
        }
    }
    let true_w: Vec<u32> = ds.w.iter().map(|&x| x as u32).collect();
    let score = best_permutation_ami(&true_w, a.length, &out.w.tokens, space.length);
    let best = out
        .curve
        .iter()
        .min_by(|x, y| {
            (x.prior_bits_per_row + x.reconstruction_bits_per_row)
                .total_cmp(&(y.prior_bits_per_row + y.reconstruction_bits_per_row))
        })
        .unwrap();
    let exact_per_row = (ds.terms.k_w_given_pw + ds.terms.k_z_given_wf) / a.samples as f64;
    println!(
        "disc={} N={} M={} K={} D={} q={} learnM={} learnV={} epochs={} restarts={} ami={:.4} best_epoch={} prior={:.2} recon={:.2} total={:.2} exact_w_plus_z_given_w={:.2} secs={:.2} secs_per_epoch={:.4}",
        a.disc.name(),
        a.samples,
        a.length,
        a.vocab,
        a.dim,
        a.ngram,
        space.length,
        space.vocab,
        a.epochs,
        a.restarts,
        score,
        best.epoch,
        best.prior_bits_per_row,
        best.reconstruction_bits_per_row,
        best.prior_bits_per_row + best.reconstruction_bits_per_row,
        exact_per_row,
        secs,
        secs / (a.epochs * a.restarts) as f64
    );
    Ok(())
}
