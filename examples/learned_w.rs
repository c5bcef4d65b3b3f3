//! The runner of experiments/learned-w: C(Z) of a representation alone (sentences learned
//! from Z, every term coded) against the generator's exact terms, on lookup tables (the
//! Figure 2 sweeps of Elmoznino et al., ICML 2025), grammars, holistic data and noise.
//! Prints one CSV row per dataset (header once) on stdout.
//!
//! `cargo run --release --example learned_w -- --sweep lookup-length --samples 1000 --seeds 0`
//!
//! `--learner`: `kmeans` (the default learner, MDL selection over the default grid),
//! `autoencoder` (feature `burn`; at the true sentence space with `--true-space`, else the
//! default grid), or `truth` (the generator's own W: what the code-length terms make of a
//! perfectly recovered W, the ceiling of any learner).

use std::time::Instant;

use clap::Parser;
use kcomp::dataset::{Dataset, Targets, TokenData};
use kcomp::datasets::grammar::{GrammarParams, generate as grammar};
use kcomp::datasets::lookup_table::{LookupParams, generate as lookup};
use kcomp::representation::ami::recovery;
use kcomp::representation::kmeans::KMeansLearner;
use kcomp::representation::select::{SelectConfig, select};
use rand::{RngExt, SeedableRng};

#[derive(Parser)]
struct Args {
    /// lookup-length, lookup-vocab, lookup-dim, lookup-ngram, lookup-q2, grammar-width,
    /// grammar-depth, holistic, noise.
    #[arg(long, default_value = "")]
    sweep: String,
    /// Instead of running: read DIR/*.csv and write DIR/../tables.md, DIR/../summary.csv and
    /// the figures DIR/../c_estimated_vs_exact.{png,svg}, DIR/../k_z_estimated_vs_exact.{png,svg}.
    #[arg(long)]
    summarise: Option<std::path::PathBuf>,
    /// Parameter values (default: the sweep's own list).
    #[arg(long, value_delimiter = ',')]
    values: Option<Vec<String>>,
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    #[arg(long, value_delimiter = ',', default_value = "0")]
    seeds: Vec<u64>,
    /// Print the header line.
    #[arg(long)]
    header: bool,
    /// kmeans, autoencoder (feature burn) or truth (the generator's W).
    #[arg(long, default_value = "kmeans")]
    learner: String,
    /// Learn only at the true sentence space (M positions over the true vocabulary) instead
    /// of selecting it (the auto-encoder: one grid point instead of about 60).
    #[arg(long)]
    true_space: bool,
    /// Training epochs (default: 50 Lloyd iterations for k-means, 200 for the auto-encoder).
    #[arg(long)]
    epochs: Option<usize>,
    /// Learning rate of the auto-encoder.
    #[arg(long, default_value_t = 1e-2)]
    lr: f64,
    /// Restarts of the auto-encoder.
    #[arg(long, default_value_t = 4)]
    restarts: usize,
    /// The decoder learners of K(Z|W): `terms` (the default of `kcomp represent`: marginal,
    /// n-gram tables, Bayesian linear regression), `prequential` (the online scheme's whole
    /// default set, with its MLPs: slower), or a list as `kcomp represent --decoders` takes it
    /// (`default,tree`).
    #[arg(long, default_value = "terms")]
    decoders: String,
    /// Composition of the grammar sweeps: linear (the default grammar) or tensor.
    #[arg(long, default_value = "linear")]
    composition: String,
    /// Vocabulary of the grammar sweeps (default: the generator's, 100).
    #[arg(long)]
    grammar_vocab: Option<usize>,
}

