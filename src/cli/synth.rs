//! `kcomp synth lookup|grammar|protocol`: generate a synthetic representation and print its
//! exact complexity terms (lookup and grammar also C(Z) in both conventions and topsim).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::datasets::grammar::GrammarParams;
use crate::datasets::lookup_table::LookupParams;
use crate::datasets::protocols::{ProtocolParams, protocol_text, write_protocol};
use crate::estimators::topsim::TopsimOptions;
use crate::io::limits::{configure, parse_max_memory};
use crate::sweeps::run::SynthSpec;
use crate::sweeps::synth::synth;

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
    /// Write into a folder that holds another run's files.
    #[arg(long, requires = "out")]
    pub force: bool,
}

fn run_protocol(a: ProtocolArgs) -> anyhow::Result<()> {
    let data = a.params.dataset()?;
    if let Some(dir) = &a.out {
        let stamp = serde_json::json!({"command": "synth protocol", "params": &a.params});
        crate::io::out_dir::claim(dir, &stamp, a.force)?;
    }
    out!("{}", protocol_text(a.params.kind, &data)?);
    if let Some(dir) = &a.out {
        for path in write_protocol(dir, &data)? {
            outln!("wrote {}", path.display());
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
    /// Write into a folder that holds another run's files.
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Memory limit, e.g. 4G or 512M (default: half the physical memory); runs estimated
    /// above it are refused before anything is allocated.
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory, allow_hyphen_values = true)]
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
    configure(None, common.max_memory)?;
    let outcome = synth(spec, &common.topsim, common.out.as_deref(), common.force)?;
    match common.json {
        true => outln!("{}", outcome.to_json()?),
        false => out!("{}", outcome.to_text()),
    }
    Ok(())
}
