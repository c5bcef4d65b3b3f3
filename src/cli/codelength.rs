//! `kcomp codelength`: code lengths under kcomp's coding primitives.

use clap::{Args, Subcommand};

use crate::coding::skellam::checked_code_length;

/// Code length of a value under a distribution.
#[derive(Debug, Args)]
pub struct CodelengthArgs {
    #[command(subcommand)]
    pub distribution: Distribution,
}

/// Supported distributions.
#[derive(Debug, Subcommand)]
pub enum Distribution {
    /// Skellam(mu1, mu2), the difference of two Poissons. Prints
    /// {"logpmf_nats": ln p(k), "bits": -log2 p(k)}; finite far in the tails.
    ///
    /// Example: kcomp codelength skellam --mu1 5000 --mu2 5000 --k 1000
    #[command(allow_negative_numbers = true)]
    Skellam {
        /// Mean of the first Poisson (>= 0).
        #[arg(long)]
        mu1: f64,
        /// Mean of the second Poisson (>= 0).
        #[arg(long)]
        mu2: f64,
        /// The integer value to code.
        #[arg(long)]
        k: i64,
    },
}

/// Runs `kcomp codelength`.
pub fn run_codelength(args: CodelengthArgs) -> anyhow::Result<()> {
    match args.distribution {
        Distribution::Skellam { mu1, mu2, k } => {
            outln!("{}", checked_code_length(k, mu1, mu2)?);
        }
    }
    Ok(())
}
