//! `kcomp synth lookup|grammar|protocol`: generate a synthetic representation and print its
//! exact complexity terms (lookup and grammar also C(Z) in both conventions and topsim).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::datasets::grammar::GrammarParams;
use crate::datasets::lookup_table::LookupParams;
use crate::datasets::protocols::{ProtocolParams, write_protocol};
use crate::datasets::validate::topsim_bytes;
use crate::estimators::topsim::TopsimOptions;
use crate::io::npy::write_dataset;
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

/// `kcomp synth protocol` options: the generator's parameters and an output folder.
#[derive(Debug, Args)]
pub struct ProtocolArgs {
    #[command(flatten)]
    pub params: ProtocolParams,
    /// Write W.npy, Z.npy, W.csv and Z.csv into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

fn run_protocol(a: ProtocolArgs) -> anyhow::Result<()> {
    let data = a.params.dataset()?;
    let exact = data.exact.as_ref().expect("protocols have exact terms");
    println!(
        "protocol {:?}: N = {} (lengths in bits)",
        a.params.kind,
        data.n()
    );
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

/// Output options shared by both generators (their parameters come from the library's
/// parameter types, defaults included).
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Print one JSON object (all lengths in bits) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write W.npy, Z.npy, Z_grid.npy and meta.json into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Memory limit, e.g. 4G or 512M (default: half the physical memory); runs estimated
    /// above it are refused before anything is allocated.
    #[arg(long, value_name = "SIZE", value_parser = super::parse_max_memory, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
    #[command(flatten)]
    pub topsim: TopsimOptions,
}

/// `kcomp synth lookup` options.
#[derive(Debug, Args)]
pub struct LookupArgs {
    #[command(flatten)]
    pub params: LookupParams,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `kcomp synth grammar` options.
#[derive(Debug, Args)]
pub struct GrammarArgs {
    #[command(flatten)]
    pub params: GrammarParams,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs `kcomp synth`.
pub fn run_synth(args: SynthArgs) -> anyhow::Result<()> {
    let (spec, common) = match args.generator {
        SynthGenerator::Protocol(a) => return run_protocol(a),
        SynthGenerator::Lookup(a) => (SynthSpec::Lookup(a.params), a.output),
        SynthGenerator::Grammar(a) => (SynthSpec::Grammar(a.params), a.output),
    };
    if let Some(bytes) = common.max_memory {
        crate::io::limits::set_max_memory(bytes);
    }
    // Parameters (and the generator's memory) first, so errors name the real culprit.
    match &spec {
        SynthSpec::Lookup(p) => p.validate()?,
        SynthSpec::Grammar(p) => p.validate()?,
    }
    let topsim = common.topsim.config(spec.seed());
    if let Some(t) = &topsim {
        let (n, m, d) = spec.shape();
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
        println!("  {name:<16} {:>14}", number(v, 3));
    }
    println!(
        "  {:<16} {:>14}   (K(Z) / K(Z|W) with totals, the paper's formula)",
        "C(Z)",
        number(r.c, 6)
    );
    println!(
        "  {:<16} {:>14}   (the published figures' convention: terms per sample)",
        "C(Z) per sample",
        number(r.c_per_sample, 6)
    );
    match r.topsim {
        Some(t) => println!("  {:<16} {:>14}", "topsim", number(t, 6)),
        None => println!("  {:<16} {:>14}", "topsim", "-"),
    }
    for note in &r.notes {
        println!("  note: {note}");
    }
}

/// Fixed notation for ordinary magnitudes, scientific from 1e9 on (a 19-digit fixed number
/// hides its magnitude).
fn number(v: f64, decimals: usize) -> String {
    if v.abs() >= 1e9 {
        format!("{v:.6e}")
    } else {
        format!("{v:.decimals$}")
    }
}