/// The terms' learners of `--decoders`.
fn terms_config(args: &Args) -> kcomp::representation::terms::TermsConfig {
    let mut t = kcomp::representation::terms::TermsConfig::default();
    match args.decoders.as_str() {
        "terms" => {}
        "prequential" => {
            t.decoder_learners =
                kcomp::estimators::prequential::online::OnlineConfig::default().learners
        }
        list => {
            let names: Vec<String> = list.split(',').map(String::from).collect();
            t.decoder_learners =
                kcomp::representation::terms::parse_decoders(&names).expect("--decoders")
        }
    }
    t
}

/// The default values of each sweep (subsets of Figure 2's, where those take too long).
fn default_values(sweep: &str) -> Vec<&'static str> {
    match sweep {
        "lookup-length" => vec!["1", "2", "4", "8", "16", "32"],
        "lookup-vocab" => vec!["2", "4", "6", "10", "16", "32"],
        "lookup-dim" => vec!["16", "32", "64", "96", "128"],
        "lookup-ngram" => vec!["1", "2", "4"],
        "lookup-q2" => vec!["4", "8", "16"],
        "grammar-width" => vec!["1", "2", "4"],
        "grammar-depth" => vec!["1", "2", "3"],
        "holistic" | "noise" => vec!["16", "64"],
        _ => vec![],
    }
}

/// The dataset of one (sweep, value, seed) and its true W (None for noise).
fn dataset(args: &Args, value: &str, seed: u64) -> (Dataset, Option<TokenData>) {
    let (sweep, n) = (args.sweep.as_str(), args.samples);
    let num: usize = value.parse().expect("numeric value");
    let mut lp = LookupParams {
        samples: n,
        seed,
        ..Default::default()
    };
    let mut gp = GrammarParams {
        samples: n,
        seed,
        composition: match args.composition.as_str() {
            "linear" => kcomp::datasets::grammar::Composition::Linear,
            "tensor" => kcomp::datasets::grammar::Composition::Tensor,
            other => panic!("unknown composition {other} (linear, tensor)"),
        },
        ..Default::default()
    };
    if let Some(v) = args.grammar_vocab {
        gp.vocab = v;
    }
    let from = |d: Dataset| {
        let w = d.w.clone();
        (d, Some(w))
    };
    match sweep {
        "lookup-length" => lp.length = num,
        "lookup-vocab" => lp.vocab = num,
        "lookup-dim" => lp.dim = num,
        "lookup-ngram" => {
            lp.ngram = num;
            lp.vocab = 2;
        }
        "lookup-q2" => {
            lp.ngram = 2;
            lp.length = num;
            lp.vocab = 4;
        }
        "grammar-width" => gp.width = num,
        "grammar-depth" => gp.depth = num,
        "grammar-samples" => gp.samples = num,
        "holistic" => {
            // A one-word lookup table over N words, N rows each drawing its word uniformly:
            // about 63 % of the objects occur (some several times, so a one-word-per-object W
            // legitimately compresses Z). K(f) charges only the table rows that occur: the
            // rows never drawn are not in Z, and the estimate codes Z.
            lp.length = 1;
            lp.vocab = n;
            lp.dim = num;
            lp.table_cost = kcomp::datasets::lookup_table::TableCost::Used;
            let d = lookup(&lp).expect("lookup").to_dataset().expect("dataset");
            let w = d.w.clone();
            return (d, Some(w));
        }
        "noise" => {
            // Uniform noise on [-1, 1] per value.
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let v: Vec<f64> = (0..n * num)
                .map(|_| rng.random::<f64>() * 2.0 - 1.0)
                .collect();
            let z = Targets::from_floats(num, 0.01, &v).expect("grid");
            let all: Vec<usize> = (0..n).collect();
            let naive = kcomp::estimators::prequential::naive::naive_bits(&z, &all);
            let d = Dataset::new(
                TokenData::blind(n),
                z,
                Default::default(),
                kcomp::dataset::KzReference {
                    bits: naive,
                    method: kcomp::dataset::KzMethod::NaiveGaussian,
                },
                None,
            )
            .expect("dataset");
            return (d, None);
        }
        _ => panic!("unknown sweep {sweep}"),
    }
    if sweep.starts_with("grammar") {
        from(
            grammar(&gp)
                .expect("grammar")
                .to_dataset()
                .expect("dataset"),
        )
    } else {
        // The true words of a q-gram table are its q-grams (one table row per q-gram): the
        // learned tokens are compared with them, not with the single words.
        let d = lookup(&lp).expect("lookup").to_dataset().expect("dataset");
        let q = lp.ngram;
        let positions = lp.length / q;
        let k = lp.vocab as u32;
        let grams: Vec<u32> = (0..n)
            .flat_map(|i| {
                let row = d.w.row(i).to_vec();
                (0..positions).map(move |p| {
                    row[p * q..(p + 1) * q]
                        .iter()
                        .rev()
                        .fold(0u32, |a, &t| a * k + t)
                })
            })
            .collect();
        let truth =
            TokenData::new(n, positions, lp.vocab.pow(q as u32), grams).expect("q-gram tokens");
        (d, Some(truth))
    }
}

