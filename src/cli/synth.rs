//! `kcomp synth lookup|grammar|protocol`: generate a synthetic representation and print its
//! exact complexity terms (lookup and grammar also C(Z) in both conventions and topsim).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::datasets::grammar::{Composition, GrammarParams};
use crate::datasets::lookup_table::{LookupParams, TableCost};
use crate::datasets::protocols::{ProtocolKind, ProtocolParams, write_protocol};
use crate::datasets::validate::topsim_bytes;
use crate::estimators::topsim::{Correlation, TopsimConfig, WDistance, ZDistance};
use crate::io::npy::write_dataset;
use crate::rng::stream::RngKind;
use crate::sweeps::run::{RunRecord, SynthSpec, run};

/// Generate a synthetic representation with known description lengths.
#[derive(Debug, Args)]
pub struct SynthArgs {
    #[command(subcommand)]
    pub generator: SynthGenerator,
}

/// The generators.
#[derive(Debug, Subcommand)]
pub enum SynthGenerator {
    /// Lookup-table representation: each q-gram of the sentence indexes a row of one shared
    /// table; rows are concatenated and Skellam noise is added.
    ///
    /// Example: kcomp synth lookup --length 16 --vocab 10 --dim 64 --ngram 1 --json
    #[command(allow_negative_numbers = true)]
    Lookup(LookupArgs),
    /// Context-free-grammar representation: sentences from a POS-transition sampler, parsed by
    /// CYK, composed bottom-up with one linear map (or tensor-product roles) per rule.
    ///
    /// Example: kcomp synth grammar --width 3 --depth 2 --composition linear --json
    #[command(allow_negative_numbers = true)]
    Grammar(GrammarArgs),
    /// A test language of Korbak et al. 2020 over colours x shapes; prints its exact terms.
    ///
    /// Example: kcomp synth protocol --kind holistic --colours 5 --shapes 5 --seed 0 --out DIR
    Protocol(ProtocolArgs),
}

