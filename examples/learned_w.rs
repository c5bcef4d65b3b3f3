//! The runner of experiments/learned-w: C(Z) of a representation alone (sentences learned
//! from Z, every term coded) against the generator's exact terms, on lookup tables (the
//! Figure 2 sweeps of Elmoznino et al., ICML 2025), grammars, holistic data and noise.
//! Prints one CSV row per dataset (header once) on stdout.
//!
//! `cargo run --release --example learned_w -- --sweep lookup-length --samples 1000 --seeds 0`

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
fn dataset(sweep: &str, value: &str, n: usize, seed: u64) -> (Dataset, Option<TokenData>) {
    let num: usize = value.parse().expect("numeric value");
    let mut lp = LookupParams {
        samples: n,
        seed,
        ..Default::default()
    };
    let mut gp = GrammarParams {
        samples: n,
        seed,
        ..Default::default()
    };
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
        "holistic" => {
            // Every row its own object: a one-word lookup table over N words, each used once.
            lp.length = 1;
            lp.vocab = n;
            lp.dim = num;
            let mut d = lookup(&lp).expect("lookup").to_dataset().expect("dataset");
            d.w = TokenData::new(n, 1, n, (0..n as u32).collect()).expect("tokens");
            return (d, None);
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

fn main() {
    let args = Args::parse();
    if let Some(dir) = &args.summarise {
        summarise(dir);
        return;
    }
    if args.header {
        println!(
            "sweep,value,samples,seed,length,vocab,mean_ami,k_w_bits,k_z_given_w_bits,k_z_bits,\
             naive_bits,c,w_paid,exact_k_z_bits,exact_k_z_given_w_bits,exact_c,grid_points,seconds"
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
            let (d, truth) = dataset(&args.sweep, v, args.samples, seed);
            let start = Instant::now();
            let cfg = SelectConfig {
                seed,
                learner: kcomp::representation::LearnerConfig {
                    epochs: 50,
                    ..Default::default()
                },
                ..Default::default()
            };
            let s = select(&KMeansLearner::default(), &d.z, &cfg, &|_, _| {}).expect("select");
            let secs = start.elapsed().as_secs_f64();
            let t = &s.terms;
            let ami = truth
                .map(|tw| recovery(&s.learned.w, &tw).expect("ami").mean_ami)
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
                "{},{v},{},{seed},{},{},{ami},{:.1},{:.1},{:.1},{:.1},{:.4},{},{ekz},{ekzw},{ec},{},{secs:.1}",
                args.sweep,
                args.samples,
                t.length,
                t.vocab,
                t.k_w_bits,
                t.k_z_given_w_bits,
                t.k_z_bits,
                t.naive_bits,
                t.c,
                t.w_paid,
                s.points.len()
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

/// Tables and figures from the result files.
fn summarise(dir: &std::path::Path) {
    use kcomp::estimators::agreement::kendall_tau_b;
    use kcomp::plot::{Figure, Panel, Point, Series, line_figure};
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("results folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    let mut md = String::from(
        "| sweep | value | N | M, V learned | AMI | K(Z) est / exact | C est | C exact | W paid | s |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut summary = String::from(
        "sweep,n_points,kendall_tau_c,kendall_tau_k_z,mean_ami,max_abs_k_z_rel_error,max_c\n",
    );
    let mut panels = Vec::new();
    for f in &files {
        let mut rd = csv::Reader::from_path(f).expect("csv");
        let rows: Vec<Row> = rd.deserialize().map(|r| r.expect("row")).collect();
        if rows.is_empty() {
            continue;
        }
        // The file's name: one sweep may have several files (lookup-n2000).
        let sweep = f
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        for r in &rows {
            let rel = r
                .exact_k_z_bits
                .map_or("-".to_string(), |e| format!("{:.3}", r.k_z_bits / e));
            md.push_str(&format!(
                "| {} | {} | {} | {}, {} | {} | {rel} | {:.3} | {:.3} | {} | {:.0} |\n",
                r.sweep,
                r.value,
                r.samples,
                r.length,
                r.vocab,
                r.mean_ami.map_or("-".into(), |a| format!("{a:.3}")),
                r.c,
                r.exact_c,
                if r.w_paid { "yes" } else { "no" },
                r.seconds
            ));
        }
        let est: Vec<f64> = rows.iter().map(|r| r.c).collect();
        let ex: Vec<f64> = rows.iter().map(|r| r.exact_c).collect();
        let tau_c = kendall_tau_b(&est, &ex);
        let kz: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| r.exact_k_z_bits.map(|e| (r.k_z_bits, e)))
            .collect();
        let tau_k = kendall_tau_b(
            &kz.iter().map(|p| p.0).collect::<Vec<_>>(),
            &kz.iter().map(|p| p.1).collect::<Vec<_>>(),
        );
        let amis: Vec<f64> = rows.iter().filter_map(|r| r.mean_ami).collect();
        let mean_ami = if amis.is_empty() {
            f64::NAN
        } else {
            amis.iter().sum::<f64>() / amis.len() as f64
        };
        let max_rel = kz
            .iter()
            .map(|(a, b)| (a / b - 1.0).abs())
            .fold(0.0f64, f64::max);
        let max_c = est.iter().copied().fold(f64::MIN, f64::max);
        let fmt = |x: Option<f64>| x.map_or(String::new(), |t| format!("{t:.3}"));
        summary.push_str(&format!(
            "{sweep},{},{},{},{},{max_rel:.4},{max_c:.4}\n",
            rows.len(),
            fmt(tau_c),
            fmt(tau_k),
            if mean_ami.is_nan() {
                String::new()
            } else {
                format!("{mean_ami:.4}")
            }
        ));
        if rows.len() < 2 {
            continue;
        }
        let values: Vec<String> = rows.iter().map(|r| r.value.clone()).collect();
        let (x_axis, xs) = kcomp::plot::x_axis_for(&values);
        let series = |label: &str, ys: &[f64], color: usize, reference: bool| Series {
            label: label.into(),
            points: xs
                .iter()
                .zip(ys)
                .map(|(&x, &y)| Point { x, y, err: 0.0 })
                .collect(),
            reference,
            color,
        };
        panels.push(Panel {
            title: sweep.clone(),
            x_label: kcomp::plot::parameter_label(rows[0].sweep.split('-').nth(1).unwrap_or("")),
            y_label: "C(Z)".into(),
            x_axis,
            y_log: false,
            y_range: None,
            series: vec![
                series("exact C(Z)", &ex, 0, true),
                series("learned-W C(Z)", &est, 1, false),
            ],
            reference_line: Some(kcomp::plot::RefLine::c_one()),
        });
    }
    let parent = dir.parent().unwrap_or(dir);
    std::fs::write(parent.join("tables.md"), md).expect("write tables.md");
    std::fs::write(parent.join("summary.csv"), summary).expect("write summary.csv");
    // Three panels per figure row keep the figures readable.
    for (k, chunk) in panels.chunks(3).enumerate() {
        let fig = Figure {
            panels: chunk.to_vec(),
            caption: "C(Z) from sentences learned from Z alone (block-wise k-means, MDL choice of \
                      M and V, every term a prequential code) against the generator's exact C(Z); \
                      one seed per point."
                .into(),
        };
        line_figure(
            &parent.join(format!("c_estimated_vs_exact_{}", k + 1)),
            &fig,
        )
        .expect("figure");
    }
}