/// W learned by `args.learner` (or the true W), its terms and the number of sentence spaces
/// tried.
fn learn(
    args: &Args,
    d: &Dataset,
    truth: Option<&TokenData>,
    seed: u64,
) -> (TokenData, kcomp::representation::terms::Terms, usize) {
    use kcomp::representation::SentenceLearner;
    if args.learner == "truth" {
        let w = truth.expect("the truth learner needs a true W").clone();
        let t = kcomp::representation::terms::terms(&w, &d.z, &terms_config(args), seed)
            .expect("terms");
        return (w, t, 1);
    }
    let learner: Box<dyn SentenceLearner> = match args.learner.as_str() {
        "kmeans" => Box::new(KMeansLearner::default()),
        #[cfg(feature = "burn")]
        "autoencoder" => Box::new(kcomp::representation::autoencoder::AutoEncoder {
            restarts: args.restarts,
            ..Default::default()
        }),
        other => panic!("unknown learner {other} (autoencoder needs --features burn)"),
    };
    let default_epochs = if args.learner == "kmeans" { 50 } else { 200 };
    let mut cfg = SelectConfig {
        seed,
        terms: terms_config(args),
        learner: kcomp::representation::LearnerConfig {
            epochs: args.epochs.unwrap_or(default_epochs),
            lr: args.lr,
            ..Default::default()
        },
        ..Default::default()
    };
    if args.true_space {
        let tw = truth.expect("--true-space needs a true W");
        cfg.lengths = Some(vec![tw.n_words]);
        cfg.vocabs = Some(vec![tw.vocab]);
    }
    let s = select(learner.as_ref(), &d.z, &cfg, &|_, _| {}).expect("select");
    let n = s.points.len();
    (s.learned.w, s.terms, n)
}

