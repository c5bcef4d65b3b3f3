//! Prequential K(Z|W) beside the generator's exact K(Z|W), per coding scheme
//! (experiments/prequential-accuracy). Prints one CSV row per (family, setting, N, seed,
//! scheme); the header once.
//!
//! `cargo run --release --example prequential_accuracy -- --family lookup --q 1 --ns 250,500
//!  --seeds 0 --schemes reference,online`

use std::time::Instant;

use clap::Parser;
use kcomp::dataset::Dataset;
use kcomp::datasets::grammar::{Composition, GrammarParams, generate as grammar};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::lookup_table::{LookupParams, generate as lookup};
use kcomp::datasets::variable_length::VarLenParams;
use kcomp::estimators::prequential::language_compositionality;
use kcomp::estimators::prequential::online::{LearnerSpec, OnlineConfig};
use kcomp::estimators::prequential::run_config::resolve;
use kcomp::estimators::prequential::switching::Mixing;
use kcomp::estimators::prequential::{
    ModelConfig, Ordering, PrequentialConfig, Schedule, Scheme, prequential_code,
};
use kcomp::neural::TrainConfig;
use kcomp::panel::config::FamilySpec;
use kcomp::panel::family;

#[derive(Parser)]
struct Args {
    /// lookup, lookup12 (6 words x 4 letters, D = 12), grammar, language, grid (string-to-grid,
    /// 6 positions x 4 letters on a 6 x 6 grid, random layout, N sampled inputs), varlen (padded
    /// variable-length messages whose last real token carries Z) or emergent (configs/prequential/emergent.toml as is, N
    /// ignored; C^L with the protocol's K(Z)).
    #[arg(long, default_value = "lookup")]
    family: String,
    /// Lookup n-gram size (q = 1: K = 10; q = 2: K = 2; q = 3: K = 2, 12 positions).
    #[arg(long, default_value_t = 1)]
    q: usize,
    /// Holistic fraction of a language system or a string-to-grid map.
    #[arg(long, default_value_t = 0.0)]
    h: f64,
    /// Protocol kind (family `protocol`): trivially-compositional, non-trivially-compositional,
    /// holistic, random, order-sensitive, negation, context-sensitive; layout setting (family
    /// `grid4`): h, v, b, r, hr, h-index-shuffle, holistic.
    #[arg(long, default_value = "trivially-compositional")]
    kind: String,
    /// Colours = shapes of a protocol.
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Family `langx`: a language of this many attributes, one token per attribute over as many
    /// symbols as values (`--values`), N / values^attrs repeats.
    #[arg(long, default_value_t = 4)]
    attrs: usize,
    #[arg(long, default_value_t = 4)]
    values: usize,
    #[arg(long, value_delimiter = ',', default_value = "500")]
    ns: Vec<usize>,
    #[arg(long, value_delimiter = ',', default_value = "0")]
    seeds: Vec<u64>,
    /// reference, online, or online with `+`-joined ablations: nocal (no calibration),
    /// noreplay (only the new block is trained on), ema (EMA 0.99 of the weights), bayes
    /// (Bayesian mixture instead of switching), mlp (the MLPs only), nongram, nolinear
    /// (without those learners), fast (without the MLPs and the GRU), noseq (without the GRU
    /// that padded W adds). E.g. `online+mlp+nocal`.
    #[arg(long, value_delimiter = ',', default_value = "online")]
    schemes: Vec<String>,
    /// Print the header.
    #[arg(long)]
    header: bool,
    /// Grammar family: non-terminals per level, levels, composition (linear, tensor), vocabulary.
    #[arg(long, default_value_t = 3)]
    width: usize,
    #[arg(long, default_value_t = 2)]
    depth: usize,
    #[arg(long, default_value = "linear")]
    composition: String,
    #[arg(long, default_value_t = 20)]
    vocab: usize,
    /// Threads per prequential run (0 = all).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// The data of one cell: setting label, dataset, padding token (variable-length W).
fn dataset(a: &Args, n: usize, seed: u64) -> kcomp::error::Result<(String, Dataset, Option<u32>)> {
    if a.family == "varlen" {
        let p = VarLenParams {
            samples: n,
            seed,
            ..Default::default()
        };
        return Ok(("max_len=6".into(), p.generate()?, Some(p.pad())));
    }
    // Panel family kinds with their parameters as TOML; N sets the rows.
    let objects = a.size * a.size * if a.kind == "context-sensitive" { 3 } else { 1 };
    let panel = match a.family.as_str() {
        "grid" => Some((
            "grid",
            format!(
                "setting = \"r\"\npositions = 6\nletters = 4\nside = 6\ncomplementary = false\nsamples = {n}"
            ),
            format!("h={}", a.h),
        )),
        "grid5" => Some((
            "grid",
            format!(
                "setting = \"r\"\npositions = 5\nletters = 4\nside = 5\ncomplementary = false\nsamples = {n}"
            ),
            format!("h={}", a.h),
        )),
        // Xu et al.'s published 4 x 4 shape (the default panel's `grid-setting` family): the
        // layout setting from --kind (h, v, b, r, hr, h-index-shuffle, holistic); N ignored.
        "grid4" => Some(("grid", format!("samples = {}", n.min(16)), a.kind.clone())),
        "protocol" => Some((
            "protocol",
            format!(
                "kind = \"{}\"\ncolours = {}\nshapes = {}",
                a.kind, a.size, a.size
            ),
            format!("{}-{}x{}", a.kind, a.size, a.size),
        )),
        _ => None,
    };
    if let Some((kind, params, label)) = panel {
        let params: toml::Table = toml::from_str(&params).expect("valid TOML");
        let spec = FamilySpec {
            name: None,
            kind: kind.into(),
            parameter: if a.family == "grid4" {
                "setting".into()
            } else if kind == "grid" {
                "holistic_fraction".into()
            } else {
                "repeats".into()
            },
            values: vec![],
            params,
        };
        let value = if a.family == "grid4" {
            toml::Value::String(a.kind.clone())
        } else if kind == "grid" {
            toml::Value::Float(a.h)
        } else {
            toml::Value::Integer((n / objects).max(1) as i64)
        };
        let d = family::generate(&spec, &value, seed)?;
        return Ok((label, d, None));
    }
    let (setting, d) = match a.family.as_str() {
        "lookup" => {
            let vocab = if a.q == 1 { 10 } else { 2 };
            // q = 3 needs a length it divides (and D q / M whole): 12 positions.
            let length = if a.q == 3 { 12 } else { 16 };
            let p = LookupParams {
                samples: n,
                ngram: a.q,
                vocab,
                length,
                seed,
                ..Default::default()
            };
            Ok((format!("q={}", a.q), lookup(&p)?.to_dataset()?))
        }
        // The held-out shape of configs/compare/requential-heldout.toml (6 words x 4 letters,
        // D = 12): continuous Z the tree learner applies to, without tree composition.
        "lookup12" => {
            let p = LookupParams {
                samples: n,
                ngram: a.q,
                vocab: 4,
                length: 6,
                dim: 12,
                seed,
                ..Default::default()
            };
            Ok((format!("q={} M=6 D=12", a.q), lookup(&p)?.to_dataset()?))
        }
        "grammar" => {
            let composition = match a.composition.as_str() {
                "tensor" => Composition::Tensor,
                _ => Composition::Linear,
            };
            let p = GrammarParams {
                samples: n,
                vocab: a.vocab,
                width: a.width,
                depth: a.depth,
                composition,
                seed,
                ..Default::default()
            };
            let label =
                if (a.vocab, a.width, a.depth, composition) == (20, 3, 2, Composition::Linear) {
                    "vocab=20".to_string()
                } else {
                    format!(
                        "vocab={} width={} depth={} {}",
                        a.vocab, a.width, a.depth, a.composition
                    )
                };
            Ok((label, grammar(&p)?.to_dataset()?))
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
        // 3 attributes x 5 values, one token per attribute over 5 symbols (125 objects).
        "language3" => {
            let c = LanguageSystemConfig {
                n_attr: 3,
                n_vals: 5,
                msg_len: 3,
                vocab: 5,
                repeats: (n / 125).max(1),
                holistic_fraction: a.h,
                seed,
                ..Default::default()
            };
            Ok((format!("h={}", a.h), c.dataset()?))
        }
        "langx" => {
            let objects = a.values.pow(a.attrs as u32);
            let c = LanguageSystemConfig {
                n_attr: a.attrs,
                n_vals: a.values,
                msg_len: a.attrs,
                vocab: a.values,
                repeats: (n / objects).max(1),
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
    }?;
    Ok((setting, d, None))
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

fn online(variant: &str, seed: u64, threads: usize, pad: Option<u32>) -> PrequentialConfig {
    let mut o = OnlineConfig {
        pad,
        ..Default::default()
    };
    // A variant is `online` followed by `+`-joined ablations.
    for part in variant.split('+').skip(1) {
        match part {
            "norules" => o.learners.retain(|l| !matches!(l, LearnerSpec::Rules(_))),
            "rules" => o
                .learners
                .retain(|l| matches!(l, LearnerSpec::Rules(_) | LearnerSpec::Marginal)),
            "nongram" => o
                .learners
                .retain(|l| !matches!(l, LearnerSpec::Ngram { .. })),
            "nolinear" => o
                .learners
                .retain(|l| !matches!(l, LearnerSpec::Linear { .. })),
            "mlp" => o.learners.retain(|l| matches!(l, LearnerSpec::Mlp { .. })),
            "nosparse" => o
                .learners
                .retain(|l| !matches!(l, LearnerSpec::Sparse { .. })),
            // The n-gram tables of orders 0-2 only (the learner set before orders 0-3).
            "ngram2" => o.learners.iter_mut().for_each(|l| {
                if let LearnerSpec::Ngram { order } = l {
                    *order = (*order).min(2);
                }
            }),
            "fast" => {
                o.learners.retain(|l| !matches!(l, LearnerSpec::Mlp { .. }));
                o.pad = None;
            }
            "noseq" => o.pad = None,
            // The tree learner beside the marginal learner only.
            "treeonly" => {
                o.learners = vec![LearnerSpec::Marginal, LearnerSpec::Tree(Default::default())]
            }
            "notree" => o.learners.retain(|l| !matches!(l, LearnerSpec::Tree(_))),
            // The tree learner (in the default set; kept for schemes that removed it).
            "tree" => {
                if !o.learners.iter().any(|l| matches!(l, LearnerSpec::Tree(_))) {
                    o.learners.push(LearnerSpec::Tree(Default::default()));
                }
            }
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

/// The exact K(Z|W) restricted to `n_enc` of `n` rows: the per-row terms scale, the rest
/// (the function's own cost) does not.
fn exact_encoded(exact: &kcomp::dataset::ExactTerms, n_enc: usize, n: usize) -> f64 {
    let parts = &exact.parts;
    let f = n_enc as f64 / n as f64;
    match (parts.get("k_f"), parts.get("k_z_given_wf")) {
        (Some(kf), Some(noise)) => kf + noise * f,
        // String-to-grid: the holistic rows' grids are per row; layout, patterns and the
        // exception bookkeeping are not (the binomial of the exception inputs is kept whole).
        _ => match parts.get("exception_grids") {
            Some(g) if parts.contains_key("layout") => exact.k_z_given_w_bits - g * (1.0 - f),
            // Deterministic tables (variable-length data): the function costs the same.
            _ if parts.get("residual") == Some(&0.0) => exact.k_z_given_w_bits,
            _ => exact.k_z_given_w_bits * f,
        },
    }
}

/// C^L on the emergent protocol (configs/prequential/emergent.toml with the language's h and
/// seed set) under each scheme: the reference as configured, `online` / `online+fast` with the
/// protocol's grouped order and analytic K(Z).
fn emergent(a: &Args, seed: u64) {
    let path = std::path::Path::new("configs/prequential/emergent.toml");
    let mut base = match resolve(Some(path), &[], &[]) {
        Ok(r) => r.config,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let lang = base.language.get_or_insert_with(Default::default);
    lang.holistic_fraction = a.h;
    lang.seed = seed;
    base.prequential.seed = seed;
    base.prequential.threads = a.threads;
    let data = base
        .language
        .clone()
        .unwrap_or_default()
        .dataset()
        .expect("valid language");
    let exact = data
        .exact
        .clone()
        .expect("language systems have exact terms");
    let n = data.n();
    for scheme in &a.schemes {
        let mut cfg = base.prequential.clone();
        if scheme != "reference" {
            let o = online(scheme, seed, a.threads, None);
            cfg.scheme = o.scheme;
            cfg.online = o.online;
        }
        let r = match language_compositionality(&data.w, &data.z, &cfg, None) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{scheme}: {e}");
                std::process::exit(2);
            }
        };
        let top = r
            .learners
            .iter()
            .max_by(|x, y| x.final_weight.total_cmp(&y.final_weight))
            .map_or("emergent".to_string(), |l| l.name.clone());
        let exact_enc = exact_encoded(&exact, r.n_encoded, n);
        println!(
            "emergent,h={},{n},{seed},{scheme},{},{:.1},{:.1},{:.1},{:.4},{:.4},{:.1},{:.2},{top},{:.1}",
            a.h,
            r.n_encoded,
            exact.k_z_given_w_bits,
            exact_enc,
            r.k_data,
            r.k_data / exact_enc,
            r.c_l,
            r.k_data_given_f,
            r.wall_seconds,
            r.k_z,
        );
    }
}

fn main() {
    let a = Args::parse();
    if a.header {
        println!(
            "family,setting,N,seed,scheme,n_encoded,exact_bits,exact_encoded_bits,k_data_bits,\
             ratio,c_l,k_data_given_f_bits,wall_seconds,best_learner,k_z_bits"
        );
    }
    for &n in &a.ns {
        for &seed in &a.seeds {
            if a.family == "emergent" {
                emergent(&a, seed);
                continue;
            }
            let (setting, data, pad) = match dataset(&a, n, seed) {
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
                        vec![(scheme.clone(), online(scheme, seed, a.threads, pad))]
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
                let exact_enc = exact_encoded(&exact, code.n_encoded, n);
                println!(
                    "{},{setting},{n},{seed},{scheme},{},{:.1},{:.1},{:.1},{:.4},{:.4},{:.1},{:.2},{name},{:.1}",
                    a.family,
                    code.n_encoded,
                    exact.k_z_given_w_bits,
                    exact_enc,
                    k_data,
                    k_data / exact_enc,
                    data.k_z.bits * code.n_encoded as f64 / n as f64 / k_data,
                    code.k_data_given_f,
                    t0.elapsed().as_secs_f64(),
                    data.k_z.bits * code.n_encoded as f64 / n as f64,
                );
            }
        }
    }
}
