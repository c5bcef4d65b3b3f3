//! `kcomp represent`: parses the command line and prints; the run lives in
//! `representation::report`.

use std::path::PathBuf;

use clap::Args;

use crate::error::Result;
use crate::representation::report::{RepresentSettings, to_text};

/// Learns sentences W for a continuous representation Z alone (no W given), codes every term
/// of K(Z) in bits, and reports C(Z) = K(Z) / K(Z|W) (Elmoznino et al., ICML 2025, Section 2
/// and Appendix B). The sentence space (M words over V) is chosen by the total code length.
///
/// Examples:
///   kcomp represent --z Z.npy --precision 0.01 --out results/represent
///   kcomp represent --z Z.csv --precision 0.01 --vocab 8,10,12 --length 16 --out results/r
#[derive(Debug, Clone, Args)]
#[command(arg_required_else_help = true, verbatim_doc_comment)]
pub struct RepresentArgs {
    /// The representation Z (.npy, .csv or .jsonl; one row per object).
    #[arg(long)]
    pub z: PathBuf,
    /// Grid spacing at which Z's values are coded.
    #[arg(long, allow_hyphen_values = true)]
    pub precision: f64,
    /// Output folder (W.npy, terms.json, terms.csv, grid.csv, curve.csv, represent.png/.svg).
    #[arg(long)]
    pub out: PathBuf,
    /// Vocabulary sizes V to try (default 2,4,8,16,32, at M = 1 also 64,128,... up to N; then
    /// refined at every M within 5 % of the best total).
    #[arg(long, value_delimiter = ',', value_name = "V1,V2,...")]
    pub vocab: Option<Vec<usize>>,
    /// Sentence lengths M to try (default 1,2,4,... up to min(D, 64); up to 64 for the
    /// autoencoder).
    #[arg(long, value_delimiter = ',', value_name = "M1,M2,...")]
    pub length: Option<Vec<usize>>,
    /// The sentence learner: kmeans (block-wise k-means, the default: docs/learned-w.md) or
    /// autoencoder (built with --features burn).
    #[arg(long, default_value = "kmeans")]
    pub learner: String,
    /// Training epochs (default: 50 Lloyd iterations at most for kmeans, 200 epochs for the
    /// autoencoder).
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Learning rate of the autoencoder (default 0.01; kmeans has none).
    #[arg(long, allow_hyphen_values = true)]
    pub lr: Option<f64>,
    /// The decoder learners of K(Z|W), comma-separated (the online prequential scheme's
    /// learners of continuous Z: marginal, ngram0..ngram3, linear1, linear2, sparse, tree,
    /// mlp-linear, mlp256, gru; `default` = marginal, ngram1, linear1). `default,tree` adds
    /// the tree-composition learner (grammar representations: sentences of 2-64 words, Z of at
    /// most 32 dimensions; docs/learned-w.md says what it finds).
    #[arg(long, value_delimiter = ',', value_name = "L1,L2,...")]
    pub decoders: Option<Vec<String>>,
    /// Seed of every random draw.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (0 = all cores); the result does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write into an output folder that holds other outputs.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print the terms as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl RepresentArgs {
    /// The library's settings from the parsed flags.
    pub fn settings(&self) -> RepresentSettings {
        RepresentSettings {
            z: self.z.clone(),
            precision: self.precision,
            out: self.out.clone(),
            vocab: self.vocab.clone(),
            length: self.length.clone(),
            learner: self.learner.clone(),
            epochs: self.epochs,
            lr: self.lr,
            decoders: self.decoders.clone(),
            seed: self.seed,
            threads: self.threads,
            force: self.force,
        }
    }
}

/// Runs `kcomp represent`.
pub fn run(args: RepresentArgs) -> Result<()> {
    let run = args.settings().resolve()?;
    let out = run.run(!args.quiet && !args.json)?;
    match args.json {
        true => outln!("{}", out.json),
        false => out!("{}", to_text(&out)),
    }
    Ok(())
}