fn main() {
    let args = Args::parse();
    if let Some(dir) = &args.summarise {
        summarise(dir);
        return;
    }
    if args.header {
        println!(
            "sweep,value,samples,seed,learner,length,vocab,mean_ami,k_w_bits,k_z_given_w_bits,k_z_bits,\
             naive_bits,c,w_paid,exact_k_z_bits,exact_k_z_given_w_bits,exact_c,grid_points,seconds,\
             k_z_given_w_learned_bits,learned_total_bits,k_w_code,k_w_positions_bits,k_w_class_bits"
        );
    }
    let values: Vec<String> = args.values.clone().unwrap_or_else(|| {
        default_values(&args.sweep)
            .into_iter()
            .map(String::from)
            .collect()
    });
    for v in &values {
        for &seed in &args.seeds {
            let (d, truth) = dataset(&args, v, seed);
            let start = Instant::now();
            let (w, t, grid_points) = learn(&args, &d, truth.as_ref(), seed);
            let secs = start.elapsed().as_secs_f64();
            let t = &t;
            let ami = truth
                .map(|tw| recovery(&w, &tw).expect("ami").mean_ami)
                .map_or(String::new(), |a| format!("{a:.4}"));
            let (ekz, ekzw, ec) = match &d.exact {
                Some(e) => (
                    format!("{:.1}", e.k_z_bits),
                    format!("{:.1}", e.k_z_given_w_bits),
                    format!("{:.4}", e.k_z_bits / e.k_z_given_w_bits),
                ),
                // Holistic and noise: no structure, the exact C is 1 by construction.
                None => (String::new(), String::new(), "1".into()),
            };
            println!(
                "{},{v},{},{seed},{},{},{},{ami},{:.1},{:.1},{:.1},{:.1},{:.4},{},{ekz},{ekzw},{ec},{grid_points},{secs:.1},{:.1},{:.1},{},{:.1},{}",
                args.sweep,
                args.samples,
                args.learner,
                t.length,
                t.vocab,
                t.k_w_bits,
                t.k_z_given_w_bits,
                t.k_z_bits,
                t.naive_bits,
                t.c,
                t.w_paid,
                t.k_z_given_w_learned_bits,
                t.learned_total_bits,
                t.k_w_code.name(),
                t.k_w_positions_bits,
                t.k_w_class_bits
                    .map_or(String::new(), |b| format!("{b:.1}")),
            );
        }
    }
}

/// One result row as read back.
#[derive(Debug, Clone, serde::Deserialize)]
struct Row {
    sweep: String,
    value: String,
    samples: usize,
    /// Absent in files written before the learner column.
    #[serde(default = "kmeans")]
    learner: String,
    length: usize,
    vocab: usize,
    mean_ami: Option<f64>,
    k_z_bits: f64,
    c: f64,
    w_paid: bool,
    exact_k_z_bits: Option<f64>,
    exact_c: f64,
    seconds: f64,
}