/// `kcomp synth protocol` options.
#[derive(Debug, Args)]
pub struct ProtocolArgs {
    /// Which protocol.
    #[arg(long, value_enum)]
    pub kind: ProtocolKind,
    /// C: number of colours.
    #[arg(long, default_value_t = 5)]
    pub colours: usize,
    /// S: number of shapes.
    #[arg(long, default_value_t = 5)]
    pub shapes: usize,
    /// Utterances per object.
    #[arg(long, default_value_t = 1)]
    pub repeats: usize,
    /// Seed of the lexicon and the row order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write W.npy, Z.npy, W.csv and Z.csv into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

fn run_protocol(a: ProtocolArgs) -> anyhow::Result<()> {
    let params = ProtocolParams {
        kind: a.kind,
        colours: a.colours,
        shapes: a.shapes,
        repeats: a.repeats,
        seed: a.seed,
    };
    let data = params.dataset()?;
    let exact = data.exact.as_ref().expect("protocols have exact terms");
    println!("protocol {:?}: N = {} (lengths in bits)", a.kind, data.n());
    for (name, bits) in &exact.parts {
        println!("  {name:<20} {bits:>14.4}");
    }
    println!("  {:<20} {:>14.4}", "K(Z|W)", exact.k_z_given_w_bits);
    println!("  {:<20} {:>14.4}", "K(Z)", exact.k_z_bits);
    if let Some(dir) = &a.out {
        for path in write_protocol(dir, &data)? {
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// Options shared by both generators.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// N: number of sentences.
    #[arg(long, default_value_t = 1000)]
    pub samples: usize,
    /// lam: grid spacing of every value (precision).
    #[arg(long, default_value_t = 0.01, allow_hyphen_values = true)]
    pub precision: f64,
    /// r: standard deviation of the noise added to Z.
    #[arg(long, default_value_t = 0.01, allow_hyphen_values = true)]
    pub noise: f64,
    /// Seed of every random draw.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Random stream: kcomp (ChaCha8) or numpy (replays the published NumPy runs exactly).
    #[arg(long, value_enum, default_value_t = RngKind::Kcomp)]
    pub rng: RngKind,
    /// Print one JSON object (all lengths in bits) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write W.npy, Z.npy, Z_grid.npy and meta.json into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Memory limit, e.g. 4G or 512M (default: half the physical memory); runs estimated
    /// above it are refused before anything is allocated.
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
    #[command(flatten)]
    pub topsim: TopsimArgs,
}

/// `--max-memory` parser shared by the commands that allocate.
pub fn parse_max_memory(s: &str) -> Result<u64, String> {
    crate::io::limits::parse_size(s).map_err(|e| e.to_string())
}

/// Topological-similarity options.
#[derive(Debug, Args)]
pub struct TopsimArgs {
    /// Skip topological similarity.
    #[arg(long)]
    pub no_topsim: bool,
    /// Correlation between the two distance lists.
    #[arg(long, value_enum, default_value_t = Correlation::Pearson)]
    pub topsim_correlation: Correlation,
    /// Distance between sentences.
    #[arg(long, value_enum, default_value_t = WDistance::OneHotCityblock)]
    pub topsim_w_distance: WDistance,
    /// Distance between representations.
    #[arg(long, value_enum, default_value_t = ZDistance::Euclidean)]
    pub topsim_z_distance: ZDistance,
    /// Use all pairs up to this many, else a seeded sample of this many pairs.
    #[arg(long, default_value_t = 1_000_000)]
    pub topsim_max_pairs: usize,
}

impl TopsimArgs {
    /// The configuration, or `None` with `--no-topsim`.
    pub fn config(&self, seed: u64) -> Option<TopsimConfig> {
        (!self.no_topsim).then_some(TopsimConfig {
            correlation: self.topsim_correlation,
            w_distance: self.topsim_w_distance,
            z_distance: self.topsim_z_distance,
            max_pairs: self.topsim_max_pairs,
            seed,
        })
    }
}

/// `kcomp synth lookup` options.
#[derive(Debug, Args)]
pub struct LookupArgs {
    /// M: sentence length.
    #[arg(long, default_value_t = 16)]
    pub length: usize,
    /// K: vocabulary size (at least 2).
    #[arg(long, default_value_t = 10)]
    pub vocab: usize,
    /// D: representation dimension (divisible by length/ngram).
    #[arg(long, default_value_t = 64)]
    pub dim: usize,
    /// q: n-gram size, i.e. disentanglement (must divide the length).
    #[arg(long, default_value_t = 1)]
    pub ngram: usize,
    /// Standard deviation of table entries.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub table_std: f64,
    /// K(f) charges every table row (full, the paper's) or only the rows that occur (used).
    #[arg(long, value_enum, default_value_t = TableCost::Full)]
    pub table_cost: TableCost,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `kcomp synth grammar` options.
#[derive(Debug, Args)]
pub struct GrammarArgs {
    /// M: sentence length (a multiple of 2^depth).
    #[arg(long, default_value_t = 16)]
    pub length: usize,
    /// K: vocabulary size (word i has part of speech i mod T).
    #[arg(long, default_value_t = 100)]
    pub vocab: usize,
    /// D: representation dimension.
    #[arg(long, default_value_t = 10)]
    pub dim: usize,
    /// T: number of parts of speech (at least 3).
    #[arg(long, default_value_t = 5)]
    pub pos: usize,
    /// Non-terminals per level.
    #[arg(long, default_value_t = 3)]
    pub width: usize,
    /// Levels of non-terminals (the top one is recursive).
    #[arg(long, default_value_t = 2)]
    pub depth: usize,
    /// How rules combine their children.
    #[arg(long, value_enum, default_value_t = Composition::Linear)]
    pub composition: Composition,
    /// Charge K(W|p_w) = M log2 K per sentence as the published code does (default: the
    /// true code length under the transition sampler).
    #[arg(long)]
    pub reference_compat: bool,
    /// Standard deviation of embeddings, rule matrices and roles.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub param_std: f64,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Runs `kcomp synth`.
pub fn run_synth(args: SynthArgs) -> anyhow::Result<()> {
    let (spec, common) = match args.generator {
        SynthGenerator::Protocol(a) => return run_protocol(a),
        SynthGenerator::Lookup(a) => (
            SynthSpec::Lookup(LookupParams {
                samples: a.common.samples,
                length: a.length,
                vocab: a.vocab,
                dim: a.dim,
                ngram: a.ngram,
                precision: a.common.precision,
                noise: a.common.noise,
                table_std: a.table_std,
                seed: a.common.seed,
                rng: a.common.rng,
                table_cost: a.table_cost,
            }),
            a.common,
        ),
        SynthGenerator::Grammar(a) => (
            SynthSpec::Grammar(GrammarParams {
                samples: a.common.samples,
                length: a.length,
                vocab: a.vocab,
                dim: a.dim,
                pos: a.pos,
                width: a.width,
                depth: a.depth,
                precision: a.common.precision,
                noise: a.common.noise,
                param_std: a.param_std,
                composition: a.composition,
                reference_compat: a.reference_compat,
                seed: a.common.seed,
                rng: a.common.rng,
            }),
            a.common,
        ),
    };
    if let Some(bytes) = common.max_memory {
        crate::io::limits::set_max_memory(bytes);
    }
    // Parameters (and the generator's memory) first, so errors name the real culprit.
    match &spec {
        SynthSpec::Lookup(p) => p.validate()?,
        SynthSpec::Grammar(p) => p.validate()?,
    }
    let topsim = common.topsim.config(common.seed);
    if let Some(t) = &topsim {
        let (n, m, d) = spec_shape(&spec);
        crate::datasets::validate::memory(
            "topological similarity",
            &[("topsim_max_pairs", topsim_bytes(n, m, d, t.max_pairs))],
        )?;
    }
    let (record, data) = run(&spec, topsim.as_ref())?;
    let mut written = Vec::new();
    if let Some(dir) = &common.out {
        let meta = serde_json::json!({ "spec": spec, "record": record });
        written = write_dataset(dir, &data.w, &data.z, data.precision, meta)?;
    }
    if common.json {
        let mut value = serde_json::to_value(&record)?;
        value["params"] = serde_json::to_value(&spec)?;
        println!("{}", serde_json::to_string(&value)?);
    } else {
        print_table(&record);
        for path in &written {
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// (samples, length, dim) of a spec, for the topsim memory estimate.
pub fn spec_shape(spec: &SynthSpec) -> (usize, usize, usize) {
    match spec {
        SynthSpec::Lookup(p) => (p.samples, p.length, p.dim),
        SynthSpec::Grammar(p) => (p.samples, p.length, p.dim),
    }
}

fn print_table(r: &RunRecord) {
    println!(
        "{} representation (description lengths in bits)",
        r.generator
    );
    let rows = [
        ("K(p_w)", r.k_pw),
        ("K(W|p_w)", r.k_w_given_pw),
        ("K(f)", r.k_f),
        ("K(Z|W,f)", r.k_z_given_wf),
        ("K(Z)", r.k_z),
        ("K(Z|W)", r.k_z_given_w),
    ];
    for (name, v) in rows {
        println!("  {name:<10} {v:>18.3}");
    }
    println!(
        "  {:<10} {:>18.6}   (totals, the paper's formula)",
        "C(Z)", r.c
    );
    println!(
        "  {:<10} {:>18.6}   (per-sample convention of the published figures)",
        "C(Z)/N", r.c_per_sample
    );
    match r.topsim {
        Some(t) => println!("  {:<10} {:>18.6}", "topsim", t),
        None => println!("  {:<10} {:>18}", "topsim", "-"),
    }
    for note in &r.notes {
        println!("  note: {note}");
    }
}
