//! Prequential K(Z|W) beside the generator's exact K(Z|W), per coding scheme
//! (experiments/prequential-accuracy). Prints one CSV row per (family, setting, N, seed,
//! scheme); the header once.
//!
//! `cargo run --release --example prequential_accuracy -- --family lookup --q 1 --ns 250,500
//!  --seeds 0 --schemes reference,online`

use std::time::Instant;

use clap::Parser;
use kcomp::dataset::Dataset;
use kcomp::datasets::grammar::{GrammarParams, generate as grammar};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::lookup_table::{LookupParams, generate as lookup};
use kcomp::estimators::prequential::online::{LearnerSpec, OnlineConfig};
use kcomp::estimators::prequential::switching::Mixing;
use kcomp::estimators::prequential::{
    ModelConfig, Ordering, PrequentialConfig, Schedule, Scheme, prequential_code,
};
use kcomp::neural::TrainConfig;

#[derive(Parser)]
struct Args {
    /// lookup, grammar or language.
    #[arg(long, default_value = "lookup")]
    family: String,
    /// Lookup n-gram size (q = 1: K = 10; q = 2: K = 2).
    #[arg(long, default_value_t = 1)]
    q: usize,
    /// Holistic fraction of a language system.
    #[arg(long, default_value_t = 0.0)]
    h: f64,
    #[arg(long, value_delimiter = ',', default_value = "500")]
    ns: Vec<usize>,
    #[arg(long, value_delimiter = ',', default_value = "0")]
    seeds: Vec<u64>,
    /// reference, online, or online with `+`-joined ablations: nocal (no calibration),
    /// noreplay (only the new block is trained on), ema (EMA 0.99 of the weights), bayes
    /// (Bayesian mixture instead of switching), mlp (the MLPs only), nongram, nolinear
    /// (without those learners), fast (without the MLPs). E.g. `online+mlp+nocal`.
    #[arg(long, value_delimiter = ',', default_value = "online")]
    schemes: Vec<String>,
    /// Print the header.
    #[arg(long)]
    header: bool,
    /// Threads per prequential run (0 = all).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

fn dataset(a: &Args, n: usize, seed: u64) -> kcomp::error::Result<(String, Dataset)> {
    match a.family.as_str() {
        "lookup" => {
            let vocab = if a.q == 1 { 10 } else { 2 };
            let p = LookupParams {
                samples: n,
                ngram: a.q,
                vocab,
                seed,
                ..Default::default()
            };
            Ok((format!("q={}", a.q), lookup(&p)?.to_dataset()?))
        }
        "grammar" => {
            let p = GrammarParams {
                samples: n,
                vocab: 20,
                seed,
                ..Default::default()
            };
            Ok(("vocab=20".into(), grammar(&p)?.to_dataset()?))
        }
        "language" => {
            let c = LanguageSystemConfig {
                repeats: n / 64,
                holistic_fraction: a.h,
                seed,
                ..Default::default()
            };
            Ok((format!("h={}", a.h), c.dataset()?))
        }
        f => Err(kcomp::error::KcompError::param(
            "family",
            format!("unknown family {f}"),
        )),
    }
}

/// The reference protocol with one model (lookup-table settings of
/// experiments/prequential-lookup: random order, N/10 validation rows, 8 log-spaced chunks).
fn reference(
    n: usize,
    seed: u64,
    hidden: Vec<usize>,
    lr: f64,
    threads: usize,
) -> PrequentialConfig {
    PrequentialConfig {
        seed,
        ordering: Ordering::Random,
        val_size: n / 10,
        schedule: Schedule::Log { min: 16, n: 8 },
        model: ModelConfig {
            emb_dim: 16,
            hidden,
            ..Default::default()
        },
        train: TrainConfig {
            lr,
            batch_size: 32,
            max_epochs: 2000,
            patience: 50,
            tolerance: 1e-4,
            lr_decay: 0.5,
            lr_patience: 10,
        },
        threads,
        ..Default::default()
    }
}

fn online(variant: &str, seed: u64, threads: usize) -> PrequentialConfig {
    let mut o = OnlineConfig::default();
    // A variant is `online` followed by `+`-joined ablations.
    for part in variant.split('+').skip(1) {
        match part {
            "nongram" => o
                .learners
                .retain(|l| !matches!(l, LearnerSpec::Ngram { .. })),
            "nolinear" => o
                .learners
                .retain(|l| !matches!(l, LearnerSpec::Linear { .. })),
            "mlp" => o.learners.retain(|l| matches!(l, LearnerSpec::Mlp { .. })),
            "fast" => o.learners.retain(|l| !matches!(l, LearnerSpec::Mlp { .. })),
            "bayes" => o.mixing = Mixing::Bayes,
            "noreplay" => o.epochs = 0.0,
            "nocal" | "ema" => {
                for l in o.learners.iter_mut() {
                    if let LearnerSpec::Mlp { calibrate, ema, .. } = l {
                        if part == "nocal" {
                            *calibrate = false;
                        } else {
                            *ema = 0.99;
                        }
                    }
                }
            }
            p => {
                eprintln!("unknown online variant part `{p}`");
                std::process::exit(2);
            }
        }
    }
    if let Ok(e) = std::env::var("FIRST") {
        o.first = e.parse().unwrap_or(o.first);
    }
    PrequentialConfig {
        seed,
        ordering: Ordering::Random,
        threads,
        scheme: Scheme::Online,
        online: o,
        ..Default::default()
    }
}

fn main() {
    let a = Args::parse();
    if a.header {
        println!(
            "family,setting,N,seed,scheme,n_encoded,exact_bits,exact_encoded_bits,k_data_bits,\
             ratio,c_l,k_data_given_f_bits,wall_seconds,best_learner"
        );
    }
    for &n in &a.ns {
        for &seed in &a.seeds {
            let (setting, data) = match dataset(&a, n, seed) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(2);
                }
            };
            let n = data.n(); // language systems round N down to whole repeats
            let exact = data.exact.clone().expect("generated data have exact terms");
            for scheme in &a.schemes {
                let t0 = Instant::now();
                let runs: Vec<(String, PrequentialConfig)> =
                    if scheme == "reference" && a.family == "language" {
                        // The emergent protocol's reference settings (grouped order, chunks of 50).
                        let cfg = PrequentialConfig {
                            seed,
                            val_size: (data.n() / 10).max(10),
                            threads: a.threads,
                            ..Default::default()
                        };
                        vec![("emergent".into(), cfg)]
                    } else if scheme == "reference" {
                        vec![
                            ("linear".into(), reference(n, seed, vec![], 0.01, a.threads)),
                            (
                                "mlp256".into(),
                                reference(n, seed, vec![256], 0.003, a.threads),
                            ),
                        ]
                    } else {
                        vec![(scheme.clone(), online(scheme, seed, a.threads))]
                    };
                let mut best: Option<(
                    f64,
                    String,
                    kcomp::estimators::prequential::PrequentialCode,
                )> = None;
                for (name, cfg) in runs.iter() {
                    let code = match prequential_code(&data.w, &data.z, cfg, None) {
                        Ok(c) => c,
                        Err(e) => {
                            eprintln!("{name}: {e}");
                            std::process::exit(2);
                        }
                    };
                    let name = if code.learners.is_empty() {
                        name.clone()
                    } else {
                        let top = code
                            .learners
                            .iter()
                            .max_by(|x, y| x.final_weight.total_cmp(&y.final_weight))
                            .map(|l| l.name.clone())
                            .unwrap_or_default();
                        let own: Vec<String> = code
                            .learners
                            .iter()
                            .map(|l| format!("{}={:.0}", l.name, l.bits))
                            .collect();
                        eprintln!("  {scheme} N={n} seed={seed}: {}", own.join(" "));
                        top
                    };
                    if best.as_ref().is_none_or(|b| code.k_data < b.0) {
                        best = Some((code.k_data, name, code));
                    }
                }
                let (k_data, name, code) = best.expect("at least one run");
                // Naming the reference's model among 2 costs 1 bit.
                let k_data = if runs.len() > 1 {
                    k_data + (runs.len() as f64).log2()
                } else {
                    k_data
                };
                let parts = &exact.parts;
                let exact_enc = match (parts.get("k_f"), parts.get("k_z_given_wf")) {
                    (Some(kf), Some(noise)) => kf + noise * code.n_encoded as f64 / n as f64,
                    _ => exact.k_z_given_w_bits * code.n_encoded as f64 / n as f64,
                };
                println!(
                    "{},{setting},{n},{seed},{scheme},{},{:.1},{:.1},{:.1},{:.4},{:.4},{:.1},{:.2},{name}",
                    a.family,
                    code.n_encoded,
                    exact.k_z_given_w_bits,
                    exact_enc,
                    k_data,
                    k_data / exact_enc,
                    data.k_z.bits * code.n_encoded as f64 / n as f64 / k_data,
                    code.k_data_given_f,
                    t0.elapsed().as_secs_f64(),
                );
            }
        }
    }
}