fn kmeans() -> String {
    "kmeans".into()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

/// Sample standard deviation (0 below two values).
fn std(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

/// The learners in plotting order, with their palette index and label.
const LEARNERS: &[(&str, usize, &str)] = &[
    ("kmeans", 1, "learned W, block k-means"),
    ("autoencoder", 2, "learned W, auto-encoder"),
    ("truth", 3, "the true W, coded"),
];

/// 1000 -> "1,000".
fn thousands(n: usize) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A panel's title and the swept parameter of a sweep.
fn sweep_title(sweep: &str) -> (&'static str, &'static str) {
    match sweep {
        "lookup-length" => ("Lookup tables over M", "length"),
        "lookup-vocab" => ("Lookup tables over K", "vocab"),
        "lookup-dim" => ("Lookup tables over D", "dim"),
        "lookup-ngram" => ("Lookup tables over q (K = 2)", "ngram"),
        "lookup-q2" => ("Lookup tables, q = 2, over M (K = 4)", "length"),
        "grammar-width" => ("Grammars over width", "width"),
        "grammar-depth" => ("Grammars over depth", "depth"),
        "holistic" => ("Holistic objects", "dim"),
        "noise" => ("Uniform noise", "dim"),
        _ => ("", ""),
    }
}

/// Tables and figures from the result files: DIR/<learner>/<sweep>.csv.
fn summarise(dir: &std::path::Path) {
    use kcomp::estimators::agreement::kendall_tau_b;
    use kcomp::plot::{Figure, Panel, Point, Series, line_figure};
    let mut rows: Vec<(String, Row)> = Vec::new();
    let mut learner_dirs: Vec<_> = std::fs::read_dir(dir)
        .expect("results folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    learner_dirs.sort();
    for ld in &learner_dirs {
        let mut files: Vec<_> = std::fs::read_dir(ld)
            .expect("learner folder")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .collect();
        files.sort();
        for f in files {
            // The file's name: one sweep may have several files (lookup-n2000).
            let name = f
                .file_stem()
                .map_or(String::new(), |s| s.to_string_lossy().into_owned());
            let mut rd = csv::Reader::from_path(&f).expect("csv");
            for r in rd.deserialize::<Row>() {
                rows.push((name.clone(), r.expect("row")));
            }
        }
    }
    let mut names: Vec<String> = rows.iter().map(|(n, _)| n.clone()).collect();
    names.sort();
    names.dedup();
    let mut md = String::from(
        "Mean over seeds (n = seeds; +- is the standard deviation over seeds when n >= 2).\n\n\
         | sweep | value | N | learner | n | M, V learned (first seed) | AMI | K(Z) est / exact | C est | C exact | W paid | s |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut summary = String::from(
        "sweep,learner,n_values,n_rows,kendall_tau_c,kendall_tau_k_z,mean_ami,min_ami,\
         max_abs_k_z_rel_error,max_c,mean_seconds\n",
    );
    let mut panels = Vec::new();
    for name in &names {
        let mut series = Vec::new();
        let mut exact_pts: Vec<Point> = Vec::new();
        let mut values_all: Vec<String> = Vec::new();
        for &(learner, color, label) in LEARNERS {
            let sel: Vec<&Row> = rows
                .iter()
                .filter(|(n, r)| n == name && r.learner == learner)
                .map(|(_, r)| r)
                .collect();
            if sel.is_empty() {
                continue;
            }
            // Values in file order.
            let mut values: Vec<String> = Vec::new();
            for r in &sel {
                if !values.contains(&r.value) {
                    values.push(r.value.clone());
                }
            }
            if values_all.is_empty() {
                values_all = values.clone();
            }
            let (mut est_c, mut ex_c, mut est_k, mut ex_k) = (vec![], vec![], vec![], vec![]);
            let (mut amis, mut rels, mut secs) = (vec![], vec![], vec![]);
            let mut pts = Vec::new();
            for v in &values {
                let g: Vec<&&Row> = sel.iter().filter(|r| &r.value == v).collect();
                let cs: Vec<f64> = g.iter().map(|r| r.c).collect();
                let ks: Vec<f64> = g.iter().map(|r| r.k_z_bits).collect();
                let exc = mean(&g.iter().map(|r| r.exact_c).collect::<Vec<_>>());
                let exk: Vec<f64> = g.iter().filter_map(|r| r.exact_k_z_bits).collect();
                let ami: Vec<f64> = g.iter().filter_map(|r| r.mean_ami).collect();
                let rel: Vec<f64> = g
                    .iter()
                    .filter_map(|r| r.exact_k_z_bits.map(|e| r.k_z_bits / e))
                    .collect();
                secs.extend(g.iter().map(|r| r.seconds));
                est_c.push(mean(&cs));
                ex_c.push(exc);
                if !exk.is_empty() {
                    est_k.push(mean(&ks));
                    ex_k.push(mean(&exk));
                }
                amis.extend(ami.iter().copied());
                rels.extend(rel.iter().map(|x| (x - 1.0).abs()));
                let pm = |xs: &[f64], d: usize| {
                    if xs.is_empty() {
                        "-".to_string()
                    } else if xs.len() >= 2 {
                        format!("{:.d$} +- {:.d$}", mean(xs), std(xs))
                    } else {
                        format!("{:.d$}", mean(xs))
                    }
                };
                let r0 = g[0];
                md.push_str(&format!(
                    "| {name} | {v} | {} | {learner} | {} | {}, {} | {} | {} | {} | {exc:.3} | {}/{} | {:.0} |\n",
                    r0.samples,
                    g.len(),
                    r0.length,
                    r0.vocab,
                    pm(&ami, 3),
                    pm(&rel, 3),
                    pm(&cs, 3),
                    g.iter().filter(|r| r.w_paid).count(),
                    g.len(),
                    mean(&g.iter().map(|r| r.seconds).collect::<Vec<_>>())
                ));
                pts.push((v.clone(), mean(&cs), std(&cs)));
            }
            let tau_c = kendall_tau_b(&est_c, &ex_c);
            let tau_k = kendall_tau_b(&est_k, &ex_k);
            let fmt = |x: Option<f64>| x.map_or(String::new(), |t| format!("{t:.3}"));
            let opt = |xs: &[f64], f: fn(&[f64]) -> f64| {
                if xs.is_empty() {
                    String::new()
                } else {
                    format!("{:.4}", f(xs))
                }
            };
            summary.push_str(&format!(
                "{name},{learner},{},{},{},{},{},{},{},{:.4},{:.1}\n",
                values.len(),
                sel.len(),
                fmt(tau_c),
                fmt(tau_k),
                opt(&amis, mean),
                opt(&amis, |x| x.iter().copied().fold(f64::INFINITY, f64::min)),
                opt(&rels, |x| x.iter().copied().fold(0.0, f64::max)),
                est_c.iter().copied().fold(f64::MIN, f64::max),
                mean(&secs)
            ));
            if exact_pts.is_empty() {
                exact_pts = values
                    .iter()
                    .zip(&ex_c)
                    .map(|(v, &y)| Point {
                        x: values.iter().position(|u| u == v).unwrap_or(0) as f64,
                        y,
                        err: 0.0,
                    })
                    .collect();
            }
            series.push((label, color, pts));
        }
        if values_all.len() < 2 {
            continue;
        }
        let (x_axis, xs) = kcomp::plot::x_axis_for(&values_all);
        let xof = |v: &str| {
            values_all
                .iter()
                .position(|u| u == v)
                .map_or(f64::NAN, |i| xs[i])
        };
        let mut ser = vec![Series {
            label: "exact C(Z)".into(),
            points: exact_pts
                .iter()
                .map(|p| Point {
                    x: xs[p.x as usize],
                    ..*p
                })
                .collect(),
            reference: true,
            color: 0,
        }];
        for (label, color, pts) in series {
            ser.push(Series {
                label: label.into(),
                points: pts
                    .iter()
                    .map(|(v, y, e)| Point {
                        x: xof(v),
                        y: *y,
                        err: *e,
                    })
                    .filter(|p| p.x.is_finite())
                    .collect(),
                reference: false,
                color,
            });
        }
        let sweep = rows
            .iter()
            .find(|(n, _)| n == name)
            .map_or(String::new(), |(_, r)| r.sweep.clone());
        let (title, parameter) = sweep_title(&sweep);
        panels.push(Panel {
            title: format!(
                "{title} (N = {})",
                thousands(
                    rows.iter()
                        .find(|(n, _)| n == name)
                        .map_or(0, |(_, r)| r.samples)
                )
            ),
            x_label: kcomp::plot::parameter_label(parameter),
            y_label: "C(Z) = K(Z) / K(Z|W)".into(),
            x_axis,
            y_log: false,
            y_range: None,
            series: ser,
            reference_line: Some(kcomp::plot::RefLine::c_one()),
        });
    }
    let parent = dir.parent().unwrap_or(dir);
    std::fs::write(parent.join("tables.md"), md).expect("write tables.md");
    std::fs::write(parent.join("summary.csv"), summary).expect("write summary.csv");
    // Three panels per figure keep the figures readable.
    for (k, chunk) in panels.chunks(3).enumerate() {
        let fig = Figure {
            panels: chunk.to_vec(),
            caption: "C(Z) from sentences learned from Z alone (every term a prequential code, \
                      MDL choice of M and V for k-means; the auto-encoder at the true M and V) \
                      against the generator's exact C(Z) (crosses). Points: mean over seeds; \
                      error bars: standard deviation over seeds (absent with one seed); lines \
                      at C = 1 overlap."
                .into(),
        };
        line_figure(
            &parent.join(format!("c_estimated_vs_exact_{}", k + 1)),
            &fig,
        )
        .expect("figure");
    }
}
